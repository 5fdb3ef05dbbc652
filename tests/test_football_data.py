"""football-data.org v4 adapter: hand-written payloads in the documented format, served by respx."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest
import respx

from collector.archive.reader import load_archive
from collector.competitions import load_competition, load_definition
from collector.fixtures.sync import sync_competition
from collector.records import Clock, EventStatus, OutcomeStatus
from collector.sources.base import MatchStatus
from collector.sources.football_data import STATUS, FootballDataSource

T0 = datetime(2026, 8, 1, tzinfo=UTC)
KEY = "test-key-not-a-secret-5f3a"
PL_URL = "https://api.football-data.org/v4/competitions/PL/matches"
WC_URL = "https://api.football-data.org/v4/competitions/WC/matches"


def team(name: str) -> dict:
    return {"id": abs(hash(name)) % 1000, "name": name, "shortName": name.split()[0], "tla": name[:3].upper()}


def match(mid, home, away, status="FINISHED", utc="2025-08-15T19:00:00Z", stage="REGULAR_SEASON", group=None,
          score=None, matchday=1):
    return {
        "id": mid, "utcDate": utc, "status": status, "matchday": matchday, "stage": stage, "group": group,
        "lastUpdated": "2025-08-16T08:00:00Z", "homeTeam": team(home), "awayTeam": team(away),
        "score": score or {"winner": None, "duration": "REGULAR", "fullTime": {"home": None, "away": None},
                           "halfTime": {"home": None, "away": None}},
    }


def regular(home, away, ht=(0, 0)):
    winner = "HOME_TEAM" if home > away else "AWAY_TEAM" if away > home else "DRAW"
    return {"winner": winner, "duration": "REGULAR", "fullTime": {"home": home, "away": away},
            "halfTime": {"home": ht[0], "away": ht[1]}}


PL_PAYLOAD = {
    "competition": {"id": 2021, "name": "Premier League", "code": "PL"},
    "matches": [
        match(1, "Liverpool FC", "AFC Bournemouth", score=regular(4, 2, (1, 0))),
        match(2, "Aston Villa FC", "Newcastle United FC", status="TIMED", utc="2026-09-16T14:00:00Z"),
        match(3, "Manchester City FC", "Crystal Palace FC", status="POSTPONED", utc="2026-03-21T15:00:00Z", matchday=31),
    ],
}

WC_PAYLOAD = {
    "matches": [
        match(10, "Mexico", "South Africa", utc="2026-06-11T19:00:00Z", stage="GROUP_STAGE", group="GROUP_A",
              score=regular(2, 0, (1, 0))),
        match(11, "Germany", "Paraguay", utc="2026-06-29T20:30:00Z", stage="LAST_32", score={
            "winner": "AWAY_TEAM", "duration": "PENALTY_SHOOTOUT", "fullTime": {"home": 4, "away": 5},
            "halfTime": {"home": 0, "away": 1}, "regularTime": {"home": 1, "away": 1},
            "extraTime": {"home": 0, "away": 0}, "penalties": {"home": 3, "away": 4}}),
        match(12, "Spain", "Argentina", utc="2026-07-19T19:00:00Z", stage="FINAL", score={
            "winner": "HOME_TEAM", "duration": "EXTRA_TIME", "fullTime": {"home": 1, "away": 0},
            "halfTime": {"home": 0, "away": 0}, "regularTime": {"home": 0, "away": 0},
            "extraTime": {"home": 1, "away": 0}}),
    ]
}


class Sleeps:
    def __init__(self):
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def source(competition_id="en-1-2025-26", sleep=None, key=KEY):
    return FootballDataSource(load_definition(competition_id), api_key=key, sleep=sleep or Sleeps())


def fetch(competition_id="en-1-2025-26", **kwargs):
    return source(competition_id, **kwargs).fetch(load_competition(competition_id, T0))


@respx.mock
def test_league_payload_sends_the_token_and_parses():
    route = respx.get(PL_URL).mock(return_value=httpx.Response(200, json=PL_PAYLOAD))
    batch = fetch()
    assert route.calls.last.request.headers["X-Auth-Token"] == KEY
    assert route.calls.last.request.url.params["season"] == "2025"
    assert batch.problems == []
    played, timed, postponed = batch.matches
    assert played.event_id == "liverpool-fc-v-afc-bournemouth" and played.status is MatchStatus.FINISHED
    assert played.score_90.as_tuple() == (4, 2) and played.score_half_time.as_tuple() == (1, 0)
    assert played.kickoff_utc == datetime(2025, 8, 15, 19, tzinfo=UTC) and played.matchday == 1
    assert timed.status is MatchStatus.SCHEDULED and timed.score_90 is None
    assert postponed.status is MatchStatus.POSTPONED


@respx.mock
def test_extra_time_and_penalties_count_only_their_own_periods():
    respx.get(WC_URL).mock(return_value=httpx.Response(200, json=WC_PAYLOAD))
    batch = fetch("worldcup-2026")
    assert batch.problems == []
    group, ger_par, final = batch.matches
    assert (group.group, group.stage, group.event_id) == ("A", "group", "mex-v-rsa")
    assert ger_par.stage == "round-of-32" and ger_par.knockout and ger_par.event_id.startswith("m0")
    assert ger_par.score_90.as_tuple() == (1, 1)  # regularTime, not fullTime 4-5
    assert ger_par.score_extra_time.as_tuple() == (1, 1)  # 90 minutes + extra-time goals (0-0)
    assert ger_par.score_penalties.as_tuple() == (3, 4)
    assert final.event_id == "m104" and final.score_90.as_tuple() == (0, 0)
    assert final.score_extra_time.as_tuple() == (1, 0) and final.score_penalties is None


def test_every_documented_status_is_mapped():
    documented = {"SCHEDULED", "TIMED", "IN_PLAY", "PAUSED", "EXTRA_TIME", "PENALTY_SHOOTOUT", "FINISHED",
                  "SUSPENDED", "POSTPONED", "CANCELLED", "AWARDED"}
    assert documented <= set(STATUS)
    assert {STATUS[s] for s in ("IN_PLAY", "PAUSED", "EXTRA_TIME", "PENALTY_SHOOTOUT")} == {MatchStatus.IN_PLAY}


@respx.mock
@pytest.mark.parametrize("status", ["IN_PLAY", "PAUSED", "EXTRA_TIME", "PENALTY_SHOOTOUT", "SUSPENDED",
                                    "POSTPONED", "CANCELLED", "SCHEDULED", "TIMED"])
def test_matches_not_finished_carry_no_score(status, tmp_path):
    payload = {"matches": [match(1, "Liverpool FC", "AFC Bournemouth", status=status, score=regular(1, 0))]}
    respx.get(PL_URL).mock(return_value=httpx.Response(200, json=payload))
    root = tmp_path / "archive"
    report = sync_competition(root, "en-1-2025-26", now=T0, clock=Clock.REPLAY, source=source())
    assert report.problems == []
    archive = load_archive(root)
    event = archive.events[("en-1-2025-26", "liverpool-fc-v-afc-bournemouth")]
    outcome = archive.outcomes.get(("en-1-2025-26", event.id))
    if status == "CANCELLED":
        assert event.status is EventStatus.CANCELLED and outcome.status is OutcomeStatus.CANCELLED
        assert outcome.score_90 is None
    else:
        assert outcome is None
    assert (event.status is EventStatus.POSTPONED) == (status == "POSTPONED")


@respx.mock
def test_429_honours_retry_after():
    sleeps = Sleeps()
    respx.get(PL_URL).mock(side_effect=[
        httpx.Response(429, headers={"Retry-After": "7"}, json={"message": "You reached your request limit."}),
        httpx.Response(200, json=PL_PAYLOAD),
    ])
    batch = fetch(sleep=sleeps)
    assert batch.problems == [] and len(batch.matches) == 3
    assert sleeps.calls == [7.0]


@respx.mock
def test_429_without_retry_after_waits_for_the_request_counter_reset():
    sleeps = Sleeps()
    respx.get(PL_URL).mock(side_effect=[
        httpx.Response(429, headers={"X-RequestCounter-Reset": "42", "X-Requests-Available-Minute": "0"},
                       json={"message": "You reached your request limit. Wait 42 seconds.", "errorCode": 429}),
        httpx.Response(200, json=PL_PAYLOAD),
    ])
    assert fetch(sleep=sleeps).problems == []
    assert sleeps.calls == [42.0]


@respx.mock
def test_an_exhausted_minute_budget_delays_the_next_request():
    sleeps = Sleeps()
    respx.get(PL_URL).mock(return_value=httpx.Response(
        200, json=PL_PAYLOAD, headers={"X-Requests-Available-Minute": "0", "X-RequestCounter-Reset": "31"}))
    assert fetch(sleep=sleeps).problems == []
    assert sleeps.calls == [31.0]


@pytest.mark.parametrize(("reset", "waited"), [("86400", 65.0), ("inf", 60.0), ("nan", 60.0), ("-5", 0.0)])
def test_a_hostile_counter_reset_never_stalls_the_sync(reset, waited):
    """The wait after an exhausted minute budget is capped by the retry policy's longest delay."""
    sleeps = Sleeps()
    with respx.mock:
        respx.get(PL_URL).mock(return_value=httpx.Response(
            200, json=PL_PAYLOAD, headers={"X-Requests-Available-Minute": "0", "X-RequestCounter-Reset": reset}))
        assert fetch(sleep=sleeps).problems == []
    assert sleeps.calls == [waited]


