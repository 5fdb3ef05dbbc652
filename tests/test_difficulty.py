"""Difficulty-adjusted Brier (two-way fixed effects): against an OLS solution, by hand, invariants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.score.difficulty import adjusted_scores, connected, difficulty_rows, fit
from builder.score.scoring import score_archive
from tests.factories import archive_from_records, synthetic_records


def unbalanced_panel(seed: int = 0, events: int = 9, forecasters: int = 4):
    rng = np.random.default_rng(seed)
    y = rng.random((events, forecasters))
    mask = rng.random((events, forecasters)) < 0.7
    mask[:, 0] = True  # one forecaster everywhere keeps the panel connected
    mask[rng.integers(events), 1:] = True
    return y, mask


def test_fit_agrees_with_statsmodels_ols_on_an_unbalanced_panel():
    y, mask = unbalanced_panel()
    alpha, beta = fit(y, mask)
    e, f = np.nonzero(mask)
    frame = pd.DataFrame({"y": y[e, f], "event": e.astype(str), "forecaster": f.astype(str)})
    ols = smf.ols("y ~ C(event) + C(forecaster)", data=frame).fit()
    # fitted values are identified whatever the normalisation
    np.testing.assert_allclose(alpha[0][e] + beta[0][f], ols.fittedvalues.to_numpy(), atol=1e-10)
    # forecaster contrasts equal the OLS dummy coefficients (forecaster "0" is the baseline)
    for j in range(1, mask.shape[1]):
        assert beta[0][j] - beta[0][0] == pytest.approx(ols.params[f"C(forecaster)[T.{j}]"], abs=1e-10)
    assert beta[0].sum() == pytest.approx(0.0, abs=1e-12)


def test_fit_agrees_with_a_dummy_least_squares_solution():
    y, mask = unbalanced_panel(seed=3, events=7, forecasters=3)
    e, f = np.nonzero(mask)
    design = np.zeros((len(e), mask.shape[0] + mask.shape[1]))
    design[np.arange(len(e)), e] = 1.0
    design[np.arange(len(e)), mask.shape[0] + f] = 1.0
    coef, *_ = np.linalg.lstsq(design, y[e, f], rcond=None)
    alpha, beta = fit(y, mask)
    np.testing.assert_allclose(alpha[0][e] + beta[0][f], design @ coef, atol=1e-10)


def test_complete_panel_gives_the_plain_means():
    y = np.array([[0.2, 0.4], [0.6, 1.0], [0.3, 0.5]])
    np.testing.assert_allclose(adjusted_scores(y, np.ones_like(y, dtype=bool))[0], y.mean(axis=0))


def test_a_forecaster_who_skipped_the_hard_events_is_not_rewarded():
    """By hand: B scores 0.1 better than A on every event they share, but skipped the hard one."""
    y = np.array([[0.3, 0.2], [0.5, 0.4], [1.5, np.nan]])
    mask = ~np.isnan(y)
    raw = [np.nanmean(y[:, 0]), np.nanmean(y[:, 1])]
    assert raw[1] < raw[0] - 0.3  # the plain means flatter B by 0.4
    adjusted = adjusted_scores(np.nan_to_num(y), mask)[0]
    assert adjusted[0] - adjusted[1] == pytest.approx(0.1)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(-0.5, 0.5))
def test_adding_difficulty_to_one_event_leaves_forecaster_contrasts_alone(seed, shift):
    y, mask = unbalanced_panel(seed=seed, events=6, forecasters=3)
    before = adjusted_scores(y, mask)[0]
    harder = y.copy()
    harder[0] += shift
    after = adjusted_scores(harder, mask)[0]
    np.testing.assert_allclose(np.diff(before), np.diff(after), atol=1e-10)


def test_replicate_weights_equal_refitting_the_resampled_panel():
    y, mask = unbalanced_panel(seed=5, events=6, forecasters=3)
    weights = np.array([[2, 0, 1, 1, 0, 2]], dtype=float)
    rows = np.repeat(np.arange(6), weights[0].astype(int))
    np.testing.assert_allclose(adjusted_scores(y, mask, weights)[0], adjusted_scores(y[rows], mask[rows])[0])


def test_disconnected_forecasters_are_left_out():
    mask = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=bool)
    assert connected(mask).tolist() == [True, True, False]


def test_rows_in_the_analysis_have_intervals_around_the_estimate():
    records = synthetic_records(n_events=24, n_models=2, knockout_from=18, seed=9)
    scores = score_archive(archive_from_records(records))
    assert scores.difficulty
    for row in scores.difficulty:
        assert row.adjusted is not None and row.low <= row.adjusted <= row.high
    assert not difficulty_rows([], None)


def _reference_rows(rows, resampler):
    """difficulty_rows as it was: nested dicts of each condition's forecasters' samples per event."""
    from collections import defaultdict

    from builder.score.difficulty import _condition_rows

    per = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    kinds = {}
    for r in rows:
        if r.forecaster_type != "market":
            per[(r.access, r.strategy, r.horizon, r.clock)][r.forecaster][(r.competition_id, r.event_id)].append(
                r.measures["brier"])
            kinds[r.forecaster] = r.forecaster_type
    out = []
    for condition, by_forecaster in sorted(per.items()):
        names = sorted(by_forecaster)
        events = sorted({e for v in by_forecaster.values() for e in v})
        y = np.full((len(events), len(names)), np.nan)
        col = {e: i for i, e in enumerate(events)}
        for j, name in enumerate(names):
            for e, values in by_forecaster[name].items():
                y[col[e], j] = values[0] if len(values) == 1 else float(np.mean(values))
        out += _condition_rows(condition, names, events, y, kinds, resampler)
    return out


def test_rows_from_codes_are_the_nested_dicts_rows_to_the_bit():
    """Samples to average (2, 3 and 9 of a forecaster's event), unbalanced panels, rows in no order."""
    from dataclasses import replace

    from builder.score.inference import resampler_for

    rows = score_archive(archive_from_records(synthetic_records(n_events=14, n_models=4, seed=3))).forecasts
    rng = np.random.default_rng(2)
    extra = []
    for i, r in enumerate(rows):
        copies = 8 if i == 5 else (1 + i % 2 if i % 7 == 0 else 0)
        extra += [replace(r, sample=r.sample + k + 1, measures={**r.measures, "brier": float(rng.random())})
                  for k in range(copies)]
    mixed = [rows[i] for i in rng.permutation(len(rows)) if i % 11] + extra
    resampler = resampler_for(mixed)
    assert difficulty_rows(mixed, resampler) == _reference_rows(mixed, resampler)
    assert difficulty_rows(mixed, None) == _reference_rows(mixed, None)
