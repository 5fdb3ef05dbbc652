"""``python -m collector COMMAND``: the collector's commands, also ``prematch COMMAND`` (:mod:`collector.console`).

The commands are the modules listed in ``COMMANDS`` (see :mod:`collector.commandline`).
"""

from __future__ import annotations

import sys

from collector.commandline import PROG, run_program
from collector.commandline import build_parser as _build_parser

COMMANDS = [
    "schema", "define_competition", "sync", "status", "verify", "guard", "tick", "replay", "demo", "models", "costs",
    "reports", "endpoint_check",
]
DESCRIPTION = "Prematch collector: register fixtures, collect forecasts before kickoff, record outcomes in archive/."


def build_parser():
    return _build_parser(PROG, DESCRIPTION, "collector", COMMANDS)


def main(argv: list[str] | None = None) -> int:
    return run_program(PROG, DESCRIPTION, "collector", COMMANDS, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
