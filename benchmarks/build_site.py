"""Benchmark: build the static site from synthetic archives of ~10,000, ~100,000 and ~300,000 records.

For each size the archive is written to the ``archive/`` folder of a git repository (plain
writes: the benchmark is about reading and rendering, not the writer's fsyncs) without the
records of its last ``AHEAD_EVENTS + TICK_EVENTS`` matches, and committed; each arrival below
is committed too, as the collector commits its ticks. Every build is given the arena's
repository address (as GitHub Actions gives it: ``GITHUB_REPOSITORY``), so its records are
linked on the host and not copied into the site (:func:`builder.site.build.record_files`).
Then, in a fresh subprocess each:

* ``orjson``: read every record file and ``orjson.loads`` it (the floor: plain parsing);
* ``cold``: ``build_site`` end to end with an empty page cache (load and validate, score,
  every slice of the leaderboard, page models and pages: "building", exports, then the record
  copies and putting the files in place: "writing"), with its phase times and peak memory;
* then, once per size: ``load_archive`` alone, the validated load that every
  build makes before it scores (a validated object of every record), with its ratio to the
  cold row's plain parsing;
* ``warm``: the same build again with the cache the cold one left (nothing changed: the site is
  found as the cold build left it and kept whole, :mod:`builder.site.sitereuse`; at the same
  commit the archive's files are only read and hashed, none validated, and the fingerprint's
  other inputs read);
* ``ahead``: the most common tick of a live arena: the events and forecasts of ``AHEAD_EVENTS``
  more matches (about 500 records), not played yet (no outcome: nothing new is scored, so every
  bootstrap result is the previous build's, :mod:`builder.score.memo`), then the build with the
  warm cache;
* ``tick``: the tick's records (its matches' forecasts and outcomes: new scored rows, every
  resampler and interval made afresh) are written, then the build runs with the warm cache (only
  the pages and files whose inputs or bytes changed are built and written);
* ``fresh``: what the Pages workflow pays per tick: the same archive built with that cache into
  an empty folder (GitHub Actions starts from an empty ``_site/``, only the cache folder is
  restored) with a new commit: every file written, the downloads made whole.

After the sizes, a projected line per build at 1,000,000 records extends the two largest
sizes' measured slopes (time and peak memory against records; a straight line, so it says
what the present design would cost, not what a better one would). It prints each build's time, peak memory, pages rendered (the rest reused from the cache), and
the ratio to plain orjson parsing of the whole archive. Peak memory three ways: "peak MB", the
build process's max RSS; "PSS MB", the largest sum of the proportional set sizes of the build
process and its children (the archive reader's, the slices' and the downloads' children: shared copy-on-write
pages counted once), sampled every 0.2 s from ``/proc`` (Linux; 0 elsewhere); "bound MB", the
build's max RSS plus its children's largest max RSS (``RUSAGE_CHILDREN``), an upper bound that
counts every shared page twice. ``--workers N`` sets ``PREMATCH_BUILD_WORKERS`` for the builds.

    python benchmarks/build_site.py [--sizes 10000 100000 300000] [--keep DIR] [--workers N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

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

LOAD = """
import json, sys, time
from pathlib import Path
from collector.archive.reader import load_archive
start = time.perf_counter()
archive = load_archive(Path(sys.argv[1]))
print(json.dumps({"seconds": time.perf_counter() - start, "records": len(archive.records)}))
"""

BUILD = """
import json, os, resource, sys, threading, time
from pathlib import Path
from builder.site.build import build_site

def pss_kib(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            return next(int(line.split()[1]) for line in handle if line.startswith("Pss:"))
    except (OSError, StopIteration):
        return 0

def children(pid):
    try:
        return [int(c) for task in os.listdir(f"/proc/{pid}/task")
                for c in open(f"/proc/{pid}/task/{task}/children").read().split()]
    except OSError:
        return []

peak = [0]
def sample(stop):  # the build's processes' summed PSS (shared pages split between them), every SAMPLE_S
    me = os.getpid()
    while not stop.wait(SAMPLE_S):
        peak[0] = max(peak[0], pss_kib(me) + sum(pss_kib(c) for c in children(me)))

SAMPLE_S = 0.2
stop = threading.Event()
sampler = threading.Thread(target=sample, args=(stop,), daemon=True)
if os.path.exists("/proc/self/smaps_rollup"):
    sampler.start()
marks = []
start = time.perf_counter()
from builder.site.provenance import ArenaUrls
report = build_site(Path(sys.argv[1]), Path(sys.argv[2]), commit=sys.argv[4], cache=Path(sys.argv[3]),
                    progress=lambda line: marks.append((time.perf_counter() - start, line)), urls=ArenaUrls(sys.argv[5]))
total = time.perf_counter() - start
stop.set()
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"seconds": total, "marks": marks, "pages": report.pages, "files": report.files,
                  "rendered": report.rendered, "records": report.records,
                  "heavy": report.heavy_pages, "max_rss_mb": own, "children_max_rss_mb": kids,
                  "bound_mb": own + kids, "pss_mb": peak[0] / 1024 or None}))
