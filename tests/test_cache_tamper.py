"""The one cache cannot change the published site: every tamper with it (issue 51) leaves the
site equal, byte for byte, to a build without a cache, and the build names what it rejected."""

from __future__ import annotations

import re
import shutil
import sqlite3

import numpy as np
import pytest
from cache_tampering import forge_entries, swap_entries
from factories import synthetic_records, write_records

from builder.site.build import build_site
from collector.archive.store import (
    KEY_ENV,
    STORE_FILE,
    Store,
    pack_arrays,
    unpack_arrays,
)

TAMPERS = ("page-bytes", "page-script", "pages-swapped", "arrays-shifted", "arrays-swapped", "truncated",
           "unkeyed-entry", "site-states")


def _tree(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tamper") / "archive"
    write_records(folder, synthetic_records(n_events=12, n_models=2, seed=5, knockout_from=8))
    return folder


@pytest.fixture(scope="module")
def uncached(archive, tmp_path_factory):
    """The site of commit c2 built without any cache: what every tampered build must equal."""
    out = tmp_path_factory.mktemp("uncached") / "site"
    build_site(archive, out, commit="c2", progress=lambda _line: None)
    return _tree(out)


def _tamper(kind: str, cache, monkeypatch) -> None:
    path = cache / STORE_FILE
    if kind == "page-bytes":  # the index page's bytes edited, its digest and size updated
        forge_entries(path, "page", lambda html: html.replace(b"<main", b"<main data-forged"))
    elif kind == "page-script":  # the CSP meta removed and a script added to every page
        forge_entries(path, "page", lambda html: re.sub(rb'<meta http-equiv="Content-Security-Policy"[^>]*>',
                                                         b"<script>alert(1)</script>", html))
    elif kind == "pages-swapped":
        with sqlite3.connect(path) as db:
            swap_entries(db, "page")
        db.close()
    elif kind == "arrays-shifted":  # 0.25 added to every bootstrap array
        forge_entries(path, "bootstrap", lambda value: pack_arrays(a + 0.25 for a in unpack_arrays(value)))
    elif kind == "arrays-swapped":
        with sqlite3.connect(path) as db:
            swap_entries(db, "bootstrap")
        db.close()
    elif kind == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 3])
    elif kind == "unkeyed-entry":  # a job without the cache's key writes every page through the store
        monkeypatch.setenv(KEY_ENV, "a key that is not this cache's key, 32+ bytes long")
        with sqlite3.connect(path) as db:
            keys = [key for (key,) in db.execute("SELECT key FROM entries WHERE kind = 'page'")]
        db.close()
        store = Store.open(cache)
        for key in keys:
            store.put("page", key, b"<p>forged</p>")
        assert store.commit() == ""
        monkeypatch.delenv(KEY_ENV)
    else:  # the kept site's file states claim an edited page is the one the build wrote
        forge_entries(path, "site", lambda value: value.replace(b'"index.html",', b'"index.html", ', 1))


@pytest.mark.slow
@pytest.mark.parametrize("kind", TAMPERS)
def test_a_tampered_cache_leaves_the_site_as_a_build_without_cache(archive, uncached, tmp_path, monkeypatch, kind):
    site, cache = tmp_path / "site", tmp_path / "cache"
    build_site(archive, site, commit="c1", progress=lambda _line: None, cache=cache)
    _tamper(kind, cache, monkeypatch)
    lines: list[str] = []
    build_site(archive, site, commit="c2", progress=lines.append, cache=cache)
    assert _tree(site) == uncached
    said = "\n".join(lines)
    if kind == "truncated":
        assert f"cache {cache / STORE_FILE} unreadable" in said
    else:
        assert re.search(r"cache: \d+ entries rejected and computed again: \w+ [0-9a-f]{12}", said) or \
            re.search(r"cache: \d+ entries rejected and computed again: site site", said), said
    shutil.rmtree(site)  # and a site made wholly from what the cache now holds is the same bytes
    build_site(archive, site, commit="c2", progress=lambda _line: None, cache=cache)
    assert _tree(site) == uncached


