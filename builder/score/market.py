"""Forecasts against a market: risk-neutral betting return, its Sharpe ratio, Brier difference.

Source: Prophet Arena (seeds/002 §3.1.3, App. B.6, App. C.2). Each of the three 90-minute
outcomes (home, draw, away) is one binary market priced at the ``market`` forecaster's
probability q; the forecaster's probability p decides the bet.

Choices:
- Ties (p == q): the paper's two statements disagree (§3.1.3 buys Yes, App. B.6 buys No).
  With no edge a risk-neutral bettor is indifferent; we *abstain* and keep the stake (return 1).
- A degenerate price (q = 0 or q = 1) cannot be bought on one side; such a market is skipped
  the same way (return 1).
- The return buys at the *quoted* price (the market record's ``buy_odds``: decimal odds with the
  bookmaker's margin, or a prediction market's ask), never at the margin-free probability q
  (:mod:`builder.score.returns`); a market record without quoted odds gives no return (NaN,
  left out of the mean and the Sharpe ratio; ``n_return`` counts the events with one).
  This is Prematch's own rule, printed as "Return (Prematch edge rule)". Prophet Arena's own rule
  (always bet, Yes or No) is :func:`builder.score.returns.return_prophet_arena`, which the
  paper tables use; :func:`market_return_binary` (the same rule at margin-free prices,
  abstaining on ties) is kept for earlier readers.
- The market forecast used for a forecast is the ``market`` record of the same event and clock
  at the same horizon if there is one, else the one at ``closing``.
- Return per event = mean over its three markets (each with a unit stake); Sharpe =
  (mean R - 1) / sd(R) over events, reference return 1 (abstaining), sample sd (ddof = 1).
- Brier difference = forecaster's Brier - market's Brier (negative favours the forecaster).
"""

from __future__ import annotations

from collections import defaultdict
from operator import attrgetter

import numpy as np

from builder.score.columns import CELL_KEY, NAMES, RowTable
from builder.score.returns import return_hda, sharpe_ratio
from builder.score.types import Cell, ScoredForecast

MARKET_ID = "market"


def market_return_binary(p: np.ndarray, q: np.ndarray, outcome: np.ndarray) -> np.ndarray:
    """Payoff of a unit stake on one binary market under the risk-neutral rule (seeds/002 §3.1.3):
    buy Yes (1/q shares) if p > q, buy No (1/(1-q) shares) if p < q, abstain (1) if p == q;
    a share pays 1 if its side happens. Break-even is 1."""
    p, q, o = (np.asarray(v, dtype=float) for v in (p, q, outcome))
    with np.errstate(divide="ignore", invalid="ignore"):
        yes = np.where(o == 1, 1.0 / q, 0.0)
        no = np.where(o == 0, 1.0 / (1.0 - q), 0.0)
    payoff = np.where(p > q, yes, no)
    abstain = (p == q) | (q <= 0.0) | (q >= 1.0)
    return np.where(abstain, 1.0, payoff)


