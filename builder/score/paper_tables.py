"""Each paper's main table computed from an archive, in the paper's own scales and column order.

* LLM-SoccerArena Table 2 (seeds/000 §4.2): "Complete-panel T-24h probabilistic forecast
  performance": per forecaster, Brier, log loss, modal H/D/A accuracy (%), exact score (%),
  Scoring System points, each with a 95% studentized match-bootstrap interval, and n. Per
  match the forecaster's T-24h probabilistic-forecast values are averaged over access
  conditions and samples (the balanced aggregation); the complete panel keeps the matches
  every listed forecaster scored. Sorted by Brier.
* WorldCupArena Table 2 (seeds/001 §4.2): Model, Setting, N, Composite, Result, Exact,
  Scoreline. Result = ``result_wca`` and Exact = ``exact_wca`` in %, Scoreline = C_70 of the
  mean ``scoreline_wca`` (all on the published score, extra time included), N = valid
  predictions. Composite: WorldCupArena's availability-aware mean (eq. 2) over the layers
  that exist: T1-T4 for the ``fine_grained`` strategy (builder.score.fine_grained_board), else
  T1 (result and score) alone, Composite = C_50 of the mean T1 score, T1 = sum_j w_j S_j / sum_j w_j over the available T1 tasks with the weights of the
  released project's ``configs/tasks.yaml`` (the paper's Table 1 weights are not in its text):
  result probabilities 0.55 (100 (1 - BS/2)), score 0.35 (S_score of eq. 1), goal difference
  0.05 (100 max(0, 1 - e_d/5)), qualification 0.05 (knockouts: 100 (1 - (p - y)^2)). Setting:
  S1 = closed book, S2 = open book (Prematch's closed book gets no evidence package, so S1 is
  not WorldCupArena's standardized context). Sorted by Composite.
* Prophet Arena Table 2 (seeds/002 §3.1, App. B): Brier (mean over events of the mean over
  the three H/D/A markets, ``brier_pa``) with a symmetric bootstrap interval, ECE (10
  equal-width bins, pooled markets), average return (risk-neutral unit bets against the market
  price) with a symmetric interval. Symmetric intervals are estimate +- h with h the 95th
  percentile of |replicate mean - estimate| (App. B.7 leaves k and the level open).
  Without market prices in the archive the returns are taken against a stated stand-in
  forecaster's probabilities and the table says so.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from builder.score.aggregate import per_cell_events
from builder.score.blas import one_blas_thread
from builder.score.calibration import expected_calibration_error
from builder.score.definitions import MEASURE_RANGES
from builder.score.each_column import studentized_each
from builder.score.fine_grained_board import composite_of
from builder.score.market import MARKET_ID, market_return_hda
from builder.score.memo import memoised
from builder.score.metrics import CLASSES, display_calibration, scoreline_display
from builder.score.resampling import BLOCK, Resampler
from builder.score.t1 import T1_WEIGHTS, t1_score  # noqa: F401 (T1_WEIGHTS: issue 14's name, kept here too)
from builder.score.types import ScoredForecast

HORIZON = "t_minus_24h"
STAND_INS = (MARKET_ID, "ensemble", "elo")


@dataclass(frozen=True)
class PaperTable:
    key: str
    title: str
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def paper_tables(rows: list[ScoredForecast], reference: str | None = None) -> list[PaperTable]:
    """The three tables for the archive's scored rows (live rows if any, else replay rows), their
    products on one BLAS thread (:mod:`builder.score.blas`)."""
    with one_blas_thread():
        return _paper_tables(rows, reference)


def _paper_tables(rows: list[ScoredForecast], reference: str | None) -> list[PaperTable]:
    clock = "live" if any(r.clock == "live" for r in rows) else "replay"
    chosen = [r for r in rows if r.clock == clock]
    note = "" if clock == "live" else " Replay records (simulated clock): not prospective evidence."
    wca = wca_table(chosen, note)  # first: it needs no resampling, whose matrices then never meet its rows
    resampler = _bootstrap(chosen) if chosen else None
    lsa = lsa_table(chosen, resampler, note)
    columns = _Columns(resampler) if resampler is not None else None
    del resampler  # its weights are freed: the transposed copy stands in for them
    return [lsa, wca, pa_table(chosen, columns, reference, note)]


def _bootstrap(rows: list[ScoredForecast]) -> Resampler:
    """The analysis's bootstrap weights over the rows' events (``resampler_for``'s: same seed, same
    draws), without the sign-flip matrix the tables never use (not drawn: draws x events int8)."""
    return Resampler.for_events({(r.competition_id, r.event_id): r.knockout for r in rows}, permutations=0)


def _ci(resampler: Resampler | None, per_event: dict, scale: float = 1.0,
        bounds: tuple[float, float] = (-np.inf, np.inf)) -> tuple[float, float | None, float | None, bool]:
    """Mean, studentized 95% interval (scaled) and whether an end was moved to the measure's
    ``bounds`` (a studentized interval can leave them at small n: 4 hits in 5 gives [80, 113] %)."""
    return _cis(resampler, [(per_event, scale, bounds)])[0]


def _cis(resampler: Resampler | None, asked: list[tuple[dict, float, tuple[float, float]]]) -> list[tuple]:
    """:func:`_ci` of each (per_event, scale, bounds), every interval its own column's to the bit
    (``each_column.studentized_each``: the weights turned into float64 once for all of them)."""
    found = []
    for per_event, scale, _ in asked:
        found.append((float(np.array(list(per_event.values()), dtype=float).mean()) * scale, None, None, False))
    tested = [i for i, (per_event, _, _) in enumerate(asked) if resampler is not None and len(per_event) >= 2]
    if not tested:
        return found
    idx = resampler.index()
    matrix = np.full((len(resampler.events), len(tested)), np.nan)
    for j, i in enumerate(tested):
        for e, v in asked[i][0].items():
            matrix[idx[e], j] = v
    low, high = studentized_each(resampler, matrix)
    for j, i in enumerate(tested):
        if not np.isnan(low[j]):
            found[i] = _bounded(found[i][0], float(low[j]), float(high[j]), *asked[i][1:])
    return found


def _bounded(mean: float, low: float, high: float, scale: float,
             bounds: tuple[float, float]) -> tuple[float, float, float, bool]:
    """The scaled interval with an end beyond ``bounds`` moved to it, and whether one was."""
    lowest, highest = bounds[0] * scale, bounds[1] * scale
    shown_low, shown_high = max(low * scale, lowest), min(high * scale, highest)
    return mean, shown_low, shown_high, (shown_low, shown_high) != (low * scale, high * scale)


def _fmt_ci(mean: float, low: float | None, high: float | None, digits: int) -> str:
    interval = "[-]" if low is None else f"[{low:.{digits}f}, {high:.{digits}f}]"
    return f"{mean:.{digits}f} {interval}"


BOUNDED_NOTE = (" An interval end beyond a measure's possible range (a studentized interval can pass it when the "
                "matches are few) is shown at the range's bound.")

LSA_MEASURES = (("brier", 1.0, 3), ("log_loss", 1.0, 3), ("accuracy", 100.0, 1), ("exact", 100.0, 1),
                ("points", 1.0, 2))


def lsa_table(rows: list[ScoredForecast], resampler: Resampler | None, note: str = "") -> PaperTable:
    names = tuple(m for m, _, _ in LSA_MEASURES)
    picked = [r for r in rows if r.horizon == HORIZON and r.strategy == "probabilistic_forecast"
              and r.forecaster_type != "market"]
    # per forecaster and match: mean over access conditions and samples (each access first)
    per_access = per_cell_events(picked, names, cell_of=lambda r: (r.forecaster, r.access))
    per_forecaster: dict[str, dict[tuple, list[np.ndarray]]] = defaultdict(lambda: defaultdict(list))
    for (forecaster, _), events in per_access.items():
        for e, v in events.items():
            per_forecaster[forecaster][e].append(v)
    means = {f: {e: np.mean(v, axis=0) for e, v in ev.items()} for f, ev in per_forecaster.items()}
    # in event order: a set's order follows the per-process string hash, and the mean's sum follows the order
    panel = sorted(set.intersection(*(set(ev) for ev in means.values()))) if means else []
    asked, at = [], []  # every forecaster's measures' intervals, asked at once
    for forecaster, events in means.items():
        for j, (name, scale, _) in enumerate(LSA_MEASURES):
            values = {e: float(events[e][j]) for e in panel if not np.isnan(events[e][j])}
            if values:
                at.append((forecaster, j))
                asked.append((values, scale, MEASURE_RANGES[name]))
    found = dict(zip(at, _cis(resampler, asked), strict=True))
    out = []
    for forecaster in means:
        cells = [(found.get((forecaster, j), (float("nan"), None, None, False)), digits)
                 for j, (_, _, digits) in enumerate(LSA_MEASURES)]
        out.append((cells[0][0][0], forecaster, cells))
    out.sort(key=lambda t: (t[0], t[1]))
    body = tuple((f, *(_fmt_ci(*c[:3], d) for c, d in cells), str(len(panel))) for _, f, cells in out)
    bounded = any(c[3] for _, _, cells in out for c, _ in cells)
    return PaperTable(
        "lsa_table_2", "LLM-SoccerArena Table 2",
        f"Complete-panel T-24h probabilistic forecast performance ({len(panel)} matches every forecaster scored; "
        "access conditions averaged per match). Values are means with 95% studentized match-bootstrap intervals."
        + (BOUNDED_NOTE if bounded else "") + note,
        ("Model", "Brier [95% CI]↓", "Log loss [95% CI]↓", "Modal H/D/A accuracy, % [95% CI]↑",
         "Exact score, % [95% CI]↑", "Scoring System [95% CI]↑", "n"), body)


def wca_table(rows: list[ScoredForecast], note: str = "") -> PaperTable:
    picked = [r for r in rows if r.horizon == HORIZON and r.forecaster_type != "market"]
    strategies = {r.strategy for r in picked}
    names = ("result_wca", "exact_wca", "scoreline_wca")
    t1: dict[tuple, dict[tuple, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in picked:
        t1[(r.forecaster, r.access, r.strategy)][(r.competition_id, r.event_id)].append(t1_score(r))
    cells = per_cell_events(picked, names, cell_of=lambda r: (r.forecaster, r.access, r.strategy))
    by_cell: dict[tuple, list[ScoredForecast]] = defaultdict(list)
    for r in picked:
        by_cell[(r.forecaster, r.access, r.strategy)].append(r)
    out = []
    for (forecaster, access, strategy), events in cells.items():
        matrix = np.array(list(events.values()))
        composite = float(display_calibration(np.mean([np.mean(v) for v in t1[(forecaster, access, strategy)].values()])))
        cell = (forecaster, access, strategy)
        full = _full_composite(by_cell[cell])
        composite = full if full is not None else composite
        setting = ("S1" if access == "closed_book" else "S2") + (f" ({strategy})" if len(strategies) > 1 else "")
        out.append((composite, forecaster, setting, len(events), float(np.nanmean(matrix[:, 0])) * 100,
                    float(np.nanmean(matrix[:, 1])) * 100, float(scoreline_display(np.nanmean(matrix[:, 2])))))
    out.sort(key=lambda t: (-t[0], t[1]))
    body = tuple((f, s, str(n), f"{c:.2f}", f"{res:.1f}", f"{ex:.1f}", f"{sl:.2f}") for c, f, s, n, res, ex, sl in out)
    return PaperTable(
        "wca_table_2", "WorldCupArena Table 2",
        "Results at T-24h on the published score (extra-time goals count in knockouts). N is the number of valid "
        "predictions. Composite = C_50 of the availability-aware (eq. 2) mean over the layers: T1-T4 for the "
        "fine_grained strategy, T1 only for the others; Scoreline = C_70 of the mean scoreline_wca. "
        "S1 = closed book, S2 = open book." + note,
        ("Model", "Setting", "N", "Composite", "Result", "Exact", "Scoreline"), body)


def _full_composite(rows: list[ScoredForecast]) -> float | None:
    """WorldCupArena's composite over the layers T1-T4 when the cell forecasts the fine-grained layers
    (builder.score.fine_grained_board), else None (the T1-only composite stands)."""

    return composite_of(rows)["composite"] if any(r.fine_tasks for r in rows) else None


class _Columns:
    """The resampler's weights, events by replicates, for weighting many event lists.

    ``weights[:, events] @ values`` is computed :data:`BLOCK` replicates at a time: the block's
    rows of the transposed copy (one memory copy per event) are gathered into one float64 buffer
    (events x BLOCK, never the whole events x replicates matrix: 240 MB at 3,000 events), and the
    transpose of the gathered block is the F-ordered slice of the whole gather (same values,
    same order), so BLAS computes each replicate's product alike: the same to the bit wherever
    BLAS gives a row the same result in any number of rows (single-threaded OpenBLAS does, and
    threaded OpenBLAS when each thread's share of a block's rows is a multiple of its kernel's
    unroll, as with BLOCK: see :mod:`builder.score.resampling`). A replicate's count of the
    events (the column sum of the gathered counts) is an integer, exact in floats far below
    2**53 whatever the order. The resampler's own weights can be dropped once this is made (the
    transposed copy replaces them); the copy keeps their small integer type."""

    def __init__(self, resampler: Resampler) -> None:
        self.fingerprint = resampler.fingerprint  # the weights' (builder.score.memo)
        self.idx = resampler.index()
        self.transposed = np.ascontiguousarray(resampler.draws.T)
        self.buffer: np.ndarray | None = None  # float64 (events x BLOCK), made at the first call

    def means(self, per_event: dict, values: np.ndarray) -> np.ndarray:
        """Each replicate's weighted mean of ``values`` (ordered as ``per_event``'s events):
        ``(weights[:, events] @ values) / counts``, NaN where a replicate draws none of them."""
        return self.means_of([(per_event, values)])[0]

    def means_of(self, asked: list[tuple[dict, np.ndarray]]) -> list[np.ndarray]:
        """:meth:`means` of each (per_event, values): a block's counts of the same events are
        gathered once for every ask over them (each ask's product is still its own, the same)."""
        groups: dict[tuple, list[int]] = {}
        for i, (per_event, _) in enumerate(asked):
            groups.setdefault(tuple(per_event), []).append(i)
        if self.buffer is None:
            self.buffer = np.empty((len(self.transposed), BLOCK), dtype=float)
        replicates = self.transposed.shape[1]
        out: list[np.ndarray] = [np.empty(0)] * len(asked)
        for events, members in groups.items():
            rows = np.fromiter((self.idx[e] for e in events), dtype=np.intp, count=len(events))
            sums, counts = np.empty((len(members), replicates)), np.empty(replicates)
            for start in range(0, replicates, BLOCK):
                stop = min(start + BLOCK, replicates)
                gathered = self.buffer[: len(rows), : stop - start]
                if gathered.shape[1] < BLOCK:  # the last, shorter block: a contiguous buffer of its own width
                    gathered = np.empty((len(rows), stop - start))
                gathered[...] = self.transposed[rows, start:stop]  # these events' counts, as float64
                for k, i in enumerate(members):
                    sums[k, start:stop] = gathered.T @ asked[i][1]
                counts[start:stop] = gathered.sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                for k, i in enumerate(members):
                    out[i] = sums[k] / counts
        return out


def _sym(columns: _Columns | None, per_event: dict) -> tuple[float, float | None]:
    """Mean and h of the symmetric interval mean +- h (h = 95th percentile of |replicate - mean|)."""
    return _syms(columns, [per_event])[0]


def _syms(columns: _Columns | None, asked: list[dict]) -> list[tuple[float, float | None]]:
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


def _spans(columns: _Columns, asked: list[tuple[dict, np.ndarray]]) -> np.ndarray:
    """h of each ask's symmetric interval: the 95th percentile of |replicate mean - mean|."""
    spans = np.empty(len(asked))
    for k, ((_, values), replicate) in enumerate(zip(asked, columns.means_of(asked), strict=True)):
        replicate = replicate[~np.isnan(replicate)]
        spans[k] = np.percentile(np.abs(replicate - float(values.mean())), 95)
    return spans


def pa_table(rows: list[ScoredForecast], columns: _Columns | None, reference: str | None = None,
             note: str = "") -> PaperTable:
    present = {r.forecaster for r in rows}
    reference = reference or next((s for s in STAND_INS if s in present), None)
    prices = _prices(rows, reference)
    picked = [r for r in rows if r.horizon == HORIZON or r.forecaster_type == "market"]
    cells: dict[tuple, list[ScoredForecast]] = defaultdict(list)
    for r in picked:
        cells[(r.forecaster, r.access, r.strategy, r.horizon)].append(r)
    made, asked = [], []  # each cell's Brier and returns per event: their intervals asked at once
    for (forecaster, access, strategy, _), cell_rows in cells.items():
        brier = per_cell_events(cell_rows, ("brier_pa",)).get("all", {})
        p = np.array([[r.p_home, r.p_draw, r.p_away] for r in cell_rows])
        o = np.array([[r.result == c for c in CLASSES] for r in cell_rows], dtype=float)
        ret = {e: float(np.mean(v)) for e, v in _returns(cell_rows, p, prices).items()}
        label = forecaster if forecaster_type_of(cell_rows) == "market" else f"{forecaster} ({access}, {strategy})"
        made.append((label, expected_calibration_error(p.ravel(), o.ravel()), len(asked), bool(ret)))
        asked += [{e: float(v[0]) for e, v in brier.items()}] + ([ret] if ret else [])
    found = _syms(columns, asked)
    out = []
    for label, ece, at, priced in made:
        (b_mean, b_h), r_text = found[at], "-"
        if priced:
            r_mean, r_h = found[at + 1]
            r_text = f"{r_mean:.3f} (±{r_h:.3f})" if r_h is not None else f"{r_mean:.3f}"
        out.append((b_mean, label, f"{b_mean:.3f} (±{b_h:.3f})" if b_h is not None else f"{b_mean:.3f}",
                    f"{ece:.3f}", r_text))
    out.sort(key=lambda t: (t[0], t[1]))
    prices_note = ("Returns against the market forecaster's closing prices."
                   if reference == MARKET_ID else
                   f"No market prices in this archive: returns are against `{reference}`'s probabilities used as "
                   "prices (a stand-in, not a market)." if reference else "No reference prices: no returns.")
    return PaperTable(
        "pa_table_2", "Prophet Arena Table 2",
        "Brier = mean over events of the mean squared error over the three H/D/A markets (brier_pa), with a "
        "symmetric 95% bootstrap interval (±h); ECE with 10 equal-width bins; average return of risk-neutral unit "
        f"bets (1 = break-even). T-24h forecasts. {prices_note}" + note,
        ("LLM", "Brier ↓ (95% CI)", "ECE ↓", "Average return ↑ (95% CI)"), tuple(t[1:] for t in out))


def _returns(rows: list[ScoredForecast], p: np.ndarray, prices: dict[tuple, np.ndarray]) -> dict[tuple, list[float]]:
    """Per event, the unit-bet return of each of its rows priced by ``prices`` (rows without a price left out).

    One vectorised :func:`market_return_hda` over the priced rows: its operations are element-wise
    and its mean runs over each row's three markets, so each row's value is the one a call on
    that row alone gives."""
    keys = [(r.competition_id, r.event_id) for r in rows]
    priced = [i for i, key in enumerate(keys) if key in prices]
    returns: dict[tuple, list[float]] = defaultdict(list)
    if not priced:
        return returns
    q = np.array([prices[keys[i]] for i in priced])
    y = np.array([CLASSES.index(rows[i].result) for i in priced])
    for i, value in zip(priced, market_return_hda(p[priced], q, y).tolist(), strict=True):
        returns[keys[i]].append(value)
    return returns


def forecaster_type_of(rows: list[ScoredForecast]) -> str:
    return rows[0].forecaster_type if rows else ""


def _prices(rows: list[ScoredForecast], reference: str | None) -> dict[tuple, np.ndarray]:
    """Per event, the reference forecaster's probability vector: the market at closing, else its
    T-24h forecast (samples and conditions averaged)."""
    if reference is None:
        return {}
    found: dict[tuple, list] = defaultdict(list)
    for r in rows:
        if r.forecaster == reference and (r.horizon == HORIZON or reference == MARKET_ID):
            found[(r.competition_id, r.event_id)].append((r.p_home, r.p_draw, r.p_away))
    return {e: np.mean(v, axis=0) for e, v in found.items()}
