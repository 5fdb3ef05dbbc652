"""The archive view's per-competition queries: filtering, the results_before boundary, and
staying current while the writer adds records during a tick."""

from __future__ import annotations

from datetime import timedelta

from collector.archive.reader import load_archive
from collector.archive.write.revise import next_revision
from collector.archive.write.writer import ArchiveWriter
from collector.records import OutcomeStatus
from tests.factories import (
    archive_from_records,
    make_competition,
    make_event,
    make_forecast,
    make_outcome,
    make_question,
    make_question_forecast,
    make_resolution,
    write_records,
)

CUP, LEAGUE = "worldcup-2026", "en-1-2025-26"


def _two_competitions():
    cup_a, cup_b = make_event("mex", "rsa", cid=CUP), make_event("esp", "usa", cid=CUP)
    league = make_event("ars", "che", cid=LEAGUE)  # same team-pair scheme, other competition
    question = make_question(cid=CUP)
    return {
        "competitions": [make_competition(CUP), make_competition(LEAGUE, teams=("ars", "che"))],
        "events": [cup_a, cup_b, league],
        "outcomes": [make_outcome(cup_a, 2, 0), make_outcome(league, 1, 1)],
        "questions": [question, make_question(cid=LEAGUE, candidates=("ars", "che"))],
        "resolutions": [make_resolution(question, ["mex"])],
        "forecasts": [make_forecast(cup_a), make_forecast(cup_b), make_forecast(league),
                      make_question_forecast(question, {"mex": 0.6, "rsa": 0.2, "esp": 0.1, "usa": 0.1})],
    }


def test_each_query_returns_only_the_competitions_records():
    parts = _two_competitions()
    archive = archive_from_records(r for records in parts.values() for r in records)
    assert [e.id for e in archive.events_of(CUP)] == ["mex-v-rsa", "esp-v-usa"]
    assert [e.id for e in archive.events_of(LEAGUE)] == ["ars-v-che"]
    assert {eid: o.score_90.as_tuple() for eid, o in archive.outcomes_of(CUP).items()} == {"mex-v-rsa": (2, 0)}
    assert list(archive.outcomes_of(LEAGUE)) == ["ars-v-che"]
    assert [(q.competition_id, q.id) for q in archive.questions_of(LEAGUE)] == [(LEAGUE, "world_champion")]
    assert {qid: r.answer for qid, r in archive.resolutions_of(CUP).items()} == {"world_champion": ("mex",)}
    assert archive.resolutions_of(LEAGUE) == {}
    assert sorted((f.target_kind, f.target_id) for f in archive.forecasts_of(CUP)) == [
        ("match", "esp-v-usa"), ("match", "mex-v-rsa"), ("question", "world_champion"),
    ]
    assert [f.target_id for f in archive.forecasts_of(LEAGUE)] == ["ars-v-che"]
    for query in (archive.events_of, archive.outcomes_of, archive.questions_of, archive.resolutions_of,
                  archive.forecasts_of):
        assert len(query("no-such-competition")) == 0


def test_results_before_includes_an_outcome_recorded_exactly_at_now_and_nothing_later():
    early, late = make_event("mex", "rsa", cid=CUP), make_event("esp", "usa", cid=CUP)
    other = make_event("ars", "che", cid=LEAGUE)
    known = make_outcome(early, 1, 0)
    now = known.recorded_at
    archive = archive_from_records([
        early, late, other, known,
        make_outcome(late, 0, 0, recorded_at=now + timedelta(seconds=1)),
        make_outcome(other, 3, 1, recorded_at=now - timedelta(days=1)),
    ])
    assert list(archive.results_before(CUP, now)) == ["mex-v-rsa"]
    assert list(archive.results_before(CUP, now - timedelta(microseconds=1))) == []
    assert sorted(archive.results_before(CUP, now + timedelta(seconds=1))) == ["esp-v-usa", "mex-v-rsa"]
    assert list(archive.results_before(LEAGUE, now)) == ["ars-v-che"]


def test_the_view_stays_current_while_the_writer_adds_and_revises_records(archive_dir):
    event = make_event("mex", "rsa", cid=CUP)
    write_records(archive_dir, [make_competition(CUP), event])
    archive = load_archive(archive_dir)
    assert archive.outcomes_of(CUP) == {} and archive.forecasts_of(CUP) == []
    writer = ArchiveWriter(archive_dir, archive)

    added = make_event("esp", "usa", cid=CUP)
    first = make_outcome(event, 0, 0, status=OutcomeStatus.POSTPONED)
    for record in (added, first, make_forecast(event)):
        writer.write(record)
    assert [e.id for e in archive.events_of(CUP)] == ["mex-v-rsa", "esp-v-usa"]
    assert archive.outcomes_of(CUP)["mex-v-rsa"].status is OutcomeStatus.POSTPONED
    assert [f.target_id for f in archive.forecasts_of(CUP)] == ["mex-v-rsa"]

    later = first.recorded_at + timedelta(days=2)
    revised = next_revision(first, make_outcome(event, 2, 1), reason="played", recorded_at=later)
    writer.write(revised)
    assert archive.outcomes_of(CUP)["mex-v-rsa"].revision == 1
    assert archive.results_before(CUP, later)["mex-v-rsa"].score_90.as_tuple() == (2, 1)
    assert archive.results_before(CUP, later - timedelta(seconds=1)) == {}  # the effective revision is later

    reloaded = load_archive(archive_dir)  # the view equals what a fresh load resolves from disk
    assert reloaded.outcomes_of(CUP) == archive.outcomes_of(CUP)
    assert sorted(reloaded.events_of(CUP), key=lambda e: e.id) == sorted(archive.events_of(CUP), key=lambda e: e.id)
    assert reloaded.forecasts_of(CUP) == archive.forecasts_of(CUP)
