"""Benchmark: the downloads (CSV, JSON, SQLite, schemas, manifest) of synthetic archives, streamed to files.

For each size the archive of ``build_site.py`` is written (or reused with ``--keep``) and, in
a fresh subprocess, loaded and scored once; then, with the garbage collector paused as in a
build, it times the tables (``all_tables``) and ``export_files`` writing to a folder, and
prints both against plain ``orjson`` parsing of the same archive in the same run. With
``--against REF`` the ``builder/site/exports.py`` of that git revision is imported beside
the current one and the two are timed alternately in the same process (``ROUNDS`` each,
best of), so the ratio between them holds on a loaded machine; the bytes of every download
are checked equal. The Python heap's peak while exporting (``tracemalloc``, one more run of
each; SQLite's own memory is not in it) shows what streaming saves.

    python benchmarks/exports.py [--sizes 30000 100000] [--keep DIR] [--against main]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from build_site import PARSE, REPO, run, write_archive, write_records

ROUNDS = 2

TIME = """
import gc, importlib.util, json, shutil, sys, tempfile, time
from pathlib import Path
from builder.score.scoring import score_archive
from builder.site.exports import export_files
from builder.site.tables import all_tables
from collector.archive.reader import load_archive
root, against = Path(sys.argv[1]), sys.argv[2]
archive = load_archive(root)
scores = score_archive(archive, inference_tests=False)
gc.freeze(); gc.disable()
start = time.perf_counter(); tables = all_tables(archive, scores); table_s = time.perf_counter() - start
def streamed_only():
    folder = Path(tempfile.mkdtemp())
    try:
        export_files(tables, root, "bench", archive.sha256, workdir=folder)
    finally:
        shutil.rmtree(folder)
def streamed():
    folder = Path(tempfile.mkdtemp())
    try:
        start = time.perf_counter()
        files = export_files(tables, root, "bench", archive.sha256, workdir=folder)
        seconds = time.perf_counter() - start
        return seconds, {name: path.read_bytes() for name, path in files.items()}
    finally:
        shutil.rmtree(folder)
def previous():
    start = time.perf_counter()
    files = old.export_files(tables, root, "bench", archive.sha256)
    return time.perf_counter() - start, files
old = None
if against:
    spec = importlib.util.spec_from_file_location("previous_exports", against)
    old = importlib.util.module_from_spec(spec); spec.loader.exec_module(old)
new_s, old_s, same = [], [], True
for _ in range(%d):
    seconds, files = streamed(); new_s.append(seconds)
    if old is not None:
        seconds, before = previous(); old_s.append(seconds); same = same and before == files
        del before
    del files
import tracemalloc
def peak(export):
    tracemalloc.start()
    export()
    top = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return top / 2**20
new_mb = peak(streamed_only)
old_mb = peak(lambda: old.export_files(tables, root, "bench", archive.sha256)) if old is not None else None
print(json.dumps({"tables": table_s, "streamed": min(new_s), "previous": min(old_s) if old_s else None,
                  "same": same, "forecasts": len(archive.forecasts), "streamed_mb": new_mb, "previous_mb": old_mb}))
""" % ROUNDS


def previous_module(ref: str, folder: Path) -> Path:
    """``builder/site/exports.py`` at ``ref``, written to ``folder`` (imported by path, beside the current one)."""
    text = subprocess.run(["git", "show", f"{ref}:builder/site/exports.py"], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout
    target = folder / "previous_exports.py"
    target.write_text(text, encoding="utf-8")
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30_000, 100_000], help="approximate record counts")
    parser.add_argument("--keep", type=Path, default=None, help="keep (and reuse) the archives under this folder")
    parser.add_argument("--against", default="", help="a git revision whose exports.py is timed alongside")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="prematch-exports-"))
    against = str(previous_module(args.against, base)) if args.against else ""
    for size in args.sizes:
        archive = base / f"archive-{size}"
        if not archive.is_dir():
            write_records(archive, write_archive(archive, size))  # the whole archive, the tick included
        parse = run(PARSE, str(archive))
        timed = run(TIME, str(archive), against)
        floor = parse["seconds"]
        line = (f"{timed['forecasts']} forecasts: orjson {floor:.2f} s; tables {timed['tables']:.1f} s "
                f"({timed['tables'] / floor:.1f}x); streamed exports {timed['streamed']:.1f} s ({timed['streamed'] / floor:.1f}x)")
        line += f"; Python heap peak while exporting {timed['streamed_mb']:.0f} MB"
        if timed["previous"] is not None:
            line += (f"\n  {args.against}'s exports {timed['previous']:.1f} s, heap peak {timed['previous_mb']:.0f} MB: "
                     f"streamed/previous time {timed['streamed'] / timed['previous']:.2f}, "
                     f"heap {timed['streamed_mb'] / timed['previous_mb']:.2f}; same bytes: {timed['same']}")
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
