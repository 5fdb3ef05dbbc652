"""The scored rows as columns: one entry per row, in row order (the leaderboard views' input).

Scoring keeps :class:`builder.score.types.ScoredForecast` rows (the site reads them), but every
leaderboard view, every slice and the ensemble aggregate the same rows again and again.
:class:`RowTable` takes from the rows, once, what aggregation needs -- every measure as a
rows x measures matrix (NaN where absent), each row's cell and event as integer codes, the
probability vectors and the realised outcomes -- so that a view is numpy over index arrays.

Codes are numbered by first appearance in row order, so sorting by code is row order: every
per-event mean below sums its samples in row order and lists a cell's events in the order
their first row appears, exactly as the row-by-row aggregation did (same sums, same order,
the same floats to the last bit).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter, itemgetter

import numpy as np

from builder.score.calibration import expected_calibration_error
from builder.score.fine_grained_layers import LAYER_WEIGHTS
from builder.score.measurerows import NAMES, ROW_LAYERS, shared_layers, shared_matrix
from builder.score.metrics import CLASSES
from builder.score.types import ADVANCEMENT_MEASURES, MEASURES, ScoredForecast

LAYERS = tuple(LAYER_WEIGHTS)
"""The columns of :attr:`RowTable.layers` (T1-T5), in this order."""
CELL_FIELDS = ("forecaster", "access", "strategy", "horizon", "clock")
CELL_KEY = attrgetter(*CELL_FIELDS)
"""A row's cell as a plain tuple (hashing tuples is much cheaper than building a Cell per row)."""
_EVENT_KEY = attrgetter("competition_id", "event_id")
_MEASURES_OF = itemgetter(*MEASURES)
_ROW_LAYERS_OF = itemgetter(*ROW_LAYERS)
_PROBABILITIES = attrgetter("p_home", "p_draw", "p_away")
_RESULT = attrgetter("result")
_KIND = attrgetter("forecaster_type")
_CLASS_INDEX = {c: i for i, c in enumerate(CLASSES)}


def one_hot(results: list[str]) -> np.ndarray:
    """rows x :data:`CLASSES`: 1.0 where the row's result is the class, else 0.0 (all 0.0 for a
    result that is none of them)."""
    index = np.array([_CLASS_INDEX.get(r, len(CLASSES)) for r in results], dtype=np.intp)
    return np.eye(len(CLASSES) + 1)[index, : len(CLASSES)].reshape(-1, len(CLASSES))


def codes(keys, known: dict | None = None) -> tuple[np.ndarray, list]:
    """Integer codes of ``keys`` numbered by first appearance, and the distinct keys in that order."""
    known = {} if known is None else known
    keys = list(keys)
    for key in dict.fromkeys(keys):  # the distinct keys by first appearance (at C speed), then their codes
        known.setdefault(key, len(known))
    return np.fromiter(map(known.__getitem__, keys), dtype=np.intp, count=len(keys)), list(known)


