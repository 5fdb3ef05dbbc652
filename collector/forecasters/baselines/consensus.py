"""Bookmaker consensus: per-bookmaker margin removal, then the median across bookmakers.

LLM-SoccerArena App. E (seeds/000, eqs. 2-3): for match m, bookmaker b and outcome k with
decimal odds o_mbk > 1,

    p_fair_mbk = (1 / o_mbk) / sum_j (1 / o_mbj)          (margin removed within each bookmaker)
    p~_mk      = median_b p_fair_mbk                       (cross-bookmaker median per outcome)
    p_mk       = p~_mk / sum_j p~_mj                       (renormalised)

``proportional`` is eq. 2; ``power`` and ``shin`` replace it by those margin-removal methods
(:mod:`collector.forecasters.baselines.margin`), the median and renormalisation are the same.
The price a bettor pays is a separate fact: :func:`buy_odds` is the median *quoted* decimal
odds per outcome (margin included), recorded beside the forecast for the return.

:func:`consensus_inputs` is what every ``market`` record (live snapshots, replayed CSV or The
Odds API files) says about its consensus, so the routes cannot drift apart: the method, the
number of books, the median quoted odds and the spread, max minus min across books of each
outcome's margin-free probability (how much the books disagree; 0 with one book).
"""

from __future__ import annotations

import numpy as np

from .margin import remove_margin

AGGREGATION = "median across books of per-book margin-free probabilities, renormalised (LLM-SoccerArena App. E)"
SPREAD = "max - min across books of each outcome's margin-free probability (home, draw, away)"


def consensus_probabilities(odds, method: str = "proportional") -> np.ndarray:
    """Median across bookmakers (rows) of each bookmaker's margin-free probabilities, renormalised."""
    return _median(fair_by_book(odds, method))


def _median(fair: np.ndarray) -> np.ndarray:
    """The median of the books' margin-free probabilities per outcome, renormalised to sum to 1."""
    median = np.median(fair, axis=0)
    return median / median.sum()


def fair_by_book(odds, method: str = "proportional") -> np.ndarray:
    """Each bookmaker's (row's) margin-free probabilities, one row per bookmaker."""
    odds = np.asarray(odds, dtype=float)
    if odds.ndim != 2 or odds.shape[0] < 1:
        raise ValueError(f"expected one row of odds per bookmaker, got shape {odds.shape}")
    return np.vstack([remove_margin(row, method) for row in odds])


def buy_odds(odds) -> np.ndarray:
    """Median quoted decimal odds per outcome across bookmakers (the price a bettor meets, margin kept)."""
    odds = np.asarray(odds, dtype=float)
    if odds.ndim != 2 or odds.shape[0] < 1 or np.any(odds <= 1.0) or not np.all(np.isfinite(odds)):
        raise ValueError(f"expected decimal odds > 1, one row per bookmaker, got {odds.tolist()}")
    return np.median(odds, axis=0)


def consensus_inputs(odds, method: str = "proportional") -> tuple[tuple[float, float, float], dict]:
    """The consensus probabilities and the record fields describing them (``inputs`` of a market forecast).

    ``books`` the number of bookmakers, ``buy_odds`` the median quoted odds (the builder's price
    for the return), ``spread`` per outcome (home, draw, away) max - min of the books' margin-free
    probabilities."""
    fair = fair_by_book(odds, method)
    probs = tuple(float(p) for p in _median(fair))
    inputs = {
        "margin_method": method, "aggregation": AGGREGATION, "books": int(fair.shape[0]),
        "buy_odds": [round(float(o), 6) for o in buy_odds(odds)],
        "buy_price": "median quoted decimal odds across books (margin included)",
        "spread": [round(float(s), 6) for s in fair.max(axis=0) - fair.min(axis=0)], "spread_of": SPREAD,
    }  # fmt: skip
    return probs, inputs
