"""The shared shape of the ``prematch`` command and of ``python -m collector`` / ``python -m builder``.

``prematch`` (the console command, :mod:`collector.console`) holds every command of both packages;
``python -m collector`` and ``python -m builder`` each hold their own package's, under the same
name ``prematch`` in their usage lines and messages.

Each command lives in ``<package>/commands/<module>.py`` and exposes ``add_parser(subparsers)``
(which registers the command, with help text on every option) and ``run(args) -> int``.
Only the module of the command being run is imported; the program's own ``--help`` (or an
unknown command) imports none: each command's name and one-line help are read from its
module's source (:func:`command_summaries`).

Conventions every command follows:

* exit 0 when done, 1 when it found problems (or violations), 2 when used wrongly: a bad
  option value (argparse), or a folder that is not what the command expects
  (:class:`~collector.errors.UsageError`, one line on stderr);
* its result satisfies :class:`~collector.errors.RunReport` and ``run`` ends with
  ``return finish(report)``: the summary goes to stdout, each problem to stderr behind the
  one prefix ``problem: ``;
* one time parser (:func:`parse_utc_instant`), one ``--clock`` (:func:`add_clock_option`,
  :func:`resolve_clock`) and one ``--data-dir`` (:func:`add_data_dir_option`).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import os
import re
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from collector.errors import (
    PROBLEM_PREFIX,
    PrematchError,
    Problem,
    ProblemsFound,
    RunReport,
    UsageError,
    did_you_mean,
)
from collector.redaction import redact

if TYPE_CHECKING:
    from collector.records import Clock

EXIT_DONE, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
DATA_DIR_ENV = "PREMATCH_DATA_DIR"


PROG = "prematch"  # the console command's name: every usage line and message says it
Groups = Sequence[tuple[str, Sequence[str]]]  # (package, its command modules), in the order listed


def build_parser(prog: str, description: str, package: str, modules: list[str]) -> argparse.ArgumentParser:
    return build_parser_of(prog, description, [(package, modules)])


def build_parser_of(prog: str, description: str, groups: Groups) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for package, modules in groups:
        for name in modules:
            module = importlib.import_module(f"{package}.commands.{name}")
            command = module.add_parser(sub)
            command.set_defaults(_run=module.run)
    return parser


def summary_parser(prog: str, description: str, package: str, modules: list[str]) -> argparse.ArgumentParser:
    return summary_parser_of(prog, description, [(package, modules)])


def summary_parser_of(prog: str, description: str, groups: Groups) -> argparse.ArgumentParser:
    """The program's parser with each command's name and help only (for ``--help`` and errors).

    A command whose name or help cannot be read from its source is imported and registered whole.
    """
    parser = argparse.ArgumentParser(prog=prog, description=description)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for package, modules in groups:
        for module, summary in zip(modules, command_summaries(package, modules), strict=True):
            if summary is None:
                loaded = importlib.import_module(f"{package}.commands.{module}")
                loaded.add_parser(sub).set_defaults(_run=loaded.run)
            else:
                sub.add_parser(summary[0], help=summary[1])
    return parser


def command_summaries(package: str, modules: list[str]) -> list[tuple[str, str] | None]:
    """``(name, help)`` of each command, from the ``sub.add_parser(NAME, help=...)`` call in its
    module's source (parsed, not imported); None where that call has no literal name and help."""
    spec = importlib.util.find_spec(f"{package}.commands")
    folder = Path(next(iter(spec.submodule_search_locations)))
    found: list[tuple[str, str] | None] = []
    for module in modules:
        found.append(_add_parser_call(ast.parse((folder / f"{module}.py").read_bytes())))
    return found


def _add_parser_call(tree: ast.Module) -> tuple[str, str] | None:
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_parser"
                and node.args and isinstance(node.args[0], ast.Constant)):
            helps = [k.value for k in node.keywords if k.arg == "help"]
            if len(helps) == 1 and isinstance(helps[0], ast.Constant) and isinstance(helps[0].value, str):
                return node.args[0].value, helps[0].value
    return None


