"""The sync conductor against the real data: the 'Done when' list, knowability, bad input."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from collector.fixtures.sync import sync_competition
from collector.records import Clock, EventStatus

AFTER_FINAL = datetime(2026, 8, 1, tzinfo=UTC)
EN_FILE = "openfootball/leagues-2025-26/en.1.json"
WC_FILE = "openfootball/worldcup-2026/worldcup.json"


@pytest.fixture(scope="module")
def wc_archive(data_dir, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("wc") / "archive"
    report = sync_competition(root, "worldcup-2026", now=AFTER_FINAL, data_dir=data_dir, clock=Clock.REPLAY)
    assert report.problems == []
    return root


@pytest.fixture(scope="module")
def en_archive(data_dir, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("en") / "archive"
    report = sync_competition(root, "en-1-2025-26", now=AFTER_FINAL, data_dir=data_dir, clock=Clock.REPLAY)
    assert report.problems == []
    return root


@pytest.mark.slow
def test_world_cup_after_the_final(wc_archive):
    archive = load_archive(wc_archive)
    assert archive.problems == []
    events = {eid: e for (_, eid), e in archive.events.items()}
    assert len(events) == 104 and len(archive.outcomes) == 104
    assert sum(not e.knockout for e in events.values()) == 72 and sum(e.knockout for e in events.values()) == 32
    assert all(e.clock is Clock.REPLAY for e in events.values())
    final = archive.outcomes[("worldcup-2026", "m104")]
    assert final.score_90.as_tuple() == (0, 0) and final.score_extra_time.as_tuple() == (1, 0)
    assert final.score_penalties is None and final.advancing_team == "esp"
    assert (events["m104"].home_team, events["m104"].away_team) == ("esp", "arg")
    ger_par = archive.outcomes[("worldcup-2026", "m074")]
    assert (events["m074"].home_team, events["m074"].away_team) == ("ger", "par")
    assert ger_par.score_90.as_tuple() == (1, 1) and ger_par.score_extra_time.as_tuple() == (1, 1)
    assert ger_par.score_penalties.as_tuple() == (3, 4) and ger_par.advancing_team == "par"
    assert ger_par.source_payload["score"]["p"] == [3, 4]  # the raw source payload is kept
    assert events["mex-v-rsa"].kickoff_utc == datetime(2026, 6, 11, 19, tzinfo=UTC)
    assert events["m104"].kickoff_utc == datetime(2026, 7, 19, 19, tzinfo=UTC)  # 15:00 UTC-4
    assert events["m104"].kickoff_source == "2026-07-19 15:00 UTC-4"
    assert archive.outcomes[("worldcup-2026", "mex-v-rsa")].advancing_team is None


@pytest.mark.slow
def test_sync_twice_adds_nothing(wc_archive, data_dir):
    before = sorted(p.relative_to(wc_archive) for p in wc_archive.rglob("*.json"))
    report = sync_competition(wc_archive, "worldcup-2026", now=AFTER_FINAL, data_dir=data_dir, clock=Clock.REPLAY)
    assert report.written == [] and report.problems == []
    assert sorted(p.relative_to(wc_archive) for p in wc_archive.rglob("*.json")) == before


@pytest.mark.slow
def test_premier_league_380_events_291_outcomes(en_archive):
    archive = load_archive(en_archive)
    assert len(archive.events) == 380 and len(archive.outcomes) == 291
    postponed = [e for e in archive.events.values() if e.status is EventStatus.POSTPONED]
    assert [e.id for e in postponed] == ["manchester-city-fc-v-crystal-palace-fc"]
    assert ("en-1-2025-26", postponed[0].id) not in archive.outcomes
    unplayed = [k for k in archive.events if k not in archive.outcomes]
    assert len(unplayed) == 89


def test_earlier_now_writes_only_what_was_knowable(data_dir, tmp_path):
    root = tmp_path / "archive"
    # 03:00 UTC on 28 June: groups A-I are over, the last group J/K matches are not (they end ~04:00).
    report = sync_competition(root, "worldcup-2026", now=datetime(2026, 6, 28, 3, tzinfo=UTC),
                              data_dir=data_dir, clock=Clock.REPLAY)
    archive = load_archive(root)
    ids = {eid for (_, eid) in archive.events}
    assert "m073" in ids  # 2A v 2B: both groups finished
    assert "m074" not in ids  # 1E v 3A/B/C/D/F needs every group
    assert len(archive.outcomes) < 72 and not any(e.knockout for (_, eid), e in archive.events.items() if
                                                  ("worldcup-2026", eid) in archive.outcomes)
    assert report.problems == []
    # before the round of 32: all group results, the 16 round-of-32 fixtures, nothing later
    sync_competition(root, "worldcup-2026", now=datetime(2026, 6, 28, 12, tzinfo=UTC), data_dir=data_dir,
                     clock=Clock.REPLAY)
    archive = load_archive(root)
    assert len(archive.events) == 88 and len(archive.outcomes) == 72
    assert all(o.recorded_at <= datetime(2026, 6, 28, 12, tzinfo=UTC) for o in archive.outcomes.values())
    # a result becomes knowable only once the match has finished
    kickoff_73 = archive.events[("worldcup-2026", "m073")].kickoff_utc
    sync_competition(root, "worldcup-2026", now=kickoff_73.replace(hour=kickoff_73.hour + 1), data_dir=data_dir,
                     clock=Clock.REPLAY)
    assert ("worldcup-2026", "m073") not in load_archive(root).outcomes


def _copy_data(data_dir: Path, tmp_path: Path, relative: str, edit, folder: str = "data") -> Path:
    """A modified copy of a real source file, trimmed to matchdays 1 and 38 (fewer files to fsync)."""
    target_root = tmp_path / folder
    target = target_root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    document = orjson.loads((data_dir / relative).read_bytes())
    document["matches"] = [m for m in document["matches"] if m["round"] in ("Matchday 1", "Matchday 38")]
    edit(document)
    target.write_bytes(orjson.dumps(document))
    return target_root


def _unchanged(doc):
    return None


def _find(doc, team1, team2):
    return next(m for m in doc["matches"] if m["team1"] == team1 and m["team2"] == team2)


def test_rescheduled_kickoff_becomes_a_revision(data_dir, tmp_path):
    root = tmp_path / "archive"
    now = datetime(2026, 3, 20, tzinfo=UTC)
    original = _copy_data(data_dir, tmp_path, EN_FILE, _unchanged, folder="original")
    sync_competition(root, "en-1-2025-26", now=now, data_dir=original)
    event_id = "west-ham-united-fc-v-leeds-united-fc"
    before = load_archive(root).events[("en-1-2025-26", event_id)]

    def reschedule(doc):
        _find(doc, "West Ham United FC", "Leeds United FC")["time"] = "12:30"

    moved = _copy_data(data_dir, tmp_path, EN_FILE, reschedule)
    report = sync_competition(root, "en-1-2025-26", now=datetime(2026, 3, 21, tzinfo=UTC), data_dir=moved)
    assert report.problems == [] and report.written == [f"en-1-2025-26/events/{event_id}/event.r001.json"]
    archive = load_archive(root)
    after = archive.events[("en-1-2025-26", event_id)]
    assert after.revision == 1 and after.supersedes == f"en-1-2025-26/events/{event_id}/event.r000.json"
    assert after.kickoff_utc == before.kickoff_utc.replace(hour=11, minute=30)  # 12:30 BST
    assert "kickoff_utc" in after.change_reason
    assert (root / f"en-1-2025-26/events/{event_id}/event.r000.json").exists()  # nothing rewritten
    again = sync_competition(root, "en-1-2025-26", now=datetime(2026, 3, 21, tzinfo=UTC), data_dir=moved)
    assert again.written == []


def test_duplicate_fixture_is_reported_and_the_rest_registered(data_dir, tmp_path):
    def duplicate(doc):
        copy = dict(_find(doc, "Liverpool FC", "AFC Bournemouth"))
        copy["time"] = "21:00"
        doc["matches"].append(copy)

    data = _copy_data(data_dir, tmp_path, EN_FILE, duplicate)
    report = sync_competition(tmp_path / "archive", "en-1-2025-26", now=AFTER_FINAL, data_dir=data)
    assert len(report.problems) == 1 and "duplicate fixture" in report.problems[0].message
    assert "liverpool-fc-v-afc-bournemouth" in report.problems[0].message
    archive = load_archive(tmp_path / "archive")
    assert len(archive.events) == 20 and len(archive.outcomes) == 10  # matchday 38 is unplayed
    assert archive.events[("en-1-2025-26", "liverpool-fc-v-afc-bournemouth")].kickoff_source.endswith("20:00")


def test_a_live_score_for_a_future_match_is_a_problem(data_dir, tmp_path):
    def future_score(doc):
        _find(doc, "West Ham United FC", "Leeds United FC")["score"] = {"ft": [1, 0]}

    data = _copy_data(data_dir, tmp_path, EN_FILE, future_score)
    report = sync_competition(tmp_path / "archive", "en-1-2025-26", now=datetime(2026, 3, 20, tzinfo=UTC),
                              data_dir=data, clock=Clock.LIVE)
    assert len(report.problems) == 1 and "West Ham United FC v Leeds United FC" in report.problems[0].path
    assert "after now" in report.problems[0].message
    archive = load_archive(tmp_path / "archive")
    assert ("en-1-2025-26", "west-ham-united-fc-v-leeds-united-fc") not in archive.outcomes
    assert len(archive.outcomes) == 10


def test_unknown_team_and_bad_time_do_not_stop_the_other_matches(data_dir, tmp_path):
    def damage(doc):
        _find(doc, "Liverpool FC", "AFC Bournemouth")["team2"] = "Bournemouth Athletic"
        _find(doc, "Sunderland AFC", "West Ham United FC")["time"] = "25:99"

    data = _copy_data(data_dir, tmp_path, EN_FILE, damage)
    report = sync_competition(tmp_path / "archive", "en-1-2025-26", now=AFTER_FINAL, data_dir=data)
    messages = sorted(p.message for p in report.problems)
    assert len(messages) == 2
    assert any("unknown team 'Bournemouth Athletic'" in m and "AFC Bournemouth" in m for m in messages)
    assert any("unparseable time '25:99'" in m for m in messages)
    assert len(load_archive(tmp_path / "archive").events) == 18


def test_malformed_source_writes_nothing_and_exits_non_zero(data_dir, tmp_path, capsys):
    bad = tmp_path / "data" / EN_FILE
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b'{"matches": [')
    code = main(["sync", "--competition", "en-1-2025-26", "--archive", str(tmp_path / "archive"),
                 "--data-dir", str(tmp_path / "data"), "--now", "2026-08-01"])
    assert code == 1 and "not valid JSON" in capsys.readouterr().err
    assert load_archive(tmp_path / "archive").events == {}


@pytest.mark.slow
def test_hand_edited_archive_file_is_reported_and_never_overwritten(wc_archive, data_dir, tmp_path):
    root = tmp_path / "archive"
    shutil.copytree(wc_archive, root)
    edited = root / "worldcup-2026/events/m104/outcome.r000.json"
    data = orjson.loads(edited.read_bytes())
    data["score_90"] = {"home": "nil", "away": 0}
    edited.write_bytes(orjson.dumps(data))
    bytes_before = edited.read_bytes()
    report = sync_competition(root, "worldcup-2026", now=AFTER_FINAL, data_dir=data_dir, clock=Clock.REPLAY)
    paths = [p.path for p in report.problems]
    assert "worldcup-2026/events/m104/outcome.r000.json" in paths
    assert any("score_90.home" in p.message for p in report.problems)
    assert any("not overwritten" in p.message for p in report.problems)
    assert edited.read_bytes() == bytes_before
    assert report.written == []


@pytest.mark.slow
def test_cli_sync_and_status(data_dir, en_archive, tmp_path, capsys):
    data = _copy_data(data_dir, tmp_path, EN_FILE, _unchanged)
    archive = str(tmp_path / "archive")
    assert main(["sync", "--competition", "en-1-2025-26", "--archive", archive, "--data-dir", str(data),
                 "--now", "2026-03-20T00:00Z"]) == 0
    out = capsys.readouterr().out
    assert "en-1-2025-26 @ 2026-03-20T00:00:00+00:00 (replay)" in out and "events_new 20, match_reports_new 2, outcomes_new 10" in out
    assert main(["status", "--archive", str(en_archive), "--json"]) == 0
    status = orjson.loads(capsys.readouterr().out)
    assert status["competitions"] == 1 and status["events"] == 380 and status["outcomes"] == 291
    assert status["by_competition"]["en-1-2025-26"]["events"] == {"total": 380, "postponed": 1, "scheduled": 379}
    assert status["by_competition"]["en-1-2025-26"]["outcomes"] == {"total": 291, "finished": 291}


def test_corrected_score_becomes_an_outcome_revision(data_dir, tmp_path):
    root = tmp_path / "archive"
    original = _copy_data(data_dir, tmp_path, EN_FILE, _unchanged, folder="original")
    sync_competition(root, "en-1-2025-26", now=AFTER_FINAL, data_dir=original)

    def correct(doc):
        _find(doc, "Liverpool FC", "AFC Bournemouth")["score"] = {"ft": [4, 3], "ht": [1, 0]}

    corrected = _copy_data(data_dir, tmp_path, EN_FILE, correct)
    report = sync_competition(root, "en-1-2025-26", now=AFTER_FINAL, data_dir=corrected)
    path = "en-1-2025-26/events/liverpool-fc-v-afc-bournemouth/outcome.r001.json"
    assert report.written == [path] and report.problems == []
    outcome = load_archive(root).outcomes[("en-1-2025-26", "liverpool-fc-v-afc-bournemouth")]
    assert outcome.score_90.as_tuple() == (4, 3) and outcome.revision == 1
    assert "score_90: 4-2 -> 4-3" in outcome.change_reason


def test_scheduler_api_fixtures_then_outcomes_on_one_archive(data_dir, tmp_path):
    from collector.archive.write.writer import ArchiveWriter
    from collector.fixtures.sync import sync_fixtures, sync_outcomes

    root = tmp_path / "archive"
    data = _copy_data(data_dir, tmp_path, EN_FILE, _unchanged)
    writer, archive = ArchiveWriter(root), load_archive(root)
    fixtures = sync_fixtures(writer, archive, "en-1-2025-26", now=AFTER_FINAL, data_dir=data, clock=Clock.LIVE)
    assert fixtures.counts == {"competitions_new": 1, "events_new": 20} and fixtures.problems == []
    outcomes = sync_outcomes(writer, archive, "en-1-2025-26", now=AFTER_FINAL, data_dir=data, clock=Clock.LIVE)
    assert outcomes.counts == {"outcomes_new": 10, "match_reports_new": 2} and sorted(writer.written) == sorted(fixtures.written + outcomes.written)
    reloaded = load_archive(root)
    assert len(reloaded.events) == 20 and len(reloaded.outcomes) == 10
    assert all(e.clock is Clock.LIVE for e in reloaded.events.values())


def test_missing_time_registers_a_date_only_event_and_a_later_time_revises_it(data_dir, tmp_path):
    def drop_time(doc):
        del _find(doc, "West Ham United FC", "Leeds United FC")["time"]

    root = tmp_path / "archive"
    tba = _copy_data(data_dir, tmp_path, EN_FILE, drop_time, folder="tba")
    assert sync_competition(root, "en-1-2025-26", now=datetime(2026, 3, 20, tzinfo=UTC), data_dir=tba).problems == []
    event = load_archive(root).events[("en-1-2025-26", "west-ham-united-fc-v-leeds-united-fc")]
    assert event.kickoff_utc is None and event.kickoff_source == "2026-05-24"
    timed = _copy_data(data_dir, tmp_path, EN_FILE, _unchanged)
    report = sync_competition(root, "en-1-2025-26", now=datetime(2026, 4, 1, tzinfo=UTC), data_dir=timed)
    assert report.written == ["en-1-2025-26/events/west-ham-united-fc-v-leeds-united-fc/event.r001.json"]
    event = load_archive(root).events[("en-1-2025-26", "west-ham-united-fc-v-leeds-united-fc")]
    assert event.kickoff_utc == datetime(2026, 5, 24, 15, tzinfo=UTC)  # 16:00 BST
