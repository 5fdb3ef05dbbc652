"""Reading many scored rows' measures at once from their shared matrix (issue 21: the paper tables'
per-event means and the scores download) gives the values reading each row's mappings gives, to
the bit, with the same fallback for rows whose measures are not one matrix's rows."""

from __future__ import annotations

import struct
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.score.aggregate import _measure_values, per_cell_events
from builder.score.measurerows import Advancement, Measures, named_columns
from builder.score.scoring import score_archive
from builder.score.types import ADVANCEMENT_MEASURES, MEASURES
from builder.site.tables import score_table
from tests.factories import archive_from_records, synthetic_records

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

NAMES = ("brier", "advancement_brier", "not_a_measure", "scoreline_wca", "advancement_accuracy")


@pytest.fixture(scope="module")
def rows():
    archive = archive_from_records(synthetic_records(n_events=30, n_models=3, seed=11, knockout_from=20))
    return score_archive(archive, inference_tests=False).forecasts


def _bits(values) -> list:
    """Each value's identity to the bit: None, or the float's 8 bytes (NaN's and -0.0's included)."""
    return [struct.pack("<d", v) if isinstance(v, float) else v for v in values]


def _reference(rows, names) -> np.ndarray:
    return np.array([_measure_values(r, names) for r in rows], dtype=float).reshape(len(rows), len(names))


def test_named_columns_are_each_rows_mapping_values_to_the_bit(rows):
    got = named_columns(rows, NAMES)
    assert got is not None and got.shape == (len(rows), len(NAMES))
    assert got.tobytes() == _reference(rows, NAMES).tobytes()
    knockout = [i for i, r in enumerate(rows) if r.advancement is not None]
    group = [i for i, r in enumerate(rows) if r.advancement is None]
    assert knockout and group  # both kinds are in the fixture
    assert not np.isnan(got[knockout, 1]).any() and np.isnan(got[group, 1]).all()
    assert np.isnan(got[:, 2]).all()  # a name of neither kind
    assert got[0, 0] == rows[0].measures["brier"]


def test_rows_without_one_shared_matrix_fall_back_to_their_mappings(rows):
    hand = replace(rows[0], measures=dict(rows[0].measures))  # a plain dict, as a hand-made row has
    mixed = [hand] + list(rows[1:5])
    assert named_columns(mixed, NAMES) is None
    by_matrix = per_cell_events(rows[:5], NAMES)
    by_dicts = per_cell_events(mixed, NAMES)
    assert by_matrix.keys() == by_dicts.keys()
    for cell in by_matrix:
        assert list(by_matrix[cell]) == list(by_dicts[cell])
        for event in by_matrix[cell]:
            assert by_matrix[cell][event].tobytes() == by_dicts[cell][event].tobytes()


def test_advancement_of_a_row_without_it_is_nan_even_when_its_matrix_row_holds_numbers(rows):
    """The mappings say absent (NaN) for a row whose ``advancement`` is None: the columns follow the
    rows, not whatever the matrix holds beyond the first advancement measure."""
    group = next(i for i, r in enumerate(rows) if r.advancement is None)
    matrix = rows[0].measures.matrix.copy()
    matrix[rows[group].measures.row, len(MEASURES) + 1:] = 0.25  # past the first advancement entry (NaN)
    moved = [replace(r, measures=Measures(matrix, r.measures.row),
                     advancement=None if r.advancement is None else Advancement(matrix, r.measures.row))
             for r in rows]
    names = ("advancement_log_loss", "advancement_accuracy", "brier")
    got = named_columns(moved, names)
    assert got is not None
    assert np.isnan(got[group, :2]).all() and got[group, 2] == rows[group].measures["brier"]
    assert got.tobytes() == _reference(moved, names).tobytes()


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_subset_in_any_order_reads_the_same_values(rows, data):
    picked = data.draw(st.lists(st.integers(0, len(rows) - 1), min_size=1, max_size=60))
    names = tuple(data.draw(st.lists(st.sampled_from(MEASURES + ADVANCEMENT_MEASURES + ("x",)), min_size=1,
                                     max_size=6)))
    chosen = [rows[i] for i in picked]
    got = named_columns(chosen, names)
    assert got is not None
    assert got.tobytes() == _reference(chosen, names).tobytes()


def test_score_download_rows_made_a_chunk_at_a_time_are_the_rows_made_one_by_one(rows):
    from builder.score.types import Scores
    table = score_table(Scores(archive="a", competition_id=None, forecasts=rows))
    assert table.rows.make_many is not None
    chunked = table.rows[0 : len(table.rows)]
    single = [table.rows[i] for i in range(len(table.rows))]
    assert len(chunked) == len(single) == len(rows)
    for a, b in zip(chunked, single, strict=True):
        assert len(a) == len(b) and _bits(a) == _bits(b)
    assert any(r[-1] is None for r in chunked) and any(r[-1] is not None for r in chunked)
    hand = [replace(rows[0], measures=dict(rows[0].measures))] + list(rows[1:4])
    mixed = score_table(Scores(archive="a", competition_id=None, forecasts=hand))
    assert [_bits(r) for r in mixed.rows[0:4]] == [_bits(mixed.rows[i]) for i in range(4)]
