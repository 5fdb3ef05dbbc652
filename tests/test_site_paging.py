"""A competition's match list that outgrows one page is split into linked parts, none over the row limit."""

from __future__ import annotations

import re

import pytest

from builder.site.build import build_site
from builder.site.buildreport import PAGE_LIMIT
from builder.site.paging import ROWS_PER_PAGE, part_path, split_rows
from collector.archive.layout import path_for
from collector.records.byteform import record_bytes
from tests.factories import ALL_CELLS, synthetic_records


def test_parts_keep_the_first_path_and_hold_every_row_once():
    assert part_path("matches/wc/index.html", 1) == "matches/wc/index.html"
    assert part_path("matches/wc/index.html", 3) == "matches/wc/page-3.html"
    rows = list(range(2 * ROWS_PER_PAGE + 1))
    parts = split_rows(rows)
    assert [len(p) for p in parts] == [ROWS_PER_PAGE, ROWS_PER_PAGE, 1]
    assert [r for p in parts for r in p] == rows
    assert split_rows([]) == [()]


@pytest.mark.slow
def test_a_long_match_list_is_split_into_linked_parts(tmp_path):
    n_events = ROWS_PER_PAGE + 50
    records = synthetic_records(n_events=n_events, n_models=1, cells=ALL_CELLS[:1], seed=3,
                                knockout_from=n_events, market=False)
    for record in records:
        target = tmp_path / "archive" / path_for(record)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(record_bytes(record))
    build_site(tmp_path / "archive", tmp_path / "site", commit="c", progress=lambda _l: None)
    folder = tmp_path / "site" / "matches" / "worldcup-2026"
    first, second = (folder / "index.html").read_text(), (folder / "page-2.html").read_text()
    assert not (folder / "page-3.html").exists()
    rows = [re.findall(r'<tr data-stage="[^"]*"', page) for page in (first, second)]
    assert [len(r) for r in rows] == [ROWS_PER_PAGE, 50]
    hrefs = [re.findall(r'<td><a href="([^"]+\.html)">', page) for page in (first, second)]
    assert len(set(hrefs[0] + hrefs[1])) == n_events  # every match once, in one of the parts
    assert all((folder / href).is_file() for href in hrefs[0] + hrefs[1])
    assert 'href="page-2.html"' in first and 'href="index.html"' in second  # each part links the others
    assert "(1 of 2)" in first and "(2 of 2)" in second
    assert f'<td class="n">{n_events}</td>' in (tmp_path / "site/matches/index.html").read_text()  # the whole list
    assert all(p.stat().st_size <= PAGE_LIMIT for p in (tmp_path / "site").rglob("*.html"))
