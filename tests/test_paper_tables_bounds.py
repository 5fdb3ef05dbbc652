"""The analysis page's LLM-SoccerArena intervals stay inside each measure's range.

A studentized bootstrap interval (seeds/000 §4.3) is not a percentile of replicate means, so at
small n it can pass the bounds a mean can take: 4 correct modal picks in 5 matches gave
"80.0 [80.0, 112.7]" for an accuracy in %. The table shows such an end at the bound, says so in
its caption, and leaves every interval that is inside the range as computed."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.score.definitions import MEASURE_RANGES
from builder.score.paper_tables import BOUNDED_NOTE, _ci
from builder.score.resampling import Resampler


def events(n: int) -> dict:
    return {("c", f"m{i:02d}"): False for i in range(n)}  # one stratum


def raw_interval(resampler: Resampler, per_event: dict) -> tuple[float, float]:
    """The resampler's own studentized interval of the values (the unbounded route)."""
    idx = resampler.index()
    column = np.full((len(resampler.events), 1), np.nan)
    for e, v in per_event.items():
        column[idx[e], 0] = v
    low, high = resampler.studentized_intervals(column)
    return float(low[0]), float(high[0])


def test_four_hits_in_five_show_an_upper_end_of_100_not_113():
    ev = events(5)
    resampler = Resampler.for_events(ev, permutations=0)
    hits = dict(zip(ev, [1.0, 1.0, 1.0, 0.0, 1.0], strict=True))
    assert raw_interval(resampler, hits)[1] > 1.0  # the method itself passes 100 %
    mean, low, high, bounded = _ci(resampler, hits, 100.0, MEASURE_RANGES["accuracy"])
    assert mean == 80.0 and high == 100.0 and bounded
    assert low == raw_interval(resampler, hits)[0] * 100.0  # the end inside the range is untouched
    misses = dict(zip(ev, [0.0, 0.0, 0.0, 1.0, 0.0], strict=True))
    _, low, high, bounded = _ci(resampler, misses, 100.0, MEASURE_RANGES["exact"])
    assert low == 0.0 and high == raw_interval(resampler, misses)[1] * 100.0 and bounded


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=2, max_size=12))
def test_every_shown_interval_is_inside_the_range_and_the_raw_one_where_that_is_inside(values):
    ev = events(len(values))
    resampler = Resampler.for_events(ev, permutations=0)
    per_event = dict(zip(ev, values, strict=True))
    mean, low, high, bounded = _ci(resampler, per_event, 100.0, MEASURE_RANGES["accuracy"])
    assert mean == np.mean(values) * 100.0
    if low is None:
        return
    raw_low, raw_high = raw_interval(resampler, per_event)
    assert 0.0 <= low <= high <= 100.0
    inside = 0.0 <= raw_low and raw_high <= 1.0
    assert bounded is not inside
    if inside:
        assert (low, high) == (raw_low * 100.0, raw_high * 100.0)


def test_the_caption_names_the_rule_only_when_an_end_was_moved():
    from builder.score.paper_tables import lsa_table

    assert "bound" in BOUNDED_NOTE
    assert BOUNDED_NOTE not in lsa_table([], None).caption
