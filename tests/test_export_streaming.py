"""The downloads are streamed to files a chunk of rows at a time and are the bytes of the whole-table export.

The oracle is the plain whole-table form of each format (the csv module over every row, one
``orjson.dumps`` of the list of row objects, an in-memory SQLite database serialised), so a
change to the streaming can never change a download.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import sqlite3

import numpy as np
import orjson
import pytest

from builder.site import exports
from builder.site.exports import SQLITE, clean_rows, export_files
from builder.site.tables import Table
from tests.site_archive import write_site_archive

COLUMNS = (("name", "TEXT"), ("n", "INTEGER"), ("p", "REAL"), ("q", "REAL"))


def _tables() -> list[Table]:
    """Tables holding every kind of value the cleaner turns into a plain scalar (numpy, NaN, infinities)."""
    rows = [(f"row {i} ü, \"quoted\"\n", i, i / 7, None if i % 3 else float(i)) for i in range(23)]
    rows[4] = ("numpy", np.int64(4), np.float64(0.25), np.float32(1.5))
    rows[9] = ("non-finite", 9, math.nan, math.inf)
    rows[12] = ("minus infinity", 12, -math.inf, np.float64("nan"))
    return [Table("mixed", COLUMNS, rows, "every kind of value"),
            Table("plain", COLUMNS, [(str(i), i, 0.5, None) for i in range(5)], "clean already"),
            Table("empty", COLUMNS, [], "no rows")]


def _whole_csv(table: Table) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([name for name, _ in table.columns])
    writer.writerows(clean_rows(table.rows))
    return out.getvalue().encode("utf-8")


def _whole_json(table: Table) -> bytes:
    names = [name for name, _ in table.columns]
    return orjson.dumps([dict(zip(names, row, strict=True)) for row in clean_rows(table.rows)],
                        option=orjson.OPT_APPEND_NEWLINE)


def _in_memory_sqlite(tables: list[Table]) -> bytes:
    con = sqlite3.connect(":memory:")
    for table in tables:
        cols = ", ".join(f'"{name}" {kind}' for name, kind in table.columns)
        con.execute(f'CREATE TABLE "{table.name}" ({cols})')
        con.executemany(f'INSERT INTO "{table.name}" VALUES ({", ".join("?" for _ in table.columns)})',
                        clean_rows(table.rows))
    con.commit()
    image = con.serialize()
    con.close()
    return image


@pytest.mark.parametrize("chunk", [1, 5, 2000])
def test_streamed_downloads_are_the_bytes_of_the_whole_table_export(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(exports, "CHUNK_ROWS", chunk)
    tables = _tables()
    files = export_files(tables, tmp_path / "no-archive", "c")
    for table in tables:
        assert files[f"data/{table.name}.csv"] == _whole_csv(table)
        assert files[f"data/{table.name}.json"] == _whole_json(table)
    assert files[SQLITE] == _in_memory_sqlite(tables)


def test_non_finite_and_numpy_values_are_written_as_plain_values_or_empty(tmp_path):
    files = export_files(_tables(), tmp_path / "no-archive", "c")
    rows = {row["name"]: row for row in orjson.loads(files["data/mixed.json"])}
    assert rows["numpy"] == {"name": "numpy", "n": 4, "p": 0.25, "q": 1.5}
    assert rows["non-finite"]["p"] is None and rows["non-finite"]["q"] is None
    assert rows["minus infinity"]["p"] is None and rows["minus infinity"]["q"] is None
    assert orjson.loads(files["data/empty.json"]) == [] and files["data/empty.csv"] == b"name,n,p,q\n"
    shown = {row["name"]: row for row in csv.DictReader(io.StringIO(files["data/mixed.csv"].decode()))}
    assert (shown["non-finite"]["p"], shown["non-finite"]["q"], shown["minus infinity"]["p"]) == ("", "", "")


def test_a_workdir_export_writes_files_with_the_same_bytes(tmp_path):
    root = write_site_archive(tmp_path / "archive")
    in_memory = export_files(_tables(), root, "c")
    written = export_files(_tables(), root, "c", workdir=tmp_path / "work")
    assert sorted(written) == sorted(in_memory)
    for name, path in written.items():
        assert path == tmp_path / "work" / name and path.read_bytes() == in_memory[name]


def test_the_sqlite_download_is_the_same_bytes_whatever_sqlite_wrote_it(tmp_path):
    """The header's write stamps (transaction counter, library version) are zeroed, as in an in-memory image."""
    first = export_files(_tables(), tmp_path / "a", "c", workdir=tmp_path / "one")[SQLITE].read_bytes()
    second = export_files(_tables(), tmp_path / "a", "c", workdir=tmp_path / "two")[SQLITE].read_bytes()
    assert first == second and first[24:28] == bytes(4) and first[92:100] == bytes(8)
    con = sqlite3.connect(tmp_path / "one" / SQLITE)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert con.execute('SELECT count(*), sum(q IS NULL) FROM "mixed"').fetchone() == (23, 16)
    finally:
        con.close()


def test_the_manifest_lists_regular_files_only_and_skips_hidden_names_and_links(tmp_path):
    root = tmp_path / "archive"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "r.json").write_bytes(b"{}")
    (root / "top.txt").write_bytes(b"top")
    (root / ".hidden").write_bytes(b"x")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_bytes(b"ref")
    os.symlink(root / "top.txt", root / "a" / "link.txt")
    os.symlink(root / "a", root / "folder-link")
    listed = orjson.loads(exports.archive_manifest(root, "c", {"a/b/r.json": "loaded"}))
    assert listed["files"] == {"a/b/r.json": "loaded", "top.txt": hashlib.sha256(b"top").hexdigest()}
    assert listed["archive_files"] == 2 and listed["commit"] == "c"


def test_each_table_is_dropped_before_the_next_one_is_built(tmp_path):
    """An iterator of tables is consumed one at a time: the rows of a written table are freed
    before the next table is made (at 300,000 records each table is hundreds of megabytes)."""
    import weakref

    alive: list[bool] = []

    def tables():
        previous = None
        for i in range(3):
            table = _tables()[i]  # made when asked, held by no list
            if previous is not None:
                alive.append(previous() is not None)
            yield table
            previous = weakref.ref(table)
            del table

    export_files(tables(), tmp_path / "archive", "c1", workdir=tmp_path / "out")
    assert alive == [False, False]


def test_the_scores_table_order_is_the_order_of_its_first_columns_as_text():
    import enum

    from builder.site.tables import sorted_by_text

    class Kind(str, enum.Enum):
        A = "a"

    rows = [("b", 10, None, 1.5), ("b", 2, "x", 0.1), ("a", None, Kind.A, 2.0), ("b", 10, "", 3.0),
            ("a", 1, "None", 4.0), ("b", 2, "x", -1.0)]
    expected = sorted(rows, key=lambda r: tuple("" if v is None else str(v) for v in r[:3]))
    assert sorted_by_text(rows, 3) == expected
    assert sorted_by_text([], 3) == []
