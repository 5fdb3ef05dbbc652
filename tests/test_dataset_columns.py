"""The Parquet columns are the same arrays whether Arrow converts a whole column or value by value."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from builder.site.dataset import _TIME, _column, _value


def per_value(values, arrow):
    return pa.array([_value(v, arrow) for v in values], type=arrow)


@pytest.mark.parametrize(("values", "arrow"), [
    (["2026-06-11T19:00:00Z", "2026-06-11T19:00:00+00:00", "2026-06-11T21:00:00.250000+02:00", None], _TIME),
    ([datetime(2026, 6, 11, 19, tzinfo=UTC), None, "2026-06-11T19:00:00Z"], _TIME),
    ([1.5, 2, float("nan"), None, np.float64(0.25), np.int64(3), float("inf")], pa.float64()),
    ([1, None, np.int64(7), 2**40], pa.int64()),
    ([True, False, None, np.bool_(True)], pa.bool_()),
    (["a", None, 3, 2.5, np.str_("b")], pa.string()),
    ([], pa.string()),
])
def test_whole_column_and_per_value_routes_agree(values, arrow):
    fast = _column(values, arrow)
    assert fast.type == arrow and fast.equals(per_value(values, arrow))


def test_a_time_without_a_zone_takes_the_per_value_route_as_before():
    values = ["2026-06-11T19:00:00"]  # Arrow's cast to a zoned timestamp refuses it; fromisoformat does not
    assert _column(values, _TIME).equals(per_value(values, _TIME))


@given(st.lists(st.one_of(st.none(), st.floats(allow_nan=True), st.integers(-2**53, 2**53)), max_size=40))
def test_float_columns_agree_on_any_numbers(values):
    assert _column(values, pa.float64()).equals(per_value(values, pa.float64()))


@given(st.lists(st.one_of(st.none(), st.datetimes(min_value=datetime(1872, 1, 1), max_value=datetime(2100, 1, 1),
                                                   timezones=st.sampled_from([UTC, timezone(timedelta(hours=2))]))),
                max_size=20))
def test_time_columns_agree_on_iso_strings(moments):
    values = [None if m is None else m.isoformat().replace("+00:00", "Z") for m in moments]
    assert _column(values, _TIME).equals(per_value(values, _TIME))
