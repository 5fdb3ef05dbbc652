"""The leaderboard's reading aids: significance sentences (hand-worked) and per-horizon ranks with few-event rows."""

from __future__ import annotations

from types import SimpleNamespace

from builder.score.types import TestResult as Result
from builder.site.findings import finding, findings, signed
from builder.site.leaderboard import MIN_EVENTS, ranked_rows

FAMILY = "baseline_pairs/closed_book/probabilistic_forecast/t_minus_24h/replay"


def _test(a, b, estimate, low, high, p_holm, family=FAMILY, comparison=None, n=104):
    return Result(family=family, comparison=comparison or f"{a} - {b}", a=a, b=b, measure="brier", n=n,
                      estimate=estimate, low=low, high=high, p_value=p_holm, p_holm=p_holm)


def test_a_pair_reads_as_the_issue_asks():
    found = finding(_test("dixon_coles", "elo", -0.019, -0.041, 0.001, 0.26), family_size=10)
    assert found.sentence == ("dixon_coles beats elo at T-24h (closed book · probabilities first): −0.019 Brier on "
                              "104 matches, 95% [−0.041, +0.001], Holm p = 0.26: not significant.")
    assert (found.horizon, found.access, found.strategy) == ("t_minus_24h", "closed_book", "probabilistic_forecast")
    assert not found.significant and found.caveat == ""  # the interval includes 0: nothing to explain


def test_the_better_side_is_named_first_and_the_interval_flips_with_it():
    found = finding(_test("elo", "ensemble", 0.012, 0.002, 0.024, 0.1248), family_size=10)
    assert found.sentence.startswith("ensemble beats elo at T-24h")
    assert "−0.012 Brier on 104 matches, 95% [−0.024, −0.002], Holm p = 0.12: not significant." in found.sentence
    assert "excludes 0" in found.caveat and "10 comparisons" in found.caveat  # interval vs Holm explained


def test_significance_and_small_p_values():
    found = finding(_test("dixon_coles", "uniform", -0.151, -0.216, -0.076, 0.0004), family_size=10)
    assert found.significant and found.sentence.endswith("Holm p < 0.001: significant.") and found.caveat == ""
    assert finding(_test("a", "b", -0.1, -0.2, -0.05, 0.003), 3).sentence.endswith("Holm p = 0.003: significant.")


def test_factor_contrasts_name_levels_in_plain_words():
    test = _test("closed_book", "open_book", 0.03, 0.01, 0.05, 0.02, family="access/brier",
                 comparison="closed_book - open_book (t_minus_24h)")
    found = finding(test, 3)
    assert found.sentence.startswith("open book (web search) beats closed book at T-24h, averaged over the LLMs: "
                                     "−0.030 Brier")
    assert (found.horizon, found.access, found.strategy) == ("t_minus_24h", "", "")
    pooled = finding(_test("stage_opening", "t_minus_2h", -0.01, -0.02, 0.0, 0.5, family="horizon/brier",
                           comparison="stage_opening - t_minus_2h (all horizons)"), 1)
    assert pooled.sentence.startswith("stage opening beats T-2h over all horizons") and pooled.horizon == ""


def test_findings_sort_by_adjusted_p_and_count_the_family():
    tests = [_test("a", "b", -0.1, -0.2, -0.05, 0.5), _test("c", "d", 0.1, 0.05, 0.2, 0.01),
             _test("e", "f", 0.0, -0.1, 0.1, None)]
    found = findings(tests, limit=10)
    assert [f.sentence.split(" ")[0] for f in found] == ["d", "a"]  # untested (no p) left out
    assert "2 comparisons" in found[1].caveat
    assert signed(-0.0001) == "0.000" and signed(0.25) == "+0.250"


def _row(name, horizon, brier, n=20, ranked=True):
    return SimpleNamespace(forecaster=name, forecaster_type="baseline", access="closed_book",
                           strategy="probabilistic_forecast", horizon=horizon, clock="replay", n=n, coverage=1.0,
                           ranked=ranked, measures={"brier": brier}, intervals={}, market=None, ece=None,
                           view="matched")


def test_ranks_restart_per_horizon_and_few_event_rows_are_marked_not_ranked():
    board = [_row("a", "t_minus_24h", 0.6), _row("b", "t_minus_24h", 0.5), _row("c", "t_minus_24h", 0.4, n=1),
             _row("d", "stage_opening", 0.7), _row("e", "stage_opening", 0.65, ranked=False),
             _row("f", "t_minus_2h", 0.55)]
    rows = ranked_rows(board, "")
    assert [(r.horizon, r.forecaster, r.rank) for r in rows] == [
        ("stage_opening", "d", "1"), ("stage_opening", "e", "–"),
        ("t_minus_24h", "b", "1"), ("t_minus_24h", "a", "2"), ("t_minus_24h", "c", "–"),
        ("t_minus_2h", "f", "1"),
    ]
    few = next(r for r in rows if r.forecaster == "c")
    assert not few.rankable and few.warning == f"few matches: N = 1 (fewer than {MIN_EVENTS}), not ranked"
    assert "coverage 100%" in next(r for r in rows if r.forecaster == "e").warning
    assert rows[2].horizon_label == "T-24h" and rows[2].condition == "closed book · probabilities first"