def market_return_hda(p: np.ndarray, q: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mean unit-stake return over the home, draw and away markets of each forecast."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    o = np.asarray(y)[:, None] == np.arange(3)[None, :]
    return market_return_binary(p, q, o).mean(axis=1)


def _market_lookup(rows: list[ScoredForecast]) -> dict[tuple, ScoredForecast]:
    """Market rows by (competition, event, clock, horizon); samples: the first one wins."""
    lookup: dict[tuple, ScoredForecast] = {}
    for r in rows:
        if r.forecaster == MARKET_ID or r.forecaster_type == "market":
            lookup.setdefault((r.competition_id, r.event_id, r.clock, r.horizon), r)
    return lookup


def market_events(rows: list[ScoredForecast]) -> dict[Cell, dict[tuple[str, str], tuple[float, float]]]:
    """Per non-market cell and event with a market price: (return, Brier difference), samples averaged."""
    lookup = _market_lookup(rows)
    if not lookup:
        return {}
    paired = [(r, lookup.get((r.competition_id, r.event_id, r.clock, r.horizon))
               or lookup.get((r.competition_id, r.event_id, r.clock, "closing")))
              for r in rows if r.forecaster_type != "market"]
    paired = [(r, m) for r, m in paired if m is not None]
    if not paired:
        return {}
    p = np.array([[r.p_home, r.p_draw, r.p_away] for r, _ in paired])
    y = np.array([("home", "draw", "away").index(r.result) for r, _ in paired])
    odds = np.array([m.buy_odds if m.buy_odds is not None else (np.nan,) * 3 for _, m in paired], dtype=float)
    returns = return_hda(p, odds, y)
    returns[~np.isfinite(odds).all(axis=1)] = np.nan  # no quoted price: no return
    brier_diff = np.array([r.measures["brier"] - m.measures["brier"] for r, m in paired])
    return _per_cell_event([r for r, _ in paired], np.column_stack([returns, brier_diff]))


def table_market_events(table: RowTable) -> dict[Cell, dict[tuple[str, str], tuple[float, float]]]:
    """:func:`market_events` of the table's rows (the same dict, cells and events in the same
    order, the same floats), pairing rows by their cell and event codes rather than row by row."""
    kinds = np.array([kind == "market" for kind in map(_KIND, table.rows)], dtype=bool)
    forecaster = np.array([c[0] == MARKET_ID for c in table.cells], dtype=bool)
    quoting = np.flatnonzero(kinds | forecaster[table.cell]) if len(table.rows) else _NONE
    if not len(quoting):
        return {}
    slots: dict[tuple[str, str], int] = {}  # (clock, horizon) -> code
    own = np.array([slots.setdefault((c[4], c[3]), len(slots)) for c in table.cells], dtype=np.intp)
    closing = np.array([slots.get((c[4], "closing"), -1) for c in table.cells], dtype=np.intp)
    price = np.full((len(table.events), len(slots)), -1, dtype=np.intp)  # the first market row of each slot
    _, first = np.unique(table.event[quoting] * len(slots) + own[table.cell[quoting]], return_index=True)
    firsts = quoting[first]
    price[table.event[firsts], own[table.cell[firsts]]] = firsts
    candidates = np.flatnonzero(~kinds)
    same, at_close = own[table.cell[candidates]], closing[table.cell[candidates]]
    market_row = price[table.event[candidates], same]
    fallback = np.where(at_close >= 0, price[table.event[candidates], np.maximum(at_close, 0)], -1)
    market_row = np.where(market_row >= 0, market_row, fallback)
    paired, market_row = candidates[market_row >= 0], market_row[market_row >= 0]
    if not len(paired):
        return {}
    quoted, which = np.unique(market_row, return_inverse=True)  # each market row's odds once
    odds = np.array([table.rows[m].buy_odds if table.rows[m].buy_odds is not None else (np.nan,) * 3
                     for m in quoted.tolist()], dtype=float).reshape(-1, 3)[which.ravel()]
    returns = return_hda(table.p[paired], odds, table.outcome[paired].argmax(axis=1))
    returns[~np.isfinite(odds).all(axis=1)] = np.nan  # no quoted price: no return
    brier = table.values[:, NAMES.index("brier")]
    return _grouped_means(table, paired, np.column_stack([returns, brier[paired] - brier[market_row]]))


def _grouped_means(table: RowTable, index: np.ndarray, values: np.ndarray) -> dict[Cell, dict[tuple, tuple]]:
    """:func:`_per_cell_event` of the table's rows ``index`` (ascending) and their ``values``."""
    group = table.cell[index] * len(table.events) + table.event[index]
    _, first, inverse, counts = np.unique(group, return_index=True, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    single = (values + 0.0).tolist()  # ``sum([x]) / 1`` of one sample
    out: dict[tuple, dict[tuple, tuple[float, float]]] = defaultdict(dict)
    for g in np.argsort(first, kind="stable").tolist():
        at = int(first[g])
        mean = tuple(single[at]) if counts[g] == 1 else _pair_mean(values[inverse == g].tolist())
        out[table.cells[table.cell[index[at]]]][table.events[table.event[index[at]]]] = mean
    return {Cell(*cell): events for cell, events in out.items()}


_NONE = np.empty(0, dtype=np.intp)
_KIND = attrgetter("forecaster_type")


def events_within(found: dict[Cell, dict[tuple[str, str], tuple[float, float]]],
                  kept: set[tuple[str, str]]) -> dict[Cell, dict[tuple[str, str], tuple[float, float]]]:
    """``market_events`` of the rows of the events in ``kept`` (competition, event id), from
    ``found``, the ``market_events`` of all the rows: a (cell, event) entry depends on that
    event's rows only (a forecast is paired with the market row of its own event), so it is the
    entry of ``found``; cells keep their events' order, cells left without events are dropped
    (every reader looks cells up by name or sorts them)."""
    out = {}
    for cell, events in found.items():
        within = {e: v for e, v in events.items() if e in kept}
        if within:
            out[cell] = within
    return out


def _per_cell_event(rows: list[ScoredForecast], values: np.ndarray) -> dict[Cell, dict[tuple, tuple[float, float]]]:
    """{cell: {event: (mean return, mean Brier difference)}} over the rows' samples, cells and
    events in the order they first appear. Python's ``sum`` per event (NaN returns propagate):
    its rounding is the interpreter's (compensated from Python 3.12), so the numbers are those
    every other per-sample mean of Python floats gives on the same interpreter."""
    per_cell: dict[tuple, dict[tuple, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for r, pair in zip(rows, values.tolist(), strict=True):
        per_cell[CELL_KEY(r)][(r.competition_id, r.event_id)].append(pair)
    return {Cell(*cell): {e: _pair_mean(v) for e, v in events.items()} for cell, events in per_cell.items()}


def _pair_mean(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    """The mean of each of the two numbers over ``pairs`` by Python's ``sum``; of one pair,
    ``sum([x]) / 1`` is ``0.0 + x`` (the same float: -0.0 becomes 0.0, NaN stays NaN)."""
    if len(pairs) == 1:
        r, d = pairs[0]
        return (0.0 + r, 0.0 + d)
    return (sum(r for r, _ in pairs) / len(pairs), sum(d for _, d in pairs) / len(pairs))


def summarise(events: dict[tuple[str, str], tuple[float, float]]) -> dict[str, float | None] | None:
    """n, n_return (events with a quoted price), mean return, Sharpe ratio and mean Brier difference over the given events (None if none)."""
    if not events:
        return None
    per_event = np.array(list(events.values()), dtype=float)
    priced = per_event[np.isfinite(per_event[:, 0]), 0]
    return {
        "n": len(per_event),
        "n_return": len(priced),
        "return": float(priced.mean()) if len(priced) else None,
        "sharpe": _finite(sharpe_ratio(priced)),
        "brier_difference": float(per_event[:, 1].mean()),
    }


def market_measures(rows: list[ScoredForecast]) -> dict[Cell, dict[str, float | None]]:
    """Per non-market cell with market prices on some events: n, return, Sharpe, Brier difference."""
    return {cell: summarise(events) for cell, events in market_events(rows).items()}


def _finite(value: float) -> float | None:
    return None if np.isnan(value) else value
