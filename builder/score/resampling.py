"""The resampling behind every interval and test (``builder.score.inference`` says how it is used).

Two matrices are drawn once per analysis, one column per event from a hash of the master seed
and the event's id (:mod:`builder.score.draws`): bootstrap counts ``draws`` (replicates x events)
and sign flips ``flips`` (draws x events). They are held as small exact integers and turned
into float64 weights a block of rows at a time: every product has the float64 operands of the
whole matrices, a tenth of their memory.

**Stratified Poisson bootstrap** (:data:`POISSON`, the default). Each event's count in a
replicate is an independent Poisson(1) draw (Hanley & MacGibbon 2006; Chamandy et al. 2012),
so a replicate's counts of the events an analysis already had stay what they were when a new
event joins. Stratification (group stage / knockout, LLM-SoccerArena §3.4) is kept as the
stratified match bootstrap keeps it, by fixed stratum shares: a replicate's weight of event i
in stratum h is its count times ``n_h / N*_h`` (:attr:`Resampler.scales`), n_h the stratum's
events and N*_h its counts in the replicate (0 when it drew none: that replicate has none of
the stratum). Given N*_h, Poisson counts are a multinomial resample of size N*_h (Hanley &
MacGibbon), so each stratum is a resample of its matches weighted to its own size, as in the
multinomial scheme; only the resample's size varies (Poisson(n_h)), which adds a share of order
1/n_h to a replicate mean's spread: its intervals are a little wider. Any weighted sum is
``sum_h n_h / N*_h * sum_{i in h} count_i x_i``: per-stratum sums of counts times values,
which a new event extends by its own term. Unscaled Poisson counts would let the strata's
shares vary between replicates and add the strata's difference in means to every interval
(``benchmarks/resampling_coverage.py`` compares the three). ``tests/test_resampling_coverage.py``
holds the intervals' coverage to the nominal rate and to the multinomial scheme's.

**Stratified multinomial match bootstrap** (:data:`MULTINOMIAL`): LLM-SoccerArena's own (§3.4,
App. B.5), each stratum resampled to its size; its scales are all 1. ``paper-tables`` uses it.

Events are ordered by stratum, then by (competition, event id): each stratum is a contiguous
range of columns (:attr:`Resampler.sizes`), scaled in place. A replicate's count of some events
(``counts``) is formed per stratum from the integer counts, exact whatever the products'
grouping, then scaled: the same floats in any chunking. A float product's row is the whole
matrix's row wherever BLAS computes a row alike in any number of rows: single-threaded OpenBLAS
does; with threads, a row's kernel can depend on how the rows were shared among the threads, as
the whole-matrix products always did (``benchmarks/scoring.py --digest`` compares settings).
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from builder.score.draws import BLOCK, poisson_weights, sign_flips, stratified_weights
from builder.score.memo import memoised

SEED = 20260715
REPLICATES = 10_000
PERMUTATIONS = 10_000
LEVEL = 0.95
SPREAD_TOLERANCE = 1e-12
"""A bootstrap replicate's variance below this fraction of its mean square counts as zero spread."""

POISSON, MULTINOMIAL = "poisson", "multinomial"
"""The bootstrap schemes :meth:`Resampler.for_events` draws (module docstring)."""

GROUP = 4
"""Column chunks of bootstrap-t statistics formed per float64 block of weights (one conversion
of the block for all of them; replicates x GROUP chunks of t are held at once)."""


