"""The LLM forecaster under each prompt set, end to end against respx: prompts sent, sums kept."""

from __future__ import annotations

import json

import pytest
import respx

from collector.errors import ConfigError
from collector.records import ForecastStatus, Horizon, PredictionType
from tests.collection_helpers import arena, make_question, make_task
from tests.test_openrouter import URL, Harness, good, ok, sent


def run(task, responses, **arena_keys):
    harness = Harness(task)
    if arena_keys:
        harness.config = arena(**arena_keys)
        harness.forecaster = type(harness.forecaster)(harness.config.forecasters[0], harness.config,
                                                      harness.client, harness.budget, harness.clock)
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).mock(side_effect=responses)
        record = harness.run()
    return record, route


def test_original_sums_after_a_repair_are_the_first_answers():
    record, _ = run(make_task(), [ok(good(home_win_90_prob=0.8)), ok(good())])
    assert record.status is ForecastStatus.REPAIRED
    assert record.validation.original_sums["90"] == pytest.approx(1.3)  # 0.8 + 0.3 + 0.2, as first stated
    assert record.validation.diagnostics["repaired_sums"]["90"] == pytest.approx(1.0)


def test_lsa_v1_sends_appendix_prompts_and_repairs_without_the_fixture():
    record, route = run(make_task(), [ok(good(home_win_90_prob=0.8)), ok(good())], prompt_set="lsa_v1")
    assert record.prompt.template_id == "lsa_v1/wc2026_v1"
    first, repair = (sent(route, i)["messages"][-1]["content"] for i in (0, 1))
    assert "Date UTC: 2026-06-11T19:00:00Z" in first and "Home/listed first team: Mexico" in first
    assert "Home/listed first team" not in repair and "Required schema:" in repair


def semifinal_task():
    q = make_question(id="semifinalists", label="Semifinalists", meaning="The four teams that reach the semi-finals.",
                      prediction_type=PredictionType.MULTI_CHOICE_FIXED_K, k=4, group=None,
                      candidates=("mex", "rsa", "kor", "cze", "can", "bih"))
    return make_task(question=q, horizon=Horizon.STAGE_OPENING), q


def semifinal_answer(probabilities) -> str:
    names = ["Mexico", "South Africa", "South Korea", "Czechia", "Canada", "Bosnia-Herzegovina"]
    return json.dumps({"choices": [{"team": n, "probability": p} for n, p in zip(names, probabilities, strict=True)],
                       "final_picks": names[:4], "reasoning_summary": "x"})


def test_lsa_v1_keeps_a_fixed_k_sum_of_six_as_stated():
    task, _ = semifinal_task()
    record, route = run(task, [ok(semifinal_answer([1, 1, 1, 1, 1, 1]))], prompt_set="lsa_v1")
    assert record.status is ForecastStatus.VALID and len(route.calls) == 1  # no repair call
    assert record.validation.original_sums["choices"] == 6.0 and record.validation.diagnostics["sum_audit"] == 2.0
    assert [c.probability for c in record.payload.choices] == [1.0] * 6
    assert "must sum to 4" not in sent(route, 0)["messages"][-1]["content"]


def test_prematch_v1_still_enforces_the_fixed_k_sum():
    task, _ = semifinal_task()
    record, route = run(task, [ok(semifinal_answer([1, 1, 1, 1, 1, 1])), ok(semifinal_answer([1, 1, 1, 1, 0, 0]))])
    assert record.status is ForecastStatus.REPAIRED and len(route.calls) == 2
    assert record.validation.original_sums["choices"] == 6.0  # the first answer's sum, not the repaired 4
    assert record.validation.diagnostics["repaired_sums"]["choices"] == 4.0


def test_an_unknown_prompt_set_is_a_config_error_naming_the_key():
    with pytest.raises(ConfigError, match="arena.prompt_set"):
        arena(prompt_set="lsa_v2")
