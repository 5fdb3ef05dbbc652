"""A scored row's measures read from the scoring's matrix (builder/score/measurerows.py) are the
dicts the rows held before: the same values to the bit, in the same order, the same JSON bytes,
equal, pickled and copied alike. The reference is the old route: each row's dict made from the
match measures' columns by ``tolist`` (the floats ``float()`` gives)."""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle
import struct

import numpy as np
import orjson
import pytest

from builder.score import fine_grained_board
from builder.score.columns import RowTable
from builder.score.measurerows import (
    ROW_LAYERS,
    Advancement,
    Layers,
    Measures,
    shared_matrix,
)
from builder.score.scoring import (
    _pair_columns,
    match_measures,
    published_score,
    result_class,
    scorable_pairs,
    score_match_forecasts,
)
from builder.score.types import ADVANCEMENT_MEASURES, MEASURES, clean
from collector.records import Forecast
from tests.factories import archive_from_records, synthetic_records


@pytest.fixture(scope="module")
def scored():
    archive = archive_from_records(synthetic_records(n_events=16, n_models=3, seed=11, knockout_from=10))
    forecasts = sorted((f for f in archive.forecasts if f.target_kind == "match"), key=Forecast.key)
    return archive, forecasts, score_match_forecasts(archive, forecasts)


@pytest.fixture(scope="module")
def dicts(scored):
    """Each row's measures dict by the old route (columns -> ``tolist`` -> dict in MEASURES order)."""
    archive, forecasts, _ = scored
    p, (eh, ea), (ph, pa, h, a, h_et, a_et), et = _pair_columns(scorable_pairs(archive, forecasts))
    columns = match_measures(p, result_class(h, a), ph, pa, h, a, eh, ea, published=published_score(h, a, h_et, a_et, et))
    values = np.stack([np.asarray(columns[name], dtype=float) for name in MEASURES]).T.tolist()
    return [dict(zip(MEASURES, row, strict=True)) for row in values]


def bits(values) -> list[bytes]:
    return [struct.pack("<d", v) for v in values]


def test_values_order_and_bits_are_the_dicts(scored, dicts):
    _, _, rows = scored
    assert len(rows) == len(dicts) > 100
    for row, old in zip(rows, dicts, strict=True):
        m = row.measures
        assert type(m) is Measures and list(m) == list(old) == list(MEASURES) and len(m) == len(old)
        assert bits(m.values()) == bits(old.values()) and bits(m[k] for k in old) == bits(old.values())
        assert all(type(v) is float for v in m.values())
        assert [k for k, _ in m.items()] == list(MEASURES) and bits(v for _, v in m.items()) == bits(old.values())
        assert bits(map(m.get, MEASURES)) == bits(old.values()) and m.get("nope", 7) == 7 and "nope" not in m
        assert "brier" in m and list(m.keys()) == list(MEASURES)


def test_json_bytes_equality_and_repr_are_the_dicts(scored, dicts):
    _, _, rows = scored
    for row, old in zip(rows, dicts, strict=True):
        m = row.measures
        assert orjson.dumps(clean(m)) == orjson.dumps(clean(old)) == orjson.dumps(dict(m), option=orjson.OPT_NON_STR_KEYS)
        assert repr(m) == repr(old) and dict(m) == old
        if not any(math.isnan(v) for v in old.values()):  # NaN equals only itself, in a dict as anywhere
            assert m == old and old == m and m == Measures.of(old.values())
        assert m == m and m != dict(old, brier=old["brier"] + 1.0) and m != {**old, "extra": 1.0}
    plain = dataclasses.asdict(rows[0])
    assert orjson.dumps(clean(plain)) == orjson.dumps(clean({**plain, "measures": dicts[0]}))


def test_pickle_deepcopy_and_hash_are_the_dicts(scored, dicts):
    _, _, rows = scored
    for row, old in zip(rows[:50], dicts, strict=False):
        again = pickle.loads(pickle.dumps(row.measures))
        assert type(again) is Measures and bits(again.values()) == bits(old.values())
        assert copy.deepcopy(row.measures) is row.measures
        whole = pickle.loads(pickle.dumps(row))
        assert clean(dataclasses.asdict(whole)) == clean(dataclasses.asdict(row))
    with pytest.raises(TypeError):
        hash(rows[0].measures)


def test_advancement_is_the_knockout_rows_dicts(scored):
    archive, forecasts, rows = scored
    knockout = [r for r in rows if r.advancement is not None]
    assert knockout and len(knockout) < len(rows)
    for r in knockout:
        a = r.advancement
        assert type(a) is Advancement and list(a) == list(ADVANCEMENT_MEASURES) and a.row == r.measures.row
        p = next(f.payload.home_advances for f in forecasts if f.key() == r.key)
        event = archive.events[(r.competition_id, r.event_id)]
        home = archive.outcomes[(r.competition_id, r.event_id)].advancing_team == event.home_team
        brier = 2 * (p - float(home)) ** 2  # two-class Brier, by hand
        assert a["advancement_brier"] == pytest.approx(brier, abs=1e-12)
        assert pickle.loads(pickle.dumps(a)) == a and orjson.dumps(clean(a)) == orjson.dumps(dict(a))


def test_the_table_of_the_rows_is_the_matrix_and_any_other_rows_get_the_plain_route(scored):
    _, _, rows = scored
    table = RowTable.of(rows)
    assert table.values is rows[0].measures.matrix
    part = rows[5:40:3]
    assert np.array_equal(RowTable.of(part).values, table.values[5:40:3], equal_nan=True)
    plain = [dataclasses.replace(r, measures=dict(r.measures),
                                 advancement=None if r.advancement is None else dict(r.advancement)) for r in rows]
    assert shared_matrix(plain) is None
    assert np.array_equal(RowTable.of(plain).values, table.values, equal_nan=True)
    changed = [dataclasses.replace(rows[0], advancement={"advancement_brier": 0.5})] + rows[1:]
    assert shared_matrix(changed) is None  # an advancement not from the matrix: the plain route


def test_layers_are_the_dicts_the_layers_functions_give(scored):
    archive, _, rows = scored
    found = [r.layers for r in rows]
    assert all(type(x) is Layers for x in found) and len({id(x.matrix) for x in found}) == 1
    for r, layers in zip(rows, found, strict=True):
        truth = fine_grained_board.event_truth(archive, (r.competition_id, r.event_id))
        old = fine_grained_board.row_layers(fine_grained_board.forecast_tasks(archive, r), r.measures, r.advancement,
                                            truth)
        assert list(layers) == list(old) == list(ROW_LAYERS) and repr(layers) == repr(old)
        assert bits(layers.values()) == bits(old.values()) and orjson.dumps(clean(layers)) == orjson.dumps(clean(old))
    assert any(math.isnan(x["T2"]) for x in found) and not any(math.isnan(x["T1"]) for x in found)
    assert np.array_equal(RowTable.of(rows).layers[:, :4], found[0].matrix, equal_nan=True)