@dataclass(frozen=True, eq=False)
class RowTable:
    """Scored rows as columns (see the module docstring); ``rows[i]`` is row ``i`` of every array."""

    rows: list[ScoredForecast]
    values: np.ndarray
    """rows x :data:`NAMES`: each row's measures then its advancement measures, NaN where absent."""
    cell: np.ndarray
    """Each row's index into :attr:`cells`."""
    cells: list[tuple]
    """Distinct (forecaster, access, strategy, horizon, clock) tuples, by first appearance."""
    event: np.ndarray
    """Each row's index into :attr:`events`."""
    events: list[tuple[str, str]]
    """Distinct (competition, event id), by first appearance."""
    p: np.ndarray
    """rows x 3: p_home, p_draw, p_away."""
    outcome: np.ndarray
    """rows x 3: 1.0 for the realised result (home, draw, away), else 0.0."""
    llm: np.ndarray
    """Whether the row's forecaster is an LLM (``forecaster_type == "llm"``)."""
    layers: np.ndarray
    """rows x :data:`LAYERS`: each row's WorldCupArena layers (``ScoredForecast.layers``), NaN where
    absent; a row without layers (``None``) is all NaN and not :attr:`layered`."""
    layered: np.ndarray
    """Whether the row has layers (``layers is not None``)."""
    fine: np.ndarray
    """Whether the row has fine-grained task scores (``bool(fine_tasks)``)."""

    @classmethod
    def of(cls, rows: list[ScoredForecast]) -> RowTable:
        cell, cells = codes(map(CELL_KEY, rows))
        event, events = codes(map(_EVENT_KEY, rows))
        return cls(rows, measure_matrix(rows), cell, cells, event, events,
                   np.array(list(map(_PROBABILITIES, rows)), dtype=float).reshape(-1, 3),
                   one_hot(list(map(_RESULT, rows))),
                   np.array([kind == "llm" for kind in map(_KIND, rows)], dtype=bool),
                   *layer_columns(rows))

    def take(self, index: np.ndarray) -> RowTable:
        """The table of rows ``index`` (ascending), keeping this table's cell and event codes
        (a view lists cells in leaderboard order and events by first appearance among its rows,
        whatever their codes, so a part's table gives the numbers ``RowTable.of`` of its rows gives)."""
        index = np.asarray(index, dtype=np.intp)
        return RowTable([self.rows[i] for i in index.tolist()], self.values[index], self.cell[index], self.cells,
                        self.event[index], self.events, self.p[index], self.outcome[index], self.llm[index],
                        self.layers[index], self.layered[index], self.fine[index])

    def by_cell(self) -> dict[tuple, np.ndarray]:
        """Each cell's row indices (ascending, i.e. in row order), cells by first appearance."""
        order = np.argsort(self.cell, kind="stable")
        groups = np.split(order, np.flatnonzero(np.diff(self.cell[order])) + 1) if len(order) else []
        return {self.cells[self.cell[g[0]]]: g for g in groups}

    def event_means(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The events of rows ``index`` (ascending) by first appearance, and per event the mean of
        each column over its rows (samples), NaN where no row has the measure."""
        event = self.event[index]
        distinct, first, inverse = np.unique(event, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty(len(order), dtype=np.intp)
        rank[order] = np.arange(len(order))
        return distinct[order], group_means(self.values[index], rank[inverse.ravel()], len(order))

    def ece(self, index: np.ndarray) -> float | None:
        """:func:`builder.score.calibration.ece_of_rows` of rows ``index``."""
        if not len(index):
            return None
        return expected_calibration_error(self.p[index].ravel(), self.outcome[index].ravel())


def sample_mean(samples: list) -> np.ndarray | tuple | float:
    """``np.mean(samples, axis=0)`` of samples (probability vectors, or numbers), without a numpy
    reduction per forecast when there is one sample: numpy's mean of one row is ``0.0 + x`` per
    entry, i.e. the sample itself with -0.0 turned into 0.0, which ``x + 0.0`` gives exactly."""
    if len(samples) != 1:
        return np.mean(samples, axis=0)
    one = samples[0]
    return one + 0.0 if isinstance(one, (int, float)) else tuple(x + 0.0 for x in one)


def group_means(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, the mean of each column over the group's rows, NaN entries left out (NaN when
    none is left). Sums run in row order (``np.add.at``), as a row-by-row sum does."""
    present = ~np.isnan(values)
    sums = np.zeros((n_groups, values.shape[1]))
    counts = np.zeros((n_groups, values.shape[1]))
    np.add.at(sums, group, np.where(present, values, 0.0))
    np.add.at(counts, group, present.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def layer_columns(rows: list[ScoredForecast]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:attr:`RowTable.layers`, :attr:`RowTable.layered` and :attr:`RowTable.fine` of the rows."""
    layered = np.array([r.layers is not None for r in rows], dtype=bool)
    matrix = np.full((len(rows), len(LAYERS)), np.nan)
    index = np.flatnonzero(layered)
    if len(index):
        matrix[index] = _layer_values([rows[i].layers for i in index.tolist()])
    return matrix, layered, np.array([bool(r.fine_tasks) for r in rows], dtype=bool)


def _layer_values(found: list) -> np.ndarray:
    """len(found) x :data:`LAYERS`: each mapping's value of each layer, NaN where absent: the
    scoring's layers matrix when they are its rows (``measurerows.shared_layers``), the usual
    dicts (exactly T1-T4, as ``fine_grained_layers.match_layers`` gives) by one getter."""
    matrix = np.full((len(found), len(LAYERS)), np.nan)
    shared = shared_layers(found)
    if shared is not None:
        matrix[:, : len(ROW_LAYERS)] = shared
        return matrix
    if max(map(len, found)) == len(ROW_LAYERS):  # four keys each: T1-T4 if the getter finds them all
        try:
            matrix[:, : len(ROW_LAYERS)] = list(map(_ROW_LAYERS_OF, found))
            return matrix
        except KeyError:
            pass
    matrix[:] = np.array([[d.get(k, np.nan) for k in LAYERS] for d in found], dtype=float)
    return matrix


def measure_matrix(rows: list[ScoredForecast]) -> np.ndarray:
    """rows x :data:`NAMES`: every row's measures and advancement measures, NaN where absent;
    the scoring's own matrix (read-only) when the rows' measures are its rows
    (``builder.score.measurerows.shared_matrix``)."""
    shared = shared_matrix(rows)
    if shared is not None:
        return shared
    try:
        base = [_MEASURES_OF(r.measures) for r in rows]
    except KeyError:
        base = [[r.measures.get(n, np.nan) for n in MEASURES] for r in rows]
    matrix = np.full((len(rows), len(NAMES)), np.nan)
    matrix[:, : len(MEASURES)] = np.array(base, dtype=float).reshape(len(rows), len(MEASURES))
    for i, r in enumerate(rows):
        if r.advancement:
            matrix[i, len(MEASURES):] = [r.advancement.get(n, np.nan) for n in ADVANCEMENT_MEASURES]
    return matrix