@dataclass
class Resampler:
    """The bootstrap draws and sign-flip matrix of one analysis, over a fixed list of events.

    Both are held as small exact integers (``draws``: counts, uint8 for the Poisson scheme;
    ``flips``: int8 +-1) and turned into float64 :data:`BLOCK` rows at a time for the products,
    each stratum's counts times its replicate's :attr:`scales` (the module docstring).
    ``weights`` and ``signs`` give the whole float64 matrices (a fresh copy each time)."""

    events: list[tuple[str, str]]
    draws: np.ndarray
    flips: np.ndarray
    method: str = "studentized"
    """How :meth:`mean_intervals` forms intervals of means: "studentized" or "percentile"."""
    sizes: tuple[int, ...] | None = None
    """Events per stratum, in column order (each stratum's columns contiguous); None: one stratum."""

    def __post_init__(self) -> None:
        if self.sizes is None:
            self.sizes = (self.draws.shape[1],)
        if not sum(self.sizes) == len(self.events) == self.draws.shape[1] == self.flips.shape[1]:
            raise ValueError(f"resampler: strata of {self.sizes} events, {len(self.events)} events, "
                             f"draws {self.draws.shape}, flips {self.flips.shape}")

    @classmethod
    def for_events(cls, events: dict[tuple[str, str], bool], seed: int = SEED,
                   replicates: int = REPLICATES, permutations: int = PERMUTATIONS,
                   method: str = "studentized", scheme: str = POISSON) -> Resampler:
        """``events`` maps (competition, event) to whether it is a knockout match (its stratum);
        ``scheme`` is :data:`POISSON` or :data:`MULTINOMIAL` (module docstring)."""
        if method not in ("studentized", "percentile"):
            raise ValueError(f"interval method must be 'studentized' or 'percentile', got {method!r}")
        if scheme not in (POISSON, MULTINOMIAL):
            raise ValueError(f"bootstrap scheme must be {POISSON!r} or {MULTINOMIAL!r}, got {scheme!r}")
        keys = sorted(events, key=lambda key: (bool(events[key]), key))
        strata = np.array([events[k] for k in keys], dtype=bool)
        sizes = tuple(int(n) for n in np.unique(strata, return_counts=True)[1])
        if scheme == POISSON:
            draws = poisson_weights(keys, seed, replicates)
        else:
            boot_seq = np.random.SeedSequence(seed).spawn(2)[0]
            draws = stratified_weights(strata, replicates, np.random.default_rng(boot_seq), np.uint8)
        return cls(keys, draws, sign_flips(keys, seed, permutations), method, sizes)

    @cached_property
    def strata(self) -> list[slice]:
        """Each stratum's range of columns."""
        ends = np.cumsum((0, *self.sizes))
        return [slice(int(a), int(b)) for a, b in zip(ends[:-1], ends[1:], strict=True)]

    @cached_property
    def scales(self) -> np.ndarray:
        """Replicates x strata: n_h / N*_h, the stratum's size over its counts in the replicate
        (0 where it drew none of the stratum); all 1 for the multinomial scheme."""
        totals = np.zeros((len(self.draws), len(self.strata)))
        for h, cols in enumerate(self.strata):
            totals[:, h] = self.draws[:, cols].sum(axis=1, dtype=np.int64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(totals > 0, np.array(self.sizes, dtype=float) / totals, 0.0)

    @cached_property
    def unit(self) -> bool:
        """Whether every scale is 1 (the weights are the counts themselves)."""
        return bool((self.scales == 1.0).all())

    @property
    def weights(self) -> np.ndarray:
        """The bootstrap weights as float64 (replicates x events), a new array."""
        return self.weight_columns(slice(None))

    @property
    def signs(self) -> np.ndarray:
        """The sign-flip matrix as float64 (draws x events), a new array."""
        return self.flips.astype(float)

    @cached_property
    def fingerprint(self) -> str:
        """SHA-256 of the draws and flips (dtype, shape, bytes), the strata's sizes and the interval
        method: what every result of this resampler depends on besides its inputs
        (:mod:`builder.score.memo`)."""
        digest = hashlib.sha256(f"{self.method}\0strata {self.sizes}".encode())
        for matrix in (self.draws, self.flips):
            digest.update(f"\0{matrix.dtype.str} {matrix.shape}\0".encode())
            digest.update(np.ascontiguousarray(matrix).data)
        return digest.hexdigest()

    def weight_columns(self, columns) -> np.ndarray:
        """``weights[:, columns]`` without the whole float64 matrix."""
        return np.concatenate([np.empty((0, len(self.events)))[:, columns], *self.weight_blocks(columns)])

    def weight_blocks(self, columns=None):
        """The float64 weights (of ``columns`` only, when given), :data:`BLOCK` replicates at a time."""
        if columns is None:
            for _, block, _ in self.blocks():
                yield block
            return
        stratum = np.repeat(np.arange(len(self.sizes)), self.sizes)[columns]
        for rows, block in _float_blocks(self.draws[:, columns]):
            if not self.unit:
                block *= self.scales[rows][:, stratum]  # element by element as blocks() scales them
            yield block

    def blocks(self, patterns: np.ndarray | None = None):
        """(rows, float64 weights, counts) :data:`BLOCK` replicates at a time; ``counts`` is
        ``weights @ patterns`` formed per stratum from the integer counts (:meth:`_counts_of`),
        None without ``patterns``."""
        for rows, block in _float_blocks(self.draws):
            counts = None if patterns is None else self._counts_of(block, rows, patterns)
            if not self.unit:
                for h, cols in enumerate(self.strata):
                    block[:, cols] *= self.scales[rows, h, None]
            yield rows, block, counts

    def _counts_of(self, counts: np.ndarray, rows: slice, patterns: np.ndarray) -> np.ndarray:
        """sum_h scales[:, h] * (counts[:, h's columns] @ patterns[h's columns]) of a block of
        integer counts (as float64) and integer-valued ``patterns``: each stratum's product an
        exact integer (far below 2**53), so the same in any grouping of ``patterns``' columns,
        then scaled in stratum order."""
        out = np.zeros((len(counts), patterns.shape[1]))
        for h, cols in enumerate(self.strata):
            part = counts[:, cols] @ patterns[cols]
            if not self.unit:
                part *= self.scales[rows, h, None]
            out += part
        return out

    def index(self) -> dict[tuple[str, str], int]:
        return {key: i for i, key in enumerate(self.events)}

    def weighted(self, x: np.ndarray) -> np.ndarray:
        """``weights @ x`` (replicates x columns of ``x``), formed a block of replicates at a time."""
        x = np.asarray(x, dtype=float)
        out = np.empty((len(self.draws),) + x.shape[1:])
        for rows, block, _ in self.blocks():
            out[rows] = block @ x
        return out

    def exact_weighted(self, x: np.ndarray) -> np.ndarray:
        """``weights @ x`` for integer-valued ``x`` (events x columns, e.g. how many of a bin's
        vectors each match has), formed as :meth:`_counts_of` does: the same floats whatever the
        grouping of the columns or of the events' sums."""
        x = np.asarray(x, dtype=float)
        out = np.empty((len(self.draws), x.shape[1]))
        for rows, block in _float_blocks(self.draws):
            out[rows] = self._counts_of(block, rows, x)
        return out

    def counts(self, present: np.ndarray) -> np.ndarray:
        """``weights @ present`` (replicates x columns: the weight of each column's events in a
        replicate), one :meth:`exact_weighted` column per distinct column of ``present`` (the
        measures of a cell share one)."""
        if not present.size:
            return self.weighted(present.astype(float))
        patterns, inverse = np.unique(present, axis=1, return_inverse=True)
        return self.exact_weighted(patterns)[:, inverse.reshape(-1)]

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

        The replicates' counts (the weight of a column's events in each) come from one product
        per block and stratum for every distinct presence pattern of all the columns (a cell's
        measures share one): formed from exact integers whatever the grouping (see
        :meth:`counts`), so the same counts as a product per chunk, with one pass over the block
        instead of one per chunk."""
        patterns, pattern_of = np.unique(present, axis=1, return_inverse=True)
        patterns, pattern_of = patterns.astype(float), pattern_of.reshape(-1)
        parts = []
        for start in range(0, centred.shape[1], chunk):
            part = centred[:, start : start + chunk]
            parts.append((slice(start, start + chunk), pattern_of[start : start + chunk], part, part**2))
        t = np.empty((len(self.draws), centred.shape[1]))
        for rows, block, counts in self.blocks(patterns):
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
