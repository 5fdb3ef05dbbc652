"""An incremental build follows what a match page's fine-grained section is made of: match reports
arriving after the forecasts change the section and its task scores, and the page is rebuilt to
the bytes of a full build (the inputs of a deferred match page include both)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

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
PAGE = "matches/worldcup-2026/mex-v-rsa.html"


def _tree(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


async def _no_sleep(_s: float) -> None:
    return None


def _builds_agree(archive_dir, tmp_path, cache):
    build_site(archive_dir, tmp_path / "full", commit="test", progress=lambda _l: None)
    report = build_site(archive_dir, tmp_path / "inc", commit="test", progress=lambda _l: None, cache=cache)
    full, inc = _tree(tmp_path / "full"), _tree(tmp_path / "inc")
    assert inc == full
    return report, full


@pytest.mark.slow
def test_match_reports_after_fine_grained_forecasts_rebuild_the_section(data_dir, tmp_path):
    from collector.sources.api_football import APIFootballSource

    archive_dir, cache = tmp_path / "archive", tmp_path / "cache"
    sync_competition(archive_dir, "worldcup-2026", now=NOW, data_dir=data_dir, clock=Clock.REPLAY)
    archive = load_archive(archive_dir)
    baseline, writer = build_baseline("squad_form", data_dir), ArchiveWriter(archive_dir)
    for (cid, eid), event in sorted(archive.events.items()):
        if (cid, eid) in archive.outcomes:
            writer.write(baseline.forecast_now(make_task(event=event, strategy=Strategy.FINE_GRAINED, clock=Clock.REPLAY,
                                                         now=event.kickoff_utc - timedelta(hours=24))))
    _, before = _builds_agree(archive_dir, tmp_path, cache)
    with FakeAPIFootball() as fake:  # lineups, cards, statistics for Mexico v South Africa
        collect_reports(ArchiveWriter(archive_dir), load_archive(archive_dir), "worldcup-2026",
                        APIFootballSource(1, 2026, api_key="af-key-not-a-secret-0001", base_url=fake.base_url,
                                          sleep=_no_sleep), now=NOW, clock=Clock.REPLAY)
    report, after = _builds_agree(archive_dir, tmp_path, cache)
    assert after[PAGE] != before[PAGE] and 0 < report.rendered < report.pages