@respx.mock
def test_5xx_is_retried_then_succeeds():
    sleeps = Sleeps()
    route = respx.get(PL_URL).mock(side_effect=[httpx.Response(503, text="busy"), httpx.Response(200, json=PL_PAYLOAD)])
    assert len(fetch(sleep=sleeps).matches) == 3 and route.call_count == 2 and len(sleeps.calls) == 1


@respx.mock
def test_persistent_5xx_is_a_problem_and_nothing_is_written(tmp_path):
    route = respx.get(PL_URL).mock(return_value=httpx.Response(500, text="Internal Server Error"))
    report = sync_competition(tmp_path / "a", "en-1-2025-26", now=T0, clock=Clock.REPLAY, source=source())
    assert route.call_count == 4
    assert len(report.problems) == 1 and "HTTP 500" in report.problems[0].message
    assert report.written == ["en-1-2025-26/competition.r000.json"]


@respx.mock
def test_timeout_is_a_problem():
    respx.get(PL_URL).mock(side_effect=httpx.ReadTimeout("read timed out"))
    batch = fetch()
    assert batch.matches == [] and "no complete answer" in batch.problems[0].message


@respx.mock
def test_malformed_body_is_a_problem():
    respx.get(PL_URL).mock(return_value=httpx.Response(200, text="<html>maintenance</html>"))
    batch = fetch()
    assert batch.matches == [] and "not JSON" in batch.problems[0].message
    respx.get(PL_URL).mock(return_value=httpx.Response(200, json={"errorCode": 403, "message": "restricted"}))
    assert "no 'matches' list" in fetch().problems[0].message


