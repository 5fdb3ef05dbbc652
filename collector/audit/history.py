"""What ``verify`` knows of each record file: its life in git, and what the checks found."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from collector.audit.facts_form import Facts
from collector.audit.gitlog import NULL_BLOB, Change, History
from collector.errors import Problem


def stamp(moment: datetime) -> str:
    """How every finding prints a moment: UTC to the second."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def where(change: Change) -> str:
    """How every finding names a commit: its short id and committer date."""
    return f"commit {change.commit.sha[:12]} ({stamp(change.commit.committed_at)})"


@dataclass
class FileHistory:
    """One record file's life in git: its addition, every later change, and what it says."""

    path: str
    added: Change | None = None
    later: list[Change] = field(default_factory=list)
    current_blob: str | None = None  # None once deleted
    added_facts: Facts | None = None  # from the bytes as first committed
    head_facts: Facts | None = None  # from the bytes at HEAD, when they differ
    added_sha256: str | None = None

    @property
    def facts(self) -> Facts | None:
        """What the record says as committed, or as at HEAD when the committed bytes were invalid."""
        return self.added_facts if self.added_facts is not None else self.head_facts

    @property
    def kind(self) -> str | None:
        return self.facts.kind if self.facts is not None else None

    @property
    def replay(self) -> bool:
        return self.facts is not None and self.facts.replay


@dataclass(frozen=True)
class Finding:
    """One result of a check: a violation (exit non-zero) or a note (context for the reader)."""

    code: str
    path: str
    message: str
    commit: str | None = None
    violation: bool = True
    replay: bool = False

    def as_problem(self) -> Problem:
        """The finding as a run problem: its path, then its code (tagged when a replay record)."""
        return Problem(self.path, f"{self.code}{' [replay]' if self.replay else ''}: {self.message}")


def file_histories(history: History, keep: Callable[[str], object] | None = None) -> dict[str, FileHistory]:
    """Group the changes of the paths ``keep`` accepts (record files by default: time-stamp tokens
    and attestation bundles use their own rule) by path; the first addition is the file's moment
    of commitment."""
    if keep is None:  # imported here: the layout imports the record models, which a cached verify never needs
        from collector.archive.layout import is_record_path as keep
    files: dict[str, FileHistory] = {}
    for change in history.changes:
        if not keep(change.path):
            continue
        entry = files.setdefault(change.path, FileHistory(change.path))
        if entry.added is None:
            entry.added = change
        else:
            entry.later.append(change)
        entry.current_blob = None if change.new_blob == NULL_BLOB else change.new_blob
    return files
