"""The LLM ``full_tournament`` task end to end: a tick against the local OpenRouter-format server.

For the 48-team 2026 World Cup (the shipped definition) and for two past tournaments defined by
``define-competition`` from the shared data: Euro 2020 (24 teams, four best thirds) and the 2014
World Cup (32 teams). Each tick asks the group matches, then the knockouts that the answer's own
tables produce; one wrong pairing gets one repair that quotes it.
"""

from __future__ import annotations

import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from collector.forecasters.tournament.bracket import (
    derived_places,
    pairing_mismatches,
    predicted_tables,
)
from collector.records import AttemptRole, ForecastStatus
from tests.collection_helpers import TEST_LLM

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

FORECASTER = TEST_LLM + """
access = ["closed_book"]
strategies = ["probabilistic_forecast"]
options = { full_tournament = true }
"""
CASES = {  # id: (define-competition file or None for the shipped definition, tick time, groups, knockout matches)
    "worldcup-2026": (None, [], "2026-06-10T12:00:00Z", 12, 32),
    "euro-2020": ("openfootball/euro-2020/euro.json", ["--time-zone", "Europe/Berlin"], "2021-06-10T12:00:00Z", 6, 15),
    "worldcup-2014": ("openfootball/worldcup-2014/worldcup.json", [], "2014-06-11T12:00:00Z", 8, 16),
}


def _arena(tmp_path, data_dir, cid):
    file, extra, *_ = CASES[cid]
    config = tmp_path / "arena.toml"
    head = f'[arena]\ncompetitions = ["{cid}"]\nspending_cap_usd = 50\n'
    if file is not None:
        (tmp_path / "competitions").mkdir()
        head += 'competitions_dir = "competitions"\n'
        config.write_text(head + FORECASTER)
        assert main(["define-competition", cid, "--from", file, "--data-dir", str(data_dir),
                     "--config", str(config), *extra]) == 0
    config.write_text(head + FORECASTER)
    return config


def _tick(tmp_path, data_dir, cid):
    config = _arena(tmp_path, data_dir, cid)
    code = main(["tick", "--now", CASES[cid][2], "--config", str(config), "--archive", str(tmp_path / "archive"),
                 "--data-dir", str(data_dir)])
    archive = load_archive(tmp_path / "archive")
    found = [f for f in archive.forecasts if f.target_kind == "tournament"]
    # Euro 2020's file has one real error (Ukraine 0-4 England's goals under Ukraine): reported, exit 1.
    assert code == (1 if cid == "euro-2020" else 0)
    assert archive.problems == [] and len(found) == 1
    return archive, found[0]


def _prompts(record):
    return [a.request_body["messages"][-1]["content"] for a in record.attempts]


