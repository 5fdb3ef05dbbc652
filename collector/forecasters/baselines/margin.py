"""Bookmaker margin removal: decimal odds -> probabilities that sum to one.

With q_i = 1 / o_i (implied probabilities) and booksum B = sum q_i > 1 (the overround):

- ``proportional``: p_i = q_i / B (the basic normalisation; Štrumbelj 2014 calls it "basic").
- ``power``: p_i = q_i ** k with k > 0 such that sum p_i = 1 (Vovk & Zhdanov 2009; Clarke,
  Kovalchik & Ingram 2017). Long shots lose more probability than favourites.
- ``shin``: Shin (1992, 1993), insider-trading model with insider share z:
  p_i = (sqrt(z**2 + 4 (1 - z) q_i**2 / B) - z) / (2 (1 - z)), z in [0, 1) solved so that
  sum p_i = 1 (Jullien & Salanié 1994; Štrumbelj 2014, eq. 4).

All solvers are bisection on one scalar, vectorised over outcomes; fair odds (B = 1) come
back unchanged under every method.
"""

from __future__ import annotations

import numpy as np

METHODS = ("proportional", "power", "shin")


def implied_probabilities(odds) -> np.ndarray:
    """q_i = 1 / o_i; odds must be finite and > 1."""
    odds = np.asarray(odds, dtype=float)
    if odds.ndim != 1 or odds.size < 2 or not np.all(np.isfinite(odds)) or np.any(odds <= 1.0):
        raise ValueError(f"decimal odds must be > 1 and finite, got {odds.tolist()}")
    return 1.0 / odds


def _bisect(f, lo: float, hi: float, iterations: int = 200) -> float:
    """Root of a monotone f on [lo, hi] by bisection (f(lo) and f(hi) of opposite sign)."""
    f_lo = f(lo)
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        f_mid = f(mid)
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def proportional_margin(odds) -> np.ndarray:
    """p_i = q_i / sum_j q_j."""
    q = implied_probabilities(odds)
    return q / q.sum()


def power_margin(odds) -> np.ndarray:
    """p_i = q_i ** k, k solving sum_i q_i ** k = 1 (k > 1 when B > 1)."""
    q = implied_probabilities(odds)
    if abs(q.sum() - 1.0) < 1e-12:
        return q
    k = _bisect(lambda k: np.sum(q**k) - 1.0, 1e-6, 50.0)
    p = q**k
    return p / p.sum()


def shin_z(odds) -> float:
    """Shin's insider share z for these odds (0 for fair odds)."""
    q = implied_probabilities(odds)
    booksum = q.sum()
    if booksum <= 1.0 + 1e-12:
        return 0.0
    return _bisect(lambda z: np.sum(_shin_p(q, booksum, z)) - 1.0, 0.0, 0.999)


def _shin_p(q: np.ndarray, booksum: float, z: float) -> np.ndarray:
    return (np.sqrt(z**2 + 4.0 * (1.0 - z) * q**2 / booksum) - z) / (2.0 * (1.0 - z))


def shin_margin(odds) -> np.ndarray:
    """p_i = (sqrt(z^2 + 4 (1 - z) q_i^2 / B) - z) / (2 (1 - z)) with z from :func:`shin_z`."""
    q = implied_probabilities(odds)
    p = _shin_p(q, q.sum(), shin_z(odds))
    return p / p.sum()


def remove_margin(odds, method: str = "proportional") -> np.ndarray:
    """Probabilities from decimal odds by ``method`` (proportional, power or shin)."""
    solvers = {"proportional": proportional_margin, "power": power_margin, "shin": shin_margin}
    if method not in solvers:
        raise ValueError(f"unknown margin-removal method {method!r}: expected one of {', '.join(METHODS)}")
    return solvers[method](odds)
