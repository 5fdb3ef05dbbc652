"""Benchmark: ``score_archive`` and ``score_slices`` on a synthetic archive, as ratios to parsing it.

The archive is ``tests.factories.synthetic_records`` (8 models, the shape of
``benchmarks/build_site.py``), held in memory as the reader resolves it. One run measures,
in the same process:

* ``orjson``: ``orjson.loads`` of every record's stored bytes (the floor: plain parsing);
* ``scoring``: ``score_archive(archive)`` (every measure, views, calibration, tests, ...);
* ``slices``: ``score_slices(archive, scores)`` (every other slice's leaderboard and tests);

and prints each time and its ratio to the parse. ``--digest`` also prints the SHA-256 of the
JSON of every slice's scores, so two versions of the scorer can be compared to the last bit
(the same digest means the same numbers, the same rows, the same order; ``--mixed`` adds the
shapes the plain archive lacks: samples to average, a second competition). ``--profile`` prints
the cProfile of scoring and slices (top functions by cumulative time). ``--memory`` runs
``score_archive`` once more under ``tracemalloc`` and prints its peak above the loaded archive
and what its ``Scores`` keep (Python and numpy allocations; timings come from the untraced run).

    python benchmarks/scoring.py [--records 30000 100000] [--digest] [--profile] [--mixed] [--memory]
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import sys
import time
from dataclasses import asdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

RECORDS_PER_EVENT = 8 * 12 + 3 + 1 + 2  # 8 models x 12 cells, elo x 3, market, event, outcome


def synthetic(n_records: int, shape: str = "plain"):
    """The records and in-memory archive of a synthetic archive of about ``n_records`` records
    (``shape`` "mixed": see :func:`mixed`, about 2.3 times as many records)."""
    from factories import archive_from_records, synthetic_records

    n_events = max(8, round(n_records / RECORDS_PER_EVENT))
    records = synthetic_records(n_events=n_events, n_models=8, seed=20260715, knockout_from=int(n_events * 0.7))
    records = mixed(records) if shape == "mixed" else records
    return records, archive_from_records(records)


def mixed(records: list) -> list:
    """``records`` with a second and a third sample (home and away swapped, home and draw swapped)
    of every seventh scorable match forecast, plus a copy of everything as a second competition ``wc2``: the shapes the plain
    synthetic archive lacks (samples to average, competition slices)."""
    from collector.records import Competition, Forecast, MatchForecast

    out = list(records)
    for i, r in enumerate(records):
        if isinstance(r, Forecast) and isinstance(r.payload, MatchForecast) and i % 7 == 0:
            pl = r.payload
            swapped = pl.model_copy(update={"home_win_90": pl.away_win_90, "away_win_90": pl.home_win_90})
            drawn = pl.model_copy(update={"home_win_90": pl.draw_90, "draw_90": pl.home_win_90})
            out += [r.model_copy(update={"sample": 1, "payload": swapped}),
                    r.model_copy(update={"sample": 2, "payload": drawn})]
    for r in list(out):
        if isinstance(r, Competition):
            out.append(r.model_copy(update={"id": "wc2", "name": "Second cup"}))
        elif hasattr(r, "competition_id"):
            out.append(r.model_copy(update={"competition_id": "wc2"}))
    return out


def digest(archive, scores, parts) -> str:
    """SHA-256 of the JSON of every slice's scores (whole archive first)."""
    import orjson

    from builder.score.types import clean

    sha = hashlib.sha256()
    sha.update(orjson.dumps(scores.to_dict(), option=orjson.OPT_SORT_KEYS))
    for part, found in parts.items():
        sha.update(repr(part).encode())
        shown = {name: [asdict(row) for row in getattr(found, name)] for name in ("leaderboard", "matched",
                                                                                  "ensemble", "tests")}
        sha.update(orjson.dumps(clean(shown), option=orjson.OPT_SORT_KEYS))
    return sha.hexdigest()


def timed(label: str, profile: bool, call):
    """Run ``call`` (profiled when asked); return its result and seconds."""
    profiler = cProfile.Profile() if profile else None
    start = time.perf_counter()
    result = profiler.runcall(call) if profiler else call()
    seconds = time.perf_counter() - start
    if profiler:
        print(f"--- profile: {label}")
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)
    return result, seconds


def traced_peak(call) -> tuple[float, float]:
    """(peak, kept) MB that ``call`` allocates above what was allocated before it (tracemalloc)."""
    import tracemalloc

    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        result = call()
        kept, peak = tracemalloc.get_traced_memory()
        del result
    finally:
        tracemalloc.stop()
    return (peak - base) / 1e6, (kept - base) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, nargs="+", default=[30_000, 100_000], help="approximate record counts")
    parser.add_argument("--digest", action="store_true", help="print a SHA-256 of every slice's scores")
    parser.add_argument("--profile", action="store_true", help="print cProfile of scoring and slices")
    parser.add_argument("--mixed", action="store_true", help="add second samples and a second competition")
    parser.add_argument("--memory", action="store_true", help="print scoring's peak memory (tracemalloc, one more run)")
    args = parser.parse_args()

    import orjson

    from builder.score.scoring import score_archive
    from builder.score.slices import score_slices
    from collector.records.byteform import record_bytes

    print(f"{'records':>8} {'forecasts':>9} {'orjson s':>8} {'scoring s':>9} {'ratio':>6} {'slices s':>8} "
          f"{'ratio':>6} {'both/orjson':>11}")
    for size in args.records:
        records, archive = synthetic(size, "mixed" if args.mixed else "plain")
        stored = [record_bytes(r) for r in records]
        start = time.perf_counter()
        for blob in stored:
            orjson.loads(blob)
        parse = time.perf_counter() - start
        scores, scoring = timed("scoring", args.profile, lambda: score_archive(archive))
        parts, slicing = timed("slices", args.profile, lambda: score_slices(archive, scores))
        print(f"{len(records):>8} {len(scores.forecasts):>9} {parse:>8.2f} {scoring:>9.2f} {scoring / parse:>5.1f}x "
              f"{slicing:>8.2f} {slicing / parse:>5.1f}x {(scoring + slicing) / parse:>10.1f}x", flush=True)
        if args.digest:
            print(f"digest {len(records)}: {digest(archive, scores, parts)}", flush=True)
        if args.memory:
            del scores, parts
            peak, kept = traced_peak(lambda: score_archive(archive))
            print(f"memory {len(records)}: scoring peak +{peak:.0f} MB above the archive, keeps +{kept:.0f} MB",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
