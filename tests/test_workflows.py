"""The GitHub workflows: offline structure and security checks, pinning, and the commit step run for real.

The commit-and-push step of ``collect.yml`` is extracted from the workflow file and run with
bash against a local bare repository standing in for GitHub, so what is tested is exactly
what the workflow runs.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.factories import make_event, write_records

WORKFLOWS = REPO_ROOT / ".github" / "workflows"
NAMES = ("collect.yml", "pages.yml", "ci.yml", "keepalive.yml", "guard.yml")

# The current major version of every action used, looked up for issue 19 in the actions' own
# repositories (tags and action.yml): each runs on Node 24 (or is composite), since Node 20 left
# GitHub's runners on 16 September 2026. actions/configure-pages is absent on purpose: its newest
# release, v5.0.0, is a Node 20 build.
CURRENT_MAJOR = {
    "actions/checkout": 7,
    "actions/setup-python": 7,
    "actions/upload-artifact": 7,
    "actions/download-artifact": 8,
    "actions/attest": 4,
    "actions/upload-pages-artifact": 5,
    "actions/deploy-pages": 5,
    "actions/cache": 5,
    "actions/cache/restore": 5,
    "actions/cache/save": 5,
}


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


@pytest.mark.slow
def test_workflows_match_githubs_schema():
    files = [str(WORKFLOWS / n) for n in NAMES]
    done = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *files],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_dependabot_proposes_updates_of_the_locks_and_the_action_pins():
    config = REPO_ROOT / ".github" / "dependabot.yml"
    done = subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.dependabot", str(config)],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    updates = re.findall(r"- package-ecosystem: (\S+)\n\s+directory: \"(\S+)\"", config.read_text())
    assert sorted(updates) == [("github-actions", "/"), ("pip", "/")]  # pip: requirements/*.txt from the root


def test_every_workflow_installs_from_the_hash_pinned_lock():
    """A resolver run at every tick could pull a new major, or a compromised release, beside the key."""
    for name in NAMES:
        for line in (x.strip() for x in text(name).splitlines() if "pip install" in x):
            from_lock = re.search(r"pip install (--quiet )?--require-hashes -r requirements/(runtime|dev)\.txt$", line)
            assert from_lock or line.endswith("pip install --quiet --no-deps -e ."), f"{name}: {line}"
    installed = [n for n in NAMES if "--require-hashes" in text(n)]
    assert sorted(installed) == sorted(n for n in NAMES if "pip install" in text(n)) and "collect.yml" in installed


def test_zizmor_finds_no_security_problem():
    done = subprocess.run([tool("zizmor"), "--offline", "--persona", "auditor", str(WORKFLOWS.parent)],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr  # ignored ones carry a reason in the file


def uses_lines() -> list[tuple[str, str, str, str]]:
    """(file, action, ref, comment) of every remote ``uses:`` line."""
    found = []
    for name in NAMES:
        for action, ref, comment in re.findall(r"uses:\s*([\w.-]+/[\w./-]+)@(\S+)[ \t]*(#[^\n]*)?", text(name)):
            found.append((name, action, ref, comment))
    return found


def test_every_action_is_pinned_to_a_sha_whose_comment_names_a_version_on_the_current_major():
    lines = uses_lines()
    assert {action for _, action, _, _ in lines} == set(CURRENT_MAJOR)
    shas: dict[str, set[str]] = {}
    for name, action, ref, comment in lines:
        assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{name}: {action}@{ref} is not pinned to a commit SHA"
        version = re.fullmatch(r"# v(\d+)\.(\d+)\.(\d+)", comment.strip())
        assert version, f"{name}: {action}@{ref} needs a '# vX.Y.Z' comment, has {comment!r}"
        assert int(version.group(1)) == CURRENT_MAJOR[action], f"{name}: {action} {comment} is not on v{CURRENT_MAJOR[action]}"
        shas.setdefault(action, set()).add(ref)
    assert all(len(refs) == 1 for refs in shas.values()), shas  # one pin per action across the workflows
    local = [u for n in NAMES for u in re.findall(r"uses:\s*(\./\S+)", text(n))]
    assert local == ["./.github/workflows/pages.yml"]


def test_the_ci_container_is_pinned_by_digest():
    image = re.search(r"image:\s*(\S+)", text("ci.yml")).group(1)
    assert re.fullmatch(r"python:3\.12-bookworm@sha256:[0-9a-f]{64}", image), image


def job(workflow: str, name: str) -> str:
    """The text of one job of a workflow (from its key to the next job key)."""
    body = text(workflow).split("\njobs:\n", 1)[1]
    parts = re.split(r"^  (?=[\w-]+:\n)", body, flags=re.M)
    return next(p for p in parts if p.startswith(f"{name}:"))


def test_collect_runs_off_the_hour_one_at_a_time_and_only_a_job_without_secrets_can_write():
    collect = text("collect.yml")
    assert 'cron: "4,19,34,49 * * * *"' in collect and "workflow_dispatch:" in collect
    assert "cancel-in-progress: false" in collect
    assert re.search(r"^permissions: \{\}$", collect, re.M)
    tick, commit = job("collect.yml", "tick"), job("collect.yml", "commit")
    # the tick: secrets from the deployment environment, a read-only token, no persisted credentials
    assert "environment: collector" in tick and "secrets.OPENROUTER_API_KEY" in tick
    assert re.search(r"permissions:\n\s+contents: read\n\s+outputs:", tick)
    assert "persist-credentials: false" in tick and "contents: write" not in tick
    # the commit job can write but holds no secret; the only project code it runs is the guard
    # (installed from the lock) and the stdlib unpacker, never `tar -x` on the tick's tar
    assert "contents: write" in commit and "secrets." not in commit
    assert re.findall(r"\bprematch (\w+)", commit) == ["guard"] and "tar -x" not in commit
    assert "python3 -I .github/scripts/unpack_tick.py tick.tar" in commit
    assert "git config core.hooksPath /dev/null" in commit and "-c core.hooksPath=/dev/null commit" in commit
    assert "actions/attest@" in commit and ".attestation.jsonl" in commit
    assert "models --check" not in tick  # the tick checks each model itself: one rejected model stops nothing else
    command = re.search(r"prematch tick[^\n;]*", tick).group(0)
    assert "--clock live" in command and '--schedule "${SCHEDULE}"' in command  # live records, delay recorded
    assert "SCHEDULE: ${{ github.event.schedule }}" in tick


REPORTS_STEP = "Match reports from API-Football (once a day from 06:00 UTC; off without API_FOOTBALL_KEY)"


@pytest.mark.parametrize(("tick_at", "asked"), [("2026-06-11T05:59:59Z", False), ("2026-06-11T06:04:10Z", True),
                                                ("2026-06-11T07:41:00Z", True), ("2026-06-11T23:49:30Z", True)])
@pytest.mark.parametrize("succeeds", [True, False])
def test_the_daily_reports_are_asked_at_the_first_tick_from_six_whenever_it_runs(tmp_path, tick_at, asked, succeeds):
    """A tick GitHub started late (07:41, 23:49) still asks for the day's reports; a failed ask is
    marked too (the quota is not spent again every 15 minutes) and turns the run red."""
    stand_in = tmp_path / "bin" / "prematch"
    stand_in.parent.mkdir()
    stand_in.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/calls"\nexit {0 if succeeds else 1}\n')
    stand_in.chmod(0o755)
    output = tmp_path / "github_output"
    output.write_text("")
    env = {**os.environ, "TICK_AT": tick_at, "GITHUB_OUTPUT": str(output),
           "PATH": f"{stand_in.parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-e", "-c", step_script(REPORTS_STEP)], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    calls = (tmp_path / "calls").read_text() if (tmp_path / "calls").exists() else ""
    assert (calls == "reports --source api-football --clock live\n") is asked
    assert ("asked=true" in output.read_text()) is asked and (tmp_path / ".reports-asked").exists() is asked
    assert ("failed=true" in output.read_text()) is (asked and not succeeds)


def test_the_reports_mark_is_one_cache_entry_per_utc_day_looked_up_before_and_saved_after():
    tick = job("collect.yml", "tick")
    key = "key: api-football-reports-${{ steps.tick.outputs.day }}"
    assert 'echo "day=${tick_at%%T*}" >> "$GITHUB_OUTPUT"' in tick  # the tick's UTC date, 2026-06-11
    looked_up = tick.index("actions/cache/restore@")
    asked = tick.index(f"name: {REPORTS_STEP}")
    saved = tick.index("actions/cache/save@")
    assert looked_up < asked < saved and tick.count(key) == 2
    assert "lookup-only: true" in tick and "if: steps.reports-asked.outputs.cache-hit != 'true'" in tick
    assert "if: steps.reports.outputs.asked == 'true'" in tick


def test_keepalive_enables_the_scheduled_workflows_through_the_api():
    keepalive = text("keepalive.yml")
    assert re.search(r"cron: \"\d+ \d+ [\d,]+ \* \*\"", keepalive)  # at least twice a month: well inside 60 days
    assert "actions: write" in keepalive and "contents: write" not in keepalive
    assert 'actions/workflows/${workflow}/enable' in keepalive and "collect.yml" in keepalive


def commit_step() -> str:
    """The shell script of collect.yml's commit step, as the runner sees it."""
    return step_script("Commit archive/, check it with the guard, push")


