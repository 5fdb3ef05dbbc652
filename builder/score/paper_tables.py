"""Each paper's main table computed from an archive, in the paper's own scales and column order.

Each table keeps the conditions its paper ran and names them as the paper does.

* LLM-SoccerArena Table 2 (seeds/000 §4.2): "Complete-panel T-24h probabilistic forecast
  performance": per forecaster, Brier, log loss, modal H/D/A accuracy (%), exact score (%),
  Scoring System points, each with a 95% studentized interval of the paper's stratified
  multinomial match bootstrap (:func:`_bootstrap`), and n. The
  paper's design has two access conditions, closed book and open book, and its tables use the
  balanced aggregation over them (§4.1 "balanced and fully matched design", App. C.2 Fig. 4:
  "the balanced T-24h aggregation across both information-access conditions"), so rows are per
  forecaster and, per match, the mean of its closed-book and open-book values with equal weight
  (samples averaged within each first). A match counts for a forecaster only when it has every
  one of the two levels the forecaster ran (balanced, no imputation; a baseline that runs
  closed book only contributes that one).
  Evidence-package forecasts are not in that design and never enter. The complete panel keeps
  the matches every listed forecaster scored. Sorted by Brier.
* WorldCupArena Table 2 (seeds/001 §4.2): Model, Setting, N, Composite, Result, Exact,
  Scoreline. Result = ``result_wca`` and Exact = ``exact_wca`` in %, Scoreline = C_70 of the
  mean ``scoreline_wca`` (all on the published score, extra time included), N = valid
  predictions. Composite: the leaderboard's, one function for both
  (:func:`builder.score.fine_grained_board.composite_of`): C_50 of eq. 2 over the layers T1-T5
  that have truth, a layer with truth the forecaster did not forecast counting 0. T1 =
  sum_j w_j S_j / sum_j w_j over the available T1 tasks with Prematch's weights (the paper's
  Table 1 weights are not in its text; how they differ from the public grader:
  :mod:`builder.score.t1`): result probabilities 0.55 (100 (1 - BS/2)), score 0.35 (S_score
  of eq. 1), goal difference 0.05 (100 max(0, 1 - e_d/5)), qualification 0.05 (knockouts:
  100 (1 - (p - y)^2)). Setting
  as the paper names them (:data:`WCA_SETTINGS`): S1 = the evidence package (the same
  standardized context for every model, no tools), S2 = open book (the model searches for its
  own evidence); Prematch's closed book (no information beyond the fixture) is no WorldCupArena
  setting and is printed as "closed book (Prematch)". Sorted by Composite.
* Prophet Arena Table 2: :mod:`builder.score.paper_table_pa` (Brier, ECE, and the return of
  Prophet Arena's own betting rule at the market's quoted prices of the stated horizon).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from builder.score.aggregate import per_cell_events
from builder.score.blas import one_blas_thread
from builder.score.definitions import (
    COMPOSITE_RULE,
    HIGHER,
    LOWER,
    MEASURE_RANGES,
    NEITHER,
    PAPER_INTERVALS,
    entry,
    figure_key,
    label,
)
from builder.score.each_column import studentized_each
from builder.score.fine_grained_board import composite_of
from builder.score.metrics import scoreline_display
from builder.score.paper_common import Columns, PaperTable
from builder.score.paper_table_pa import HORIZON, pa_table
from builder.score.resampling import MULTINOMIAL, Resampler
from builder.score.t5_layer import NO_T5, T5Layer
from builder.score.types import ScoredForecast


def paper_tables(rows: list[ScoredForecast], reference: str | None = None, t5: T5Layer = NO_T5) -> list[PaperTable]:
    """The three tables for the archive's scored rows (live rows if any, else replay rows), their
    products on one BLAS thread (:mod:`builder.score.blas`). ``t5`` is the archive's
    :func:`builder.score.t5_layer.t5_layer`: the composite's T5 (without it, no T5)."""
    with one_blas_thread():
        return _paper_tables(rows, reference, t5)


def _paper_tables(rows: list[ScoredForecast], reference: str | None, t5: T5Layer) -> list[PaperTable]:
    clock = "live" if any(r.clock == "live" for r in rows) else "replay"
    chosen = [r for r in rows if r.clock == clock]
    note = "" if clock == "live" else " Replay records (simulated clock): not prospective evidence."
    wca = wca_table(chosen, note, t5)  # first: it needs no resampling, whose matrices then never meet its rows
    resampler = _bootstrap(chosen) if chosen else None
    lsa = lsa_table(chosen, resampler, note)
    columns = Columns(resampler) if resampler is not None else None
    del resampler  # its weights are freed: the transposed copy stands in for them
    return [lsa, wca, pa_table(chosen, columns, reference, note)]


def _bootstrap(rows: list[ScoredForecast]) -> Resampler:
    """LLM-SoccerArena's stratified multinomial match bootstrap (§3.4, App. B.5: the papers' own
    procedure, :data:`~builder.score.resampling.MULTINOMIAL`) over the rows' events from the master
    seed, without the sign-flip matrix the tables never use (not drawn: draws x events int8)."""
    return Resampler.for_events({(r.competition_id, r.event_id): r.knockout for r in rows}, permutations=0,
                                scheme=MULTINOMIAL)


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


LSA_ACCESS = ("closed_book", "open_book")  # LLM-SoccerArena's two information-access conditions (§3)


