"""The small exception tree used across Prematch.

Batch operations collect :class:`Problem` items and raise a single :class:`ProblemsFound`
(or report them) so that every bad file is named at once, with its path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class PrematchError(Exception):
    """Base of every error Prematch raises on purpose."""


class ArchiveError(PrematchError):
    """The archive cannot be read or written as the contract says."""


class RecordExistsError(ArchiveError):
    """Append-only: a record already exists at that path and is never overwritten."""


class SourceError(PrematchError):
    """A data source returned something Prematch cannot use (names source, match, field)."""


class ProviderError(PrematchError):
    """An external service failed (HTTP error, timeout, malformed body, error inside 200)."""


class ConfigError(PrematchError):
    """The arena configuration or a competition definition is invalid."""


class UsageError(PrematchError):
    """A command was used wrongly: a bad option value, or a folder that is not what it expects (exit 2)."""


@dataclass(frozen=True)
class Problem:
    """One problem found in a batch: where, and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class ProblemsFound(PrematchError):
    """Several problems, reported together."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} problem(s):\n{lines}")


class RunReport(Protocol):
    """The one shape of every command's result: what went wrong, and what to tell the user.

    ``problems`` are printed to stderr, each behind :data:`PROBLEM_PREFIX`; ``summary_lines()``
    go to stdout. A command exits 0 when there are no problems, 1 when there are (a reader
    without ``--strict`` reports them and exits 0; see :func:`collector.commandline.finish`).
    """

    problems: list[Problem]

    def summary_lines(self) -> list[str]: ...


PROBLEM_PREFIX = "problem: "


ELLIPSIS = "…"


def shortened(text: str, limit: int = 80) -> str:
    """``text`` in at most ``limit`` characters: cut at the last word boundary (a space, or a
    punctuation mark a value's parts end at) before the limit and ended with an ellipsis; a text
    without a boundary in its second half is cut at the limit. Messages quote values this way,
    so a long value never runs on, nor stops mid-word."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    cut = max(head.rfind(c) for c in " ,;/|-_.")
    if cut >= limit // 2:
        head = head[: cut + (0 if head[cut] == " " else 1)]
    return head.rstrip() + ELLIPSIS


def did_you_mean(word: str, known) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``known`` (difflib), or ``""`` when none is close."""
    import difflib

    close = difflib.get_close_matches(word, [str(k) for k in known], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
