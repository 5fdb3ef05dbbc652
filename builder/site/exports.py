"""Downloads: CSV and JSON of every table, one SQLite database, the JSON Schemas and a manifest.

Every download is streamed to a file, a chunk of rows at a time: no whole CSV, JSON or
database is ever held in memory (at 300,000 records they are hundreds of megabytes). The
bytes are those the in-memory export gave: the same archive gives the same downloads.

The manifest lists the SHA-256 of every archive file (records and schemas) and the commit
the site was built from, so a visitor can check the published site against a clone.
"""

from __future__ import annotations

import csv
import hashlib
import math
import os
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import partial
from operator import is_not
from pathlib import Path

import orjson

from builder.score.definitions import registry_json
from builder.site.exportchunks import (
    INDEX,
    Chunk,
    PreviousFiles,
    PreviousTable,
    by_content,
    by_inputs,
    csv_bytes,
    opened,
    write_keyed,
)
from builder.site.tables import Table
from collector.archive.schema_export import schema_documents

DATA_DIR = "data"
SQLITE = f"{DATA_DIR}/prematch.sqlite"
CHUNK_ROWS = 2000  # rows cleaned and written at a time: large enough for C-level loops, small in memory


_PLAIN = (str, int, bool, type(None))
_PLAIN_KINDS = frozenset(_PLAIN)
_FLOAT_KINDS = frozenset((float, type(None)))
_IS_NOT_NONE = partial(is_not, None)  # a C-level predicate for filter()


