"""Score-grid maths, Elo updates and the Dixon-Coles fit: hand-worked values, scipy as an independent route, invariants."""

from __future__ import annotations

from datetime import date, timedelta
from math import exp, factorial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collector.errors import SourceError
from collector.forecasters.baselines.dixon_coles import (
    dc_log_likelihood,
    fit_dixon_coles,
)
from collector.forecasters.baselines.elo import (
    elo_history,
    fit_goal_model,
    goal_multiplier,
)
from collector.forecasters.baselines.results import (
    build_table,
    parse_results_csv,
    tournament_k,
)
from collector.forecasters.baselines.scoregrid import (
    dixon_coles_tau,
    expected_goals,
    knockout_odds,
    outcome_probabilities,
    poisson_pmf,
    score_grid,
    top_scores,
)


def test_poisson_grid_matches_hand_worked_values():
    pmf = poisson_pmf(1.5)
    assert pmf[0] == pytest.approx(exp(-1.5))
    assert pmf[2] == pytest.approx(exp(-1.5) * 1.5**2 / 2)
    grid = score_grid(1.0, 1.0)
    # P(0-0) = e^-2 / (truncation mass); the truncation at 10 goals is tiny
    assert grid[0, 0] == pytest.approx(exp(-2.0), rel=1e-6)
    home, draw, away = outcome_probabilities(grid)
    assert home == pytest.approx(away)
    assert draw == pytest.approx(sum(exp(-2.0) / factorial(k) ** 2 for k in range(11)), rel=1e-6)


def test_dixon_coles_tau_hand_worked():
    tau = dixon_coles_tau(1.2, 0.8, -0.1)
    assert tau[0, 0] == pytest.approx(1 + 1.2 * 0.8 * 0.1)
    assert tau[0, 1] == pytest.approx(1 - 1.2 * 0.1)
    assert tau[1, 0] == pytest.approx(1 - 0.8 * 0.1)
    assert tau[1, 1] == pytest.approx(1.1)
    assert tau[2, 2] == 1.0
    # a negative rho moves mass onto 0-0 and 1-1: more draws than plain Poisson
    assert outcome_probabilities(score_grid(1.2, 0.8, -0.1))[1] > outcome_probabilities(score_grid(1.2, 0.8))[1]


def test_top_scores_and_expected_goals_come_from_the_grid():
    grid = score_grid(2.0, 0.5)
    best = top_scores(grid, 3)
    assert best[0][:2] == (2, 0) or best[0][:2] == (1, 0)
    assert best[0][2] == pytest.approx(grid.max())
    xh, xa = expected_goals(grid)
    assert xh == pytest.approx(2.0, abs=1e-3) and xa == pytest.approx(0.5, abs=1e-3)


def test_knockout_odds_hand_worked_for_equal_teams():
    grid = score_grid(1.0, 1.0)
    ko = knockout_odds(grid, 1.0, 1.0, extra_time=True)
    _, draw90, _ = outcome_probabilities(grid)
    et_draw = outcome_probabilities(score_grid(1 / 3, 1 / 3))[1]
    assert ko.draw_full == pytest.approx(draw90 * et_draw)
    assert ko.home_advances == pytest.approx(0.5)
    assert ko.home_full + ko.draw_full + ko.away_full == pytest.approx(1.0)
    assert ko.full_grid.sum() == pytest.approx(1.0, abs=1e-6)
    # after extra time the level scores are rarer than after 90 minutes
    assert np.trace(ko.full_grid) == pytest.approx(ko.draw_full, abs=1e-6)


def test_a_stage_without_extra_time_goes_from_90_minutes_straight_to_penalties():
    grid = score_grid(1.4, 0.9)
    home90, draw90, away90 = outcome_probabilities(grid)
    ko = knockout_odds(grid, 1.4, 0.9, extra_time=False)
    assert (ko.home_full, ko.draw_full, ko.away_full) == pytest.approx((home90, draw90, away90))
    assert ko.home_advances == pytest.approx(home90 + 0.5 * draw90)  # the shoot-out a coin
    assert np.allclose(ko.full_grid, grid)
    played = knockout_odds(grid, 1.4, 0.9, extra_time=True)
    assert played.draw_full < ko.draw_full and played.home_advances > ko.home_advances  # extra time favours the stronger


