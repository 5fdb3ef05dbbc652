"""Downloads: CSV and JSON of every table, one SQLite database, the JSON Schemas and a manifest.

The manifest lists the SHA-256 of every archive file (records and schemas) and the commit
the site was built from, so a visitor can check the published site against a clone.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import orjson

from builder.site.tables import Table
from collector.archive.schema_export import schema_documents

DATA_DIR = "data"


_PLAIN = (str, int, bool, type(None))
_PLAIN_KINDS = frozenset(_PLAIN)
_FLOAT_KINDS = frozenset((float, type(None)))


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


def cleaned(table: Table) -> Table:
    """The table with every value made a plain JSON/CSV/SQLite scalar (done once, before every format).

    Column by column: a column of plain values, or of finite floats and None, is kept as it is
    (checked by C-level iteration); only the other columns go through :func:`_clean` value by value.
    """
    if not table.rows:
        return table
    columns = [column if _already_clean(column) else tuple(map(_clean, column)) for column in zip(*table.rows)]
    return replace(table, rows=list(zip(*columns)))


def _already_clean(column: tuple) -> bool:
    kinds = set(map(type, column))
    if kinds <= _PLAIN_KINDS:
        return True
    return kinds <= _FLOAT_KINDS and all(map(math.isfinite, filter(_is_not_none, column)))


def _is_not_none(value) -> bool:
    return value is not None


def csv_bytes(table: Table) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([name for name, _ in table.columns])
    writer.writerows(table.rows)  # None is written as an empty field
    return out.getvalue().encode("utf-8")


def json_bytes(table: Table) -> bytes:
    names = [name for name, _ in table.columns]
    rows = [dict(zip(names, row, strict=True)) for row in table.rows]
    return orjson.dumps(rows, option=orjson.OPT_APPEND_NEWLINE)


def sqlite_bytes(tables: list[Table]) -> bytes:
    """One SQLite database holding every table (built in memory, so the bytes are reproducible)."""
    con = sqlite3.connect(":memory:")
    try:
        for table in tables:
            cols = ", ".join(f'"{name}" {kind}' for name, kind in table.columns)
            con.execute(f'CREATE TABLE "{table.name}" ({cols})')
            marks = ", ".join("?" for _ in table.columns)
            con.executemany(f'INSERT INTO "{table.name}" VALUES ({marks})', table.rows)
        con.commit()
        return con.serialize()
    finally:
        con.close()


def archive_manifest(root: Path, commit: str, hashed: Mapping[str, str] | None = None) -> bytes:
    """SHA-256 of every file under the archive root (hidden files skipped), sorted, plus the commit.

    ``hashed``: path -> SHA-256 taken when the reader loaded the file (``Archive.sha256``), so
    the manifest names the bytes the site was built from and record files are not read twice;
    every other file (tokens, schemas, anything the reader does not load) is read here.
    """
    hashed = hashed or {}
    files: dict[str, str] = {}
    root_str = str(root)
    for folder, dirs, names in os.walk(root_str):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel = os.path.relpath(folder, root_str)
        for name in names:
            if name.startswith(".") or not os.path.isfile(path := os.path.join(folder, name)) or os.path.islink(path):
                continue  # a link is never followed (the reader reported it)
            relative = name if rel == "." else f"{rel}/{name}".replace(os.sep, "/")
            if relative in hashed:
                files[relative] = hashed[relative]
                continue
            with open(os.path.join(folder, name), "rb") as handle:
                files[relative] = hashlib.sha256(handle.read()).hexdigest()
    body = {"commit": commit, "archive_files": len(files), "files": dict(sorted(files.items()))}
    return orjson.dumps(body, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def export_files(tables: list[Table], archive_root: Path, commit: str,
                 hashed: Mapping[str, str] | None = None) -> dict[str, bytes]:
    """Site-relative path -> bytes of every download (``hashed``: see :func:`archive_manifest`)."""
    files: dict[str, bytes] = {}
    tables = [cleaned(table) for table in tables]
    for table in tables:
        files[f"{DATA_DIR}/{table.name}.csv"] = csv_bytes(table)
        files[f"{DATA_DIR}/{table.name}.json"] = json_bytes(table)
    files[f"{DATA_DIR}/prematch.sqlite"] = sqlite_bytes(tables)
    for name, data in schema_documents().items():
        files[f"{DATA_DIR}/schema/{name}"] = data
    files[f"{DATA_DIR}/manifest.json"] = archive_manifest(archive_root, commit, hashed)
    return files
