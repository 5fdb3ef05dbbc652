"""Benchmark: the coverage of the bootstrap's 95% intervals on simulated tournaments, per scheme.

The panels are ``tests/coverage_panels.py``'s (72 group-stage and 32 knockout matches, one
skewed, bounded Brier score per match, true mean known in closed form); the CI test
``tests/test_resampling_coverage.py`` runs 500 of them. This runs more, for each scenario, and
prints per method: the share of panels whose studentized 95% interval covers the true mean with
its binomial Monte Carlo standard error, the mean width, and the panels on which the method and
the multinomial scheme disagree (covered by one only). Methods: the stratified Poisson bootstrap
(the leaderboard's), the stratified multinomial match bootstrap (LLM-SoccerArena's, the paper
tables') and, for comparison, the Poisson counts scaled as one stratum (unstratified).

    python benchmarks/resampling_coverage.py [--panels 2000] [--replicates 2000] [--scenario papers ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

METHODS = {"stratified Poisson": ("poisson", True), "stratified multinomial": ("multinomial", True),
           "unstratified Poisson": ("poisson", False)}


def report(scenario: str, panels: int, replicates: int) -> None:
    from coverage_panels import coverage, true_mean

    start = time.perf_counter()
    found = coverage(scenario, panels, replicates, METHODS)
    seconds = time.perf_counter() - start
    print(f"{scenario}: {panels} panels, {replicates} replicates, true mean {true_mean(scenario):.4f} "
          f"({seconds:.0f} s for the three methods)")
    reference = found["stratified multinomial"][0]
    for name, (covered, widths) in found.items():
        share = covered.mean()
        error = np.sqrt(share * (1 - share) / panels)
        only, other = int((covered & ~reference).sum()), int((~covered & reference).sum())
        print(f"  {name:24s} coverage {share:.4f} ± {error:.4f} (MC s.e.)  mean width {widths.mean():.4f}  "
              f"covers where multinomial does not: {only}, the reverse: {other}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--panels", type=int, default=2000, help="simulated tournaments per scenario")
    parser.add_argument("--replicates", type=int, default=2000, help="bootstrap replicates per interval")
    parser.add_argument("--scenario", nargs="+", default=["papers", "strata apart"],
                        help="scenarios of tests/coverage_panels.py (SCENARIOS)")
    args = parser.parse_args()
    for scenario in args.scenario:
        report(scenario, args.panels, args.replicates)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
