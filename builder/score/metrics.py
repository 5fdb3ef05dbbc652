"""Per-forecast measures of a match forecast on the 90-minute outcome (and advancement).

Every function is pure and numpy-vectorised: arrays of shape ``(n, 3)`` hold home/draw/away
probabilities, ``y`` holds the realised class index (0 home, 1 draw, 2 away), and score
arrays hold goals. Each returns one value per forecast; means are taken by the caller.

Sources: LLM-SoccerArena (seeds/000) §4.1 and Table 5; WorldCupArena (seeds/001) §4.1 eq. (1)
and §4.2 eq. (3). Choices where the papers are silent are marked "Choice:".
"""

from __future__ import annotations

import numpy as np

HOME, DRAW, AWAY = 0, 1, 2
CLASSES = ("home", "draw", "away")

LOG_LOSS_FLOOR = 1e-6
"""Choice: probabilities are clipped to [1e-6, 1] before the log, so one forecast's log loss
is at most -ln(1e-6) = 13.8 nats. The papers do not state a floor; without one a single
stated 0 on the realised class would make a forecaster's mean infinite."""

TIE_TOLERANCE = 1e-9
"""Probabilities within this distance of the maximum count as tied for the modal class."""


def one_hot(y: np.ndarray, classes: int = 3) -> np.ndarray:
    """Indicator matrix ``Y[i, c] = 1`` if ``y[i] == c``."""
    y = np.asarray(y, dtype=np.intp)
    return (y[:, None] == np.arange(classes)[None, :]).astype(float)


def result_class(home_goals: np.ndarray, away_goals: np.ndarray) -> np.ndarray:
    """H/D/A class index of a score: 0 home win, 1 draw, 2 away win."""
    diff = np.asarray(home_goals) - np.asarray(away_goals)
    return np.where(diff > 0, HOME, np.where(diff == 0, DRAW, AWAY)).astype(np.intp)


