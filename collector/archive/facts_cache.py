"""The content-addressed store of record facts: rows keyed by the SHA-256 of a file's bytes.

One ``.npz`` file (plain numpy arrays, never pickles) in the cache folder holds, for every
file content seen, its digest and its facts (:mod:`collector.archive.facts_columns`), with
one table of distinct strings for every text column. Its fingerprint names the code that
made it (:func:`collector.archive.store.code_version`: every installed file and library). A file made by other
code, or one that is corrupt, truncated or inconsistent, is not read: :func:`read_store`
says why and the caller falls back to validating every file. Writes are atomic (a
temporary file renamed over the old one), so a reader never sees half a store.
"""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson

from collector.archive.cache import save_arrays
from collector.archive.codeversion import code_version
from collector.archive.facts_columns import (
    CHOICES,
    COLUMNS,
    DTYPES,
    REQUIRED_TEXT,
    TEXT,
)

STORE_NAME = "record-facts.npz"
FORMAT = "prematch record facts 1"


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
    """The store cannot be used (missing parts, other code's fingerprint, corrupt); the message says why."""


def read_store(folder: Path, expected: str) -> FactsTable:
    """The store in ``folder``, checked whole; :class:`StoreUnreadable` if it is absent or unusable."""
    path = folder / STORE_NAME
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except FileNotFoundError:
        raise StoreUnreadable(f"{path}: no record-facts cache yet") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise StoreUnreadable(f"{path}: unreadable ({type(exc).__name__}: {exc})") from None
    return _checked(path, arrays, expected)


def _checked(path: Path, arrays: dict[str, np.ndarray], expected: str) -> FactsTable:
    """A table from the store's arrays, after checking every part: shapes, types, codes, strings."""
    missing = [name for name in ("fingerprint", "digests", "strings", *COLUMNS) if name not in arrays]
    if missing:
        raise StoreUnreadable(f"{path}: lacks {', '.join(missing[:3])}")
    made_by = arrays["fingerprint"].tobytes().decode("ascii", errors="replace")
    if made_by != expected:
        raise StoreUnreadable(f"{path}: made by other code or another contract (fingerprint {made_by[:12]}..., "
                              f"this code {expected[:12]}...)")
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


def _check_rows(path: Path, arrays: dict[str, np.ndarray], strings: list[str]) -> None:
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


def write_store(folder: Path, table: FactsTable, made_by: str) -> None:
    """Write ``table`` atomically as the store in ``folder`` (created if need be); OSError if it cannot."""
    arrays = {name: table.columns[name] for name in COLUMNS}
    arrays["fingerprint"] = np.frombuffer(made_by.encode("ascii"), dtype=np.uint8)
    arrays["digests"] = np.frombuffer(b"".join(table.digests), dtype=np.uint8).reshape(len(table), 32)
    arrays["strings"] = np.frombuffer(orjson.dumps(table.strings), dtype=np.uint8)
    save_arrays(folder / STORE_NAME, arrays)

