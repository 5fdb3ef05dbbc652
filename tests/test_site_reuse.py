"""A rebuild with nothing changed keeps the whole site as it is (builder.site.sitereuse): it
scores nothing, writes nothing and reports the same site; any change to what the site is made
of (an archive file, the commit, the git history, the arena's addresses, the code or the
static files) or to the site folder itself is an ordinary build, the same bytes as a build
without a cache."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import orjson
import pytest
from site_archive import write_site_archive

from builder.site import build, sitereuse
from builder.site.build import build_site
from builder.site.cache import CACHE_FILE, SiteReport
from cache_tampering import rewrite_entry
from builder.site.provenance import ArenaUrls
from builder.site.sitereuse import site_fingerprint
from builder.site.sitewriter import FileState, site_intact

KEPT = "nothing changed since the last build"


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _stamps(folder: Path) -> dict[str, tuple[int, int, int]]:
    return {p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns, p.stat().st_ctime_ns)
            for p in folder.rglob("*")}


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env).stdout


@pytest.fixture
def archive(tmp_path):
    return write_site_archive(tmp_path / "archive")


@pytest.fixture
def scored(monkeypatch) -> list[int]:
    """How many times a build scored the archive."""
    calls: list[int] = []
    real = build.score_archive

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(build, "score_archive", counted)
    return calls


def _build(archive: Path, site: Path, cache: Path | None, commit: str = "c1", urls: ArenaUrls | None = None):
    lines: list[str] = []
    report = build_site(archive, site, commit=commit, progress=lines.append, urls=urls, cache=cache)
    return report, lines


def _same_as_full(archive: Path, site: Path, tmp_path: Path, commit: str = "c1", urls: ArenaUrls | None = None):
    full = tmp_path / "full"
    build_site(archive, full, commit=commit, progress=lambda _line: None, urls=urls)
    assert _tree(site) == _tree(full)


@pytest.mark.slow
def test_an_unchanged_rebuild_keeps_every_file_scores_nothing_and_reports_the_same_site(archive, tmp_path, scored):
    site, cache = tmp_path / "site", tmp_path / "cache"
    first, _ = _build(archive, site, cache)
    before, sqlite = _stamps(site), (cache / CACHE_FILE).read_bytes()
    again, lines = _build(archive, site, cache)
    assert len(scored) == 1  # the second build scored nothing
    assert any(KEPT in line and f"its {first.files} files kept" in line for line in lines), lines
    assert _stamps(site) == before  # not one file, folder or inode touched
    assert (cache / CACHE_FILE).read_bytes() == sqlite  # the cache left as it was
    assert (again.pages, again.files, again.records, again.replay) == (first.pages, first.files, first.records,
                                                                       first.replay)
    assert (again.rendered, again.reused) == (0, first.pages)
    assert [str(p) for p in again.problems] == [str(p) for p in first.problems]
    assert again.summary_lines() == first.summary_lines()
    _same_as_full(archive, site, tmp_path)


def _edit_record(archive: Path) -> None:
    record = max((archive / "worldcup-2026").rglob("*.json"))
    record.unlink()


@pytest.mark.slow
@pytest.mark.parametrize("change", ["archive file", "commit", "addresses"])
def test_a_change_to_an_input_builds_the_site(archive, tmp_path, scored, change):
    site, cache = tmp_path / "site", tmp_path / "cache"
    _build(archive, site, cache)
    commit, urls = "c1", None
    if change == "archive file":
        _edit_record(archive)
    elif change == "commit":
        commit = "c2"
    else:
        urls = ArenaUrls(repository="https://github.com/example/arena", site="https://example.github.io/arena/")
    _, lines = _build(archive, site, cache, commit=commit, urls=urls)
    assert len(scored) == 2 and not any(KEPT in line for line in lines)
    _same_as_full(archive, site, tmp_path, commit=commit, urls=urls)
    _, lines = _build(archive, site, cache, commit=commit, urls=urls)  # and that build's site is then kept
    assert len(scored) == 3 and any(KEPT in line for line in lines), lines  # the full build scored once


@pytest.mark.slow
def test_a_new_git_history_builds_the_site_with_its_record_links(archive, tmp_path, scored):
    _git(archive, "init", "-q")
    _git(archive, "add", "-A")
    _git(archive, "commit", "-q", "-m", "first")
    site, cache = tmp_path / "site", tmp_path / "cache"
    urls = ArenaUrls(repository="https://github.com/example/arena")
    _build(archive, site, cache, urls=urls)
    _git(archive, "commit", "-q", "--amend", "-m", "the same files, another commit")  # same files and --commit
    _, lines = _build(archive, site, cache, urls=urls)
    assert len(scored) == 2 and not any(KEPT in line for line in lines)
    _same_as_full(archive, site, tmp_path, urls=urls)


def _same_size_edit(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:-1] + (b"x" if data[-1:] != b"x" else b"y"))


@pytest.mark.slow
@pytest.mark.parametrize("tamper", ["edited page", "deleted page", "stray file", "stray folder", "link"])
def test_a_site_folder_not_as_the_build_left_it_is_built_again(archive, tmp_path, scored, tamper):
    site, cache = tmp_path / "site", tmp_path / "cache"
    _build(archive, site, cache)
    if tamper == "edited page":
        _same_size_edit(site / "index.html")
    elif tamper == "deleted page":
        (site / "index.html").unlink()
    elif tamper == "stray file":
        (site / "assets" / "planted.js").write_text("alert(1)")
    elif tamper == "stray folder":
        (site / "planted").mkdir()
    else:
        (site / "index.html").unlink()
        (site / "index.html").symlink_to("/etc/hostname")
    _, lines = _build(archive, site, cache)
    assert len(scored) == 2 and not any(KEPT in line for line in lines)
    _same_as_full(archive, site, tmp_path)
    assert not (site / "planted").exists() and not (site / "index.html").is_symlink()


@pytest.mark.slow
def test_another_folder_or_no_cache_is_an_ordinary_build(archive, tmp_path, scored):
    site, other, cache = tmp_path / "site", tmp_path / "other", tmp_path / "cache"
    _build(archive, site, cache)
    _, lines = _build(archive, other, cache)  # an empty folder is never "the site as it was left"
    assert len(scored) == 2 and not any(KEPT in line for line in lines)
    assert _tree(other) == _tree(site)
    _build(archive, site, None)
    assert len(scored) == 3


@pytest.mark.slow
def test_a_malformed_site_row_in_the_cache_is_an_ordinary_build(archive, tmp_path, scored):
    site, cache = tmp_path / "site", tmp_path / "cache"
    _build(archive, site, cache)
    rewrite_entry(cache, "site", "site", lambda _value: b"[1, 2]")
    _, lines = _build(archive, site, cache)
    assert len(scored) == 2 and not any(KEPT in line for line in lines)
    _same_as_full(archive, site, tmp_path)


def test_every_input_moves_the_fingerprint():
    manifest, urls, added, templates = b'{"commit": "c1"}', ArenaUrls(), {"a.json": "1" * 40}, "t1"
    base = site_fingerprint(manifest, "archive", urls, added, templates)
    assert site_fingerprint(manifest, "archive", urls, dict(added), templates) == base  # a pure function of its inputs
    changed = {
        site_fingerprint(b'{"commit": "c2"}', "archive", urls, added, templates),
        site_fingerprint(manifest, "elsewhere/archive", urls, added, templates),
        site_fingerprint(manifest, "archive", ArenaUrls(site="https://example.org/"), added, templates),
        site_fingerprint(manifest, "archive", urls, {"a.json": "2" * 40}, templates),
        site_fingerprint(manifest, "archive", urls, {}, templates),
        site_fingerprint(manifest, "archive", urls, added, "t2"),
        site_fingerprint(manifest, "archive", urls, added, templates, unhashed=["x.json: is a symlink"]),
    }
    assert base not in changed and len(changed) == 7


def test_site_intact_needs_exactly_the_files_it_was_told_of(tmp_path):
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "a" / "b.html").write_bytes(b"page")
    state = FileState(hashlib.sha256(b"page").hexdigest(), 4)  # no stat: vouched for by its bytes
    assert site_intact(site, {"a/b.html": state})
    assert not site_intact(site, {})
    assert not site_intact(tmp_path / "missing", {"a/b.html": state})
    assert not site_intact(site, {"a/b.html": state, "c.html": state})
    (site / "c.html").write_bytes(b"page")
    assert not site_intact(site, {"a/b.html": state})


@pytest.fixture
def loads(monkeypatch) -> dict[str, int]:
    """How many times a build validated the archive (``load``) and hashed it without parsing (``hash``)."""
    calls = {"load": 0, "hash": 0}
    real_load, real_hash = build.load_archive, build.archive_hashes

    def load(*args, **kwargs):
        calls["load"] += 1
        return real_load(*args, **kwargs)

    def hashed(*args, **kwargs):
        calls["hash"] += 1
        return real_hash(*args, **kwargs)

    monkeypatch.setattr(build, "load_archive", load)
    monkeypatch.setattr(build, "archive_hashes", hashed)
    return calls


def _broken_record(archive: Path) -> Path:
    """A file left out with a problem: a record whose bytes are not JSON, at a record's path."""
    record = max((archive / "worldcup-2026").rglob("*.json"))
    broken = record.with_name("zz-broken.json")
    broken.write_bytes(b"{not json")
    return broken


