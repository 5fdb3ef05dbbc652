"""``python -m builder COMMAND``: the builder's commands, also ``prematch COMMAND`` (:mod:`collector.console`).

The commands are the modules listed in ``COMMANDS`` (see :mod:`collector.commandline`).
"""

from __future__ import annotations

import sys

from collector.commandline import PROG, run_program
from collector.commandline import build_parser as _build_parser

COMMANDS: list[str] = ["score", "build", "paper_tables", "t5"]
DESCRIPTION = "Prematch builder: score the archive and render the static site."


def build_parser():
    return _build_parser(PROG, DESCRIPTION, "builder", COMMANDS)


def main(argv: list[str] | None = None) -> int:
    return run_program(PROG, DESCRIPTION, "builder", COMMANDS, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