def step_script(step_name: str, workflow: str = "collect.yml") -> str:
    """The shell script of the ``workflow`` step named ``step_name``."""
    lines = text(workflow).splitlines()
    start = next(i for i, line in enumerate(lines) if f"name: {step_name}" in line)
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


def github_remote(tmp_path: Path, seed) -> tuple[Path, Path, Path]:
    """A bare 'GitHub' remote, someone's clone that ``seed(tree)`` filled and pushed to main, and the runner's clone."""
    remote, author, runner = tmp_path / "remote.git", tmp_path / "other", tmp_path / "runner"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    subprocess.run(["git", "clone", "-q", str(remote), str(author)], check=True, capture_output=True)
    git(author, "config", "user.email", "o@example.invalid")
    git(author, "config", "user.name", "o")
    seed(author)
    git(author, "add", ".")
    git(author, "commit", "-q", "-m", "start")
    git(author, "push", "-q", "origin", "main")
    subprocess.run(["git", "clone", "-q", str(remote), str(runner)], check=True, capture_output=True)
    return remote, author, runner


@pytest.fixture
def clones(tmp_path):
    """A bare 'GitHub' remote and two clones: the runner's and someone else's."""

    def seed(tree: Path) -> None:
        (tree / "archive").mkdir()
        (tree / "archive/a.json").write_text("{}\n")

    remote, other, runner = github_remote(tmp_path, seed)
    return remote, runner, other


