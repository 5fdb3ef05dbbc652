"""``prematch COMMAND``: the one console command, every command of the collector and of the builder.

``prematch tick``, ``prematch verify``, ``prematch build``, ... dispatch to the command modules of
``collector.commands`` and ``builder.commands`` (the same modules ``python -m collector`` and
``python -m builder`` run). Only the chosen command's module is imported; ``prematch --help``
imports none (see :mod:`collector.commandline`).
"""

from __future__ import annotations

import sys

import builder.cli
import collector.cli
from collector.commandline import PROG, build_parser_of, run_program_of

DESCRIPTION = (
    "Prematch: an open, auditable, prospective benchmark of football forecasts made by LLMs before kickoff. "
    "Collector commands register fixtures, collect forecasts, record outcomes and verify the archive; builder "
    "commands score it and render the static site."
)
GROUPS = [("collector", collector.cli.COMMANDS), ("builder", builder.cli.COMMANDS)]


def build_parser():
    return build_parser_of(PROG, DESCRIPTION, GROUPS)


def main(argv: list[str] | None = None) -> int:
    return run_program_of(PROG, DESCRIPTION, GROUPS, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
