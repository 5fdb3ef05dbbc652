"""Endpoint forecasters in a real tick (issue 56): the reference agent's forecasts, the statuses a hostile
agent gets (the LLMs' own), the token kept out of archive, site and output, and sent to its URL only.

Each test runs ``python -m collector tick`` on the real 2026 World Cup fixtures at a time when the group
stage's stage-opening window is open, with the ``uniform`` baseline beside one or two agents on 127.0.0.1.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from builder.cli import main as builder_main
from collector.archive.reader import load_archive
from collector.cli import main
from collector.forecasters.endpoint_protocol import PROTOCOL_VERSION, EndpointTask
from collector.records import ForecasterType, ForecastStatus
from tests.fake_agent import ARENA, TOKEN, serve_hostile, serve_reference
from tests.secret_search import folder_occurrences

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

NOW = "2026-06-10T12:00:00Z"
CONFIG = ARENA + """concurrency = 8
[[forecasters]]
id = "uniform"
type = "baseline"
"""
AGENT = """
[[forecasters]]
id = "{id}"
type = "endpoint"
endpoint = {{ url = "{url}", token_env = "{env}", timeout_s = {timeout}, max_calls_per_tick = {calls}, max_attempts = 1 }}
"""


def tick(tmp_path: Path, data_dir: Path, *agents: tuple[str, str, str], calls: int = 500, timeout: float = 20) -> int:
    config = tmp_path / "arena.toml"
    config.write_text(CONFIG + "".join(AGENT.format(id=i, url=u, env=e, calls=calls, timeout=timeout)
                                       for i, u, e in agents))
    return main(["tick", "--now", NOW, "--config", str(config), "--archive", str(tmp_path / "archive"),
                 "--data-dir", str(data_dir)])  # fmt: skip


def agent_records(tmp_path: Path, agent: str = "agent"):
    return [f for f in load_archive(tmp_path / "archive").forecasts if f.forecaster == agent]


def test_the_reference_agent_forecasts_in_the_tick_beside_the_baseline(tmp_path, data_dir, monkeypatch):
    monkeypatch.setenv("AGENT_TOKEN", TOKEN)
    with serve_reference(token=TOKEN) as agent:
        assert tick(tmp_path, data_dir, ("agent", agent.url, "AGENT_TOKEN")) == 0
    archive = load_archive(tmp_path / "archive")
    mine = [f for f in archive.forecasts if f.forecaster == "agent"]
    baseline = [f for f in archive.forecasts if f.forecaster == "uniform" and f.target_kind == "match"]
    assert len(mine) == len(baseline) == 72
    assert {f.status for f in mine} == {ForecastStatus.VALID}
    first = mine[0]
    assert first.forecaster_type is ForecasterType.ENDPOINT and first.payload.home_win_90 == 0.45
    assert first.endpoint.model_dump() == {"protocol_version": PROTOCOL_VERSION, "name": "prematch-reference-agent",
                                           "version": "1.0.0", "cost_usd": 0.0}
    # one tick, one manifest: the agent's records and the baseline's are committed together
    (manifest,) = archive.manifests
    paths = {id(r): p for p, r in archive.records.items()}
    assert {paths[id(f)] for f in mine + baseline} <= set(manifest.files)
    for f in mine:  # asked inside the window, before kickoff
        assert f.scheduled_at <= f.requested_at < f.kickoff_utc


def test_the_task_holds_the_match_and_the_prompt_and_no_other_forecasters_answer(tmp_path, data_dir, monkeypatch):
    monkeypatch.setenv("AGENT_TOKEN", TOKEN)
    with serve_hostile("valid") as agent:
        assert tick(tmp_path, data_dir, ("agent", agent.url, "AGENT_TOKEN"), calls=5) == 0
        requests = list(agent.server.requests)
    assert len(requests) == 5  # max_calls_per_tick: the other keys wait for the next tick
    assert len(agent_records(tmp_path)) == 5
    uniform_texts = {orjson.dumps(f.payload.model_dump(mode="json")).decode()
                     for f in load_archive(tmp_path / "archive").forecasts if f.forecaster == "uniform"}
    for request in requests:
        task = EndpointTask.model_validate_json(request["body"])  # the published protocol
        assert task.role == "first" and task.match is not None and task.evidence is None
        assert task.match.home.name in task.prompt and task.match.away.name in task.prompt
        body = request["body"].decode()
        assert "uniform" not in body and not any(text in body for text in uniform_texts)
        assert request["headers"]["Authorization"] == f"Bearer {TOKEN}"


@pytest.mark.parametrize(("mode", "status", "calls"), [
    ("late", ForecastStatus.TIMEOUT, 1),
    ("huge", ForecastStatus.API_ERROR, 1),
    ("invalid_json", ForecastStatus.INVALID_AFTER_REPAIR, 2),
    ("invalid_schema", ForecastStatus.INVALID_AFTER_REPAIR, 2),
    ("invalid_then_valid", ForecastStatus.REPAIRED, 2),
])
def test_a_hostile_agent_gets_the_llm_statuses(tmp_path, data_dir, monkeypatch, mode, status, calls):
    monkeypatch.setenv("AGENT_TOKEN", TOKEN)
    with serve_hostile(mode) as agent:  # a late answer comes after 3 s: the timeout is 1 s there
        tick(tmp_path, data_dir, ("agent", agent.url, "AGENT_TOKEN"), calls=4, timeout=1 if mode == "late" else 20)
    records = agent_records(tmp_path)
    assert records and {f.status for f in records} == {status}
    assert {len(f.attempts) for f in records} == {calls}
    if mode == "huge":
        assert records[0].attempts[0].error_kind == "oversized" and records[0].attempts[0].response_truncated
    if mode == "late":
        assert records[0].attempts[0].timed_out
    if mode == "invalid_then_valid":
        assert records[0].validation.repaired and records[0].payload is not None
        assert records[0].attempts[1].request_body["role"] == "repair"


@pytest.mark.slow  # a tick and a site build
def test_an_agent_echoing_its_token_leaves_it_nowhere(tmp_path, data_dir, monkeypatch, capsys):
    monkeypatch.setenv("AGENT_TOKEN", TOKEN)
    with serve_hostile("echo_token") as agent:
        tick(tmp_path, data_dir, ("agent", agent.url, "AGENT_TOKEN"), calls=4)
    records = agent_records(tmp_path)
    assert records and Counter(f.status for f in records) == Counter({ForecastStatus.VALID: len(records)})
    assert builder_main(["build", "--archive", str(tmp_path / "archive"), "--out", str(tmp_path / "site"),
                         "--no-cache", "--quiet"]) == 0
    out = capsys.readouterr()
    assert folder_occurrences(tmp_path / "archive", TOKEN) == {}
    assert folder_occurrences(tmp_path / "site", TOKEN) == {}
    assert TOKEN not in out.out + out.err and TOKEN.lower() not in (out.out + out.err).lower()


def test_the_token_goes_to_its_url_only(tmp_path, data_dir, monkeypatch):
    """Two agents with their own tokens; one redirects elsewhere (not followed: the token stays home)."""
    monkeypatch.setenv("AGENT_TOKEN", TOKEN)
    monkeypatch.setenv("OTHER_TOKEN", "other-token-9876543210zyxwvu")
    with serve_hostile("none") as elsewhere, serve_hostile("redirect", elsewhere=elsewhere.url) as first, \
            serve_hostile("valid") as second:
        tick(tmp_path, data_dir, ("agent", first.url, "AGENT_TOKEN"), ("other", second.url, "OTHER_TOKEN"), calls=4)
        assert elsewhere.server.requests == []
        assert {r["headers"]["Authorization"] for r in first.server.requests} == {f"Bearer {TOKEN}"}
        assert {r["headers"]["Authorization"] for r in second.server.requests} == {"Bearer other-token-9876543210zyxwvu"}
    assert {f.status for f in agent_records(tmp_path)} == {ForecastStatus.INVALID_AFTER_REPAIR}


def test_a_missing_token_is_a_problem_and_the_others_go_on(tmp_path, data_dir, monkeypatch, capsys):
    monkeypatch.delenv("AGENT_TOKEN", raising=False)
    assert tick(tmp_path, data_dir, ("agent", "http://127.0.0.1:9/", "AGENT_TOKEN")) == 1
    assert "AGENT_TOKEN is not set" in capsys.readouterr().err
    assert agent_records(tmp_path) == [] and len(agent_records(tmp_path, "uniform")) == 73  # the tournament too


def test_under_evidence_package_the_task_holds_the_frozen_evidence_record(tmp_path, data_dir, monkeypatch):
    monkeypatch.setenv("AGENT_TOKEN", TOKEN)
    config = tmp_path / "arena.toml"
    config.write_text(CONFIG.replace('access = ["closed_book"]', 'access = ["evidence_package"]')
                      + AGENT.format(id="agent", url="{url}", env="AGENT_TOKEN", calls=3, timeout=20))
    with serve_hostile("valid") as agent:
        config.write_text(config.read_text().replace("{url}", agent.url))
        main(["tick", "--now", NOW, "--config", str(config), "--archive", str(tmp_path / "archive"),
              "--data-dir", str(data_dir)])  # fmt: skip
        requests = list(agent.server.requests)
    archive = load_archive(tmp_path / "archive")
    records = agent_records(tmp_path)
    assert len(requests) == len(records) == 3 and {f.status for f in records} == {ForecastStatus.VALID}
    for record in records:
        package = archive.records[record.evidence.path]  # the record names the package its task held
        sent = next(EndpointTask.model_validate_json(r["body"]) for r in requests
                    if orjson.loads(r["body"])["match"]["id"] == record.target_id)
        assert sent.access == "evidence_package" and sent.evidence == package.model_dump(mode="json")
