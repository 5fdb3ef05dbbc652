"""A keyed download table written in chunks, each copied from the previous build's files when its inputs did not change.

A table whose rows each come from one archive file (the forecasts: one row per record, by
path) carries ``Table.keys``: each row's (archive path, SHA-256 of the file). Its rows are cut
into chunks where the path's CRC-32 is a multiple of :data:`SPAN` (a cut depends on that row
alone, so a new record moves no other cut: after a tick only the chunks it lands in differ).
A chunk's key is the SHA-256 of its rows' keys. The build records where each chunk's bytes lie
in the CSV, the JSON and the SQLite table (:data:`INDEX`, kept in the page cache); the next
build copies every chunk whose key it finds from the previous site's files (the CSV and JSON
bytes, the SQLite rows by ``INSERT ... SELECT``) and makes only the others' rows. The bytes are
those of a full build: CSV and JSON are a concatenation of rows, and SQLite stores the same rows
in the same order. The previous files are used only when the page cache vouches for them (their
state and SHA-256, :func:`previous_tables`) and the code that wrote them is this code.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import sqlite3
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from itertools import chain
from pathlib import Path
from typing import BinaryIO

import orjson

from builder.site.tables import FileKeys

SPAN = 1024  # rows per chunk on average
INDEX = ".chunks.json"  # the chunk index, written in the export work folder (not a download)
PREVIOUS = "previous"  # the schema name the previous build's SQLite download is attached under
_PLAIN = frozenset((str, int, float, bool, type(None)))


@dataclass(frozen=True)
class Chunk:
    """One chunk's key, rows and where its bytes lie: (offset, length) in the CSV and JSON, first rowid."""

    key: str
    rows: int
    csv: tuple[int, int]
    json: tuple[int, int]
    rowid: int

    def entry(self) -> list:
        return [self.key, self.rows, *self.csv, *self.json, self.rowid]


@dataclass(frozen=True)
class PreviousTable:
    """A table of the previous build: its chunks by key and its CSV and JSON files (open)."""

    chunks: Mapping[str, Chunk]
    csv: BinaryIO
    json: BinaryIO


@dataclass(frozen=True)
class PreviousFiles:
    """The previous site's downloads a build may copy chunks from (paths, so a forked child opens them)."""

    sqlite: Path
    tables: Mapping[str, tuple[Path, Path, list[Chunk]]]  # name -> (CSV, JSON, chunks)


def chunk_bounds(paths: Sequence[str], most: int) -> list[tuple[int, int]]:
    """(start, end) of each chunk: one starts at row 0, at every row whose path's CRC-32 is a
    multiple of :data:`SPAN`, and after ``most`` rows without such a cut (rows held at a time)."""
    if not paths:
        return []
    starts, last = [0], 0
    for i in range(1, len(paths)):
        if i - last >= most or zlib.crc32(paths[i].encode()) % SPAN == 0:
            starts.append(i)
            last = i
    return list(zip(starts, starts[1:] + [len(paths)], strict=True))


def chunk_key(keys: Sequence[tuple[str, str]]) -> str:
    """The SHA-256 of a chunk's rows' (path, file SHA-256) keys."""
    return hashlib.sha256("\n".join(f"{path}\0{sha}" for path, sha in keys).encode()).hexdigest()


def parse_chunks(entries) -> list[Chunk] | None:
    """The chunks of an index entry (as :meth:`Chunk.entry` lists), or None when it is not of that form."""
    if not isinstance(entries, list):
        return None
    chunks = []
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) == 7 and isinstance(entry[0], str)
                and all(type(n) is int and n >= 0 for n in entry[1:])):
            return None
        chunks.append(Chunk(entry[0], entry[1], (entry[2], entry[3]), (entry[4], entry[5]), entry[6]))
    return chunks


def tiles(chunks: list[Chunk], csv_size: int, json_size: int, rows: int) -> bool:
    """True when ``chunks`` cover the rows 1..``rows`` and the files' bodies in order, without gap or overlap."""
    rowid = 1
    for chunk in chunks:
        if chunk.rowid != rowid or chunk.rows < 1:
            return False
        rowid += chunk.rows
    if rowid - 1 != rows:
        return False
    csv_end = max((c.csv[0] + c.csv[1] for c in chunks), default=0)
    json_end = max((c.json[0] + c.json[1] for c in chunks), default=0)
    return csv_end <= csv_size and json_end <= json_size


@contextmanager
def opened(db: sqlite3.Connection, previous: PreviousFiles | None) -> Iterator[dict[str, PreviousTable]]:
    """The previous build's keyed tables whose files and SQLite rows agree with their chunk index,
    open (the SQLite download attached to ``db`` as :data:`PREVIOUS`); {} when there are none."""
    if previous is None or not previous.sqlite.is_file():
        yield {}
        return
    try:
        db.execute(f"ATTACH DATABASE ? AS {PREVIOUS}", (str(previous.sqlite),))
    except sqlite3.Error:
        yield {}
        return
    with ExitStack() as stack:
        tables: dict[str, PreviousTable] = {}
        for name, (csv_path, json_path, chunks) in previous.tables.items():
            try:
                rows, last = db.execute(f'SELECT count(*), max(rowid) FROM {PREVIOUS}."{name}"').fetchone()
                csv_file = stack.enter_context(open(csv_path, "rb"))
                json_file = stack.enter_context(open(json_path, "rb"))
            except (sqlite3.Error, OSError):
                continue
            sizes = os.fstat(csv_file.fileno()).st_size, os.fstat(json_file.fileno()).st_size
            if (last or 0) == rows and tiles(chunks, *sizes, rows):
                tables[name] = PreviousTable({chunk.key: chunk for chunk in chunks}, csv_file, json_file)
        yield tables


