"""The site writer and the page cache's file: only changed files are rewritten, a failed build
leaves the previous site whole, and a damaged cache is reported and ignored (same bytes as
without it)."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3

import pytest
from site_archive import write_site_archive

from builder.site.build import build_site
from builder.site.cache import CACHE_FILE
from cache_tampering import forge_entries
from builder.site.sitewriter import ArchiveCopy, Cached, SiteWriter
from collector.errors import ArchiveError


def _tree(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _write(out, files: dict, previous=None) -> dict:
    writer = SiteWriter(out, previous)
    for name, content in files.items():
        writer.put(name, content)
    return writer.commit()


def test_incremental_writes_touch_only_changed_files_and_remove_vanished_ones(tmp_path):
    out = tmp_path / "site"
    states = _write(out, {"a.html": b"a", "d/b.html": b"b", "d/old.html": b"old", "gone/x.html": b"x"}, {})
    kept = (out / "a.html").stat()
    (tmp_path / "export.csv").write_bytes(b"x,y\n")
    states = _write(out, {"a.html": b"a", "d/b.html": b"B", "data/e.csv": tmp_path / "export.csv"}, states)
    assert _tree(out) == {"a.html": b"a", "d/b.html": b"B", "data/e.csv": b"x,y\n"}
    assert (out / "a.html").stat().st_ino == kept.st_ino and (out / "a.html").stat().st_mtime_ns == kept.st_mtime_ns
    assert set(states) == {"a.html", "d/b.html", "data/e.csv"} and states["data/e.csv"].size == 4
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site.")]  # no staging folder left behind


def test_a_file_edited_behind_the_cache_is_rewritten_and_links_are_replaced(tmp_path):
    out = tmp_path / "site"
    states = _write(out, {"p/a.html": b"12345", "q/b.html": b"b"}, {})
    (out / "p/a.html").write_bytes(b"XXXXX")  # same size, new bytes
    (out / "q").rename(tmp_path / "moved")
    (out / "q").symlink_to(tmp_path / "moved")
    _write(out, {"p/a.html": b"12345", "q/b.html": b"b"}, states)
    assert _tree(out) == {"p/a.html": b"12345", "q/b.html": b"b"} and not (out / "q").is_symlink()
    assert (tmp_path / "moved/b.html").read_bytes() == b"b"  # a link's target outside the site is left alone


def test_a_failed_build_leaves_the_previous_site_whole(tmp_path):
    out = tmp_path / "site"
    states = _write(out, {"a.html": b"a", "b.html": b"b"}, {})
    (tmp_path / "r.json").write_bytes(b"{}")
    writer = SiteWriter(out, states)
    writer.put("a.html", b"new a")
    with pytest.raises(ArchiveError, match="changed while the site was being built"):  # not the bytes validated
        writer.put("r.json", ArchiveCopy(tmp_path / "r.json", "0" * 64))
    writer.discard()
    assert _tree(out) == {"a.html": b"a", "b.html": b"b"}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site.")]


def test_a_cached_page_is_loaded_only_when_it_must_be_written(tmp_path):
    out = tmp_path / "site"
    page = b"<p>cached</p>"
    sha = hashlib.sha256(page).hexdigest()
    loads = []

    def load() -> bytes:
        loads.append(1)
        return page
    states = _write(out, {"c.html": Cached(sha, len(page), load)}, {})  # a fresh site: written
    _write(out, {"c.html": Cached(sha, len(page), load)}, states)  # unchanged on disk: not loaded
    assert len(loads) == 1 and (out / "c.html").read_bytes() == page


@pytest.fixture(scope="module")
def small_archive(tmp_path_factory):
    return write_site_archive(tmp_path_factory.mktemp("pc") / "archive")


def _quiet(_line: str) -> None:
    pass


def _built_twice(archive, tmp_path):
    """A full build (no cache) and a build that fills a cache, of the same archive and commit."""
    full, site, cache = tmp_path / "full", tmp_path / "site", tmp_path / "cache"
    build_site(archive, full, commit="c1", progress=_quiet)
    build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
    return full, site, cache


@pytest.mark.slow
def test_a_deleted_site_is_rebuilt_from_the_cache_with_the_same_bytes(small_archive, tmp_path):
    full, site, cache = _built_twice(small_archive, tmp_path)
    shutil.rmtree(site)
    again = build_site(small_archive, site, commit="c1", progress=_quiet, cache=cache)
    assert again.rendered == 0 and again.reused == again.pages
    assert _tree(site) == _tree(full)


@pytest.mark.slow
def test_an_altered_page_in_the_cache_is_reported_and_rendered_again(small_archive, tmp_path):
    full, site, cache = _built_twice(small_archive, tmp_path)
    forged = forge_entries(cache / CACHE_FILE, "page", lambda _html: b"<p>tampered</p>")
    shutil.rmtree(site)  # every page must now come out of the cache
    lines: list[str] = []
    report = build_site(small_archive, site, commit="c1", progress=lines.append, cache=cache)
    assert _tree(site) == _tree(full) and report.reused == 0
    assert any(f"cache: {forged} entries rejected" in line for line in lines), lines


@pytest.mark.slow
def test_a_cache_with_rows_of_the_wrong_types_is_reported_and_ignored(small_archive, tmp_path):
    full, site, cache = _built_twice(small_archive, tmp_path)
    with sqlite3.connect(cache / CACHE_FILE) as db:
        db.execute("UPDATE entries SET size = 'not a number'")
    db.close()
    lines: list[str] = []
    report = build_site(small_archive, site, commit="c2", progress=lines.append, cache=cache)
    assert any("not of the store's column types" in line for line in lines) and report.rendered == report.pages
    build_site(small_archive, full, commit="c2", progress=_quiet)
    assert _tree(site) == _tree(full)


@pytest.mark.slow
def test_a_rebuild_with_the_cache_rewrites_only_what_changed(small_archive, tmp_path):
    full, site, cache = _built_twice(small_archive, tmp_path)
    record = next(p for p in (site / "records").rglob("*.json"))
    before = {name: (site / name).stat() for name in ("index.html", "build.html", record.relative_to(site).as_posix())}
    lines: list[str] = []
    build_site(small_archive, site, commit="c2", progress=lines.append, cache=cache)
    after = {name: (site / name).stat() for name in before}
    unchanged = [name for name in before if (before[name].st_ino, before[name].st_mtime_ns) ==
                 (after[name].st_ino, after[name].st_mtime_ns)]
    assert unchanged == ["index.html", record.relative_to(site).as_posix()]  # build.html names the new commit
    assert any("files written, the rest unchanged" in line for line in lines)
    build_site(small_archive, full, commit="c2", progress=_quiet)
    assert _tree(site) == _tree(full)
