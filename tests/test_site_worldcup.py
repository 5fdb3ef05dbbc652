"""The site built from the real 2026 World Cup data (shared data folder, read at run time).

The archive is a replay slice written by the collector itself (``sync --now`` on a simulated
clock); when the replay command exists, a short replay with forecasts is built as well.
"""

from __future__ import annotations

import importlib.util
import re

import pytest

from builder.site.build import build_site
from builder.site.buildreport import PAGE_LIMIT
from collector.cli import main as collector

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them


def _read(out, name: str) -> str:
    return (out / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def worldcup_site(data_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("wc")
    archive = root / "archive"
    code = collector(["sync", "--competition", "worldcup-2026", "--now", "2026-06-14T00:00:00Z",
                      "--archive", str(archive), "--data-dir", str(data_dir)])
    assert code == 0
    report = build_site(archive, root / "site", commit="test", progress=lambda _l: None)
    return report, root / "site"


def test_real_fixtures_outcomes_and_groups_render(worldcup_site):
    report, out = worldcup_site
    assert report.problems == [] and report.replay
    listing = _read(out, "matches/worldcup-2026/index.html")
    assert listing.count('<tr data-stage="group"') == 72  # the group stage is registered before it starts
    assert "Mexico" in listing and "South Africa" in listing
    opener = _read(out, "matches/worldcup-2026/mex-v-rsa.html")
    assert '<td class="score">2–0</td>' in opener  # the opening match, as the source gives it
    assert "2026-06-11 13:00 UTC-6" in opener  # the source's own kickoff string on hover
    bracket = _read(out, "bracket/worldcup-2026.html")
    assert len(re.findall(r"<caption>Group [A-L]</caption>", bracket)) == 12
    assert "No scored forecasts yet" in _read(out, "index.html")
    for page in out.rglob("*.html"):
        assert "replay-banner" in page.read_text(encoding="utf-8")
        assert page.stat().st_size <= PAGE_LIMIT


def _replay_available() -> bool:
    return importlib.util.find_spec("collector.commands.replay") is not None


@pytest.mark.skipif(not _replay_available(), reason="python -m collector replay is not in this checkout yet")
def test_short_replay_builds(data_dir, tmp_path):
    """Replay the World Cup up to the night after the opening match, then build its site."""
    repo = tmp_path / "replay"
    code = collector(["replay", "worldcup-2026", "--out", str(repo), "--data-dir", str(data_dir),
                      "--until", "2026-06-12T00:00:00Z"])
    assert code == 0
    report = build_site(repo / "archive", tmp_path / "site", progress=lambda _l: None)
    assert report.problems == [] and report.replay
    out = tmp_path / "site"
    home = _read(out, "index.html")
    assert 'id="board"' in home and "elo" in home  # the opening match was forecast and scored
    opener = _read(out, "matches/worldcup-2026/mex-v-rsa.html")
    assert "Forecasts (0)" not in opener and "measures" in opener
    assert re.search(r"Built from archive commit <code>[0-9a-f]{40}</code>", _read(out, "build.html"))  # a git repo
    assert all(p.stat().st_size <= PAGE_LIMIT for p in out.rglob("*.html"))