@respx.mock
def test_bad_match_is_a_problem_and_others_still_parse():
    payload = {"matches": [
        match(1, "Liverpool FC", "Bournemouth Athletic", score=regular(4, 2)),
        match(2, "Arsenal FC", "Chelsea FC", status="HALF_TIME"),
        match(3, "Arsenal FC", "Chelsea FC", utc="yesterday"),
        match(4, "Liverpool", "Bournemouth", score=regular(1, 1)),  # short names resolve without "FC"/"AFC"
    ]}
    respx.get(PL_URL).mock(return_value=httpx.Response(200, json=payload))
    batch = fetch()
    assert [m.event_id for m in batch.matches] == ["liverpool-fc-v-afc-bournemouth"]
    messages = [p.message for p in batch.problems]
    assert "unknown team 'Bournemouth Athletic'" in messages[0] and "AFC Bournemouth" in messages[0]
    assert "unknown value 'HALF_TIME'" in messages[1] and "unparseable time 'yesterday'" in messages[2]


def _broken(**changes) -> dict:
    return {**match(1, "Liverpool FC", "AFC Bournemouth", score=regular(4, 2)), **changes}


@pytest.mark.parametrize(("changes", "expected"), [
    ({"homeTeam": "Liverpool FC"}, "field homeTeam: expected an object, got 'Liverpool FC'"),
    ({"awayTeam": {"name": 7}}, "field awayTeam.name: expected a string, got 7"),
    ({"score": "4-2"}, "field score: expected an object, got '4-2'"),
    ({"goals": ["Salah 12'"]}, "field goals[0]: expected an object"),
    ({"goals": [{"team": "Liverpool FC", "minute": 12}]}, "field goals[0].team: expected an object"),
    ({"goals": [{"team": {"name": "Liverpool FC"}, "scorer": {"name": ["Salah"]}, "minute": 12}]},
     "field goals[0].scorer.name: expected a string"),
    ({"status": ["FINISHED"]}, "field status: unknown value ['FINISHED']"),
    ({"stage": {"name": "REGULAR_SEASON"}}, "field stage: {'name': 'REGULAR_SEASON'} maps to no stage"),
    ({"score": {"duration": "REGULAR", "fullTime": {"home": True, "away": 0}}},
     "field home: Input should be a valid integer (value True)"),
    ({"goals": [{"team": {"name": "Liverpool FC"}, "minute": "12'"}]},
     "field minute: Input should be a valid integer (value \"12'\")"),
])  # fmt: skip
def test_a_match_of_the_wrong_shape_is_a_problem_naming_the_field_and_others_still_parse(changes, expected):
    payload = {"matches": [_broken(**changes), match(2, "Arsenal FC", "Chelsea FC", score=regular(1, 1))]}
    with respx.mock:
        respx.get(PL_URL).mock(return_value=httpx.Response(200, json=payload))
        batch = fetch()
    assert [m.event_id for m in batch.matches] == ["arsenal-fc-v-chelsea-fc"]
    assert len(batch.problems) == 1 and expected in batch.problems[0].message and "\n" not in str(batch.problems[0])
    assert "matches[0] id 1 2025-08-15T19:00:00Z" in batch.problems[0].path


