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
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from operator import attrgetter, itemgetter

import numpy as np

from builder.score import calibration, inference, market
from builder.score.metrics import (
    accuracy_hda,
    brier_score_hda,
    log_loss_hda,
    rps_hda,
    scoreline_display,
)
from builder.score.types import (
    ADVANCEMENT_MEASURES,
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
    "Scoreline column: scoreline_90, WorldCupArena eq. (1) on the 90-minute score; scoreline_wca and "
    "exact_wca use the score WorldCupArena publishes (extra-time goals included) and appear in "
    "`python -m builder paper-tables` and `score --json` (builder/score/definitions.py).",
]

Condition = tuple[str, str, str, str]  # access, strategy, horizon, clock
CELL_FIELDS = ("forecaster", "access", "strategy", "horizon", "clock")


def condition_of(cell: Cell) -> Condition:
    return (cell.access, cell.strategy, cell.horizon, cell.clock)


_CELL_KEY = attrgetter(*CELL_FIELDS)
"""A row's cell as a plain tuple (hashing tuples is much cheaper than building a Cell per row)."""


def group_by_cell(rows: list[ScoredForecast]) -> dict[Cell, list[ScoredForecast]]:
    cells: dict[tuple, list[ScoredForecast]] = defaultdict(list)
    for row in rows:
        cells[_CELL_KEY(row)].append(row)
    return dict(sorted(((Cell(*key), found) for key, found in cells.items()), key=lambda kv: _cell_sort(kv[0])))


def _cell_sort(cell: Cell) -> tuple:
    order = inference.HORIZON_ORDER
    return (cell.clock, order.index(cell.horizon) if cell.horizon in order else 9, cell.access,
            cell.strategy, cell.forecaster)


def event_matrix(rows: list[ScoredForecast], names: tuple[str, ...]) -> dict[tuple[str, str], np.ndarray]:
    """Per event, the mean of each named measure over the rows (samples); NaN where undefined."""
    return per_cell_events(rows, names).get("all", {})


def per_cell_events(rows: list[ScoredForecast], names: tuple[str, ...],
                    cell_of: Callable[[ScoredForecast], object] = lambda r: "all") -> dict:
    """{cell: {event: vector of per-event means}}, averaging samples, in one vectorised pass."""
    groups: dict[tuple, int] = {}
    gid = np.empty(len(rows), dtype=np.intp)
    values = np.full((len(rows), len(names)), np.nan)
    for i, row in enumerate(rows):
        gid[i] = groups.setdefault((cell_of(row), (row.competition_id, row.event_id)), len(groups))
        values[i] = _measure_values(row, names)
    present = ~np.isnan(values)
    sums = np.zeros((len(groups), len(names)))
    counts = np.zeros((len(groups), len(names)))
    np.add.at(sums, gid, np.where(present, values, 0.0))
    np.add.at(counts, gid, present.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
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
            eligible[(f.access.value, f.strategy.value, f.horizon.value, f.clock.value)].add(key)
    return eligible


def leaderboard(archive, forecasts: list[Forecast], rows: list[ScoredForecast], market_rows: dict,
                resampler: inference.Resampler | None = None) -> list[LeaderboardRow]:
    """The "all" view: every forecaster x cell with its scored events, coverage and ranking."""
    scheduled: dict[Cell, int] = defaultdict(int)
    kinds: dict[str, str] = {}
    for f in forecasts:
        scheduled[Cell(f.forecaster, f.access.value, f.strategy.value, f.horizon.value, f.clock.value)] += 1
        kinds[f.forecaster] = f.forecaster_type.value
    eligible = eligible_by_condition(archive, forecasts)
    by_cell = group_by_cell(rows)
    for cell in scheduled:
        by_cell.setdefault(cell, [])
    built = build_rows(by_cell, "all", resampler, market_rows,
                       eligible=lambda c: len(eligible.get(condition_of(c), ())),
                       scheduled=lambda c: scheduled.get(c, 0), kinds=kinds)
    return rank_by_coverage(built)


def build_rows(by_cell: dict[Cell, list[ScoredForecast]], view: str, resampler, market_rows: dict, *,
               eligible: Callable[[Cell], int], scheduled: Callable[[Cell], int], kinds: dict[str, str],
               keep: Callable[[Cell, tuple[str, str]], bool] = lambda c, e: True) -> list[LeaderboardRow]:
    names = MEASURES + ADVANCEMENT_MEASURES
    all_rows = [r for cell_rows in by_cell.values() for r in cell_rows]
    event_means = per_cell_events(all_rows, names, cell_of=_CELL_KEY)
    per_cell = {cell: {k: v for k, v in event_means.get(_CELL_KEY(cell), {}).items() if keep(cell, k)}
                for cell in by_cell}
    intervals = cell_intervals(per_cell, names, resampler)
    out = []
    for cell, events in sorted(per_cell.items(), key=lambda kv: _cell_sort(kv[0])):
        matrix = np.array(list(events.values())) if events else np.empty((0, len(names)))
        means = {n: _mean(matrix[:, j]) for j, n in enumerate(names)}
        n_adv = int(np.sum(~np.isnan(matrix[:, names.index("advancement_brier")]))) if len(matrix) else 0
        kept = [r for r in by_cell[cell] if keep(cell, (r.competition_id, r.event_id))]
        total = eligible(cell)
        out.append(LeaderboardRow(
            forecaster=cell.forecaster, forecaster_type=kinds.get(cell.forecaster, "llm"), access=cell.access,
            strategy=cell.strategy, horizon=cell.horizon, clock=cell.clock, view=view, n=len(events),
            scheduled=scheduled(cell), eligible_events=total, coverage=len(events) / total if total else None,
            ranked=False, measures=means, intervals=intervals.get(cell, {}),
            scoreline_display=_opt(scoreline_display(means["scoreline"])) if means["scoreline"] is not None else None,
            ece=calibration.ece_of_rows(kept), n_advancement=n_adv,
            market=market.summarise({e: v for e, v in market_rows.get(cell, {}).items() if keep(cell, e)}),
        ))
    return out


def cell_intervals(per_cell: dict, names: tuple[str, ...], resampler) -> dict[Cell, dict]:
    """Bootstrap intervals of every interval measure of every cell in one matrix product."""
    if resampler is None or not per_cell:
        return {}
    idx = resampler.index()
    cols = [(cell, n) for cell in per_cell for n in INTERVAL_MEASURES]
    matrix = np.full((len(resampler.events), len(cols)), np.nan)
    for j, (cell, name) in enumerate(cols):
        k = names.index(name)
        for event, values in per_cell[cell].items():
            matrix[idx[event], j] = values[k]
    low, high = resampler.mean_intervals(matrix)
    out: dict[Cell, dict] = defaultdict(dict)
    for j, (cell, name) in enumerate(cols):
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
                 resampler=None) -> list[LeaderboardRow]:
    """The same rows restricted to events every ranked forecaster of the condition scored."""
    by_cell = group_by_cell(rows)
    ranked_cells = [Cell(r.forecaster, r.access, r.strategy, r.horizon, r.clock) for r in board if r.ranked]
    common: dict[Condition, set] = {}
    for cell in ranked_cells:
        events = {(r.competition_id, r.event_id) for r in by_cell.get(cell, [])}
        cond = condition_of(cell)
        common[cond] = events if cond not in common else common[cond] & events
    selected = {c: by_cell.get(c, []) for c in ranked_cells}
    kinds = {r.forecaster: r.forecaster_type for r in board}
    sched = {Cell(r.forecaster, r.access, r.strategy, r.horizon, r.clock): r.scheduled for r in board}
    built = build_rows(selected, "matched", resampler, market_rows,
                       eligible=lambda c: len(common.get(condition_of(c), ())),
                       scheduled=lambda c: sched.get(c, 0), kinds=kinds,
                       keep=lambda c, e: e in common.get(condition_of(c), set()))
    return rank_by_coverage(built)


