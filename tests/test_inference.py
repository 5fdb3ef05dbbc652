"""Bootstrap intervals, sign-flip permutation tests, Holm correction, factorial contrasts."""

from __future__ import annotations

import itertools
import warnings
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from builder.score import inference
from builder.score.resampling import GROUP
from builder.score.types import ScoredForecast


def resampler(n_group: int, n_knockout: int = 0, **kw) -> inference.Resampler:
    events = {("c", f"g{i:03d}"): False for i in range(n_group)}
    events.update({("c", f"k{i:03d}"): True for i in range(n_knockout)})
    return inference.Resampler.for_events(events, **kw)


# ---------- Holm ----------


def test_holm_step_by_step_worked_example():
    # m = 4. Sorted: 0.005, 0.01, 0.03, 0.04 -> x4, x3, x2, x1 = 0.02, 0.03, 0.06, 0.04;
    # running maximum 0.02, 0.03, 0.06, 0.06; back in input order:
    assert inference.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # capped at one, and NaN (no test) does not count towards m
    assert inference.holm([0.6, 0.3, float("nan")]) == pytest.approx([0.6, 0.6, float("nan")], nan_ok=True)


def step_down_rejections(p: list[float], alpha: float) -> set[int]:
    """Holm's procedure as written in Holm (1979): reject while p_(i) <= alpha / (m - i + 1)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    rejected = set()
    for rank, i in enumerate(order):
        if p[i] <= alpha / (len(p) - rank):
            rejected.add(i)
        else:
            break
    return rejected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12), st.sampled_from([0.01, 0.05, 0.1]))
def test_holm_adjusted_p_values_reject_exactly_what_the_step_down_procedure_rejects(p, alpha):
    adjusted = inference.holm(p)
    assert {i for i, q in enumerate(adjusted) if q <= alpha} == step_down_rejections(p, alpha)
    assert all(q >= raw - 1e-15 for q, raw in zip(adjusted, p, strict=True))


# ---------- sign-flip permutation ----------


def test_sign_flip_p_value_agrees_with_exact_enumeration():
    d = np.array([0.12, -0.03, 0.08, 0.15, 0.02, -0.05, 0.09, 0.11, 0.04, 0.07])
    observed = abs(d.mean())
    patterns = np.array(list(itertools.product([-1.0, 1.0], repeat=len(d))))
    exact = np.mean(np.abs(patterns @ d / len(d)) >= observed - 1e-12)
    r = resampler(len(d))
    p = r.sign_flip_p(d[:, None])[0]
    assert p == pytest.approx(exact, abs=0.01)  # 10,000 draws: Monte Carlo sd ~ 0.001


def test_sign_flip_p_value_ignores_absent_events_and_is_large_under_symmetry():
    r = resampler(40)
    d = np.tile([0.1, -0.1], 20).astype(float)
    d[:4] = np.nan
    p = r.sign_flip_p(d[:, None])[0]
    assert p == 1.0  # mean 0: every permutation is at least as extreme


# ---------- bootstrap ----------


def test_bootstrap_weights_are_stratified_poisson_resamples():
    r = resampler(72, 32, replicates=500)
    assert r.weights.shape == (500, 104) and r.sizes == (72, 32)
    knockout = np.array([k[1].startswith("k") for k in r.events])
    assert not knockout[:72].any() and knockout[72:].all()  # each stratum's columns together
    counts = r.draws.astype(np.int64)
    assert counts[:, ~knockout].sum(axis=1).std() > 1  # Poisson counts: a replicate's total varies
    # ... and each stratum's weights are scaled back to its number of matches in every replicate
    np.testing.assert_allclose(r.weights[:, ~knockout].sum(axis=1), 72, rtol=1e-12)
    np.testing.assert_allclose(r.weights[:, knockout].sum(axis=1), 32, rtol=1e-12)
    np.testing.assert_array_equal(r.weights[:, knockout], counts[:, knockout] * (32 / counts[:, knockout].sum(axis=1,
                                                                                              keepdims=True)))


def test_bootstrap_replicate_means_agree_with_explicit_resamples():
    r = resampler(30, 10, replicates=200)
    values = np.random.default_rng(1).normal(size=40)
    values[5] = np.nan  # this cell lacks one match
    present = ~np.isnan(values)
    matrix_means = (r.weights @ np.where(present, values, 0)) / (r.weights @ present)
    stratum = np.array([k[1][0] for k in r.events])
    for b in range(0, 200, 37):
        drawn = np.repeat(np.arange(40), r.draws[b].astype(int))  # the explicit resample: each match as often as drawn
        drawn = drawn[present[drawn]]
        # a drawn copy weighs its stratum's size over the stratum's draws in the replicate
        share = {s: np.sum(stratum == s) / np.sum(stratum[np.repeat(np.arange(40), r.draws[b].astype(int))] == s)
                 for s in "gk"}
        weight = np.array([share[stratum[i]] for i in drawn])
        assert matrix_means[b] == pytest.approx(weight @ values[drawn] / weight.sum())


def test_percentile_interval_agrees_with_scipy_bootstrap():
    values = np.random.default_rng(5).normal(0.5, 0.2, size=120)
    r = resampler(120)
    low, high = r.intervals(values[:, None])
    ref = stats.bootstrap((values,), np.mean, n_resamples=10_000, method="percentile",
                          random_state=np.random.default_rng(9)).confidence_interval
    width = ref.high - ref.low
    assert low[0] == pytest.approx(ref.low, abs=0.05 * width)
    assert high[0] == pytest.approx(ref.high, abs=0.05 * width)


def test_resampling_is_reproducible_from_the_master_seed():
    a, b = resampler(20, 5), resampler(20, 5)
    assert np.array_equal(a.weights, b.weights) and np.array_equal(a.signs, b.signs)
    c = resampler(20, 5, seed=1)
    assert not np.array_equal(a.weights, c.weights)


# ---------- factorial contrasts on scored rows ----------


def row(event: str, forecaster: str, access: str, brier: float, strategy="probabilistic_forecast",
        horizon="t_minus_24h", ftype="llm") -> ScoredForecast:
    return ScoredForecast("c", event, forecaster, ftype, forecaster, access, strategy, horizon, 0, "live", "valid",
                          "group", False, 0.4, 0.3, 0.3, 1, 0, 1, 0, "home", None,
                          {"brier": brier, "log_loss": brier})


def test_access_contrast_estimate_interval_and_test():
    rng = np.random.default_rng(2)
    rows = []
    for i in range(40):
        base = rng.uniform(0.3, 0.9)
        for model in ("m.a", "m.b"):
            noise = rng.normal(0, 0.01)
            rows += [row(f"e{i:02d}", model, "closed_book", base + 0.05 + noise),
                     row(f"e{i:02d}", model, "open_book", base)]
    rows.append(row("e99", "m.a", "closed_book", 0.5))  # unpaired: ignored
    results = [t for t in inference.all_tests(rows) if t.family == "access/brier"]
    assert len(results) == 1
    t = results[0]
    assert t.n == 40
    assert t.estimate == pytest.approx(0.05, abs=0.005)
    assert t.low < t.estimate < t.high and t.low > 0
    assert t.p_value < 0.001 and t.p_holm == t.p_value  # alone in its family
    by_model = [t for t in inference.all_tests(rows) if t.family == "access_by_forecaster/brier"]
    assert [t.comparison for t in by_model] == ["closed_book - open_book (m.a, t_minus_24h)",
                                                "closed_book - open_book (m.b, t_minus_24h)"]
    assert all(t.estimate == pytest.approx(0.05, abs=0.01) and t.n == 40 for t in by_model)


def test_model_pairs_family_holm_adjusts_within_a_cell():
    rows = []
    for i in range(30):
        for j, model in enumerate(("m.a", "m.b", "m.c")):
            rows.append(row(f"e{i:02d}", model, "closed_book", 0.5 + 0.02 * j + 0.01 * ((i * (j + 1)) % 3)))
    pairs = [t for t in inference.all_tests(rows) if t.family.startswith("model_pairs/")]
    assert len(pairs) == 3 and len({t.family for t in pairs}) == 1
    adjusted = inference.holm([t.p_value for t in pairs])
    assert [t.p_holm for t in pairs] == pytest.approx(adjusted)
    ab = next(t for t in pairs if t.a == "m.a" and t.b == "m.b")
    assert ab.estimate == pytest.approx(np.mean([0.5 + 0.01 * (i % 3) - 0.52 - 0.01 * ((2 * i) % 3)
                                                 for i in range(30)]))


def test_fast_percentiles_agree_with_numpy():
    values = np.random.default_rng(0).normal(size=(1001, 6))
    values[:7, 2] = np.nan
    low, high = inference._percentiles(values, [2.5, 97.5])
    np.testing.assert_allclose(low, np.nanpercentile(values, 2.5, axis=0))
    np.testing.assert_allclose(high, np.nanpercentile(values, 97.5, axis=0))


def test_studentized_interval_agrees_with_the_classical_t_interval_for_normal_data():
    values = np.random.default_rng(12).normal(0.02, 0.1, size=150)
    low, high = resampler(150).studentized_intervals(values[:, None])
    ref_low, ref_high = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    width = ref_high - ref_low
    assert low[0] == pytest.approx(ref_low, abs=0.05 * width)
    assert high[0] == pytest.approx(ref_high, abs=0.05 * width)


def test_studentized_interval_is_undefined_without_spread():
    low, high = resampler(10).studentized_intervals(np.full((10, 1), 0.3))
    assert np.isnan(low[0]) and np.isnan(high[0])


def test_baselines_are_compared_with_llms_and_with_each_other_in_their_own_families():
    rows = [row(f"e{i}", m, "closed_book", 0.4 + 0.01 * j + 0.001 * i, ftype=kind)
            for i in range(12) for j, (m, kind) in enumerate([("m.a", "llm"), ("elo", "baseline"),
                                                              ("uniform", "baseline")])]
    families = defaultdict(list)
    for t in inference.all_tests(rows):
        families[t.family.split("/")[0]].append((t.a, t.b))
    assert families["llm_vs_baseline"] == [("m.a", "elo"), ("m.a", "uniform")]
    assert families["baseline_pairs"] == [("elo", "uniform")]
    assert "model_pairs" not in families  # one LLM: no pairs


def _moments(values):
    """Each column's presence, count, mean, centred values and standard error, over the whole matrix."""
    present = ~np.isnan(values)
    n = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(present, values, 0.0).sum(axis=0) / n
        centred = np.where(present, values - mean, 0.0)
        se = np.sqrt((centred**2).sum(axis=0) / n / n)
    return present, n, mean, centred, se