@respx.mock
def test_a_field_the_contract_refuses_is_one_line_naming_field_and_value(tmp_path):
    payload = {"matches": [_broken(matchday="1"), match(2, "Arsenal FC", "Chelsea FC", score=regular(1, 1))]}
    respx.get(PL_URL).mock(return_value=httpx.Response(200, json=payload))
    report = sync_competition(tmp_path / "a", "en-1-2025-26", now=T0, clock=Clock.REPLAY, source=source())
    assert [str(p) for p in report.problems] == [
        "football-data:PL id 1 2025-08-15T19:00:00Z Liverpool FC v AFC Bournemouth: "
        "field matchday: Input should be a valid integer (value '1')"
    ]
    assert len(load_archive(tmp_path / "a").events) == 1


@respx.mock
def test_a_huge_team_name_is_cut_short_in_the_problem():
    payload = {"matches": [_broken(homeTeam={"name": "L" * 100_000})]}
    respx.get(PL_URL).mock(return_value=httpx.Response(200, json=payload))
    batch = fetch()
    assert len(batch.problems) == 1 and "unknown team 'LLLL" in batch.problems[0].message
    assert len(str(batch.problems[0])) < 1_000


def test_missing_api_key_is_a_problem_naming_the_variable(monkeypatch):
    monkeypatch.delenv("FOOTBALL_DATA_API_KEY", raising=False)
    batch = FootballDataSource(load_definition("en-1-2025-26")).fetch(load_competition("en-1-2025-26", T0))
    assert "FOOTBALL_DATA_API_KEY" in batch.problems[0].message


@respx.mock
def test_the_key_never_appears_in_problems_or_records(tmp_path):
    respx.get(PL_URL).mock(side_effect=[httpx.Response(401, json={"message": "bad token"}), httpx.Response(200, json=PL_PAYLOAD)])
    report = sync_competition(tmp_path / "a", "en-1-2025-26", now=T0, clock=Clock.REPLAY, source=source())
    assert report.problems and all(KEY not in str(p) for p in report.problems)
    respx.get(PL_URL).mock(return_value=httpx.Response(200, json=PL_PAYLOAD))
    report = sync_competition(tmp_path / "a", "en-1-2025-26", now=T0, clock=Clock.REPLAY, source=source())
    assert report.problems == [] and len(report.written) == 4  # 3 events + 1 outcome
    assert all(KEY not in p.read_text() for p in (tmp_path / "a").rglob("*.json"))


