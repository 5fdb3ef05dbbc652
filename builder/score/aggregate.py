"""From scored forecasts to leaderboard rows: one row per forecaster x condition cell.

A cell is (forecaster, access, strategy, horizon, clock). Each event counts once per cell
(repeated samples are averaged first), so means are per match, as in seeds/000 App. B.5.

Choices (documented here, tested in tests/test_aggregate.py):
- ``eligible_events`` of a cell: resolved events (scored outcome) that any forecaster was
  scheduled for under the same access, strategy, horizon and clock; ``coverage = n / eligible``.
- Ranked (WorldCupArena §4.4, coverage rule): coverage at least half that of the most complete
  forecaster of the same condition.
- Matched view: only events that every *ranked* forecaster of the condition scored.
- Equal-weight ensemble ``llm-ensemble``: per event and condition, the mean probability vector
  of the LLM forecasters (each first averaged over samples), needing at least two of them.

The views aggregate the rows' columns (``builder.score.columns.RowTable``: a measures matrix,
cell and event codes), built once per archive part and shared by the three views; every mean
sums its values in row order, as the row-by-row aggregation before it did.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from operator import itemgetter

import numpy as np

from builder.score import inference, market
from builder.score.columns import NAMES, RowTable, codes, group_means
from builder.score.definitions import label
from builder.score.measurerows import named_columns
from builder.score.metrics import (
    accuracy_hda,
    brier_score_hda,
    log_loss_hda,
    rps_hda,
    scoreline_display,
)
from builder.score.types import (
    INTERVAL_MEASURES,
    MEASURES,
    Cell,
    LeaderboardRow,
    ScoredForecast,
)
from collector.records import Forecast

ENSEMBLE_ID = "llm-ensemble"
NOTES = [
    "Coverage = scored events / resolved events scheduled in the condition; ranked when coverage "
    ">= half the best coverage in the condition (WorldCupArena rule).",
    "Matched view: events scored by every ranked forecaster of the condition.",
    "Log loss clips probabilities at 1e-6 (at most 13.8 nats per forecast).",
    f"{label('scoreline_90')}: WorldCupArena eq. (1) on the 90-minute score, no display transform; "
    f"{label('scoreline_wca_c70')} and {label('exact_wca')} use the score WorldCupArena publishes (extra-time "
    "goals included) and appear in `prematch paper-tables` and `score --json` (builder/score/definitions.py).",
]

Condition = tuple[str, str, str, str]  # access, strategy, horizon, clock


def condition_of(cell: Cell) -> Condition:
    return (cell.access, cell.strategy, cell.horizon, cell.clock)


def _cell_sort(cell: Cell) -> tuple:
    order = inference.HORIZON_ORDER
    return (cell.clock, order.index(cell.horizon) if cell.horizon in order else 9, cell.access,
            cell.strategy, cell.forecaster)


def per_cell_events(rows: list[ScoredForecast], names: tuple[str, ...],
                    cell_of: Callable[[ScoredForecast], object] = lambda r: "all") -> dict:
    """{cell: {event: vector of per-event means}}, averaging samples, in one vectorised pass."""
    groups: dict[tuple, int] = {}
    gid = np.fromiter((groups.setdefault((cell_of(row), (row.competition_id, row.event_id)), len(groups))
                       for row in rows), dtype=np.intp, count=len(rows))
    values = named_columns(rows, names)
    if values is None:
        values = np.array([_measure_values(row, names) for row in rows], dtype=float).reshape(len(rows), len(names))
    means = group_means(values, gid, len(groups))
    out: dict = defaultdict(dict)
    for (cell, event), g in groups.items():
        out[cell][event] = means[g]
    return out


def _measure_values(row: ScoredForecast, names: tuple[str, ...]) -> list[float]:
    """The row's value of each named measure (advancement measures included), NaN where absent."""
    merged = {**row.measures, **row.advancement} if row.advancement else row.measures
    try:
        return _getter(names)(merged)
    except KeyError:
        return [merged.get(n, np.nan) for n in names]


@cache
def _getter(names: tuple[str, ...]) -> Callable[[dict], list[float]]:
    get = itemgetter(*names)
    return (lambda d: [get(d)]) if len(names) == 1 else get


