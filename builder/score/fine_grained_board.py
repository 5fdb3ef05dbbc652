"""WorldCupArena's layers and composite for every scored match forecast, and per leaderboard cell.

Per forecast (:func:`row_layers`, called by ``builder.score.scoring`` as it builds each row):
T1 is the result-and-score layer of :func:`builder.score.t1.t1_score`; T2-T4 are the fine-grained layers of
:mod:`builder.score.fine_grained` against the event's match report. WorldCupArena eq. (2)
skips what has no *truth*: a task the report has no data for is left out (NaN). A task whose
truth exists but which the forecast did not forecast (no fine-grained part at all, or a
statistic left out) scores 0: never a free pass, so a forecaster that forecast T1 only ranks
below one that also forecast T2-T4 with the same T1. Per cell (:func:`composite_of`): each
layer's mean over the matches where it has truth, with its N; T5, the competition layer,
from the cell's full-tournament forecasts (:mod:`builder.score.t5_layer`); the composite by
eq. (2) over those means and its display value C (eq. 3) applied once.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict

import numpy as np

from builder.score import fine_grained_layers as fl
from builder.score.columns import RowTable
from builder.score.fine_grained import task_scores, truth_tasks
from builder.score.t1 import t1_of
from builder.score.t5_layer import NO_T5, T5Layer
from builder.score.types import LeaderboardRow, ScoredForecast
from collector.archive.reader import Archive
from collector.records import Forecast, MatchForecast


def forecast_tasks(archive: Archive, row: ScoredForecast) -> dict[str, float]:
    """The T2-T4 task scores of one scored row (empty when it has no fine-grained part or no report)."""
    record = archive.records.get(row.path or "")
    payload = record.payload if isinstance(record, Forecast) else None
    return payload_tasks(archive, payload, (row.competition_id, row.event_id))


def _goal_total(archive: Archive, event: tuple[str, str]) -> int | None:
    outcome = archive.outcomes.get(event)
    final = outcome.score_extra_time or outcome.score_90 if outcome is not None else None
    return None if final is None else final.home + final.away


def payload_tasks(archive: Archive, payload, event: tuple[str, str]) -> dict[str, float]:
    """The T2-T4 task scores of a forecast's payload on ``event`` (competition, event id): empty
    when it is no match forecast, has no fine-grained part or the event has no match report."""
    report = archive.match_reports.get(event)
    if not isinstance(payload, MatchForecast) or payload.fine_grained is None or report is None:
        return {}
    return task_scores(payload.fine_grained, report, _goal_total(archive, event))


def event_truth(archive: Archive, event: tuple[str, str]) -> frozenset[str]:
    """The T2-T4 tasks the event's match report has truth for (empty without a report)."""
    report = archive.match_reports.get(event)
    return frozenset() if report is None else truth_tasks(report, _goal_total(archive, event))


def credited(tasks: dict[str, float], truth: frozenset[str]) -> dict[str, float]:
    """The task scores a forecast is credited with: its own score of every task with truth, 0
    where it has none (not forecast); tasks without truth are absent (left out by eq. 2)."""
    out = {}
    for task in truth:
        value = tasks.get(task, 0.0)
        out[task] = 0.0 if value != value else value  # NaN (truth there, no forecast of it): 0
    return out


def row_layers(tasks: dict[str, float], measures: dict[str, float],
               advancement: dict[str, float] | None, truth: frozenset[str] = frozenset()) -> dict[str, float]:
    """A row's ``layers``: T1 from its measures, T2-T4 from its ``tasks`` credited against the
    event's ``truth`` (:func:`credited`); NaN = no truth for the layer."""
    return fl.match_layers(credited(tasks, truth), t1_of(measures, advancement))


def composite_of(rows: list[ScoredForecast], t5: T5Layer = NO_T5) -> dict[str, float | int | None]:
    """Layer means and N, the raw composite (eq. 2 over the layers with truth) and C of it, of
    the rows of one cell (one forecaster, access, strategy, horizon and clock).

    Matches count once: the layers of a cell's several samples of one match are averaged first.
    T5 comes from ``t5`` for the cell's tournaments (:meth:`T5Layer.of_cell`)."""
    per_event: dict[tuple, list[dict[str, float]]] = defaultdict(list)
    for r in rows:
        if r.layers is not None:
            per_event[(r.competition_id, r.event_id)].append(r.layers)
    names = tuple(fl.LAYER_WEIGHTS)
    matrix = np.array([[ms[0].get(k, np.nan) for k in names] if len(ms) == 1  # one sample: its own value
                       else [_nanmean([m.get(k, np.nan) for m in ms]) for k in names] for ms in per_event.values()],
                      dtype=float).reshape(len(per_event), len(names))
    first = rows[0] if rows else None
    layer5 = t5.of_cell(first.forecaster, first.access, first.clock, {e[0] for e in per_event}) if first \
        else (float("nan"), 0)
    return _composite(matrix, layer5)


