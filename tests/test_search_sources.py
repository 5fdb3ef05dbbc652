"""Where an open-book call's search is read from: ``usage.server_tool_use_details`` (OpenRouter's ChatUsage
schema), the older ``usage.server_tool_use``, and, when the completion reports neither, the call's
generation stats (``num_search_results``), asked again while they are not queryable yet (404)."""

from __future__ import annotations

import httpx
import respx

from collector.records import Access, SearchFlag, SearchObserved
from tests.fake_openrouter import completion
from tests.test_openrouter import BASE, URL, Harness, good, make_task

GENERATION = f"{BASE}/generation"


def run(chat: list[httpx.Response], stats: list[httpx.Response] | None = None):
    harness = Harness(make_task(access=Access.OPEN_BOOK))
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).mock(side_effect=chat)
        asked = mock.get(GENERATION).mock(side_effect=stats or [httpx.Response(404)])
        record = harness.run()
    return record, asked, harness


def answer(**usage_keys) -> httpx.Response:
    data = completion(good(), open_book=True, search_usage=False)
    data["usage"].update(usage_keys)
    return httpx.Response(200, json=data)


def test_server_tool_use_details_is_read_and_the_older_key_still_is():
    for key in ("server_tool_use_details", "server_tool_use"):
        record, asked, _ = run([answer(**{key: {"web_search_requests": 3, "tool_calls_executed": 3}})])
        (attempt,) = record.attempts
        assert attempt.usage.web_search_requests == 3 and record.search.requests == 3
        assert attempt.tool_trace.search_calls[0]["source"] == f"usage.{key}"
        assert record.search.flag is SearchFlag.OK and not asked.called  # no second source needed


def test_zero_searches_reported_in_usage_is_taken_as_is():
    record, asked, _ = run([answer(server_tool_use_details={"web_search_requests": 0})])
    assert record.search.observed is SearchObserved.CITED_ONLY and record.search.flag is SearchFlag.OPEN_BOOK_NO_SEARCH
    assert not asked.called


def test_without_server_tool_use_the_generation_stats_decide_asked_again_after_a_404():
    stats = [httpx.Response(404), httpx.Response(200, json={"data": {"id": "gen-1234567890", "num_search_results": 6}})]
    record, asked, harness = run([answer()], stats)
    (attempt,) = record.attempts
    assert asked.call_count == 2 and harness.sleeps == [1.0]
    assert asked.calls[0].request.url.params["id"] == "gen-1234567890"
    assert attempt.tool_trace.search_calls[-1] == {"source": "generation.num_search_results", "num_search_results": 6}
    assert record.search.observed is SearchObserved.SEARCHED and record.search.flag is SearchFlag.OK
    assert attempt.usage.web_search_requests is None  # the count of searches stays unknown; only that it searched


def test_generation_stats_with_no_results_or_never_ready_leave_the_flag_raised():
    zero = [httpx.Response(200, json={"data": {"num_search_results": 0}})]
    for stats in (zero, [httpx.Response(404)] * 3):
        record, asked, _ = run([answer()], stats)
        assert record.search.flag is SearchFlag.OPEN_BOOK_NO_SEARCH and asked.call_count == len(stats)