def lsa_balanced(rows: list[ScoredForecast], names: tuple[str, ...]) -> dict[str, dict[tuple, np.ndarray]]:
    """Per forecaster and match, the equal-weight mean over the LSA access levels it ran of each
    level's sample mean of ``names``: LLM-SoccerArena's balanced aggregation. A match lacking one
    of the forecaster's levels is left out for it (no imputation); other access levels never enter."""
    picked = [r for r in rows if r.horizon == HORIZON and r.strategy == "probabilistic_forecast"
              and r.forecaster_type != "market" and r.access in LSA_ACCESS]
    per_access = per_cell_events(picked, names, cell_of=lambda r: (r.forecaster, r.access))
    per_forecaster: dict[str, dict[tuple, list[np.ndarray]]] = defaultdict(lambda: defaultdict(list))
    levels: dict[str, int] = defaultdict(int)
    for (forecaster, _), events in per_access.items():
        levels[forecaster] += 1
        for e, v in events.items():
            per_forecaster[forecaster][e].append(v)
    return {f: {e: np.mean(v, axis=0) for e, v in ev.items() if len(v) == levels[f]}
            for f, ev in per_forecaster.items()}


def lsa_table(rows: list[ScoredForecast], resampler: Resampler | None, note: str = "") -> PaperTable:
    """LLM-SoccerArena's Table 2: one row per forecaster over the complete panel of :func:`lsa_balanced` means."""
    names = tuple(m for m, _, _ in LSA_MEASURES)
    means = {f: ev for f, ev in lsa_balanced(rows, names).items() if ev}
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
        f"Complete-panel T-24h probabilistic forecast performance ({len(panel)} matches every forecaster scored). "
        "Per match, the balanced aggregation of LLM-SoccerArena: the equal-weight mean of the forecaster's closed-book "
        "and open-book forecasts (a forecaster that ran one of the two: that one; a match missing one of its two is "
        "left out); evidence-package forecasts are not in the paper's design and are left out. Values are means "
        f"with 95% studentized intervals of the {PAPER_INTERVALS.cited()}, the paper's procedure. "
        f"{label('accuracy')} is the paper's modal H/D/A accuracy, "
        f"{label('points')} its Scoring System."
        + (BOUNDED_NOTE if bounded else "") + note,
        ("Model", *(f"{label(name)}{', %' if scale == 100.0 else ''} [95% CI] {ARROWS[entry(name).better]}"
                    for name, scale, _ in LSA_MEASURES), "n"), body,
        ("", *names, ""), tuple(figure_key(f, "balanced", "probabilistic_forecast", HORIZON, _clock(rows),
                                           "complete panel") for _, f, _ in out))


ARROWS = {LOWER: "↓", HIGHER: "↑", NEITHER: ""}


def _clock(rows: list[ScoredForecast]) -> str:
    return rows[0].clock if rows else "live"


WCA_SETTINGS = {"evidence_package": "S1", "open_book": "S2", "closed_book": "closed book (Prematch)"}
WCA_SETTINGS_NOTE = ("Setting: S1 = evidence package (WorldCupArena's standardized context: the same frozen evidence "
                     "record in every model's prompt, no tools), S2 = open book (the model searches for its own "
                     "evidence); closed book (Prematch) = no information beyond the fixture, Prematch's own condition, "
                     "not a WorldCupArena setting.")


def wca_setting(access: str) -> str:
    """WorldCupArena's name of an access level (S1, S2), Prematch's own name for the one the paper did not run."""
    return WCA_SETTINGS.get(access, f"{access.replace('_', ' ')} (Prematch)")


def wca_table(rows: list[ScoredForecast], note: str = "", t5: T5Layer = NO_T5) -> PaperTable:
    """WorldCupArena's Table 2: per T-24h cell, N, the composite (the leaderboard's, T5 from
    ``t5``), Result, Exact and Scoreline (C_70) on the published score; sorted by composite."""
    picked = [r for r in rows if r.horizon == HORIZON and r.forecaster_type != "market"]
    strategies = {r.strategy for r in picked}
    names = ("result_wca", "exact_wca", "scoreline_wca")
    cells = per_cell_events(picked, names, cell_of=lambda r: (r.forecaster, r.access, r.strategy))
    by_cell: dict[tuple, list[ScoredForecast]] = defaultdict(list)
    for r in picked:
        by_cell[(r.forecaster, r.access, r.strategy)].append(r)
    out = []
    for (forecaster, access, strategy), events in cells.items():
        matrix = np.array(list(events.values()))
        composite = composite_of(by_cell[(forecaster, access, strategy)], t5)["composite"]
        setting = wca_setting(access) + (f" ({strategy})" if len(strategies) > 1 else "")
        out.append((composite, forecaster, setting, len(events), float(np.nanmean(matrix[:, 0])) * 100,
                    float(np.nanmean(matrix[:, 1])) * 100, float(scoreline_display(np.nanmean(matrix[:, 2]))),
                    access, strategy))
    out.sort(key=lambda t: (t[0] is None, -(t[0] or 0.0), t[1], t[2]))
    body = tuple((f, s, str(n), "-" if c is None else f"{c:.2f}", f"{res:.1f}", f"{ex:.1f}", f"{sl:.2f}")
                 for c, f, s, n, res, ex, sl, _, _ in out)
    return PaperTable(
        "wca_table_2", "WorldCupArena Table 2",
        "Results at T-24h on the published score (extra-time goals count in knockouts). N is the number of valid "
        f"predictions. {label('composite')} = {COMPOSITE_RULE} {label('result_wca')} and "
        f"{label('exact_wca')} in %; {label('scoreline_wca_c70')} = C_70 of the mean scoreline_wca. "
        + WCA_SETTINGS_NOTE + note,
        ("Model", "Setting", "N", label("composite"), f"{label('result_wca')}, %", f"{label('exact_wca')}, %",
         label("scoreline_wca_c70")), body,
        ("", "", "", "composite", "result_wca", "exact_wca", "scoreline_wca_c70"),
        tuple(figure_key(f, a, st, HORIZON, _clock(rows)) for _, f, _, _, _, _, _, a, st in out))
