"""The two big download tables (every forecast, every scored forecast) are made a chunk of rows at
a time as they are written: writing them never holds every row (at 300,000 forecasts each table's
tuples are a few hundred megabytes), and the downloads are the bytes of the whole-list tables."""

from __future__ import annotations

import tracemalloc

import pytest

from builder.score.scoring import score_archive
from builder.site import exports
from builder.site.exports import export_files, open_database, write_table
from builder.site.tables import Table, forecast_table, iter_tables, score_table
from tests.factories import archive_from_records, synthetic_records

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them


@pytest.fixture(scope="module")
def scored():
    archive = archive_from_records(synthetic_records(n_events=60, n_models=4, seed=4, knockout_from=40))
    return archive, score_archive(archive, inference_tests=False)


def _whole(table: Table) -> Table:
    return Table(table.name, table.columns, list(table.rows), table.description)


def test_the_downloads_are_the_bytes_of_tables_of_whole_lists(scored, tmp_path, monkeypatch):
    archive, scores = scored
    monkeypatch.setattr(exports, "CHUNK_ROWS", 7)
    made = export_files(iter_tables(archive, scores), tmp_path / "a", "c")
    whole = export_files([_whole(t) for t in iter_tables(archive, scores)], tmp_path / "a", "c")
    assert made == whole
    paths = [row[0] for row in forecast_table(archive).rows]
    assert paths == sorted(paths) and len(paths) == len(archive.forecasts)


@pytest.mark.parametrize("make", [forecast_table, score_table])
def test_writing_a_big_table_holds_a_chunk_of_rows_not_every_row(scored, tmp_path, monkeypatch, make):
    archive, scores = scored
    source = archive if make is forecast_table else scores
    monkeypatch.setattr(exports, "CHUNK_ROWS", 20)
    db = open_database(tmp_path / "x.sqlite")
    try:
        tracemalloc.start()
        every_row = list(make(source).rows)
        held = tracemalloc.get_traced_memory()[0]
        del every_row
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        table = make(source)  # made and written: what the build does with each table
        write_table(table, tmp_path / "t.csv", tmp_path / "t.json", db)
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
        db.close()
    assert len(table.rows) > 2000
    assert peak < held * 0.75, f"making and writing peaked at {peak} bytes; every row is {held} bytes"
