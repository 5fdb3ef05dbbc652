"""Record links: the commit that added each record, its file on the repository host, and its raw JSON beside the site."""

from __future__ import annotations

import subprocess

import orjson
import pytest
from site_archive import write_site_archive

from builder.site.build import build_site
from builder.site.provenance import ArenaUrls, added_commits, arena_urls, record_link
from collector.errors import ConfigError

URL = "https://github.com/example/arena"


def _git(repo, *args) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def test_each_forecast_links_to_its_file_at_the_adding_commit_and_to_its_raw_json(tmp_path):
    repo = tmp_path / "arena"
    archive = write_site_archive(repo / "archive")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "archive")
    _git(repo, "commit", "-q", "-m", "records")
    first = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "README").write_text("later commit, no record\n")
    _git(repo, "add", "README")
    _git(repo, "commit", "-q", "-m", "readme")
    added = added_commits(archive)
    assert added and set(added.values()) == {first}  # the adding commit, not HEAD
    path = next(p for p in added if "/forecasts/" in p and p.startswith("worldcup-2026/events/mex-v-rsa/"))
    build_site(archive, tmp_path / "site", commit="test", progress=lambda _l: None, urls=ArenaUrls(URL))
    page = (tmp_path / "site" / "matches" / "worldcup-2026" / "mex-v-rsa.html").read_text(encoding="utf-8")
    assert f'href="{URL}/blob/{first}/archive/{path}"' in page
    assert f'href="../../records/{path}"' in page
    raw = (tmp_path / "site" / "records" / path).read_bytes()
    assert raw == (archive / path).read_bytes() and orjson.loads(raw)["kind"] == "forecast"


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


def test_the_collector_accepts_the_same_keys(tmp_path):
    from collector.config import load_config

    config = tmp_path / "arena.toml"
    config.write_text(f'[arena]\ncompetitions = ["worldcup-2026"]\nrepository_url = "{URL}"\n'
                      'site_url = "https://example.github.io/arena/"\n')
    loaded = load_config(config)
    assert loaded.repository_url == URL and loaded.site_url == "https://example.github.io/arena/"
