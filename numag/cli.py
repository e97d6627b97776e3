"""The `numag` command: one subcommand per main job (numag/commands/<name>.py).

Each command module defines NAME, HELP, add_arguments(parser) and run(args) -> exit code: it
parses its flags into the job's options (numag.jobs), calls the library and renders the result.
Bad input (ValueError from anywhere below, an unreadable or unwritable path, an unusable SQLite
store) becomes a one-line error `numag CMD: error: ...` and exit code 2; an OptionError names
the options by their flags (--seed), where the library says option 'seed'.
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import sqlite3
import sys

from witness.cli import OneLineErrorParser

from .commands.common import flag
from .options import OptionError

COMMANDS = ("dim", "fiber", "classify", "degree", "sweep", "reproduce")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="numag", description="Numerical algebraic geometry of self-attention neuromanifolds.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"numag.commands.{name}")
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def _joined_negative_values(argv: list[str]) -> list[str]:
    """``--widths -1,2`` as ``--widths=-1,2``: argparse takes a value that starts with '-' and
    is not a plain number for an option ('expected one argument'), so the option's own check
    never saw it and never said what is wrong (a negative size)."""
    out: list[str] = []
    for a in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and \
                re.fullmatch(r"-\d[\d.,:/ -]*", a):
            out[-1] = f"{out[-1]}={a}"
        else:
            out.append(a)
    return out


def main(argv: list[str] | None = None) -> int:
    argv = _joined_negative_values(sys.argv[1:] if argv is None else list(argv))
    try:
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:                  # Ctrl-C while the commands are imported
        print("numag: interrupted", file=sys.stderr)
        return 130
    try:
        code = int(args.run(args) or 0)
        sys.stdout.flush()                     # a closed pipe shows here, not at exit
        return code
    except BrokenPipeError:                    # e.g. `numag ... --json | head`
        quiet_stdout()
        return 0
    except UnicodeDecodeError as exc:          # a ValueError that names no file
        return _error(args, _decode_error(args, exc))
    except OptionError as exc:
        return _error(args, exc.render(flag))
    except ValueError as exc:
        return _error(args, str(exc))
    except OSError as exc:                     # a folder given as a file, no permission, ...
        return _error(args, _os_error(exc))
    except sqlite3.Error as exc:               # the sweep store
        store = getattr(args, "store", None)
        return _error(args, f"{store}: SQLite error ({exc})" if store else f"SQLite error ({exc})")
    except KeyboardInterrupt:
        print(f"numag {args.command}: interrupted", file=sys.stderr)
        return 130


def quiet_stdout() -> None:
    """After a BrokenPipeError: send the rest of stdout (the flush at exit) to /dev/null."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _error(args: argparse.Namespace, message: str) -> int:
    print(f"numag {args.command}: error: {message}", file=sys.stderr)
    return 2


def _os_error(exc: OSError) -> str:
    """'PATH: reason', e.g. '/tmp: Is a directory' (the exception's text if it names no path)."""
    paths = [str(f) for f in (exc.filename, exc.filename2) if f is not None]
    if not paths:
        return str(exc)
    return f"{' -> '.join(paths)}: {exc.strerror or exc}"


def _decode_error(args: argparse.Namespace, exc: UnicodeDecodeError) -> str:
    """Name the input files among the arguments that are not UTF-8 text."""
    bad = [v for v in vars(args).values() if isinstance(v, str) and _not_utf8(v)]
    return f"{', '.join(bad) or 'an input file'}: not UTF-8 text ({exc.reason} at byte {exc.start})"


def _not_utf8(path: str) -> bool:
    if not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as fh:
            fh.read().decode("utf-8")
    except UnicodeDecodeError:
        return True
    except OSError:                            # not a readable file: not the one
        return False
    return False


if __name__ == "__main__":
    sys.exit(main())
