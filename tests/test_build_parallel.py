"""The build's background work in forked children (the leaderboard slices and paper tables while
the archive is scored, then the downloads while the pages are made): the same
site bytes as the serial build, failures that fail the build without a half-written site, the
archive and the site folder never touched by the child, and no child process left behind."""

from __future__ import annotations

import hashlib
import os

import pytest
from children import no_child_left
from site_archive import write_site_archive

import builder.score.scoring as scoring
import builder.score.slicework as slicework
import builder.site.build as build
from builder.parallel import WORKERS_ENV, BackgroundError
from builder.site.cache import CacheDB
from builder.site.build import build_site

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                                reason="no os.fork or one core: the build runs serially")


def _tree(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _digest(folder) -> dict[str, str]:
    return {name: hashlib.sha256(data).hexdigest() for name, data in _tree(folder).items()}


def _export_pids(monkeypatch) -> list[int]:
    """The pid of each process that runs ``export_files`` during the build (filled as it runs)."""
    seen: list[int] = []
    real = build.export_files
    monkeypatch.setattr(build, "export_files", lambda *a, **k: seen.append(os.getpid()) or real(*a, **k))
    return seen


def _exports_noted(monkeypatch, pids):
    """``pids``, a file each process that runs ``export_files`` appends its pid to (a child's
    list of them in memory would not reach the test)."""
    real = build.export_files

    def noted(*args, **kwargs):
        with open(pids, "a") as handle:
            handle.write(f"{os.getpid()}\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(build, "export_files", noted)
    return pids


def _quiet(_line: str) -> None:
    pass


@pytest.fixture
def archive(tmp_path):
    return write_site_archive(tmp_path / "archive")


@needs_fork
def test_the_site_is_the_same_bytes_built_with_a_child_or_serially(archive, tmp_path, monkeypatch):
    sites = {}
    for workers in ("1", "2"):
        monkeypatch.setenv(WORKERS_ENV, workers)
        site, cache = tmp_path / f"site-{workers}", tmp_path / f"cache-{workers}"
        build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
        cold = _tree(site)
        build_site(archive, site, commit="c2", progress=_quiet, cache=cache)  # a tick-like rebuild with the cache
        sites[workers] = (cold, _tree(site))
    assert sites["1"] == sites["2"]
    assert "data/prematch.sqlite" in sites["2"][1] and "data/index.html" in sites["2"][1]
    assert no_child_left()


@needs_fork
def test_the_downloads_are_made_in_a_child_announced_with_their_time(archive, tmp_path, monkeypatch):
    monkeypatch.setenv(WORKERS_ENV, "2")
    pids = _exports_noted(monkeypatch, tmp_path / "pids")
    lines: list[str] = []
    build_site(archive, tmp_path / "site", commit="c1", progress=lines.append)
    assert len(pids.read_text().split()) == 1 and pids.read_text().split() != [str(os.getpid())]
    assert "  in a background process meanwhile: the downloads (CSV, JSON, SQLite)" in lines
    made = [line for line in lines if line.startswith("  the downloads were made in the background process in ")]
    assert len(made) == 1 and "(waited " in made[0]
    assert lines.index(made[0]) > lines.index("exporting CSV, JSON, SQLite, schemas and the archive manifest")


@needs_fork
def test_an_archive_over_the_child_limit_is_exported_in_the_build_process(archive, tmp_path, monkeypatch):
    monkeypatch.delenv(WORKERS_ENV, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(build, "CHILD_RECORDS", 10)  # the small archive has more records than this
    seen = _export_pids(monkeypatch)
    lines: list[str] = []
    build_site(archive, tmp_path / "site", commit="c1", progress=lines.append)
    assert seen == [os.getpid()]
    assert not any("background process" in line for line in lines)
    assert build.in_child(10) is True and build.in_child(11) is False
    monkeypatch.setenv(WORKERS_ENV, "2")  # asked for: the child whatever the archive's size
    assert build.in_child(11) is True


@needs_fork
def test_a_build_after_an_earlier_one_exports_in_a_child_whatever_the_archive_size(archive, tmp_path, monkeypatch):
    """Over the child limit, a cold build exports in the build process (its memory); the next build
    with the cache (a tick's: most pages reused) makes the downloads in the child, same bytes."""
    monkeypatch.delenv(WORKERS_ENV, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(build, "CHILD_RECORDS", 10)
    pids = _exports_noted(monkeypatch, tmp_path / "pids")
    build_site(archive, tmp_path / "site", commit="c1", progress=_quiet, cache=tmp_path / "cache")
    assert pids.read_text().split() == [str(os.getpid())]
    lines: list[str] = []
    build_site(archive, tmp_path / "site", commit="c2", progress=lines.append, cache=tmp_path / "cache")
    assert len(pids.read_text().split()) == 2 and pids.read_text().split()[1] != str(os.getpid())
    assert "  in a background process meanwhile: the downloads (CSV, JSON, SQLite)" in lines
    build_site(archive, tmp_path / "full", commit="c2", progress=_quiet)
    assert _tree(tmp_path / "site") == _tree(tmp_path / "full")
    assert build.in_child(11, incremental=True) is True and build.in_child(11) is False
    monkeypatch.setenv(WORKERS_ENV, "1")
    assert build.in_child(11, incremental=True) is False  # one worker: never a child
    assert no_child_left()


def test_with_one_worker_everything_runs_in_the_build_process(archive, tmp_path, monkeypatch):
    monkeypatch.setenv(WORKERS_ENV, "1")
    seen = _export_pids(monkeypatch)
    lines: list[str] = []
    build_site(archive, tmp_path / "site", commit="c1", progress=lines.append)
    assert seen == [os.getpid()]
    assert not any("background process" in line for line in lines)


@needs_fork
@pytest.mark.parametrize("how", ["raise", "exit", "kill"])
def test_a_failing_or_dying_child_fails_the_build_and_leaves_the_previous_site(archive, tmp_path, monkeypatch, how):
    site, cache = tmp_path / "site", tmp_path / "cache"
    build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
    before = _digest(site)
    monkeypatch.setenv(WORKERS_ENV, "2")

    def broken(*args, **kwargs):
        if how == "raise":
            raise OSError("disk full while writing data/forecasts.csv")
        if how == "exit":
            os._exit(7)
        os.kill(os.getpid(), 9)

    monkeypatch.setattr(build, "export_files", broken)
    with pytest.raises(BackgroundError) as raised:
        build_site(archive, site, commit="c2", progress=_quiet, cache=cache)
    text = str(raised.value)
    assert "'exports'" in text
    expected = {"raise": "builtins.OSError: disk full while writing data/forecasts.csv",
                "exit": "exited with code 7", "kill": "killed by signal 9"}[how]
    assert expected in text
    if how == "raise":
        assert "in broken" in text  # the child's traceback
    assert _digest(site) == before  # no half-written site
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archive", "cache", "site"]  # no staging or scratch left
    assert no_child_left()


@needs_fork
def test_the_child_writes_only_its_scratch_folder_never_the_site_nor_the_archive(archive, tmp_path, monkeypatch):
    monkeypatch.setenv(WORKERS_ENV, "2")
    site = tmp_path / "out" / "site"
    build_site(archive, site, commit="c1", progress=_quiet)
    before, site_before = _digest(archive), _digest(site)
    folders = tmp_path / "workdirs"
    real = build.export_files

    def noted(*args, workdir, **kwargs):
        with open(folders, "a") as handle:
            handle.write(f"{os.getpid()} {workdir}\n")
        return real(*args, workdir=workdir, **kwargs)

    monkeypatch.setattr(build, "export_files", noted)
    build_site(archive, site, commit="c1", progress=_quiet)
    pid, workdir = folders.read_text().split()
    assert int(pid) != os.getpid()
    assert os.path.commonpath([workdir, site.resolve()]) != str(site.resolve())
    assert os.path.commonpath([workdir, archive.resolve()]) != str(archive.resolve())
    assert not os.path.exists(workdir)  # the scratch folder is removed after the build
    assert _digest(archive) == before
    assert _digest(site) == site_before


def _slices_noted(monkeypatch, pids):
    """``pids``, a file each process that scores the slices, the paper tables or the whole archive's
    row analyses appends "what pid" to."""
    real_slices, real_tables, real_analyses = slicework.score_slices, slicework.paper_tables, scoring.row_analyses

    def noted(what, real):
        def run(*args, **kwargs):
            with open(pids, "a") as handle:
                handle.write(f"{what} {os.getpid()}\n")
            return real(*args, **kwargs)
        return run

    monkeypatch.setattr(slicework, "score_slices", noted("slices", real_slices))
    monkeypatch.setattr(slicework, "paper_tables", noted("paper", real_tables))
    monkeypatch.setattr(scoring, "row_analyses", noted("analyses", real_analyses))
    return pids


@needs_fork
def test_the_slices_and_paper_tables_are_made_in_a_child_while_the_archive_is_scored(archive, tmp_path, monkeypatch):
    monkeypatch.setenv(WORKERS_ENV, "2")
    pids = _slices_noted(monkeypatch, tmp_path / "pids")
    lines: list[str] = []
    build_site(archive, tmp_path / "site", commit="c1", progress=lines.append)
    seen = dict(line.split() for line in pids.read_text().splitlines())
    assert set(seen) == {"slices", "paper", "analyses"}
    assert seen["slices"] == seen["paper"] == seen["analyses"] != str(os.getpid())
    assert slicework.ANNOUNCE in lines
    assert lines.index("scoring") < lines.index(slicework.ANNOUNCE) < lines.index(
        "scoring 3 leaderboard slices (per competition and stage)")
    made = [line for line in lines if line.startswith("  the slices (with the row analyses and paper tables) were "
                                                     "made in the background")]
    assert len(made) == 1 and "(waited " in made[0] and "for the analyses" in made[0]
    monkeypatch.setenv(WORKERS_ENV, "1")
    build_site(archive, tmp_path / "serial", commit="c1", progress=_quiet)
    assert _tree(tmp_path / "site") == _tree(tmp_path / "serial")
    # serially: here (the row analyses first, within scoring), and the page makes the tables
    assert pids.read_text().splitlines()[-2:] == [f"analyses {os.getpid()}", f"slices {os.getpid()}"]
    assert no_child_left()


@needs_fork
def test_the_bootstrap_results_of_the_child_are_kept_for_the_next_build(archive, tmp_path, monkeypatch):
    """The memo a build saves holds the same results whether the slices were scored in a child or
    here, and the next build (nothing new scored) computes none of them again."""
    kept = {}
    for workers in ("1", "2"):
        monkeypatch.setenv(WORKERS_ENV, workers)
        cache = tmp_path / f"cache-{workers}"
        build_site(archive, tmp_path / f"site-{workers}", commit="c1", progress=_quiet, cache=cache)
        kept[workers] = CacheDB.open(cache).bootstrap_memo().kept
    assert sorted(kept["1"]) == sorted(kept["2"]) and kept["2"]
    assert all(_same(kept["1"][key], kept["2"][key]) for key in kept["1"])
    lines: list[str] = []
    build_site(archive, tmp_path / "site-2", commit="c2", progress=lines.append, cache=tmp_path / "cache-2")
    assert [line for line in lines if "bootstrap results" in line] == [f"  bootstrap results reused {len(kept['2'])}, computed 0"]


def _same(a, b) -> bool:
    return all(x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes() for x, y in zip(a, b, strict=True))


@needs_fork
@pytest.mark.parametrize(("task", "module", "name"), [("slices", slicework, "score_slices"),
                                                      ("analyses", scoring, "row_analyses")])
def test_a_failing_slice_child_fails_the_build_and_leaves_the_previous_site(archive, tmp_path, monkeypatch,
                                                                            task, module, name):
    """Whichever of the child's tasks fails (the row analyses scoring waits for, or the slices)."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
    before = _digest(site)
    monkeypatch.setenv(WORKERS_ENV, "2")

    def broken(*args, **kwargs):
        raise MemoryError("no room for the group stage's resampler")

    monkeypatch.setattr(module, name, broken)
    with pytest.raises(BackgroundError) as raised:
        build_site(archive, site, commit="c2", progress=_quiet, cache=cache)
    assert f"'{task}'" in str(raised.value) and "builtins.MemoryError: no room" in str(raised.value)
    assert _digest(site) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archive", "cache", "site"]
    assert no_child_left()


@needs_fork
def test_a_cold_build_over_the_child_limit_scores_the_slices_in_the_build_process(archive, tmp_path, monkeypatch):
    monkeypatch.delenv(WORKERS_ENV, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(build, "CHILD_RECORDS", 10)
    pids = _slices_noted(monkeypatch, tmp_path / "pids")
    lines: list[str] = []
    build_site(archive, tmp_path / "site", commit="c1", progress=lines.append)
    # the row analyses within scoring, then the slices; the tables: made by the page (not noted)
    assert pids.read_text().splitlines() == [f"analyses {os.getpid()}", f"slices {os.getpid()}"]
    assert not any("background process" in line for line in lines)
