"""The record contract: strictness, invariants, exported schemas, the append-only store."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import orjson
import pytest
from pydantic import ValidationError

from collector.archive.layout import path_for
from collector.archive.reader import load_archive
from collector.archive.schema_export import schema_documents
from collector.archive.write.revise import next_revision
from collector.archive.write.writer import ArchiveWriter
from collector.errors import RecordExistsError
from collector.fixtures.match_records import OUTCOME_STATUS
from collector.records import (
    RECORD_MODELS,
    Event,
    Outcome,
    OutcomeStatus,
    ResolutionRule,
    Score,
)
from collector.records.byteform import record_bytes
from collector.sources.base import MatchStatus
from tests.conftest import REPO_ROOT

T0 = datetime(2026, 6, 1, 12, tzinfo=UTC)


def make_event(**changes) -> Event:
    fields = dict(
        recorded_at=T0,
        competition_id="worldcup-2026",
        id="mex-v-rsa",
        stage="group",
        group="A",
        kickoff_utc=datetime(2026, 6, 11, 19, tzinfo=UTC),
        kickoff_date=date(2026, 6, 11),
        kickoff_source="2026-06-11 13:00 UTC-6",
        home_team="mex",
        away_team="rsa",
        knockout=False,
        resolution=ResolutionRule.REGULATION,
        source="openfootball",
        source_retrieved_at=T0,
    )
    fields.update(changes)
    return Event(**fields)


def make_outcome(**changes) -> Outcome:
    fields = dict(
        recorded_at=T0 + timedelta(days=11),
        competition_id="worldcup-2026",
        event_id="mex-v-rsa",
        status=OutcomeStatus.FINISHED,
        score_90=Score(home=2, away=0),
        source="openfootball",
        source_retrieved_at=T0 + timedelta(days=11),
        source_payload={"score": {"ft": [2, 0]}},
    )
    fields.update(changes)
    return Outcome(**fields)


def test_records_are_frozen_and_forbid_unknown_fields():
    event = make_event()
    with pytest.raises(ValidationError):
        event.home_team = "esp"  # type: ignore[misc]
    data = orjson.loads(record_bytes(event))
    data["surprise"] = 1
    with pytest.raises(ValidationError, match="surprise"):
        Event.model_validate_json(orjson.dumps(data))


def test_timestamps_must_be_utc():
    with pytest.raises(ValidationError, match="timezone info"):
        make_event(recorded_at=datetime(2026, 6, 1, 12))
    with pytest.raises(ValidationError, match="offset of 0 required"):
        make_event(kickoff_utc=datetime(2026, 6, 11, 13, tzinfo=timezone(timedelta(hours=-6))))


def test_numbers_as_strings_are_rejected_from_json():
    data = orjson.loads(record_bytes(make_outcome()))
    data["score_90"]["home"] = "2"
    with pytest.raises(ValidationError, match="score_90.home"):
        Outcome.model_validate_json(orjson.dumps(data))


def test_postponed_outcome_cannot_carry_a_score():
    with pytest.raises(ValidationError, match="cannot carry a score"):
        make_outcome(status=OutcomeStatus.POSTPONED)
    assert make_outcome(status=OutcomeStatus.POSTPONED, score_90=None).score_90 is None


def test_only_finished_and_awarded_have_a_result_and_the_source_status_maps_onto_it():
    assert {s for s in OutcomeStatus if s.has_result} == {OutcomeStatus.FINISHED, OutcomeStatus.AWARDED}
    assert {s for s in MatchStatus if s.has_result} == {MatchStatus.FINISHED, MatchStatus.AWARDED}
    assert all(source.has_result == outcome.has_result for source, outcome in OUTCOME_STATUS.items())
    assert all(not s.has_result for s in MatchStatus if s not in OUTCOME_STATUS)


def test_extra_time_is_cumulative_and_shootouts_need_it():
    with pytest.raises(ValidationError, match="cumulative"):
        make_outcome(score_90=Score(home=1, away=1), score_extra_time=Score(home=0, away=1))
    with pytest.raises(ValidationError, match="needs score_extra_time"):
        make_outcome(score_90=Score(home=2, away=1), score_penalties=Score(home=3, away=4))
    # a level 90 minutes straight to a shoot-out: a competition with extra time only in its final
    assert make_outcome(score_90=Score(home=1, away=1), score_penalties=Score(home=3, away=4)).score_extra_time is None


def test_writer_is_append_only_and_stable(archive_dir):
    writer = ArchiveWriter(archive_dir)
    event = make_event()
    relative = writer.write(event)
    assert relative == "worldcup-2026/events/mex-v-rsa/event.r000.json"
    raw = (archive_dir / relative).read_bytes()
    assert raw.endswith(b"}\n") and raw == record_bytes(event)
    keys = list(orjson.loads(raw))
    assert keys == sorted(keys)
    with pytest.raises(RecordExistsError, match="append-only"):
        writer.write(make_event(venue="Mexico City"))
    assert (archive_dir / relative).read_bytes() == raw
    assert not [p for p in (archive_dir / relative).parent.iterdir() if p.name.endswith(".tmp")]


def test_reader_resolves_revisions_and_reports_every_problem(archive_dir):
    writer = ArchiveWriter(archive_dir)
    first = make_event()
    writer.write(first)
    moved = next_revision(
        first,
        make_event(kickoff_utc=datetime(2026, 6, 11, 21, tzinfo=UTC), kickoff_source="15:00 UTC-6"),
        reason="kickoff rescheduled",
        recorded_at=T0 + timedelta(days=1),
    )
    writer.write(moved)
    writer.write(make_outcome())
    # two hand-edited files: one broken JSON, one that no longer validates
    (archive_dir / "worldcup-2026/events/x-v-y").mkdir(parents=True)
    (archive_dir / "worldcup-2026/events/x-v-y/event.r000.json").write_text("{not json")
    bad = orjson.loads(record_bytes(make_outcome(event_id="rsa-v-mex")))
    bad["score_90"]["away"] = -1
    target = archive_dir / path_for(make_outcome(event_id="rsa-v-mex"))
    target.parent.mkdir(parents=True)
    target.write_bytes(orjson.dumps(bad))

    archive = load_archive(archive_dir)
    event = archive.events[("worldcup-2026", "mex-v-rsa")]
    assert event.revision == 1 and event.kickoff_utc.hour == 21
    assert event.supersedes == "worldcup-2026/events/mex-v-rsa/event.r000.json"
    assert len(archive.records) == 3
    problems = {p.path: p.message for p in archive.problems}
    assert set(problems) == {
        "worldcup-2026/events/x-v-y/event.r000.json",
        "worldcup-2026/events/rsa-v-mex/outcome.r000.json",
    }
    assert "score_90.away" in problems["worldcup-2026/events/rsa-v-mex/outcome.r000.json"]
    assert "-1" in problems["worldcup-2026/events/rsa-v-mex/outcome.r000.json"]


def test_a_record_moved_to_another_path_is_reported(archive_dir):
    event = make_event()
    wrong = archive_dir / "worldcup-2026/events/esp-v-uru/event.r000.json"
    wrong.parent.mkdir(parents=True)
    wrong.write_bytes(record_bytes(event))
    archive = load_archive(archive_dir)
    assert not archive.events
    assert "belongs at" in archive.problems[0].message


def test_exported_schemas_match_the_models():
    """Fails when a model changes and `python -m collector schema` was not re-run."""
    folder = REPO_ROOT / "archive" / "schema"
    expected = schema_documents()
    assert set(expected) == {f"{kind}.schema.json" for kind in RECORD_MODELS} | {"record.schema.json"}
    for name, data in expected.items():
        path = folder / name
        assert path.exists(), f"{path} missing: run python -m collector schema"
        assert path.read_bytes() == data, f"{path} differs from the model: run python -m collector schema"


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("field", ["lead_time_minutes", "original_sums"])
def test_a_hand_edited_non_finite_number_in_a_forecast_is_reported(field, literal):
    """Every float of the contract is finite: a NaN the reader let through would poison every mean."""
    from collector.archive.reader import parse_record
    from tests.factories import make_event as factory_event
    from tests.factories import make_forecast

    record = make_forecast(factory_event())
    data = record.model_dump(mode="json")
    if field == "lead_time_minutes":
        data["lead_time_minutes"] = "@"
    else:
        data["validation"]["original_sums"] = {"90": "@"}
    text = orjson.dumps(data).decode().replace('"@"', literal)
    parsed, problem = parse_record(path_for(record), text.encode())
    assert parsed is None and field in problem.message and "finite" in problem.message
