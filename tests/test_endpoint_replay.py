"""A replay with an endpoint forecaster served by the reference agent on 127.0.0.1 (issue 56): valid forecasts
at every horizon, scored and ranked on the built site beside the baselines."""

from __future__ import annotations

import orjson
import pytest

from builder.cli import main as builder_main
from collector.archive.reader import load_archive
from collector.cli import main
from collector.records import ForecastStatus, Horizon
from tests.fake_agent import ARENA, TOKEN, serve_reference

CONFIG = ARENA + """[[forecasters]]
id = "uniform"
type = "baseline"
[[forecasters]]
id = "base_rate"
type = "baseline"
[[forecasters]]
id = "reference-agent"
type = "endpoint"
endpoint = {{ url = "{url}", token_env = "AGENT_TOKEN", timeout_s = 20 }}
"""
HORIZONS = {Horizon.STAGE_OPENING, Horizon.T_MINUS_24H, Horizon.T_MINUS_2H}


@pytest.mark.slow  # a replay of the first two matches (every horizon) and a site build
def test_a_replay_with_the_reference_agent_is_scored_and_ranked_beside_the_baselines(tmp_path, data_dir, monkeypatch,
                                                                                      capsys):
    monkeypatch.setenv("AGENT_TOKEN", TOKEN)
    config = tmp_path / "arena.toml"
    with serve_reference(token=TOKEN) as agent:
        config.write_text(CONFIG.format(url=agent.url))
        assert main(["replay", "worldcup-2026", "--config", str(config), "--out", str(tmp_path / "replay"),
                     "--data-dir", str(data_dir), "--until", "2026-06-12T06:00:00Z"]) == 0
    assert main(["verify", "--repo", str(tmp_path / "replay")]) == 0  # the agent's request times agree with the commits
    assert "requested_after_commit" not in capsys.readouterr().out
    archive = load_archive(tmp_path / "replay" / "archive")
    mine = [f for f in archive.forecasts if f.forecaster == "reference-agent"]
    assert {f.status for f in mine} == {ForecastStatus.VALID}
    finished = {key[1] for key, o in archive.outcomes.items() if o.status.has_result}
    assert len(finished) == 2
    for event in finished:  # every horizon of every finished match, by the agent
        assert {f.horizon for f in mine if f.target_id == event} == HORIZONS
    assert builder_main(["build", "--archive", str(tmp_path / "replay" / "archive"), "--out", str(tmp_path / "site"),
                         "--no-cache", "--quiet"]) == 0
    rows = [r for r in orjson.loads((tmp_path / "site" / "data" / "leaderboard.json").read_bytes()) if r["view"] == "all"]
    for horizon in HORIZONS:
        cells = {r["forecaster"]: r for r in rows if r["horizon"] == horizon.value}
        assert set(cells) == {"uniform", "base_rate", "reference-agent"}
        agent_row = cells["reference-agent"]
        assert agent_row["forecaster_type"] == "endpoint" and agent_row["ranked"] and agent_row["n"] == 2
        assert agent_row["brier"] < cells["uniform"]["brier"]  # base rates beat the uniform forecast on these two
    page = (tmp_path / "site" / "index.html").read_text()
    assert "reference-agent" in page and "base_rate" in page and "uniform" in page
    agent_page = (tmp_path / "site" / "forecasters" / "reference-agent.html").read_text()
    assert "An outside agent" in agent_page and "prematch-reference-agent 1.0.0" in agent_page
    assert TOKEN not in capsys.readouterr().out