def run_program(prog: str, description: str, package: str, modules: list[str], argv: list[str]) -> int:
    return run_program_of(prog, description, [(package, modules)], argv)


def unknown_command_hint(argv: list[str], groups: Groups) -> str:
    """`` (did you mean 'tick'?)`` when ``argv`` starts with a command name close to a known one, else ``""``."""
    if not argv or argv[0].startswith("-"):
        return ""
    names = [m.replace("_", "-") for _, modules in groups for m in modules]
    return did_you_mean(argv[0], names)


def run_program_of(prog: str, description: str, groups: Groups, argv: list[str]) -> int:
    """Parse ``argv`` and run the chosen command; returns its exit code.

    A :class:`UsageError` exits 2 with one line naming the command; any other error Prematch
    raises on purpose stops the run with exit 1, its problems behind the one prefix.
    """
    chosen = argv[0].replace("-", "_") if argv else ""
    owner = next((package for package, modules in groups if chosen in modules), None)
    if owner is not None:
        parser = build_parser_of(prog, description, [(owner, [chosen])])
    else:  # help, nothing or an unknown command: argparse lists them all, none imported
        hint = unknown_command_hint(argv, groups)
        if hint:
            print(shown(f"{prog}: unknown command {argv[0]!r}{hint}; see {prog} --help"), file=sys.stderr)
            return EXIT_USAGE
        parser = summary_parser_of(prog, description, groups)
    args = parser.parse_args(argv)  # a bad option exits 2 here (argparse)
    try:
        return args._run(args)
    except UsageError as exc:
        print(shown(f"{prog.split()[-1]} {args.command}: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except ProblemsFound as exc:
        print_problems(exc.problems)
        return EXIT_PROBLEMS
    except PrematchError as exc:
        print(shown(f"{PROBLEM_PREFIX}{exc}"), file=sys.stderr)
        return EXIT_PROBLEMS


UNSHOWN = "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
"""The characters no text from outside may bring to a terminal or a page as they are (a character
class body): C0 and C1 controls, line and paragraph separators, and the bidi marks, overrides and
isolates that change what a reader sees. The one home of that set."""


def unshown_pattern(keep: str = "") -> re.Pattern[str]:
    """A pattern of :data:`UNSHOWN` but the characters of ``keep`` (such as tab and newline)."""
    return re.compile(f"(?![{re.escape(keep)}])[{UNSHOWN}]" if keep else f"[{UNSHOWN}]")


_UNPRINTABLE = unshown_pattern()


def one_line(text: str) -> str:
    """``text`` with every control, line-breaking and bidi character escaped (``\\n``, ``\\x1b``,
    ``\\u202e``): a file named with a newline cannot split a problem line, nor an escape sequence
    or a bidi override change what the terminal shows."""
    def escaped(match: re.Match) -> str:
        code = ord(match[0])
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(match[0]) or (
            f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")

    return _UNPRINTABLE.sub(escaped, text)


def shown(line: str) -> str:
    """A line as a command prints it: secrets redacted, then :func:`one_line`."""
    return one_line(redact(line))


def print_problems(problems: list[Problem]) -> None:
    """Every problem on stderr, one line each, behind the one prefix (secrets redacted, controls escaped)."""
    for problem in problems:
        print(shown(f"{PROBLEM_PREFIX}{problem}"), file=sys.stderr)


def finish(report: RunReport, *, quiet_summary: bool = False, fail_on_problems: bool = True) -> int:
    """Print a run's summary (stdout) and problems (stderr); exit 0 when clean, 1 with problems.

    ``quiet_summary``: the command printed its own output (JSON). ``fail_on_problems=False``
    (a reader without ``--strict``): the problems are printed all the same, and the run exits 0.
    """
    if not quiet_summary:
        for line in report.summary_lines():
            print(shown(line))
    sys.stdout.flush()  # the summary comes first when both streams go to one terminal or file
    print_problems(report.problems)
    return EXIT_PROBLEMS if report.problems and fail_on_problems else EXIT_DONE


@dataclass
class Done:
    """The report of a command that either finishes or raises: what it did, and no problems."""

    lines: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        return self.lines


INSTANT_HELP = "ISO 8601 with a UTC offset, e.g. 2026-06-14T12:00Z; a bare date 2026-06-14 means 00:00 UTC"


def parse_utc_instant(value: str) -> datetime:
    """The one time parser of every command (argparse ``type=`` for ``--now`` and ``--until``).

    An ISO 8601 date-time must carry its UTC offset (``Z`` allowed): a wall-clock time alone
    names no instant, so it is refused rather than guessed. A bare date (``2026-08-01``) is read
    as 00:00 UTC of that day. The result is in UTC.
    """
    try:
        day = date.fromisoformat(value)
    except ValueError:
        pass
    else:
        return datetime(day.year, day.month, day.day, tzinfo=UTC)
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an ISO 8601 timestamp (e.g. 2026-06-14T12:00Z, or a date 2026-06-14)"
        ) from None
    if parsed.tzinfo is None:
        raise argparse.ArgumentTypeError(
            f"{value!r} needs a UTC offset, e.g. 2026-06-14T00:00Z (a bare date 2026-06-14 means 00:00 UTC)"
        )
    return parsed.astimezone(UTC)


def add_clock_option(parser: argparse.ArgumentParser) -> None:
    """``--clock live|replay``; read it with :func:`resolve_clock`."""
    from collector.records import Clock

    parser.add_argument("--clock", choices=[c.value for c in Clock], default=None,
                        help="mark records live or replay (default: replay when --now is given, else live)")


def resolve_clock(args: argparse.Namespace) -> Clock:
    """``--clock`` if given; else ``replay`` when ``--now`` names a time, ``live`` when it does not."""
    from collector.records import Clock

    if args.clock is not None:
        return Clock(args.clock)
    return Clock.REPLAY if getattr(args, "now", None) is not None else Clock.LIVE


def existing_folder(value: str) -> Path:
    """argparse ``type=``: a folder that exists (a missing one is a usage error, exit 2)."""
    path = Path(value)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: no such folder")
    return path


def add_data_dir_option(parser: argparse.ArgumentParser) -> None:
    """``--data-dir``: a local copy of the public data; None means the public URLs."""
    parser.add_argument(
        "--data-dir", type=existing_folder, default=os.environ.get(DATA_DIR_ENV) or None,
        help=f"local data folder laid out like shared/data (default: ${DATA_DIR_ENV}, else the public URLs)",
    )


def add_config_option(parser: argparse.ArgumentParser, help_text: str | None = None) -> None:
    """``--config FILE``: the arena configuration; its ``[arena] competitions_dir`` names a fork's definitions.

    Read it with :func:`collector.competitions.loader.use_config` (default: ``prematch.toml`` when present).
    """
    parser.add_argument("--config", type=Path, default=None, help=help_text or (
        "arena configuration whose [arena] competitions_dir holds more competition definitions "
        "(default: prematch.toml when present)"))


def check_new_folder(path: Path, option: str = "--out") -> None:
    """A folder a command creates: it may exist only empty (a :class:`UsageError` otherwise)."""
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise UsageError(f"{path}: exists and is not an empty folder; choose a new {option}")


@contextmanager
def new_folder(path: Path, option: str = "--out") -> Iterator[Path]:
    """A folder a command creates (see :func:`check_new_folder`), removed again if the command fails.

    Whatever the command raises (a source it cannot read, a usage error found late, Ctrl-C),
    the folder is left as it was found: removed if it did not exist, emptied if it was empty,
    so the corrected command can be run with the same ``--out``.
    """
    check_new_folder(path, option)
    existed = path.exists()
    try:
        yield path
    except BaseException:
        if existed:
            for child in path.iterdir():
                shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
        else:
            shutil.rmtree(path, ignore_errors=True)
        raise
