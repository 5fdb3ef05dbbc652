"""The competition-level metrics of WorldCupArena §4.3 (T5, eq. 4), small, pure and vectorised.

All scores are on 0..100 like the paper's tables. Notation: a prediction P and the truth T of
one tournament; knockout rounds r = 0..R-1 from the first knockout round to the final.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

T5_WEIGHTS = {"group": 0.25, "knockout": 0.35, "champion": 0.20}
ADVANCEMENT_SHARE = 0.7  # of the knockout part: 0.7 A + 0.3 M
EPSILON = 1e-15


def _ranks(order: Sequence[str], items: Sequence[str]) -> np.ndarray:
    where = {team: i for i, team in enumerate(order)}
    return np.array([where[t] for t in items], dtype=float)


def tau_order(pred: Sequence[str], truth: Sequence[str]) -> float:
    """Kendall's τ = (C − D) / (C + D) over the pairs of teams ranked in both orders (ties: neither)."""
    items = [t for t in truth if t in set(pred)]
    if len(items) < 2:
        return 0.0
    rp, rt = _ranks(pred, items), _ranks(truth, items)
    sign = np.sign(rp[:, None] - rp[None, :]) * np.sign(rt[:, None] - rt[None, :])
    upper = np.triu(sign, k=1)
    concordant, discordant = float((upper > 0).sum()), float((upper < 0).sum())
    total = concordant + discordant
    return 0.0 if total == 0 else (concordant - discordant) / total


def kendall_group_order(pred: Sequence[str], truth: Sequence[str]) -> float:
    """G of one group (§4.3): 100 (τ + 1) / 2, τ the Kendall τ of predicted vs real group order.

    The paper's scaling (its grader ``kendall_tau``): a perfect order scores 100, a reversed one 0.
    """
    return 100.0 * (tau_order(pred, truth) + 1.0) / 2.0


def advancement_round(pred_teams: Collection[str], true_teams: Collection[str]) -> float:
    """A_r (§4.3): 100 |P_r ∩ T_r| / |T_r|, the share of the teams really in round r the forecast put there."""
    truth = set(true_teams)
    return 100.0 * len(set(pred_teams) & truth) / len(truth) if truth else 0.0


def pairing_round(pred_pairs: Collection[frozenset[str]], true_pairs: Collection[frozenset[str]]) -> float:
    """M_r (§4.3): 100 |P_r ∩ T_r| / |T_r| over unordered match-ups {home, away} of round r."""
    truth = set(true_pairs)
    return 100.0 * len(set(pred_pairs) & truth) / len(truth) if truth else 0.0


def round_weights(rounds: int) -> np.ndarray:
    """Weights 1, 2, 4, 8, 16 from the first knockout round to the final (§4.3): w_r = 2^r."""
    return 2.0 ** np.arange(rounds)


def weighted_rounds(scores: Sequence[float], weights: Sequence[float]) -> float:
    """Σ w_r s_r / Σ w_r: the round-weighted A or M over the rounds given."""
    s, w = np.asarray(scores, dtype=float), np.asarray(weights, dtype=float)
    return float((s * w).sum() / w.sum()) if w.size else 0.0


def hit_champion(pred: str | None, truth: str | None) -> float:
    """H (§4.3): 100 when the predicted champion is the real one, else 0."""
    return 100.0 if pred is not None and pred == truth else 0.0


def t5_complete(g: float, a: float, m: float, h: float) -> float:
    """Eq. 4: T5 = (0.25 G + 0.35 (0.7 A + 0.3 M) + 0.20 H) / 0.80."""
    knockout = ADVANCEMENT_SHARE * a + (1 - ADVANCEMENT_SHARE) * m
    return (T5_WEIGHTS["group"] * g + T5_WEIGHTS["knockout"] * knockout + T5_WEIGHTS["champion"] * h) / 0.80


def t5_provisional(g: float | None, a: float | None, m: float | None, h: float | None) -> float | None:
    """Eq. 4 over the components whose truth is known (None: unknown), renormalised by their weights.

    With every component known this is :func:`t5_complete`; before the final H is left out
    (weight 0.20 dropped from the denominator), before the first knockout round A and M too.
    """
    parts = []
    if g is not None:
        parts.append((T5_WEIGHTS["group"], g))
    if a is not None and m is not None:
        parts.append((T5_WEIGHTS["knockout"], ADVANCEMENT_SHARE * a + (1 - ADVANCEMENT_SHARE) * m))
    if h is not None:
        parts.append((T5_WEIGHTS["champion"], h))
    if not parts:
        return None
    w = np.array([p[0] for p in parts])
    v = np.array([p[1] for p in parts])
    return float((w * v).sum() / w.sum())


def brier_reach(probabilities: Sequence[float], reached: Sequence[bool]) -> float:
    """Brier score of reach-round probabilities for one round: mean over teams of (p − y)², y ∈ {0, 1}."""
    p, y = np.asarray(probabilities, dtype=float), np.asarray(reached, dtype=float)
    return float(np.mean((p - y) ** 2))


def logloss_reach(probabilities: Sequence[float], reached: Sequence[bool]) -> float:
    """Log loss of reach-round probabilities: −mean[y ln p + (1 − y) ln(1 − p)], p clipped to [ε, 1 − ε]."""
    p = np.clip(np.asarray(probabilities, dtype=float), EPSILON, 1 - EPSILON)
    y = np.asarray(reached, dtype=float)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def kendall_league_table(pred: Sequence[str], truth: Sequence[str]) -> float:
    """Kendall's τ (−1..1) of a predicted league table against the final one (same teams)."""
    return tau_order(pred, truth)


def spearman_league_table(pred: Sequence[str], truth: Sequence[str]) -> float:
    """Spearman's ρ = 1 − 6 Σ d² / (n (n² − 1)), d the position difference of each team (no ties)."""
    items = list(truth)
    n = len(items)
    if n < 2:
        return 0.0
    d = _ranks(pred, items) - _ranks(truth, items)
    return float(1.0 - 6.0 * (d ** 2).sum() / (n * (n * n - 1)))


def hits_league_places(pred: Collection[str], truth: Collection[str]) -> float:
    """Share (0..1) of the teams really in a set of places (champion, top k, relegation) the table put there."""
    t = set(truth)
    return len(set(pred) & t) / len(t) if t else 0.0
