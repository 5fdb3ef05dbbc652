"""Prophet Arena Table 2 (seeds/002 §3.1, App. B) computed from an archive's scored rows.

Columns as the paper's: Brier (mean over events of the mean over the three H/D/A markets,
``brier_pa``) with a symmetric bootstrap interval, ECE (10 equal-width bins, pooled markets),
average return with a symmetric interval. Symmetric intervals are estimate +- h with h the
95th percentile of |replicate mean - estimate| (App. B.7 leaves k and the level open).

Return: Prophet Arena's own rule (:func:`builder.score.returns.return_prophet_arena`: one
unit on every H/D/A market, Yes at q if p > q, else No at 1 - q), at the *quoted* price
q = 1 / the market record's quoted decimal odds (``buy_odds``: margin included). Prices are
the reference market's quotes of the row's own horizon: the T-24h forecasts are priced at the
market's T-24h quotes, and each market row (one per horizon, labelled with it) at its own
horizon's quotes. ``closing`` is the market's last snapshot before kickoff. An event without
a quote at that horizon gives no return (no fallback to another horizon: the caption names
one horizon, so the prices are that horizon's). This is not the Prematch edge rule of the
leaderboard (:mod:`builder.score.market`: abstains without an edge, no No side).
Without a market in the archive, a stated stand-in forecaster's T-24h probabilities are the
prices (no margin) and the caption says so.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from builder.score.aggregate import per_cell_events
from builder.score.calibration import expected_calibration_error
from builder.score.definitions import PAPER_INTERVALS, figure_key, label
from builder.score.market import MARKET_ID
from builder.score.memo import memoised
from builder.score.metrics import CLASSES
from builder.score.paper_common import Columns, PaperTable
from builder.score.returns import return_hda_prophet_arena
from builder.score.types import ScoredForecast

HORIZON = "t_minus_24h"
STAND_INS = (MARKET_ID, "ensemble", "elo")
HORIZON_NAMES = {"stage_opening": "stage opening", "t_minus_24h": "T-24h", "t_minus_2h": "T-2h",
                 "closing": "closing"}
RETURN_COLUMN = f"{label('return_pa')} (95% CI) ↑"


def horizon_name(horizon: str) -> str:
    """The horizon as the table prints it ("T-24h", "closing"; an unknown id as it is)."""
    return HORIZON_NAMES.get(horizon, horizon)


def _sym(columns: Columns | None, per_event: dict) -> tuple[float, float | None]:
    """Mean and h of the symmetric interval mean +- h (h = 95th percentile of |replicate - mean|)."""
    return _syms(columns, [per_event])[0]


def _syms(columns: Columns | None, asked: list[dict]) -> list[tuple[float, float | None]]:
    """:func:`_sym` of each per-event dict, the replicate means of all in one ``means_of``."""
    values = [np.array(list(per_event.values()), dtype=float) for per_event in asked]
    found: list[tuple[float, float | None]] = [(float(v.mean()), None) for v in values]
    tested = [i for i, v in enumerate(values) if columns is not None and len(v) >= 2]
    if not tested:
        return found
    # kept between builds by inputs (builder.score.memo): the weights, each ask's events and values
    spans = memoised("pa_symmetric", (columns, [tuple(asked[i]) for i in tested], *(values[i] for i in tested)),
                     lambda: (_spans(columns, [(asked[i], values[i]) for i in tested]),), ((len(tested),),))[0]
    for i, h in zip(tested, spans.tolist(), strict=True):
        found[i] = (found[i][0], h)
    return found


def _spans(columns: Columns, asked: list[tuple[dict, np.ndarray]]) -> np.ndarray:
    """h of each ask's symmetric interval: the 95th percentile of |replicate mean - mean|."""
    spans = np.empty(len(asked))
    for k, ((_, values), replicate) in enumerate(zip(asked, columns.means_of(asked), strict=True)):
        replicate = replicate[~np.isnan(replicate)]
        spans[k] = np.percentile(np.abs(replicate - float(values.mean())), 95)
    return spans


