"""Record links: the commit that added each record, its file on the repository host, and its raw JSON beside the site."""

from __future__ import annotations

import subprocess

import orjson
import pytest
from site_archive import write_site_archive

from builder.site.build import build_site
from builder.site.buildreport import PAGES_SITE_LIMIT, BuildReport
from builder.site.provenance import (
    ArenaUrls,
    added_commits,
    arena_urls,
    hosted_commits,
    raw_link,
    record_link,
)
from collector.errors import ConfigError

URL = "https://github.com/example/arena"


def _git(repo, *args) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def _committed_arena(tmp_path, leave_out=None):
    """An arena repository whose records (but the first file ``leave_out(path)`` picks) were added in
    one commit, followed by a commit without records."""
    repo = tmp_path / "arena"
    archive = write_site_archive(repo / "archive")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "archive")
    if leave_out is not None:
        _git(repo, "rm", "-q", "--cached", next(p for p in _git(repo, "ls-files").splitlines() if leave_out(p)))
    _git(repo, "commit", "-q", "-m", "records")
    first = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "README").write_text("later commit, no record\n")
    _git(repo, "add", "README")
    _git(repo, "commit", "-q", "-m", "readme")
    return repo, archive, first


def _page(site, event="mex-v-rsa") -> str:
    return (site / "matches" / "worldcup-2026" / f"{event}.html").read_text(encoding="utf-8")


def _copies(site) -> set[str]:
    return {p.relative_to(site / "records").as_posix() for p in (site / "records").rglob("*.json")}


@pytest.mark.slow
def test_each_forecast_links_to_its_file_and_raw_json_at_the_adding_commit_on_the_host(tmp_path):
    _, archive, first = _committed_arena(tmp_path)
    added = added_commits(archive)
    assert added and set(added.values()) == {first}  # the adding commit, not HEAD
    assert hosted_commits(archive, added) == added  # nothing moved since
    path = next(p for p in added if "/forecasts/" in p and p.startswith("worldcup-2026/events/mex-v-rsa/"))
    report = build_site(archive, tmp_path / "site", commit="test", progress=lambda _l: None, urls=ArenaUrls(URL))
    page = _page(tmp_path / "site")
    assert f'href="{URL}/blob/{first}/archive/{path}"' in page
    assert f'href="{URL}/raw/{first}/archive/{path}"' in page  # the raw JSON: the host serves the bytes
    event = "worldcup-2026/events/mex-v-rsa/event.r000.json"
    assert f'Event record: <a href="{URL}/raw/{first}/archive/{event}">' in page
    assert "records/" not in page.replace(f"{URL}/raw/", "").replace(f"{URL}/blob/", "")
    assert not (tmp_path / "site" / "records").exists()  # no copies: the host has every record as it is
    assert report.problems == [] and report.site_bytes == sum(len(b) for b in _tree(tmp_path / "site").values())
    assert not any("GitHub Pages" in line for line in report.summary_lines())


def test_a_site_over_the_pages_limit_is_reported(tmp_path):
    report = BuildReport(out=tmp_path, site_bytes=PAGES_SITE_LIMIT + 1)
    assert any(line.startswith("  warning: the site weighs 1,024 MB, over GitHub Pages' 1 GB limit")
               for line in report.summary_lines())
    assert not any("GitHub Pages" in line for line in BuildReport(out=tmp_path, site_bytes=PAGES_SITE_LIMIT).summary_lines())


@pytest.mark.slow
def test_records_the_host_cannot_serve_as_they_are_are_copied_beside_the_site(tmp_path):
    """A record changed in the working tree, one a later commit modified, and one not committed
    yet: each page links their copy beside the site, which holds exactly those three."""
    repo, archive, first = _committed_arena(tmp_path)
    forecasts = sorted(p for p in added_commits(archive) if "/events/mex-v-rsa/forecasts/" in p)
    edited, rewritten = forecasts[0], forecasts[1]
    raw = orjson.loads((archive / rewritten).read_bytes())
    (archive / rewritten).write_bytes(orjson.dumps(raw, option=orjson.OPT_INDENT_2))  # same record, other bytes
    _git(repo, "commit", "-q", "-am", "rewrite a record (verify reports it; the site must not link the old bytes)")
    (archive / edited).write_bytes((archive / edited).read_bytes() + b"\n")  # edited by hand, not committed
    new = next(p for p in (archive / "worldcup-2026" / "events").rglob("*.json") if "/forecasts/" not in p.as_posix()
               and p.parent.name == "kor-v-cze")
    uncommitted = new.relative_to(archive).as_posix()
    _git(repo, "rm", "-q", "--cached", f"archive/{uncommitted}")
    _git(repo, "commit", "-q", "-m", "the event leaves the history; its file stays in the working tree")
    hosted = hosted_commits(archive, added_commits(archive))
    assert edited not in hosted and rewritten not in hosted and uncommitted not in hosted
    assert forecasts[2] in hosted
    build_site(archive, tmp_path / "site", commit="test", progress=lambda _l: None, urls=ArenaUrls(URL))
    assert _copies(tmp_path / "site") == {edited, rewritten, uncommitted}
    page = _page(tmp_path / "site")
    for path in (edited, rewritten):
        assert f'href="../../records/{path}"' in page and f"{URL}/raw/{first}/archive/{path}" not in page
        assert (tmp_path / "site" / "records" / path).read_bytes() == (archive / path).read_bytes()
    assert f'href="{URL}/raw/{first}/archive/{forecasts[2]}"' in page
    assert f'href="../../records/{uncommitted}"' in _page(tmp_path / "site", "kor-v-cze")