def _read(handle: BinaryIO, span: tuple[int, int]) -> bytes:
    handle.seek(span[0])
    data = handle.read(span[1])
    if len(data) != span[1]:
        raise ValueError("previous download shorter than its chunk index says")
    return data


def csv_bytes(rows) -> bytes:
    """The CSV lines of ``rows`` (as ``csv.writer`` with "\\n" line ends writes them; None as an empty field)."""
    buffer = io.StringIO(newline="")
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode()


def by_inputs(table, clean, most: int) -> Iterator[tuple[str, int, Callable[[], Sequence[tuple]]]]:
    """(key, rows, make) of each chunk of a table keyed by its rows' files (``Table.keys``): the
    rows are made (``make()``) only when the chunk cannot be copied."""
    keys = table.keys
    paths = keys.paths() if isinstance(keys, FileKeys) else [path for path, _ in keys]
    for start, end in chunk_bounds(paths, most):
        yield chunk_key(table.keys[start:end]), end - start, partial(_made, table.rows, start, end, clean)


def _made(rows, start: int, end: int, clean) -> Sequence[tuple]:
    return clean(rows[start:end])


def by_content(table, clean, most: int) -> Iterator[tuple[str, int, Callable[[], Sequence[tuple]]]]:
    """(key, rows, make) of each chunk of a table cut by its rows' content (``Table.cut``): a chunk
    ends before a row whose ``cut`` text's CRC-32 is a multiple of :data:`SPAN` (or after ``most``
    rows); its key is the SHA-256 of its cleaned rows' JSON, "" (never copied) when a value is not
    a plain str, int, float, bool or None (its JSON might not tell it from another value)."""
    pending: list[tuple] = []
    for start in range(0, len(table.rows), most):
        for row in clean(table.rows[start : start + most]):
            if pending and (len(pending) >= most or zlib.crc32(table.cut(row)) % SPAN == 0):
                yield _content_key(pending), len(pending), partial(tuple, pending)
                pending = []
            pending.append(row)
    if pending:
        yield _content_key(pending), len(pending), partial(tuple, pending)


def _content_key(rows: list[tuple]) -> str:
    if not set(map(type, chain.from_iterable(rows))) <= _PLAIN:
        return ""
    return hashlib.sha256(orjson.dumps(rows)).hexdigest()


def _same_columns(db: sqlite3.Connection, table) -> bool:
    """True when the previous build's SQLite table has ``table``'s columns (names and types, in order)."""
    try:
        found = [(name, kind) for _, name, kind, *_ in db.execute(f'PRAGMA {PREVIOUS}.table_info("{table.name}")')]
    except sqlite3.Error:
        return False
    return found == list(table.columns)


def write_keyed(table, parts: Iterator[tuple[str, int, Callable[[], Sequence[tuple]]]], csv_file: BinaryIO,
                json_file: BinaryIO, db: sqlite3.Connection, previous: PreviousTable | None) -> list[Chunk]:
    """Write the rows of ``table`` (header and brackets written by the caller) chunk by chunk,
    copying each chunk the previous build indexed under the same key; return this build's chunks.

    ``parts``: each chunk's (key, rows, make), :func:`by_inputs` or :func:`by_content`.
    ``csv_file``/``json_file`` are binary, positioned after the header line and the opening bracket."""
    names = [name for name, _ in table.columns]
    insert = f'INSERT INTO "{table.name}" VALUES ({", ".join("?" for _ in table.columns)})'
    copy = f'INSERT INTO main."{table.name}" SELECT * FROM {PREVIOUS}."{table.name}" WHERE rowid BETWEEN ? AND ?'
    if previous is not None and not _same_columns(db, table):
        previous = None
    chunks: list[Chunk] = []
    rowid, separator = 1, b""
    for key, count, make in parts:
        old = previous.chunks.get(key) if previous is not None and key else None
        if old is not None and old.rows == count:
            csv_lines, json_bytes = _read(previous.csv, old.csv), _read(previous.json, old.json)
            if db.execute(copy, (old.rowid, old.rowid + old.rows - 1)).rowcount != old.rows:
                raise ValueError(f"previous {table.name} table does not hold the rows its chunk index says")
        else:
            rows = make()
            csv_lines = csv_bytes(rows)
            json_bytes = orjson.dumps([dict(zip(names, row, strict=True)) for row in rows])[1:-1]
            db.executemany(insert, rows)
        csv_at = csv_file.tell()
        csv_file.write(csv_lines)
        json_file.write(separator)
        json_at = json_file.tell()
        json_file.write(json_bytes)
        separator = b","
        chunks.append(Chunk(key, count, (csv_at, len(csv_lines)), (json_at, len(json_bytes)), rowid))
        rowid += count
    return chunks