def eligible_by_condition(archive, forecasts: list[Forecast]) -> dict[Condition, set[tuple[str, str]]]:
    """Resolved events that any forecaster was scheduled for, per condition."""
    resolved = {k for k, o in archive.outcomes.items() if o.status.has_result and o.score_90 is not None}
    eligible: dict[Condition, set] = defaultdict(set)
    for f in forecasts:
        key = (f.competition_id, f.target_id)
        if key in resolved:
            eligible[(f.access._value_, f.strategy._value_, f.horizon._value_, f.clock._value_)].add(key)
    return eligible


def schedule_of(archive, forecasts: list[Forecast]) -> tuple[dict[Cell, int], dict[str, str], dict]:
    """In one pass over ``forecasts``: the number of forecasts of each cell (cells by first
    appearance), each forecaster's type and :func:`eligible_by_condition`."""
    resolved = {k for k, o in archive.outcomes.items() if o.status.has_result and o.score_90 is not None}
    counted: dict[tuple, int] = defaultdict(int)  # plain tuples: one Cell per cell, not per forecast
    kinds: dict[str, str] = {}
    eligible: dict[Condition, set] = defaultdict(set)
    for f in forecasts:  # StrEnum fields: ``_value_`` is ``.value`` without the enum descriptor (per forecast)
        condition = (f.access._value_, f.strategy._value_, f.horizon._value_, f.clock._value_)
        counted[(f.forecaster, *condition)] += 1
        kinds[f.forecaster] = f.forecaster_type._value_
        key = (f.competition_id, f.target_id)
        if key in resolved:
            eligible[condition].add(key)
    return {Cell(*key): n for key, n in counted.items()}, kinds, eligible


def leaderboard(archive, forecasts: list[Forecast], rows: list[ScoredForecast], market_rows: dict,
                resampler: inference.Resampler | None = None, *, table: RowTable | None = None) -> list[LeaderboardRow]:
    """The "all" view: every forecaster x cell with its scored events, coverage and ranking.

    ``table`` is ``RowTable.of(rows)`` when the caller already has it."""
    table = RowTable.of(rows) if table is None else table
    scheduled, kinds, eligible = schedule_of(archive, forecasts)
    by_cell = cells_of(table)
    for cell in scheduled:
        by_cell.setdefault(cell, _NONE)
    built = build_rows(table, by_cell, "all", resampler, market_rows,
                       eligible=lambda c: len(eligible.get(condition_of(c), ())),
                       scheduled=lambda c: scheduled.get(c, 0), kinds=kinds)
    return rank_by_coverage(built)


_NONE = np.empty(0, dtype=np.intp)


def cells_of(table: RowTable) -> dict[Cell, np.ndarray]:
    """Each cell's row indices (in row order), cells in leaderboard order (:func:`_cell_sort`)."""
    return dict(sorted(((Cell(*key), index) for key, index in table.by_cell().items()),
                       key=lambda kv: _cell_sort(kv[0])))


def build_rows(table: RowTable, by_cell: dict[Cell, np.ndarray], view: str, resampler, market_rows: dict, *,
               eligible: Callable[[Cell], int], scheduled: Callable[[Cell], int], kinds: dict[str, str],
               kept: Callable[[Cell], set] | None = None) -> list[LeaderboardRow]:
    """One leaderboard row per cell of ``by_cell`` (cell -> the table's row indices of the view;
    ``kept`` gives the events a cell's market summary counts, as the rows do; None: all of them)."""
    per_cell = {cell: table.event_means(index) for cell, index in by_cell.items()}
    intervals = cell_intervals(table, per_cell, resampler)
    adv = NAMES.index("advancement_brier")
    out = []
    for cell, (events, matrix) in sorted(per_cell.items(), key=lambda kv: _cell_sort(kv[0])):
        means = dict(zip(NAMES, column_means(matrix), strict=True))
        total = eligible(cell)
        out.append(LeaderboardRow(
            forecaster=cell.forecaster, forecaster_type=kinds.get(cell.forecaster, "llm"), access=cell.access,
            strategy=cell.strategy, horizon=cell.horizon, clock=cell.clock, view=view, n=len(events),
            scheduled=scheduled(cell), eligible_events=total, coverage=len(events) / total if total else None,
            ranked=False, measures=means, intervals=intervals.get(cell, {}),
            scoreline_display=_opt(scoreline_display(means["scoreline"])) if means["scoreline"] is not None else None,
            ece=table.ece(by_cell[cell]), n_advancement=int(np.sum(~np.isnan(matrix[:, adv]))),
            market=market.summarise(_kept_events(market_rows.get(cell, {}), None if kept is None else kept(cell))),
        ))
    return out


