"""Subcommands of the `numag` command line (see numag/cli.py)."""
