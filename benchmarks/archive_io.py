"""Archive I/O benchmark: write and read N records (default 100,000) through the real writer and reader.

    python benchmarks/archive_io.py [--records 100000] [--dir DIR] [--threads 16]

Prints write records/s (ArchiveWriter: atomic, fsynced, one file per record; written from a
thread pool because fsync waits on the disk), validated-load records/s (collector.archive.reader.
load_archive), the ratio of validated load time to plain orjson parsing of the same files
(walk + read + orjson.loads), in wall-clock and in CPU time, and the peak memory (max RSS) of each read, each
measured in a fresh child process. Then the record-facts load (collector.archive.facts.load_facts):
cold (an empty cache folder: every file validated, the cache written) and cached (every file
read and hashed, nothing parsed), with their ratios to the same plain parsing (aim for cached:
<= 1.5x). The record mix is World-Cup shaped (mostly forecasts), from
tests/factories.synthetic_records. Ratios are measured in one run; absolute numbers vary by disk.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def generate(n: int):
    from tests.factories import synthetic_records

    per_event = len(synthetic_records(n_events=1)) - 1  # minus the competition record
    records = synthetic_records(n_events=n // per_event + 1, seed=1)
    return records[:n]


def write(records, root: Path, threads: int) -> float:
    from collector.archive.write.writer import ArchiveWriter

    writer = ArchiveWriter(root)
    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(writer.write, records))
    return time.perf_counter() - start


def read_plain(root: Path) -> int:
    """The baseline: the same walk and file reads as the reader, then orjson.loads only."""
    import orjson

    from collector.archive.reader import iter_record_files

    count = 0
    base = str(root)
    for relative in iter_record_files(root):
        with open(os.path.join(base, relative), "rb") as handle:
            orjson.loads(handle.read())
        count += 1
    return count


def read_validated(root: Path) -> int:
    from collector.archive.reader import load_archive

    archive = load_archive(root)
    if archive.problems:
        raise SystemExit(f"unexpected problems: {archive.problems[:3]}")
    return len(archive.records)


def read_facts(root: Path) -> int:
    from collector.archive.facts import load_facts

    facts = load_facts(root, cache=facts_cache_folder(root))
    if facts.problems:
        raise SystemExit(f"unexpected problems: {facts.problems[:3]}")
    return int(facts.ok.sum())


def facts_cache_folder(root: Path) -> Path:
    """The benchmark's own cache folder, beside the archive (never the repository's)."""
    return root.parent / f"{root.name}-facts-cache"


def child(mode: str, root: Path) -> None:
    start, cpu_start = time.perf_counter(), time.process_time()
    count = {"plain": read_plain, "validated": read_validated, "facts": read_facts}[mode](root)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(json.dumps({"mode": mode, "records": count, "seconds": seconds, "cpu": cpu, "peak_mb": _peak_rss_mb()}))


def _peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM; ru_maxrss would include the parent's, kept across exec)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(mode: str, root: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", mode, "--dir", str(root)],
                         check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000, help="how many records to write and read")
    parser.add_argument("--dir", type=Path, default=None, help="archive folder (default: a new temporary folder)")
    parser.add_argument("--threads", type=int, default=16, help="writer threads")
    parser.add_argument("--read-only", action="store_true", help="skip writing: measure reads of an existing --dir")
    parser.add_argument("--child", choices=["plain", "validated", "facts"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.dir)
        return
    root = args.dir or Path(tempfile.mkdtemp(prefix="prematch-bench-")) / "archive"
    if not args.read_only:
        t0 = time.perf_counter()
        records = generate(args.records)
        print(f"generated {len(records):,} records in {time.perf_counter() - t0:.1f}s -> {root}")
        seconds = write(records, root, args.threads)
        print(f"write: {len(records):,} records in {seconds:.1f}s = {len(records) / seconds:,.0f} records/s "
              f"({args.threads} threads, fsync per file)")
        del records
    measure("plain", root)  # warm the page cache so both reads see the same cache state
    plain = min((measure("plain", root) for _ in range(2)), key=lambda r: r["seconds"])
    valid = min((measure("validated", root) for _ in range(2)), key=lambda r: r["seconds"])
    print(f"plain orjson parse: {plain['records']:,} files in {plain['seconds']:.2f}s = "
          f"{plain['records'] / plain['seconds']:,.0f} records/s, peak {plain['peak_mb']:.0f} MB")
    print(f"validated load:     {valid['records']:,} records in {valid['seconds']:.2f}s = "
          f"{valid['records'] / valid['seconds']:,.0f} records/s, peak {valid['peak_mb']:.0f} MB")
    print(f"ratio validated / plain: {valid['seconds'] / plain['seconds']:.2f}x wall clock, "
          f"{valid['cpu'] / plain['cpu']:.2f}x CPU time (aim <= 1.5x; CPU time is steadier on a busy machine)")

    cold, cached, plain_again = measure_facts(root)
    for name, run in (("cold facts load:  ", cold), ("cached facts load:", cached)):
        print(f"{name}  {run['records']:,} records in {run['seconds']:.2f}s = "
              f"{run['records'] / run['seconds']:,.0f} records/s, peak {run['peak_mb']:.0f} MB; "
              f"{run['seconds'] / plain_again['seconds']:.2f}x plain wall clock, "
              f"{run['cpu'] / plain_again['cpu']:.2f}x CPU time")
    print(f"ratio cached facts / plain: {cached['seconds'] / plain_again['seconds']:.2f}x wall clock, "
          f"{cached['cpu'] / plain_again['cpu']:.2f}x CPU time (aim <= 1.5x; plain parsing timed again in turns "
          f"with the cached loads: {plain_again['seconds']:.2f}s)")


def measure_facts(root: Path, rounds: int = 3) -> tuple[dict, dict, dict]:
    """The best of two cold facts loads (cache emptied before each), then the best of ``rounds``
    cached loads and of as many plain parses, taken in turns so that both see the same load."""
    import shutil

    colds = []
    for _ in range(2):
        shutil.rmtree(facts_cache_folder(root), ignore_errors=True)
        colds.append(measure("facts", root))
    cached, plain = [], []
    for _ in range(rounds):
        plain.append(measure("plain", root))
        cached.append(measure("facts", root))
    fastest = lambda runs: min(runs, key=lambda r: r["seconds"])  # noqa: E731
    return fastest(colds), fastest(cached), fastest(plain)

if __name__ == "__main__":
    main()