def _kept_events(events: dict, kept: set | None) -> dict:
    """The entries of ``events`` whose event is in ``kept`` (all of them when ``kept`` is None)."""
    return events if kept is None else {e: v for e, v in events.items() if e in kept}


def cell_intervals(table: RowTable, per_cell: dict, resampler) -> dict[Cell, dict]:
    """Bootstrap intervals of every interval measure of every cell in one matrix product
    (``per_cell``: cell -> (event codes, per-event means) of :meth:`RowTable.event_means`)."""
    if resampler is None or not per_cell:
        return {}
    idx = resampler.index()
    position = np.array([idx.get(e, -1) for e in table.events], dtype=np.intp)
    picked = [NAMES.index(n) for n in INTERVAL_MEASURES]
    width = len(INTERVAL_MEASURES)
    matrix = np.full((len(resampler.events), len(per_cell) * width), np.nan)
    for c, (events, means) in enumerate(per_cell.values()):
        if (position[events] < 0).any():
            raise KeyError(f"events {[table.events[e] for e in events[position[events] < 0]]} are not resampled")
        matrix[position[events][:, None], np.arange(c * width, (c + 1) * width)] = means[:, picked]
    low, high = resampler.mean_intervals(matrix)
    out: dict[Cell, dict] = defaultdict(dict)
    for c, cell in enumerate(per_cell):
        for m, name in enumerate(INTERVAL_MEASURES):
            j = c * width + m
            out[cell][name] = None if np.isnan(low[j]) else (float(low[j]), float(high[j]))
    return out


def rank_by_coverage(rows: list[LeaderboardRow]) -> list[LeaderboardRow]:
    """WorldCupArena coverage rule (seeds/001 §4.4): ranked if the row covers at least half as many
    matches as the most complete forecaster of its condition (same eligible events, so coverage)."""
    best: dict[Condition, float] = defaultdict(float)
    for r in rows:
        key = (r.access, r.strategy, r.horizon, r.clock)
        best[key] = max(best[key], r.coverage or 0.0)
    return [
        replace(r, ranked=r.n > 0 and (r.coverage or 0.0) >= 0.5 * best[(r.access, r.strategy, r.horizon, r.clock)])
        for r in rows
    ]


def matched_view(board: list[LeaderboardRow], rows: list[ScoredForecast], market_rows: dict,
                 resampler=None, *, table: RowTable | None = None) -> list[LeaderboardRow]:
    """The same rows restricted to events every ranked forecaster of the condition scored."""
    table = RowTable.of(rows) if table is None else table
    by_cell = cells_of(table)
    ranked_cells = [Cell(r.forecaster, r.access, r.strategy, r.horizon, r.clock) for r in board if r.ranked]
    common: dict[Condition, set] = {}  # event codes of the table
    for cell in ranked_cells:
        events = set(table.event[by_cell.get(cell, _NONE)].tolist())
        cond = condition_of(cell)
        common[cond] = events if cond not in common else common[cond] & events
    selected = {}
    for c in ranked_cells:
        index = by_cell.get(c, _NONE)
        shared = np.fromiter(common.get(condition_of(c), ()), dtype=np.intp)
        selected[c] = index[np.isin(table.event[index], shared)]
    common_keys = {cond: {table.events[e] for e in found} for cond, found in common.items()}
    kinds = {r.forecaster: r.forecaster_type for r in board}
    sched = {Cell(r.forecaster, r.access, r.strategy, r.horizon, r.clock): r.scheduled for r in board}
    built = build_rows(table, selected, "matched", resampler, market_rows,
                       eligible=lambda c: len(common.get(condition_of(c), ())),
                       scheduled=lambda c: sched.get(c, 0), kinds=kinds,
                       kept=lambda c: common_keys.get(condition_of(c), set()))
    return rank_by_coverage(built)


