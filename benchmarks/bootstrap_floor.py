"""Benchmark: how much of scoring is the protocol's resampling products, and the floor they set.

LLM-SoccerArena's inference (seeds/000, "Statistical analysis") asks for 10,000 studentized
bootstrap replicates that resample whole matches within group-stage and knockout strata and
10,000 sign-flip permutations, all from one master seed; Prematch draws them as the stratified
Poisson bootstrap (:mod:`builder.score.resampling`). Every interval and test is then a
product of the replicates' weights (or signs) with per-match values: ``block @ values``, a
block of :data:`builder.score.resampling.BLOCK` replicates at a time. A build recomputes them
all (scores are never stored): a tick's new matches leave the other matches' counts as they
were, but change their stratum's scales and every column's mean, and this code forms the
products afresh.

This script scores a synthetic archive (the shape of ``benchmarks/build_site.py``, held in memory
as ``benchmarks/scoring.py`` holds it) once, ``score_archive`` then ``score_slices``, with every
block the resampler hands out counted: each product's floating-point operations (2 m k n for an
m x k by k x n product) and the time spent in it. It prints, in one run:

* ``orjson``: ``orjson.loads`` of every record's stored bytes (the floor the issue's ratios use);
* ``validated``: ``validate_bytes`` of the same bytes (what a load that makes record objects does
  per record, without the disk);
* ``scoring``: ``score_archive`` + ``score_slices`` wall time, and the part of it spent in the
  resampler's products, their GFlop and rate, and in drawing its bootstrap counts (one matrix
  per resampler: the whole archive's, each slice's);
* ``gemm``: the best rate of one such product alone (1,024 replicates x the archive's matches x
  128 columns, repeated), and ``floor``: the products' GFlop at that rate, the least time any
  implementation of these products with this BLAS takes on this machine.

It ends with two floors as ratios to ``orjson``: the products plus a validated load (a build
that loads every record as an object, as today's does), and the products alone (a build that
would read cached columns at ``orjson`` speed and score them without objects). The products of
the analysis page's paper tables (``builder.score.paper_tables``) are not counted: they run
after scoring, and would only raise both floors.

    python benchmarks/bootstrap_floor.py [--records 100000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

FLOPS: dict[str, float] = defaultdict(float)  # caller -> floating-point operations of its products
SECONDS: dict[str, float] = defaultdict(float)  # caller -> seconds spent in them
DRAWS: list[float] = []  # seconds of each bootstrap count matrix drawn (``poisson_weights``)


def _plain(value):
    return value.view(np.ndarray) if isinstance(value, Counted) else value


class Counted(np.ndarray):
    """A resampler block that counts the matrix products made with it (elementwise results
    stay counted, so ``(w * c) @ x`` counts too); every value is the plain array's, to the bit."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = [_plain(x) for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(_plain(x) for x in kwargs["out"])
        if ufunc is not np.matmul or method != "__call__":
            result = getattr(ufunc, method)(*plain, **kwargs)
            return result.view(Counted) if isinstance(result, np.ndarray) and result.ndim == 2 else result
        left, right = plain[0], plain[1]
        caller = sys._getframe(1).f_code.co_name
        start = time.perf_counter()
        result = np.matmul(left, right, **kwargs)
        SECONDS[caller] += time.perf_counter() - start
        columns = right.shape[1] if right.ndim == 2 else 1
        FLOPS[caller] += 2.0 * left.shape[0] * left.shape[1] * columns
        return result


@contextmanager
def counting_blocks():
    """While inside: the resampler hands out :class:`Counted` blocks (the same float64 values), and
    each draw of its bootstrap counts is timed into :data:`DRAWS`."""
    from builder.score import resampling

    plain, draw = resampling._float_blocks, resampling.poisson_weights

    def counted(matrix):
        for rows, block in plain(matrix):
            yield rows, block.view(Counted)

    def timed_draw(*args, **kwargs):
        start = time.perf_counter()
        try:
            return draw(*args, **kwargs)
        finally:
            DRAWS.append(time.perf_counter() - start)

    resampling._float_blocks, resampling.poisson_weights = counted, timed_draw
    try:
        yield
    finally:
        resampling._float_blocks, resampling.poisson_weights = plain, draw


def best_gemm_rate(events: int, repeats: int = 30) -> float:
    """GFlop/s of the best of ``repeats`` products of 1,024 replicates x ``events`` by ``events`` x 128."""
    rng = np.random.default_rng(0)
    left, right = rng.integers(0, 3, size=(1024, events)).astype(float), rng.random((events, 128))
    left @ right
    best = min(_timed(lambda: left @ right) for _ in range(repeats))
    return 2.0 * 1024 * events * 128 / best / 1e9


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def parse_seconds(root: Path) -> float:
    """Reading and ``orjson.loads`` of every record file under ``root`` (``build_site.py``'s floor)."""
    import orjson

    from collector.archive.reader import iter_record_files

    start = time.perf_counter()
    for relative in iter_record_files(root):
        with open(root / relative, "rb") as handle:
            orjson.loads(handle.read())
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000, help="approximate record count of the synthetic archive")
    args = parser.parse_args()

    from build_site import write_archive, write_records

    from builder.score.scoring import score_archive
    from builder.score.slices import score_slices
    from collector.archive.reader import load_archive

    with tempfile.TemporaryDirectory(prefix="prematch-floor-") as folder:
        root = Path(folder)
        for part in write_archive(root, args.records):  # the archive, then its "ahead" and tick records
            write_records(root, part)
        parse = parse_seconds(root)
        start = time.perf_counter()
        archive = load_archive(root)
        load = time.perf_counter() - start
    with counting_blocks():
        start = time.perf_counter()
        score_slices(archive, score_archive(archive))
        scoring = time.perf_counter() - start
    flops, inside = sum(FLOPS.values()) / 1e9, sum(SECONDS.values())
    rate = best_gemm_rate(len(archive.events))
    floor = flops / rate
    print(f"records {len(archive.records)}: read + orjson {parse:.2f} s; validated load {load:.2f} s ({load / parse:.1f}x)")
    print(f"scoring + slices {scoring:.2f} s ({scoring / parse:.1f}x); in the resampler's products {inside:.2f} s "
          f"({inside / scoring:.0%}): {flops:.1f} GFlop at {flops / inside:.1f} GFlop/s")
    for caller in sorted(FLOPS, key=FLOPS.get, reverse=True):
        print(f"  {caller:<24} {FLOPS[caller] / 1e9:7.1f} GFlop {SECONDS[caller]:7.2f} s")
    print(f"the bootstrap counts drawn: {len(DRAWS)} matrices in {sum(DRAWS):.2f} s ({sum(DRAWS) / scoring:.0%} of scoring)")
    print(f"gemm alone: best {rate:.1f} GFlop/s; floor of the products {floor:.2f} s ({floor / parse:.1f}x read + orjson)")
    print(f"floors as ratios to read + orjson: validated load + products {(load + floor) / parse:.1f}x; "
          f"products alone {floor / parse:.1f}x (aim of issue 21 for a tick: 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
