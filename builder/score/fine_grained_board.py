"""WorldCupArena's layers and composite for every scored match forecast, and per leaderboard cell.

Per forecast (:func:`with_layers`): T1 is the result-and-score layer of
:func:`builder.score.t1.t1_score` (issue 14's "composite", kept under that name);
T2-T4 are the fine-grained layers of :mod:`builder.score.fine_grained` against the event's
match report, NaN when the forecast has no fine-grained part or the report has no truth for
the layer (the prediction or the truth is missing: left out, never 0). Per cell
(:func:`composite_of`): each layer's mean over the matches where it is available, with its N,
the composite by eq. (2) over those means and its display value C (eq. 3) applied once.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict

import numpy as np

from builder.score import fine_grained_layers as fl
from builder.score.columns import RowTable
from builder.score.fine_grained import task_scores
from builder.score.t1 import t1_of
from builder.score.types import LeaderboardRow, ScoredForecast
from collector.archive.reader import Archive
from collector.records import Forecast, MatchForecast


def forecast_tasks(archive: Archive, row: ScoredForecast) -> dict[str, float]:
    """The T2-T4 task scores of one scored row (empty when it has no fine-grained part or no report)."""
    record = archive.records.get(row.path or "")
    payload = record.payload if isinstance(record, Forecast) else None
    return payload_tasks(archive, payload, (row.competition_id, row.event_id))


def payload_tasks(archive: Archive, payload, event: tuple[str, str]) -> dict[str, float]:
    """The T2-T4 task scores of a forecast's payload on ``event`` (competition, event id): empty
    when it is no match forecast, has no fine-grained part or the event has no match report."""
    report = archive.match_reports.get(event)
    if not isinstance(payload, MatchForecast) or payload.fine_grained is None or report is None:
        return {}
    outcome = archive.outcomes.get(event)
    final = outcome.score_extra_time or outcome.score_90 if outcome is not None else None
    return task_scores(payload.fine_grained, report, None if final is None else final.home + final.away)


def row_layers(tasks: dict[str, float], measures: dict[str, float],
               advancement: dict[str, float] | None) -> dict[str, float]:
    """A row's ``layers`` (T1 from its measures, T2-T4 from its ``tasks``), NaN = unavailable."""
    return fl.match_layers(tasks, t1_of(measures, advancement))


def with_layers(archive: Archive, rows: list[ScoredForecast]) -> list[ScoredForecast]:
    """Each row with ``layers`` (T1-T4, NaN = unavailable) and ``fine_tasks`` (the T2-T4 task scores).

    ``builder.score.scoring`` gives rows their layers as it builds them (the same functions);
    this is for rows scored without them."""
    out = []
    for row in rows:
        tasks = forecast_tasks(archive, row)
        out.append(dataclasses.replace(row, layers=row_layers(tasks, row.measures, row.advancement),
                                       fine_tasks=tasks))
    return out


def composite_of(rows: list[ScoredForecast]) -> dict[str, float | int | None]:
    """Layer means and N, the raw composite (eq. 2 over the available layer means) and C of it.

    Matches count once: the layers of a cell's several samples of one match are averaged first.
    A cell that forecasts no fine-grained layer (every strategy but fine_grained) has no composite:
    eq. 2 over its T1 alone would rank it beside full forecasts on another footing (its T1 is
    still given, and the WorldCupArena table keeps its T1-only composite)."""
    per_event: dict[tuple, list[dict[str, float]]] = defaultdict(list)
    for r in rows:
        if r.layers is not None:
            per_event[(r.competition_id, r.event_id)].append(r.layers)
    names = tuple(fl.LAYER_WEIGHTS)
    matrix = np.array([[ms[0].get(k, np.nan) for k in names] if len(ms) == 1  # one sample: its own value
                       else [_nanmean([m.get(k, np.nan) for m in ms]) for k in names] for ms in per_event.values()],
                      dtype=float).reshape(len(per_event), len(names))
    return _composite(matrix, any(r.fine_tasks for r in rows))


def _composite(matrix: np.ndarray, fine: bool) -> dict[str, float | int | None]:
    """The composite of a matches x layers matrix (``fine``: some row has fine-grained tasks)."""
    means = fl.layer_column_means(matrix)
    raw = fl.composite_raw({k: v for k, (v, _) in means.items()})
    if not fine:
        raw = float("nan")
    out: dict[str, float | int | None] = {"composite_raw": _none(raw),
                                          "composite": None if math.isnan(raw) else fl.composite_display(raw),
                                          "composite_n": len(matrix)}
    for layer, (mean, n) in means.items():
        out[f"{layer}_raw"], out[f"{layer}_n"] = _none(mean), n
        out[layer] = None if math.isnan(mean) else fl.layer_display(mean)
    return out


def with_composite(board: list[LeaderboardRow], rows: list[ScoredForecast],
                   found: dict[tuple, dict] | None = None, *, table: RowTable | None = None) -> list[LeaderboardRow]:
    """The leaderboard rows with their cell's composite (over every scored match of the cell).

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
            found[key] = table_composite(table, cells.get(key, _NONE))
        out.append(dataclasses.replace(b, composite=dict(found[key])))
    return out


_NONE = np.empty(0, dtype=np.intp)


def table_composite(table: RowTable, index: np.ndarray) -> dict[str, float | int | None]:
    """:func:`composite_of` of the table's rows ``index`` (ascending), from its layer columns."""
    return _composite(event_layers(table, index[table.layered[index]]), bool(table.fine[index].any()))


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