@settings(max_examples=60, deadline=None)
@given(st.floats(0.1, 4.0), st.floats(0.1, 4.0), st.floats(-0.15, 0.15))
def test_grid_invariants(rate_home, rate_away, rho):
    grid = score_grid(rate_home, rate_away, rho)
    assert grid.sum() == pytest.approx(1.0)
    assert (grid >= 0).all()
    probs = outcome_probabilities(grid)
    assert sum(probs) == pytest.approx(1.0)
    stronger = outcome_probabilities(score_grid(rate_home * 1.2, rate_away, rho))
    assert stronger[0] >= probs[0] - 1e-12  # more home goals never lowers the home-win chance
    ko = knockout_odds(grid, rate_home, rate_away, extra_time=True)
    assert probs[0] <= ko.home_advances <= probs[0] + probs[1] + 1e-12


def test_elo_update_hand_worked():
    table = build_table([(date(2020, 1, 1), "a", "b", 1, 0, False, 20.0), (date(2020, 2, 1), "a", "b", 4, 0, True, 60.0)])
    history = elo_history(table)
    expected = 1 / (10 ** (-100 / 400) + 1)  # equal ratings, home advantage 100
    change = 20 * 1.0 * (1 - expected)
    assert history.rating(0, date(2020, 1, 2))[0] == pytest.approx(1500 + change)
    assert history.rating(1, date(2020, 1, 2))[0] == pytest.approx(1500 - change)
    # rating as of the match day itself excludes that day's match
    assert history.rating(0, date(2020, 1, 1)) == (1500.0, 0)
    assert goal_multiplier(np.array([0, 1, 2, 3, 5])).tolist() == [1.0, 1.0, 1.5, 14 / 8, 16 / 8]
    assert tournament_k("FIFA World Cup") == 60 and tournament_k("Friendly") == 20
    assert tournament_k("UEFA Euro qualification") == 40


def test_elo_goal_model_matches_scipy_poisson_regression():
    from scipy.optimize import minimize

    rng = np.random.default_rng(1)
    rows = []
    strengths = rng.normal(0, 0.4, 12)
    start = date(2018, 1, 1)
    for k in range(800):
        h, a = rng.choice(12, 2, replace=False)
        rows.append((start + timedelta(days=k), f"t{h}", f"t{a}", int(rng.poisson(np.exp(0.2 + strengths[h] - strengths[a]))),
                     int(rng.poisson(np.exp(0.2 + strengths[a] - strengths[h]))), bool(k % 2), 30.0))
    history = elo_history(build_table(rows))
    when = start + timedelta(days=900)
    a_hat, b_hat, n = fit_goal_model(history, when, window_years=10, prior_weight=0.0)
    x = (history.pre_home - history.pre_away + np.where(history.table.neutral, 0, 100)) / 400
    xs = np.concatenate([x, -x])
    ys = np.concatenate([history.table.home_goals, history.table.away_goals])

    def nll(theta):
        eta = theta[0] + theta[1] * xs
        return -(ys * eta - np.exp(eta)).sum()

    ref = minimize(nll, np.zeros(2), method="BFGS")
    assert n == 800
    assert (a_hat, b_hat) == pytest.approx(tuple(ref.x), abs=1e-4)


def _synthetic_league(seed: int, teams: int = 8, rounds: int = 6):
    rng = np.random.default_rng(seed)
    att, dfn = rng.normal(0, 0.3, teams), rng.normal(0, 0.3, teams)
    rows, day = [], date(2024, 8, 1)
    for _ in range(rounds):
        for h in range(teams):
            for a in range(teams):
                if h != a:
                    lam, mu = np.exp(0.1 + 0.25 + att[h] - dfn[a]), np.exp(0.1 + att[a] - dfn[h])
                    rows.append((day, f"t{h}", f"t{a}", int(rng.poisson(lam)), int(rng.poisson(mu)), False, 20.0))
        day += timedelta(days=7)
    return build_table(rows), day


