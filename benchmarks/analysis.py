"""Benchmark: the complete scoring analysis for an archive the size of LLM-SoccerArena's.

104 matches x 7 LLMs x 12 cells (access x strategy x horizon), plus an Elo baseline and a
closing-odds market, with outcomes: about 9,150 forecast records. Times the full
``score_archive`` (per-forecast measures, leaderboard and matched view with 10,000-replicate
studentized bootstrap intervals, ensemble, calibration and C.5 pooled reliability, diversity,
operations, difficulty-adjusted Brier with bootstrap intervals, every permutation test with
10,000 sign flips and Holm including the ensemble and stage families, and the C.3 robustness
analyses), then the three papers' tables (``paper_tables``), and reports peak memory.
Optionally (``--disk``) also writes the archive to a temporary folder and times ``load_archive``.

    python benchmarks/analysis.py [--events 104] [--models 7] [--disk] [--write DIR]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from builder.score.paper_tables import paper_tables  # noqa: E402
from builder.score.scoring import score_archive  # noqa: E402
from collector.archive.reader import load_archive  # noqa: E402
from tests.factories import archive_from_records, synthetic_records, write_records  # noqa: E402

AIM_SECONDS = 10.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=104, help="number of matches (default 104)")
    parser.add_argument("--models", type=int, default=7, help="number of LLM forecasters (default 7)")
    parser.add_argument("--disk", action="store_true", help="also write the archive and time load_archive")
    parser.add_argument("--write", metavar="DIR", default=None,
                        help="only write the synthetic archive to DIR (to try `prematch score` on it)")
    args = parser.parse_args()

    records = synthetic_records(n_events=args.events, n_models=args.models, knockout_from=min(72, args.events))
    if args.write:
        write_records(args.write, records)
        print(f"wrote {len(records)} records to {args.write}")
        return 0
    if args.disk:
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            write_records(folder, records)
            written = time.perf_counter() - start
            start = time.perf_counter()
            archive = load_archive(folder)
            loaded = time.perf_counter() - start
        print(f"write {len(records)} records: {written:.2f} s; load_archive: {loaded:.2f} s")
    else:
        archive = archive_from_records(records)
    forecasts = len(archive.forecasts)

    start = time.perf_counter()
    quick = score_archive(archive, inference_tests=False)
    without_tests = time.perf_counter() - start

    start, cpu_start = time.perf_counter(), time.process_time()
    scores = score_archive(archive)
    tables = paper_tables(scores.forecasts)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start

    tracemalloc.start()  # a separate run: tracing slows Python code down
    paper_tables(score_archive(archive).forecasts)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    print(f"archive: {args.events} matches x {args.models} models x 12 cells + elo + market = {forecasts} forecasts")
    print(f"scored forecasts: {len(scores.forecasts)}; leaderboard rows: {len(scores.leaderboard)}; "
          f"matched rows: {len(scores.matched)}; tests: {len(scores.tests)}")
    [rob] = [r for r in scores.robustness if r.clock == "live"]
    print(f"robustness: access effect {rob.primary.estimate:.4f} (lead-time window n={rob.lead_time.n}, "
          f"{rob.lead_time_excluded} excluded; leave-one-out {rob.leave_one_out['min']:.4f}..{rob.leave_one_out['max']:.4f}; "
          f"as treated {rob.as_treated.estimate:.4f}; interaction {rob.interaction.estimate:.4f}; variance shares "
          + ", ".join(f"{k} {v:.1%}" for k, v in rob.variance["shares"].items()) + ")")
    print(f"difficulty-adjusted rows: {len(scores.difficulty)}; paper tables: "
          + ", ".join(f"{t.title} ({len(t.rows)} rows)" for t in tables))
    print(f"complete analysis incl. robustness and paper tables (10,000 bootstrap replicates, 10,000 sign flips): "
          f"{elapsed:.2f} s "
          f"(aim {AIM_SECONDS:.0f} s; ratio to aim {elapsed / AIM_SECONDS:.2f}); CPU time {cpu:.2f} s")
    print(f"analysis without permutation tests: {without_tests:.2f} s "
          f"(full / without tests = {elapsed / without_tests:.2f})")
    print(f"peak traced memory during a second analysis run (with paper tables): {peak / 2**20:.1f} MiB; "
          f"process max RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} MiB")
    assert len(quick.leaderboard) == len(scores.leaderboard)
    return 0


if __name__ == "__main__":
    sys.exit(main())
