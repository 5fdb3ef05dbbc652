"""The one git runner: output, environment, input, failures named, and the helpers built on it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from builder.site.build import archive_commit
from collector.archive.git import command_name, git, git_dir, head_commit
from collector.errors import ArchiveError
from tests.gitrepo import GitRepo

WHEN = datetime(2026, 6, 11, 19, tzinfo=UTC)
IDENTITY = {"GIT_AUTHOR_NAME": "bot", "GIT_AUTHOR_EMAIL": "bot@example.invalid",
            "GIT_COMMITTER_NAME": "bot", "GIT_COMMITTER_EMAIL": "bot@example.invalid"}


def test_env_sets_identity_and_dates_and_output_comes_back_as_bytes(tmp_path):
    repo = GitRepo(tmp_path)
    stamp = WHEN.strftime("%Y-%m-%dT%H:%M:%S+0000")
    git(repo.root, "commit", "-q", "--allow-empty", "-m", "dated",
        env={**IDENTITY, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    out = git(repo.root, "log", "-1", "--format=%an|%cn|%aI|%cI|%s")
    assert out == b"bot|bot|2026-06-11T19:00:00+00:00|2026-06-11T19:00:00+00:00|dated\n"
    assert head_commit(repo.root) == git(repo.root, "rev-parse", "HEAD").decode().strip()


def test_input_bytes_reach_git_and_meanwhile_runs_before_the_output_is_read(tmp_path):
    repo = GitRepo(tmp_path)
    blob = git(repo.root, "hash-object", "-w", "--stdin", input_bytes=b"hello\n").decode().strip()
    ran = []
    out = git(repo.root, "cat-file", "--batch", input_bytes=f"{blob}\n".encode(), meanwhile=lambda: ran.append(1))
    assert ran == [1]
    assert out == f"{blob} blob 6\n".encode() + b"hello\n\n"


def test_a_failing_command_is_an_archive_error_naming_it_and_the_folder(tmp_path):
    with pytest.raises(ArchiveError, match=rf"git rev-parse HEAD failed in {tmp_path}: .*not a git repository"):
        git(tmp_path, "rev-parse", "HEAD")
    assert command_name(("-c", "core.quotePath=false", "log", "--reverse", "-z")) == "log --reverse"


def test_a_missing_git_binary_is_a_clear_archive_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(ArchiveError, match="git is not installed"):
        git(tmp_path, "status")
    assert head_commit(tmp_path) is None
    assert archive_commit(tmp_path) == "unknown"


def test_helpers_outside_a_repository_before_and_after_the_first_commit(tmp_path):
    assert archive_commit(tmp_path) == "unknown"
    repo = GitRepo(tmp_path / "repo")
    assert git_dir(repo.root) == repo.root / ".git"
    assert git_dir(repo.archive).is_absolute() and git_dir(repo.archive).resolve() == (repo.root / ".git").resolve()
    assert head_commit(repo.root) is None and archive_commit(repo.archive) == "unknown"
    sha = repo.commit(WHEN)
    assert head_commit(repo.root) == sha and archive_commit(repo.archive) == sha
