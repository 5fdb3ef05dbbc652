"""Record facts kept in the one store: rows keyed by the SHA-256 of a file's bytes.

One entry of the store (:mod:`collector.archive.store`, kind ``record-facts``) holds, as plain
arrays (never pickles), for every file content seen its digest and its facts
(:mod:`collector.archive.facts_columns`), with one table of distinct strings for every text
column. The entry's key is :func:`fingerprint`: the format and the one code version
(:func:`collector.archive.codeversion.code_version`: every installed file and library), so
other code finds no entry. The store authenticates the entry (an edited or foreign one is
rejected and named); an authentic entry is still checked whole (:func:`read_store`), and
anything unusable means every file is validated again: a cache can make a load faster,
never change what it gives.
"""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson

from collector.archive.codeversion import code_version
from collector.archive.facts_columns import (
    CHOICES,
    COLUMNS,
    DTYPES,
    REQUIRED_TEXT,
    TEXT,
)
from collector.archive.store import (
    STORE_FILE,
    pack_arrays,
    read_entry,
    unpack_arrays,
    write_entry,
)

KIND = "record-facts"
FORMAT = "prematch record facts 2"
PARTS = ("digests", "strings", *COLUMNS)  # the entry's arrays, in this order


def fingerprint() -> str:
    """SHA-256 over the store's format and the installed code and libraries
    (:func:`collector.archive.store.code_version`: the contract, the reader, this extractor,
    pydantic...); any change there makes every cached row stale."""
    return hashlib.sha256(f"{FORMAT}\0{code_version()}".encode()).hexdigest()


@dataclass
class FactsTable:
    """Facts rows (one per distinct content) with their digests; text columns hold codes into ``strings``."""

    digests: list[bytes] = field(default_factory=list)
    columns: dict[str, np.ndarray] = field(default_factory=lambda: {n: np.empty(0, DTYPES[n]) for n in COLUMNS})
    strings: list[str] = field(default_factory=list)
    _codes: dict[str, int] | None = None
    _index: dict[bytes, int] | None = None

    def __len__(self) -> int:
        return len(self.digests)

    def index(self) -> dict[bytes, int]:
        """Digest -> row (made once; :meth:`append` keeps it up to date)."""
        if self._index is None:
            self._index = dict(zip(self.digests, range(len(self.digests)), strict=True))
        return self._index

    def append(self, rows: list[tuple[bytes, dict]]) -> None:
        """Add rows (digest, :func:`facts_columns.record_facts` dict); new strings join the table."""
        if not rows:
            return
        if self._codes is None:
            self._codes = {s: i for i, s in enumerate(self.strings)}
        codes, strings = self._codes, self.strings

        def code(value: str | None) -> int:
            if value is None:
                return -1
            found = codes.get(value)
            if found is None:
                found = codes[value] = len(strings)
                strings.append(value)
            return found

        for name in COLUMNS:
            values = [code(row[name]) for _, row in rows] if name in TEXT else [row[name] for _, row in rows]
            self.columns[name] = np.concatenate([self.columns[name], np.array(values, dtype=DTYPES[name])])
        if self._index is not None:
            self._index.update((digest, len(self.digests) + i) for i, (digest, _) in enumerate(rows))
        self.digests.extend(digest for digest, _ in rows)

    def take(self, rows: np.ndarray) -> FactsTable:
        """Only ``rows`` (for pruning the store), with the string table cut to what they use."""
        columns = {name: self.columns[name][rows] for name in COLUMNS}
        used = np.unique(np.concatenate([columns[name] for name in TEXT]))
        used = used[used >= 0]
        remap = np.full(len(self.strings) + 1, -1, dtype=np.int32)
        remap[used] = np.arange(len(used), dtype=np.int32)
        for name in TEXT:
            columns[name] = remap[columns[name]]  # -1 indexes the last slot, which stays -1
        return FactsTable([self.digests[i] for i in rows.tolist()], columns, [self.strings[i] for i in used.tolist()])


class StoreUnreadable(Exception):
    """No usable facts entry (none yet, rejected, inconsistent); the message says why, ``notes`` are the store's."""

    def __init__(self, message: str, notes: list[str] | None = None, absent: bool = False) -> None:
        super().__init__(message)
        self.notes, self.absent = notes or [], absent  # absent: simply none yet (a first load, new code)


