"""The open-data files of a build, beside the pages and downloads: the Parquet dataset with its schema
document and card (:mod:`builder.site.dataset`), the Atom feed (:mod:`builder.site.feed`) and the JSON
API (:mod:`builder.site.api`). One entry point for the build, so the build itself changes by a line."""

from __future__ import annotations

from collections.abc import Iterator

from builder.site.api import api_files
from builder.site.feed import FEED, atom_feed
from builder.site.tables import iter_tables


def open_data_files(ctx) -> Iterator[tuple[str, bytes]]:
    """(site path, bytes) of every open-data file of the build whose context is ``ctx``."""
    from builder.site.dataset import (
        release_files,  # pyarrow: imported when a build writes, not by every command
    )

    yield from release_files(iter_tables(ctx.archive, ctx.scores), ctx.commit).items()
    yield FEED, atom_feed(ctx.archive, ctx.scores, ctx.commit, ctx.urls.site)
    yield from api_files(ctx.archive, ctx.scores, ctx.commit).items()