@pytest.mark.slow
def test_an_intact_cache_is_used(archive, uncached, tmp_path):
    """The control: without tampering the second build reuses pages and bootstrap results."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    build_site(archive, site, commit="c1", progress=lambda _line: None, cache=cache)
    lines: list[str] = []
    report = build_site(archive, site, commit="c2", progress=lines.append, cache=cache)
    assert _tree(site) == uncached and report.reused > 0
    assert not any("rejected" in line for line in lines)
    reused = [int(m.group(1)) for line in lines if (m := re.search(r"bootstrap results reused (\d+)", line))]
    assert reused and reused[0] > 0


def test_the_key_file_is_private_and_a_runner_trusts_only_its_own_job(tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    store = Store.open(tmp_path / "cache")
    assert store.active and (tmp_path / "cache/store.key").stat().st_mode & 0o077 == 0
    store.put("page", "k", b"kept by this machine")
    store.commit()
    assert Store.open(tmp_path / "cache").get("page", "k") == b"kept by this machine"
    # a runner without the secret, as in a job whose folder came from the Actions cache
    for name, value in (("GITHUB_ACTIONS", "true"), ("GITHUB_RUN_ID", "7"), ("GITHUB_RUN_ATTEMPT", "1"),
                        ("GITHUB_JOB", "build")):
        monkeypatch.setenv(name, value)
    runner = Store.open(tmp_path / "cache")
    assert runner.get("page", "k") is None and runner.rejected  # another job's entry
    runner.put("page", "k", b"kept by this job")
    runner.commit()
    assert Store.open(tmp_path / "cache").get("page", "k") == b"kept by this job"  # the same job, a later step
    monkeypatch.setenv("GITHUB_RUN_ID", "8")
    assert Store.open(tmp_path / "cache").get("page", "k") is None  # the next run does not trust it


def test_arrays_round_trip_and_pickles_are_refused():
    arrays = (np.arange(6.0).reshape(2, 3), np.array([np.nan, 1.0]))
    back = unpack_arrays(pack_arrays(arrays))
    assert all(a.tobytes() == b.tobytes() and a.shape == b.shape for a, b in zip(arrays, back, strict=True))
    with pytest.raises(ValueError):
        pack_arrays([np.array([object()], dtype=object)])


@pytest.mark.slow
def test_ticks_with_a_correction_and_a_deleted_file_build_as_without_cache(tmp_path):
    """A cached build after a corrected outcome (a new revision naming the old record) and after a
    record file deleted from the working tree is the bytes of a build without a cache."""
    from collector.archive.layout import path_for
    from collector.archive.write.revise import next_revision
    from collector.records import Forecast, Outcome, Score

    records = synthetic_records(n_events=10, n_models=2, seed=11, knockout_from=7)
    archive, cache, site = tmp_path / "archive", tmp_path / "cache", tmp_path / "site"
    write_records(archive, records)
    outcome = next(r for r in records if isinstance(r, Outcome) and r.score_90 is not None and not r.advancing_team)
    corrected = next_revision(outcome, outcome.model_copy(update={"score_90": Score(home=outcome.score_90.home + 1,
                                                                                     away=outcome.score_90.away)}),
                              reason="the source corrected the score", recorded_at=outcome.recorded_at)
    forecast = next(r for r in records if isinstance(r, Forecast))
    steps = [lambda: None, lambda: write_records(archive, [corrected]), lambda: (archive / path_for(forecast)).unlink()]
    before: dict[str, bytes] = {}
    for step, change in enumerate(steps):
        change()
        build_site(archive, site, commit="c1", progress=lambda _line: None, cache=cache)
        fresh = tmp_path / f"fresh{step}"
        build_site(archive, fresh, commit="c1", progress=lambda _line: None)
        assert _tree(site) == _tree(fresh), f"step {step}"
        pages = {name: html for name, html in _tree(fresh).items() if name.endswith(".html")}
        assert step == 0 or pages != before  # each change shows on the site (at the same commit)
        before = pages


def test_the_code_version_follows_every_file_of_the_packages(tmp_path):
    """Any file of a package (a template, a module, shipped data) moves the one code version;
    compiled caches do not (no cache keeps a list of files that could forget one)."""
    from collector.archive.codeversion import code_digest, code_version

    packages = {"builder": tmp_path / "builder", "site_templates": tmp_path / "site_templates"}
    for root in packages.values():
        (root / "static").mkdir(parents=True)
    (packages["builder"] / "models.py").write_text("X = 1\n")
    (packages["site_templates"] / "base.html").write_text("<footer>")
    (packages["site_templates"] / "static" / "site.css").write_text("body {}")
    seen = [code_digest(packages)]
    for path, text in ((packages["builder"] / "models.py", "X = 2\n"),
                       (packages["site_templates"] / "base.html", "<footer> "),
                       (packages["site_templates"] / "static" / "site.css", "body { color: red }"),
                       (packages["builder"] / "new.toml", "")):
        path.write_text(text)
        seen.append(code_digest(packages))
    (packages["builder"] / "__pycache__").mkdir()
    (packages["builder"] / "__pycache__" / "models.cpython-311.pyc").write_bytes(b"compiled")
    assert code_digest(packages) == seen[-1] and len(set(seen)) == len(seen)
    assert code_version() == code_version() and len(code_version()) == 64