def read_store(folder: Path, expected: str) -> tuple[FactsTable, list[str]]:
    """The facts entry of the store in ``folder`` for the code ``expected``, checked whole, and the
    store's notes (an entry rejected, a key file refused); :class:`StoreUnreadable` (carrying those
    notes) if there is no usable entry."""
    value, notes = read_entry(folder, KIND, expected)
    where = f"{folder / STORE_FILE} ({KIND} {expected[:12]})"
    if value is None:
        raise StoreUnreadable(f"{where}: " + ("; ".join(notes) or "no record-facts entry for this code yet"), notes,
                              absent=not notes)
    try:
        parts = unpack_arrays(value)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise StoreUnreadable(f"{where}: unreadable ({type(exc).__name__}: {exc})", notes) from None
    if len(parts) != len(PARTS):
        raise StoreUnreadable(f"{where}: holds {len(parts)} arrays, expected {len(PARTS)}", notes)
    return _checked(where, dict(zip(PARTS, parts, strict=True))), notes


def _checked(path: str, arrays: dict[str, np.ndarray]) -> FactsTable:
    """A table from the entry's arrays, after checking every part: shapes, types, codes, strings."""
    digests = arrays["digests"]
    if digests.dtype != np.uint8 or digests.ndim != 2 or digests.shape[1] != 32:
        raise StoreUnreadable(f"{path}: digests are not SHA-256 digests")
    try:
        strings = orjson.loads(arrays["strings"].tobytes())
    except orjson.JSONDecodeError as exc:
        raise StoreUnreadable(f"{path}: string table is not JSON ({exc})") from None
    if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings) or len(set(strings)) != len(strings):
        raise StoreUnreadable(f"{path}: string table is not a list of distinct strings")
    n = len(digests)
    for name in COLUMNS:
        column = arrays[name]
        if column.dtype != DTYPES[name] or column.shape != (n,):
            raise StoreUnreadable(f"{path}: column {name} is {column.dtype}{list(column.shape)}, "
                                  f"expected {DTYPES[name]}[{n}]")
        if name in TEXT and n and (column.min() < -1 or column.max() >= len(strings)):
            raise StoreUnreadable(f"{path}: column {name} has codes outside the string table")
    _check_rows(path, arrays, strings)
    blob = digests.tobytes()
    table = FactsTable([blob[i : i + 32] for i in range(0, len(blob), 32)],
                       {name: arrays[name] for name in COLUMNS}, strings)
    if len(table.index()) != n:
        raise StoreUnreadable(f"{path}: a digest appears twice")
    return table


def _check_rows(path: str, arrays: dict[str, np.ndarray], strings: list[str]) -> None:
    """Every invalid row names its problem; every valid row has the text its kind always has."""
    valid, kind = arrays["valid"], arrays["kind"]
    if (arrays["problem"][~valid] < 0).any():
        raise StoreUnreadable(f"{path}: an invalid row has no problem message")
    def rows_of(name: str | None) -> np.ndarray:
        return valid if name is None else valid & (kind == (strings.index(name) if name in strings else -2))

    for name, needed in REQUIRED_TEXT.items():
        for column in needed:
            if (arrays[column][rows_of(name)] < 0).any():
                raise StoreUnreadable(f"{path}: a valid {name or 'record'} row has no {column}")
    for (name, column), allowed in CHOICES.items():
        held = {strings[code] for code in np.unique(arrays[column][rows_of(name)]).tolist()}
        if not held <= allowed:
            raise StoreUnreadable(f"{path}: {column} of a valid {name or 'record'} row is {sorted(held - allowed)[0]!r}")


def write_store(folder: Path, table: FactsTable, made_by: str) -> str:
    """Keep ``table`` as the one facts entry of the store in ``folder`` (the entries of other code
    dropped); "" or why it could not be kept."""
    digests = np.frombuffer(b"".join(table.digests), dtype=np.uint8).reshape(len(table), 32)
    strings = np.frombuffer(orjson.dumps(table.strings), dtype=np.uint8)
    return write_entry(folder, KIND, made_by, pack_arrays([digests, strings, *(table.columns[n] for n in COLUMNS)]))