@pytest.mark.slow
def test_without_a_repository_or_git_every_record_is_copied_and_linked_beside_the_site(tmp_path):
    _, archive, _ = _committed_arena(tmp_path)
    build_site(archive, tmp_path / "site", commit="test", progress=lambda _l: None)  # no repository address
    every = {p.relative_to(archive).as_posix() for p in archive.rglob("*.json") if p.parent.name != "schema"}
    assert _copies(tmp_path / "site") >= {p for p in every if "/events/" in p}
    path = next(p for p in sorted(every) if "/events/mex-v-rsa/forecasts/" in p)
    assert f'href="../../records/{path}"' in _page(tmp_path / "site")
    assert (tmp_path / "site" / "records" / path).read_bytes() == (archive / path).read_bytes()
    loose = write_site_archive(tmp_path / "loose")  # not in a git repository: git cannot vouch for any file
    assert hosted_commits(loose, {"worldcup-2026/competition.r000.json": "1" * 40}) == {}
    build_site(loose, tmp_path / "loose-site", commit="test", progress=lambda _l: None, urls=ArenaUrls(URL))
    assert (tmp_path / "loose-site" / "records" / path).is_file()


@pytest.mark.slow
def test_a_record_committed_between_two_cached_builds_loses_its_copy(tmp_path):
    """The incremental build removes the copy once the host serves the record, and equals a build without a cache."""
    repo, archive, _ = _committed_arena(tmp_path, leave_out=lambda p: "/events/kor-v-cze/forecasts/" in p)
    path = next(p for p in _git(repo, "status", "--porcelain", "--untracked-files=all").split()
                if p.startswith("archive/")).removeprefix("archive/")
    quiet = {"progress": lambda _l: None, "urls": ArenaUrls(URL), "commit": "test"}
    build_site(archive, tmp_path / "site", cache=tmp_path / "cache", **quiet)
    assert _copies(tmp_path / "site") == {path}
    _git(repo, "add", f"archive/{path}")
    _git(repo, "commit", "-q", "-m", "now")
    added = _git(repo, "rev-parse", "HEAD").strip()
    build_site(archive, tmp_path / "site", cache=tmp_path / "cache", **quiet)
    assert not (tmp_path / "site" / "records").exists() or _copies(tmp_path / "site") == set()
    assert f'href="{URL}/raw/{added}/archive/{path}"' in _page(tmp_path / "site", "kor-v-cze")
    build_site(archive, tmp_path / "full", **quiet)
    assert _tree(tmp_path / "site") == _tree(tmp_path / "full")


@pytest.mark.slow
def test_a_record_rewritten_then_restored_is_copied_by_the_cached_build_as_by_a_full_one(tmp_path):
    """Its bytes and adding commit are as before, but a later commit moved it: git no longer vouches
    that the host's file at the adding commit is the record, so both builds link the copy."""
    repo, archive, first = _committed_arena(tmp_path)
    path = min(p for p in added_commits(archive) if "/events/mex-v-rsa/forecasts/" in p)
    quiet = {"progress": lambda _l: None, "urls": ArenaUrls(URL), "commit": "test"}
    build_site(archive, tmp_path / "site", cache=tmp_path / "cache", **quiet)
    assert f'href="{URL}/raw/{first}/archive/{path}"' in _page(tmp_path / "site")
    original = (archive / path).read_bytes()
    (archive / path).write_bytes(original + b"\n")
    _git(repo, "commit", "-q", "-am", "rewritten")
    (archive / path).write_bytes(original)
    _git(repo, "commit", "-q", "-am", "restored")
    build_site(archive, tmp_path / "site", cache=tmp_path / "cache", **quiet)
    assert _copies(tmp_path / "site") == {path}
    assert f'href="../../records/{path}"' in _page(tmp_path / "site")
    build_site(archive, tmp_path / "full", **quiet)
    assert _tree(tmp_path / "site") == _tree(tmp_path / "full")


def _tree(site) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}


def test_repository_url_comes_from_the_config_or_the_actions_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    config = tmp_path / "prematch.toml"
    assert arena_urls(config) == ArenaUrls()  # no file, no environment: no host links
    config.write_text(f'[arena]\ncompetitions = ["worldcup-2026"]\nrepository_url = "{URL}/"\n')
    assert arena_urls(config).repository == URL
    config.write_text('[arena]\ncompetitions = ["worldcup-2026"]\nrepository_url = "javascript:alert(1)"\n')
    with pytest.raises(ConfigError, match="repository_url"):
        arena_urls(config)
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "owner/name")
    assert arena_urls(tmp_path / "missing.toml").repository == "https://github.com/owner/name"
    assert record_link(None, "abc", "x.json") == "" and record_link(URL, "", "x.json") == ""
    assert record_link(URL, "abc", "wc/e.json") == f"{URL}/blob/abc/archive/wc/e.json"
    assert raw_link(URL, "abc", "wc/e.json") == f"{URL}/raw/abc/archive/wc/e.json"
    assert raw_link(None, "abc", "x.json") == "" and raw_link(URL, None, "x.json") == ""


def test_the_collector_accepts_the_same_keys(tmp_path):
    from collector.config import load_config

    config = tmp_path / "arena.toml"
    config.write_text(f'[arena]\ncompetitions = ["worldcup-2026"]\nrepository_url = "{URL}"\n'
                      'site_url = "https://example.github.io/arena/"\n')
    loaded = load_config(config)
    assert loaded.repository_url == URL and loaded.site_url == "https://example.github.io/arena/"
