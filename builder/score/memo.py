"""Bootstrap results kept from one build to the next: a product over the replicates is made once per inputs.

Most ticks of a live arena add forecasts for matches not yet played: every scored row, so
every resampler and every column of measures, is what it was at the previous build, and the
bootstrap and sign-flip work (the replicates' products, most of scoring's time on a large
archive) would give the same floats again. Each such result is a pure function of

* the resampler's draws and flips (:attr:`~builder.score.resampling.Resampler.fingerprint`,
  the matrices' own bytes: no assumption on how they were drawn);
* the values and parameters it is asked for (the arrays' dtype, shape and bytes, NaN included);
* the code that computes it (the installed code and libraries:
  :func:`collector.archive.store.code_version`) and the BLAS threading, which can set the
  products' last bits (:func:`code_fingerprint`; scoring runs on one BLAS thread,
  :mod:`builder.score.blas`, and the settings stay in the key all the same).

:func:`memoised` keeps the result under the SHA-256 of all of these while a
:class:`BootstrapMemo` is active (:func:`remembering`); with none (tests, ``score_archive``
called alone) it only computes. The build's cache module (:mod:`builder.site.cache`) hands a
memo the results the latest build kept and keeps the ones this build used (plain arrays,
authenticated; an entry that fails is rejected and computed again). A result is the
same bytes reused or computed (``tests/test_bootstrap_memo.py``), so the site is too.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache

import numpy as np

from builder.score.blas import POLICY
from collector.archive.codeversion import code_version

FORMAT = "prematch-bootstrap-memo-2"
THREAD_SETTINGS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

Result = tuple[np.ndarray, ...]
_ACTIVE: ContextVar[BootstrapMemo | None] = ContextVar("bootstrap_memo", default=None)


@cache
def code_fingerprint() -> str:
    """SHA-256 of the installed code (:func:`collector.archive.store.code_version`), the CPUs this
    process may use and the BLAS thread settings, which can set the products' last bits."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = [f"{name}={os.environ.get(name, '')}" for name in THREAD_SETTINGS]
    return hashlib.sha256("\n".join([FORMAT, code_version(), f"cpus {cpus}", *threads, POLICY]).encode()).hexdigest()


def inputs_key(kind: str, parts: tuple) -> str:
    """SHA-256 of a computation's name and inputs: arrays by dtype, shape and bytes, an object with
    a ``fingerprint`` (a resampler) by it, anything else by ``repr``."""
    digest = hashlib.sha256(f"{code_fingerprint()}\0{kind}".encode())
    for part in parts:
        if hasattr(part, "fingerprint"):
            digest.update(f"\0{type(part).__name__} {part.fingerprint}".encode())
        elif isinstance(part, np.ndarray):
            digest.update(f"\0array {part.dtype.str} {part.shape}\0".encode())
            digest.update(np.ascontiguousarray(part).data)
        else:
            digest.update(f"\0{type(part).__name__} {part!r}".encode())
    return digest.hexdigest()


def memoised(kind: str, parts: tuple, compute: Callable[[], Result], shapes: tuple[tuple[int, ...], ...]) -> Result:
    """``compute()``, or the result the active memo keeps for ``kind`` and ``parts`` (copies: the
    caller may write into them). ``shapes``: the float64 arrays' shapes ``compute`` returns; a kept
    result of other shapes or types is not used. Without an active memo: ``compute()``."""
    memo = _ACTIVE.get()
    if memo is None:
        return compute()
    return memo.result(inputs_key(kind, parts), compute, shapes)


def active_memo() -> BootstrapMemo | None:
    """The memo :func:`memoised` consults now (None outside :func:`remembering`)."""
    return _ACTIVE.get()


@contextmanager
def remembering(memo: BootstrapMemo) -> Iterator[BootstrapMemo]:
    """Make ``memo`` the one :func:`memoised` consults within the block."""
    token = _ACTIVE.set(memo)
    try:
        yield memo
    finally:
        _ACTIVE.reset(token)


@dataclass(frozen=True)
class MemoDelta:
    """Results and counts one part of a build added to a memo (:meth:`BootstrapMemo.delta`)."""

    results: dict[str, Result]
    reused: int = 0
    computed: int = 0
    note: str | None = None


class BootstrapMemo:
    """The results of the latest build (``kept``) and of this one (``used``), by inputs key."""

    def __init__(self, kept: dict[str, Result] | None = None, note: str | None = None):
        self.kept, self.note = kept or {}, note
        self.used: dict[str, Result] = {}
        self.reused = self.computed = 0

    def result(self, key: str, compute: Callable[[], Result], shapes: tuple[tuple[int, ...], ...]) -> Result:
        found = self.used.get(key, self.kept.get(key))
        if found is not None and _fits(found, shapes):
            self.reused += 1
        else:
            if found is not None:
                self.note = f"bootstrap result {key[:12]}: of other shapes than asked for; computed again"
            found = tuple(np.asarray(a) for a in compute())
            self.computed += 1
        self.used[key] = found
        return tuple(a.copy() for a in found)

    def absorb(self, found: MemoDelta) -> None:
        """Take in what a forked child's lookups added to its copy of this memo (:meth:`delta`):
        its results join this build's, so the file saved keeps them for the next build."""
        self.used.update(found.results)
        self.reused += found.reused
        self.computed += found.computed
        self.note = self.note or found.note

    def delta(self, before: MemoDelta) -> MemoDelta:
        """What this memo gained since ``before`` (:meth:`mark`): the results of the keys first
        used since, and the counts' growth."""
        return MemoDelta({key: value for key, value in self.used.items() if key not in before.results},
                         self.reused - before.reused, self.computed - before.computed,
                         self.note if self.note != before.note else None)

    def mark(self) -> MemoDelta:
        """This memo's state now, for :meth:`delta`: every result used so far (the dict is a
        shallow copy, the arrays are not copied) and the counts."""
        return MemoDelta(dict(self.used), self.reused, self.computed, self.note)

    def fresh(self) -> dict[str, Result]:
        """The results this build used that are not the very ones it was handed (computed, or
        absorbed from a child): what a cache has to write; the rest it holds already."""
        return {key: result for key, result in self.used.items() if self.kept.get(key) is not result}

    def summary(self) -> str:
        return f"bootstrap results reused {self.reused}, computed {self.computed}"


def _fits(result: Result, shapes: tuple[tuple[int, ...], ...]) -> bool:
    return len(result) == len(shapes) and all(
        a.dtype == np.float64 and a.shape == tuple(shape) for a, shape in zip(result, shapes, strict=True))
