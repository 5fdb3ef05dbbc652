"""API-Football v3 report source against a local server in the documented format, errors and limits."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from collector.archive.reader import load_archive
from collector.fixtures.sync import sync_competition
from collector.records import Clock
from collector.sources.api_football import APIFootballSource
from tests.fake_api_football import FakeAPIFootball

KEY = "af-test-key-not-a-secret-91c2"
AFTER_GROUP_DAY_1 = datetime(2026, 6, 13, tzinfo=UTC)


async def no_sleep(_seconds: float) -> None:
    return None


@pytest.fixture(scope="module")
def wc(data_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("wc-af") / "archive"
    sync_competition(root, "worldcup-2026", now=AFTER_GROUP_DAY_1, data_dir=data_dir, clock=Clock.REPLAY)
    archive = load_archive(root)
    events = archive.events_of("worldcup-2026")
    return archive.competitions["worldcup-2026"], [e for e in events if e.id in ("mex-v-rsa", "mex-v-kor")]


def source(fake: FakeAPIFootball) -> APIFootballSource:
    return APIFootballSource(1, 2026, api_key=KEY, base_url=fake.base_url, sleep=no_sleep)


@pytest.mark.slow
def test_lineups_events_and_statistics_become_report_fields(wc):
    competition, events = wc
    with FakeAPIFootball() as fake:
        batch = source(fake).fetch_reports(competition, events)
    assert batch.problems == []
    assert list(batch.parts) == ["mex-v-rsa"]  # mex-v-kor is not finished at the provider: not read
    assert [p for p, _, _ in fake.seen] == ["/fixtures", "/fixtures/lineups", "/fixtures/events",
                                            "/fixtures/statistics"]
    assert all(key == KEY for _, _, key in fake.seen) and fake.seen[1][1] == {"fixture": ["1489369"]}
    fields = batch.parts["mex-v-rsa"].fields
    assert fields["home_formation"] == "4-3-3" and fields["away_formation"] == "4-2-3-1"
    assert [p.position for p in fields["home_lineup"].starting][:2] == ["GK", "DF"]
    assert fields["home_lineup"].starting[0].source_id == "100"
    goals = [(g.side, g.player, g.minute, g.penalty) for g in fields["goals"]]
    assert goals == [("home", "Julián Quiñones", 9, False), ("home", "Raúl Jiménez", 67, True)]
    assert [(a.player, a.minute) for a in fields["assists"]] == [("Alexis Vega", 9)]
    assert [(c.player, c.minute, c.colour) for c in fields["cards"]] == [("Teboho Mokoena", 34, "yellow"),
                                                                       ("Thabang Matuludi", 90, "yellow")]
    assert [(s.side, s.player_on, s.player_off) for s in fields["substitutions"]] == [
        ("away", "Iqraam Rayners", "Lyle Foster"), ("home", "Santiago Giménez", "Raúl Jiménez")]
    assert [(p.taker, p.outcome) for p in fields["penalties"]] == [("Raúl Jiménez", "scored")]
    stats = fields["statistics"]
    assert (stats.possession.home, stats.possession.away, stats.xg.home, stats.shots.away) == (61, 39, 1.84, 7)
    assert stats.yellow_cards is None and stats.red_cards is None  # a null value is no data, not 0


@pytest.mark.slow
def test_the_daily_limit_stops_requests_and_names_what_was_not_read(wc):
    competition, events = wc
    with FakeAPIFootball(quota=3) as fake:  # the fixture list and two of the three match calls
        batch = source(fake).fetch_reports(competition, events)
    assert len(fake.seen) == 3  # the header said 0 left after the third: no fourth request
    assert batch.parts == {}
    [problem] = batch.problems
    assert "daily request limit reached" in problem.message and "not read yet: mex-v-rsa" in problem.message
    with FakeAPIFootball(mode="limit_body") as fake:  # the documented errors.requests body
        batch = source(fake).fetch_reports(competition, events)
    assert len(fake.seen) == 2 and batch.parts == {}
    assert "request limit for the day" in batch.problems[0].message
    with FakeAPIFootball(quota=4) as fake:  # remaining reaches 0 on the last call: nothing more is sent
        src = source(fake)
        batch = src.fetch_reports(competition, events)
    assert list(batch.parts) == ["mex-v-rsa"] and src.remaining == 0 and len(fake.seen) == 4


@pytest.mark.slow
def test_a_bad_key_a_malformed_body_and_a_429_are_reported_and_never_leak_the_key(wc):
    competition, events = wc
    with FakeAPIFootball(mode="bad_key") as fake:
        batch = source(fake).fetch_reports(competition, events)
    assert len(fake.seen) == 1 and batch.parts == {}  # a body error is not retried
    assert "token: Error/Missing application key" in batch.problems[0].message
    with FakeAPIFootball(mode="malformed") as fake:
        batch = source(fake).fetch_reports(competition, events)
    assert "not JSON" in batch.problems[0].message
    with FakeAPIFootball(mode="rate_limit_once") as fake:
        batch = source(fake).fetch_reports(competition, events)
    assert batch.problems == [] and list(batch.parts) == ["mex-v-rsa"] and len(fake.seen) == 5  # retried once
    assert all(KEY not in p.message for p in batch.problems)
    no_key = APIFootballSource(1, 2026, api_key="", base_url="http://127.0.0.1:9").fetch_reports(competition, events)
    assert "API_FOOTBALL_KEY" in no_key.problems[0].message


@pytest.mark.slow
def test_an_unknown_team_in_a_payload_is_a_problem_naming_the_field(wc):
    from collector.sources.api_football_parse import parse_events
    from tests.fake_api_football import recorded

    competition, events = wc
    payload = recorded("events")
    payload["response"][1]["team"]["name"] = "Atlantis"
    with pytest.raises(Exception, match="unknown team 'Atlantis'"):
        parse_events(payload, events[0], competition)
    payload = recorded("events")
    payload["response"][0]["time"]["elapsed"] = "nine"
    with pytest.raises(ValueError, match=r"events.response\[0\].time.elapsed: expected a minute, got 'nine'"):
        parse_events(payload, events[0], competition)


@pytest.mark.slow
def test_collected_fields_join_the_openfootball_report_as_its_next_revision(data_dir, tmp_path):
    from collector.archive.write.writer import ArchiveWriter
    from collector.fixtures.match_reports import collect_reports

    root = tmp_path / "archive"
    sync_competition(root, "worldcup-2026", now=AFTER_GROUP_DAY_1, data_dir=data_dir, clock=Clock.REPLAY)
    archive = load_archive(root)
    before = archive.match_reports[("worldcup-2026", "mex-v-rsa")]
    with FakeAPIFootball() as fake:
        result = collect_reports(ArchiveWriter(root), archive, "worldcup-2026", source(fake), now=AFTER_GROUP_DAY_1,
                                 clock=Clock.REPLAY)
    assert result.problems == [] and result.written == ["worldcup-2026/events/mex-v-rsa/match_report.r001.json"]
    assert result.counts["report_fields_disagreeing"] == 1  # API-Football marks the 67' goal a penalty
    after = load_archive(root).match_reports[("worldcup-2026", "mex-v-rsa")]
    assert after.revision == 1 and after.goals == before.goals  # the first source of a field stays
    assert after.sources["goals"].source.startswith("openfootball") and after.sources["cards"].source == "api-football"
    assert after.home_formation == "4-3-3" and after.cards and after.statistics.possession.home == 61
    assert set(after.source_payloads) == {before.sources["goals"].source, "api-football"}
    with FakeAPIFootball() as fake:  # a second run adds nothing: nothing written
        again = collect_reports(ArchiveWriter(root), load_archive(root), "worldcup-2026", source(fake),
                                now=AFTER_GROUP_DAY_1, clock=Clock.REPLAY)
    assert again.written == []


def test_the_reports_command_adds_api_football_fields(data_dir, tmp_path, monkeypatch, capsys):
    from collector.cli import main

    root = tmp_path / "archive"
    sync_competition(root, "worldcup-2026", now=AFTER_GROUP_DAY_1, data_dir=data_dir, clock=Clock.REPLAY)
    with FakeAPIFootball() as fake:
        monkeypatch.setenv("API_FOOTBALL_KEY", KEY)
        monkeypatch.setenv("API_FOOTBALL_BASE_URL", fake.base_url)
        code = main(["reports", "--competition", "worldcup-2026", "--source", "api-football", "--league", "1",
                     "--archive", str(root), "--now", "2026-06-13T00:00Z"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "match_reports_revised 1" in out.out and KEY not in out.out + out.err
    assert load_archive(root).match_reports[("worldcup-2026", "mex-v-rsa")].home_formation == "4-3-3"
    assert main(["reports", "--competition", "worldcup-2026", "--source", "api-football", "--archive",
                 str(root)]) == 2  # --league is required
