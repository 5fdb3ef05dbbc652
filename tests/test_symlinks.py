"""Symlinks and other non-regular files in the archive are refused everywhere (issue 12).

Driven through the real commands: ``tick`` never writes through a linked folder, ``build``
and ``status`` never follow a link (its target never reaches the site), and ``guard`` and
``verify`` report a committed link (git mode 120000) anywhere under ``archive/``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from builder.cli import main as builder_main
from collector.archive.reader import load_archive
from collector.cli import main
from tests.collection_helpers import FAKE_KEY
from tests.fake_openrouter import FakeOpenRouter
from tests.gitrepo import GitRepo, at, event, forecast

SECRET = "TOP-SECRET-OUTSIDE-THE-REPOSITORY-41c7"
CONFIG = """
[arena]
competitions = ["worldcup-2026"]
access = ["closed_book"]
strategies = ["probabilistic_forecast"]
questions = false
[openrouter]
max_attempts = 1
[[forecasters]]
id = "test.model"
type = "llm"
model = "test/model"
version = "test/model@1"
"""


def outside_file(tmp_path: Path) -> Path:
    target = tmp_path / "outside" / "secret.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f'{{"secret": "{SECRET}"}}\n')
    return target


@pytest.mark.slow
def test_build_and_status_report_a_linked_file_and_never_publish_its_target(tmp_path, capsys):
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event(), forecast("elo"))
    link = repo.archive / "worldcup-2026/events/mex-v-rsa/outcome.r000.json"
    target = outside_file(tmp_path)
    link.symlink_to(target)
    (repo.archive / "worldcup-2026/linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    assert builder_main(["build", "--archive", str(repo.archive), "--out", str(tmp_path / "site"), "--strict"]) == 1
    err = capsys.readouterr().err
    assert "outcome.r000.json: is a symlink; links in the archive are refused and never followed" in err
    assert "worldcup-2026/linked: is a symlink" in err
    site = "\n".join(p.read_text(errors="replace") for p in (tmp_path / "site").rglob("*") if p.is_file())
    assert SECRET not in site  # the link's target is neither shown nor hashed; the link itself is listed as left out
    assert hashlib.sha256(target.read_bytes()).hexdigest() not in site
    assert "outcome.r000.json: is a symlink" in site
    assert main(["status", "--archive", str(repo.archive)]) in (0, 1)
    assert "is a symlink" in capsys.readouterr().err
    assert "outcome.r000.json" not in load_archive(repo.archive).records


def test_a_fifo_is_reported_not_read(tmp_path):
    archive = tmp_path / "archive" / "worldcup-2026"
    archive.mkdir(parents=True)
    os.mkfifo(archive / "competition.r000.json")
    problems = load_archive(tmp_path / "archive").problems
    assert [p.message for p in problems] == ["is not a regular file (a device, pipe or socket); refused"]


def test_a_tick_never_writes_through_a_linked_folder(tmp_path, data_dir, monkeypatch, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "archive").mkdir()
    (tmp_path / "archive" / "worldcup-2026").symlink_to(outside, target_is_directory=True)
    config = tmp_path / "arena.toml"
    config.write_text(CONFIG)
    with FakeOpenRouter() as server:
        monkeypatch.setenv("OPENROUTER_API_KEY", FAKE_KEY)
        monkeypatch.setenv("OPENROUTER_BASE_URL", server.base_url)
        code = main(["tick", "--now", "2026-06-10T12:00Z", "--config", str(config), "--archive",
                     str(tmp_path / "archive"), "--data-dir", str(data_dir)])  # fmt: skip
    assert code == 1
    assert list(outside.rglob("*")) == []  # nothing was written where the link points
    err = capsys.readouterr().err
    assert "worldcup-2026: is a symlink or not a folder; the archive is never written through a link" in err


@pytest.fixture
def repo(tmp_path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event(), forecast("elo"))
    repo.git("checkout", "-q", "-b", "pr")
    return repo


@pytest.mark.parametrize("name", ["worldcup-2026/events/mex-v-rsa/outcome.r000.json", "worldcup-2026/notes", "linked"])
def test_guard_and_verify_report_a_committed_link_anywhere_under_the_archive(repo, tmp_path, name, capsys):
    target = outside_file(tmp_path)
    (repo.archive / name).symlink_to(target.parent if name == "linked" else target)
    repo.commit(at(2), "add a link")
    assert main(["guard", "--repo", str(repo.root), "--base", "main"]) == 1
    err = capsys.readouterr().err
    assert f"problem: archive/{name}: this change adds a symlink; the archive holds regular files only" in err
    assert main(["verify", "--repo", str(repo.root)]) == 1
    captured = capsys.readouterr()
    assert f"problem: {name}: link: a symlink committed in commit" in captured.err
