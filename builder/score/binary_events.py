"""Scores of binary market events (Prophet Arena, seeds/002 §3.1): Brier, log loss, ECE and return.

Each valid :class:`~collector.records.BinaryForecast` of a resolved event is scored against
the resolution (o = 1 for Yes). The market itself is a forecaster (``market``, condition
``price``): its probability is the Yes ask read at the same moment, one row per event x
horizon. Measures per (forecaster, condition, horizon):

- Brier (p - o)^2, Prophet Arena eq. 1 with one market: half the two-class score
  :func:`brier_score_advancement` (2 (p - o)^2);
- log loss -ln of the probability of what happened, clipped at 1e-6 (:func:`log_loss_advancement`);
- ECE, 10 equal-width bins (App. B.2, :func:`expected_calibration_error`);
- return per unit at the *quoted* price: Yes at the ask, No at 1 - bid (no bid: no No side,
  the stake is kept), risk-neutral (§3.1.3) and CRRA with ``CRRA_GAMMA`` (App. B.5), with
  the Sharpe ratio of the risk-neutral returns (App. C.2). The market row has no return (it
  would be buying from itself).

Forecasts of unresolved events are not scored (fail closed); invalid answers count in
``n_asked`` but not in the measures.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from builder.score.calibration import expected_calibration_error
from builder.score.metrics import brier_score_advancement, log_loss_advancement
from builder.score.returns import return_crra, return_risk_neutral, sharpe_ratio
from collector.records import (
    BinaryEvent,
    BinaryForecast,
    BinaryResolution,
    ForecastStatus,
)

CRRA_GAMMA = 0.5
MARKET = "market"


@dataclass(frozen=True)
class BinaryRow:
    """One scored forecast of a binary event, with the price its return bought at."""

    competition_id: str
    event_id: str
    forecaster: str
    condition: str
    horizon: str
    p: float
    outcome: int
    yes_price: float
    no_price: float  # 1 - bid; inf when the book had no bid
    brier: float
    log_loss: float
    return_risk_neutral: float | None
    return_crra: float | None


@dataclass(frozen=True)
class BinarySummary:
    forecaster: str
    condition: str
    horizon: str
    n: int
    n_asked: int
    brier: float
    log_loss: float
    ece: float
    return_risk_neutral: float | None
    return_crra: float | None
    sharpe: float | None


def _rows_of(forecasts: list[BinaryForecast], outcome: int) -> list[BinaryRow]:
    usable = [f for f in forecasts if f.status is ForecastStatus.VALID and f.probability is not None and f.quote]
    if not usable:
        return []
    p = np.array([f.probability for f in usable])
    o = np.full(len(usable), outcome)
    yes = np.array([f.quote.ask for f in usable])
    no = np.array([1.0 - f.quote.bid if f.quote.bid is not None else np.inf for f in usable])
    brier = 0.5 * brier_score_advancement(p, o)
    loss = log_loss_advancement(p, o)
    rn, crra = return_risk_neutral(p, yes, no, o), return_crra(p, yes, no, o, CRRA_GAMMA)
    return [BinaryRow(f.competition_id, f.event_id, f.forecaster, f.condition, f.horizon.value, float(p[i]),
                      outcome, float(yes[i]), float(no[i]), float(brier[i]), float(loss[i]),
                      float(rn[i]), float(crra[i])) for i, f in enumerate(usable)]


def _market_rows(forecasts: list[BinaryForecast], outcome: int) -> list[BinaryRow]:
    """The market's own row per event x horizon: P(Yes) = the Yes ask read then."""
    seen: dict[str, BinaryForecast] = {}
    for f in forecasts:
        if f.quote is not None:
            seen.setdefault(f.horizon.value, f)
    rows = []
    for horizon, f in sorted(seen.items()):
        q = f.quote.ask
        brier = float(0.5 * brier_score_advancement(np.array([q]), np.array([outcome]))[0])
        loss = float(log_loss_advancement(np.array([q]), np.array([outcome]))[0])
        no = 1.0 - f.quote.bid if f.quote.bid is not None else float("inf")
        rows.append(BinaryRow(f.competition_id, f.event_id, MARKET, "price", horizon, q, outcome, q, no, brier,
                              loss, None, None))
    return rows


def score_binary_events(records) -> tuple[list[BinaryRow], dict[tuple[str, str], int]]:
    """Every scored row of resolved binary events, and how many forecasts each (forecaster, condition) asked."""
    by_event: dict[tuple[str, str], list[BinaryForecast]] = defaultdict(list)
    resolved: dict[tuple[str, str], bool] = {}
    for record in records:
        if isinstance(record, BinaryForecast):
            by_event[(record.competition_id, record.event_id)].append(record)
        elif isinstance(record, BinaryResolution):
            resolved[(record.competition_id, record.event_id)] = record.value
    rows, asked = [], defaultdict(int)
    for key, forecasts in sorted(by_event.items()):
        if key not in resolved:
            continue  # not decided yet: nothing is scored
        for f in forecasts:
            asked[(f.forecaster, f.condition)] += 1
        rows += _rows_of(forecasts, int(resolved[key])) + _market_rows(forecasts, int(resolved[key]))
    return rows, dict(asked)


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return float(np.mean(kept)) if kept else None


def summarise_binary(rows: list[BinaryRow], asked: dict[tuple[str, str], int]) -> list[BinarySummary]:
    """One summary per (forecaster, condition, horizon), ordered by forecaster, condition, horizon."""
    groups: dict[tuple[str, str, str], list[BinaryRow]] = defaultdict(list)
    for row in rows:
        groups[(row.forecaster, row.condition, row.horizon)].append(row)
    out = []
    for (forecaster, condition, horizon), group in sorted(groups.items()):
        returns = [r.return_risk_neutral for r in group if r.return_risk_neutral is not None]
        sharpe = sharpe_ratio(np.array(returns)) if returns else float("nan")
        out.append(BinarySummary(
            forecaster, condition, horizon, len(group), asked.get((forecaster, condition), len(group)),
            float(np.mean([r.brier for r in group])), float(np.mean([r.log_loss for r in group])),
            expected_calibration_error(np.array([r.p for r in group]), np.array([r.outcome for r in group])),
            _mean([r.return_risk_neutral for r in group]), _mean([r.return_crra for r in group]),
            None if not np.isfinite(sharpe) else float(sharpe),
        ))  # fmt: skip
    return out


def binary_events_of(records) -> list[BinaryEvent]:
    return sorted((r for r in records if isinstance(r, BinaryEvent)), key=lambda r: (r.competition_id, r.id))
