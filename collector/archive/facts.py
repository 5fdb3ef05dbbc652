"""The archive as columns of record facts, loaded through a content-addressed cache.

``load_facts(root)`` gives what :func:`~collector.archive.reader.load_archive` gives — the
same problems, the same effective revisions — as numpy columns (one row per record file)
instead of record objects. Each file is read and hashed; a file whose SHA-256 the cache
(:mod:`collector.archive.facts_cache`) knows is not parsed at all, any other is validated
once with the reader's own function (so verdicts are the reader's, word for word) and its
facts join the cache. A cache that cannot be read is reported in ``cache_note`` and ignored:
the load is then cold, and as correct.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson

from collector.archive.cache import DEFAULT, cache_folder
from collector.archive.facts_cache import (
    FactsTable,
    StoreUnreadable,
    fingerprint,
    read_store,
    write_store,
)
from collector.archive.facts_columns import COLUMNS, KEY_SEPARATOR, record_facts
from collector.archive.facts_resolve import resolve
from collector.archive.facts_scoring import (
    effective_forecast_rows,
    joined_rows,
    match_scoring_columns,
)
from collector.archive.memory import paused_garbage_collector
from collector.archive.reader import (
    misplaced,
    read_ahead,
    scan_record_files,
    validate_bytes,
)
from collector.errors import Problem

log = logging.getLogger(__name__)
STALE_ROWS_KEPT = 1000  # rows of contents no longer in the archive kept beyond as many as it has (branches)


@dataclass
class ArchiveFacts:
    """Every record file's facts as columns (rows in path order), with the reader's problems.

    ``ok`` marks the rows that are records of the archive (valid, at their key's path);
    ``effective`` the rows the reader's view holds (the effective revision of each key, and
    every record of a kind that has no revisions); ``superseded`` the transport failures a
    retry replaced. Text columns hold codes into ``strings`` (-1: None); :meth:`text` turns
    them into strings.
    """

    root: Path
    paths: list[str] = field(default_factory=list)
    digests: list[bytes] = field(default_factory=list)
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    strings: list[str] = field(default_factory=list)
    ok: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    effective: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    superseded: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    problems: list[Problem] = field(default_factory=list)
    cache_note: str | None = None  # why the cache was not used or not updated; None when all went well
    validated: int = 0  # files validated by this load (the rest came from the cache)
    _codes: dict[str, int] = field(default_factory=dict, repr=False)
    _table: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.paths)

    def code(self, text: str) -> int:
        """The code of ``text`` in the string table (-2 if no row holds it: it matches no code)."""
        if text not in self._codes:  # a few kinds and statuses are asked for: no index of every string
            self._codes[text] = self.strings.index(text) if text in self.strings else -2
        return self._codes[text]

    def text(self, name: str, rows: np.ndarray | None = None) -> np.ndarray:
        """A text column (or its ``rows``) as an object array of strings and None."""
        if self._table is None:
            self._table = np.array(self.strings + [None], dtype=object)  # code -1 picks the None at the end
        codes = self.columns[name] if rows is None else self.columns[name][rows]
        return self._table[codes]

    def sha256(self) -> dict[str, str]:
        """Path -> SHA-256 (hex) of the bytes read, valid or not: the reader's ``Archive.sha256``."""
        return {path: digest.hex() for path, digest in zip(self.paths, self.digests, strict=True)}

    def identity(self, row: int) -> tuple[str, ...]:
        """The row's identity key, as :func:`collector.archive.layout.identity` gives it."""
        return tuple(self.strings[int(self.columns["key"][row])].split(KEY_SEPARATOR))

    def rows(self, kind: str, *, effective: bool = True) -> np.ndarray:
        """Rows of one kind (only the effective ones unless told), in path order."""
        mask = (self.columns["kind"] == self.code(kind)) & (self.effective if effective else self.ok)
        return np.flatnonzero(mask)

    def effective_paths(self) -> dict[tuple[str, ...], str]:
        """Identity key -> path of its effective revision, like the reader's ``Archive.effective_paths``."""
        revised = self.effective & ((self.columns["kind"] == self.code("forecast")) | self.columns["revisable"])
        return {self.identity(i): self.paths[i] for i in np.flatnonzero(revised).tolist()}

    def effective_forecast_rows(self) -> np.ndarray:
        """Rows of the effective forecasts, sorted by forecast key (see :mod:`collector.archive.facts_scoring`)."""
        return effective_forecast_rows(self)

    def joined_rows(self, kind: str, forecast_rows: np.ndarray) -> np.ndarray:
        """For each forecast row, the effective ``kind`` row (event, outcome, match_report) of its match, or -1."""
        return joined_rows(self, kind, forecast_rows)

    def match_scoring_columns(self) -> dict[str, np.ndarray]:
        """Scoring's inputs for the scorable match forecasts (see :mod:`collector.archive.facts_scoring`)."""
        return match_scoring_columns(self)


