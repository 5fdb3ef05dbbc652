"""Rows are made a chunk of numbers at a time and share the reader's path strings: same rows."""

from __future__ import annotations

import dataclasses

from builder.score import scoring
from builder.score.scoring import score_match_forecasts
from collector.archive.layout import path_for
from collector.archive.reader import load_archive
from collector.records import Forecast
from tests.factories import synthetic_records, write_records


def _forecasts(archive):
    return sorted((f for f in archive.forecasts if f.target_kind == "match"), key=Forecast.key)


def test_rows_made_in_small_chunks_are_the_rows_made_at_once(monkeypatch):
    from tests.factories import archive_from_records

    archive = archive_from_records(synthetic_records(n_events=12, n_models=2, seed=7, knockout_from=8))
    forecasts = _forecasts(archive)
    whole = score_match_forecasts(archive, forecasts)
    monkeypatch.setattr(scoring, "ROW_CHUNK", 7)  # many chunks, the last one partial
    chunked = score_match_forecasts(archive, forecasts)
    assert len(whole) > 7 * 3
    # repr: the same values, NaN included (NaN != NaN in a plain comparison)
    assert [repr(dataclasses.asdict(r)) for r in chunked] == [repr(dataclasses.asdict(r)) for r in whole]
    assert all(type(r.predicted_home) is int and type(r.score_away) is int for r in chunked)
    assert all(type(r.p_home) is float for r in chunked)


def test_each_row_holds_the_path_the_reader_found_its_record_at(tmp_path):
    write_records(tmp_path, synthetic_records(n_events=6, n_models=2, seed=3))
    archive = load_archive(tmp_path)
    rows = score_match_forecasts(archive, _forecasts(archive))
    by_path = {path: path for path in archive.records}
    assert rows
    for row in rows:
        assert row.path == path_for(archive.records[row.path])
        assert row.path is by_path[row.path]  # the reader's own string, not a copy per row
