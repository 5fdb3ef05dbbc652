"""Work the aggregation shares between views and slices gives what each computed on its own did,
to the last bit: column means in one reduction, a slice's market pairs from the whole archive's,
a cell's composite from the table's layer columns."""

from __future__ import annotations

import dataclasses

import numpy as np

from builder.score import fine_grained_layers as fl
from builder.score.aggregate import _mean, column_means
from builder.score.columns import RowTable
from builder.score.fine_grained_board import composite_of, table_composite
from builder.score.market import events_within, market_events, table_market_events
from builder.score.scoring import score_archive
from builder.score.slices import slice_filter, slices
from tests.factories import archive_from_records, synthetic_records


def test_column_means_are_each_columns_mean_over_its_present_values_to_the_last_bit():
    rng = np.random.default_rng(3)
    for rows, gaps in ((0, 0.0), (1, 0.0), (7, 0.3), (300, 0.0), (1000, 0.01), (517, 1.0)):
        matrix = rng.random((rows, 9)) * np.array([1, 1e-3, 1e6, 1 / 3, 7, 1, 1, 1e-9, 13])
        matrix[rng.random(matrix.shape) < gaps] = np.nan
        matrix[:, 4] = np.nan if rows else matrix[:, 4]
        expected = [_mean(matrix[:, j]) for j in range(matrix.shape[1])]
        assert column_means(matrix) == expected  # None where a column has no value, else the same float


def _scored(n_events: int = 12):
    records = synthetic_records(n_events=n_events, n_models=3, knockout_from=8, seed=5)
    archive = archive_from_records(records)
    return archive, score_archive(archive, inference_tests=False)


def test_a_parts_market_pairs_are_the_whole_archives_entries_of_its_events():
    archive, scores = _scored()
    whole = market_events(scores.forecasts)
    assert whole
    for current in slices(archive):
        keep = slice_filter(archive, current.competition, current.stage)
        alone = market_events([r for r in scores.forecasts if keep(r.competition_id, r.event_id)])
        shared = events_within(whole, {(r.competition_id, r.event_id) for r in scores.forecasts
                                       if keep(r.competition_id, r.event_id)})
        assert repr(dict(sorted(shared.items(), key=lambda kv: repr(kv[0])))) == \
            repr(dict(sorted(alone.items(), key=lambda kv: repr(kv[0]))))


def _with_layers(rows, rng):
    """The rows with varied layers: some without layers, some layers missing, some NaN; a few
    rows repeated as further samples of their match (so events have several rows)."""
    out = []
    for i, row in enumerate(rows):
        draw = rng.random()
        if draw < 0.1:
            layers = None
        else:
            layers = {k: float(rng.random() * 100) for k in fl.LAYER_WEIGHTS if rng.random() > 0.2}
            if draw < 0.3:
                layers["T2"] = float("nan")
        tasks = {"goalscorers": 50.0} if i % 3 == 0 else {}
        out.append(dataclasses.replace(row, layers=layers, fine_tasks=tasks))
        if i % 5 == 0:
            out.append(dataclasses.replace(row, sample=1, layers={k: float(rng.random() * 100) for k in ("T1", "T3")},
                                           fine_tasks={}))
    return out


def test_a_cells_composite_from_the_tables_layer_columns_equals_composite_of_its_rows():
    _, scores = _scored()
    rows = _with_layers(scores.forecasts, np.random.default_rng(8))
    table = RowTable.of(rows)
    cells = table.by_cell()
    assert any(len(set(table.event[index].tolist())) < len(index) for index in cells.values())  # samples
    for cell, index in cells.items():
        expected = composite_of([rows[i] for i in index.tolist()])
        assert repr(table_composite(table, index)) == repr(expected), cell
    empty = np.empty(0, dtype=np.intp)
    assert repr(table_composite(table, empty)) == repr(composite_of([]))


def test_market_pairs_from_the_tables_codes_equal_the_row_by_row_pairing():
    archive, scores = _scored()
    rows = list(scores.forecasts)
    rows += [dataclasses.replace(r, sample=1, p_home=r.p_draw, p_draw=r.p_home) for r in rows[::4]]  # samples
    rows += [dataclasses.replace(r, horizon="t_minus_2h") for r in rows if r.forecaster == "market"][:3]  # a 2nd price
    rows += [dataclasses.replace(r, buy_odds=None, event_id="unpriced") for r in rows[:5]]  # no market there
    expected = market_events(rows)
    assert repr(table_market_events(RowTable.of(rows))) == repr(expected)  # same cells, events, order and floats
    assert table_market_events(RowTable.of([r for r in rows if r.forecaster != "market"])) == {}


def test_the_tables_layer_columns_are_each_rows_layers_nan_where_absent():
    _, scores = _scored()
    for rows in (scores.forecasts, _with_layers(scores.forecasts, np.random.default_rng(2))):
        expected = np.array([[np.nan] * len(fl.LAYER_WEIGHTS) if r.layers is None
                             else [r.layers.get(k, np.nan) for k in fl.LAYER_WEIGHTS] for r in rows])
        table = RowTable.of(rows)
        assert np.array_equal(table.layers, expected, equal_nan=True)
        assert table.layered.tolist() == [r.layers is not None for r in rows]
