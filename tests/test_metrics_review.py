"""Second-wave review of the scoring code: values and edge cases the first tests left open.

Each test here was written against a mutation of a formula that the earlier tests let through
(display centre, log-loss floor, question accuracy and log base, samples in the diversity
view, "any attempt searched"), or against an edge case (tied question answers, empty inputs).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.score import calibration as cal
from builder.score import diversity, inference, operations
from builder.score import metrics as m
from builder.score import metrics_questions as mq
from builder.score.scoring import score_archive
from collector.records import Access, ForecastStatus, SearchObserved, Validation
from tests.factories import (
    archive_from_records,
    make_attempt,
    make_competition,
    make_event,
    make_forecast,
    make_outcome,
    make_payload,
    make_question,
    make_question_forecast,
    make_resolution,
)


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


# ---------- match measures ----------


def test_scoreline_display_uses_centre_70_temperature_5():
    # C(R) = 100 (s((R-70)/5) - s(-14)) / (s(6) - s(-14)), worked with math.exp, not numpy
    low, high = _sigmoid(-14), _sigmoid(6)
    for raw in (65.0, 70.0, 80.0):
        expected = 100 * (_sigmoid((raw - 70) / 5) - low) / (high - low)
        assert m.scoreline_display(np.array([raw]))[0] == pytest.approx(expected, rel=1e-12)
    assert m.scoreline_display(np.array([70.0]))[0] == pytest.approx(50.124, abs=1e-3)
    assert m.scoreline_display(np.array([65.0]))[0] == pytest.approx(26.96, abs=1e-2)


def test_log_loss_floor_is_one_in_a_million():
    # a stated 0 on the realised class costs -ln(1e-6) = 13.8155 nats, for matches and advancement
    assert m.log_loss_hda(np.array([[0.0, 0.4, 0.6]]), np.array([0]))[0] == pytest.approx(13.815511, abs=1e-6)
    assert m.log_loss_advancement(np.array([1.0]), np.array([False]))[0] == pytest.approx(13.815511, abs=1e-6)
    assert m.log_loss_hda(np.array([[1.0, 0.0, 0.0]]), np.array([0]))[0] == 0.0


def test_every_measure_of_an_empty_batch_is_empty():
    p, y = np.zeros((0, 3)), np.zeros(0, dtype=int)
    for fn in (m.brier_score_hda, m.log_loss_hda, m.rps_hda, m.accuracy_hda):
        assert fn(p, y).shape == (0,)
    none = np.zeros(0, dtype=int)
    assert m.partial_credit_scoreline(none, none, none, none).shape == (0,)


def test_all_ties_forecast_gets_one_third_accuracy_and_agrees_with_any_scoreline():
    p = np.full((3, 3), 1 / 3)
    assert m.accuracy_hda(p, np.array([0, 1, 2])).tolist() == pytest.approx([1 / 3] * 3)
    assert m.agreement_scoreline(p, np.array([2, 1, 0]), np.array([0, 1, 2])).tolist() == [1.0, 1.0, 1.0]


# ---------- tournament questions ----------


def test_question_accuracy_is_zero_for_a_wrong_pick_and_log_loss_is_natural():
    P = np.array([[0.5, 0.3, 0.2, 0.0], [0.5, 0.3, 0.2, 0.0]])
    Y = np.array([[0.0, 1.0, 0.0, 0.0]] * 2)
    picks = np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0]])
    assert mq.accuracy_question(picks, Y).tolist() == [0.0, 1.0]
    assert mq.log_loss_question(P, Y).tolist() == pytest.approx([-math.log(0.3)] * 2)
    assert mq.brier_score_question(P, Y).tolist() == pytest.approx([0.25 + 0.49 + 0.04] * 2)


def test_tied_single_choice_answer_is_scored_by_dead_heat():
    # top scorers of esp and usa share the lead: the answer is (esp, usa)
    P = np.array([[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.5, 0.5], [1.0, 0.0, 0.0, 0.0]])
    Y = np.broadcast_to(np.array([0.0, 0.0, 1.0, 1.0]), P.shape)
    # D = (0, 0, 1/2, 1/2): all on esp -> 0.25 + 0.25; the even split -> 0; all on mex -> 1 + 0.25 + 0.25
    assert mq.brier_score_question(P, Y).tolist() == pytest.approx([0.5, 0.0, 1.5])
    assert mq.log_loss_question(P, Y).tolist() == pytest.approx([0.0, 0.0, -math.log(1e-6)])
    assert mq.accuracy_question(np.array([[0, 0, 1.0, 0], [0, 0, 0, 1.0], [1.0, 0, 0, 0]]), Y).tolist() == [1, 1, 0]


def test_tied_answer_through_the_scoring_pipeline():
    question = make_question("top_scorer_team", ("mex", "rsa", "esp", "usa"))
    records = [make_competition(teams=["mex", "rsa", "esp", "usa"]), question,
               make_resolution(question, ["esp", "usa"]),
               make_question_forecast(question, {"esp": 0.7, "usa": 0.2, "mex": 0.1})]
    [score] = score_archive(archive_from_records(records)).questions
    # D = (0, 0, 1/2, 1/2): 0.1^2 + 0 + 0.2^2 + 0.3^2
    assert score.measures["brier"] == pytest.approx(0.01 + 0.04 + 0.09)
    assert score.measures["accuracy"] == 1.0
    assert score.measures["probability_realised"] == pytest.approx(0.9)


def _loop_brier(p_row, answer):
    """Independent route: the dead-heat Brier written out over candidates."""
    return sum((p - (1 / len(answer) if c in answer else 0.0)) ** 2 for c, p in enumerate(p_row))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=4, max_size=8), st.data())
def test_single_choice_question_brier_is_bounded_and_matches_a_loop(weights, data):
    total = sum(weights)
    p = np.array(weights) / total if total > 0 else np.full(len(weights), 1 / len(weights))
    answer = data.draw(st.sets(st.integers(0, len(weights) - 1), min_size=1, max_size=3))
    Y = np.zeros((1, len(weights)))
    Y[0, sorted(answer)] = 1.0
    value = mq.brier_score_question(p[None], Y)[0]
    assert value == pytest.approx(_loop_brier(p, answer), abs=1e-12)
    assert -1e-12 <= value <= 2 + 1e-12
    if len(answer) == 1:  # the usual multiclass Brier score
        assert value == pytest.approx(np.sum((p - Y[0]) ** 2), abs=1e-12)


# ---------- calibration ----------


def test_reliability_bins_of_no_forecasts_are_empty():
    empty = np.zeros(0)
    assert cal.reliability_equal_frequency(empty, empty, "home") == []
    assert cal.reliability_equal_width(empty, empty, "home") == []
    assert math.isnan(cal.expected_calibration_error(empty, empty))


def test_ece_of_probabilities_exactly_zero_and_one():
    # 1.0 falls in the last bin, 0.0 in the first; confident and right -> 0, confident and wrong -> 1
    assert cal.expected_calibration_error([1.0, 0.0], [1.0, 0.0]) == 0.0
    assert cal.expected_calibration_error([1.0, 0.0], [0.0, 1.0]) == 1.0


def test_tercile_boundaries_are_left_closed():
    # n = 5: rank/(n+1) = 1/6, 2/6, 3/6, 4/6, 5/6 -> rank 2 (exactly 1/3) opens the middle group
    assert cal.tercile_of_rank(np.array([1.0, 2, 3, 4, 5])).tolist() == [0, 1, 1, 2, 2]
    assert cal.tercile_of_rank(np.array([0.3])).tolist() == [1]


# ---------- diversity and operations ----------


def test_diversity_averages_samples_of_one_forecaster_before_comparing():
    event = make_event()
    records = [make_competition(), event, make_outcome(event, 1, 0),
               make_forecast(event, "m.a", make_payload((1.0, 0.0, 0.0)), sample=0),
               make_forecast(event, "m.a", make_payload((0.0, 0.0, 1.0)), sample=1),
               make_forecast(event, "m.b", make_payload((0.5, 0.0, 0.5)))]
    [pair] = score_archive(archive_from_records(records), inference_tests=False).diversity
    # m.a's mean vector (0.5, 0, 0.5) equals m.b's: divergence 0, pooled correlation 1; with one
    # event no per-outcome correlation is defined, so the Fisher-z mean (the default) is None
    assert pair.n == 1
    assert pair.jensen_shannon == pytest.approx(0.0, abs=1e-12)
    assert pair.correlation_pooled == pytest.approx(1.0)
    assert pair.correlation is None and pair.correlation_by_outcome == (None, None, None)


def test_diversity_of_identical_constant_vectors_has_no_correlation():
    p = np.array([[1 / 3, 1 / 3, 1 / 3]])
    assert diversity.jensen_shannon_divergence(p, p)[0] == pytest.approx(0.0, abs=1e-15)
    assert diversity._correlation(p, p) is None


def test_a_record_searched_if_any_attempt_searched():
    event = make_event()
    first, retry = make_attempt(search=SearchObserved.NONE), make_attempt(search=SearchObserved.SEARCHED)
    record = make_forecast(event, "m.x", attempts=(first, retry), access=Access.OPEN_BOOK)
    assert operations.searched(record) is True
    unknown = make_forecast(event, "m.x", attempts=(make_attempt(),), access=Access.OPEN_BOOK, sample=1)
    assert operations.searched(unknown) is None
    row = operations.operational_rows([record, unknown])[0]
    assert row.search_shares == {"searched": 0.5, "not_observed": 0.0, "unknown": 0.5}


def test_closed_book_calls_stay_out_of_the_search_denominator():
    event = make_event()
    open_call = make_forecast(event, "m.x", attempts=(make_attempt(search=SearchObserved.SEARCHED),),
                              access=Access.OPEN_BOOK)
    closed_call = make_forecast(event, "m.x", attempts=(make_attempt(search=SearchObserved.NONE),), sample=1)
    row = operations.operational_rows([open_call, closed_call])[0]
    assert row.open_book_calls == 1 and row.search_observed_rate == 1.0


def test_sum_audit_counts_any_stated_sum_off_one():
    event = make_event()
    forecasts = [make_forecast(event, "m.x", sample=i, status=ForecastStatus.NORMALIZED,
                               validation=Validation(original_sums={"90": s}, normalized=True))
                 for i, s in enumerate((1.001, 0.999, 1.0))]
    audit = operations.operational_rows(forecasts)[0].sum_audit
    assert audit["90_share_off"] == pytest.approx(2 / 3)
    assert audit["90_mean_abs_deviation"] == pytest.approx(0.002 / 3)


# ---------- inference ----------


def _resampler(n: int, replicates: int = 2000) -> inference.Resampler:
    return inference.Resampler.for_events({("c", f"e{i:03d}"): i >= n - n // 4 for i in range(n)},
                                          replicates=replicates)


def test_studentized_interval_agrees_with_an_explicit_bootstrap_t_loop_on_skewed_data():
    # skewed (exponential) values: the bootstrap-t interval is asymmetric, so reflecting the
    # t quantiles (m - t_hi se, m - t_lo se) differs from not reflecting them
    values = np.random.default_rng(4).exponential(0.2, size=24) - 0.1
    r = _resampler(24)
    low, high = r.studentized_intervals(values[:, None])
    m0, se0 = values.mean(), values.std(ddof=0) / math.sqrt(len(values))
    knockout = np.arange(len(values)) >= len(values) - len(values) // 4  # _resampler's strata, by construction
    t = []
    for counts in r.draws.astype(float):
        # the replicate's resample: each match as often as drawn, a copy weighing its stratum's scale
        # n_h / (the stratum's draws), worked out here from the strata, not read from the resampler
        with np.errstate(divide="ignore"):  # a stratum not drawn at all has no copies to weigh
            scale = np.where(knockout, knockout.sum() / counts[knockout].sum(),
                             (~knockout).sum() / counts[~knockout].sum())
        drawn = np.repeat(np.arange(len(values)), counts.astype(int))
        share = scale[drawn]
        n = share.sum()
        mean = share @ values[drawn] / n
        se = math.sqrt(share @ (values[drawn] - mean) ** 2 / n / n)
        if len(set(drawn)) > 1:  # one match drawn only: no spread, no t
            t.append((mean - m0) / se)
    t_low, t_high = np.percentile(t, [2.5, 97.5])
    assert low[0] == pytest.approx(m0 - t_high * se0, rel=1e-9)
    assert high[0] == pytest.approx(m0 - t_low * se0, rel=1e-9)
    assert high[0] - m0 != pytest.approx(m0 - low[0], rel=0.05)  # asymmetric on skewed data


def test_sign_flip_p_value_is_never_below_one_over_draws_plus_one():
    r = _resampler(40, replicates=10)
    p = r.sign_flip_p(np.full((40, 1), 0.05))[0]
    # only the all-equal sign patterns (chance 2^-39) are as extreme: p = (1 + 0) / (1 + 10,000)
    assert p == pytest.approx(1 / (1 + inference.PERMUTATIONS))


def test_single_match_has_no_interval_and_a_p_value_of_one():
    r = _resampler(1, replicates=50)
    values = np.array([[0.2]])
    assert all(math.isnan(v[0]) for v in r.intervals(values))
    assert all(math.isnan(v[0]) for v in r.studentized_intervals(values))
    assert r.sign_flip_p(values)[0] == 1.0


def test_question_summary_averages_samples_of_a_question_first():
    champion = make_question("world_champion", ("mex", "rsa", "esp", "usa"))
    group_a = make_question("group_winner_a", ("mex", "rsa", "esp", "usa"))
    records = [make_competition(teams=["mex", "rsa", "esp", "usa"]), champion, group_a,
               make_resolution(champion, ["esp"]), make_resolution(group_a, ["mex"]),
               make_question_forecast(champion, {"esp": 1.0, "mex": 0.0}, sample=0),
               make_question_forecast(champion, {"esp": 0.0, "mex": 1.0}, sample=1),
               make_question_forecast(group_a, {"mex": 1.0, "esp": 0.0})]
    scores = score_archive(archive_from_records(records))
    [summary] = scores.question_summary
    # world_champion: samples (brier 0, accuracy 1) and (2, 0) -> (1, 0.5); group_winner_a: (0, 1)
    assert summary.n == 2
    assert summary.measures["brier"] == pytest.approx((1.0 + 0.0) / 2)
    assert summary.measures["accuracy"] == pytest.approx((0.5 + 1.0) / 2)


def test_probability_sum_audit_uses_the_sum_stated_before_normalisation():
    semis = make_question("semifinalists", ("mex", "rsa", "esp", "usa", "cze"), k=2)
    stated = {"esp": 0.9, "mex": 0.6, "usa": 0.4, "rsa": 0.2}  # sums to 2.1; the validator scales it to 2
    normalised = {t: v * 2 / 2.1 for t, v in stated.items()}
    records = [make_competition(teams=["mex", "rsa", "esp", "usa", "cze"]), semis,
               make_resolution(semis, ["esp", "usa"]),
               make_question_forecast(semis, normalised, status=ForecastStatus.NORMALIZED,
                                      validation=Validation(original_sums={"choices": 2.1}, normalized=True)),
               make_question_forecast(semis, {"esp": 0.9, "mex": 0.6, "usa": 0.4, "rsa": 0.2}, forecaster="elo")]
    scores = {q.forecaster: q.measures for q in score_archive(archive_from_records(records)).questions}
    assert scores["openai.gpt-5.5"]["probability_sum_audit"] == pytest.approx(0.1)
    assert scores["elo"]["probability_sum_audit"] == pytest.approx(0.1)  # no record: the payload's sum
    assert mq.probability_sum_audit(np.array([4.0, 3.9]), 4).tolist() == pytest.approx([0.0, -0.1])


_SMALL = _resampler(12, replicates=400)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-100, 100), min_size=12, max_size=12).filter(lambda v: len(set(v)) >= 3),
       st.floats(0.1, 10), st.floats(-5, 5))
def test_intervals_move_with_an_affine_change_and_p_values_ignore_sign_and_scale(values, scale, shift):
    # differences on a 0.01 grid, like rounded Brier differences; near-degenerate data (a replicate
    # with spread 1e-13) makes any bootstrap-t interval explode and is left out on purpose
    x = np.array(values, dtype=float)[:, None] / 100
    for method in (_SMALL.intervals, _SMALL.studentized_intervals):
        low, high = method(x)
        low2, high2 = method(scale * x + shift)
        assert low2[0] == pytest.approx(scale * low[0] + shift, abs=1e-7 * scale + 1e-9)
        assert high2[0] == pytest.approx(scale * high[0] + shift, abs=1e-7 * scale + 1e-9)
    p = _SMALL.sign_flip_p(x)[0]
    assert 0 < p <= 1
    assert _SMALL.sign_flip_p(-scale * x)[0] == pytest.approx(p)


def test_studentized_interval_stays_finite_when_most_matches_agree():
    # one match differs: resamples without it have no spread, and their rounding noise
    # (~1e-17) once made t huge and the upper bound millions; they are dropped instead
    x = np.zeros((12, 1))
    x[11] = 1.0
    low, high = _resampler(12).studentized_intervals(x)
    assert -1.0 <= low[0] <= x.mean() <= high[0] <= 1.0
