"""The resampling behind every interval and test (``builder.score.inference`` says how it is used).

Two matrices are drawn once per analysis from the master seed: bootstrap ``weights`` (replicates
x events, stratified by group stage / knockout) and sign-flip ``signs`` (draws x events). They
are held as small exact integers and turned into float64 a block of rows at a time: every
product has the float64 operands of the whole matrices, a tenth of their memory.

Integer products (counts) are exact whatever the blocks. A float product's row is the whole
matrix's row wherever BLAS computes a row alike in any number of rows: single-threaded OpenBLAS
does; with threads, a row's kernel can depend on how the rows were shared among the threads, as
the whole-matrix products always did (on the 2-core machine, ``benchmarks/scoring.py --digest``
differs between OPENBLAS_NUM_THREADS=1 and 2 on the unblocked code too). The digests with
these blocks equal the unblocked code's under both settings there.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from builder.score.memo import memoised

SEED = 20260715
REPLICATES = 10_000
PERMUTATIONS = 10_000
LEVEL = 0.95
SPREAD_TOLERANCE = 1e-12
"""A bootstrap replicate's variance below this fraction of its mean square counts as zero spread."""

BLOCK = 1024
"""Bootstrap replicates (and sign-flip draws) turned into float64 at a time: memory (8 MB a block
at 1,000 events), not results (a power of two: a multiple of every BLAS kernel's row unroll)."""


GROUP = 4
"""Column chunks of bootstrap-t statistics formed per float64 block of weights (one conversion
of the block for all of them; replicates x GROUP chunks of t are held at once)."""


def stratified_weights(strata: np.ndarray, replicates: int, rng: np.random.Generator,
                       dtype: np.dtype | type = float) -> np.ndarray:
    """Bootstrap count matrix (replicates x events): each stratum's matches resampled with
    replacement to the stratum's size; entry (b, i) is how often match i appears in replicate b.

    Each replicate draws as many match indices as its stratum has, uniformly with replacement
    (an index matrix, ``rng.integers``, :data:`BLOCK` replicates at a time), and counts them: the
    counts are multinomial(size, uniform), the paper's cluster bootstrap (LLM-SoccerArena §3.4,
    matches resampled within group stage and knockout). Counting an index matrix costs an eighth
    of ``Generator.multinomial``, which draws one binomial per match (issue 21). Counts go into
    ``dtype``; an unsigned integer ``dtype`` is widened to the smallest type that holds the
    largest count drawn when one does not fit (a count is about Poisson(1): at 300,000 records
    ``uint8`` holds every one, half the memory of the stratum-size bound ``uint16``)."""
    strata = np.asarray(strata)
    weights = np.zeros((replicates, len(strata)), dtype=dtype)
    for value in np.unique(strata):
        columns = np.flatnonzero(strata == value)
        for start in range(0, replicates, BLOCK):
            counts = index_counts(rng, min(BLOCK, replicates - start), len(columns))
            if weights.dtype.kind == "u" and counts.size and counts.max() > np.iinfo(weights.dtype).max:
                weights = weights.astype(np.min_scalar_type(counts.max()))
            weights[start : start + len(counts), columns] = counts
    return weights


def index_counts(rng: np.random.Generator, rows: int, size: int) -> np.ndarray:
    """``rows`` x ``size`` counts: row b counts the ``size`` indices in ``range(size)`` drawn for it
    (the stream of one ``rng.integers(0, size, size=(rows, size))``, row by row)."""
    if not size:
        return np.zeros((rows, 0), dtype=np.int64)
    drawn = rng.integers(0, size, size=(rows, size))
    drawn += (np.arange(rows, dtype=np.int64) * size)[:, None]  # row b's indices count in its own range
    return np.bincount(drawn.reshape(-1), minlength=rows * size).reshape(rows, size)


def sign_matrix(draws: int, n_events: int, rng: np.random.Generator) -> np.ndarray:
    """Sign-flip matrix (draws x events) of +-1 as int8, drawn :data:`BLOCK` rows at a time
    (the stream of one ``rng.integers(0, 2, size=(draws, n_events))``)."""
    signs = np.empty((draws, n_events), dtype=np.int8)
    for start in range(0, draws, BLOCK):
        size = min(BLOCK, draws - start)
        signs[start : start + size] = rng.integers(0, 2, size=(size, n_events)) * 2 - 1
    return signs