@pytest.mark.slow
def test_an_unchanged_rebuild_at_the_same_commit_validates_nothing_and_reports_what_the_load_did(
        archive, tmp_path, scored, loads):
    _broken_record(archive)
    site, cache = tmp_path / "site", tmp_path / "cache"
    first, first_lines = _build(archive, site, cache)
    assert first.problems and loads == {"load": 1, "hash": 0}  # a first build has nothing to compare with
    before = _stamps(site)
    again, lines = _build(archive, site, cache)
    assert loads == {"load": 1, "hash": 1} and len(scored) == 1  # hashed, not validated, not scored
    assert any(KEPT in line and "none validated" in line for line in lines), lines
    assert [line for line in lines if "valid records" in line or "left out:" in line] == \
        [line for line in first_lines if "valid records" in line or "left out:" in line]
    assert [(p.path, p.message) for p in again.problems] == [(p.path, p.message) for p in first.problems]
    assert again.summary_lines() == first.summary_lines() and again.replay == first.replay
    assert _stamps(site) == before
    loaded = build_site(archive, tmp_path / "other", commit="c1", progress=lambda _line: None)  # a full load's report
    assert (loaded.records, [str(p) for p in loaded.problems]) == (again.records, [str(p) for p in again.problems])


@pytest.mark.slow
def test_a_new_commit_never_hashes_the_archive_before_loading_it(archive, tmp_path, scored, loads):
    site, cache = tmp_path / "site", tmp_path / "cache"
    _build(archive, site, cache)
    _, lines = _build(archive, site, cache, commit="c2")  # a tick: its commit is new, so is its fingerprint
    assert loads == {"load": 2, "hash": 0} and len(scored) == 2