def test_bracket_recovers_every_official_knockout_number(data_dir):
    """Independent route: strip openfootball's match numbers; the bracket must find all 32 again."""
    from dataclasses import replace

    from collector.datasource import DataSource
    from collector.sources.bracket import assign_match_numbers
    from collector.sources.openfootball import OpenfootballSource

    wc = load_competition("worldcup-2026", T0)
    official = OpenfootballSource(load_definition("worldcup-2026"), DataSource(data_dir)).fetch(wc).matches
    stripped = [replace(m, match_number=None) if m.knockout else m for m in reversed(official)]
    numbered = {(m.home_team, m.away_team): m.match_number for m in assign_match_numbers(stripped, wc) if m.knockout}
    assert numbered == {(m.home_team, m.away_team): m.match_number for m in official if m.knockout}
    assert len(numbered) == 32


@respx.mock
def test_open_knockout_slots_are_not_problems_and_not_registered(tmp_path):
    tbd = match(20, "x", "y", status="TIMED", utc="2026-07-19T19:00:00Z", stage="FINAL")
    tbd["homeTeam"] = {"id": None, "name": None, "shortName": None, "tla": None}
    tbd["awayTeam"] = {"id": None, "name": None, "shortName": None, "tla": None}
    respx.get(WC_URL).mock(return_value=httpx.Response(200, json={"matches": [WC_PAYLOAD["matches"][0], tbd]}))
    report = sync_competition(tmp_path / "a", "worldcup-2026", now=datetime(2026, 6, 12, tzinfo=UTC),
                              clock=Clock.REPLAY, source=source("worldcup-2026"))
    assert report.problems == []
    assert set(load_archive(tmp_path / "a").events) == {("worldcup-2026", "mex-v-rsa")}


@respx.mock
def test_a_payload_that_echoes_the_token_is_recorded_without_it(tmp_path, monkeypatch):
    """The token the client sent, echoed in a hostile result's payload (hex, in a field the adapter does not
    read): the outcome is recorded, its payload sanitised, not refused by the writer (issue 53)."""
    monkeypatch.setenv("FOOTBALL_DATA_API_KEY", KEY)
    played = match(1, "Liverpool FC", "AFC Bournemouth", score=regular(4, 2)) | {"referees": [{"name": KEY.encode().hex()}]}
    respx.get(PL_URL).mock(return_value=httpx.Response(200, json={"matches": [played]}))
    report = sync_competition(tmp_path / "archive", "en-1-2025-26", now=T0, clock=Clock.REPLAY, source=source())
    assert report.problems == []
    outcome = load_archive(tmp_path / "archive").outcomes[("en-1-2025-26", "liverpool-fc-v-afc-bournemouth")]
    assert outcome.score_90.as_tuple() == (4, 2) and outcome.source_payload["referees"] == [{"name": "[redacted]"}]


@respx.mock
def test_a_payload_is_sanitised_only_when_its_outcome_is_written(tmp_path, monkeypatch):
    """Every tick builds an outcome for each finished match; the payload (bookkeeping, never compared) is
    sanitised for the one written, not again at a later sync that writes nothing."""
    import collector.fixtures.match_records as match_records

    monkeypatch.setenv("FOOTBALL_DATA_API_KEY", KEY)
    seen = []
    monkeypatch.setattr(match_records, "sanitised_value", lambda value: seen.append(value) or {"kept": "sanitised"})
    played = match(1, "Liverpool FC", "AFC Bournemouth", score=regular(4, 2))
    respx.get(PL_URL).mock(return_value=httpx.Response(200, json={"matches": [played]}))
    for _ in range(2):
        report = sync_competition(tmp_path / "archive", "en-1-2025-26", now=T0, clock=Clock.REPLAY, source=source())
        assert report.problems == []
    assert len(seen) == 1 and seen[0]["id"] == 1  # the one write; the second sync found nothing new
    outcome = load_archive(tmp_path / "archive").outcomes[("en-1-2025-26", "liverpool-fc-v-afc-bournemouth")]
    assert outcome.source_payload == {"kept": "sanitised"}  # what was written is the sanitised payload
