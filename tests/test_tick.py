"""End to end: ``python -m collector tick`` on the real 2026 World Cup fixtures against a local server."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from collector.records import ForecastStatus
from tests.collection_helpers import FAKE_KEY, TEST_LLM

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

CONFIG = """
[arena]
competitions = ["worldcup-2026"]
concurrency = 8
spending_cap_usd = 50
""" + TEST_LLM


def run_cli(tmp_path: Path, data_dir: Path, now: str) -> int:
    config = tmp_path / "arena.toml"
    config.write_text(CONFIG)
    args = ["tick", "--now", now, "--config", str(config), "--archive", str(tmp_path / "archive"),
            "--data-dir", str(data_dir)]  # fmt: skip
    return main(args)


def test_tick_writes_exactly_the_due_forecasts_then_nothing(tmp_path, data_dir, server, capsys):
    run_cli(tmp_path, data_dir, "2026-06-10T12:00:00Z")
    archive = load_archive(tmp_path / "archive")
    assert archive.problems == []
    group_events = [e for e in archive.events.values() if e.stage == "group"]
    assert len(group_events) == 72 and len(archive.events) == 72  # knockout pairings not yet known
    assert len(archive.questions) == 15  # 12 group winners, semifinalists, champion, top scorer's team
    # Due on 10 June 12:00: the stage-opening forecasts (group stage and questions), 4 cells each.
    # The opener kicks off 11 June 19:00, so its T-24h window (from 10 June 19:00) is not open yet.
    forecasts = archive.forecasts
    assert len(forecasts) == (72 + 15) * 4 == len(server.seen)
    assert {f.horizon.value for f in forecasts} == {"stage_opening"}
    assert Counter(f.status for f in forecasts) == {ForecastStatus.VALID: 348}
    assert all(f.requested_at < f.kickoff_utc for f in forecasts)
    assert len({f.key() for f in forecasts}) == 348
    out = capsys.readouterr().out
    assert "forecasts due 348, produced 348, missed 0" in out

    before = set(p.relative_to(tmp_path / "archive") for p in (tmp_path / "archive").rglob("*.json"))
    run_cli(tmp_path, data_dir, "2026-06-10T12:00:00Z")
    after = set(p.relative_to(tmp_path / "archive") for p in (tmp_path / "archive").rglob("*.json"))
    assert after == before and len(server.seen) == 348
    assert "0 file(s) written" in capsys.readouterr().out


def test_api_key_appears_nowhere(tmp_path, data_dir, server, capsys, caplog):
    run_cli(tmp_path, data_dir, "2026-06-10T19:30:00Z")  # T-24h of the opener is open now too
    assert {s["auth"] for s in server.seen} == {f"Bearer {FAKE_KEY}"}  # the key was really used
    texts = [p.read_text() for p in tmp_path.rglob("*") if p.is_file() and p.name != "arena.toml"]
    captured = capsys.readouterr()
    assert texts and all(FAKE_KEY not in t for t in texts)
    assert FAKE_KEY not in captured.out + captured.err + caplog.text
    statuses = Counter(f.horizon.value for f in load_archive(tmp_path / "archive").forecasts)
    assert statuses["t_minus_24h"] == 4  # Mexico v South Africa, 4 cells


def test_tick_after_the_opener_kicked_off_requests_nothing_for_it(tmp_path, data_dir, server):
    run_cli(tmp_path, data_dir, "2026-06-11T19:00:00Z")
    archive = load_archive(tmp_path / "archive")
    opener = [f for f in archive.forecasts if f.target_id == "mex-v-rsa"]
    prompts = [s["body"]["messages"][-1]["content"] for s in server.seen]
    assert not any("Date UTC: 2026-06-11 19:00 UTC" in p for p in prompts)  # never asked at kickoff
    assert opener == []  # registered at kickoff: nothing was owed before, nothing may be asked now
    assert archive.questions == {}  # questions close at the first kickoff
