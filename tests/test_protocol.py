"""The request protocol: every model of the default roster and each access condition against a local
server that checks the request bodies; the recorded protocol hash; the manifest's hash."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from collector.config import load_config, parse_config
from collector.forecasters.llm import prompting
from collector.forecasters.llm.forecaster import LLMForecaster
from collector.forecasters.llm.openrouter import OpenRouterClient
from collector.forecasters.llm.protocol import (
    arena_protocol_sha256,
    resolve,
    settings_sha256,
)
from collector.forecasters.tasks import Budget
from collector.records import Access, ForecastStatus
from collector.schedule.tick import tick_clock
from tests.collection_helpers import FAKE_KEY, knockout_event, make_task
from tests.fake_openrouter import FakeOpenRouter, body_problems

ROOT = Path(__file__).resolve().parent.parent


def default_config():
    return load_config(ROOT / "prematch.toml")


def ask_every_model(config, server):
    """One forecast per (LLM of ``config``, access, strategy) for a knockout match, through the real client."""
    task0 = make_task(event=knockout_event())
    clock = tick_clock(task0.now)
    cells = [(f, a, s) for f in config.enabled_forecasters() if f.type == "llm" for a in config.access
             for s in prompting.TEMPLATE_STRATEGIES]

    async def go():
        client = OpenRouterClient(FAKE_KEY, server.base_url, settings=config.openrouter, clock=clock)
        try:
            out = []
            for cfg, access, strategy in cells:
                forecaster = LLMForecaster(cfg, config, client, Budget(100.0), clock)
                record = await forecaster.forecast(make_task(event=task0.event, access=access, strategy=strategy))
                out.append((cfg, access, record))
            return out
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_every_default_model_gets_the_same_search_and_output_settings_with_its_routing_and_reasoning():
    config = default_config()
    llms = [f for f in config.enabled_forecasters() if f.type == "llm"]
    assert len(llms) == 7
    with FakeOpenRouter() as server:
        results = ask_every_model(config, server)
    bodies = [s["body"] for s in server.seen]
    assert len(bodies) == len(results) == 7 * 2 * 2  # one call each: the server accepted every body
    assert all(body_problems(b) == [] for b in bodies) and all(s["metadata_header"] for s in server.seen)
    assert all(r.status is ForecastStatus.VALID for _, _, r in results)
    by_model = {}
    for body in bodies:
        by_model.setdefault(body["model"], []).append(body)
    for access_open in (False, True):
        same = [b for b in bodies if ("tools" in b) == access_open]
        assert len(same) == 14
        # identical search and output settings for every model in this access condition
        shared = {(str(b.get("tools")), b.get("max_tool_calls"), b["max_tokens"], b["response_format"]["type"],
                   b["response_format"].get("json_schema", {}).get("strict")) for b in same}  # fmt: skip
        assert len(shared) == 1
    open_tool = next(b for b in bodies if "tools" in b)["tools"]
    assert open_tool == [{"type": "openrouter:web_search", "parameters": {
        "engine": "exa", "max_results": 3, "max_total_results": 6, "search_context_size": "low"}}]  # fmt: skip
    assert {b["max_tool_calls"] for b in bodies if "tools" in b} == {3}
    assert {b["max_tokens"] for b in bodies} == {5000}
    for cfg in llms:
        sent = by_model[cfg.model]
        assert all(b["provider"] == {"allow_fallbacks": True, "require_parameters": True} for b in sent)
        if cfg.reasoning_supported:
            assert all(b["reasoning"] == {"effort": "medium", "exclude": False} for b in sent), cfg.id
        else:
            assert all("reasoning" not in b for b in sent), cfg.id
        assert all(("temperature" in b) == cfg.honours_temperature for b in sent), cfg.id
        assert all(b.get("temperature", 0.0) == 0.0 for b in sent)
    for cfg, access, record in results:  # the record keeps what was sent and its hash
        settings = resolve(config, cfg, access)
        assert record.protocol.settings == settings and record.protocol.sha256 == settings_sha256(settings)
        assert record.protocol.structured_output.value == "json_schema"
        assert record.model_version == cfg.version


def test_routing_preferences_per_model_are_sent_as_configured():
    data = {
        "arena": {"competitions": ["worldcup-2026"]},
        "forecasters": [{"id": "a.m", "type": "llm", "model": "a/m", "version": "a/m-1",
                         "routing": {"order": ["deepinfra", "together"], "allow_fallbacks": False,
                                     "quantizations": ["fp8", "bf16"]},
                         "reasoning": {"max_tokens": 2000}}],
    }  # fmt: skip
    config = parse_config(data, "t.toml")
    with FakeOpenRouter() as server:
        ask_every_model(config, server)
    body = server.seen[0]["body"]
    assert body["provider"] == {"order": ["deepinfra", "together"], "allow_fallbacks": False,
                                "require_parameters": True, "quantizations": ["fp8", "bf16"]}  # fmt: skip
    assert body["reasoning"] == {"max_tokens": 2000, "exclude": False}


BASE = {"arena": {"competitions": ["worldcup-2026"]},
        "forecasters": [{"id": "a.m", "type": "llm", "model": "a/m", "version": "a/m-1"}]}  # fmt: skip
CHANGES = [
    ("protocol", {"search": {"engine": "native"}}),
    ("protocol", {"search": {"max_results": 4}}),
    ("protocol", {"search": {"max_total_results": 7}}),
    ("protocol", {"search": {"search_context_size": "medium"}}),
    ("protocol", {"search": {"max_tool_calls": 2}}),
    ("protocol", {"max_tokens": 6000}),
    ("protocol", {"temperature": 0.2}),
    ("protocol", {"structured_outputs": "json_object"}),
    ("protocol", {"reasoning": {"effort": "high"}}),
    ("protocol", {"reasoning": {"max_tokens": 1000}}),
    ("protocol", {"routing": {"allow_fallbacks": False}}),
    ("protocol", {"routing": {"require_parameters": False}}),
    ("protocol", {"routing": {"order": ["openai"]}}),
    ("protocol", {"routing": {"quantizations": ["fp8"]}}),
    ("protocol", {"router_metadata": False}),
    ("forecaster", {"honours_temperature": False}),
    ("forecaster", {"reasoning_supported": False}),
    ("forecaster", {"structured_outputs": "none"}),
]


@pytest.mark.parametrize(("where", "change"), CHANGES, ids=[str(c) for _, c in CHANGES])
def test_the_protocol_hash_differs_when_any_setting_differs(where, change):
    base = parse_config(BASE, "t.toml")
    data = {"arena": dict(BASE["arena"]), "forecasters": [dict(BASE["forecasters"][0])]}
    if where == "protocol":
        data["protocol"] = change
    else:
        data["forecasters"][0].update(change)
    changed = parse_config(data, "t.toml")
    (f0,), (f1,) = base.forecasters, changed.forecasters
    # the open-book hash always changes; closed book sends no search, so search changes leave it alone
    def same(access):
        return settings_sha256(resolve(base, f0, access)) == settings_sha256(resolve(changed, f1, access))

    assert not same(Access.OPEN_BOOK)
    assert same(Access.CLOSED_BOOK) == ("search" in change)
    assert arena_protocol_sha256(base) != arena_protocol_sha256(changed)


def test_equal_settings_give_equal_hashes_across_models_and_loads():
    config = default_config()
    again = default_config()
    gpt, claude = config.forecasters[0], config.forecasters[1]  # both: reasoning, no temperature, same routing
    for access in Access:
        assert settings_sha256(resolve(config, gpt, access)) == settings_sha256(resolve(again, claude, access))
    assert arena_protocol_sha256(config) == arena_protocol_sha256(again)


@pytest.mark.parametrize(("protocol", "needle"), [
    ({"search": {"engine": "auto"}}, "key protocol.search.engine"),  # explicit engines only
    ({"search": {"max_tool_calls": 31}}, "key protocol.search.max_tool_calls"),
    ({"reasoning": {"effort": "high", "max_tokens": 100}}, "exactly one of 'effort' or 'max_tokens'"),
    ({"temprature": 0}, "key protocol.temprature"),
])  # fmt: skip
def test_a_bad_protocol_setting_names_the_file_and_key(protocol, needle):
    from collector.errors import ConfigError

    with pytest.raises(ConfigError, match="t.toml") as caught:
        parse_config({**BASE, "protocol": protocol}, "t.toml")
    assert needle in str(caught.value)