def _clean(value):
    """A JSON/SQLite-safe scalar: numpy scalars become Python numbers, NaN and infinities None."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is not float and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _already_clean(column: tuple) -> bool:
    kinds = set(map(type, column))
    if kinds <= _PLAIN_KINDS:
        return True
    return kinds <= _FLOAT_KINDS and all(map(math.isfinite, filter(_IS_NOT_NONE, column)))


def clean_rows(rows: Sequence[tuple]) -> Sequence[tuple]:
    """The rows with every value a plain JSON/CSV/SQLite scalar (the rows themselves when they are).

    Column by column: a column of plain values, or of finite floats and None, is kept as it is
    (checked by C-level iteration); only the other columns go through :func:`_clean` value by value.
    """
    if not rows:
        return rows
    columns = list(zip(*rows))
    dirty = [i for i, column in enumerate(columns) if not _already_clean(column)]
    if not dirty:
        return rows
    for i in dirty:
        columns[i] = tuple(map(_clean, columns[i]))
    return list(zip(*columns))


def _chunks(rows: Sequence[tuple]) -> Iterator[Sequence[tuple]]:
    """The rows cleaned, ``CHUNK_ROWS`` at a time (cleaning is value by value, so chunking changes nothing)."""
    for start in range(0, len(rows), CHUNK_ROWS):
        yield clean_rows(rows[start : start + CHUNK_ROWS])


def write_table(table: Table, csv_path: Path, json_path: Path, db: sqlite3.Connection,
                previous: PreviousTable | None = None) -> list[Chunk] | None:
    """Stream ``table`` to its CSV and JSON files and into ``db``, one chunk of rows at a time.

    The CSV has a header line and "\\n" line ends, None as an empty field; the JSON is the compact
    array of one object per row (the bytes ``orjson.dumps`` gives the whole list). A keyed table
    (``Table.keys`` or ``Table.cut``) is written by :func:`builder.site.exportchunks.write_keyed` (copying the
    ``previous`` build's unchanged chunks) and its chunks are returned; else None.
    """
    names = [name for name, _ in table.columns]
    cols = ", ".join(f'"{name}" {kind}' for name, kind in table.columns)
    db.execute(f'CREATE TABLE "{table.name}" ({cols})')
    if table.keys is not None or table.cut is not None:
        parts = (by_inputs if table.keys is not None else by_content)(table, clean_rows, CHUNK_ROWS)
        with open(csv_path, "wb") as csv_file, open(json_path, "wb") as json_file:
            csv_file.write(csv_bytes([names]))
            json_file.write(b"[")
            chunks = write_keyed(table, parts, csv_file, json_file, db, previous)
            json_file.write(b"]\n")
        return chunks
    insert = f'INSERT INTO "{table.name}" VALUES ({", ".join("?" for _ in table.columns)})'
    with open(csv_path, "w", encoding="utf-8", newline="") as csv_file, open(json_path, "wb") as json_file:
        writer = csv.writer(csv_file, lineterminator="\n")
        writer.writerow(names)
        json_file.write(b"[")
        separator = b""
        for chunk in _chunks(table.rows):
            writer.writerows(chunk)  # None is written as an empty field
            json_file.write(separator + orjson.dumps([dict(zip(names, row, strict=True)) for row in chunk])[1:-1])
            separator = b","
            db.executemany(insert, chunk)
        json_file.write(b"]\n")
    return None


def open_database(path: Path) -> sqlite3.Connection:
    """A new SQLite file for the downloads, written in one transaction without a journal (it is rebuilt if lost)."""
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("BEGIN")
    return db


def close_database(db: sqlite3.Connection, path: Path) -> None:
    """Commit, close, and zero the header's write stamps, so the file is the bytes of an in-memory image.

    A file database's header counts the transactions that wrote it (offsets 24 and 92) and names
    the SQLite library that last wrote it (offset 96); an in-memory database serialised with
    ``Connection.serialize`` has zeros there. Zeroing them makes the download the same bytes
    whatever SQLite version built it, and the same bytes the in-memory export gave.
    """
    db.execute("COMMIT")
    db.close()
    with open(path, "r+b") as handle:
        handle.seek(24)
        handle.write(bytes(4))
        handle.seek(92)
        handle.write(bytes(8))


def archive_manifest(root: Path, commit: str, hashed: Mapping[str, str] | None = None) -> bytes:
    """SHA-256 of every file under the archive root (hidden files skipped), sorted, plus the commit.

    ``hashed``: path -> SHA-256 taken when the reader loaded the file (``Archive.sha256``), so
    the manifest names the bytes the site was built from and record files are not read twice;
    every other file (tokens, schemas, anything the reader does not load) is read here.
    """
    hashed = hashed or {}
    files: list[tuple[str, str]] = []
    for relative, path in _archive_files(str(root), ""):
        found = hashed.get(relative)
        if found is None:
            with open(path, "rb") as handle:
                found = hashlib.sha256(handle.read()).hexdigest()
        files.append((relative, found))
    files.sort()  # by path (each path once): one list sorted in place, one dict made from it
    body = {"commit": commit, "archive_files": len(files), "files": dict(files)}
    del files
    return orjson.dumps(body, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def _archive_files(folder: str, prefix: str) -> Iterator[tuple[str, str]]:
    """(archive-relative path, path) of every regular file under ``folder``, hidden names skipped.

    A link is never followed nor listed (the reader reported it); a folder that cannot be listed
    is skipped, as ``os.walk`` does. The type comes from the directory entry, so no file is stat'ed.
    """
    try:
        with os.scandir(folder) as entries:
            listed = sorted((entry.name, entry) for entry in entries if not entry.name.startswith("."))
    except OSError:
        return
    for name, entry in listed:
        if entry.is_dir(follow_symlinks=False):
            yield from _archive_files(entry.path, f"{prefix}{name}/")
        elif entry.is_file(follow_symlinks=False):
            yield f"{prefix}{name}", entry.path


def export_files(tables: Iterable[Table], archive_root: Path, commit: str, hashed: Mapping[str, str] | None = None,
                 workdir: Path | None = None, manifest: bytes | None = None,
                 previous: PreviousFiles | None = None) -> dict[str, bytes] | dict[str, Path]:
    """Site-relative path -> every download (``hashed``: see :func:`archive_manifest`).

    ``tables`` is consumed one table at a time (an iterator that builds each table when asked
    holds one table's rows at a time). ``manifest``: the archive manifest when the caller
    already made it. With ``workdir`` the downloads are written under it (at their
    site-relative paths) and the values are those files' paths, and the keyed tables' chunk index
    is written to ``workdir / INDEX`` (:mod:`builder.site.exportchunks`; ``previous``: the previous
    build's downloads to copy unchanged chunks from); without, they are written to a temporary
    folder and the values are their bytes.
    """
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="prematch-exports-") as folder:
            return {name: path.read_bytes() for name, path in
                    export_files(tables, archive_root, commit, hashed, Path(folder), manifest).items()}
    (workdir / DATA_DIR / "schema").mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    db = open_database(workdir / SQLITE)
    index: dict[str, list] = {}
    try:
        with opened(db, previous) as olds:
            for table in tables:
                csv_name, json_name = f"{DATA_DIR}/{table.name}.csv", f"{DATA_DIR}/{table.name}.json"
                chunks = write_table(table, workdir / csv_name, workdir / json_name, db, olds.get(table.name))
                if chunks is not None:
                    index[table.name] = [chunk.entry() for chunk in chunks]
                files[csv_name], files[json_name] = workdir / csv_name, workdir / json_name
                del table  # freed before the next one is built
    except BaseException:
        db.close()
        raise
    close_database(db, workdir / SQLITE)
    (workdir / INDEX).write_bytes(orjson.dumps(index))
    files[SQLITE] = workdir / SQLITE
    documents = {f"{DATA_DIR}/schema/{name}": data for name, data in schema_documents().items()}
    documents[f"{DATA_DIR}/manifest.json"] = manifest if manifest is not None else archive_manifest(archive_root, commit, hashed)
    documents[f"{DATA_DIR}/measures.json"] = registry_json()  # what each score column means (its id's entry)
    for name, data in documents.items():
        (workdir / name).write_bytes(data)
        files[name] = workdir / name
    return files
