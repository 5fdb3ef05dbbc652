"""Scoring runs its matrix products on one BLAS thread: the same bits on any number of cores.

Threaded OpenBLAS (numpy's default) splits a product's rows between as many threads as the
machine has cores, and a few products' last bits depend on that split: the site, ``score
--json`` and ``paper-tables`` could print numbers that differ in the last bit between a
two-core runner and an eight-core laptop, or between a build that
ran alone and one that ran beside its own forked child. And two processes that each run a
BLAS thread per core on the same cores (the build's slices child beside its scoring,
:mod:`builder.score.slicework`) spend much of their time waiting for each other (the
measurements are in docs/performance.md, "Scoring at archive scale").

So :func:`score_archive <builder.score.scoring.score_archive>`,
:func:`score_slices <builder.score.slices.score_slices>` and
:func:`paper_tables <builder.score.paper_tables.paper_tables>` run under
:func:`one_blas_thread` (``threadpoolctl``, whatever BLAS numpy loaded; nested calls are
harmless); the build's second core is used by its second process instead. The numbers then
depend on the BLAS library and the processor's kernels only, not on the core count
(``tests/test_blas_threads.py``). :mod:`builder.score.memo`'s keys say so (:data:`POLICY`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import threadpool_info, threadpool_limits

POLICY = "blas: one thread while scoring"
"""The threading the scoring's products run with, as the bootstrap memo's keys record it."""


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with every loaded BLAS library limited to one thread (restored after)."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def blas_threads() -> int:
    """The most threads any loaded BLAS library would use now (1 inside :func:`one_blas_thread`;
    1 when numpy's BLAS is not one threadpoolctl knows)."""
    return max((info["num_threads"] for info in threadpool_info() if info.get("user_api") == "blas"), default=1)
