"""Many columns' bootstrap-t intervals at once (``each_column.studentized_each``) and the Prophet
Arena table's replicate means of many cells at once (``_Columns.means_of``) are each column's
and each cell's own to the bit: the route of one ``Resampler.studentized_intervals`` call per
column (the analysis page's tables asked it so) and of one ``_Columns.means`` per cell."""

from __future__ import annotations

import numpy as np
import pytest

from builder.score.each_column import studentized_each
from builder.score.paper_common import Columns as _Columns
from builder.score.paper_table_pa import _syms
from builder.score.paper_tables import _cis
from builder.score.resampling import BLOCK, MULTINOMIAL, POISSON, Resampler


def _resampler(n: int, replicates: int, scheme: str = POISSON) -> Resampler:
    return Resampler.for_events({("c", f"m{i:03d}"): i >= n * 2 // 3 for i in range(n)}, replicates=replicates,
                                permutations=0, scheme=scheme)


def _matrix(n: int, rng: np.random.Generator) -> np.ndarray:
    """Columns with gaps, a constant column, a 0/1 column, one value only and an empty one."""
    values = rng.random((n, 7))
    values[rng.random((n, 7)) < 0.2] = np.nan
    values[:, 2] = 0.25
    values[:, 3] = rng.random(n) < 0.1
    values[1:, 4] = np.nan
    values[:, 5] = np.nan
    return values


@pytest.mark.parametrize("scheme", [POISSON, MULTINOMIAL])
@pytest.mark.parametrize("replicates", [997, 2 * BLOCK + BLOCK // 2])  # one block; two and a half
def test_each_column_is_its_own_call_to_the_bit(replicates, scheme):
    rng = np.random.default_rng(11)
    resampler = _resampler(80, replicates, scheme)
    values = _matrix(80, rng)
    low, high = studentized_each(resampler, values)
    for j in range(values.shape[1]):
        alone = resampler.studentized_intervals(values[:, [j]])
        assert np.array_equal(low[j : j + 1], alone[0], equal_nan=True)
        assert np.array_equal(high[j : j + 1], alone[1], equal_nan=True)
    assert np.isnan(low[[4, 5]]).all() and not np.isnan(low[[0, 1, 3, 6]]).any()


def test_the_tables_batched_asks_are_the_single_ones():
    rng = np.random.default_rng(5)
    resampler = _resampler(60, 2 * BLOCK + 7, MULTINOMIAL)  # the paper tables' scheme
    columns = _Columns(resampler)
    asked = []
    for keep in (60, 60, 59, 45, 12, 2, 1, 60):
        events = sorted(rng.choice(len(resampler.events), keep, replace=False))
        asked.append({resampler.events[i]: float(rng.random() * 2) for i in events})
    single = [_Columns(resampler).means(a, np.array(list(a.values()))) for a in asked]
    for got, alone in zip(columns.means_of([(a, np.array(list(a.values()))) for a in asked]), single, strict=True):
        assert np.array_equal(got, alone, equal_nan=True)
    assert _syms(columns, asked) == [_syms(columns, [a])[0] for a in asked]
    bounds = [(a, 100.0, (0.0, 1.0)) for a in asked]
    assert _cis(resampler, bounds) == [_cis(resampler, [b])[0] for b in bounds]


def test_the_tables_columns_refuse_weights_that_are_not_the_counts():
    """The transposed copy holds counts: a Poisson resampler's weights are counts times its
    strata's scales, which the columns would leave out."""
    poisson = _resampler(60, 300)
    assert not poisson.unit
    with pytest.raises(ValueError, match="scales are all 1"):
        _Columns(poisson)
    assert _resampler(60, 300, MULTINOMIAL).unit