def stratum_counts(resampler, present):
    """``weights @ present`` as the resampler defines it, over the whole matrices: each stratum's
    integer counts of the present events times the stratum's scale in the replicate, strata in order."""
    out = np.zeros((len(resampler.draws), present.shape[1]))
    for h, cols in enumerate(resampler.strata):
        out += resampler.scales[:, [h]] * (resampler.draws[:, cols].astype(float) @ present[cols].astype(float))
    return out


def _reference_studentized(resampler, values, level=0.95):
    """Bootstrap-t intervals written out with a temporary per step (the in-place code's reference)."""
    present, n, mean, centred, se = _moments(values)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        counts = stratum_counts(resampler, present)
        shift = (resampler.weights @ centred) / counts
        second = (resampler.weights @ centred**2) / counts
        spread = second - shift**2
        spread = np.where(spread > inference.SPREAD_TOLERANCE * second, spread, 0.0)
        t = shift / np.sqrt(spread / counts)
        t[~np.isfinite(t)] = np.nan
        tail = (1 - level) / 2 * 100
        t_low, t_high = inference._percentiles(t, [tail, 100 - tail])  # the order statistics themselves
    unusable = (n < 2) | (se == 0)
    return np.where(unusable, np.nan, mean - t_high * se), np.where(unusable, np.nan, mean - t_low * se)


