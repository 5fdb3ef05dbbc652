"""``np.mean`` of many groups of values at once, each to the bit the mean of its own list.

A per-group mean in row order by ``np.add.at`` adds one value after another; ``np.mean`` of a
list adds them one by one only below 9 values and pairwise above, so for larger groups the two
differ in the last bits. :func:`np_means` lays the groups of one size out as the rows of a
matrix: numpy's mean along a row is the same reduction, in the same order, as its mean of that
row alone (a forecaster's samples of a match, a match's conditions), so every group gets the
floats ``np.mean`` of its list gives, one numpy call per distinct group size.
"""

from __future__ import annotations

import numpy as np


def np_means(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group ``0..n_groups-1``, ``np.mean`` of its ``values`` in row order (NaN for a group
    without values)."""
    order = np.argsort(group, kind="stable")
    counts = np.bincount(group, minlength=n_groups)
    starts = np.cumsum(counts) - counts
    ordered = np.asarray(values, dtype=float)[order]
    out = np.full(n_groups, np.nan)
    for size in np.unique(counts[counts > 0]).tolist():
        groups = np.flatnonzero(counts == size)
        out[groups] = ordered[starts[groups][:, None] + np.arange(size)[None, :]].mean(axis=1)
    return out
