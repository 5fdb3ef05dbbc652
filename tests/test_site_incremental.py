"""Incremental builds: with the previous build's page cache only changed pages render, and the
site is byte-identical to a full build, tick after tick of a real replay."""

from __future__ import annotations

import math
import subprocess
from dataclasses import dataclass

import pytest
from markupsafe import Markup

from builder.site.build import build_site
from builder.site.pagecache import CACHE_FILE, Unfingerprintable, model_fingerprint
from collector.cli import main as collector


def _tree(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _git(repo, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def replay_repo(data_dir, tmp_path_factory):
    repo = tmp_path_factory.mktemp("inc") / "replay"
    code = collector(["replay", "worldcup-2026", "--out", str(repo), "--data-dir", str(data_dir),
                      "--until", "2026-06-13T00:00:00Z"])
    assert code == 0
    return repo


@pytest.mark.slow
def test_incremental_builds_equal_full_builds_over_replay_ticks(replay_repo, tmp_path):
    ticks = _git(replay_repo, "rev-list", "--reverse", "HEAD").split()[-4:]
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(replay_repo), str(clone)], check=True)
    cache = tmp_path / "cache"
    previous: dict[str, bytes] = {}
    for step, commit in enumerate(ticks):
        _git(clone, "checkout", "-q", commit)
        full = build_site(clone / "archive", tmp_path / "full", progress=lambda _l: None)
        incremental = build_site(clone / "archive", tmp_path / "inc", progress=lambda _l: None, cache=cache)
        full_site, inc_site = _tree(tmp_path / "full"), _tree(tmp_path / "inc")
        assert inc_site == full_site, f"tick {commit}: incremental and full builds differ"
        assert commit in full_site["build.html"].decode()  # the per-build facts name this tick's commit
        assert full.rendered == full.pages and full.reused == 0  # no cache: every page rendered
        assert incremental.rendered + incremental.reused == incremental.pages
        changed = {name for name, html in full_site.items() if name.endswith(".html") and previous.get(name) != html}
        if step == 0:
            assert incremental.reused == 0
        else:  # every changed page was rendered; the unchanged ones (most of the site) came from the cache
            assert len(changed) <= incremental.rendered < incremental.pages // 2, (len(changed), incremental.rendered)
            assert "build.html" in changed and "matches/worldcup-2026/mex-v-rsa.html" not in changed
        previous = full_site
    assert (cache / CACHE_FILE).is_file()


@pytest.mark.slow
def test_an_unreadable_cache_is_reported_and_the_build_renders_everything(replay_repo, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / CACHE_FILE).write_bytes(b"not a sqlite file" * 100)
    lines: list[str] = []
    report = build_site(replay_repo / "archive", tmp_path / "site", progress=lines.append, cache=cache)
    assert any(f"cache {cache / CACHE_FILE} unreadable" in line for line in lines), lines
    assert report.rendered == report.pages
    build_site(replay_repo / "archive", tmp_path / "full", progress=lambda _l: None)
    assert _tree(tmp_path / "site") == _tree(tmp_path / "full")
    again = build_site(replay_repo / "archive", tmp_path / "site", progress=lambda _l: None, cache=cache)
    assert again.rendered == 0 and again.reused == again.pages  # the cache was rewritten; nothing changed since


@dataclass(frozen=True)
class _Page:
    path: str
    value: object


def test_a_fingerprint_tells_apart_what_renders_differently():
    key = lambda value: model_fingerprint(_Page("p.html", value), "templates")  # noqa: E731
    assert key("<b>") != key(Markup("<b>"))  # escaped text vs trusted markup
    assert key(None) != key(math.nan) != key("nan")
    assert key((1, 2)) != key([1, 2]) != key(((1, 2),))
    assert key({"a": 1, "b": 2}) != key({"b": 2, "a": 1})  # order is what a template loops over
    assert key(1) != key(1.0) != key(True)
    assert key("x") == key("x") and model_fingerprint(_Page("p.html", "x"), "other") != key("x")
    with pytest.raises(Unfingerprintable):
        key(object())  # no guessing: such a page is always rendered


@pytest.mark.slow
def test_a_cache_that_cannot_be_written_leaves_the_site_built(replay_repo, tmp_path):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("a file where the cache folder should be")
    lines: list[str] = []
    report = build_site(replay_repo / "archive", tmp_path / "site", progress=lines.append, cache=blocked)
    assert report.pages > 100 and (tmp_path / "site/index.html").is_file()
    assert any("nothing written" in line for line in lines) and blocked.read_text().startswith("a file")


@pytest.mark.slow
def test_a_rebuild_over_a_tampered_site_gives_the_site_again(replay_repo, tmp_path):
    site = tmp_path / "site"
    build_site(replay_repo / "archive", site, progress=lambda _l: None, cache=tmp_path / "cache")
    fresh = _tree(site)
    match = site / "matches/worldcup-2026/mex-v-rsa.html"
    same_size = bytearray(match.read_bytes())
    same_size[100:105] = b"XXXXX"  # edited in place, same size: must not survive a rebuild, cache or not
    match.write_bytes(bytes(same_size))
    (site / "data").rename(site / "data-moved")
    (site / "data").symlink_to(site / "data-moved")
    report = build_site(replay_repo / "archive", site, progress=lambda _l: None, cache=tmp_path / "cache")
    assert report.rendered == 0  # every page came from the cache, none from the tampered folder
    assert _tree(site) == fresh and not (site / "data").is_symlink() and not (site / "data-moved").exists()


@pytest.mark.slow
def test_a_tick_that_brings_an_outcome_rebuilds_the_pages_it_shows_on_and_only_those(replay_repo, tmp_path):
    """Over the tick that adds kor-v-cze's outcome and match report (and the ticks either side),
    the incremental site equals the full one: the match page, both teams' pages, the group's
    list and the leaderboards change; the pages of other matches are reused."""
    log = _git(replay_repo, "log", "--reverse", "--format=%H %s").splitlines()
    found = next(i for i, line in enumerate(log) if _git(replay_repo, "show", "--name-only", "--format=",
                                                            line.split()[0]).count("outcome.r000.json"))
    ticks = [line.split()[0] for line in log[max(found - 1, 0): found + 2]]
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(replay_repo), str(clone)], check=True)
    cache, previous = tmp_path / "cache", {}
    for step, commit in enumerate(ticks):
        _git(clone, "checkout", "-q", commit)
        build_site(clone / "archive", tmp_path / "full", progress=lambda _l: None)
        incremental = build_site(clone / "archive", tmp_path / "inc", progress=lambda _l: None, cache=cache)
        full_site, inc_site = _tree(tmp_path / "full"), _tree(tmp_path / "inc")
        assert inc_site == full_site, f"tick {commit}: incremental and full builds differ"
        changed = {name for name, html in full_site.items() if name.endswith(".html") and previous.get(name) != html}
        if step == found - max(found - 1, 0) and step > 0:  # the outcome's tick
            outcome = next(n for n in full_site if n.startswith("records/") and n.endswith("outcome.r000.json")
                           and n not in previous)
            event = outcome.split("/events/")[1].split("/")[0]
            assert f"matches/worldcup-2026/{event}.html" in changed
            assert len(changed) <= incremental.rendered < incremental.pages // 2
        previous = full_site