def ensemble_rows(rows: list[ScoredForecast], resampler=None, *, table: RowTable | None = None) -> list[LeaderboardRow]:
    """Equal-weight LLM ensemble per condition, scored on the probability measures only.

    Per (condition, event): each LLM's samples are averaged, then the LLMs (two at least), in
    the order they first appear; both means sum in row order (``np.add.at``), as ``np.mean``
    over the rows' vectors does."""
    table = RowTable.of(rows) if table is None else table
    llm = np.flatnonzero(table.llm)
    if not len(llm):
        return []
    condition = [cell[1:] for cell in table.cells]
    key, keys = codes(zip((condition[c] for c in table.cell[llm].tolist()), table.event[llm].tolist(), strict=True))
    member, members = codes(zip(key.tolist(), (table.cells[c][0] for c in table.cell[llm].tolist()), strict=True))
    per_member = group_means(table.p[llm], member, len(members))  # each LLM's mean over its samples
    member_key = np.array([k for k, _ in members], dtype=np.intp)
    sums = np.zeros((len(keys), 3))
    np.add.at(sums, member_key, per_member)
    size = np.bincount(member_key, minlength=len(keys))
    wanted = np.flatnonzero(size >= 2)
    if not len(wanted):
        return []
    p = sums[wanted] / size[wanted][:, None]
    last = np.zeros(len(keys), dtype=np.intp)
    np.maximum.at(last, key, llm)  # the truth of a key: its last row's (the same for every row of the event)
    y = np.array([("home", "draw", "away").index(table.rows[last[k]].result) for k in wanted], dtype=int)
    cols = {"brier": brier_score_hda(p, y), "log_loss": log_loss_hda(p, y), "rps": rps_hda(p, y),
            "accuracy": accuracy_hda(p, y)}
    cols["brier_pa"] = cols["brier"] / 3.0  # Prophet Arena scale: mean over the three markets
    scored = []
    for i, k in enumerate(wanted.tolist()):
        (access, strategy, horizon, clock), (competition, event) = keys[k][0], table.events[keys[k][1]]
        truth = table.rows[last[k]]
        scored.append(ScoredForecast(
            competition, event, ENSEMBLE_ID, "ensemble", None, access, strategy, horizon, 0, clock, "derived", "",
            truth.knockout, *map(float, p[i]), 0, 0, 0, 0, truth.result, None,
            {n: float(cols[n][i]) if n in cols else float("nan") for n in MEASURES}))
    ensemble = RowTable.of(scored)
    by_cell = cells_of(ensemble)
    counts = {c: len(v) for c, v in by_cell.items()}  # one row per event
    return build_rows(ensemble, by_cell, "ensemble", resampler, {}, eligible=lambda c: counts[c],
                      scheduled=lambda c: 0, kinds={ENSEMBLE_ID: "ensemble"})


def column_means(matrix: np.ndarray) -> list[float | None]:
    """Each column's mean over its non-NaN entries (None when it has none): ``_mean`` of every
    column, with the columns without gaps in one reduction (each row of the transposed copy is
    summed as ``_mean`` sums its column: numpy's pairwise sum of one contiguous row)."""
    out: list[float | None] = [None] * matrix.shape[1]
    gaps = np.isnan(matrix).any(axis=0)
    full = np.flatnonzero(~gaps)
    if len(full) and len(matrix):
        for j, mean in zip(full.tolist(), np.ascontiguousarray(matrix[:, full].T).mean(axis=1).tolist(), strict=True):
            out[j] = mean
    for j in np.flatnonzero(gaps).tolist():
        out[j] = _mean(matrix[:, j])
    return out


def _mean(column: np.ndarray) -> float | None:
    column = column[~np.isnan(column)]
    return float(column.mean()) if len(column) else None


def _opt(value) -> float | None:
    value = float(value)
    return None if np.isnan(value) else value
