"""Benchmark: each analysis ``score_archive`` runs after the per-forecast measures, timed alone.

The archive is ``benchmarks/scoring.py``'s synthetic one (``--mixed`` as there). The scored
rows, the resampler and the market rows are made once (``score_archive``'s own inputs to these
analyses); then each of ``leakage.audit_archive``, ``calibration``, ``reliability``,
``difficulty.difficulty_rows``, ``operations.operational_rows``, ``diversity.diversity_rows``,
``inference.all_tests``, ``families.family_tests``, ``robustness.robustness`` and the analysis
page's ``paper_tables`` is timed once (one run; compare versions by running this script of each
alternately, as the numbers of a shared machine wander), and their total is printed.

    python benchmarks/score_analyses.py [--records 100000] [--mixed]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def analyses(archive):
    """(label, call) of every timed analysis, over the inputs ``score_archive`` gives them."""
    from builder.score import (
        calibration,
        diversity,
        families,
        inference,
        leakage,
        operations,
        reliability,
        robustness,
    )
    from builder.score import difficulty as difficulty_module
    from builder.score.market import market_events
    from builder.score.paper_tables import paper_tables
    from builder.score.scoring import score_match_forecasts
    from collector.records import Forecast

    forecasts = sorted(archive.forecasts, key=Forecast.key)
    match_forecasts = [f for f in forecasts if f.target_kind == "match"]
    rows = score_match_forecasts(archive, match_forecasts)
    resampler = inference.resampler_for(rows)
    market = market_events(rows)
    return [
        ("leakage.audit_archive", lambda: leakage.audit_archive(archive, match_forecasts)),
        ("calibration", lambda: (calibration.calibration_rows(rows), calibration.confidence_groups(rows))),
        ("reliability.pooled_reliability", lambda: reliability.pooled_reliability(rows, resampler)),
        ("difficulty.difficulty_rows", lambda: difficulty_module.difficulty_rows(rows, resampler)),
        ("operations.operational_rows", lambda: operations.operational_rows(forecasts)),
        ("diversity.diversity_rows", lambda: diversity.diversity_rows(rows)),
        ("inference.all_tests", lambda: inference.all_tests(rows, resampler, market)),
        ("families.family_tests", lambda: families.family_tests(rows, resampler)),
        ("robustness.robustness", lambda: robustness.robustness(rows, resampler)),
        ("paper_tables", lambda: paper_tables(rows)),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000, help="approximate record count")
    parser.add_argument("--mixed", action="store_true", help="add second samples and a second competition")
    args = parser.parse_args()

    from scoring import synthetic

    from collector.archive.memory import paused_garbage_collector

    _, archive = synthetic(args.records, "mixed" if args.mixed else "plain")
    total = 0.0
    with paused_garbage_collector():  # as score_archive runs them
        for label, call in analyses(archive):
            start = time.perf_counter()
            call()
            seconds = time.perf_counter() - start
            total += seconds
            print(f"{label:<32} {seconds:7.2f} s", flush=True)
    print(f"{'total':<32} {total:7.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
