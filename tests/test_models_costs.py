"""``models`` and ``costs`` against the recorded models API response (tests/recorded/openrouter/models.json)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from collector.cli import main
from collector.config import load_config
from collector.forecasters.llm.costs import (
    EXTRA_IN,
    EXTRA_OUT,
    IN,
    OUT,
    model_costs,
    per_target,
)
from collector.forecasters.llm.models_api import check_roster, parse_models
from tests.fake_openrouter import FakeOpenRouter, recorded

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "recorded" / "openrouter" / "models.json"


def models(**edits):
    payload = recorded("models.json")
    for entry in payload["data"]:
        entry.update(edits.get(entry["id"], {}))
    return payload


def test_every_field_read_from_the_models_api():
    parsed, problems = parse_models(recorded("models.json"), "models.json")
    assert problems == []
    gpt = parsed["openai/gpt-5.5"]
    assert gpt.canonical_slug == "openai/gpt-5.5-20260423"
    assert {"structured_outputs", "response_format", "tools", "reasoning", "max_tokens"} <= gpt.supported_parameters
    assert gpt.expiration_date is None
    assert (gpt.prompt_per_mtok, gpt.completion_per_mtok) == pytest.approx((5.0, 30.0))  # "0.000005" USD per token
    expiring, _ = parse_models(models(**{"openai/gpt-5.5": {"expiration_date": "2026-07-01"}}), "m")
    assert expiring["openai/gpt-5.5"].expiration_date == date(2026, 7, 1)


def test_malformed_entries_are_problems_not_crashes():
    bad = {"data": [{"name": "no id"}, {"id": "a/b", "expiration_date": "soon", "pricing": {"prompt": "free"},
                                        "supported_parameters": "tools"}]}  # fmt: skip
    parsed, problems = parse_models(bad, "f.json")
    assert len(problems) == 2 and "expiration_date 'soon'" in str(problems[1])
    assert parsed["a/b"].prompt_per_mtok is None and parsed["a/b"].supported_parameters == frozenset()
    assert parse_models([1, 2], "f.json")[1][0].message.startswith("not the models API")


def test_default_roster_passes_the_check():
    config = load_config(ROOT / "prematch.toml")
    rows = check_roster(config, parse_models(recorded("models.json"), "m")[0], date(2026, 12, 1))
    assert len(rows) == 7 and all(r.problems == [] for r in rows)


@pytest.mark.parametrize(("edit", "message"), [
    ({"openai/gpt-5.5": {"id": "openai/gpt-5.5-renamed"}}, "not in OpenRouter's models list"),
    ({"openai/gpt-5.5": {"expiration_date": "2026-11-30"}}, "expired on 2026-11-30"),
    ({"mistralai/mistral-large-2512": {"supported_parameters": ["max_tokens", "response_format", "tools"]}},
     "lacks parameter(s) the protocol sends: structured_outputs, temperature"),
    ({"openai/gpt-5.5": {"canonical_slug": "openai/gpt-5.5-20260601"}}, "is not the canonical slug"),
])  # fmt: skip
def test_models_check_exits_1_naming_the_model(tmp_path, capsys, edit, message):
    path = tmp_path / "models.json"
    path.write_text(json.dumps(models(**edit)))
    code = main(["models", "--config", str(ROOT / "prematch.toml"), "--models-file", str(path), "--check"])
    err = capsys.readouterr().err
    assert code == 1 and message in err and err.startswith("problem: ")
    assert main(["models", "--config", str(ROOT / "prematch.toml"), "--models-file", str(path)]) == 0  # no --check


def test_models_reads_the_live_endpoint_through_the_client(monkeypatch, capsys):
    with FakeOpenRouter() as server:
        monkeypatch.setenv("OPENROUTER_API_KEY", "sk-test")
        monkeypatch.setenv("OPENROUTER_BASE_URL", server.base_url)
        code = main(["models", "--config", str(ROOT / "prematch.toml"), "--check"])
    out = capsys.readouterr().out
    assert code == 0 and "7 configured LLM(s) against GET /api/v1/models" in out
    assert "anthropic/claude-4.8-opus-20260528: all protocol parameters" in out
    assert server.gets[0]["path"] == "/api/v1/models"


def test_cost_per_forecast_by_hand():
    """GPT-5.5 at USD 5/30 per M: closed (1500*5 + 700*30)/1e6; open adds 22,306 in, 885 out and 2 searches
    (6 results at 3 a search) at USD 0.007 a search request."""
    config = load_config(ROOT / "prematch.toml")
    costs = {m.forecaster: m for m in model_costs(config, parse_models(recorded("models.json"), "m")[0])}
    gpt = costs["openai.gpt-5.5"]
    assert gpt.closed == pytest.approx(0.0285)
    assert gpt.open == pytest.approx(0.0285 + (22_306 * 5 + 885 * 30) / 1e6 + 2 * 0.007)
    assert (IN, OUT, EXTRA_IN, EXTRA_OUT) == (1500, 700, 22_306, 885)
    n, usd = per_target(config, list(costs.values()))
    assert n == 7 * 12  # 2 access x 2 strategies x 3 horizons per model
    assert usd == pytest.approx(sum(6 * (m.closed + m.open) for m in costs.values()))
    qn, _ = per_target(config, list(costs.values()), question=True)
    assert qn == 7 * 4


def test_costs_command_prints_the_documented_table(capsys):
    assert main(["costs", "--config", str(ROOT / "prematch.toml"), "--models-file", str(MODELS)]) == 0
    out = capsys.readouterr().out
    assert "| openai.gpt-5.5 | USD 0.0285 | USD 0.1806 |" in out
    assert "| 2026 World Cup, 104 matches | 104 | 8,736 |" in out
    page = (ROOT / "docs" / "run-your-own-arena.md").read_text()
    assert out.strip() in page  # Run your own arena shows this command's real output
