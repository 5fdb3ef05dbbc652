"""Bootstrap-t intervals of many columns, each to the bit as if it were asked alone.

The analysis page's LLM-SoccerArena table asks ``Resampler.studentized_intervals`` for one
column at a time (forecaster x measure: 45 calls at 100k records), and each call turns every
block of the resampler's integer weights into float64 again and reads it three times. A matrix
of all the columns in one call would read each block once, but its products are BLAS matrix
products (gemm) where a single column's are matrix-vector products (gemv), whose sums run in
another order: other last bits. :func:`studentized_each` keeps each column's own route -- its
moments from the column alone, ``block @ column`` products, the same ``_t_of`` and percentiles
(seeds/000 App. B.5, the formulas of :mod:`builder.score.resampling`) -- and shares what is
exact in any grouping: each float64 block is made once for all the columns, and the replicates'
counts (formed per stratum from integers far below 2**53, ``Resampler.blocks``) are one product
per stratum for all.
"""

from __future__ import annotations

import warnings

import numpy as np

from builder.score.memo import memoised
from builder.score.resampling import (
    LEVEL,
    Resampler,
    _pair,
    _percentiles,
    _t_of,
)


def studentized_each(resampler: Resampler, values: np.ndarray, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of every column ``j`` of ``values`` (events x columns, NaN = absent): equal to
    ``resampler.studentized_intervals(values[:, [j]])`` to the bit. Kept between builds by inputs
    (:mod:`builder.score.memo`)."""
    values = np.asarray(values, dtype=float)
    return memoised("studentized_each", (resampler, values, level), lambda: _studentized_each(resampler, values, level),
                    _pair(values))


def _studentized_each(resampler: Resampler, values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    columns = [np.ascontiguousarray(values[:, [j]]) for j in range(values.shape[1])]
    moments = [_moments(column) for column in columns]
    patterns = np.column_stack([present for present, *_ in moments]).astype(float).reshape(values.shape)
    squares = [centred**2 for _, _, centred, _, _ in moments]
    t = np.empty((len(resampler.draws), values.shape[1]))
    for rows, block, counts in resampler.blocks(patterns):  # counts from exact integers: any product gives the same
        for j, (_, _, centred, _, _) in enumerate(moments):
            with np.errstate(invalid="ignore", divide="ignore"):
                t[rows, j] = _t_of(block @ centred, block @ squares[j], counts[:, [j]])[:, 0]
    tail = (1 - level) / 2 * 100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        t_low, t_high = _percentiles(t, [tail, 100 - tail])  # column by column: each column's own
    n, mean, se = (np.array([m[i][0] for m in moments]) for i in (1, 3, 4))
    low, high = mean - t_high * se, mean - t_low * se
    unusable = (n < 2) | (se == 0)
    return np.where(unusable, np.nan, low), np.where(unusable, np.nan, high)


def _moments(column: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(present, n, centred, mean, se) of one events x 1 column, as ``studentized_intervals`` forms them."""
    present = ~np.isnan(column)
    n = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(present, column, 0.0).sum(axis=0) / n
        centred = np.where(present, column - mean, 0.0)
        se = np.sqrt((centred**2).sum(axis=0) / n / n)
    return present, n, centred, mean, se
