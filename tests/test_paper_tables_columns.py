"""The Prophet Arena table's bootstrap intervals take each cell's columns of the resampler's
weights from a transposed copy, a block of replicates at a time: the products, counts and
intervals are those of the direct ``weights[:, events]`` index to the bit, whatever events a
cell lacks and however many blocks the replicates fill."""

from __future__ import annotations

import numpy as np
import pytest

from builder.score.inference import Resampler
from builder.score.paper_common import Columns as _Columns
from builder.score.paper_table_pa import _returns, _sym
from builder.score.resampling import BLOCK, MULTINOMIAL
from builder.score.returns import return_hda_prophet_arena


def _resampler(n: int = 60, replicates: int = 997) -> Resampler:
    events = {("c", f"m{i:03d}"): i >= 40 for i in range(n)}
    return Resampler.for_events(events, replicates=replicates, scheme=MULTINOMIAL)  # the paper tables' scheme


def _direct(resampler: Resampler, per_event: dict) -> tuple[float, float]:
    """The interval as it was computed: a fancy index of the weights per cell."""
    values = np.array(list(per_event.values()), dtype=float)
    mean = float(values.mean())
    idx = resampler.index()
    w = resampler.weights[:, [idx[e] for e in per_event]]
    with np.errstate(invalid="ignore", divide="ignore"):  # a replicate drawing none of the events
        replicate = (w @ values) / w.sum(axis=1)
    replicate = replicate[~np.isnan(replicate)]
    return mean, float(np.percentile(np.abs(replicate - mean), 95))


@pytest.mark.parametrize("replicates", [997, 2 * BLOCK + BLOCK // 2])  # one block; two and a half
def test_intervals_from_the_transposed_weights_are_the_direct_ones_to_the_bit(replicates):
    resampler = _resampler(replicates=replicates)
    columns = _Columns(resampler)
    rng = np.random.default_rng(7)
    for keep in (60, 59, 45, 12, 2):
        events = sorted(rng.choice(len(resampler.events), keep, replace=False))
        per_event = {resampler.events[i]: float(rng.random() * 2) for i in events}
        assert _sym(columns, per_event) == _direct(resampler, per_event)
        w = resampler.weights[:, events]
        values = np.array(list(per_event.values()))
        with np.errstate(invalid="ignore", divide="ignore"):
            direct = (w @ values) / w.sum(axis=1)
        assert np.array_equal(columns.means(per_event, values), direct, equal_nan=True)


def test_a_cells_returns_in_one_call_are_each_rows_own():
    rng = np.random.default_rng(3)
    rows = [type("Row", (), {"competition_id": "c", "event_id": f"m{i % 7}", "result": ("home", "draw", "away")[i % 3]})
            for i in range(40)]
    p = rng.dirichlet([1, 1, 1], len(rows))
    prices = {("c", f"m{i}"): rng.dirichlet([2, 2, 2]) for i in range(5)}  # m5 and m6 have no price
    prices[("c", "m0")] = p[0].copy()  # a tie: No on every market (App. B.6)
    expected: dict = {}
    for r, vec in zip(rows, p, strict=True):
        q = prices.get((r.competition_id, r.event_id))
        if q is not None:
            y = np.array([("home", "draw", "away").index(r.result)])
            expected.setdefault((r.competition_id, r.event_id), []).append(float(return_hda_prophet_arena(vec[None], q[None], y)[0]))
    assert dict(_returns(rows, p, prices)) == expected