def pa_cells(rows: list[ScoredForecast], reference: str | None = None) -> tuple[str | None, bool, bool, list[tuple]]:
    """(reference, whether it is a market (quoted prices), whether it has prices at the table's
    horizon, the table's cells): each cell is (label, its
    rows, its Prophet Arena return per event, samples averaged). The cells are the T-24h
    non-market cells and every market forecaster's cell at each horizon; returns priced as the
    module docstring says."""
    present = {r.forecaster for r in rows}
    reference = reference or next((s for s in STAND_INS if s in present), None)
    quoted = any(r.forecaster == reference and r.forecaster_type == "market" for r in rows)
    prices = _prices(rows, reference, quoted)
    cells: dict[tuple, list[ScoredForecast]] = defaultdict(list)
    for r in rows:
        if r.horizon == HORIZON or r.forecaster_type == "market":
            cells[(r.forecaster, r.access, r.strategy, r.horizon)].append(r)
    out = []
    for (forecaster, access, strategy, horizon), cell_rows in cells.items():
        market = forecaster_type_of(cell_rows) == "market"
        p = np.array([[r.p_home, r.p_draw, r.p_away] for r in cell_rows])
        priced_at = horizon if market and quoted else HORIZON
        ret = {e: float(np.mean(v)) for e, v in _returns(cell_rows, p, prices.get(priced_at, {})).items()}
        name = f"{forecaster} ({horizon_name(horizon)})" if market else f"{forecaster} ({access}, {strategy})"
        out.append((name, cell_rows, ret))
    return reference, quoted, HORIZON in prices, out


def pa_table(rows: list[ScoredForecast], columns: Columns | None, reference: str | None = None,
             note: str = "") -> PaperTable:
    """The table: each T-24h non-market cell and each market forecaster at each horizon, sorted by Brier."""
    reference, quoted, stated, cells = pa_cells(rows, reference)
    made, asked = [], []  # each cell's Brier and returns per event: their intervals asked at once
    for name, cell_rows, ret in cells:
        brier = per_cell_events(cell_rows, ("brier_pa",)).get("all", {})
        p = np.array([[r.p_home, r.p_draw, r.p_away] for r in cell_rows])
        o = np.array([[r.result == c for c in CLASSES] for r in cell_rows], dtype=float)
        first = cell_rows[0]
        made.append((name, expected_calibration_error(p.ravel(), o.ravel()), len(asked), bool(ret),
                     figure_key(first.forecaster, first.access, first.strategy, first.horizon, first.clock)))
        asked += [{e: float(v[0]) for e, v in brier.items()}] + ([ret] if ret else [])
    out = _rows(made, _syms(columns, asked))
    return PaperTable(
        "pa_table_2", "Prophet Arena Table 2",
        f"{label('brier_pa')} = mean over events of the mean squared error over the three H/D/A markets, with a "
        f"symmetric 95% bootstrap interval (±h, over the replicates of the {PAPER_INTERVALS.name}, as LLM-SoccerArena "
        f"§3.4 draws them); {label('ece')} with 10 equal-width bins; {label('return_pa')}: the "
        "average return of Prophet Arena's rule (§3.1.3, App. B.6): one unit on every H/D/A market, Yes at price q "
        "when the forecast p > q, "
        f"else No at 1 - q (1 = break-even). T-24h forecasts. {prices_note(reference, quoted, stated)}"
        + note,
        ("LLM", f"{label('brier_pa')} (95% CI) ↓", f"{label('ece')} ↓", RETURN_COLUMN), tuple(t[1:5] for t in out),
        ("", "brier_pa", "ece", "return_pa"), tuple(t[5] for t in out))


