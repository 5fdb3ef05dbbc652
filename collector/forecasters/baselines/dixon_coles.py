"""``dixon_coles``: time-weighted Poisson with the low-score correction (Dixon & Coles 1997).

Model: home goals ~ Pois(l), away goals ~ Pois(m), l = exp(mu + h*e + att_i - def_j),
m = exp(mu - h*e + att_j - def_i) with e = venue edge (+1, 0, -1), joint probability
tau(x, y; l, m, rho) * Pois(x; l) * Pois(y; m) (tau in ``scoregrid.dixon_coles_tau``).
Each match is weighted by phi(t) = exp(-xi * days before the request date) (DC section 4.5).
Fit by maximum likelihood in two blocks, repeated: the rate parameters by Maher's closed-form
fixed-point updates of the weighted Poisson likelihood, exp(att_i) = (S_i + p) / (E_i + p)
with S_i the weighted goals scored and E_i those expected at att_i = 0 (p = ``shrink`` x mean
goals: a gamma prior of mean 1, the posterior mode; p = 0 is plain maximum likelihood; it
keeps teams with few matches finite), likewise for defence, then rho by golden-section
search on the full DC likelihood. Only rows dated strictly before the
request date enter the fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np

from .results import ResultTable, day_number
from .scoregrid import score_grid

XI = 0.001  # per day: half-life about 1.9 years (chosen on pre-2026 tournaments)
WINDOW_YEARS = 10.0
FRIENDLY_WEIGHT = 0.5  # friendlies count half (chosen on pre-2026 tournaments)
SHRINK = {"international": 0.1, "league": 3.0}  # pseudo-matches of average goals (see fit_dixon_coles)


@dataclass(frozen=True)
class DixonColesFit:
    """Fitted parameters as of one request date."""

    when: date
    mu: float
    home: float
    rho: float
    attack: np.ndarray
    defence: np.ndarray
    played: np.ndarray  # weighted match count per team
    rows: int
    log_likelihood: float

    def rates(self, home: int | None, away: int | None, edge: int) -> tuple[float, float]:
        ah = self.attack[home] if home is not None else 0.0
        dh = self.defence[home] if home is not None else 0.0
        aa = self.attack[away] if away is not None else 0.0
        da = self.defence[away] if away is not None else 0.0
        return (
            float(np.exp(self.mu + self.home * edge + ah - da)),
            float(np.exp(self.mu - self.home * edge + aa - dh)),
        )

    def grid(self, rate_home: float, rate_away: float) -> np.ndarray:
        return score_grid(rate_home, rate_away, self.rho)


def dc_log_likelihood(
    hg: np.ndarray, ag: np.ndarray, lam: np.ndarray, mu: np.ndarray, rho: float, weight: np.ndarray
) -> float:
    """sum_k w_k [log tau(x_k, y_k) + x_k log l_k - l_k + y_k log m_k - m_k] (constants dropped)."""
    tau = np.ones_like(lam)
    tau = np.where((hg == 0) & (ag == 0), 1.0 - lam * mu * rho, tau)
    tau = np.where((hg == 0) & (ag == 1), 1.0 + lam * rho, tau)
    tau = np.where((hg == 1) & (ag == 0), 1.0 + mu * rho, tau)
    tau = np.where((hg == 1) & (ag == 1), 1.0 - rho, tau)
    if np.any(tau <= 0):
        return -np.inf
    return float(np.sum(weight * (np.log(tau) + hg * np.log(lam) - lam + ag * np.log(mu) - mu)))


def _golden(f, lo: float, hi: float, iterations: int = 40) -> float:
    ratio = (np.sqrt(5.0) - 1.0) / 2.0
    a, b = lo, hi
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iterations):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = f(d)
    return (a + b) / 2.0


def _home_step(e, w, hg, ag, lam, mu_a) -> float:
    """Fixed-point step for the home-advantage parameter: half the log ratio of observed to expected
    goal ratios of the side at home (edge != 0 rows only)."""
    on = e != 0
    if not np.any(on):
        return 0.0
    at_home, away_side = e[on] > 0, e[on] < 0
    num = np.sum(w[on] * (hg[on] * at_home + ag[on] * away_side))
    den = np.sum(w[on] * (lam[on] * at_home + mu_a[on] * away_side))
    num2 = np.sum(w[on] * (ag[on] * at_home + hg[on] * away_side))
    den2 = np.sum(w[on] * (mu_a[on] * at_home + lam[on] * away_side))
    if num <= 0 or num2 <= 0:
        return 0.0
    return 0.5 * (np.log(num / den) - np.log(num2 / den2))


def fit_dixon_coles(
    table: ResultTable,
    when: date,
    edge: np.ndarray | None = None,
    xi: float = XI,
    window_years: float = WINDOW_YEARS,
    shrink: float = SHRINK["international"],
    sweeps: int = 60,
    friendly_weight: float = FRIENDLY_WEIGHT,
) -> DixonColesFit:
    """Fit on rows dated in [when - window, when); ``edge`` per row (+1 home, 0 neutral) defaults to not neutral."""
    today = day_number(when)
    end = int(np.searchsorted(table.day, today, side="left"))
    start = int(np.searchsorted(table.day, today - int(window_years * 365.25), side="left"))
    n_teams = len(table.teams)
    h, a = table.home[start:end], table.away[start:end]
    hg, ag = table.home_goals[start:end].astype(float), table.away_goals[start:end].astype(float)
    e = (~table.neutral[start:end]).astype(float) if edge is None else edge[start:end]
    w = np.exp(-xi * (today - table.day[start:end]))
    w = w * np.where(table.k_factor[start:end] <= 20.0, friendly_weight, 1.0)
    att, dfn = np.zeros(n_teams), np.zeros(n_teams)
    if end == start:  # nothing known yet: every team average, no home advantage learnt
        return DixonColesFit(when, float(np.log(1.3)), 0.25, 0.0, att, dfn, np.zeros(n_teams), 0, 0.0)
    mean_goals = float(np.sum(w * (hg + ag)) / max(2 * np.sum(w), 1e-9)) if end > start else 1.3
    mu, home, rho = np.log(max(mean_goals, 0.1)), 0.25, 0.0
    played = np.bincount(h, w, n_teams) + np.bincount(a, w, n_teams)
    prior = shrink * mean_goals
    scored = np.bincount(h, w * hg, n_teams) + np.bincount(a, w * ag, n_teams)
    conceded = np.bincount(h, w * ag, n_teams) + np.bincount(a, w * hg, n_teams)
    for sweep in range(sweeps):
        lam = np.exp(mu + home * e + att[h] - dfn[a])
        mu_a = np.exp(mu - home * e + att[a] - dfn[h])
        exp_for = np.bincount(h, w * lam, n_teams) + np.bincount(a, w * mu_a, n_teams)
        att = np.log((scored + prior) / (exp_for * np.exp(-att) + prior))  # gamma-prior MAP step
        att -= np.average(att, weights=played + 1e-9)
        lam = np.exp(mu + home * e + att[h] - dfn[a])
        mu_a = np.exp(mu - home * e + att[a] - dfn[h])
        exp_against = np.bincount(h, w * mu_a, n_teams) + np.bincount(a, w * lam, n_teams)
        dfn = -np.log((conceded + prior) / (exp_against * np.exp(dfn) + prior))
        dfn -= np.average(dfn, weights=played + 1e-9)
        lam = np.exp(mu + home * e + att[h] - dfn[a])
        mu_a = np.exp(mu - home * e + att[a] - dfn[h])
        total = np.sum(w * (hg + ag)) / max(np.sum(w * (lam + mu_a)), 1e-12)
        mu += np.log(max(total, 1e-12))
        lam, mu_a = lam * total, mu_a * total
        home += _home_step(e, w, hg, ag, lam, mu_a)
        if sweep % 10 == 9 or sweep == sweeps - 1:
            lam = np.exp(mu + home * e + att[h] - dfn[a])
            mu_a = np.exp(mu - home * e + att[a] - dfn[h])
            rho = _golden(lambda r: dc_log_likelihood(hg, ag, lam, mu_a, r, w), -0.2, 0.2)
    lam = np.exp(mu + home * e + att[h] - dfn[a])
    mu_a = np.exp(mu - home * e + att[a] - dfn[h])
    ll = dc_log_likelihood(hg, ag, lam, mu_a, rho, w)
    return DixonColesFit(when, float(mu), float(home), float(rho), att, dfn, played, end - start, ll)


from .base import BaselineForecaster, Source  # noqa: E402
from .common import MatchView  # noqa: E402


class DixonColesForecaster(BaselineForecaster):
    name = "dixon_coles"

    def fit(self, source: Source, when: date) -> DixonColesFit:
        return fit_dixon_coles(source.table, when, shrink=SHRINK[source.kind])

    def view(self, source: Source, fit: DixonColesFit, home: str, away: str, edge: int) -> MatchView:
        h, a = source.team(home), source.team(away)
        rate_home, rate_away = fit.rates(h, a, edge)
        played = [round(float(fit.played[i]), 2) if i is not None else 0.0 for i in (h, a)]
        through = source.table.before(fit.when).last_day()
        return MatchView(
            grid=fit.grid(rate_home, rate_away),
            rate_home=rate_home,
            rate_away=rate_away,
            reason=(
                f"Dixon-Coles rates {rate_home:.2f} v {rate_away:.2f} (rho {fit.rho:.3f}) fitted on {fit.rows} "
                f"{source.label} matches through {through}, half-life {np.log(2) / XI:.0f} days."
            ),
            inputs={"source": source.label, "fitted_through": through.isoformat() if through else None,
                    "matches_used": fit.rows, "rho": round(fit.rho, 5), "home": round(fit.home, 5),
                    "weighted_matches": {"home": played[0], "away": played[1]}, "xi_per_day": XI},
        )
