"""The analysis page's paper tables never hold a float64 matrix of every event by every bootstrap
replicate (at 3,000 matches: 240 MB on top of a build's peak): the Prophet Arena intervals weight a
block of replicates at a time, and no sign-flip matrix is drawn for tables that use none."""

from __future__ import annotations

import tracemalloc

import pytest

from builder.score.paper_tables import paper_tables
from builder.score.resampling import REPLICATES
from builder.score.scoring import score_archive
from collector.records import Access, Horizon, Strategy
from tests.factories import archive_from_records, synthetic_records

EVENTS = 240
CELLS = ((Access.CLOSED_BOOK, Strategy.PROBABILISTIC_FORECAST, Horizon.T_MINUS_24H),
         (Access.OPEN_BOOK, Strategy.PROBABILISTIC_FORECAST, Horizon.T_MINUS_24H))


@pytest.fixture(scope="module")
def rows():
    archive = archive_from_records(synthetic_records(n_events=EVENTS, n_models=2, cells=CELLS, seed=11))
    return score_archive(archive, inference_tests=False).forecasts


@pytest.mark.slow
def test_paper_tables_peak_below_one_float_matrix_of_events_by_replicates(rows):
    events = len({(r.competition_id, r.event_id) for r in rows})
    assert events == EVENTS
    matrix = events * REPLICATES * 8  # float64 bytes of weights (events x replicates)
    paper_tables(rows)  # warm: imports and caches are not the tables' memory
    tracemalloc.start()
    try:
        tables = paper_tables(rows)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [t.key for t in tables] == ["lsa_table_2", "wca_table_2", "pa_table_2"]
    assert all(t.rows for t in tables)
    assert peak < matrix / 2, f"paper tables peaked at {peak / 2**20:.1f} MB ({matrix / 2**20:.1f} MB matrix)"
