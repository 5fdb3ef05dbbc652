"""``python -m collector COMMAND``: thin commands over the collector's modules.

Each command lives in ``collector/commands/<name>.py`` and exposes ``add_parser(subparsers)``
(which registers the command, with help on every option) and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = ["schema", "define_competition", "sync", "status", "verify", "guard", "tick", "replay", "demo"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m collector", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"collector.commands.{name}")
        command = module.add_parser(sub)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args._run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
