"""No input can suppress a forecast (issue 53): whatever a provider sends, once a call was made its
record is written, valid, invalid or failed with the reason, and what the call cost is counted.

Each test breaks one step after the call on purpose (an answer the contract refuses, code that
fails on an answer, a record the writer refuses) and checks that the calls and their cost stay.
"""

from __future__ import annotations

import httpx
import pytest

from collector.archive.reader import load_archive
from collector.archive.write.writer import ArchiveWriter, SecretInRecordError
from collector.forecasters.llm import openrouter
from collector.forecasters.llm.withheld import bare, withheld
from collector.records import Attempt, ForecastStatus
from tests.collection_helpers import FAKE_KEY
from tests.fake_openrouter import completion
from tests.test_openrouter import forecast_with, good


def test_an_answer_the_contract_refuses_keeps_the_call_and_its_cost(monkeypatch):
    def refused(data, message):
        raise TypeError("a field of a shape no record takes")

    monkeypatch.setattr(openrouter, "parse_tool_trace", refused)
    record, _, harness = forecast_with([httpx.Response(200, json=completion(good()))])
    assert record.status is ForecastStatus.API_ERROR
    (attempt,) = record.attempts
    assert attempt.http_status == 200 and attempt.error.startswith("the answer cannot be recorded as sent (TypeError)")
    assert attempt.usage.cost_usd == pytest.approx(0.00123) == harness.budget.spent


def test_code_that_fails_on_an_answer_records_the_call_as_failed_with_the_reason(monkeypatch):
    from collector.forecasters.llm import forecaster

    def broken(text, event):
        raise KeyError("draw_90_prob")

    monkeypatch.setattr(forecaster, "validate_match", broken)
    record, _, harness = forecast_with([httpx.Response(200, json=completion(good()))])
    assert record.status is ForecastStatus.API_ERROR and len(record.attempts) == 1
    assert record.validation.errors == ("the answer could not be processed: KeyError: 'draw_90_prob'",)
    assert harness.budget.spent == pytest.approx(0.00123)


def test_a_record_that_still_holds_the_key_is_written_with_the_providers_texts_withheld(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", FAKE_KEY)
    record, _, _ = forecast_with([httpx.Response(200, json=completion(good()))])
    leaking = record.model_copy(update={"attempts": tuple(
        a.model_copy(update={"response_text": f"{a.response_text} {FAKE_KEY}", "provider": FAKE_KEY})
        for a in record.attempts)})  # as if a form of the key had passed the sanitiser
    writer = ArchiveWriter(tmp_path)
    with pytest.raises(SecretInRecordError):
        writer.write(leaking)
    kept = withheld(leaking, "it held a secret")
    path = writer.write(kept)
    (written,) = load_archive(tmp_path).forecasts
    assert written.status is ForecastStatus.VALID and written.payload.home_win_90 == record.payload.home_win_90
    (attempt,) = written.attempts
    assert isinstance(attempt, Attempt) and attempt.provider is None and attempt.usage == record.attempts[0].usage
    assert attempt.response_text.startswith("[withheld (it held a secret): ") and FAKE_KEY not in path
    failed = bare(leaking, "it held a secret")
    assert failed.status is ForecastStatus.API_ERROR and failed.payload is None and failed.attempts