"""
TICK_EVENTS = 5  # matches whose records arrive with the tick: 5 x (8 models x 12 cells + elo, market, event, outcome)
AHEAD_EVENTS = 5  # matches before them whose event and forecasts (not their outcomes) arrive with the "ahead" tick


def write_archive(root: Path, n_records: int) -> tuple[list, list]:
    """Write the archive without its last ``AHEAD_EVENTS + TICK_EVENTS`` matches; return the records
    of the "ahead" tick (the first ones' records but their outcomes, which never arrive) and of
    the tick (every record of the last ``TICK_EVENTS`` matches)."""
    from factories import synthetic_records

    from collector.records import Outcome

    n_models = 8
    per_event = n_models * RECORDS_PER_EVENT_PER_MODEL + 3 + 2  # + elo x3, market... event, outcome
    n_events = max(8 + AHEAD_EVENTS, round(n_records / per_event))
    records = synthetic_records(n_events=n_events, n_models=n_models, seed=20260715,
                                knockout_from=int(n_events * 0.7))
    first = n_events - TICK_EVENTS - AHEAD_EVENTS
    ahead = {f"m{i + 1:03d}" for i in range(first, n_events - TICK_EVENTS)}
    late = {f"m{i + 1:03d}" for i in range(n_events - TICK_EVENTS, n_events)}
    match = [next((value for name in ("event_id", "target_id", "id") if (value := getattr(r, name, None)) in ahead | late),
                  None) for r in records]
    write_records(root, [r for r, m in zip(records, match, strict=True) if m is None])
    return ([r for r, m in zip(records, match, strict=True) if m in ahead and not isinstance(r, Outcome)],
            [r for r, m in zip(records, match, strict=True) if m in late])


def write_records(root: Path, records: list) -> None:
    from collector.archive.layout import path_for
    from collector.records.byteform import record_bytes

    for record in records:
        target = root / path_for(record)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(record_bytes(record))


REPOSITORY = "https://github.com/example/arena"  # the arena's address, as GitHub Actions gives it to the build
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "bench@example.invalid", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def commit_all(repo: Path, message: str) -> None:
    """Commit everything under ``repo`` (a git repository made on the first call), as the collector commits a tick."""
    env = {**os.environ, **GIT_ENV}
    if not (repo / ".git").exists():
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
        # no background "gc --auto" after a commit of 100,000 loose objects (it would run beside the builds;
        # the workflow's fresh checkout is packed)
        subprocess.run(["git", "-C", str(repo), "config", "gc.auto", "0"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", message], check=True, env=env)


def run(snippet: str, *args: str, workers: str | None = None) -> dict:
    env = dict(os.environ) if workers is None else {**os.environ, "PREMATCH_BUILD_WORKERS": workers}
    done = subprocess.run([sys.executable, "-c", snippet, *args], capture_output=True, text=True, cwd=REPO, check=False,
                          env=env)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def phases(marks: list, total: float) -> str:
    """Each top-level progress line's phase, timed to the next top-level line (the indented lines
    within it, such as a child's announcement, do not end it), with the children's times."""
    shown = []
    for i, (t0, line) in enumerate(marks):
        t1 = next((t for t, later in marks[i + 1:] if not later.startswith(" ")), total)
        if not line.startswith(" "):
            words = line.split(" ")
            label = " ".join(words[:3] if words[1:2] == ["leaderboard"] or words[0] == "scoring" and len(words) > 1 else words[:1])
            shown.append(f"{label} {t1 - t0:.1f}s")
        elif "made in the background process in " in line:  # a child's own time, beside the time waited
            what = line.split()[1]  # "downloads" or "slices" (and the paper tables)
            shown.append(f"({what} child: " + line.split(" in the background process in ")[1].split(" ")[0] + ")")
        elif line.startswith("  bootstrap results reused "):  # builder.score.memo's summary
            reused, computed = line.split("reused ")[1].split(", computed ")
            shown.append(f"(bootstrap results: {reused} reused, {computed.split(';')[0]} computed)")
    return ", ".join(shown)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 300_000], help="approximate record counts")
    parser.add_argument("--keep", type=Path, default=None, help="keep archives and sites under this folder")
    parser.add_argument("--workers", default=None, help="PREMATCH_BUILD_WORKERS for the builds (default: as set)")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="prematch-bench-"))
    print(f"{'records':>9} {'build':>5} {'pages':>6} {'rendered':>8} {'orjson s':>9} {'build s':>8} {'ratio':>6} "
          f"{'peak MB':>8} {'PSS MB':>7} {'bound MB':>8}  phases")
    measured: dict[str, list[tuple[int, float, float, float]]] = {}
    for size in args.sizes:
        repo, out, cache = base / f"arena-{size}", base / f"site-{size}", base / f"cache-{size}"
        archive = repo / "archive"
        arrivals = dict(zip(("ahead", "tick"), write_archive(archive, size), strict=True))
        commit_all(repo, "the archive")
        for kind in ("cold", "warm", "ahead", "tick", "fresh"):
            if kind in arrivals:
                write_records(archive, arrivals[kind])
                commit_all(repo, kind)
            parse = run(PARSE, str(archive))
            site = base / f"site-{size}-fresh" if kind == "fresh" else out
            build = run(BUILD, str(archive), str(site), str(cache), "bench" if kind in ("cold", "warm") else kind,
                        REPOSITORY, workers=args.workers)  # a tick commits, and so does the workflow's build
            ratio = build["seconds"] / parse["seconds"]
            measured.setdefault(kind, []).append((build["records"], build["seconds"], parse["seconds"], build["max_rss_mb"]))
            print(f"{build['records']:>9} {kind:>5} {build['pages']:>6} {build['rendered']:>8} {parse['seconds']:>9.2f} "
                  f"{build['seconds']:>8.1f} {ratio:>5.1f}x {build['max_rss_mb']:>8.0f} {build['pss_mb'] or 0:>7.0f} "
                  f"{build['bound_mb']:>8.0f}  "
                  f"{phases(build['marks'], build['seconds'])}", flush=True)
            if build["heavy"]:
                print(f"          pages over 500 KB: {build['heavy']}")
            if kind == "cold":  # what every build pays before scoring: a validated object of every record
                load = run(LOAD, str(archive))
                print(f"{'':>9} {'':>5}  the validated load alone (load_archive, a fresh process): {load['seconds']:.1f} s, "
                      f"{load['seconds'] / parse['seconds']:.1f}x plain parsing", flush=True)
    projected(measured)
    print("aims (issue 51): cold <= 8x at 100k under 1 GB, under 2 GB at 300k; a tick (ahead, tick, fresh) <= 3x and <= 10 s at 100k; "
          "no page over 500 KB")
    return 0


PROJECTED = 1_000_000


def projected(measured: dict[str, list[tuple[int, float, float, float]]]) -> None:
    """A line per build at :data:`PROJECTED` records, from the slopes between the two largest sizes
    measured (records, seconds, plain parsing seconds, peak MB); nothing with fewer than two sizes."""
    for kind, points in measured.items():
        if len(points) < 2:
            continue
        (n1, t1, p1, m1), (n2, t2, p2, m2) = sorted(points)[-2:]
        if n2 == n1:
            continue
        def at(v1: float, v2: float) -> float:
            return v2 + (v2 - v1) / (n2 - n1) * (PROJECTED - n2)

        seconds, parse = at(t1, t2), at(p1, p2)
        print(f"{PROJECTED:>9} {kind:>5} {'':>6} {'':>8} {parse:>9.2f} {seconds:>8.1f} {seconds / parse:>5.1f}x "
              f"{at(m1, m2):>8.0f}  projected from {n1:,} and {n2:,} records (straight lines)")


if __name__ == "__main__":
    sys.exit(main())
