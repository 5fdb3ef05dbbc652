"""Pages that grow with the archive are split: at most ``ROWS_PER_PAGE`` rows each, linked in order.

The first part keeps the page's own path (every link to it stays valid); part ``k`` is
``page-k.html`` beside it. A part's links name the range of rows it holds, so a reader can
jump straight to the part holding a date.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from builder.site.models import Link

ROWS_PER_PAGE = 400  # a match list row weighs ~0.7 KB: 400 rows stay far below the 500 KB page limit
Row = TypeVar("Row")


def part_path(first_path: str, part: int) -> str:
    """The path of part ``part`` (1-based) of the page at ``first_path``."""
    if part == 1:
        return first_path
    folder, _, _ = first_path.rpartition("/")
    return f"{folder}/page-{part}.html" if folder else f"page-{part}.html"


def split_rows(rows: Sequence[Row], per_page: int = ROWS_PER_PAGE) -> list[tuple[Row, ...]]:
    """The rows in consecutive parts of at most ``per_page`` (one empty part for no rows)."""
    if not rows:
        return [()]
    return [tuple(rows[start : start + per_page]) for start in range(0, len(rows), per_page)]


def part_links(first_path: str, parts: list[tuple[Row, ...]], label: Callable[[tuple[Row, ...]], str]) -> tuple[Link, ...]:
    """One link per part, relative to a sibling part (all parts share a folder); none for a single part."""
    if len(parts) <= 1:
        return ()
    return tuple(Link(part_path(first_path, k).rpartition("/")[2], label(rows)) for k, rows in enumerate(parts, 1))
