"""Benchmark: build the static site from synthetic archives of ~10,000 and ~100,000 records.

For each size the archive is written to a temporary folder (plain writes: the benchmark is
about reading and rendering, not the writer's fsyncs), then, in a fresh subprocess each:

* ``orjson``: read every record file and ``orjson.loads`` it (the floor: plain parsing);
* ``build``: ``build_site`` end to end (load and validate, score, every slice of the
  leaderboard, render every page, exports, write), with its phase times and peak memory.

It prints build time, peak memory (max RSS of the build process), and the ratio of build
time to plain orjson parsing of the same files (aim: <= 3x).

    python benchmarks/build_site.py [--sizes 10000 100000] [--keep DIR]
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

AIM_RATIO = 3.0
RECORDS_PER_EVENT_PER_MODEL = 12  # ALL_CELLS

PARSE = """
import json, os, sys, time, orjson
from collector.archive.reader import iter_record_files
root = sys.argv[1]
start = time.perf_counter()
paths = iter_record_files(__import__('pathlib').Path(root))
for rel in paths:
    with open(os.path.join(root, rel), 'rb') as handle:
        orjson.loads(handle.read())
print(json.dumps({"seconds": time.perf_counter() - start, "files": len(paths)}))
"""

BUILD = """
import json, resource, sys, time
from pathlib import Path
from builder.site.build import build_site
marks = []
start = time.perf_counter()
report = build_site(Path(sys.argv[1]), Path(sys.argv[2]), commit="benchmark",
                    progress=lambda line: marks.append((time.perf_counter() - start, line)))
total = time.perf_counter() - start
print(json.dumps({"seconds": total, "marks": marks, "pages": report.pages, "files": report.files,
                  "heavy": report.heavy_pages, "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def write_archive(root: Path, n_records: int) -> int:
    from factories import synthetic_records

    from collector.archive.layout import path_for
    from collector.archive.writer import record_bytes

    n_models = 8
    per_event = n_models * RECORDS_PER_EVENT_PER_MODEL + 3 + 2  # + elo x3, market... event, outcome
    n_events = max(8, round(n_records / per_event))
    records = synthetic_records(n_events=n_events, n_models=n_models, seed=20260715,
                                knockout_from=int(n_events * 0.7))
    for record in records:
        target = root / path_for(record)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(record_bytes(record))
    return len(records)


def run(snippet: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", snippet, *args], capture_output=True, text=True, cwd=REPO, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def phases(marks: list, total: float) -> str:
    shown = []
    for (t0, line), (t1, _) in zip(marks, marks[1:] + [(total, "")], strict=True):
        if not line.startswith(" "):
            words = line.split(" ")
            label = " ".join(words[:3] if words[1:2] == ["leaderboard"] or words[0] == "scoring" and len(words) > 1 else words[:1])
            shown.append(f"{label} {t1 - t0:.1f}s")
    return ", ".join(shown)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="approximate record counts")
    parser.add_argument("--keep", type=Path, default=None, help="keep archives and sites under this folder")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="prematch-bench-"))
    print(f"{'records':>9} {'pages':>6} {'orjson s':>9} {'build s':>8} {'ratio':>6} {'peak MB':>8}  phases")
    worst = 0.0
    for size in args.sizes:
        archive, out = base / f"archive-{size}", base / f"site-{size}"
        n = write_archive(archive, size)
        parse = run(PARSE, str(archive))
        build = run(BUILD, str(archive), str(out))
        ratio = build["seconds"] / parse["seconds"]
        worst = max(worst, ratio)
        print(f"{n:>9} {build['pages']:>6} {parse['seconds']:>9.2f} {build['seconds']:>8.1f} {ratio:>5.1f}x "
              f"{build['max_rss_mb']:>8.0f}  {phases(build['marks'], build['seconds'])}")
        if build["heavy"]:
            print(f"          pages over 500 KB: {build['heavy']}")
    print(f"aim: build <= {AIM_RATIO:.0f}x plain orjson parsing; worst ratio measured {worst:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