@dataclass
class Resampler:
    """The bootstrap weights and sign-flip matrix of one analysis, over a fixed list of events.

    Both are held as small exact integers (``draws``: counts in the smallest unsigned type that
    holds the largest count drawn, :func:`stratified_weights`; ``flips``: int8 +-1) and turned into float64
    :data:`BLOCK` rows at a time for the products (see the module docstring).
    ``weights`` and ``signs`` give the whole float64 matrices (a fresh copy each time)."""

    events: list[tuple[str, str]]
    draws: np.ndarray
    flips: np.ndarray
    method: str = "studentized"
    """How :meth:`mean_intervals` forms intervals of means: "studentized" or "percentile"."""

    @classmethod
    def for_events(cls, events: dict[tuple[str, str], bool], seed: int = SEED,
                   replicates: int = REPLICATES, permutations: int = PERMUTATIONS,
                   method: str = "studentized") -> Resampler:
        """``events`` maps (competition, event) to whether it is a knockout match (its stratum)."""
        if method not in ("studentized", "percentile"):
            raise ValueError(f"interval method must be 'studentized' or 'percentile', got {method!r}")
        keys = sorted(events)
        boot_seq, sign_seq = np.random.SeedSequence(seed).spawn(2)
        strata = np.array([events[k] for k in keys], dtype=bool)
        draws = stratified_weights(strata, replicates, np.random.default_rng(boot_seq), np.uint8)
        return cls(keys, draws, sign_matrix(permutations, len(keys), np.random.default_rng(sign_seq)), method)

    @property
    def weights(self) -> np.ndarray:
        """The bootstrap weights as float64 (replicates x events), a new array."""
        return self.draws.astype(float)

    @property
    def signs(self) -> np.ndarray:
        """The sign-flip matrix as float64 (draws x events), a new array."""
        return self.flips.astype(float)

    @cached_property
    def fingerprint(self) -> str:
        """SHA-256 of the draws and flips (dtype, shape, bytes) and the interval method: what every
        result of this resampler depends on besides its inputs (:mod:`builder.score.memo`)."""
        digest = hashlib.sha256(self.method.encode())
        for matrix in (self.draws, self.flips):
            digest.update(f"\0{matrix.dtype.str} {matrix.shape}\0".encode())
            digest.update(np.ascontiguousarray(matrix).data)
        return digest.hexdigest()

    def weight_columns(self, columns) -> np.ndarray:
        """``weights[:, columns]`` without the whole float64 matrix."""
        return self.draws[:, columns].astype(float)

    def weight_blocks(self, columns=None):
        """The float64 weights (of ``columns`` only, when given), :data:`BLOCK` replicates at a time."""
        for _, block in _float_blocks(self.draws if columns is None else self.draws[:, columns]):
            yield block

    def index(self) -> dict[tuple[str, str], int]:
        return {key: i for i, key in enumerate(self.events)}

    def weighted(self, x: np.ndarray) -> np.ndarray:
        """``weights @ x`` (replicates x columns of ``x``), formed a block of replicates at a time."""
        x = np.asarray(x, dtype=float)
        out = np.empty((len(self.draws),) + x.shape[1:])
        for rows, block in _float_blocks(self.draws):
            out[rows] = block @ x
        return out

    def counts(self, present: np.ndarray) -> np.ndarray:
        """``weights @ present`` (replicates x columns: how many of each column's events a replicate
        draws), one product per distinct column of ``present`` (the measures of a cell share one).
        Exact whatever the grouping: integer counts summed in floats far below 2**53."""
        if not present.size:
            return self.weighted(present.astype(float))
        patterns, inverse = np.unique(present, axis=1, return_inverse=True)
        return self.weighted(patterns.astype(float))[:, inverse.reshape(-1)]

    def mean_intervals(self, values: np.ndarray, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
        """Intervals of column means by this resampler's method (studentized by default)."""
        if self.method == "percentile":
            return self.intervals(values, level)
        return self.studentized_intervals(values, level)

    def intervals(self, values: np.ndarray, level: float = LEVEL, chunk: int = 128) -> tuple[np.ndarray, np.ndarray]:
        """Percentile intervals of the mean of each column of ``values`` (events x columns, NaN = absent).

        Columns are processed ``chunk`` at a time so memory stays at replicates x chunk floats.
        Kept between builds by inputs (:mod:`builder.score.memo`).
        """
        values = np.asarray(values, dtype=float)
        return memoised("percentile", (self, values, level, chunk),
                        lambda: self._percentile_intervals(values, level, chunk), _pair(values))

    def _percentile_intervals(self, values: np.ndarray, level: float, chunk: int) -> tuple[np.ndarray, np.ndarray]:
        tail = (1 - level) / 2 * 100
        low, high = np.full(values.shape[1], np.nan), np.full(values.shape[1], np.nan)
        for start in range(0, values.shape[1], chunk):
            part = values[:, start : start + chunk]
            present = ~np.isnan(part)
            totals = self.weighted(np.where(present, part, 0.0))
            counts = self.counts(present)
            with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: cells without events
                low[start : start + chunk], high[start : start + chunk] = _percentiles(totals / counts,
                                                                                     [tail, 100 - tail])
        too_few = (~np.isnan(values)).sum(axis=0) < 2
        return np.where(too_few, np.nan, low), np.where(too_few, np.nan, high)

    def studentized_intervals(self, values: np.ndarray, level: float = LEVEL,
                              chunk: int = 128) -> tuple[np.ndarray, np.ndarray]:
        """Bootstrap-t intervals of the mean of each column (NaN = absent):
        [m - t*_(1-a/2) se, m - t*_(a/2) se] with t* = (m* - m) / se* over the replicates.

        Worked ``chunk * GROUP`` columns at a time: the centred copy and its temporaries exist
        for one group only (events x 512 floats, not events x every column). Each column's
        moments are the same sums in the same order as over the whole matrix (a column sum
        runs down its rows whatever the other columns). Kept between builds by inputs
        (:mod:`builder.score.memo`)."""
        values = np.asarray(values, dtype=float)
        return memoised("studentized", (self, values, level, chunk),
                        lambda: self._studentized(values, level, chunk), _pair(values))

    def _studentized(self, values: np.ndarray, level: float, chunk: int) -> tuple[np.ndarray, np.ndarray]:
        low, high = np.full(values.shape[1], np.nan), np.full(values.shape[1], np.nan)
        for first in range(0, values.shape[1], chunk * GROUP):
            group = slice(first, first + chunk * GROUP)
            low[group], high[group] = self._studentized_group(values[:, group], level, chunk)
        return low, high

    def _studentized_group(self, values: np.ndarray, level: float, chunk: int) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`studentized_intervals` of a group of at most ``chunk * GROUP`` columns."""
        present = ~np.isnan(values)
        n = present.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(present, values, 0.0).sum(axis=0) / n
            centred = np.where(present, values - mean, 0.0)  # centring avoids cancellation in the variance
            se = np.sqrt((centred**2).sum(axis=0) / n / n)
        tail = (1 - level) / 2 * 100
        t = self._t_statistics(present, centred, chunk)
        t_low, t_high = np.full(len(n), np.nan), np.full(len(n), np.nan)
        for start in range(0, t.shape[1], chunk):
            cols = slice(start, start + chunk)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                t_low[cols], t_high[cols] = _percentiles(t[:, cols], [tail, 100 - tail])
        low, high = mean - t_high * se, mean - t_low * se
        unusable = (n < 2) | (se == 0)
        return np.where(unusable, np.nan, low), np.where(unusable, np.nan, high)

    def _t_statistics(self, present: np.ndarray, centred: np.ndarray, chunk: int) -> np.ndarray:
        """Replicates x columns: t* = (m* - m) / se* of centred columns (NaN where undefined),
        the products ``chunk`` columns at a time, each float64 block of weights made once for all.

        The replicates' counts (how many of a column's events each draws) come from one product
        per block for every distinct presence pattern of all the columns (a cell's measures
        share one): exact integers whatever the grouping (see :meth:`counts`), so the same
        counts as a product per chunk, with one pass over the block instead of one per chunk."""
        patterns, pattern_of = np.unique(present, axis=1, return_inverse=True)
        patterns, pattern_of = patterns.astype(float), pattern_of.reshape(-1)
        parts = []
        for start in range(0, centred.shape[1], chunk):
            part = centred[:, start : start + chunk]
            parts.append((slice(start, start + chunk), pattern_of[start : start + chunk], part, part**2))
        t = np.empty((len(self.draws), centred.shape[1]))
        for rows, block in _float_blocks(self.draws):
            counts = block @ patterns
            for cols, inverse, part, squares in parts:
                with np.errstate(invalid="ignore", divide="ignore"):
                    t[rows, cols] = _t_of(block @ part, block @ squares, counts[:, inverse])
        return t

    def sign_flip_p(self, differences: np.ndarray, chunk: int = 128) -> np.ndarray:
        """Two-sided sign-flip permutation p-value of the mean of each column (NaN = absent).

        A permuted mean counts as extreme if |T*| >= |T| up to rounding: 1e-9 of the column's
        largest |difference| (relative, so the p-value does not depend on the measure's scale).
        Kept between builds by inputs (:mod:`builder.score.memo`)."""
        differences = np.asarray(differences, dtype=float)
        return memoised("sign_flip", (self, differences, chunk),
                        lambda: (self._sign_flip_p(differences, chunk),), ((differences.shape[1],),))[0]

    def _sign_flip_p(self, differences: np.ndarray, chunk: int) -> np.ndarray:
        present = ~np.isnan(differences)
        filled = np.where(present, differences, 0.0)
        n = present.sum(axis=0)
        tolerance = 1e-9 * np.abs(filled).max(axis=0, initial=0.0)
        extreme = np.zeros(differences.shape[1], dtype=np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            observed = filled.sum(axis=0) / n
            for rows, block in _float_blocks(self.flips):
                for start in range(0, differences.shape[1], chunk):
                    cols = slice(start, start + chunk)
                    permuted = (block @ filled[:, cols]) / n[cols]
                    extreme[cols] += (np.abs(permuted) >= np.abs(observed[cols]) - tolerance[cols]).sum(axis=0)
        p = (1 + extreme) / (1 + len(self.flips))
        return np.where(n >= 1, p, np.nan)


def _pair(values: np.ndarray) -> tuple[tuple[int], tuple[int]]:
    """The shapes of a (low, high) pair over the columns of ``values``."""
    return (values.shape[1],), (values.shape[1],)


def _float_blocks(matrix: np.ndarray):
    """(rows, float64 copy of those rows) of ``matrix``, :data:`BLOCK` rows at a time."""
    for start in range(0, len(matrix), BLOCK):
        rows = slice(start, start + BLOCK)
        yield rows, matrix[rows].astype(float)


def _t_of(shift: np.ndarray, second: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """t* from the replicates' sums of centred values and of their squares, and their counts:
    the same ufuncs in the same order, written into the products' own arrays."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.divide(shift, counts, out=shift)  # m* - m
        np.divide(second, counts, out=second)
        # a replicate drawing one value only has spread 0, but second - shift^2 leaves
        # rounding noise (~1e-17) that would make t astronomically large: treat it as 0
        spread = shift**2
        np.subtract(second, spread, out=spread)
        np.multiply(second, SPREAD_TOLERANCE, out=second)
        spread[~(spread > second)] = 0.0
        np.divide(spread, counts, out=spread)
        np.sqrt(spread, out=spread)
        t = np.divide(shift, spread, out=shift)
        t[~np.isfinite(t)] = np.nan
    return t


def _percentiles(means: np.ndarray, q: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """Column percentiles (numpy's default linear interpolation), by partial sort of complete
    columns; NaN-aware only for columns with gaps."""
    out = np.full((2, means.shape[1]), np.nan)
    gaps = np.isnan(means).any(axis=0)
    if (~gaps).any():
        out[:, ~gaps] = _linear_percentiles(means.T[~gaps], q).T  # one C-ordered copy, ours to partition
    if gaps.any():
        out[:, gaps] = np.nanpercentile(means[:, gaps], q, axis=0)
    return out[0], out[1]


def _linear_percentiles(rows: np.ndarray, q: list[float]) -> np.ndarray:
    """Percentiles of each row: value at position q/100 * (n - 1), interpolating neighbours.
    ``rows`` is partitioned in place (the caller's own copy: no second one)."""
    n = rows.shape[1]
    positions = np.asarray(q, dtype=float) / 100 * (n - 1)
    below = np.floor(positions).astype(int)
    above = np.minimum(below + 1, n - 1)
    kth = np.unique(np.concatenate([below, above]))
    rows.partition(kth, axis=1)
    frac = positions - below
    return rows[:, below] * (1 - frac) + rows[:, above] * frac
