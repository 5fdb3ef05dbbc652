"""The GitHub workflows: offline structure and security checks, pinning, and the commit step run for real.

The commit-and-push step of ``collect.yml`` is extracted from the workflow file and run with
bash against a local bare repository standing in for GitHub, so what is tested is exactly
what the workflow runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

WORKFLOWS = REPO_ROOT / ".github" / "workflows"
NAMES = ("collect.yml", "pages.yml", "ci.yml")


def tool(name: str) -> str:
    found = Path(sys.executable).parent / name
    path = str(found) if found.exists() else shutil.which(name)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is missing: pip install -e '.[dev]'")
        pytest.skip(f"{name} is not installed")
    return path


def text(name: str) -> str:
    return (WORKFLOWS / name).read_text()


def test_workflows_match_githubs_schema():
    files = [str(WORKFLOWS / n) for n in NAMES]
    done = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *files],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_finds_no_security_problem():
    done = subprocess.run([tool("zizmor"), "--offline", str(WORKFLOWS)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_third_party_actions_are_pinned_to_commit_shas():
    uses = [u for n in NAMES for u in re.findall(r"uses:\s*(\S+)", text(n))]
    remote = [u for u in uses if not u.startswith("./")]
    assert {u.split("@")[0] for u in remote} == {
        "actions/checkout",
        "actions/setup-python",
        "actions/configure-pages",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
    }
    assert all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in remote), remote


def test_collect_runs_every_15_minutes_one_at_a_time_with_least_privilege():
    collect = text("collect.yml")
    assert 'cron: "*/15 * * * *"' in collect and "workflow_dispatch:" in collect
    assert "cancel-in-progress: false" in collect
    assert re.search(r"^permissions: \{\}$", collect, re.M)
    assert "secrets.OPENROUTER_API_KEY" in collect and "secrets.FOOTBALL_DATA_API_KEY" in collect
    tick = re.search(r"python -m collector tick[^\n;]*", collect).group(0)
    # --now alone would label the records "replay"; the scheduled collector is the live one
    assert "--clock live" in tick or "--now" not in tick, tick


def commit_step() -> str:
    """The shell script of collect.yml's commit step, as the runner sees it."""
    lines = text("collect.yml").splitlines()
    start = next(i for i, line in enumerate(lines) if "name: Commit archive/ and push" in line)
    run_at = next(i for i in range(start, len(lines)) if lines[i].strip() == "run: |")
    indent = len(lines[run_at + 1]) - len(lines[run_at + 1].lstrip())
    body = []
    for line in lines[run_at + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        body.append(line[indent:])
    return "\n".join(body) + "\n"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def clones(tmp_path):
    """A bare 'GitHub' remote and two clones: the runner's and someone else's."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    runner, other = tmp_path / "runner", tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(remote), str(other)], check=True, capture_output=True)
    for clone in (other,):
        git(clone, "config", "user.email", "o@example.invalid")
        git(clone, "config", "user.name", "o")
        (clone / "archive").mkdir()
        (clone / "archive/a.json").write_text("{}\n")
        git(clone, "add", "archive")
        git(clone, "commit", "-q", "-m", "start")
        git(clone, "push", "-q", "origin", "main")
    subprocess.run(["git", "clone", "-q", str(remote), str(runner)], check=True, capture_output=True)
    return remote, runner, other


def run_step(runner: Path, tmp_path: Path) -> tuple[subprocess.CompletedProcess, str]:
    output = tmp_path / "github_output"
    output.write_text("")
    env = {**os.environ, "TICK_AT": "2026-06-11T18:45:00Z", "BRANCH": "main", "GITHUB_OUTPUT": str(output)}
    env["PUSH_BACKOFF_SECONDS"] = "0"
    done = subprocess.run(["bash", "-e", "-c", commit_step()], cwd=runner, env=env, capture_output=True, text=True)
    return done, output.read_text()


def test_tick_with_nothing_due_makes_no_commit(clones, tmp_path):
    remote, runner, _ = clones
    before = git(remote, "rev-parse", "main")
    (runner / "notes.txt").write_text("not archive\n")
    done, output = run_step(runner, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "pushed=false" in output and git(remote, "rev-parse", "main") == before


def test_tick_commits_only_archive_and_rebases_when_main_moved(clones, tmp_path):
    remote, runner, other = clones
    (runner / "archive/b.json").write_text("{}\n")
    (runner / "stray.txt").write_text("must not be committed\n")
    (runner / "archive/.b.json.123.abcd.tmp").write_text("{")  # left behind by a crashed write
    (other / "archive/c.json").write_text("{}\n")  # someone else pushes first
    git(other, "add", "archive")
    git(other, "commit", "-q", "-m", "other")
    git(other, "push", "-q", "origin", "main")
    done, output = run_step(runner, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pushed=true" in output and "push rejected (attempt 1)" in done.stdout
    assert git(remote, "log", "-1", "--format=%s %an", "main") == "archive: tick 2026-06-11T18:45:00Z prematch-bot"
    assert git(remote, "show", "--name-only", "--format=", "main").splitlines() == ["archive/b.json"]
    assert git(remote, "log", "--format=%s", "main").splitlines()[1] == "other"
