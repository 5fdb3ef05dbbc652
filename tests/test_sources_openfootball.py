"""The openfootball adapter: every shape, times, scores, goals, and bad input as problems."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import orjson
import pytest

from collector.competitions import load_competition, load_definition
from collector.datasource import DataSource
from collector.sources.base import MatchStatus
from collector.sources.openfootball import OpenfootballSource, parse_kickoff

T0 = datetime(2026, 5, 1, tzinfo=UTC)
WC_FILE = "openfootball/worldcup-2026/worldcup.json"
EN_FILE = "openfootball/leagues-2025-26/en.1.json"


def fetch(competition_id: str, data_dir: Path):
    definition = load_definition(competition_id)
    return OpenfootballSource(definition, DataSource(data_dir)).fetch(load_competition(competition_id, T0))


def write_data(root: Path, relative: str, document) -> Path:
    target = root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(document if isinstance(document, bytes) else orjson.dumps(document))
    return root


def test_world_cup_file_parses_completely(data_dir):
    batch = fetch("worldcup-2026", data_dir)
    assert batch.problems == []
    assert len(batch.matches) == 104
    opener = batch.matches[0]
    assert (opener.event_id, opener.group, opener.stage) == ("mex-v-rsa", "A", "group")
    assert opener.kickoff_utc == datetime(2026, 6, 11, 19, 0, tzinfo=UTC)  # 13:00 UTC-6
    assert opener.kickoff_source == "2026-06-11 13:00 UTC-6" and opener.kickoff_date == date(2026, 6, 11)
    ger_par = next(m for m in batch.matches if m.match_number == 74)
    assert ger_par.event_id == "m074" and ger_par.knockout and (ger_par.home_team, ger_par.away_team) == ("ger", "par")
    assert ger_par.score_90.as_tuple() == (1, 1) and ger_par.score_extra_time.as_tuple() == (1, 1)
    assert ger_par.score_penalties.as_tuple() == (3, 4)
    assert ger_par.kickoff_utc == datetime(2026, 6, 29, 20, 30, tzinfo=UTC)  # 16:30 UTC-4


def test_goal_minutes_stoppage_penalties_and_own_goals(data_dir):
    batch = fetch("worldcup-2026", data_dir)
    qat_sui = next(m for m in batch.matches if m.event_id == "qat-v-sui")
    own = next(g for g in qat_sui.goals if g.own_goal)
    assert (own.team, own.minute, own.stoppage, own.period) == ("qat", 90, 4, "regulation")  # "90+4"
    assert any(g.penalty and g.team == "sui" for g in qat_sui.goals)
    final = next(m for m in batch.matches if m.match_number == 104)
    assert [(g.team, g.minute, g.period) for g in final.goals] == [("esp", 106, "extra_time")]


def test_league_local_times_use_the_competition_time_zone(data_dir):
    batch = fetch("en-1-2025-26", data_dir)
    assert batch.problems == [] and len(batch.matches) == 380
    first = batch.matches[0]  # 2025-08-15 20:00 in London, British Summer Time (UTC+1)
    assert first.event_id == "liverpool-fc-v-afc-bournemouth"
    assert first.kickoff_utc == datetime(2025, 8, 15, 19, 0, tzinfo=UTC) and first.matchday == 1
    winter = [m for m in batch.matches if m.kickoff_date.month == 12 and m.kickoff_utc is not None]
    assert winter and all(m.kickoff_utc.hour == int(m.kickoff_source[-5:-3]) for m in winter)  # GMT = UTC
    postponed = [m for m in batch.matches if m.status is MatchStatus.POSTPONED]
    assert len(postponed) == 1 and postponed[0].kickoff_utc is None and postponed[0].score_90 is None


def test_date_without_time_gives_no_kickoff(data_dir):
    batch = fetch("es-1-2025-26", data_dir)
    undated = [m for m in batch.matches if m.kickoff_utc is None]
    assert undated and all(m.kickoff_source == m.kickoff_date.isoformat() for m in undated)


ROUNDS_DOC = {
    "name": "English Premier League 2025/26",
    "rounds": [
        {
            "name": "Matchday 1",
            "matches": [
                {"date": "2025-08-15", "time": "20:00", "team1": {"name": "Liverpool FC", "code": "LIV"},
                 "team2": {"name": "AFC Bournemouth", "code": "BOU"}, "score1": 4, "score2": 2,
                 "score1i": 1, "score2i": 0},
                {"date": "2025-08-16", "team1": {"name": "Aston Villa FC"},
                 "team2": {"name": "Newcastle United FC"}, "score1": None, "score2": None},
            ],
        }
    ],
}


def test_rounds_shape_with_team_objects(tmp_path):
    batch = fetch("en-1-2025-26", write_data(tmp_path, EN_FILE, ROUNDS_DOC))
    assert batch.problems == []
    played, open_ = batch.matches
    assert played.event_id == "liverpool-fc-v-afc-bournemouth" and played.matchday == 1
    assert played.score_90.as_tuple() == (4, 2) and played.score_half_time.as_tuple() == (1, 0)
    assert played.kickoff_utc == datetime(2025, 8, 15, 19, tzinfo=UTC)
    assert open_.status is MatchStatus.SCHEDULED and open_.kickoff_utc is None


def test_malformed_json_is_one_problem_naming_the_file(tmp_path):
    batch = fetch("en-1-2025-26", write_data(tmp_path, EN_FILE, b'{"matches": [ {"round": '))
    assert batch.matches == []
    assert len(batch.problems) == 1 and "en.1.json" in batch.problems[0].path
    assert "not valid JSON" in batch.problems[0].message


def _league_match(**changes):
    match = {"round": "Matchday 1", "date": "2025-08-15", "time": "20:00", "team1": "Liverpool FC",
             "team2": "AFC Bournemouth", "score": {"ft": [4, 2]}}
    match.update(changes)
    return match


def test_bad_matches_are_problems_and_the_others_still_parse(tmp_path):
    doc = {"matches": [
        _league_match(team1="Liverpool Football Club Reserves"),
        _league_match(time="8pm"),
        _league_match(date=None),
        _league_match(date="15/08/2025"),
        _league_match(score={"ft": [4, "two"]}),
        _league_match(status="exploded"),
        "not a match",
        _league_match(team1="Arsenal FC", team2="Chelsea FC"),
    ]}
    batch = fetch("en-1-2025-26", write_data(tmp_path, EN_FILE, doc))
    assert [m.event_id for m in batch.matches] == ["arsenal-fc-v-chelsea-fc"]
    messages = [p.message for p in batch.problems]
    assert len(messages) == 7
    assert "unknown team 'Liverpool Football Club Reserves'" in messages[0] and "Liverpool FC" in messages[0]
    assert "field time: unparseable time '8pm'" in messages[1]
    assert "field date: missing" in messages[2] and "unparseable date '15/08/2025'" in messages[3]
    assert "score.ft" in messages[4] and "unknown status 'exploded'" in messages[5]
    assert all("en.1.json matches[" in p.path for p in batch.problems)


def test_knockout_slot_placeholders_leave_teams_open(tmp_path):
    doc = {"matches": [{"round": "Round of 32", "num": 74, "date": "2026-06-29", "time": "16:30 UTC-4",
                        "team1": "1E", "team2": "3A/B/C/D/F", "score": {}}]}
    (match,) = fetch("worldcup-2026", write_data(tmp_path, WC_FILE, doc)).matches
    assert (match.home_team, match.away_team, match.home_slot, match.away_slot) == (None, None, "1E", "3A/B/C/D/F")
    assert match.event_id == "m074" and match.knockout


def test_rounds_shape_with_time_zone_goals_and_extra_time(tmp_path):
    doc = {"name": "World Cup", "rounds": [{"name": "Round of 32", "matches": [
        {"num": 74, "date": "2026-06-29", "time": "16:30", "timezone": "UTC-4",
         "team1": {"name": "Germany", "code": "GER"}, "team2": {"name": "Paraguay", "code": "PAR"},
         "score1": 1, "score2": 1, "score1i": 0, "score2i": 1, "score1et": 1, "score2et": 1,
         "score1p": 3, "score2p": 4,
         "goals1": [{"name": "Kai Havertz", "minute": 54}],
         "goals2": [{"name": "Joshua Kimmich", "minute": 90, "offset": 3, "owngoal": True}],
         "stadium": {"key": "boston", "name": "Gillette Stadium"}},
    ]}]}
    (match,) = fetch("worldcup-2026", write_data(tmp_path, WC_FILE, doc)).matches
    assert match.event_id == "m074" and match.kickoff_utc == datetime(2026, 6, 29, 20, 30, tzinfo=UTC)
    assert match.kickoff_source == "2026-06-29 16:30 UTC-4" and match.venue == "Gillette Stadium"
    assert match.score_90.as_tuple() == (1, 1) and match.score_penalties.as_tuple() == (3, 4)
    assert match.score_half_time.as_tuple() == (0, 1) and match.score_extra_time.as_tuple() == (1, 1)
    own = match.goals[-1]  # an own goal is listed with (and credited to) the team it benefits
    assert (own.team, own.minute, own.stoppage, own.own_goal, own.period) == ("par", 90, 3, True, "regulation")


@pytest.mark.parametrize(("raw_time", "utc_hour_minute"), [
    ("20:00", (19, 0)),  # no zone: the competition's clock (London, summer time)
    ("20:00 UTC", (20, 0)),  # a bare UTC is offset zero, not the local clock
    ("20:00 GMT", (20, 0)),
    ("20:00Z", (20, 0)),
    ("13:00 UTC-6", (19, 0)),
    ("20:00 UTC+5:30", (14, 30)),
    ("20:00 utc+1", (19, 0)),
])  # fmt: skip
def test_kickoff_time_zones_are_read_into_utc(raw_time, utc_hour_minute):
    _, kickoff, source = parse_kickoff("2025-08-15", raw_time, ZoneInfo("Europe/London"))
    assert (kickoff.hour, kickoff.minute) == utc_hour_minute and kickoff.utcoffset().total_seconds() == 0
    assert source == f"2025-08-15 {raw_time}"


@pytest.mark.parametrize("raw_time", ["20:00 UTC+15", "20:00 UTC-4:75", "24:00", "20:00 CEST"])
def test_kickoff_with_an_impossible_offset_or_unknown_zone_is_refused(raw_time):
    with pytest.raises(ValueError, match="field time: unparseable time"):
        parse_kickoff("2025-08-15", raw_time, ZoneInfo("Europe/London"))