@pytest.mark.slow
def test_an_edited_record_at_the_same_commit_is_loaded_and_built(archive, tmp_path, scored, loads):
    site, cache = tmp_path / "site", tmp_path / "cache"
    _build(archive, site, cache)
    _same_size_edit(max((archive / "worldcup-2026").rglob("*.json")))
    _, lines = _build(archive, site, cache)
    assert loads == {"load": 2, "hash": 1} and len(scored) == 2 and not any(KEPT in line for line in lines)
    _same_as_full(archive, site, tmp_path)


@pytest.mark.slow
def test_a_link_planted_in_the_archive_after_a_build_is_listed_on_the_rebuilt_site(archive, tmp_path, scored, loads):
    site, cache = tmp_path / "site", tmp_path / "cache"
    _build(archive, site, cache)
    (archive / "worldcup-2026" / "planted.json").symlink_to("/etc/hostname")  # no file hash covers it
    report, lines = _build(archive, site, cache)
    assert len(scored) == 2 and not any(KEPT in line for line in lines)
    assert any(p.path == "worldcup-2026/planted.json" and "symlink" in p.message for p in report.problems)
    assert "planted.json" in (site / "data" / "index.html").read_text()
    _same_as_full(archive, site, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("report", ['{"records": "many"}', '"not an object"', None])
def test_a_malformed_or_missing_report_in_the_cache_loads_the_archive_to_keep_the_site(
        archive, tmp_path, scored, loads, report):
    site, cache = tmp_path / "site", tmp_path / "cache"
    first, _ = _build(archive, site, cache)

    def change(value: bytes) -> bytes:
        entry = orjson.loads(value)
        entry["report"] = None if report is None else orjson.loads(report)
        return orjson.dumps(entry)

    rewrite_entry(cache, "site", "site", change)
    again, lines = _build(archive, site, cache)
    assert loads == {"load": 2, "hash": 0} and len(scored) == 1  # loaded, then kept: its report is the load's
    assert any(KEPT in line and "none validated" not in line for line in lines), lines
    assert again.summary_lines() == first.summary_lines()


def test_the_site_report_takes_only_its_own_form():
    good = {"commit": "c1", "records": 3, "problems": [["a.json", "not JSON"]], "replay": False}
    assert SiteReport.parse(good) == SiteReport("c1", 3, (("a.json", "not JSON"),), False)
    for bad in ({**good, "records": -1}, {**good, "records": True}, {**good, "replay": 1},
                {**good, "problems": [["a.json"]]}, {**good, "problems": [["a.json", 3]]}, {**good, "commit": None},
                [good], None):
        assert SiteReport.parse(bad) is None, bad


@pytest.mark.slow
def test_a_file_the_hashing_pass_cannot_read_makes_the_build_load_the_archive(archive, tmp_path, scored, loads,
                                                                             monkeypatch):
    site, cache = tmp_path / "site", tmp_path / "cache"
    first, _ = _build(archive, site, cache)
    real = sitereuse.read_hashed_ahead

    def failing(root, paths):
        for i, (relative, data, digest) in enumerate(real(root, paths)):
            yield (relative, OSError(5, "Input/output error"), None) if i == 1 else (relative, data, digest)

    monkeypatch.setattr(sitereuse, "read_hashed_ahead", failing)
    assert sitereuse.archive_hashes(archive) is None
    again, lines = _build(archive, site, cache)
    assert loads == {"load": 2, "hash": 1} and len(scored) == 1  # hashed, gave up, loaded: the site kept
    assert any(KEPT in line and "none validated" not in line for line in lines), lines
    assert again.summary_lines() == first.summary_lines()
