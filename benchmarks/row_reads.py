"""Benchmark: reading scored rows' measures a row at a time or from their shared matrix at once.

Two readers of every scored row's measures (issue 21): the scores download's rows
(``builder.site.tables.score_table``: each row's keys and its 24 measures) and the paper
tables' per-event means (``builder.score.aggregate.per_cell_events``, the analysis page). Each is
timed both ways in one process on the synthetic archive of ``build_site.py``, alternately
(``--rounds`` each, best of): row by row through each row's mappings (the route taken when the
rows do not share one matrix, and the only one before), and at once from the matrix
(``measurerows.named_columns``, ``shared_matrix``). It checks the two give the same values to
the bit and prints the times and their ratio, then times ``paper_tables`` once.

    python benchmarks/row_reads.py [--records 100000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import gc
import pickle
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scoring import synthetic  # noqa: E402

from builder.score.aggregate import _measure_values  # noqa: E402
from builder.score.measurerows import named_columns  # noqa: E402
from builder.score.paper_tables import paper_tables  # noqa: E402
from builder.score.scoring import score_archive  # noqa: E402
from builder.site.tables import score_table  # noqa: E402

NAMES = ("brier", "log_loss", "accuracy", "exact", "points", "result_wca", "exact_wca", "scoreline_wca")


def timed(call) -> tuple[float, object]:
    """(seconds, value) of one call."""
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000, help="approximate records of the synthetic archive")
    parser.add_argument("--rounds", type=int, default=3, help="timings of each route (best of)")
    args = parser.parse_args()
    _, archive = synthetic(args.records)
    scores = score_archive(archive)
    rows = scores.forecasts
    gc.disable()  # as in a build (builder.site.build pauses the collector)
    table = score_table(scores)
    items = table.rows.items
    pairs = [
        ("scores download rows", lambda: list(map(table.rows.make, items)), lambda: table.rows[0 : len(items)]),
        ("per-event measure values",
         lambda: np.array([_measure_values(r, NAMES) for r in rows], dtype=float),
         lambda: named_columns(rows, NAMES)),
    ]  # fmt: skip
    print(f"{len(rows)} scored rows; best of {args.rounds}, the two routes alternating")
    for label, by_row, at_once in pairs:
        slow, fast = [], []
        for _ in range(args.rounds):
            slow.append(timed(by_row))
            fast.append(timed(at_once))
        if pickle.dumps(slow[-1][1]) != pickle.dumps(fast[-1][1]):
            raise SystemExit(f"{label}: the two routes differ")
        a, b = min(t for t, _ in slow), min(t for t, _ in fast)
        print(f"{label:26} row by row {a:6.2f} s   at once {b:6.2f} s   ratio {b / a:4.2f}   (same bits)")
    seconds, _ = timed(lambda: paper_tables(rows))
    print(f"paper_tables (the analysis page's tables): {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
