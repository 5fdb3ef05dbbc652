"""The news gatherer's answer is untrusted input: every defect is named, nothing is lost, and a failed
call is recorded like any attempt (collector/evidence/news.py)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest

from collector.config import parse_config
from collector.evidence.news import gather_news, parse_items
from collector.forecasters.llm.openrouter import OpenRouterClient
from collector.forecasters.tasks import Budget
from tests.collection_helpers import FAKE_KEY, make_event, world_cup
from tests.fake_openrouter import FakeOpenRouter

NOW = datetime(2026, 6, 10, 19, 30, tzinfo=UTC)


def item(**changes):
    base = {"url": "https://news.example.org/a", "title": "T", "publisher": "P",
            "published_at": "2026-06-09T08:00:00Z", "summary": "S"}
    base.update(changes)
    return base


def test_a_well_formed_answer_is_kept_verbatim_with_utc_times():
    items, errors = parse_items(json.dumps({"items": [item(), item(published_at="2026-06-09T10:00:00+02:00")]}), NOW)
    assert errors == []
    assert [i.published_at for i in items] == [datetime(2026, 6, 9, 8, tzinfo=UTC)] * 2
    assert all(i.retrieved_at == NOW and i.url == "https://news.example.org/a" for i in items)


@pytest.mark.parametrize(("answer", "needle"), [
    ("not json at all", "not JSON"),
    (json.dumps([1, 2]), "no list 'items'"),
    (json.dumps({"items": [{"title": "no url"}]}), "items[0]: no url"),
    (json.dumps({"items": [item(published_at="yesterday")]}), "items[0].published_at: not an ISO 8601 time"),
    (json.dumps({"items": [item(published_at="2026-06-09T08:00:00")]}), "items[0].published_at: no time zone"),
    (json.dumps({"items": [item(published_at=None)]}), "items[0].published_at: missing"),
])  # fmt: skip
def test_each_defect_is_named(answer, needle):
    _, errors = parse_items(answer, NOW)
    assert any(needle in e for e in errors), errors


def test_an_undated_item_is_kept_without_a_time_and_a_date_only_one_at_the_end_of_its_day():
    items, _ = parse_items(json.dumps({"items": [item(published_at="soon"), item(published_at="2026-06-09")]}), NOW)
    assert items[0].published_at is None
    assert items[1].published_at == datetime(2026, 6, 9, 23, 59, 59, tzinfo=UTC)


def arena():
    return parse_config({"arena": {"competitions": ["worldcup-2026"]}, "openrouter": {"max_attempts": 1},
                         "evidence": {"gatherer": {"model": "test/gatherer", "items": 2}}}, "test")


def gather(server) -> object:
    async def go():
        client = OpenRouterClient(FAKE_KEY, server.base_url, settings=arena().openrouter, clock=lambda: NOW)
        try:
            return await gather_news(arena(), client, Budget(1.0), world_cup(), make_event(), NOW,
                                     NOW + timedelta(hours=1), lambda: NOW)
        finally:
            await client.aclose()

    return asyncio.run(go())


@pytest.mark.slow
def test_the_gatherer_is_asked_under_the_open_book_protocol_and_its_call_is_recorded():
    with FakeOpenRouter() as server:
        digest = gather(server)
        body = server.seen[0]["body"]
    assert digest.status == "ok" and len(digest.items) == 2 and digest.response_text
    assert body["tools"][0]["type"] == "openrouter:web_search" and body["max_tool_calls"] == 3
    assert body["response_format"]["json_schema"]["name"] == "news_digest"
    assert digest.attempts[0].usage.cost_usd and digest.attempts[0].tool_trace.citations
    assert FAKE_KEY not in digest.model_dump_json()


def test_a_failed_gatherer_call_is_a_failed_digest_with_its_attempt():
    with FakeOpenRouter(mode="status:500") as server:
        digest = gather(server)
    assert digest.status == "failed" and digest.items == () and digest.errors
    assert digest.attempts and digest.attempts[0].http_status == 500
