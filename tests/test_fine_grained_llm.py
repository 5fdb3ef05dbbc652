"""The fine_grained strategy end to end: prompt with squads, validation as A.3, one repair, a tick."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from collector.forecasters.llm.fine_grained import (
    fine_grained_prompt,
    fine_grained_repair_prompt,
    validate_fine_grained,
)
from collector.forecasters.squads import squads_of
from collector.records import Access, ForecastStatus, Strategy
from tests.collection_helpers import TEST_LLM, make_event, world_cup
from tests.fake_openrouter import fine_grained_answer

CONFIG = """
[arena]
competitions = ["worldcup-2026"]
access = ["closed_book"]
strategies = ["fine_grained"]
horizons = ["t_minus_24h"]
questions = false
concurrency = 2
spending_cap_usd = 5
""" + TEST_LLM


def prompt_text(data_dir) -> str:
    return fine_grained_prompt(world_cup(), make_event(), Access.CLOSED_BOOK, squads=squads_of(world_cup(), data_dir)).text


def test_the_prompt_lists_both_squads_and_asks_for_every_part(data_dir):
    text = prompt_text(data_dir)
    assert "Prompt strategy: FINE_GRAINED" in text and "Do not use internet search" in text
    assert "Mexico (home): Raúl Rangel (GK)" in text and "South Africa (away): Ronwen Williams (GK)" in text
    assert '"fine_grained": {' in text and "shots_on_target" in text and "Home/listed first team: Mexico" in text


def test_a_valid_answer_passes_and_its_fine_grained_part_is_kept(data_dir):
    checked = validate_fine_grained(json.dumps(fine_grained_answer(prompt_text(data_dir))), make_event(),
                                    squads_of(world_cup(), data_dir))
    assert checked.ok and checked.status is ForecastStatus.VALID, checked.errors
    fg = checked.payload.fine_grained
    assert [p.name for p in fg.home_lineup.starting][0] == "Raúl Rangel" and fg.statistics.corners.home == 6
    assert checked.diagnostics["squad_checked"] is True


def test_each_a3_constraint_is_named_when_broken(data_dir):
    squads, event = squads_of(world_cup(), data_dir), make_event()
    broken = fine_grained_answer(prompt_text(data_dir), broken=True)  # 10 home starters, result "draw"
    checked = validate_fine_grained(json.dumps(broken), event, squads)
    assert checked.status is ForecastStatus.INVALID_SCHEMA
    assert any("home_lineup.starting" in e and "at least 11" in e for e in checked.errors)
    assert "fine_grained.result is draw but the largest 90-minute probability is home" in checked.errors
    answer = fine_grained_answer(prompt_text(data_dir))
    answer["fine_grained"]["away_lineup"]["starting"][10]["name"] = "Lionel Messi"
    del answer["fine_grained"]["statistics"]["corners"]["away"]
    errors = validate_fine_grained(json.dumps(answer), event, squads).errors
    assert "fine_grained.statistics.corners.away: Field required" in errors
    answer = fine_grained_answer(prompt_text(data_dir))
    answer["fine_grained"]["away_lineup"]["starting"][10]["name"] = "Lionel Messi"
    assert validate_fine_grained(json.dumps(answer), event, squads).errors == [
        "away_lineup: 1 of the 11 starters are not in the away squad: Lionel Messi"]
    answer = fine_grained_answer(prompt_text(data_dir))
    answer["most_likely_score_90"] = {"home": 0, "away": 0}
    assert "most_likely_score_90 does not have the result of the largest 90-minute probability" in \
        validate_fine_grained(json.dumps(answer), event, squads).errors
    repair = fine_grained_repair_prompt(world_cup(), event, checked.errors, "{}", squads=squads)
    assert "Failed constraints:\n- fine_grained.home_lineup.starting" in repair
    assert "complete replacement JSON object" in repair and "Mexico (home):" in repair


@pytest.mark.slow
def test_a_fine_grained_forecast_goes_through_a_tick_with_one_repair(tmp_path: Path, data_dir, server):
    server.httpd.fine_first_bad = True
    config = tmp_path / "arena.toml"
    config.write_text(CONFIG)
    code = main(["tick", "--now", "2026-06-10T20:00:00Z", "--config", str(config), "--archive",
                 str(tmp_path / "archive"), "--data-dir", str(data_dir)])
    archive = load_archive(tmp_path / "archive")
    assert code == 0 and archive.problems == []
    [forecast] = archive.forecasts  # the opener's T-24h window is open; nothing else is due
    assert forecast.target_id == "mex-v-rsa" and forecast.strategy is Strategy.FINE_GRAINED
    assert forecast.status is ForecastStatus.REPAIRED and [a.role.value for a in forecast.attempts] == ["first",
                                                                                                      "repair"]
    assert any("at least 11" in e for e in forecast.validation.errors)  # the first answer's failures are kept
    fg = forecast.payload.fine_grained
    assert len(fg.home_lineup.starting) == 11 and fg.scorers[0].player == fg.goals[0].player
    repair_prompt = server.seen[-1]["body"]["messages"][-1]["content"]
    assert "Failed constraints:" in repair_prompt and "home_lineup.starting" in repair_prompt
    assert server.seen[0]["body"]["response_format"]["json_schema"]["schema"]["required"][-1] == "fine_grained"
