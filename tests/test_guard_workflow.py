"""guard.yml: the base branch's guard judges a pull request's commits, read as data, never run.

The workflow's own steps are extracted and run with bash against a local bare repository that
stands in for GitHub (a pull request is its ``refs/pull/N/head``), exactly as the runner runs them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.factories import make_event, make_forecast, write_records
from tests.test_workflows import git, github_remote, job, step_script, text

PR = 7


def test_the_guard_runs_the_base_code_on_pull_request_target_with_no_secret_and_no_write():
    guard = text("guard.yml")
    assert re.search(r"^  pull_request_target:", guard, re.M) and not re.search(r"^  pull_request:", guard, re.M)
    assert "ref: ${{ github.event.pull_request.base.sha || github.sha }}" in guard
    assert "persist-credentials: false" in guard and "secrets." not in guard
    assert re.search(r"^permissions: \{\}$", guard, re.M) and "contents: read" in guard and "write" not in guard
    assert "head.ref" not in guard and "upload-artifact" not in guard and "cache" not in guard
    # the pull request's head is a fetched ref, judged by `guard --head`; nothing checks it out
    assert "git checkout" not in guard and "git switch" not in guard and "git worktree" not in guard
    assert job("guard.yml", "append-only").count("uses: actions/checkout@") == 1
    assert "no longer carried" not in text("ci.yml") and "append-only:" not in text("ci.yml")


@pytest.fixture
def github(tmp_path):
    """A bare 'GitHub' remote whose main holds a forecast, and the runner's clone at the base commit."""

    def seed(tree: Path) -> None:
        event = make_event()
        write_records(tree / "archive", [event, make_forecast(event)])
        (tree / "collector").mkdir()
        (tree / "collector/guard_rule.txt").write_text("base rule\n")

    return github_remote(tmp_path, seed)


def open_pull_request(remote: Path, author: Path, change) -> tuple[str, str]:
    """The author's branch with ``change`` applied, pushed as ``refs/pull/7/head``: (base sha, head sha)."""
    base = git(author, "rev-parse", "HEAD")
    git(author, "checkout", "-q", "-b", "pr")
    change(author)
    git(author, "add", "-A")
    git(author, "commit", "-q", "-m", "pull request")
    git(author, "push", "-q", "origin", f"HEAD:refs/pull/{PR}/head")
    return base, git(author, "rev-parse", "HEAD")


def run_guard_job(runner: Path, tmp_path: Path, base: str, head: str) -> subprocess.CompletedProcess:
    """The job's 'Fetch' step then its guard step, as the runner runs them (bash -e, GITHUB_OUTPUT)."""
    output = tmp_path / "github_output"
    output.write_text("")
    env = {**os.environ, "EVENT": "pull_request_target", "PR_NUMBER": str(PR), "HEAD_SHA": head,
           "BASE_SHA": base, "BEFORE": "", "PUSHED": "", "GITHUB_OUTPUT": str(output),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
    fetch = step_script("Fetch the pull request's commits as data", "guard.yml")
    done = subprocess.run(["bash", "-e", "-c", fetch], cwd=runner, env=env, capture_output=True, text=True)
    if done.returncode:
        return done
    found = dict(line.split("=", 1) for line in output.read_text().splitlines())
    env.update(BASE=found["base"], HEAD=found["head"])
    guard = step_script("Fail if the change modifies or deletes an existing archive file", "guard.yml")
    return subprocess.run(["bash", "-e", "-c", guard], cwd=runner, env=env, capture_output=True, text=True)


@pytest.mark.slow
def test_a_pull_request_that_edits_a_record_and_the_guard_is_judged_by_the_base_guard(github, tmp_path):
    remote, author, runner = github

    def tamper(tree: Path) -> None:
        record = next(p for p in (tree / "archive").rglob("*.json") if "/forecasts/" in p.as_posix())
        record.write_bytes(record.read_bytes().replace(b"0.", b"0.1", 1))  # a changed probability
        (tree / "collector/guard_rule.txt").write_text("the pull request's rule: let everything through\n")
        hooks = tree / ".github/workflows"
        hooks.mkdir(parents=True)
        (hooks / "guard.yml").write_text("on: pull_request_target\njobs: {}\n")  # its own 'guard': never used

    base, head = open_pull_request(remote, author, tamper)
    before = git(runner, "rev-parse", "HEAD")
    done = run_guard_job(runner, tmp_path, base, head)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "this change modifies an existing archive file; the archive is append-only" in done.stderr
    # the runner's tree is still the base: the pull request's files were never checked out
    assert git(runner, "rev-parse", "HEAD") == before and git(runner, "status", "--porcelain") == ""
    assert (runner / "collector/guard_rule.txt").read_text() == "base rule\n"
    assert not (runner / ".github").exists()


@pytest.mark.slow
def test_a_pull_request_that_only_adds_a_valid_record_passes(github, tmp_path):
    remote, author, runner = github
    base, head = open_pull_request(remote, author, lambda tree: write_records(
        tree / "archive", [make_event("bra", "arg")]))
    done = run_guard_job(runner, tmp_path, base, head)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"guard: OK, 1 archive file(s) added since {base}" in done.stdout


def test_a_head_that_left_the_pull_request_is_not_judged(github, tmp_path):
    remote, author, runner = github
    base, _ = open_pull_request(remote, author, lambda tree: write_records(tree / "archive", [make_event("a", "b")]))
    done = run_guard_job(runner, tmp_path, base, "f" * 40)
    assert done.returncode == 1 and f"is no longer in pull request #{PR}" in done.stdout
