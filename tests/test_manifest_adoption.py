"""Every archive file under a manifest (issue 53): a full disk, the next tick's adoption, and ``verify``.

A tick stopped by a full disk reports each file it could not write as one clean problem line,
exits 1 and leaves no part of a file; the next tick's manifest adopts every file no manifest
lists. ``verify`` calls a file in no manifest a violation once a later manifest exists. The
full disk is a real tmpfs where one can be mounted (``unshare -rm``), and always an ``ENOSPC``
injected at the archive writer's ``write`` calls.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from collector.archive.reader import load_archive
from collector.archive.write import writer
from collector.archive.write.manifest import unlisted, write_tick_manifest
from collector.archive.write.writer import ArchiveWriter
from collector.audit.verify import verify_repository
from collector.cli import main
from tests.gitrepo import GitRepo, at, event, forecast

REPO = Path(__file__).resolve().parent.parent
NOW, LATER = "2026-06-10T12:00:00Z", "2026-06-10T12:15:00Z"
CONFIG = """
[arena]
competitions = ["worldcup-2026"]
questions = false
[[forecasters]]
id = "uniform"
type = "baseline"
"""


def tick(root: Path, data_dir: Path, now: str) -> int:
    (root / "arena.toml").write_text(CONFIG)
    return main(["tick", "--now", now, "--config", str(root / "arena.toml"), "--archive", str(root / "archive"),
                 "--data-dir", str(data_dir)])  # fmt: skip


def assert_next_tick_adopts_every_orphan(root: Path, data_dir: Path, capsys) -> None:
    left = load_archive(root / "archive")
    assert left.problems == []  # nothing half-written: every file there is a whole record
    orphans = unlisted(left)
    assert orphans and not list((root / "archive").rglob("*.tmp"))
    capsys.readouterr()
    assert tick(root, data_dir, LATER) == 0
    assert f"the manifest adopts {len(orphans)} file(s)" in capsys.readouterr().out
    archive = load_archive(root / "archive")
    (manifest,) = [m for m in archive.manifests if m.adopted]
    assert list(manifest.adopted) == orphans and set(orphans) <= set(manifest.files)
    assert unlisted(archive) == []


@pytest.mark.slow
def test_a_full_disk_is_a_clean_problem_per_file_and_the_next_tick_adopts_what_was_written(
        tmp_path, data_dir, monkeypatch, capsys):
    real = writer._write_all
    room = {"writes": 40}

    def full_disk(fd: int, data: bytes) -> None:  # the 41st file gets half its bytes, then the disk is full
        room["writes"] -= 1
        if room["writes"] < 0:
            if room["writes"] == -1:
                os.write(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    monkeypatch.setattr(writer, "_write_all", full_disk)
    assert tick(tmp_path, data_dir, NOW) == 1
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert lines and all(line.startswith("problem: ") for line in lines) and "Traceback" not in captured.err
    assert sum("cannot be written: No space left on device; not written" in line for line in lines) == len(lines)
    assert any(line.startswith("problem: manifests: manifests/") for line in lines)  # the manifest too
    assert not list((tmp_path / "archive").glob("manifests/*/*.json"))  # its folder may be there, empty
    monkeypatch.setattr(writer, "_write_all", real)  # space again
    assert_next_tick_adopts_every_orphan(tmp_path, data_dir, capsys)


def _tmpfs_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    done = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"], capture_output=True)
    return done.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _tmpfs_works(), reason="no tmpfs can be mounted here (unshare -rm)")
def test_a_tick_on_a_full_tmpfs_exits_1_and_the_next_tick_adopts_every_file(tmp_path, data_dir, capsys):
    (tmp_path / "archive").mkdir()
    (tmp_path / "arena.toml").write_text(CONFIG)
    saved = tmp_path / "saved"
    script = (f"mount -t tmpfs -o size=480k tmpfs {tmp_path / 'archive'} && "
              f"{sys.executable} -m collector tick --now {NOW} --config {tmp_path / 'arena.toml'} "
              f"--archive {tmp_path / 'archive'} --data-dir {data_dir}; code=$?; "
              f"cp -a {tmp_path / 'archive'} {saved}; exit $code")  # the tmpfs goes with the namespace
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "No space left on device" in done.stderr and all(
        line.startswith("problem: ") for line in done.stderr.splitlines())
    shutil.rmtree(tmp_path / "archive")
    saved.rename(tmp_path / "archive")
    assert_next_tick_adopts_every_orphan(tmp_path, data_dir, capsys)


def test_verify_calls_a_file_in_no_manifest_a_violation_once_a_later_manifest_exists(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event())
    ArchiveWriter(repo.archive).write(forecast("elo"))  # written by a tick that died before its manifest
    orphan = repo.commit(at(10, 19), "a tick's files without its manifest")
    report = verify_repository(repo.root)
    [note] = [f for f in report.findings if f.code == "not_in_manifest"]
    assert not note.violation and report.ok  # no manifest after it (yet)
    repo.tick(at(10, 20), forecast("uniform", model_version="u-1"))  # a later manifest that leaves it out
    [found] = [f for f in verify_repository(repo.root, use_cache=False).findings if f.code == "not_in_manifest"]
    assert found.violation and found.commit == orphan and "would have adopted them" in found.message


def test_a_later_manifest_that_adopts_the_file_passes_verify(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event())
    ArchiveWriter(repo.archive).write(forecast("elo"))
    repo.commit(at(10, 19), "a tick's files without its manifest")
    view = load_archive(repo.archive)
    later = ArchiveWriter(repo.archive, view)
    later.write(forecast("uniform", model_version="u-1"))
    path = write_tick_manifest(later, at(10, 20), orphans=unlisted(view, later.written))
    repo.commit(at(10, 20))
    assert view.records[path].adopted == (
        "worldcup-2026/events/mex-v-rsa/forecasts/elo/closed_book.probabilistic_forecast.t_minus_24h.s0.json",)
    report = verify_repository(repo.root)
    assert report.ok and not [f for f in report.findings if f.code == "not_in_manifest"]
