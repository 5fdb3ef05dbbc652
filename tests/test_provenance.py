"""Provenance from the documented places: openrouter_metadata, usage (cost_details, server_tool_use),
the generation endpoint as attempt statistics records, timed-out calls counted by the cap, the manifest hash."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest
import respx

from collector.archive.layout import path_for
from collector.archive.reader import load_archive
from collector.forecasters.llm.generation import (
    extra_cost,
    pending_generations,
    statistics_record,
)
from collector.forecasters.llm.observed import estimated_cost
from collector.forecasters.llm.protocol import arena_protocol_sha256
from collector.records import RECORD_ADAPTER, Access, Clock, ForecastStatus
from tests.collection_helpers import make_task
from tests.fake_openrouter import match_answer, recorded
from tests.test_openrouter import URL, Harness, forecast_with
from tests.test_tick import CONFIG, run_cli


def recorded_completion(content: str) -> httpx.Response:
    data = recorded("completion_open_book.json")
    data["choices"][0]["message"]["content"] = content
    return httpx.Response(200, json=data)


def test_every_field_read_from_the_recorded_open_book_completion():
    record, _, _ = forecast_with([recorded_completion(json.dumps(match_answer(False)))],
                                 task=make_task(access=Access.OPEN_BOOK))  # fmt: skip
    (attempt,) = record.attempts
    assert attempt.response_id == "gen-1781000000-AbCdEf0123" and attempt.served_model == "openai/gpt-5.5"
    assert attempt.provider == "OpenAI"  # openrouter_metadata.endpoints.available[selected]
    assert attempt.fallback_attempts == 1  # openrouter_metadata.attempt = 2
    u = attempt.usage
    assert (u.prompt_tokens, u.completion_tokens, u.reasoning_tokens, u.cached_tokens) == (9812, 1164, 640, 128)
    assert u.cost_usd == pytest.approx(0.0912) and u.upstream_cost_usd == pytest.approx(0.0852)
    assert u.web_search_requests == 2
    assert [c.url for c in record.search.citations] == ["https://example.org/team-news", "https://example.org/injuries"]
    assert record.search.requests == 2 and record.search.flag.value == "ok"
    assert attempt.finish_reason == "stop"


def test_fields_of_the_wrong_type_in_metadata_are_dropped_not_guessed():
    data = recorded("completion_open_book.json")
    data["choices"][0]["message"]["content"] = json.dumps(match_answer(False))
    data["openrouter_metadata"] = {"attempt": "2", "endpoints": {"available": [{"provider": 7, "selected": True}]}}
    data["usage"]["cost_details"] = {"upstream_inference_cost": "lots"}
    data["usage"]["server_tool_use_details"] = {"web_search_requests": -1}
    record, _, _ = forecast_with([httpx.Response(200, json=data)])
    (attempt,) = record.attempts
    assert (attempt.provider, attempt.fallback_attempts) == (None, None)
    assert attempt.usage.upstream_cost_usd is None and attempt.usage.web_search_requests is None
    assert record.status is ForecastStatus.VALID


def test_every_field_read_from_the_recorded_generation_stats():
    record, _, _ = forecast_with([recorded_completion(json.dumps(match_answer(False)))])
    assert pending_generations(record, set()) == [(0, "gen-1781000000-AbCdEf0123")]
    assert pending_generations(record, {"gen-1781000000-AbCdEf0123"}) == []
    stats = statistics_record(
        recorded("generation.json"), forecast=record, forecast_path=path_for(record), attempt_index=0,
        generation_id="gen-1781000000-AbCdEf0123", recorded_at=datetime(2026, 6, 10, 12, 1, tzinfo=UTC), clock=Clock.LIVE,
    )  # fmt: skip
    assert (stats.provider, stats.model, stats.web_search_engine) == ("Infermatic", "sao10k/l3-stheno-8b", "exa")
    assert (stats.search_results, stats.native_reasoning_tokens) == (5, 5)
    assert (stats.native_prompt_tokens, stats.native_completion_tokens) == (10, 25)
    assert stats.total_cost_usd == pytest.approx(0.0015) and stats.fallback_attempts == 0
    assert stats.cancelled is False and stats.finish_reason == "stop"
    assert extra_cost(stats, record) == 0.0  # the recorded usage.cost (0.0912) already counted more
    billed = recorded("generation.json")
    billed["data"]["total_cost"] = 0.0936
    more = statistics_record(billed, forecast=record, forecast_path=path_for(record), attempt_index=0,
                             generation_id="gen-1781000000-AbCdEf0123", recorded_at=stats.recorded_at, clock=Clock.LIVE)
    assert extra_cost(more, record) == pytest.approx(0.0936 - 0.0912)  # what the cap adds on arrival
    path = path_for(stats)
    assert "/statistics/" in path and path.endswith(".a0.gen-1781000000-AbCdEf0123.json")
    assert path.replace("/statistics/", "/forecasts/").rsplit(".a0.", 1)[0] + ".json" == path_for(record)
    assert RECORD_ADAPTER.validate_json(stats.model_dump_json()) == stats
    assert statistics_record({"error": {"code": 404}}, forecast=record, forecast_path="x", attempt_index=0,
                             generation_id="g", recorded_at=stats.recorded_at, clock=Clock.LIVE) is None  # fmt: skip


def test_a_timed_out_call_is_estimated_at_once_and_counted_by_the_cap():
    task = make_task(access=Access.OPEN_BOOK)
    harness = Harness(task)
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).mock(side_effect=httpx.ReadTimeout("slow"))
        record = harness.run()
    assert record.status is ForecastStatus.TIMEOUT and len(record.attempts) == 3
    assert all(a.timed_out and a.estimated_cost_usd == 0.05 for a in record.attempts)  # no prices: the flat estimate
    assert harness.budget.spent == pytest.approx(3 * 0.05)
    assert record.usage.cost_usd is None  # an estimate is never mixed into the billed cost


def test_the_estimate_with_prices_by_hand():
    config = Harness(make_task()).config
    from collector.config import Prices

    prices = Prices(prompt_per_mtok=5.0, completion_per_mtok=30.0)
    prompt = "x" * 4000  # 1,000 tokens at 4 characters each
    closed = estimated_cost(config.protocol, prices, {"max_tokens": 5000}, prompt)
    assert closed == pytest.approx((1000 * 5 + 5000 * 30) / 1e6)
    opened = estimated_cost(config.protocol, prices, {"max_tokens": 5000, "tools": [{}]}, prompt)
    # + 3 search requests (max_tool_calls) at USD 0.007 + 6 results' content (low context: 5,000
    # characters each) as input tokens
    assert opened == pytest.approx(closed + 3 * 0.007 + 6 * 5000 / 4 * 5 / 1e6)


@pytest.mark.slow
def test_a_tick_writes_attempt_statistics_once_and_the_manifest_carries_the_protocol_hash(
    tmp_path, data_dir, server  # noqa: F811
):  # fmt: skip
    run_cli(tmp_path, data_dir, "2026-06-11T19:00:00Z")
    archive = load_archive(tmp_path / "archive")
    assert archive.problems == []
    llm = [f for f in archive.forecasts if f.forecaster == "test.model"]
    stats = [s for group in archive.attempt_statistics.values() for s in group]
    assert len(stats) == len(llm) > 0
    by_path = {path_for(f): f for f in llm}
    for s in stats:
        forecast = by_path[s.forecast_path]
        assert forecast.attempts[s.attempt_index].response_id == s.generation_id
        assert s.provider == "OpenAI" and s.total_cost_usd == forecast.attempts[s.attempt_index].usage.cost_usd
    asked = [g["path"] for g in server.gets]
    assert asked[0] == "/api/v1/models"  # the tick checks the models first (collector/schedule/model_check.py)
    assert len(asked[1:]) == len(stats) and all(p.startswith("/api/v1/generation?id=gen-") for p in asked[1:])
    import tomllib

    from collector.config import parse_config

    expected = arena_protocol_sha256(parse_config(tomllib.loads(CONFIG), "arena.toml"))
    (manifest,) = archive.manifests
    assert manifest.protocol_sha256 == expected and all(f.protocol.sha256 for f in llm)
    run_cli(tmp_path, data_dir, "2026-06-11T19:05:00Z")  # nothing new: no second statistics record
    again = load_archive(tmp_path / "archive")
    assert sum(len(v) for v in again.attempt_statistics.values()) == len(stats)


def test_the_recorded_error_shape_is_kept_verbatim_and_named():
    err = recorded("error_402.json")
    record, route, _ = forecast_with([httpx.Response(402, json=err)] * 3)
    assert record.status is ForecastStatus.API_ERROR
    assert json.loads(record.attempts[0].response_text)["error"]["message"] == "Insufficient credits"
    assert record.attempts[0].http_status == 402 and record.search is None and record.protocol is not None


class _Stats:
    """A client whose generation endpoint answers 404 until ``ready``, then the recorded stats."""

    def __init__(self):
        self.ready, self.asked = False, []

    async def generation_stats(self, generation_id, *, deadline):
        self.asked.append(generation_id)
        billed = recorded("generation.json")
        billed["data"]["total_cost"] = 0.0936  # more than the completion's usage.cost (0.0912)
        return (200, billed) if self.ready else (404, None)


def test_statistics_not_yet_available_are_fetched_by_a_later_tick(tmp_path):
    import asyncio
    from types import SimpleNamespace

    from collector.archive.reader import load_archive as load
    from collector.archive.write.writer import ArchiveWriter
    from collector.forecasters.tasks import Budget
    from collector.schedule.statistics import fetch_statistics
    from collector.schedule.tick import TickReport

    forecast, _, _ = forecast_with([recorded_completion(json.dumps(match_answer(False)))])
    root = tmp_path / "archive"
    root.mkdir()
    ArchiveWriter(root, load(root)).write(forecast)
    client = _Stats()

    def tick():
        archive = load(root)
        now = forecast.recorded_at
        return SimpleNamespace(archive=archive, writer=ArchiveWriter(root, archive), now=now, timer=lambda: now,
                               stop=now.replace(year=now.year + 1), clock=Clock.LIVE, report=TickReport(now),
                               budget=Budget(10.0), gate=asyncio.Semaphore(4))  # fmt: skip

    first = tick()
    assert asyncio.run(fetch_statistics(first, client)) == 0 and first.report.problems == []
    client.ready = True
    second = tick()
    assert asyncio.run(fetch_statistics(second, client)) == 1
    assert second.budget.spent == pytest.approx(0.0936 - 0.0912)  # the stats bill more than usage.cost said
    third = tick()
    assert asyncio.run(fetch_statistics(third, client)) == 0  # written once
    assert client.asked == ["gen-1781000000-AbCdEf0123"] * 2
    (stats,) = load(root).attempt_statistics[path_for(forecast)]
    assert stats.search_results == 5 and stats.web_search_engine == "exa"


def test_a_timed_out_call_keeps_its_generation_id_and_its_real_cost_arrives_with_the_stats():
    """Headers (X-Generation-Id) came, the body did not: the id is kept and the stats are fetched later."""
    import asyncio

    from collector.forecasters.llm.openrouter import OpenRouterClient
    from tests.collection_helpers import FAKE_KEY
    from tests.test_openrouter import BASE

    async def slow_body():
        yield b'{"id": "gen-'
        await asyncio.sleep(30)

    harness = Harness(make_task())
    settings = harness.config.openrouter.model_copy(update={"total_timeout_s": 0.3, "max_attempts": 1})
    harness.client = harness.forecaster.client = OpenRouterClient(FAKE_KEY, BASE, settings=settings, clock=harness.clock)
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).mock(side_effect=lambda request: httpx.Response(
            200, headers={"X-Generation-Id": "gen-timed-out-1"}, content=slow_body()))  # fmt: skip
        record = harness.run()
    assert record.status is ForecastStatus.TIMEOUT
    (first,) = record.attempts
    assert first.timed_out and first.response_id == "gen-timed-out-1" and first.estimated_cost_usd == 0.05
    assert harness.budget.spent == pytest.approx(0.05)  # counted at once
    assert pending_generations(record, set()) == [(0, "gen-timed-out-1")]
    stats = statistics_record(
        recorded("generation.json"), forecast=record, forecast_path=path_for(record), attempt_index=0,
        generation_id="gen-timed-out-1", recorded_at=record.recorded_at, clock=Clock.LIVE,
    )  # fmt: skip
    assert extra_cost(stats, record) == 0.0  # the published example bills USD 0.0015, below the estimate
    billed = recorded("generation.json")
    billed["data"]["total_cost"] = 0.0936
    stats = statistics_record(billed, forecast=record, forecast_path=path_for(record), attempt_index=0,
                              generation_id="gen-timed-out-1", recorded_at=record.recorded_at, clock=Clock.LIVE)
    assert extra_cost(stats, record) == pytest.approx(0.0936 - 0.05)  # the real cost beyond the estimate
