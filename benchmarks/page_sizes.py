"""Benchmark: the weight of the site's pages and the export phase as the archive grows.

For each size a synthetic archive (the one of ``build_site.py``, tick included) is written to
a temporary folder and built once, cold and without a page cache, in a fresh subprocess. It
prints the five largest pages, the largest page of every page family (the first folder of its
path), how many pages are over the 500 KB limit, and the build's export phase with its ratio
to plain ``orjson`` parsing of the same archive in the same run, so the figures compare
across a loaded machine. That phase is
everything between the "exporting" progress line and "writing": the downloads (CSV, JSON,
SQLite, schemas, manifest), the Data page hashing them and the copy of every raw record into
``records/``; ``benchmarks/exports.py`` times the downloads alone.

    python benchmarks/page_sizes.py [--sizes 10000 100000 300000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from build_site import BUILD, PARSE, run, write_archive, write_records

LIMIT = 500 * 1024
EXPORT_MARK = "exporting"


def page_sizes(site: Path) -> list[tuple[int, str]]:
    """(bytes, site path) of every HTML page, largest first."""
    return sorted(((p.stat().st_size, p.relative_to(site).as_posix()) for p in site.rglob("*.html")), reverse=True)


def families(pages: list[tuple[int, str]]) -> dict[str, tuple[int, str]]:
    """The largest page of each family (the first folder of the path, or the file at the root)."""
    largest: dict[str, tuple[int, str]] = {}
    for size, path in pages:
        largest.setdefault(path.split("/")[0], (size, path))
    return dict(sorted(largest.items(), key=lambda item: -item[1][0]))


def export_seconds(marks: list, total: float) -> float:
    """The time between the export phase's progress line and the next top-level one."""
    top = [(t, line) for t, line in marks if not line.startswith(" ")] + [(total, "")]
    for (t0, line), (t1, _) in zip(top, top[1:], strict=False):
        if line.startswith(EXPORT_MARK):
            return t1 - t0
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 300_000], help="approximate record counts")
    parser.add_argument("--keep", type=Path, default=None, help="keep archives and sites under this folder")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="prematch-pages-"))
    for size in args.sizes:
        archive, out, cache = base / f"archive-{size}", base / f"site-{size}", base / f"cache-{size}"
        write_records(archive, write_archive(archive, size))  # the whole archive, the tick included
        parse = run(PARSE, str(archive))
        build = run(BUILD, str(archive), str(out), str(cache), "bench")
        exports = export_seconds(build["marks"], build["seconds"])
        pages = page_sizes(out)
        over = sum(1 for size_, _ in pages if size_ > LIMIT)
        print(f"{build['records']} records: {len(pages)} pages, {over} over 500 KB; build {build['seconds']:.1f} s; "
              f"exports {exports:.1f} s = {exports / parse['seconds']:.1f}x orjson parsing ({parse['seconds']:.2f} s)")
        print("  largest pages: " + ", ".join(f"{path} {s // 1024} KB" for s, path in pages[:5]))
        print("  largest per family: " + ", ".join(f"{name} {s // 1024} KB" for name, (s, _) in families(pages).items()),
              flush=True)
    print("aim (issue 21): no page over 500 KB at any size")
    return 0


if __name__ == "__main__":
    sys.exit(main())
