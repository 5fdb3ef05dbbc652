"""The downloads (CSV, JSON, SQLite, schemas, manifest) are kept from the previous build when
nothing they are made of changed, and built again when anything did: the site is the same bytes
as a build without a cache either way."""

from __future__ import annotations

import pytest
from site_archive import write_site_archive

import builder.site.build as build
from builder.site.build import build_site

DOWNLOADS = ("data/forecasts.csv", "data/scores.json", "data/prematch.sqlite", "data/manifest.json")


def _tree(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _quiet(_line: str) -> None:
    pass


@pytest.fixture
def archive(tmp_path):
    return write_site_archive(tmp_path / "archive")


@pytest.fixture
def exports_built(monkeypatch) -> list[int]:
    """How many times a build wrote the downloads (one entry per export_files call)."""
    calls: list[int] = []
    real = build.export_files
    monkeypatch.setenv("PREMATCH_BUILD_WORKERS", "1")  # counted here: a forked child's count never reaches this list

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(build, "export_files", counted)
    return calls


def _stamps(site) -> dict:
    return {name: ((site / name).stat().st_ino, (site / name).stat().st_mtime_ns) for name in DOWNLOADS}


@pytest.mark.slow
def test_a_build_of_an_unchanged_archive_keeps_the_downloads_with_the_same_bytes(archive, tmp_path, exports_built):
    site, cache, full = tmp_path / "site", tmp_path / "cache", tmp_path / "full"
    build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
    before = _stamps(site)
    (site / "index.html").write_text("edited")  # the site is not kept whole (builder.site.sitereuse): a build runs
    lines: list[str] = []
    build_site(archive, site, commit="c1", progress=lines.append, cache=cache)
    assert len(exports_built) == 1  # the second build wrote no table
    assert any("downloads unchanged" in line for line in lines)
    assert _stamps(site) == before
    build_site(archive, full, commit="c1", progress=_quiet)
    assert _tree(site) == _tree(full)


@pytest.mark.slow
def test_a_removed_record_or_a_new_commit_builds_the_downloads_again(archive, tmp_path, exports_built):
    site, cache, full = tmp_path / "site", tmp_path / "cache", tmp_path / "full"
    build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
    forecast = sorted((archive / "worldcup-2026").rglob("*.json"))[-1]
    forecast.unlink()
    build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
    assert len(exports_built) == 2
    build_site(archive, full, commit="c1", progress=_quiet)
    assert _tree(site) == _tree(full)
    build_site(archive, site, commit="c2", progress=_quiet, cache=cache)  # the manifest names the commit
    assert len(exports_built) == 4
    assert b'"commit": "c2"' in (site / "data/manifest.json").read_bytes()


@pytest.mark.slow
def test_a_download_altered_in_the_site_is_written_again(archive, tmp_path, exports_built):
    site, cache, full = tmp_path / "site", tmp_path / "cache", tmp_path / "full"
    build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
    csv = site / "data/forecasts.csv"
    csv.write_bytes(csv.read_bytes().replace(b",", b";"))  # same size, other bytes
    (site / "data/scores.json").unlink()
    build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
    assert len(exports_built) == 2
    build_site(archive, full, commit="c1", progress=_quiet)
    assert _tree(site) == _tree(full)


@pytest.mark.slow
def test_a_build_into_another_folder_writes_its_own_downloads(archive, tmp_path, exports_built):
    site, cache, other = tmp_path / "site", tmp_path / "cache", tmp_path / "other"
    build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
    build_site(archive, other, commit="c1", progress=_quiet, cache=cache)
    assert len(exports_built) == 2
    assert _tree(other) == _tree(site)
