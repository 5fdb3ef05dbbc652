"""The random draws behind every interval and test: one column per event, from a hash of the seed and the event's id.

Two schemes of bootstrap draws, each implemented once here (:class:`builder.score.resampling.Resampler`
turns either into weights):

* **Poisson bootstrap** (:func:`poisson_weights`; Hanley & MacGibbon 2006, "Creating non-parametric
  bootstrap samples using Poisson frequencies", Comput. Methods Programs Biomed. 83; Chamandy,
  Muralidharan, Najmi & Naik 2012, "Estimating uncertainty for massive data streams", Google):
  event i's count in replicate b is an independent Poisson(1) draw. The column of event i is the
  inverse Poisson(1) distribution function of successive 64-bit little-endian words of
  SHAKE-128(``b"prematch poisson bootstrap\\0" + seed + b"\\0" + competition + b"\\0" + event``),
  seed in decimal, ids in UTF-8: word b is replicate b's. An event's counts depend on nothing but
  the seed and its own id, so adding an event leaves every other event's counts as they were,
  and replicate b's counts are the same whatever the number of replicates (SHAKE's output for a
  longer length starts with its output for a shorter one). Used by the leaderboard, the tests
  and the analyses.
* **Stratified multinomial match bootstrap** (:func:`stratified_weights`; LLM-SoccerArena §3.4,
  App. B.5): each stratum's matches resampled with replacement to the stratum's size, from one
  ``numpy`` generator over all events. A new event changes every count. Kept for ``paper-tables``
  (the paper's own procedure) and as the reference of the coverage simulation.

The sign flips of the permutation tests (:func:`sign_flips`) are hashed per event the same way
(``b"prematch sign flip\\0"``...): draw d of event i is +1 when bit d of that stream is 1 (bits
counted from the least significant of each byte), else -1.

Ids are joined with NUL bytes, which no archive id (a slug) contains; an id with one is refused.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal, localcontext

import numpy as np

POISSON_TAG = b"prematch poisson bootstrap"
SIGN_TAG = b"prematch sign flip"
BLOCK = 1024
"""Replicates of the multinomial scheme drawn as one index matrix (memory, not results)."""


def event_stream(tag: bytes, seed: int, key: tuple[str, str], size: int) -> bytes:
    """``size`` bytes of SHAKE-128 over ``tag``, the seed (decimal) and the event's competition
    and id, joined by NUL bytes: the event's own random stream for ``tag``."""
    if any("\0" in part for part in key):
        raise ValueError(f"event id {key!r} contains a NUL byte: it cannot be hashed unambiguously")
    message = b"\0".join((tag, str(int(seed)).encode(), key[0].encode(), key[1].encode()))
    return hashlib.shake_128(message).digest(size)


def _poisson_thresholds() -> np.ndarray:
    """T_k = floor(P(K <= k) * 2**64) for K ~ Poisson(1), k = 0, 1, ... while T_k grows: a uniform
    64-bit word w gives K = #{k: T_k <= w}, Poisson(1) to within 2**-64 per value."""
    out: list[int] = []
    with localcontext() as ctx:
        ctx.prec = 60
        term, total = Decimal(-1).exp(), Decimal(0)
        for k in range(64):
            total += term
            term /= k + 1
            threshold = int(total * 2**64)
            if out and threshold == out[-1]:
                break
            out.append(threshold)
    return np.array(out, dtype=np.uint64)


THRESHOLDS = _poisson_thresholds()
SHIFT = 48
"""The top 64 - SHIFT bits of a word index :data:`_TABLE`."""


def _lookup_table() -> np.ndarray:
    """Per value of a word's top 16 bits, its Poisson value when every word with those bits has
    the same one, else 255 (the few buckets a threshold falls in: :func:`poisson_of` looks those up)."""
    starts = np.arange(2 ** (64 - SHIFT), dtype=np.uint64) << np.uint64(SHIFT)
    ends = starts | np.uint64(2**SHIFT - 1)
    low = np.searchsorted(THRESHOLDS, starts, side="right")
    high = np.searchsorted(THRESHOLDS, ends, side="right")
    return np.where(low == high, low, 255).astype(np.uint8)


_TABLE = _lookup_table()


def poisson_of(words: np.ndarray) -> np.ndarray:
    """Poisson(1) values (uint8) of uniform uint64 ``words``: #{k: THRESHOLDS[k] <= word}."""
    out = _TABLE[words >> np.uint64(SHIFT)]
    unsure = np.flatnonzero(out == 255)
    if len(unsure):
        out[unsure] = np.searchsorted(THRESHOLDS, words[unsure], side="right")
    return out


def poisson_column(seed: int, key: tuple[str, str], replicates: int) -> np.ndarray:
    """Event ``key``'s Poisson(1) counts in replicates 0 .. replicates-1 (uint8)."""
    return poisson_of(np.frombuffer(event_stream(POISSON_TAG, seed, key, 8 * replicates), dtype="<u8"))


def sign_column(seed: int, key: tuple[str, str], draws: int) -> np.ndarray:
    """Event ``key``'s signs (int8 +-1) in sign-flip draws 0 .. draws-1."""
    bits = np.unpackbits(np.frombuffer(event_stream(SIGN_TAG, seed, key, -(-draws // 8)), dtype=np.uint8),
                         bitorder="little")[:draws]
    return (bits.astype(np.int8) * 2 - 1).astype(np.int8)


def poisson_weights(keys: list[tuple[str, str]], seed: int, replicates: int) -> np.ndarray:
    """Poisson bootstrap counts (replicates x events, uint8: a count over 255 has probability
    below 2**-64), event j's column :func:`poisson_column` of ``keys[j]``."""
    return _by_event(keys, lambda key: poisson_column(seed, key, replicates), replicates, np.uint8)


def sign_flips(keys: list[tuple[str, str]], seed: int, draws: int) -> np.ndarray:
    """Sign-flip matrix (draws x events, int8 +-1), event j's column :func:`sign_column` of ``keys[j]``."""
    return _by_event(keys, lambda key: sign_column(seed, key, draws), draws, np.int8)


def _by_event(keys, column, rows: int, dtype) -> np.ndarray:
    """rows x events matrix whose column j is ``column(keys[j])`` (made event by event, then laid
    out replicate by replicate: the products read rows)."""
    by_event = np.empty((len(keys), rows), dtype=dtype)
    for j, key in enumerate(keys):
        by_event[j] = column(key)
    return np.ascontiguousarray(by_event.T)


def stratified_weights(strata: np.ndarray, replicates: int, rng: np.random.Generator,
                       dtype: np.dtype | type = float) -> np.ndarray:
    """Stratified multinomial bootstrap count matrix (replicates x events): each stratum's
    matches resampled with replacement to the stratum's size; entry (b, i) is how often match i
    appears in replicate b.

    Each replicate draws as many match indices as its stratum has, uniformly with replacement
    (an index matrix, ``rng.integers``, :data:`BLOCK` replicates at a time), and counts them: the
    counts are multinomial(size, uniform), the paper's cluster bootstrap (LLM-SoccerArena §3.4,
    matches resampled within group stage and knockout). Counting an index matrix costs an eighth
    of ``Generator.multinomial``, which draws one binomial per match. Counts go into ``dtype``; an
    unsigned integer ``dtype`` is widened to the smallest type that holds the largest count drawn
    when one does not fit."""
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
