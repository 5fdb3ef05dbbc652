"""The OpenRouter client and the LLM forecaster against respx, with bodies in OpenRouter's format."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import httpx
import pytest
import respx

from collector.errors import ConfigError
from collector.forecasters.llm.forecaster import LLMForecaster
from collector.forecasters.llm.openrouter import OpenRouterClient
from collector.forecasters.llm.protocol import build_body, resolve
from collector.forecasters.tasks import Budget, Deferred
from collector.records import (
    Access,
    AttemptRole,
    ForecastStatus,
    Horizon,
    SearchFlag,
    SearchObserved,
)
from collector.records.byteform import record_bytes
from collector.schedule.tick import tick_clock
from tests.collection_helpers import (
    FAKE_KEY,
    arena,
    knockout_event,
    make_question,
    make_task,
)
from tests.fake_openrouter import completion, match_answer, question_answer

BASE = "https://openrouter.test/api/v1"
URL = f"{BASE}/chat/completions"


def ok(content: str, **kw) -> httpx.Response:
    return httpx.Response(200, json=completion(content, **kw))


def good(knockout: bool = False, **changes) -> str:
    return json.dumps({**match_answer(knockout), **changes})


class Harness:
    """An LLM forecaster wired to respx; ``sleeps`` records every backoff delay."""

    def __init__(self, task, cap: float = 100.0):
        self.task, self.sleeps = task, []
        self.config = arena()

        async def sleep(seconds: float) -> None:
            self.sleeps.append(seconds)

        self.clock = tick_clock(task.now)
        self.client = OpenRouterClient(FAKE_KEY, BASE, settings=self.config.openrouter, sleep=sleep, clock=self.clock)
        self.budget = Budget(cap)
        self.forecaster = LLMForecaster(self.config.forecasters[0], self.config, self.client, self.budget, self.clock)

    def run(self):
        async def go():
            try:
                return await self.forecaster.forecast(self.task)
            finally:
                await self.client.aclose()

        return asyncio.run(go())


def forecast_with(responses, task=None, **kw):
    task = task or make_task()
    harness = Harness(task, **kw)
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).mock(side_effect=responses)
        record = harness.run()
    return record, route, harness


def sent(route, i: int = 0) -> dict:
    return json.loads(route.calls[i].request.content)


def test_closed_book_success_records_usage_cost_and_no_tools():
    record, route, _ = forecast_with([httpx.Response(200, json=completion(good(), metadata=True))])
    body = sent(route)
    assert "tools" not in body and "max_tool_calls" not in body
    assert body["response_format"]["type"] == "json_schema" and body["response_format"]["json_schema"]["strict"] is True
    assert record.protocol.structured_output.value == "json_schema"
    assert route.calls[0].request.headers["authorization"] == f"Bearer {FAKE_KEY}"
    assert record.status is ForecastStatus.VALID
    (attempt,) = record.attempts
    assert attempt.role is AttemptRole.FIRST and attempt.http_status == 200
    assert attempt.usage.cost_usd == pytest.approx(0.00123)
    assert (attempt.usage.reasoning_tokens, attempt.usage.cached_tokens) == (40, 128)
    assert attempt.response_id == "gen-1234567890" and attempt.provider == "OpenAI"
    assert attempt.served_model == "x/y" and attempt.finish_reason == "stop"
    assert json.loads(attempt.response_text)["choices"][0]["message"]["content"] == good()
    assert attempt.latency_ms is not None and attempt.latency_ms >= 0
    assert record.requested_at == attempt.started_at
    assert record.lead_time_minutes == pytest.approx((record.kickoff_utc - record.requested_at).total_seconds() / 60)


def test_open_book_uses_web_search_server_tool_and_keeps_the_trace():
    task = make_task(access=Access.OPEN_BOOK)
    record, route, _ = forecast_with([ok(good(), open_book=True)], task=task)
    body = sent(route)
    assert body["tools"][0]["type"] == "openrouter:web_search"
    assert ":online" not in body["model"] and "plugins" not in body
    trace = record.attempts[0].tool_trace
    assert trace.search_observed is SearchObserved.SEARCHED
    assert trace.citations[0].url == "https://example.org/team-news"
    assert trace.search_calls[0]["web_search_requests"] == 2


def test_citations_without_a_search_call_are_cited_only():
    data = completion(good(), open_book=True, search_usage=False)
    data["usage"]["server_tool_use_details"] = {"web_search_requests": 0}
    record, _, _ = forecast_with([httpx.Response(200, json=data)], task=make_task(access=Access.OPEN_BOOK))
    assert record.attempts[0].tool_trace.search_observed is SearchObserved.CITED_ONLY


def test_429_with_retry_after_is_honoured_and_both_attempts_kept():
    limited = httpx.Response(429, headers={"Retry-After": "7"}, json={"error": {"code": 429, "message": "Rate limited"}})
    record, route, harness = forecast_with([limited, ok(good())])
    assert harness.sleeps == [7.0]
    assert [a.role for a in record.attempts] == [AttemptRole.FIRST, AttemptRole.RETRY]
    assert record.attempts[0].http_status == 429 and "Rate limited" in record.attempts[0].response_text
    assert record.status is ForecastStatus.VALID


def test_503_every_time_is_an_api_error_with_every_attempt():
    down = httpx.Response(503, json={"error": {"code": 503, "message": "No available provider"}})
    record, route, _ = forecast_with([down, down, down])
    assert record.status is ForecastStatus.API_ERROR
    assert len(record.attempts) == 3 == len(route.calls)
    assert record.payload is None and record.requested_at is not None


def test_timeout_is_recorded_as_timeout():
    record, _, _ = forecast_with([httpx.ReadTimeout("slow"), httpx.ReadTimeout("slow"), httpx.ReadTimeout("slow")])
    assert record.status is ForecastStatus.TIMEOUT
    assert all(a.error and "within" in a.error for a in record.attempts)


def test_error_inside_http_200_is_retried():
    inside = httpx.Response(200, json={"error": {"code": 502, "message": "Provider returned error"}})
    record, _, _ = forecast_with([inside, ok(good())])
    assert record.status is ForecastStatus.VALID
    assert "error inside HTTP 200" in record.attempts[0].error
    assert record.attempts[0].http_status == 200


def test_model_rejecting_response_format_is_asked_again_without_it():
    rejected = httpx.Response(400, json={"error": {"code": 400, "message": "response_format is not supported"}})
    record, route, _ = forecast_with([rejected, rejected, ok(good())])
    modes = [sent(route, i).get("response_format", {}).get("type") for i in range(3)]
    assert modes == ["json_schema", "json_object", None]  # one mode lower each time, the mode used recorded
    assert [a.role for a in record.attempts] == [AttemptRole.FIRST, AttemptRole.FALLBACK, AttemptRole.FALLBACK]
    assert record.status is ForecastStatus.VALID and record.protocol.structured_output.value == "none"


def test_truncated_output_gets_one_retry_with_more_tokens():
    cut = httpx.Response(200, json=completion(good()[:40], finish_reason="length"))
    record, route, _ = forecast_with([cut, ok(good())])
    assert sent(route, 1)["max_tokens"] == 2 * sent(route, 0)["max_tokens"]
    assert [a.role for a in record.attempts] == [AttemptRole.FIRST, AttemptRole.TRUNCATION_RETRY]
    assert record.attempts[0].finish_reason == "length"
    assert record.status is ForecastStatus.VALID


def test_markdown_around_json_is_valid():
    record, _, _ = forecast_with([ok("```json\n" + good() + "\n```")])
    assert record.status is ForecastStatus.VALID


@pytest.mark.parametrize(
    ("changes", "status"),
    [
        ({"home_win_90_prob": 0.49}, ForecastStatus.NORMALIZED),  # sums to 0.99
        ({"home_win_90_prob": 0.8}, None),  # sums to 1.3
        ({"draw_90_prob": -0.1, "home_win_90_prob": 0.9}, None),  # negative
        ({"home_win_90_prob": "0.5"}, None),  # a string
    ],
)
def test_bad_probabilities_then_repair_fails(changes, status):
    first = ok(good(**changes))
    record, route, _ = forecast_with([first, ok(good(**changes))])
    if status is ForecastStatus.NORMALIZED:
        assert record.status is status and len(route.calls) == 1
        assert record.validation.original_sums["90"] == pytest.approx(0.99) and record.validation.normalized
        return
    assert record.status is ForecastStatus.INVALID_AFTER_REPAIR
    assert [a.role for a in record.attempts] == [AttemptRole.FIRST, AttemptRole.REPAIR]
    assert record.payload is None and record.validation.repaired


def test_repair_that_succeeds_quotes_errors_and_repeats_the_match_context():
    record, route, _ = forecast_with([ok(good(home_win_90_prob=0.8)), ok(good())])
    assert record.status is ForecastStatus.REPAIRED
    repair = sent(route, 1)["messages"][-1]["content"]
    assert "sum to 1.3000" in repair
    assert "Home/listed first team: Mexico" in repair and "Away/listed second team: South Africa" in repair
    assert good(home_win_90_prob=0.8) in repair
    assert [a.role for a in record.attempts] == [AttemptRole.FIRST, AttemptRole.REPAIR]
    assert all(a.usage.cost_usd == pytest.approx(0.00123) for a in record.attempts)
    assert record.validation.diagnostics["status_before_repair"] == "invalid_sum"


def test_repair_that_normalises_is_repaired_and_normalized():
    record, _, _ = forecast_with([ok("I think Mexico wins."), ok(good(home_win_90_prob=0.49))])
    assert record.status is ForecastStatus.REPAIRED_AND_NORMALIZED


def test_knockout_answer_without_advancement_is_repaired():
    task = make_task(event=knockout_event())
    record, _, _ = forecast_with([ok(good(False)), ok(good(True))], task=task)
    assert record.status is ForecastStatus.REPAIRED
    assert record.payload.home_advances == pytest.approx(0.6)


def test_question_with_unknown_team_fails_then_repairs():
    q = make_question()
    task = make_task(question=q, horizon=Horizon.STAGE_OPENING)
    prompt_answer = question_answer("Valid candidates:\n- Mexico\n- South Africa\n- South Korea\n- Czech Republic\n")
    bad = json.loads(json.dumps(prompt_answer))
    bad["choices"][1]["team"] = "Atlantis"
    record, route, _ = forecast_with([ok(json.dumps(bad)), ok(json.dumps(prompt_answer))], task=task)
    assert record.status is ForecastStatus.REPAIRED
    assert "unknown team 'Atlantis'" in sent(route, 1)["messages"][-1]["content"]
    assert "Valid candidates:" in sent(route, 1)["messages"][-1]["content"]
    assert {c.team for c in record.payload.choices} == {"mex", "rsa", "kor", "cze"}


def test_spending_cap_defers_without_a_record():
    harness = Harness(make_task(), cap=0.0)
    with pytest.raises(Deferred):
        harness.run()


def test_no_request_at_or_after_kickoff():
    task = make_task()
    task = make_task(now=task.deadline, scheduled_at=task.deadline - timedelta(hours=24))
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).mock(return_value=ok(good()))
        with pytest.raises(Deferred):
            Harness(task).run()
    assert not route.calls


def test_api_key_never_in_records_or_errors_even_if_echoed():
    echo = httpx.Response(401, json={"error": {"code": 401, "message": f"bad key {FAKE_KEY}"}})
    record, _, _ = forecast_with([echo])
    assert record.status is ForecastStatus.API_ERROR
    assert FAKE_KEY not in record_bytes(record).decode()
    assert "[redacted]" in record.attempts[0].response_text


def test_missing_key_is_a_config_error(monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENROUTER_API_KEY"):
        OpenRouterClient.from_env()


def test_build_body_has_no_credentials_and_closed_book_has_no_tools():
    config = arena()
    settings = resolve(config, config.forecasters[0], Access.CLOSED_BOOK)
    closed = build_body("m/x", [{"role": "user", "content": "hi"}], settings)
    assert "tools" not in closed and "plugins" not in closed
    assert all("key" not in k.lower() and "auth" not in k.lower() for k in closed)


def test_a_search_under_closed_book_is_flagged_for_audit():
    record, _, _ = forecast_with([ok(good(), open_book=True)])  # the provider searched anyway
    assert record.status is ForecastStatus.VALID
    assert record.search.flag is SearchFlag.CLOSED_BOOK_SEARCH and record.search.requests == 2
    open_record, _, _ = forecast_with([ok(good(), open_book=True)], task=make_task(access=Access.OPEN_BOOK))
    assert open_record.search.flag is SearchFlag.OK and open_record.search.observed is SearchObserved.SEARCHED
    unused = completion(good())
    unused["usage"]["server_tool_use_details"] = {"web_search_requests": 0}  # offered, not used
    quiet, _, _ = forecast_with([httpx.Response(200, json=unused)], task=make_task(access=Access.OPEN_BOOK))
    assert quiet.search.flag is SearchFlag.OPEN_BOOK_NO_SEARCH and quiet.search.requests == 0


@pytest.mark.parametrize(
    "body",
    [b"<html>Bad gateway</html>", b'{"choices": []}', b'{"choices": [{"message": "text"}]}', b"[1, 2]"],
)
def test_malformed_200_bodies_are_retried_then_recorded_verbatim(body):
    bad = httpx.Response(200, content=body, headers={"content-type": "application/json"})
    record, route, _ = forecast_with([bad, bad, bad])
    assert record.status is ForecastStatus.API_ERROR and len(route.calls) == 3
    assert all(a.response_text == body.decode() and a.http_status == 200 for a in record.attempts)


def test_an_answer_with_a_lone_surrogate_becomes_a_record_that_can_be_written():
    """JSON may escape half of an emoji ("\\ud83d"); the validated record must still encode as UTF-8."""
    text = good(reason="PLACEHOLDER").replace("PLACEHOLDER", "\\ud83d half an emoji")
    record, _, _ = forecast_with([ok(text)])
    assert record.status is ForecastStatus.VALID
    assert "\ufffd half an emoji" in record_bytes(record).decode()


def test_an_answer_with_a_number_too_large_for_a_float_is_kept_and_repaired():
    """No crash that would lose the paid attempts: the first answer is recorded, the repair used."""
    huge = json.dumps({**match_answer(False), "draw_90_prob": 10**400})
    record, route, _ = forecast_with([ok(huge), ok(good())])
    assert record.status is ForecastStatus.REPAIRED and len(route.calls) == 2
    assert record.validation.diagnostics["status_before_repair"] == "invalid_range"
    assert "1" + "0" * 400 in record.attempts[0].response_text


def _mangled(change) -> httpx.Response:
    body = completion(good())
    change(body, body["choices"][0]["message"])
    return httpx.Response(200, json=body)


@pytest.mark.parametrize("change", [
    lambda body, message: message.update(tool_calls=5),
    lambda body, message: message.update(tool_calls=[{"type": "function", "function": "web_search"}]),
    lambda body, message: message.update(annotations=5),
    lambda body, message: body.update(search_results=3),
])  # fmt: skip
def test_trace_fields_of_the_wrong_shape_are_ignored_and_the_forecast_kept(change):
    """A provider's odd trace field must not crash the call and lose the paid, valid answer."""
    record, route, _ = forecast_with([_mangled(change)])
    assert record.status is ForecastStatus.VALID and len(route.calls) == 1
    assert record.attempts[0].tool_trace.search_observed is SearchObserved.NONE
    assert record.attempts[0].usage.cost_usd == pytest.approx(0.00123)


def test_content_parts_that_are_not_text_are_skipped():
    parts = [{"type": "text", "text": 5}, {"type": "text", "text": good()}, "junk"]
    record, route, _ = forecast_with([_mangled(lambda body, message: message.update(content=parts))])
    assert record.status is ForecastStatus.VALID and len(route.calls) == 1