@pytest.mark.parametrize("cid", list(CASES))
def test_two_calls_make_one_forecast_whose_knockouts_are_the_codes_bracket(cid, tmp_path, data_dir, server):
    archive, record = _tick(tmp_path, data_dir, cid)
    competition = archive.competitions[cid]
    _, _, _, groups, knockouts = CASES[cid]
    assert len(competition.groups) == groups
    assert record.status is ForecastStatus.VALID and record.target_id == "full-tournament"
    assert [a.role for a in record.attempts] == [AttemptRole.FIRST, AttemptRole.FIRST]
    names = [a.request_body["response_format"]["json_schema"]["name"] for a in record.attempts]
    assert names == ["full_tournament_groups", "full_tournament_knockouts"]
    payload = record.payload
    assert len(payload.group_matches) == sum(len(g.teams) * (len(g.teams) - 1) // 2 for g in competition.groups)
    assert len(payload.knockout_matches) == knockouts == len(competition.knockout_slots)
    assert pairing_mismatches(competition, payload) == []
    # The second prompt carries the tables computed from the first answer and their first-round pairings.
    tables = predicted_tables(competition, payload)
    groups_prompt, knockout_prompt = _prompts(record)
    assert "Group matches to forecast:" in groups_prompt and "Knockout matches:" not in groups_prompt
    first = min(payload.knockout_matches, key=lambda m: m.match_number)
    assert f"- match {first.match_number} " in knockout_prompt and f"{first.home} (" in knockout_prompt
    winner = next(iter(tables.values()))[0].team
    assert f"1. {winner} (" in knockout_prompt
    places = derived_places(competition, payload)
    final = max(payload.knockout_matches, key=lambda m: m.match_number)
    assert places.champion in (final.home, final.away) and len(places.semifinalists) == 4
    assert record.requested_at < record.kickoff_utc == min(e.kickoff_utc for e in archive.events_of(cid))


@pytest.mark.parametrize("cid", ["worldcup-2026", "euro-2020", "worldcup-2014"])
def test_a_wrong_pairing_gets_one_repair_that_quotes_it(cid, tmp_path, data_dir, server):
    server.httpd.wrong_pairing = True
    archive, record = _tick(tmp_path, data_dir, cid)
    assert [a.role for a in record.attempts] == [AttemptRole.FIRST, AttemptRole.FIRST, AttemptRole.REPAIR]
    assert record.status is ForecastStatus.REPAIRED and record.validation.repaired
    (error,) = record.validation.errors
    assert error.startswith("knockouts: pairing: match ") and "expected" in error and ", got " in error
    repair = _prompts(record)[2]
    assert error.removeprefix("knockouts: ") in repair  # the mismatch is quoted to the model
    assert pairing_mismatches(archive.competitions[cid], record.payload) == []  # the saved bracket is the code's


def test_an_answer_still_wrong_after_its_repair_is_recorded_invalid_with_both_attempts(tmp_path, data_dir, server,
                                                                                     monkeypatch):
    import collector.forecasters.llm.demo_answers as answers  # the fake's answers

    monkeypatch.setattr(answers, "REPAIR_MARK", "never in a prompt")  # the repair is answered wrong too
    server.httpd.wrong_pairing = True
    _, record = _tick(tmp_path, data_dir, "worldcup-2026")
    assert record.status is ForecastStatus.INVALID_AFTER_REPAIR and record.payload is None
    assert len(record.attempts) == 3 and any("after repair" in e for e in record.validation.errors)


def test_when_the_groups_are_over_one_call_gets_the_real_tables_and_pairings(tmp_path, data_dir, server):
    config = _arena(tmp_path, data_dir, "worldcup-2026")
    for now in ("2026-06-28T17:30:00Z", "2026-06-28T17:40:00Z"):  # results are written after a tick's forecasts
        assert main(["tick", "--now", now, "--config", str(config), "--archive", str(tmp_path / "archive"),
                     "--data-dir", str(data_dir)]) == 0
    archive = load_archive(tmp_path / "archive")
    (record,) = [f for f in archive.forecasts if f.target_kind == "tournament"]
    assert record.horizon.value == "groups_complete" and record.status is ForecastStatus.VALID
    assert [a.role for a in record.attempts] == [AttemptRole.FIRST]
    assert "the real final group tables" in _prompts(record)[0]
    assert record.payload.group_matches == () and len(record.payload.knockout_matches) == 32
    competition = archive.competitions["worldcup-2026"]
    real = {e.match_number: (e.home_team, e.away_team) for e in archive.events_of("worldcup-2026")
            if e.stage == "round-of-32"}
    fixed = [s.match_number for s in competition.knockout_slots if s.stage == "round-of-32"
             and "3" not in (s.home_rule[0], s.away_rule[0])]
    asked = {m.match_number: (m.home, m.away) for m in record.payload.knockout_matches}
    assert fixed and all(asked[m] == real[m] for m in fixed)
    assert record.requested_at < record.kickoff_utc == min(e.kickoff_utc for e in archive.events_of("worldcup-2026")
                                                           if e.stage == "round-of-32")
