"""The ``endpoint`` forecaster type in ``[[forecasters]]`` (issue 56): what a table must hold, and what is refused."""

from __future__ import annotations

import pytest

from collector.config import parse_config
from collector.errors import ConfigError
from collector.forecasters.roster import forecaster_specs
from collector.records import ForecasterType


def arena(*tables: dict) -> dict:
    return {"arena": {"competitions": ["worldcup-2026"]}, "forecasters": list(tables)}


def test_an_endpoint_table_with_its_limits_is_read():
    table = {"id": "acme.bot", "type": "endpoint", "version": "bot-1",
             "endpoint": {"url": "https://bot.acme.example/p", "token_env": "ACME_TOKEN", "timeout_s": 30,
                          "max_response_bytes": 4096, "max_calls_per_tick": 10}}
    config = parse_config(arena(table), "arena.toml")
    (spec,) = forecaster_specs(config)
    assert spec.type is ForecasterType.ENDPOINT and spec.version == "bot-1" and not spec.answers_tournament
    assert config.forecasters[0].endpoint.max_calls_per_tick == 10


@pytest.mark.parametrize(("table", "named"), [
    ({"id": "a", "type": "endpoint"}, "type 'endpoint'"),  # no endpoint table
    ({"id": "a", "type": "baseline", "endpoint": {"url": "https://x.example/"}}, "type 'endpoint'"),
    ({"id": "a", "type": "endpoint", "endpoint": {"url": "http://agent.example/"}}, "forecasters.0.endpoint.url"),
    ({"id": "a", "type": "endpoint", "endpoint": {"url": "https://x.example/", "token_env": "lower"}},
     "forecasters.0.endpoint.token_env"),
    ({"id": "a", "type": "endpoint", "endpoint": {"url": "https://x.example/", "timeout_s": 0}},
     "forecasters.0.endpoint.timeout_s"),
])
def test_a_wrong_endpoint_table_is_a_config_error_naming_the_key(table, named):
    with pytest.raises(ConfigError) as raised:
        parse_config(arena(table), "arena.toml")
    assert "arena.toml" in str(raised.value) and named in str(raised.value)