def brier_score_hda(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Unscaled multiclass Brier score: BS_i = sum_c (p_ic - y_ic)^2, in [0, 2].

    A uniform forecast scores 2/3; a perfect one 0. Source: seeds/000 §4.1 and Table 5
    ("unscaled three-class Brier score"); Brier (1950).
    """
    p = np.asarray(p, dtype=float)
    return np.sum((p - one_hot(y, p.shape[1])) ** 2, axis=1)


def log_loss_hda(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Log loss: LL_i = -ln max(p_{i,Y_i}, 1e-6), in nats. Source: seeds/000 §4.1, Table 5.

    Clipping: see :data:`LOG_LOSS_FLOOR`.
    """
    p = np.asarray(p, dtype=float)
    realised = p[np.arange(len(p)), np.asarray(y, dtype=np.intp)]
    return -np.log(np.clip(realised, LOG_LOSS_FLOOR, 1.0))


def rps_hda(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Ranked probability score over the ordered classes home < draw < away.

    RPS_i = 1/(r-1) * sum_{k=1}^{r-1} (P_ik - O_ik)^2 with cumulative forecast P and
    cumulative outcome O, r = 3 (Epstein 1969; used in seeds/000 App. C, Figure 16).
    """
    p = np.asarray(p, dtype=float)
    cum_p = np.cumsum(p, axis=1)[:, :-1]
    cum_o = np.cumsum(one_hot(y, p.shape[1]), axis=1)[:, :-1]
    return np.sum((cum_p - cum_o) ** 2, axis=1) / (p.shape[1] - 1)


def modal_set(p: np.ndarray) -> np.ndarray:
    """Boolean matrix marking the classes that share the maximum probability."""
    p = np.asarray(p, dtype=float)
    return p >= p.max(axis=1, keepdims=True) - TIE_TOLERANCE


def accuracy_hda(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Modal accuracy with tie credit: 1/k if the realised class is one of k modal classes.

    Source: seeds/000 Table 5 ("If k classes share the maximum, each receives credit 1/k").
    """
    modal = modal_set(p)
    hit = modal[np.arange(len(modal)), np.asarray(y, dtype=np.intp)]
    return hit / modal.sum(axis=1)


def exact_scoreline(ph: np.ndarray, pa: np.ndarray, h: np.ndarray, a: np.ndarray) -> np.ndarray:
    """1 if the predicted 90-minute score equals the real one, else 0. Source: seeds/000 Table 5."""
    return ((np.asarray(ph) == h) & (np.asarray(pa) == a)).astype(float)


def goal_difference_scoreline(ph: np.ndarray, pa: np.ndarray, h: np.ndarray, a: np.ndarray) -> np.ndarray:
    """1 if the predicted signed goal difference is right (h - a), else 0. Source: seeds/000 Table 5."""
    return ((np.asarray(ph) - pa) == (np.asarray(h) - a)).astype(float)


def tendency_scoreline(ph: np.ndarray, pa: np.ndarray, h: np.ndarray, a: np.ndarray) -> np.ndarray:
    """1 if the scoreline's H/D/A tendency matches the result, else 0. Source: seeds/000 Table 5."""
    return (result_class(ph, pa) == result_class(h, a)).astype(float)


def absolute_errors_scoreline(
    ph: np.ndarray, pa: np.ndarray, h: np.ndarray, a: np.ndarray
) -> dict[str, np.ndarray]:
    """Absolute errors of home goals, away goals, total goals and goal difference.

    |ph - h|, |pa - a|, |(ph + pa) - (h + a)|, |(ph - pa) - (h - a)|. Source: seeds/000 Table 5.
    """
    ph, pa, h, a = (np.asarray(v, dtype=float) for v in (ph, pa, h, a))
    return {
        "abs_home_goals": np.abs(ph - h),
        "abs_away_goals": np.abs(pa - a),
        "abs_total_goals": np.abs((ph + pa) - (h + a)),
        "abs_goal_difference": np.abs((ph - pa) - (h - a)),
    }


def points_scoreline(ph: np.ndarray, pa: np.ndarray, h: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Game-style points: 5 exact score, else 2 correct goal difference, else 1 tendency, else 0.

    The categories are mutually exclusive (a correct goal difference that is not exact scores 2).
    Source: seeds/000 Table 5 ("Scoring System points").
    """
    exact = exact_scoreline(ph, pa, h, a)
    diff = goal_difference_scoreline(ph, pa, h, a)
    tend = tendency_scoreline(ph, pa, h, a)
    return np.where(exact == 1, 5.0, np.where(diff == 1, 2.0, np.where(tend == 1, 1.0, 0.0)))


def partial_credit_scoreline(ph: np.ndarray, pa: np.ndarray, h: np.ndarray, a: np.ndarray) -> np.ndarray:
    """WorldCupArena scoreline score in [0, 100]: 100 if exact, otherwise

    S = 45 I_r + 25 [1 - e_d/5]_+ + 20 [1 - e_t/6]_+ + 10 [1 - e_team/8]_+

    with I_r the correct result class, e_d the goal-difference error, e_t the total-goals
    error. Source: seeds/001 §4.1 eq. (1).

    ``e_team`` is a *Prematch reading of an undefined term*: the paper names it the error in
    "team-wise goals" and gives no formula; we read it as |ph - h| + |pa - a| (the two teams'
    goal errors summed, so the 8-goal cap covers both sides). Another reading (the mean, or
    the larger of the two errors) would change partial credit; this one is fixed here.

    The same function serves both bases: pass the 90-minute score (``scoreline_90``, the
    basis LLM-SoccerArena's measures use) or the score WorldCupArena publishes, which counts
    extra-time goals in knockouts (``scoreline_wca``, see :func:`published_score`).
    """
    err = absolute_errors_scoreline(ph, pa, h, a)
    e_team = err["abs_home_goals"] + err["abs_away_goals"]
    partial = (
        45.0 * tendency_scoreline(ph, pa, h, a)
        + 25.0 * np.clip(1.0 - err["abs_goal_difference"] / 5.0, 0.0, None)
        + 20.0 * np.clip(1.0 - err["abs_total_goals"] / 6.0, 0.0, None)
        + 10.0 * np.clip(1.0 - e_team / 8.0, 0.0, None)
    )
    return np.where(exact_scoreline(ph, pa, h, a) == 1, 100.0, partial)


def published_score(h90: np.ndarray, a90: np.ndarray, h_et: np.ndarray, a_et: np.ndarray,
                    extra_time: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The score WorldCupArena scores against: the cumulative score after extra time when extra
    time was played, else the 90-minute score; never the shoot-out (seeds/001 §5.1: "For matches
    that go to extra time, we follow the existing convention and include extra-time goals")."""
    extra_time = np.asarray(extra_time, dtype=bool)
    return np.where(extra_time, h_et, h90), np.where(extra_time, a_et, a90)


def result_accuracy_wca(p: np.ndarray, home_goals: np.ndarray, away_goals: np.ndarray) -> np.ndarray:
    """WorldCupArena result accuracy (seeds/001 §4.1): whether the most probable home/draw/away
    outcome is the result of the *published* score (extra-time goals included, shoot-out not).

    Choice: tied most probable outcomes share the credit, 1/k each (the paper does not say; its
    human-fan baseline splits ties the same way, §5.1).
    """
    return accuracy_hda(p, result_class(home_goals, away_goals))


def exact_wca(ph: np.ndarray, pa: np.ndarray, home_goals: np.ndarray, away_goals: np.ndarray) -> np.ndarray:
    """WorldCupArena exact-score accuracy: the predicted score equals the published score
    (extra-time goals included for knockouts; seeds/001 §4.1, §5.1)."""
    return exact_scoreline(ph, pa, home_goals, away_goals)


def goal_difference_error(ph: np.ndarray, pa: np.ndarray, h: np.ndarray, a: np.ndarray) -> np.ndarray:
    """e_d = |(ph - pa) - (h - a)|, the goal-difference error of WorldCupArena eq. (1); with the
    published score it is the basis of the T1 goal-difference task (builder/score/paper_tables.py)."""
    return np.abs((np.asarray(ph, dtype=float) - pa) - (np.asarray(h, dtype=float) - a))


def brier_score_pa(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Prophet Arena Brier score of one event with m markets (seeds/002 §3.1.1 eq. 1):
    BS_i = (1/m) sum_j (p_ij - o_ij)^2. The H/D/A event is m = 3 binary markets, so
    BS_PA = BS_LSA / 3, in [0, 2/3]; a uniform forecast scores 2/9."""
    p = np.asarray(p, dtype=float)
    return brier_score_hda(p, y) / p.shape[1]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def display_calibration(raw: np.ndarray, center: float = 50.0, temperature: float = 5.0) -> np.ndarray:
    """WorldCupArena's fixed S-shaped display transform of a 0-100 score:

    C(R) = 100 (s((R - c)/t) - s(-c/t)) / (s((100 - c)/t) - s(-c/t)), s the logistic function.

    With c = 50, t = 5 (the overall score) this is eq. (3) of seeds/001 §4.2: C(44) = 23.15,
    C(47) = 35.43, C(0) = 0, C(100) = 100. The mean scoreline score is displayed with
    c = 70, t = 5 (seeds/001 §4.1). Monotone, so it never changes a ranking.
    """
    raw = np.asarray(raw, dtype=float)
    low, high = _sigmoid(np.float64(-center / temperature)), _sigmoid(np.float64((100 - center) / temperature))
    return 100.0 * (_sigmoid((raw - center) / temperature) - low) / (high - low)


def scoreline_display(raw: np.ndarray) -> np.ndarray:
    """Display value of a mean scoreline score: C(R) with center 70, temperature 5 (seeds/001 §4.1)."""
    return display_calibration(raw, center=70.0, temperature=5.0)


def brier_score_advancement(p_home: np.ndarray, home_advanced: np.ndarray) -> np.ndarray:
    """Two-class unscaled Brier score of advancing: (p - y)^2 + ((1-p) - (1-y))^2 = 2 (p - y)^2.

    Source: seeds/000 Table 5 ("analogous two-class scores for advancement forecasts").
    """
    return 2.0 * (np.asarray(p_home, dtype=float) - np.asarray(home_advanced, dtype=float)) ** 2


def log_loss_advancement(p_home: np.ndarray, home_advanced: np.ndarray) -> np.ndarray:
    """-ln of the probability given to the team that advanced, clipped at 1e-6 (seeds/000 Table 5)."""
    p_home = np.asarray(p_home, dtype=float)
    realised = np.where(np.asarray(home_advanced, dtype=bool), p_home, 1.0 - p_home)
    return -np.log(np.clip(realised, LOG_LOSS_FLOOR, 1.0))


def accuracy_advancement(p_home: np.ndarray, home_advanced: np.ndarray) -> np.ndarray:
    """1 if the larger advancement probability names the team that advanced; 1/2 on a tie.

    Source: seeds/000 Table 5 ("Advancement uses the larger of the two advancement probabilities").
    """
    p_home = np.asarray(p_home, dtype=float)
    advanced = np.asarray(home_advanced, dtype=bool)
    tie = np.abs(p_home - 0.5) <= TIE_TOLERANCE
    right = np.where(advanced, p_home > 0.5, p_home < 0.5)
    return np.where(tie, 0.5, right.astype(float))


def agreement_scoreline(p: np.ndarray, ph: np.ndarray, pa: np.ndarray) -> np.ndarray:
    """Score-probability agreement: 1 if the most likely scoreline's H/D/A tendency is one of the
    classes with the highest stated probability, else 0 (seeds/000 Table 5, App. C Figure 9).

    Choice: with tied modal classes, a scoreline implying any of them agrees.
    """
    implied = result_class(ph, pa)
    return modal_set(p)[np.arange(len(implied)), implied].astype(float)


def mean_goal_distance_scoreline(eh: np.ndarray, ea: np.ndarray, ph: np.ndarray, pa: np.ndarray) -> np.ndarray:
    """Distance between predicted mean goals and the scoreline: |E[h] - ph| + |E[a] - pa| (seeds/000 Table 5)."""
    return np.abs(np.asarray(eh, dtype=float) - ph) + np.abs(np.asarray(ea, dtype=float) - pa)
