"""The fine-grained site views: the match page's field-by-field section and the layers page with the
radar, from a real WC 2026 archive (openfootball reports, API-Football fields for one match); checked
in chromium at 1366 and 390 px."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from browser_helpers import launched_chromium, require_chromium, serve

from builder.site.build import build_site
from collector.archive.reader import load_archive
from collector.archive.write.writer import ArchiveWriter
from collector.fixtures.match_reports import collect_reports
from collector.fixtures.sync import sync_competition
from collector.forecasters.baselines import build_baseline
from collector.records import Clock, Strategy
from tests.collection_helpers import make_task
from tests.fake_api_football import FakeAPIFootball

NOW = datetime(2026, 6, 16, tzinfo=UTC)
HOSTILE = '<img src=x onerror="alert(1)">'


@pytest.fixture(scope="module")
def site(data_dir, tmp_path_factory):
    from collector.sources.api_football import APIFootballSource

    root = tmp_path_factory.mktemp("fg-site")
    archive_dir = root / "archive"
    sync_competition(archive_dir, "worldcup-2026", now=NOW, data_dir=data_dir, clock=Clock.REPLAY)
    archive = load_archive(archive_dir)
    with FakeAPIFootball() as fake:  # lineups, cards, statistics for Mexico v South Africa
        collect_reports(ArchiveWriter(archive_dir), archive, "worldcup-2026",
                        APIFootballSource(1, 2026, api_key="af-key-not-a-secret-0001", base_url=fake.base_url,
                                          sleep=_no_sleep), now=NOW, clock=Clock.REPLAY)
    baseline, writer = build_baseline("squad_form", data_dir), ArchiveWriter(archive_dir)
    for (cid, eid), event in sorted(load_archive(archive_dir).events.items()):
        if (cid, eid) in archive.outcomes:
            task = make_task(event=event, strategy=Strategy.FINE_GRAINED, clock=Clock.REPLAY,
                             now=event.kickoff_utc - timedelta(hours=24))
            record = baseline.forecast_now(task)
            if eid == "mex-v-rsa":  # a scorer name as an attacker would write it
                fg = record.payload.fine_grained
                hostile = fg.model_copy(update={"scorers": (fg.scorers[0].model_copy(update={"player": HOSTILE}),)})
                record = record.model_copy(update={"payload": record.payload.model_copy(update={"fine_grained":
                                                                                                   hostile})})
            writer.write(record)
    out = root / "site"
    build_site(archive_dir, out, commit="test", progress=lambda _l: None)
    return out


async def _no_sleep(_s: float) -> None:
    return None


@pytest.mark.slow
def test_the_match_page_shows_each_field_beside_the_report_and_no_data_never_as_0(site):
    html = (site / "matches/worldcup-2026/mex-v-rsa.html").read_text()
    assert "Players, events and statistics" in html and "squad_form" in html
    section = html[html.index('<section class="fine-grained">'):]
    assert "4-3-3: Raúl Rangel (GK)" in section  # the forecast eleven, and the recorded one (API-Football)
    assert "Teboho Mokoena (South Africa) yellow" in section and "(api-football)" in section
    assert "61 – 39" in section  # recorded possession
    assert '<span class="nodata">no data</span>' in section  # player of the match: no source has it
    assert HOSTILE not in html and "&lt;img src=x onerror=" in html  # escaped, inert
    other = (site / "matches/worldcup-2026/kor-v-cze.html").read_text()
    part = other[other.index('<section class="fine-grained">'):]
    assert "Cards</th>\n<td>none</td>\n<td><span class=\"nodata\">no data</span>" in part  # openfootball: no cards


@pytest.mark.slow
def test_the_layers_page_and_the_leaderboard_composite(site):
    html = (site / "layers.html").read_text()
    assert "<svg" in html and "T1 result and score" in html and "T4 tactics and statistics" in html
    assert "no data" in html and "(N = " in html
    board = (site / "index.html").read_text()
    assert 'data-key="composite"' in board and "N = " in board and 'href="layers.html"' in board


@pytest.mark.browser
def test_the_radar_and_the_section_render_at_both_widths(site, tmp_path):
    require_chromium()
    server, base = serve(site)
    try:
        with launched_chromium() as chromium:
            for width in (1366, 390):
                page = chromium.new_page(viewport={"width": width, "height": 900})
                errors: list[str] = []
                page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                page.goto(base + "layers.html")
                box = page.locator("figure.radar svg").bounding_box()
                assert box and 0 < box["width"] <= width and box["height"] > 100
                assert page.locator("figure.radar circle[r='3.5']").count() >= 3  # the fine-grained cell's dots
                assert page.evaluate("document.documentElement.scrollWidth") <= width + 1  # no page overflow
                page.screenshot(path=str(tmp_path / f"layers-{width}.png"), full_page=True)
                page.goto(base + "matches/worldcup-2026/mex-v-rsa.html")
                section = page.locator("section.fine-grained")
                assert section.is_visible() and section.locator(".nodata").first.is_visible()
                assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
                section.screenshot(path=str(tmp_path / f"match-{width}.png"))
                assert errors == []
                page.close()
    finally:
        server.shutdown()
        server.server_close()
