"""Betting return at the price the market charges (Prophet Arena §3.1.3, App. B.5, B.6, C.2).

Each outcome is a binary market. Buying its Yes side costs ``yes_price`` per unit payout, its
No side ``no_price``; both are the prices *quoted*, margin or fee included (a bookmaker's
1 / decimal odds, a prediction market's ask plus its fee), never a margin-free "fair" price:
with a margin, yes_price + no_price > 1, and a forecaster must beat the margin to profit.
A bookmaker sells no No side (``no_price`` NaN): the alternative to backing an outcome is
keeping the stake.

Risk-neutral rule (γ = 0), unit budget per market, payoff R (break-even 1):
    p > yes_price          -> buy Yes: R = o / yes_price
    1 - p > no_price       -> buy No:  R = (1 - o) / no_price
    otherwise (no edge over the quoted price, or a tie) -> abstain: R = 1.
(The two conditions cannot both hold when yes_price + no_price >= 1.)

CRRA rule (γ in (0, 1], App. B.5): the share of the budget on Yes is
    a = y^(1 - 1/γ) p^(1/γ) / (y^(1 - 1/γ) p^(1/γ) + n^(1 - 1/γ) (1 - p)^(1/γ)),
with y = yes_price and n = no_price (n = 1, the kept stake, when there is no No side);
R = a o / y + (1 - a) (1 - o) / n. γ = 1 is proportional betting (a = p when y + n = 1).

Sharpe ratio over per-event payoffs (App. C.2): (mean R - 1) / sd(R), sample sd, reference 1.

Prophet Arena's own rule (§3.1.3, App. B.6), the paper tables' "Return (Prophet Arena rule)":
always one unit per binary market, never abstaining: buy Yes at q when p > q, else buy No at
1 - q, with q the quoted Yes price (1 / the quoted decimal odds, margin included). The paper
prices No at 1 - q (its Yes and No prices are one price); the two sections disagree only at
p == q, where App. B.6 buys No and so does this. A price q outside (0, 1) (only a stand-in
forecaster's probability can be one) cannot be bought on either side: the stake is kept (1).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def return_risk_neutral(p, yes_price, no_price, outcome) -> np.ndarray:
    """Payoff of a unit stake per binary market under the risk-neutral rule at the quoted prices."""
    p, y, n, o = (np.asarray(v, dtype=float) for v in (p, yes_price, no_price, outcome))
    with np.errstate(divide="ignore", invalid="ignore"):
        buy_yes = (p > y) & (y > 0) & (y < 1)
        buy_no = ~buy_yes & np.isfinite(n) & (1.0 - p > n) & (n > 0) & (n < 1)
        yes = np.where(o == 1, 1.0 / y, 0.0)
        no = np.where(o == 0, 1.0 / n, 0.0)
    return np.where(buy_yes, yes, np.where(buy_no, no, 1.0))


def yes_share_crra(p, yes_price, no_price, gamma: float) -> np.ndarray:
    """Share of the budget on Yes for a CRRA investor (App. B.5); no No side: the rest is kept (price 1)."""
    if not 0.0 < gamma <= 1.0:
        raise ValueError(f"gamma must be in (0, 1], got {gamma}")
    p, y, n = (np.asarray(v, dtype=float) for v in (p, yes_price, no_price))
    n = np.where(np.isfinite(n), n, 1.0)
    e = 1.0 / gamma
    yes_term = y ** (1.0 - e) * p**e
    no_term = n ** (1.0 - e) * (1.0 - p) ** e
    return yes_term / (yes_term + no_term)


def return_crra(p, yes_price, no_price, outcome, gamma: float) -> np.ndarray:
    """Payoff of a unit budget split by :func:`yes_share_crra`, bought at the quoted prices."""
    a = yes_share_crra(p, yes_price, no_price, gamma)
    y, o = np.asarray(yes_price, dtype=float), np.asarray(outcome, dtype=float)
    n = np.asarray(no_price, dtype=float)
    n = np.where(np.isfinite(n), n, 1.0)
    return a * o / y + (1.0 - a) * (1.0 - o) / n


def return_hda(p, buy_odds, y, gamma: float = 0.0) -> np.ndarray:
    """Mean payoff over the home, draw and away markets of each forecast, backing at ``buy_odds``.

    ``p``: (n, 3) probabilities; ``buy_odds``: (n, 3) quoted decimal odds (margin included);
    ``y``: (n,) result class 0 home, 1 draw, 2 away. No No side (bookmakers).
    """
    p, odds = np.asarray(p, dtype=float), np.asarray(buy_odds, dtype=float)
    o = (np.asarray(y)[:, None] == np.arange(3)[None, :]).astype(float)
    price = 1.0 / odds
    none = np.full_like(price, np.nan)
    payoff = return_risk_neutral(p, price, none, o) if gamma == 0.0 else return_crra(p, price, none, o, gamma)
    return payoff.mean(axis=1)


def return_prophet_arena(p, yes_price, outcome) -> np.ndarray:
    """Payoff of a unit stake on one binary market under Prophet Arena's rule: Yes at q if p > q, else No at 1 - q."""
    p, q, o = (np.asarray(v, dtype=float) for v in (p, yes_price, outcome))
    with np.errstate(divide="ignore", invalid="ignore"):
        yes = np.where(o == 1, 1.0 / q, 0.0)
        no = np.where(o == 0, 1.0 / (1.0 - q), 0.0)
    payoff = np.where(p > q, yes, no)
    return np.where((q > 0.0) & (q < 1.0), payoff, 1.0)


def return_hda_prophet_arena(p, yes_prices, y) -> np.ndarray:
    """Mean of :func:`return_prophet_arena` over the home, draw and away markets of each forecast.

    ``p``: (n, 3) probabilities; ``yes_prices``: (n, 3) quoted Yes prices (1 / decimal odds);
    ``y``: (n,) result class 0 home, 1 draw, 2 away."""
    o = (np.asarray(y)[:, None] == np.arange(3)[None, :]).astype(float)
    return return_prophet_arena(p, yes_prices, o).mean(axis=1)


def sharpe_ratio(returns, reference: float = 1.0) -> float:
    """(mean(R) - R_b) / sd(R), sample sd, R_b = 1 (App. C.2). NaN with < 2 returns or sd 0."""
    returns = np.asarray(returns, dtype=float)
    if len(returns) < 2:
        return float("nan")
    sd = returns.std(ddof=1)
    return float((returns.mean() - reference) / sd) if sd > 0 else float("nan")


def quoted_odds(inputs: dict[str, Any] | None) -> tuple[float, float, float] | None:
    """The decimal odds a market forecast says one could back at (``buy_odds``, else its single ``odds``)."""
    if not inputs:
        return None
    raw = inputs.get("buy_odds") or inputs.get("odds")
    if not isinstance(raw, list | tuple) or len(raw) != 3:
        return None
    try:
        odds = tuple(float(v) for v in raw)
    except (TypeError, ValueError):
        return None
    return odds if all(np.isfinite(odds)) and min(odds) > 1.0 else None
