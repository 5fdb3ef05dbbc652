"""A call's generation stats are fetched once a tick: the forecaster's search look-up (an open-book answer
without server-tool counts) and the tick's statistics step share the first HTTP 200 answer, while a 404
is not kept and is asked again. Ticks against the local OpenRouter-format server (tests/fake_openrouter.py)."""

from __future__ import annotations

import tomllib
from collections import Counter
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from collector.archive.layout import path_for
from collector.archive.reader import load_archive
from collector.config import parse_config
from collector.forecasters.llm.forecaster import LLMForecaster
from collector.forecasters.llm.openrouter import OpenRouterClient
from collector.forecasters.roster import Roster
from collector.forecasters.tasks import Budget
from collector.records import Access, SearchFlag, SearchObserved
from collector.schedule.tick import run_tick, tick_clock
from tests.collection_helpers import FAKE_KEY
from tests.test_tick import CONFIG, run_cli

NOW = "2026-06-11T19:00:00Z"


def generation_asks(server) -> Counter:
    """How many times the server was asked each generation's stats."""
    asked = [urlsplit(g["path"]) for g in server.gets if urlsplit(g["path"]).path.endswith("/generation")]
    return Counter(parse_qs(url.query)["id"][0] for url in asked)


def llm_forecasts(root):
    archive = load_archive(root)
    assert archive.problems == []
    stats = {(s.forecast_path, s.attempt_index): s for group in archive.attempt_statistics.values() for s in group}
    return [f for f in archive.forecasts if f.forecaster == "test.model"], stats


@pytest.mark.parametrize("results", [6, 0])
def test_a_tick_asks_each_generation_once_and_writes_its_statistics_from_the_forecasters_answer(
    tmp_path, data_dir, server, results
):  # fmt: skip
    server.httpd.search_usage = False  # open-book answers report no server-tool use: the stats decide
    server.httpd.search_results = results
    assert run_cli(tmp_path, data_dir, NOW) == 0
    forecasts, stats = llm_forecasts(tmp_path / "archive")
    opened = [f for f in forecasts if f.access is Access.OPEN_BOOK]
    assert opened and len(opened) < len(forecasts)  # closed-book ones too (their stats asked by the step alone)
    answered = {(path_for(f), i): a for f in forecasts for i, a in enumerate(f.attempts) if a.http_status == 200}
    asks = generation_asks(server)
    assert asks == Counter({a.response_id: 1 for a in answered.values()})  # once per generation, both steps
    assert stats.keys() == answered.keys()  # one statistics record per answered attempt
    for key, s in stats.items():
        attempt, open_book = answered[key], "tools" in answered[key].request_body
        assert s.generation_id == attempt.response_id and s.provider == "OpenAI" and s.model == "test/model"
        assert s.search_results == (results if open_book else 0)  # the payload's values, as fetched
        assert s.web_search_engine == ("exa" if open_book else None)
        assert s.total_cost_usd == attempt.usage.cost_usd and s.raw["id"] == attempt.response_id
    for f in opened:  # the search flag still comes from num_search_results
        (attempt,) = f.attempts
        assert attempt.tool_trace.search_calls[-1] == {"source": "generation.num_search_results",
                                                       "num_search_results": results}  # fmt: skip
        assert f.search.observed is (SearchObserved.SEARCHED if results else SearchObserved.CITED_ONLY)
        assert f.search.flag is (SearchFlag.OK if results else SearchFlag.OPEN_BOOK_NO_SEARCH)


def test_a_404_at_the_forecasters_look_up_is_not_kept_the_statistics_step_asks_again(
    tmp_path, data_dir, server
):  # fmt: skip
    server.httpd.search_usage = False
    server.httpd.stats_not_ready = 3  # 404 for each generation's first three asks: all of the forecaster's tries
    config = parse_config(tomllib.loads(CONFIG), "arena.toml")
    now = datetime.fromisoformat(NOW).astimezone(UTC)
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    clock = tick_clock(now)
    client = OpenRouterClient(FAKE_KEY, server.base_url, settings=config.openrouter, clock=clock, sleep=sleep)
    llm = LLMForecaster(config.forecasters[0], config, client, Budget(config.spending_cap_usd), clock, data_dir)
    report = run_tick(config, tmp_path / "archive", now, data_dir, forecasters=Roster(forecasters=[llm], client=client))
    forecasts, stats = llm_forecasts(tmp_path / "archive")
    opened = [f for f in forecasts if f.access is Access.OPEN_BOOK]
    closed = [f for f in forecasts if f.access is Access.CLOSED_BOOK]
    assert opened and closed and sorted(sleeps) == sorted([1.0, 2.0] * len(opened))  # three asks each, concurrently
    asks = generation_asks(server)
    for f in opened:  # three 404s at the look-up, then the statistics step asked again and got the stats
        (attempt,) = f.attempts
        assert asks[attempt.response_id] == 4
        assert f.search.flag is SearchFlag.OPEN_BOOK_NO_SEARCH  # not known when the forecast was made
        s = stats[(path_for(f), 0)]
        assert s.generation_id == attempt.response_id and s.search_results == 6 and s.web_search_engine == "exa"
    for f in closed:  # asked once by the step, 404: no record this tick, a later tick asks again
        assert asks[f.attempts[0].response_id] == 1 and (path_for(f), 0) not in stats
    assert report.statistics == len(opened)