def ensemble_rows(rows: list[ScoredForecast], resampler=None) -> list[LeaderboardRow]:
    """Equal-weight LLM ensemble per condition, scored on the probability measures only."""
    members: dict[tuple, dict[str, list[np.ndarray]]] = defaultdict(lambda: defaultdict(list))
    truth: dict[tuple, tuple] = {}
    for r in rows:
        if r.forecaster_type == "llm":
            key = (r.access, r.strategy, r.horizon, r.clock, r.competition_id, r.event_id)
            members[key][r.forecaster].append(np.array([r.p_home, r.p_draw, r.p_away]))
            truth[key] = (r.result, r.knockout)
    keys = [k for k, m in members.items() if len(m) >= 2]
    if not keys:
        return []
    p = np.array([np.mean([np.mean(v, axis=0) for v in members[k].values()], axis=0) for k in keys])
    y = np.array([("home", "draw", "away").index(truth[k][0]) for k in keys])
    cols = {"brier": brier_score_hda(p, y), "log_loss": log_loss_hda(p, y), "rps": rps_hda(p, y),
            "accuracy": accuracy_hda(p, y)}
    cols["brier_pa"] = cols["brier"] / 3.0  # Prophet Arena scale: mean over the three markets
    scored = [
        ScoredForecast(k[4], k[5], ENSEMBLE_ID, "ensemble", None, k[0], k[1], k[2], 0, k[3], "derived", "",
                       truth[k][1], *map(float, p[i]), 0, 0, 0, 0, truth[k][0], None,
                       {n: float(cols[n][i]) if n in cols else float("nan") for n in MEASURES})
        for i, k in enumerate(keys)
    ]
    by_cell = group_by_cell(scored)
    counts = {c: len(v) for c, v in by_cell.items()}
    return build_rows(by_cell, "ensemble", resampler, {}, eligible=lambda c: counts[c],
                      scheduled=lambda c: 0, kinds={ENSEMBLE_ID: "ensemble"})


def _mean(column: np.ndarray) -> float | None:
    column = column[~np.isnan(column)]
    return float(column.mean()) if len(column) else None


def _opt(value) -> float | None:
    value = float(value)
    return None if np.isnan(value) else value
