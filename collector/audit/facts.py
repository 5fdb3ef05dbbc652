"""What ``verify`` needs to know about one record file, and a cache of it keyed by git blob id.

A git blob id is the hash of the file's bytes, so "blob X at path P validated, and says
these facts" stays true for as long as the contract does. The cache lives inside the
clone's own ``.git`` folder (never committed, never pushed), is keyed by blob id, path and
a fingerprint of the record schemas, and is only a speed-up: ``--no-cache`` ignores it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple

import orjson

from collector.archive.codeversion import code_version
from collector.archive.layout import identity
from collector.archive.store import read_entry, write_entry
from collector.audit.facts_form import Facts, facts_from_list, facts_to_list
from collector.audit.history import FileHistory
from collector.records import (
    BinaryEvent,
    BinaryForecast,
    BinaryResolution,
    Event,
    Evidence,
    Forecast,
    Manifest,
    OddsSnapshot,
    Outcome,
    Question,
    QuestionResolution,
    Record,
    Revisable,
)

FACTS_VERSION = 4


def facts_of(record: Record) -> Facts:
    base = {"kind": record.kind, "replay": record.clock.value == "replay"}
    if isinstance(record, Revisable):
        base.update(identity=identity(record), revision=record.revision, supersedes=record.supersedes)
    match record:
        case Forecast():
            base.update(identity=identity(record), revision=record.revision, supersedes=record.supersedes)
            target = (record.competition_id, record.target_kind, record.target_id)
            used = (record.evidence.path, record.evidence.sha256) if record.evidence is not None else None
            return Facts(**base, target=target, moment=record.kickoff_utc, requested_at=record.requested_at,
                         status=record.status.value, evidence=used)
        case Event():
            return Facts(**base, target=(record.competition_id, "match", record.id), moment=record.kickoff_utc)
        case Question():
            return Facts(**base, target=(record.competition_id, "question", record.id), moment=record.closes_at)
        case Outcome():
            target = (record.competition_id, "match", record.event_id)
            return Facts(**base, target=target, status=record.status.value,
                         settles=record.status.has_result)
        case QuestionResolution():
            return Facts(**base, target=(record.competition_id, "question", record.question_id), settles=True)
        case Evidence():  # moment: the package's lock
            odds = record.odds
            cites = (odds.snapshot_path, odds.snapshot_sha256) if odds.snapshot_path and odds.snapshot_sha256 else None
            return Facts(**base, target=(record.competition_id, "match", record.event_id), moment=record.locks_at,
                         evidence=tuple(record.late_items()), cites=cites)
        case OddsSnapshot():  # checked like a forecast: retrieved and committed before kickoff
            return Facts(**base, target=(record.competition_id, "match", record.event_id), moment=record.kickoff_utc,
                         requested_at=record.retrieved_at, status="odds")
        case BinaryEvent():  # its close is the deadline of its forecasts, like a question's
            return Facts(**base, target=(record.competition_id, "binary", record.id), moment=record.closes_at)
        case BinaryForecast():
            return Facts(**base, target=(record.competition_id, "binary", record.event_id), moment=record.closes_at,
                         requested_at=record.requested_at, status=record.status.value)
        case BinaryResolution():
            return Facts(**base, target=(record.competition_id, "binary", record.event_id), settles=True)
        case Manifest():
            return Facts(**base, manifest=(record.tick_at, dict(record.files), record.previous, record.previous_sha256))
    return Facts(**base)


def contract_fingerprint() -> str:
    """Changes whenever the installed code or libraries (the contract, the reader, pydantic:
    :func:`collector.archive.codeversion.code_version`) or the facts kept change: old entries lapse."""
    return hashlib.sha256(f"facts {FACTS_VERSION}\0{code_version()}".encode()).hexdigest()


class Checked(NamedTuple):
    """One blob at one path, checked: its SHA-256, the validation problem or its facts."""

    sha256: str
    problem: str | None
    facts: Facts | None


class FactsCache:
    """Checked blobs by ``blob:path``: one entry of the store in ``<git dir>/prematch/``
    (:mod:`collector.archive.store`, kind ``verify-facts``, keyed by :func:`contract_fingerprint`)."""

    KIND = "verify-facts"

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.entries: dict[str, Checked] = {}
        self.dirty = False
        self.notes: list[str] = []
        self.fingerprint = contract_fingerprint()
        if folder is not None:
            self._read(folder)

    def _read(self, folder: Path) -> None:
        value, self.notes = read_entry(folder, self.KIND, self.fingerprint)
        try:
            data = orjson.loads(value) if value is not None else {}
            for key, (sha, problem, facts) in data.items():
                self.entries[key] = Checked(sha, problem, facts_from_list(facts) if facts is not None else None)
        except (orjson.JSONDecodeError, TypeError, ValueError, AttributeError):
            self.entries = {}  # an entry of another shape is simply rebuilt

    def get(self, blob: str, path: str) -> Checked | None:
        return self.entries.get(f"{blob}:{path}")

    def put(self, blob: str, path: str, checked: Checked) -> None:
        self.entries[f"{blob}:{path}"] = checked
        self.dirty = True

    def save(self) -> None:
        """Keep the entries (a folder that cannot be written leaves verify uncached, never failed)."""
        if self.folder is None or not self.dirty:
            return
        entries = {
            key: [c.sha256, c.problem, facts_to_list(c.facts) if c.facts is not None else None]
            for key, c in self.entries.items()
        }
        note = write_entry(self.folder, self.KIND, self.fingerprint, orjson.dumps(entries))
        self.notes += [note] if note else []


def known_facts(files: dict[str, FileHistory]) -> FactsCache:
    """A cache of what a report (a checkpoint's) already says of each file's blob as added, in memory
    only (never read from or written to a file): its SHA-256 and facts. Files that did not validate,
    and the bytes at HEAD of files changed since (the report holds no SHA-256 of those), are left
    out: checked again."""
    cache = FactsCache(None)
    for entry in files.values():
        if entry.added is not None and entry.added_facts is not None and entry.added_sha256 is not None:
            cache.entries[f"{entry.added.new_blob}:{entry.path}"] = Checked(entry.added_sha256, None, entry.added_facts)
    return cache
