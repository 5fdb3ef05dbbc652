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
"""

from __future__ import annotations

import numpy as np

from .margin import remove_margin


def consensus_probabilities(odds, method: str = "proportional") -> np.ndarray:
    """Median across bookmakers (rows) of each bookmaker's margin-free probabilities, renormalised."""
    odds = np.asarray(odds, dtype=float)
    if odds.ndim != 2 or odds.shape[0] < 1:
        raise ValueError(f"expected one row of odds per bookmaker, got shape {odds.shape}")
    fair = np.vstack([remove_margin(row, method) for row in odds])
    median = np.median(fair, axis=0)
    return median / median.sum()


def buy_odds(odds) -> np.ndarray:
    """Median quoted decimal odds per outcome across bookmakers (the price a bettor meets, margin kept)."""
    odds = np.asarray(odds, dtype=float)
    if odds.ndim != 2 or odds.shape[0] < 1 or np.any(odds <= 1.0) or not np.all(np.isfinite(odds)):
        raise ValueError(f"expected decimal odds > 1, one row per bookmaker, got {odds.tolist()}")
    return np.median(odds, axis=0)