def _composite(matrix: np.ndarray, layer5: tuple[float, int]) -> dict[str, float | int | None]:
    """The composite of a matches x layers matrix (T1-T4; its T5 column is unused) and the cell's
    T5 layer (mean, N): each layer's mean over the matches with truth, eq. 2 over the layers
    with truth, C_50,5 of it (``composite``; eq. 2 alone is ``composite_raw``). ``composite_n`` is the
    number of matches; ``t1``-``t5`` are the raw layer means and ``t1_n``-``t5_n`` their N."""
    means = fl.layer_column_means(matrix)
    means["T5"] = layer5
    raw = fl.composite_raw({k: v for k, (v, _) in means.items()})
    out: dict[str, float | int | None] = {"composite_raw": _none(raw),
                                          "composite": None if math.isnan(raw) else fl.composite_display(raw),
                                          "composite_n": len(matrix)}
    for layer, (mean, n) in means.items():  # raw layer means (no display transform), ids t1-t5 of the registry
        out[layer.lower()], out[f"{layer.lower()}_n"] = _none(mean), n
    return out


def with_composite(board: list[LeaderboardRow], rows: list[ScoredForecast],
                   found: dict[tuple, dict] | None = None, *, table: RowTable | None = None,
                   t5: T5Layer = NO_T5) -> list[LeaderboardRow]:
    """The leaderboard rows with their cell's composite (over every scored match of the cell,
    T5 from ``t5``).

    ``found`` (cell tuple -> composite) is filled and reused, so views of the same ``rows``
    compute each cell's composite once; every row gets its own copy. ``table`` is
    ``RowTable.of(rows)`` when the caller has it."""
    found = {} if found is None else found
    table = RowTable.of(rows) if table is None else table
    cells = table.by_cell()
    out = []
    for b in board:
        key = (b.forecaster, b.access, b.strategy, b.horizon, b.clock)
        if key not in found:
            found[key] = table_composite(table, cells.get(key, _NONE), t5)
        out.append(dataclasses.replace(b, composite=dict(found[key])))
    return out


_NONE = np.empty(0, dtype=np.intp)


def table_composite(table: RowTable, index: np.ndarray, t5: T5Layer = NO_T5) -> dict[str, float | int | None]:
    """:func:`composite_of` of the table's rows ``index`` (ascending), from its layer columns."""
    layered = index[table.layered[index]]
    if len(index):
        forecaster, access, _, _, clock = table.cells[table.cell[index[0]]]
        layer5 = t5.of_cell(forecaster, access, clock, {table.events[e][0] for e in table.event[layered].tolist()})
    else:
        layer5 = (float("nan"), 0)
    return _composite(event_layers(table, layered), layer5)


def event_layers(table: RowTable, index: np.ndarray) -> np.ndarray:
    """matches x layers of rows ``index`` (ascending, rows with layers): the matches by first
    appearance, each its one row's layers or, with several samples, each layer's ``_nanmean``
    over its rows in row order (as :func:`composite_of` builds it)."""
    event = table.event[index]
    _, first, inverse, counts = np.unique(event, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    matrix = table.layers[index[first[order]]]
    inverse = inverse.ravel()
    for g in np.flatnonzero(counts[order] > 1).tolist():
        members = table.layers[index[inverse == order[g]]]
        matrix[g] = [_nanmean(members[:, k].tolist()) for k in range(members.shape[1])]
    return matrix.reshape(len(order), len(fl.LAYER_WEIGHTS))


def _nanmean(values: list[float]) -> float:
    arr = np.array(values, dtype=float)
    return float(np.nanmean(arr)) if (~np.isnan(arr)).any() else float("nan")


def _none(value: float) -> float | None:
    return None if math.isnan(value) else float(value)
