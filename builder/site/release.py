"""The open-data files of a build, beside the pages and downloads: the Parquet dataset with its schema
document and card (:mod:`builder.site.dataset`), the Atom feed (:mod:`builder.site.feed`) and the JSON
API (:mod:`builder.site.api`). One entry point for the build, so the build itself changes by a line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from builder.site.api import api_files
from builder.site.feed import FEED, atom_feed
from builder.site.tables import iter_tables


def open_data_files(archive, scores, commit: str, site: str | None) -> Iterator[tuple[str, bytes]]:
    """(site path, bytes) of every open-data file of a build (``site``: the arena's public address, for the feed)."""
    from builder.site.dataset import (
        release_files,  # pyarrow: imported when a build writes, not by every command
    )

    yield from release_files(iter_tables(archive, scores), commit).items()
    yield FEED, atom_feed(archive, scores, commit, site)
    yield from api_files(archive, scores, commit).items()


def write_open_data(workdir: Path, archive, scores, commit: str, site: str | None) -> dict[str, Path]:
    """Write the open-data files under ``workdir`` (at their site paths); site path -> file. The
    build makes them with the downloads, in the background and kept when their inputs are unchanged."""
    files: dict[str, Path] = {}
    for name, content in open_data_files(archive, scores, commit, site):
        target = workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        files[name] = target
    return files


def is_open_data(name: str) -> bool:
    """Whether a site path is one of the open-data files (not a CSV/JSON/SQLite download or a schema)."""
    return name.startswith(("data/parquet/", "api/")) or name == FEED
