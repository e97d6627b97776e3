"""The `numag` command: one subcommand per main job (numag/commands/<name>.py).

Each command module defines NAME, HELP, add_arguments(parser) and run(args) -> exit code. Bad
input (ValueError from anywhere below) becomes a one-line error and exit code 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = ("dim", "fiber", "classify", "sweep", "reproduce")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="numag", description="Numerical algebraic geometry of self-attention neuromanifolds.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"numag.commands.{name}")
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except ValueError as exc:
        print(f"numag {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"numag {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:                    # e.g. `numag ... --json | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
