"""Per LLM cell and match means, and the factorial contrasts formed from them, as columns.

``inference.llm_cell_means`` maps (forecaster, access, strategy, horizon, clock, (competition,
event)) to the measure averaged over the cell's samples of the match; ``inference.factor_specs``
pairs each key at one level of a factor with the same key at the other level and averages the
differences per match. Both used to walk Python dicts key by key, once per contrast (a dozen
contrasts per measure over ~80,000 keys at 100k records). Here the mapping's keys are integer
codes per field (:class:`CellMeans` makes them once, lazily) and a contrast is numpy over them.

Every number is the one the key-by-key code gave: a mean sums its values in the order they
came (``np.add.at`` from 0.0, as ``sum`` from 0 adds them one by one) and divides by their
count; a difference is one float64 subtraction; every dict keeps the insertion order it had.
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import attrgetter, itemgetter

import numpy as np

from builder.score.columns import CELL_FIELDS, codes

_LLM_KEY = attrgetter(*CELL_FIELDS, "competition_id", "event_id")
_CONDITION_KEY = attrgetter("access", "strategy", "horizon", "clock", "forecaster", "competition_id", "event_id")
_KEY_FIELDS = len(CELL_FIELDS) + 1
"""The fields of a :class:`CellMeans` key: the cell's five, then the (competition, event) pair."""


def ordered_means(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, the mean of its ``values`` in the order they come: ``sum(v) / len(v)`` of each
    group's list (an ``np.add.at`` from 0.0 adds them one by one, as ``sum`` does from 0)."""
    sums = np.zeros(n_groups)
    np.add.at(sums, group, values)
    return sums / np.bincount(group, minlength=n_groups)


class CellMeans(dict):
    """:func:`llm_cell_means`' mapping (never changed once made), with its keys as integer codes
    per field (:meth:`columns`, in the mapping's order) for :func:`factor_specs`."""

    def columns(self) -> tuple[np.ndarray, list[list], np.ndarray, list[tuple]]:
        """(keys x fields codes, each field's distinct levels, values, keys), in the mapping's order
        (the codes, levels and keys of an earlier mapping of the same keys when it was given them)."""
        found = vars(self).get("_columns")
        if found is None:
            same = vars(self).get("_key_columns")
            if same is not None:
                matrix, levels, keys = same
            else:
                keys = list(self)
                fields = [codes(map(itemgetter(i), keys)) for i in range(_KEY_FIELDS)]
                matrix = np.stack([c for c, _ in fields], axis=1).reshape(len(keys), _KEY_FIELDS)
                levels = [found for _, found in fields]
            found = (matrix, levels, np.array(list(self.values()), dtype=float), keys)
            vars(self)["_columns"] = found
        return found


def llm_cell_means(rows, measure: str) -> CellMeans:
    """Per LLM cell and match, the measure averaged over samples:
    (forecaster, access, strategy, horizon, clock, (competition, event)) -> mean."""
    return next(llm_cell_means_of(rows, (measure,)))


def llm_cell_means_of(rows, measures: tuple[str, ...]) -> Iterator[CellMeans]:
    """:func:`llm_cell_means` of each measure in turn, over the same rows: the keys' codes are
    made once, and once a mapping's key columns were made (:meth:`CellMeans.columns`) the later
    ones take them (same keys, same order). A generator, so that a caller holds one measure's
    mapping at a time."""
    llm = [r for r in rows if r.forecaster_type == "llm"]
    code, flat = codes(map(_LLM_KEY, llm))
    keys = [key[:-2] + (key[-2:],) for key in flat]
    shared = None
    for measure in measures:
        values = np.array([r.measures[measure] for r in llm], dtype=float)
        means = CellMeans(zip(keys, ordered_means(values, code, len(flat)).tolist(), strict=True))
        if shared is not None:
            vars(means)["_key_columns"] = shared
        yield means
        made = vars(means).get("_columns")
        shared = (made[0], made[1], made[3]) if shared is None and made is not None else shared
        del means


def condition_event_means(rows, measure: str, kinds: tuple[str, ...]) -> dict[tuple, dict[str, dict]]:
    """{(access, strategy, horizon, clock): {forecaster: {(competition, event): mean}}} of the rows
    whose forecaster type is one of ``kinds``: per forecaster and match of a condition, the
    measure averaged over samples (``inference.per_event`` of each forecaster's rows), every
    level keyed by first appearance in row order."""
    chosen = [r for r in rows if r.forecaster_type in kinds]
    code, flat = codes(map(_CONDITION_KEY, chosen))
    means = ordered_means(np.array([r.measures[measure] for r in chosen], dtype=float), code, len(flat)).tolist()
    out: dict[tuple, dict[str, dict]] = {}
    for key, mean in zip(flat, means, strict=True):
        out.setdefault(key[:4], {}).setdefault(key[4], {})[key[5:]] = mean
    return out


def contrast_means(means: CellMeans, at: int, a_level: str, b_level: str, factor: str,
                   by_forecaster: bool) -> dict[tuple, dict[tuple, float]]:
    """{(stratum, clock): {event: mean of (a - b) per match}} of :func:`factor_specs`, in the
    order the key-by-key loop filled it (strata, then events, by first appearance)."""
    matrix, levels, values, keys = means.columns()
    if a_level not in levels[at] or b_level not in levels[at] or not len(matrix):
        return {}
    radix = np.array([len(found) for found in levels], dtype=np.int64)
    weight = np.cumprod(np.concatenate([[1], radix[:0:-1]]))[::-1]  # mixed-radix place of each field
    flat = matrix.astype(np.int64) @ weight
    a_code, b_code = levels[at].index(a_level), levels[at].index(b_level)
    chosen = np.flatnonzero(matrix[:, at] == a_code)
    wanted = flat[chosen] + (b_code - a_code) * weight[at]
    order = np.argsort(flat, kind="stable")
    spot = np.minimum(np.searchsorted(flat[order], wanted), len(order) - 1)
    paired = flat[order][spot] == wanted
    chosen, partner = chosen[paired], order[spot[paired]]
    diff = values[chosen] - values[partner]
    # a stratum: the horizon (pooled for the horizon factor), with the forecaster when asked, and the clock
    horizon = 0 if factor == "horizon" else matrix[chosen, 3].astype(np.int64)
    forecaster = matrix[chosen, 0].astype(np.int64) if by_forecaster else 0
    stratum = (forecaster * radix[3] + horizon) * radix[4] + matrix[chosen, 4]
    _, first, inverse = np.unique(stratum * radix[5] + matrix[chosen, 5], return_index=True, return_inverse=True)
    averaged = ordered_means(diff, inverse.reshape(-1), len(first)).tolist()
    out: dict[tuple, dict[tuple, float]] = {}
    for g in np.argsort(first).tolist():  # (stratum, match) groups by first appearance
        key = keys[chosen[first[g]]]
        label = "all horizons" if factor == "horizon" else key[3]
        label = f"{key[0]}, {label}" if by_forecaster else label
        out.setdefault((label, key[4]), {})[key[5]] = averaged[g]
    return out