def test_studentized_intervals_are_the_step_by_step_formula_to_the_bit():
    rng = np.random.default_rng(11)
    events = {("c", f"e{i:03d}"): i % 4 == 0 for i in range(40)}
    resampler = inference.Resampler.for_events(events, replicates=500, permutations=10)
    values = rng.random((40, 20))
    values[rng.random((40, 20)) < 0.3] = np.nan
    values[:, 3] = 1.0  # no spread at all: no interval
    values[:, 4] = np.where(np.arange(40) < 2, 0.5, np.nan)  # two values: many replicates draw one only
    values[:, 5] = (np.arange(40) % 2).astype(float)  # a 0/1 measure
    low, high = resampler.studentized_intervals(values, chunk=20)  # one chunk: the same products as the reference
    ref_low, ref_high = _reference_studentized(resampler, values)
    assert np.isnan(low[3]) and np.isfinite(low[0])
    assert low.tobytes() == ref_low.tobytes() and high.tobytes() == ref_high.tobytes()


def _whole_matrix_moments(resampler, values, chunk, level=0.95):
    """Bootstrap-t intervals with every column's mean, centring and standard error taken over
    the whole matrix at once (as before columns were worked a group at a time), the products
    in the same chunks."""
    present, n, mean, centred, se = _moments(values)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        tail = (1 - level) / 2 * 100
        t_low, t_high = np.full(len(n), np.nan), np.full(len(n), np.nan)
        for first in range(0, values.shape[1], chunk * GROUP):
            group = slice(first, first + chunk * GROUP)
            t = resampler._t_statistics(present[:, group], centred[:, group], chunk)
            for start in range(0, t.shape[1], chunk):
                cols = slice(first + start, first + start + chunk)
                t_low[cols], t_high[cols] = inference._percentiles(t[:, start : start + chunk], [tail, 100 - tail])
    unusable = (n < 2) | (se == 0)
    return np.where(unusable, np.nan, mean - t_high * se), np.where(unusable, np.nan, mean - t_low * se)


def test_studentized_intervals_of_many_columns_are_the_whole_matrix_route_to_the_bit():
    """Columns are worked a group at a time (memory); a column's moments must be the same sums
    as over the whole matrix, so the intervals are those of the whole-matrix route to the bit,
    and close to the unchunked step-by-step formula."""
    rng = np.random.default_rng(5)
    events = {("c", f"e{i:03d}"): i % 5 == 0 for i in range(30)}
    resampler = inference.Resampler.for_events(events, replicates=300, permutations=10)
    chunk = 4
    values = rng.random((30, 3 * chunk * GROUP + 5)) * 10.0 ** rng.integers(-3, 3, size=3 * chunk * GROUP + 5)
    values[rng.random(values.shape) < 0.25] = np.nan
    low, high = resampler.studentized_intervals(values, chunk=chunk)
    ref_low, ref_high = _whole_matrix_moments(resampler, values, chunk)
    assert np.isfinite(low).sum() > values.shape[1] // 2
    assert low.tobytes() == ref_low.tobytes() and high.tobytes() == ref_high.tobytes()
    step_low, step_high = _reference_studentized(resampler, values)
    np.testing.assert_allclose(low, step_low, rtol=1e-9)
    np.testing.assert_allclose(high, step_high, rtol=1e-9)