def _rows(made: list[tuple], found: list[tuple[float, float | None]]) -> list[tuple[float, str, str, str, str, str]]:
    """(Brier mean, label, Brier text, ECE text, return text, figure key) of each cell, sorted by Brier then label."""
    out = []
    for name, ece, at, priced, figure in made:
        (b_mean, b_h), r_text = found[at], "-"
        if priced:
            r_mean, r_h = found[at + 1]
            r_text = f"{r_mean:.3f} (±{r_h:.3f})" if r_h is not None else f"{r_mean:.3f}"
        out.append((b_mean, name, f"{b_mean:.3f} (±{b_h:.3f})" if b_h is not None else f"{b_mean:.3f}",
                    f"{ece:.3f}", r_text, figure))
    out.sort(key=lambda t: (t[0], t[1]))
    return out


def prices_note(reference: str | None, quoted: bool, stated: bool = True) -> str:
    """The caption's sentence saying which prices the returns are bought at (``stated``: the
    reference has prices at the table's horizon)."""
    if reference is None:
        return "No reference prices: no returns."
    if not quoted:
        return (f"No market prices in this archive: q is `{reference}`'s T-24h probability used as the price "
                "(a stand-in without a margin, not a market).")
    missing = "" if stated else f" `{reference}` quotes no T-24h odds in this archive: the T-24h rows have no return."
    return (f"q = 1 / the quoted decimal odds (buy_odds, margin included) of the `{reference}` forecaster's record "
            "of the same event and horizon: the T-24h forecasts are priced at the market's T-24h quotes, each market "
            "row at the quotes of the horizon it names (closing = the market's last snapshot before kickoff); an "
            "event without a quote at that horizon has no return." + missing)


def _returns(rows: list[ScoredForecast], p: np.ndarray, prices: dict[tuple, np.ndarray]) -> dict[tuple, list[float]]:
    """Per event, the Prophet Arena return of each of its rows at the Yes prices ``prices`` (rows
    without a price left out). One vectorised :func:`return_hda_prophet_arena` over the priced
    rows: its operations are element-wise and its mean runs over each row's three markets, so
    each row's value is the one a call on that row alone gives."""
    keys = [(r.competition_id, r.event_id) for r in rows]
    priced = [i for i, key in enumerate(keys) if key in prices]
    returns: dict[tuple, list[float]] = defaultdict(list)
    if not priced:
        return returns
    q = np.array([prices[keys[i]] for i in priced])
    y = np.array([CLASSES.index(rows[i].result) for i in priced])
    for i, value in zip(priced, return_hda_prophet_arena(p[priced], q, y).tolist(), strict=True):
        returns[keys[i]].append(value)
    return returns


def forecaster_type_of(rows: list[ScoredForecast]) -> str:
    return rows[0].forecaster_type if rows else ""


def _prices(rows: list[ScoredForecast], reference: str | None, quoted: bool) -> dict[str, dict[tuple, np.ndarray]]:
    """Per horizon and event, the Yes price of each H/D/A market.

    A market reference (``quoted``): 1 / its record's quoted decimal odds at that horizon (the
    record of the lowest sample, access and strategy if there are several; a record without
    quoted odds gives none). A stand-in: its T-24h probability vector (samples and conditions
    averaged), under ``HORIZON`` only."""
    if reference is None:
        return {}
    if not quoted:
        found: dict[tuple, list] = defaultdict(list)
        for r in rows:
            if r.forecaster == reference and r.horizon == HORIZON:
                found[(r.competition_id, r.event_id)].append((r.p_home, r.p_draw, r.p_away))
        return {HORIZON: {e: np.mean(v, axis=0) for e, v in found.items()}}
    prices: dict[str, dict[tuple, np.ndarray]] = defaultdict(dict)
    mine = [r for r in rows if r.forecaster == reference and r.buy_odds is not None]
    for r in sorted(mine, key=lambda r: (r.sample, r.access, r.strategy)):
        prices[r.horizon].setdefault((r.competition_id, r.event_id), 1.0 / np.asarray(r.buy_odds, dtype=float))
    return dict(prices)