def load_facts(root: Path | str, cache=DEFAULT) -> ArchiveFacts:
    """Every record file's facts and the reader's problems. ``cache``: :data:`~collector.archive.cache.DEFAULT`
    (the repository's ``.git/prematch/``), a folder, or None (validate everything, store nothing)."""
    facts = ArchiveFacts(root=Path(root))
    if not facts.root.exists():
        return facts
    folder = cache_folder(facts.root, cache)
    made_by = fingerprint()
    table, facts.cache_note = _open(folder, made_by)
    paths, facts.problems = scan_record_files(facts.root)
    with paused_garbage_collector():
        before = len(table)
        rows, errors = _read(facts, paths, table)
        facts.validated = len(table) - before
        chosen = np.array(rows, dtype=np.int64)
        facts.columns = {name: table.columns[name][chosen] for name in COLUMNS}
        facts.strings = table.strings
        facts.problems += _verdicts(facts, errors)
        facts.effective, facts.superseded, chain_problems = resolve(facts)
        facts.problems += chain_problems
    if folder is not None and (facts.validated or facts.cache_note is not None):
        facts.cache_note = _save(folder, table, chosen, made_by) or facts.cache_note
    return facts


def _open(folder: Path | None, made_by: str) -> tuple[FactsTable, str | None]:
    """The stored facts table (empty if none is usable) and a note when the store had something to say."""
    if folder is None:
        return FactsTable(), None
    try:
        table, notes = read_store(folder, made_by)
        return table, "; ".join(notes) or None
    except StoreUnreadable as exc:
        note = f"{exc}; every file is validated (a cold load)"
        if not exc.absent:
            log.warning("%s", note)  # a rejected or broken entry is news; none yet (a first load) is not
        return FactsTable(), note


def _read(facts: ArchiveFacts, paths: list[str], table: FactsTable) -> tuple[list[int], list[tuple[int, Problem]]]:
    """Read and hash every file; look each digest up, validating only what the table lacks."""
    index, seen = table.index(), {}
    rows: list[int] = []
    errors: list[tuple[int, Problem]] = []
    fresh: list[tuple[bytes, dict]] = []
    for relative, data in read_ahead(str(facts.root), paths):
        if isinstance(data, OSError):
            errors.append((len(rows), Problem(relative, f"cannot read: {data}")))
            continue
        digest = hashlib.sha256(data).digest()
        row = index.get(digest)
        if row is None:
            row = seen.get(digest)
        if row is None:  # not in the table, nor seen earlier in this load
            row = seen[digest] = len(table) + len(fresh)
            fresh.append((digest, record_facts(*validate_bytes(data))))
        rows.append(row)
        facts.paths.append(relative)
        facts.digests.append(digest)
    table.append(fresh)
    return rows, errors


def _verdicts(facts: ArchiveFacts, errors: list[tuple[int, Problem]]) -> list[Problem]:
    """Read errors and each row's verdict problem (invalid, or valid at another path), in path order."""
    valid, problem, expected = (facts.columns[n].tolist() for n in ("valid", "problem", "expected_path"))
    strings, found, ok = facts.strings, [], np.zeros(len(facts), dtype=bool)
    pending = iter(errors)
    error = next(pending, None)
    for i, path in enumerate(facts.paths):
        while error is not None and error[0] <= i:
            found.append(error[1])
            error = next(pending, None)
        verdict = misplaced(path, strings[expected[i]]) if valid[i] else Problem(path, strings[problem[i]])
        if verdict is None:
            ok[i] = True
        else:
            found.append(verdict)
    found += [e for _, e in ([error] if error is not None else []) + list(pending)]
    facts.ok = ok
    return found


def _save(folder: Path, table: FactsTable, chosen: np.ndarray, made_by: str) -> str | None:
    """Store the table (cut to this archive's rows when most of it is stale); a failure is a note."""
    try:
        used = np.unique(chosen)
        stale = len(table) > 2 * len(used) + STALE_ROWS_KEPT
        why = write_store(folder, table.take(used) if stale else table, made_by)
    except (OSError, ValueError, orjson.JSONEncodeError) as exc:
        why = str(exc)
    if not why:
        return None
    note = f"{folder}: the record-facts cache could not be written ({why}); the next load validates again"
    log.warning("%s", note)
    return note