def run_step(runner: Path, tmp_path: Path) -> tuple[subprocess.CompletedProcess, str]:
    output = tmp_path / "github_output"
    output.write_text("")
    env = {**os.environ, "TICK_AT": "2026-06-11T18:45:00Z", "BRANCH": "main", "GITHUB_OUTPUT": str(output)}
    env["PUSH_BACKOFF_SECONDS"] = "0"
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # `python` has Prematch, as installed
    done = subprocess.run(["bash", "-e", "-c", commit_step()], cwd=runner, env=env, capture_output=True, text=True)
    return done, output.read_text()


def test_tick_with_nothing_due_makes_no_commit(clones, tmp_path):
    remote, runner, _ = clones
    before = git(remote, "rev-parse", "main")
    (runner / "notes.txt").write_text("not archive\n")
    done, output = run_step(runner, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "pushed=false" in output and git(remote, "rev-parse", "main") == before


@pytest.mark.slow
def test_tick_commits_only_archive_and_rebases_when_main_moved(clones, tmp_path):
    remote, runner, other = clones
    [added] = write_records(runner / "archive", [make_event()])  # a valid record: the guard passes it
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
    assert git(remote, "show", "--name-only", "--format=", "main").splitlines() == [f"archive/{added}"]
    assert git(remote, "log", "--format=%s", "main").splitlines()[1] == "other"
    assert done.stdout.count("guard: OK, 1 archive file(s) added since origin/main") == 2  # before each push


@pytest.mark.slow
def test_the_commit_step_pushes_nothing_the_guard_refuses_and_runs_no_hook(clones, tmp_path):
    remote, runner, _ = clones
    before = git(remote, "rev-parse", "main")
    [added] = write_records(runner / "archive", [make_event()])
    (runner / "archive" / added).write_text('{"kind": "event"}\n')  # not a valid record
    hook = runner / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\ntouch hook-ran\n")
    hook.chmod(0o755)
    done, output = run_step(runner, tmp_path)
    assert done.returncode == 1 and "pushed=" not in output
    assert f"problem: archive/{added}: added file does not validate" in done.stderr
    assert "the append-only guard refused the tick commit; nothing pushed" in done.stdout
    assert git(remote, "rev-parse", "main") == before and not (runner / "hook-ran").exists()


# -- the commit job's unpacking of the tick's tar ---------------------------------------------

def unpacker():
    """``.github/scripts/unpack_tick.py``, loaded as the workflow runs it (a standalone file)."""
    spec = importlib.util.spec_from_file_location("unpack_tick", REPO_ROOT / ".github/scripts/unpack_tick.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tar_of(path: Path, *members: tuple[str, str, bytes | str]) -> Path:
    """A tar with members (kind, name, content-or-link-target): kind is file, dir, symlink, hardlink or fifo."""
    kinds = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE, "symlink": tarfile.SYMTYPE,
             "hardlink": tarfile.LNKTYPE, "fifo": tarfile.FIFOTYPE}  # fmt: skip
    with tarfile.open(path, "w") as out:
        for kind, name, value in members:
            info = tarfile.TarInfo(name)
            info.type = kinds[kind]
            data = value if isinstance(value, bytes) else b""
            if kind in ("symlink", "hardlink"):
                info.linkname = value
            info.size = len(data)
            out.addfile(info, io.BytesIO(data) if data else None)
    return path


def run_unpack(tar: Path, dest: Path) -> subprocess.CompletedProcess:
    """The commit job's command line: ``python3 -I .github/scripts/unpack_tick.py tick.tar``."""
    script = REPO_ROOT / ".github/scripts/unpack_tick.py"
    return subprocess.run([sys.executable, "-I", str(script), str(tar)], cwd=dest, capture_output=True, text=True)


def test_the_unpacker_writes_new_regular_files_under_archive(tmp_path):
    dest = tmp_path / "checkout"
    (dest / "archive/wc").mkdir(parents=True)
    tar = tar_of(tmp_path / "tick.tar", ("file", "archive/wc/events/e/event.r000.json", b"{}\n"),
                 ("file", "archive/manifests/2026/T.alpha.tsr", b"\x30\x03"))
    done = run_unpack(tar, dest)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["archive/wc/events/e/event.r000.json", "archive/manifests/2026/T.alpha.tsr"]
    assert (dest / "archive/manifests/2026/T.alpha.tsr").read_bytes() == b"\x30\x03"


@pytest.mark.parametrize("kind,name,value,why", [
    ("file", ".git/hooks/pre-commit", b"#!/bin/sh\ntouch pwned\n", "is outside archive/"),
    ("file", "archive/.git/hooks/pre-commit", b"x", "has the path part '.git'"),
    ("file", "archive/../.git/config", b"x", "has the path part '..'"),
    ("file", "../x", b"x", "is outside archive/"),
    ("file", "/etc/cron.d/x", b"x", "is not a relative POSIX path"),
    ("file", "README.md", b"x", "is outside archive/"),
    ("file", "archive/wc/.gitattributes", b"* filter=x", "has the path part '.gitattributes'"),
    ("file", "archive//x.json", b"x", "has the path part ''"),
    ("symlink", "archive/x.json", "/etc/passwd", "is a symbolic link"),
    ("hardlink", "archive/y.json", "archive/x.json", "is a hard link"),
    ("dir", "archive/wc", b"", "is a directory"),
    ("fifo", "archive/f", b"", "is a device or FIFO"),
    ("file", "archive/existing.json", b"{}", "names a file that already exists"),
])  # fmt: skip
def test_the_unpacker_refuses_a_hostile_tar_whole_naming_the_member(tmp_path, kind, name, value, why):
    dest = tmp_path / "checkout"
    (dest / "archive").mkdir(parents=True)
    (dest / "archive/existing.json").write_text("kept\n")
    tar = tar_of(tmp_path / "tick.tar", ("file", "archive/good.json", b"{}\n"), (kind, name, value))
    done = run_unpack(tar, dest)
    assert done.returncode == 1 and done.stdout == ""
    assert f"problem: {tar}: member {name!r}: {why}" in done.stderr
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*")) == ["archive", "archive/existing.json"]
    assert (dest / "archive/existing.json").read_text() == "kept\n" and not (tmp_path / "pwned").exists()


def test_the_unpacker_names_every_bad_member_and_a_member_twice(tmp_path):
    tar = tar_of(tmp_path / "tick.tar", ("file", "archive/a.json", b"1"), ("file", "archive/a.json", b"2"),
                 ("symlink", "archive/l", "../../x"), ("file", ".git/hooks/post-checkout", b"x"))
    (tmp_path / "archive").mkdir()
    written, problems = unpacker().unpack(tar, tmp_path)
    assert written == [] and problems == [
        "member 'archive/a.json': appears twice in the tar",
        "member 'archive/l': is a symbolic link; only regular files are unpacked",
        "member '.git/hooks/post-checkout': is outside archive/",
    ]


def test_the_unpacker_never_writes_through_a_linked_folder(tmp_path):
    dest, outside = tmp_path / "checkout", tmp_path / "outside"
    (dest / "archive").mkdir(parents=True)
    outside.mkdir()
    (dest / "archive/wc").symlink_to(outside)
    tar = tar_of(tmp_path / "tick.tar", ("file", "archive/wc/x.json", b"{}"))
    written, problems = unpacker().unpack(tar, dest)
    assert written == [] and len(problems) == 1 and "is not a folder (a link or a file)" in problems[0]
    assert list(outside.iterdir()) == []


def test_the_commit_job_unpacks_with_the_script_before_anything_else_reads_the_tar():
    commit = job("collect.yml", "commit")
    unpack = step_script("Unpack the tick's files")
    assert unpack.startswith("python3 -I .github/scripts/unpack_tick.py tick.tar && rm tick.tar\n")
    assert commit.index("unpack_tick.py") < commit.index("actions/attest@") < commit.index("pip install")


def test_the_tick_job_packs_exactly_the_new_archive_files(clones, tmp_path):
    """What the read-only job hands to the committing one: new files under archive/, no temporary ones."""
    _, runner, _ = clones
    (runner / "archive/manifests/2026").mkdir(parents=True)
    (runner / "archive/manifests/2026/20260611T184500000000Z.json").write_text("{}\n")
    (runner / "archive/manifests/2026/20260611T184500000000Z.alpha.tsr").write_bytes(b"\x30\x03")
    (runner / "archive/.x.json.1.ab.tmp").write_text("{")
    (runner / "archive/a.json").write_text("changed\n")  # a tracked file: never packed
    (runner / "stray.txt").write_text("not archive\n")
    output = tmp_path / "out"
    output.write_text("")
    env = {**os.environ, "GITHUB_OUTPUT": str(output)}
    done = subprocess.run(["bash", "-e", "-c", step_script("Pack the new archive files")], cwd=runner, env=env,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "changed=true" in output.read_text()
    listed = subprocess.run(["tar", "-tf", str(runner / "tick.tar")], capture_output=True, text=True).stdout.split()
    assert sorted(listed) == ["archive/manifests/2026/20260611T184500000000Z.alpha.tsr",
                              "archive/manifests/2026/20260611T184500000000Z.json"]


@pytest.mark.slow
def test_the_commit_job_stores_the_bundle_as_verify_reads_it(tmp_path):
    """The bundle step, run as the runner runs it, on a one-line and a pretty-printed bundle."""
    from collector.audit.attestations import subject_digests
    from tests.test_timestamps import bundle

    digest = "ab" * 32
    for name, body in (("one-line", bundle(digest)), ("pretty", json.dumps(json.loads(bundle(digest)), indent=2).encode())):
        source = tmp_path / f"{name}.json"
        source.write_bytes(body)
        manifest = tmp_path / f"{name}/manifests/2026/20260611T184500000000Z.json"
        manifest.parent.mkdir(parents=True)
        env = {**os.environ, "BUNDLE": str(source), "MANIFEST": str(manifest)}
        done = subprocess.run(["bash", "-e", "-c", step_script("Store the attestation bundle beside the manifest")],
                              env=env, capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr
        stored = manifest.with_name("20260611T184500000000Z.attestation.jsonl").read_bytes()
        assert stored.count(b"\n") == 1 and subject_digests(stored) == [digest]


def test_the_pages_build_renders_from_the_page_cache_the_actions_cache_keeps():
    build = job("pages.yml", "build")
    kept = re.search(r"uses: actions/cache@\S+.*\n\s+with:\n\s+path: \$\{\{ runner\.temp \}\}/(\S+)\n\s+key: (.+)\n"
                     r"\s+restore-keys: (\S+)", build)
    assert kept, "the pages build keeps no cache"
    assert kept.group(2).startswith(kept.group(3))  # a new entry per run, restored from the newest earlier one
    command = re.search(r"run: (prematch build .*)", build).group(1)
    assert f'--cache "$RUNNER_TEMP/{kept.group(1)}"' in command
    assert build.index("actions/cache@") < build.index("prematch build")
