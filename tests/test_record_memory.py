"""Loaded records share their field-name sets (memory), and nothing a user sees changes."""

from __future__ import annotations

import sys

from collector.archive.reader import RECORD_ADAPTER, load_archive
from collector.records import Forecast
from collector.records.byteform import record_bytes
from tests.factories import make_event, make_forecast, write_records

EVENT = make_event()


def _fields_set_bytes(model) -> int:
    return sys.getsizeof(model.__pydantic_fields_set__)


def test_records_loaded_from_files_share_one_fields_set_per_shape(tmp_path):
    records = [make_forecast(EVENT, forecaster=f"llm.model-{i}") for i in range(3)]
    write_records(tmp_path, records)
    loaded = [r for r in load_archive(tmp_path).records.values() if isinstance(r, Forecast)]
    assert len(loaded) == 3
    first, *others = loaded
    for other in others:
        assert other.__pydantic_fields_set__ is first.__pydantic_fields_set__
        assert other.payload.__pydantic_fields_set__ is first.payload.__pydantic_fields_set__
    assert first.model_fields_set == set(Forecast.model_fields)  # files hold every field


def test_a_copy_with_changes_does_not_change_the_fields_set_of_records_sharing_it():
    a, b = (RECORD_ADAPTER.validate_json(record_bytes(make_forecast(EVENT, forecaster=t))) for t in ("llm.a", "llm.b"))
    shared_before = set(b.model_fields_set)
    partial = Forecast.model_construct(_fields_set={"target_id"}, target_id="m3")  # a caller's own set of names
    copied = a.model_copy(update={"sample": 3})
    assert copied.sample == 3 and a.sample == 0
    assert b.model_fields_set == shared_before
    assert partial.model_fields_set == {"target_id"}
    assert a.model_fields_set == shared_before


def test_sharing_changes_neither_the_bytes_nor_equality():
    record = make_forecast(EVENT)
    data = record_bytes(record)
    loaded = RECORD_ADAPTER.validate_json(data)
    assert record_bytes(loaded) == data
    assert loaded == record


def test_a_loaded_forecast_holds_one_fields_set_per_shape_not_per_instance():
    """The memory the sharing saves: the sets of many loaded records are one set."""
    loaded = [RECORD_ADAPTER.validate_json(record_bytes(make_forecast(EVENT, forecaster=f"llm.m{i}"))) for i in range(50)]
    distinct = {id(r.__pydantic_fields_set__) for r in loaded} | {id(r.payload.__pydantic_fields_set__) for r in loaded}
    assert len(distinct) == 2
    assert _fields_set_bytes(loaded[0]) > 500  # what each instance carried before


def test_small_equal_values_are_one_object_and_records_keep_their_own_when_they_differ():
    from collector.records import Validation

    plain = [RECORD_ADAPTER.validate_json(record_bytes(make_forecast(EVENT, forecaster=f"llm.m{i}"))) for i in range(3)]
    told = make_forecast(EVENT, forecaster="llm.told", validation=Validation(
        normalized=True, original_sums={"p90": 1.02}, diagnostics={"sum_audit": 0.02}))
    loaded_told = RECORD_ADAPTER.validate_json(record_bytes(told))
    assert plain[0].validation is plain[1].validation is plain[2].validation  # nothing to tell: one report
    assert plain[0].payload.most_likely_score_90 is plain[1].payload.most_likely_score_90  # the same 1-0
    assert plain[0].attempts[0].tool_trace is plain[1].attempts[0].tool_trace
    assert loaded_told.validation is not plain[0].validation
    assert loaded_told.validation.diagnostics == {"sum_audit": 0.02}
    assert loaded_told.validation.original_sums == {"p90": 1.02}
    assert record_bytes(loaded_told) == record_bytes(told)
    assert [record_bytes(r) for r in plain] == [record_bytes(make_forecast(EVENT, forecaster=f"llm.m{i}")) for i in range(3)]


def test_forecasts_of_one_match_share_their_equal_timestamps_and_keep_their_bytes():
    from datetime import UTC, datetime, timezone

    built = make_forecast(EVENT, forecaster="llm.built", kickoff_utc=datetime(2026, 6, 11, 19, tzinfo=timezone.utc))
    loaded = [RECORD_ADAPTER.validate_json(record_bytes(make_forecast(
        EVENT, forecaster=f"llm.m{i}", kickoff_utc=datetime(2026, 6, 11, 19, tzinfo=UTC)))) for i in range(3)]
    assert loaded[0].kickoff_utc is loaded[1].kickoff_utc is loaded[2].kickoff_utc
    assert loaded[0].scheduled_at is loaded[2].scheduled_at
    for record in loaded:  # whichever equal instant was kept first, each record's bytes are its own
        assert record_bytes(RECORD_ADAPTER.validate_json(record_bytes(record))) == record_bytes(record)
        assert record.kickoff_utc.isoformat() == built.kickoff_utc.isoformat() == "2026-06-11T19:00:00+00:00"
