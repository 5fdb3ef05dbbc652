"""Benchmark: what a tick would cost if the builder read the record-facts columns (issue 51's read model).

The builder today validates every record into pydantic objects and scores them all again at every
build (``build_site.py`` gives those builds' times). This measures the floor of the other design on
the same synthetic archive as ``build_site.py`` (its ``write_archive``, committed to git as the
collector commits): after the "tick" records (about 500: five matches' forecasts and outcomes)
arrive,

* ``orjson``: plain parsing of every record file (the unit of every ratio);
* ``objects``: today's load (``load_archive``: a validated object of every record);
* ``facts``: the record-facts load from the one store (``load_facts``: every file read and
  hashed, only the tick's new files validated; the store was filled before the tick);
* ``scores``: scoring's inputs from the facts (``match_scoring_columns``), every per-forecast
  measure (``match_measures``) and each cell's mean of every measure (``np.add.at``): the
  leaderboard's sums, from columns;
* ``history``: git's adding commit of every record file (``added_commits``), which every build
  asks whatever it reads;

each in a fresh process, and the floor (facts + scores + history) with its ratio to parsing.
What the floor leaves out, a real tick would add: the pages whose inputs changed (tens, rendered
from the objects of their own records) and the downloads' changed chunks, in the background.

    python benchmarks/read_model_floor.py [--records 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

from build_site import PARSE, commit_all, write_archive, write_records  # noqa: E402

OBJECTS = """
import json, sys, time
from pathlib import Path
from collector.archive.reader import load_archive
start = time.perf_counter()
archive = load_archive(Path(sys.argv[1]))
print(json.dumps({"seconds": time.perf_counter() - start, "records": len(archive.records)}))
"""

FACTS = """
import json, sys, time
from pathlib import Path
from collector.archive.facts import load_facts
start = time.perf_counter()
facts = load_facts(Path(sys.argv[1]), cache=Path(sys.argv[2]))
print(json.dumps({"seconds": time.perf_counter() - start, "records": len(facts), "validated": facts.validated,
                  "note": facts.cache_note}))
"""

SCORES = """
import json, sys, time
from pathlib import Path
import numpy as np
from collector.archive.facts import load_facts
from builder.score.metrics import published_score, result_class
from builder.score.scoring import match_measures
facts = load_facts(Path(sys.argv[1]), cache=Path(sys.argv[2]))
start = time.perf_counter()
c = facts.match_scoring_columns()
y = result_class(c["h"], c["a"])
measures = match_measures(c["p"], y, c["ph"], c["pa"], c["h"], c["a"], c["eh"], c["ea"],
                          published=published_score(c["h"], c["a"], c["h_et"], c["a_et"], c["et"]))
cells = np.stack([facts.columns[name][c["row"]] for name in ("forecaster", "access", "strategy", "horizon")], axis=1)
_, cell = np.unique(cells, axis=0, return_inverse=True)
matrix = np.stack([np.asarray(v, dtype=float) for v in measures.values()], axis=1)
sums = np.zeros((cell.max() + 1, matrix.shape[1]))
np.add.at(sums, cell.ravel(), np.nan_to_num(matrix))
counts = np.bincount(cell.ravel())
means = sums / counts[:, None]
print(json.dumps({"seconds": time.perf_counter() - start, "rows": len(y), "cells": len(counts)}))
"""

HISTORY = """
import json, sys, time
from pathlib import Path
from builder.site.provenance import added_commits
start = time.perf_counter()
added = added_commits(Path(sys.argv[1]))
print(json.dumps({"seconds": time.perf_counter() - start, "files": len(added)}))
"""


def run(snippet: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", snippet, *args], capture_output=True, text=True, cwd=REPO, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000, help="approximate record count of the archive")
    parser.add_argument("--keep", type=Path, default=None, help="keep the archive and the store under this folder")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="prematch-read-model-"))
    repo, store = base / "arena", base / "cache"
    archive = repo / "archive"
    ahead, tick = write_archive(archive, args.records)
    write_records(archive, ahead)
    commit_all(repo, "the archive")
    cold = run(FACTS, str(archive), str(store))  # fills the store, as the builds before the tick did
    write_records(archive, tick)
    commit_all(repo, "tick")
    parse = run(PARSE, str(archive))
    objects = run(OBJECTS, str(archive))
    facts = run(FACTS, str(archive), str(store))
    scores = run(SCORES, str(archive), str(store))
    history = run(HISTORY, str(archive))
    unit = parse["seconds"]

    def line(label: str, seconds: float, what: str) -> None:
        print(f"{label:<9} {seconds:>7.2f} s {seconds / unit:>6.2f}x  {what}")

    print(f"{parse['files']:,} record files; ratios to plain orjson parsing of them all")
    line("orjson", unit, "plain parsing of every file")
    line("objects", objects["seconds"], f"load_archive: a validated object of every record ({objects['records']:,})")
    line("facts0", cold["seconds"], f"load_facts with an empty store before the tick: {cold['validated']:,} files validated")
    line("facts", facts["seconds"], f"load_facts after the tick: {facts['validated']:,} new files validated, "
                                    f"the rest from the store")
    line("scores", scores["seconds"], f"{scores['rows']:,} scored rows' measures and {scores['cells']} cells' means "
                                      "from the columns")
    line("history", history["seconds"], f"git's adding commit of {history['files']:,} files")
    floor = facts["seconds"] + scores["seconds"] + history["seconds"]
    line("floor", floor, "facts + scores + history: a read-model tick before its changed pages and downloads")
    print("aim (issue 51): a tick <= 3x plain parsing and <= 10 s at 100,000 records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
