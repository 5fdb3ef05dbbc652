"""Ticks that overlap or die (issue 12): two real ``tick`` processes at once, and one killed by SIGKILL.

Both run ``python -m collector tick`` as separate processes against one local OpenRouter-format
server, on a fresh archive of the real 2026 World Cup fixtures.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from collector.archive.reader import load_archive
from collector.archive.write.manifest import unlisted
from collector.archive.write.owner import Owner, owner_now
from collector.cli import main
from collector.records import ForecastStatus
from tests.gitrepo import GitRepo

NOW = "2026-06-10T12:00:00Z"
CONFIG = """
[arena]
competitions = ["worldcup-2026"]
concurrency = 8
spending_cap_usd = 50
[openrouter]
max_attempts = 2
base_delay_s = 0
total_timeout_s = 60
[[forecasters]]
id = "test.model"
type = "llm"
model = "test/model"
version = "test/model@1"
"""
REPO = Path(__file__).resolve().parent.parent


def tick_process(root: Path, data_dir: Path, now: str = NOW) -> subprocess.Popen:
    config = root / "arena.toml"
    config.write_text(CONFIG)
    args = [sys.executable, "-m", "collector", "tick", "--now", now, "--config", str(config),
            "--archive", str(root / "archive"), "--data-dir", str(data_dir)]  # fmt: skip
    return subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
@pytest.mark.parametrize("second_now", [NOW, "2026-06-10T12:00:01Z"])  # same bytes; same content a second apart
def test_two_ticks_at_once_on_a_fresh_archive_end_with_one_record_each(tmp_path, data_dir, server, second_now):
    repo = GitRepo(tmp_path)
    first, second = tick_process(tmp_path, data_dir), tick_process(tmp_path, data_dir, second_now)
    results = [p.communicate(timeout=300) for p in (first, second)]
    for process, (out, err) in zip((first, second), results, strict=True):
        assert process.returncode == 0, err
        assert err == ""
    archive = load_archive(tmp_path / "archive")
    assert archive.problems == []
    assert len(archive.competitions) == 1 and len(archive.events) == 72 and len(archive.questions) == 15
    assert Counter(f.status for f in archive.forecasts) == {ForecastStatus.VALID: 348}
    assert len(server.seen) == 348  # no key was asked twice
    listed = {path for m in archive.manifests for path in m.files}
    written = {p for p in archive.records if not p.startswith("manifests/")}
    assert listed == written  # every file is in the manifest of the tick that wrote it
    repo.commit(repo_time(), "two ticks")
    assert main(["verify", "--repo", str(tmp_path)]) == 0


def repo_time():
    from datetime import UTC, datetime

    return datetime(2026, 6, 10, 12, 30, tzinfo=UTC)


def dead_owner() -> Owner:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    me = owner_now()
    return Owner(me.host, child.pid, "1")  # its id, and a start time no live process has


@pytest.mark.slow
def test_a_killed_tick_leaves_nothing_that_costs_a_forecast(tmp_path, data_dir, server, capsys):
    server.mode = "hang"  # every call waits: the tick is killed while it holds its keys
    victim = tick_process(tmp_path, data_dir)
    deadline = time.monotonic() + 120
    while len(server.seen) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    locks = list((tmp_path / ".prematch-locks").rglob("*.lock"))
    assert len(locks) >= 8  # the dead tick's claims are still on disk
    folder = tmp_path / "archive" / "worldcup-2026"
    leftover = folder / f".competition.r001.json.{dead_owner().token()}~abcd1234.tmp"
    leftover.write_bytes(b'{"half": ')
    orphans = unlisted(load_archive(tmp_path / "archive"))  # what the dead tick wrote before its manifest
    assert orphans
    server.mode = ""
    config = tmp_path / "arena.toml"
    code = main(["tick", "--now", NOW, "--config", str(config), "--archive", str(tmp_path / "archive"),
                 "--data-dir", str(data_dir)])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "already claimed 0" in out and "removed 1 temporary file(s) of dead writers" in out
    assert not leftover.exists()
    archive = load_archive(tmp_path / "archive")
    assert Counter(f.status for f in archive.forecasts) == {ForecastStatus.VALID: 348}
    (manifest,) = archive.manifests
    assert list(manifest.adopted) == orphans and unlisted(archive) == []  # every file under a manifest


def test_a_live_owners_lock_is_respected(tmp_path):
    from collector.schedule.scheduler import KeyLocks

    class Slot:
        path = "wc/events/a/forecasts/m/x.json"

    locks = KeyLocks(tmp_path)
    lock = tmp_path / (Slot.path + ".lock")
    lock.parent.mkdir(parents=True)
    lock.write_text(owner_now().token() + "\n")  # this very process: alive
    assert not locks.claim(Slot)
    lock.write_text(dead_owner().token() + "\n")
    assert locks.claim(Slot)
    assert Owner.parse(lock.read_text()) == owner_now()
