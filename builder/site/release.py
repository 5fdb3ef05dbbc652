"""The open-data files of a build, beside the pages and downloads: the Parquet dataset with its schema
document and card (:mod:`builder.site.dataset`), the Atom feed (:mod:`builder.site.feed`) and the JSON
API (:mod:`builder.site.api`). One entry point for the build, so the build itself changes by a line.
The Parquet tables are the download tables, written as the downloads walk them (one walk for both)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from builder.site.api import api_files
from builder.site.feed import FEED, atom_feed

if TYPE_CHECKING:  # pyarrow: imported when a build writes, not by every command
    from builder.site.dataset import Release


def open_data_files(archive, scores, release: Release, site: str | None) -> Iterator[tuple[str, bytes]]:
    """(site path, bytes) of every open-data file of a build (``release``: the Parquet tables, made
    as the downloads walked the tables; ``site``: the arena's public address, for the feed)."""
    yield from release.files().items()
    yield FEED, atom_feed(archive, scores, release.commit, site)
    yield from api_files(archive, scores, release.commit).items()


def write_open_data(workdir: Path, archive, scores, release: Release, site: str | None) -> dict[str, Path]:
    """Write the open-data files under ``workdir`` (at their site paths); site path -> file. The
    build makes them with the downloads, in the background and kept when their inputs are unchanged."""
    files: dict[str, Path] = {}
    for name, content in open_data_files(archive, scores, release, site):
        target = workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        files[name] = target
    return files


def is_open_data(name: str) -> bool:
    """Whether a site path is one of the open-data files (not a CSV/JSON/SQLite download or a schema)."""
    return name.startswith(("data/parquet/", "api/")) or name == FEED