def test_dixon_coles_fit_reaches_the_scipy_maximum_likelihood():
    """Independent route: maximise the same weighted DC likelihood with scipy over all parameters."""
    from scipy.optimize import minimize

    table, end = _synthetic_league(7)
    fit = fit_dixon_coles(table, end, xi=0.0, window_years=5, shrink=0.0, sweeps=300, friendly_weight=1.0)
    n = len(table.teams)
    h, a = table.home, table.away
    hg, ag = table.home_goals.astype(float), table.away_goals.astype(float)
    w = np.ones(len(table))

    def nll(theta):
        att = np.concatenate([[0.0], theta[:n - 1]])
        dfn = np.concatenate([[0.0], theta[n - 1:2 * n - 2]])
        mu, home, rho = theta[2 * n - 2:]
        lam, mua = np.exp(mu + home + att[h] - dfn[a]), np.exp(mu - home + att[a] - dfn[h])
        value = dc_log_likelihood(hg, ag, lam, mua, rho, w)
        return 1e9 if not np.isfinite(value) else -value

    ref = minimize(nll, np.zeros(2 * n + 1), method="L-BFGS-B")
    assert fit.log_likelihood == pytest.approx(-ref.fun, abs=0.05)
    assert fit.log_likelihood >= -ref.fun - 0.05
    # the predictions agree, not only the likelihood
    att = np.concatenate([[0.0], ref.x[:n - 1]])
    dfn = np.concatenate([[0.0], ref.x[n - 1:2 * n - 2]])
    mu, home, rho = ref.x[2 * n - 2:]
    ref_grid = score_grid(np.exp(mu + home + att[1] - dfn[2]), np.exp(mu - home + att[2] - dfn[1]), rho)
    ours = fit.grid(*fit.rates(1, 2, 1))
    assert np.array(outcome_probabilities(ours)) == pytest.approx(np.array(outcome_probabilities(ref_grid)), abs=0.01)


def test_dixon_coles_fit_is_deterministic_and_ignores_later_rows():
    table, end = _synthetic_league(3)
    first = fit_dixon_coles(table, end - timedelta(days=14))
    again = fit_dixon_coles(table, end - timedelta(days=14))
    assert first.log_likelihood == again.log_likelihood
    assert np.array_equal(first.attack, again.attack)
    # scramble every result dated on or after the request day: the fit does not move
    cut = int(np.searchsorted(table.day, table.day[-1] - 13))
    scrambled_goals = table.home_goals.copy()
    scrambled_goals[cut:] = 9
    changed = table.__class__(table.teams, table.day, table.home, table.away, scrambled_goals, table.away_goals,
                              table.neutral, table.k_factor)
    later = fit_dixon_coles(changed, end - timedelta(days=14))
    assert np.array_equal(first.attack, later.attack) and first.rho == later.rho


def test_results_csv_errors_name_the_line():
    text = "date,home_team,away_team,home_score,away_score,tournament,city,country,neutral\n" \
           "2020-01-01,A,B,1,0,Friendly,X,Y,FALSE\n2020-13-01,A,B,1,0,Friendly,X,Y,FALSE\n"
    with pytest.raises(SourceError, match="line 3"):
        parse_results_csv(text)
    ok = parse_results_csv(text.splitlines()[0] + "\n2020-01-01,A,B,NA,NA,Friendly,X,Y,FALSE\n")
    assert len(ok) == 0


def test_fits_on_no_results_give_even_forecasts():
    from collector.forecasters.baselines.results import build_table

    empty = build_table([])
    fit = fit_dixon_coles(empty, date(2025, 8, 15))
    assert fit.rows == 0 and fit.rates(None, None, 0)[0] == pytest.approx(fit.rates(None, None, 0)[1])
    history = elo_history(empty)
    assert history.rating(None, date(2025, 8, 15)) == (1500.0, 0)
    a, b, rows = fit_goal_model(history, date(2025, 8, 15))
    assert rows == 0 and (a, b) == pytest.approx((np.log(1.3), 0.9))  # the prior
