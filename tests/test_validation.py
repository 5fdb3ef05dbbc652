"""Validation of LLM answers: parser, types, ranges, sums, normalisation, question answers."""

from __future__ import annotations

import json
import math

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collector.forecasters.llm.validation import (
    extract_json,
    validate_match,
    validate_question,
)
from collector.records import ForecastStatus, PredictionType
from tests.collection_helpers import (
    knockout_event,
    make_event,
    make_question,
    world_cup,
)
from tests.fake_openrouter import match_answer


def answer(knockout: bool = False, **changes) -> str:
    body = match_answer(knockout)
    body.update(changes)
    return json.dumps(body)


def test_markdown_fences_and_prose_around_json_are_stripped():
    text = "Here is my forecast:\n```json\n" + answer() + "\n```\nGood luck!"
    checked = validate_match(text, make_event())
    assert checked.status is ForecastStatus.VALID
    assert checked.payload.home_win_90 == 0.5


def test_the_answer_is_one_json_object_and_nothing_may_follow_it():
    assert extract_json('noise {"a": 1}  \n') == {"a": 1}
    assert extract_json('broken { not json } then {"b": 2}') == {"b": 2}
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    for trailing in ('{"a": 1} {"b": 2}', '{"a": 1} and also {"b": 2}', '{"a": 1} I hope this helps.',
                     '```json\n{"a": 1} {"b": 2}\n```'):
        with pytest.raises(ValueError, match="content follows the JSON answer"):
            extract_json(trailing)
    with pytest.raises(ValueError, match="2 fenced blocks hold JSON"):
        extract_json('```json\n{"a": 1}\n```\nor\n```json\n{"a": 2}\n```')
    answer = json.dumps(match_answer(False))
    checked = validate_match(f"{answer}\n{answer.replace('0.5', '0.1')}", make_event())  # two answers: which?
    assert checked.status is ForecastStatus.INVALID_JSON and "content follows the JSON answer" in checked.errors[0]


def test_a_negative_zero_is_kept_as_zero():
    answer = match_answer(False) | {"home_win_90_prob": 0.7, "draw_90_prob": -0.0, "away_win_90_prob": 0.3}
    checked = validate_match(json.dumps(answer), make_event())
    assert checked.status is ForecastStatus.VALID and math.copysign(1.0, checked.payload.draw_90) == 1.0


@pytest.mark.parametrize("text", [None, "", "no json here", "[1, 2]", '{"unterminated": '])
def test_no_json_object_is_invalid_json(text):
    assert validate_match(text, make_event()).status is ForecastStatus.INVALID_JSON


def test_sum_099_is_normalised_and_recorded():
    checked = validate_match(answer(home_win_90_prob=0.49), make_event())  # 0.49 + 0.3 + 0.2 = 0.99
    assert checked.status is ForecastStatus.NORMALIZED
    assert checked.original_sums["90"] == pytest.approx(0.99)
    assert checked.payload.home_win_90 == pytest.approx(0.49 / 0.99)
    assert sum(checked.payload.probabilities_90()) == pytest.approx(1.0)


def test_sum_13_is_invalid_sum():
    checked = validate_match(answer(home_win_90_prob=0.8), make_event())  # 1.3
    assert checked.status is ForecastStatus.INVALID_SUM
    assert checked.payload is None
    assert any("sum to 1.3000" in e for e in checked.errors)


def test_negative_probability_is_invalid_range():
    checked = validate_match(answer(draw_90_prob=-0.1, home_win_90_prob=0.9), make_event())
    assert checked.status is ForecastStatus.INVALID_RANGE
    assert any("draw_90_prob" in e for e in checked.errors)


def test_probability_as_string_is_invalid_schema():
    checked = validate_match(answer(home_win_90_prob="0.5"), make_event())
    assert checked.status is ForecastStatus.INVALID_SCHEMA
    assert any("home_win_90_prob must be a number" in e for e in checked.errors)


@pytest.mark.parametrize("score", [{"home": -1, "away": 0}, {"home": 1.5, "away": 0}, {"home": 2.0, "away": 1}])
def test_scores_must_be_non_negative_integers(score):
    checked = validate_match(answer(most_likely_score_90=score), make_event())
    assert checked.status is ForecastStatus.INVALID_SCORE


def test_negative_or_infinite_expected_goals_is_invalid_range():
    assert validate_match(answer(expected_home_goals_90=-0.5), make_event()).status is ForecastStatus.INVALID_RANGE
    text = answer().replace('"expected_home_goals_90": 1.6', '"expected_home_goals_90": Infinity')
    assert validate_match(text, make_event()).status is ForecastStatus.INVALID_RANGE


def test_missing_field_is_invalid_schema():
    body = match_answer(False)
    del body["draw_90_prob"]
    checked = validate_match(json.dumps(body), make_event())
    assert checked.status is ForecastStatus.INVALID_SCHEMA
    assert "missing field draw_90_prob" in checked.errors


def test_knockout_needs_advancement_pair_and_group_match_forbids_it():
    ko = knockout_event()
    assert validate_match(answer(True), ko).status is ForecastStatus.VALID
    missing = validate_match(answer(True, home_advances_prob=None, away_advances_prob=None), ko)
    assert missing.status is ForecastStatus.INVALID_SCHEMA
    bad_sum = validate_match(answer(True, home_advances_prob=0.7, away_advances_prob=0.6), ko)
    assert bad_sum.status is ForecastStatus.INVALID_SUM
    group = validate_match(answer(False, home_advances_prob=0.6, away_advances_prob=0.4), make_event())
    assert group.status is ForecastStatus.INVALID_SCHEMA


def test_score_probability_agreement_is_a_diagnostic_not_an_error():
    checked = validate_match(answer(most_likely_score_90={"home": 0, "away": 2}), make_event())
    assert checked.status is ForecastStatus.VALID
    assert checked.diagnostics["score_probability_agreement"] is False
    assert validate_match(answer(), make_event()).diagnostics["score_probability_agreement"] is True


def question_answer(choices, pick="Mexico", **extra) -> str:
    body = {"question_id": "group_winner_a", "prediction_type": "single_choice",
            "choices": [{"team": t, "probability": p} for t, p in choices], "final_pick": pick, **extra}  # fmt: skip
    return json.dumps(body)


GROUP_A = [("Mexico", 0.4), ("South Africa", 0.1), ("South Korea", 0.3), ("Czech Republic", 0.2)]


def test_question_answer_maps_names_to_ids_and_recomputes_ranks():
    checked = validate_question(question_answer(GROUP_A), make_question(), world_cup())
    assert checked.status is ForecastStatus.VALID
    ranks = {c.team: c.rank for c in checked.payload.choices}
    assert ranks == {"mex": 1, "kor": 2, "cze": 3, "rsa": 4}
    assert checked.payload.final_picks == ("mex",)


def test_question_answer_with_unknown_team_is_invalid():
    choices = [*GROUP_A[:3], ("Atlantis", 0.2)]
    checked = validate_question(question_answer(choices), make_question(), world_cup())
    assert checked.status is ForecastStatus.INVALID_SCHEMA
    assert any("unknown team 'Atlantis'" in e for e in checked.errors)


def test_question_answer_with_team_outside_candidates_or_missing_candidate_is_invalid():
    outside = [*GROUP_A[:3], ("Brazil", 0.2)]
    assert validate_question(question_answer(outside), make_question(), world_cup()).status is ForecastStatus.INVALID_SCHEMA
    missing = GROUP_A[:3]
    checked = validate_question(question_answer(missing), make_question(), world_cup())
    assert checked.status is ForecastStatus.INVALID_SCHEMA
    assert any("missing" in e for e in checked.errors)


def test_semifinalists_need_k_picks_and_sum_k():
    c = world_cup()
    q = make_question(id="semifinalists", prediction_type=PredictionType.MULTI_CHOICE_FIXED_K, k=4, group=None,
                      candidates=tuple(t.id for t in c.teams))  # fmt: skip
    names = [t.name for t in c.teams]
    good = [(n, 4 / len(names)) for n in names]
    body = {"choices": [{"team": n, "probability": p} for n, p in good], "final_picks": names[:4]}
    assert validate_question(json.dumps(body), q, c).status is ForecastStatus.VALID
    body["final_picks"] = names[:3]
    assert validate_question(json.dumps(body), q, c).status is ForecastStatus.INVALID_SCHEMA
    body["final_picks"] = names[:4]
    body["choices"] = [{"team": n, "probability": 1 / len(names)} for n in names]  # sums to 1, not 4
    assert validate_question(json.dumps(body), q, c).status is ForecastStatus.INVALID_SUM


probability = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(probability, probability, probability)
def test_status_follows_the_sum_rule(h, d, a):
    """Invariant: exact sums are valid, near sums normalise to 1, the rest are invalid_sum."""
    text = answer(home_win_90_prob=h, draw_90_prob=d, away_win_90_prob=a,
                  home_win_full_prob=0.5, draw_full_prob=0.3, away_win_full_prob=0.2)  # fmt: skip
    checked = validate_match(text, make_event())
    total = h + d + a
    if abs(total - 1) <= 1e-9:
        assert checked.status is ForecastStatus.VALID
    elif abs(total - 1) <= 0.02 and total > 0:
        assert checked.status is ForecastStatus.NORMALIZED
        assert sum(checked.payload.probabilities_90()) == pytest.approx(1.0, abs=1e-9)
        # normalisation keeps the ratios between outcomes
        assert checked.payload.home_win_90 * total == pytest.approx(h, abs=1e-12)
    else:
        assert checked.status is ForecastStatus.INVALID_SUM
        assert checked.payload is None


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_parser_never_raises_on_arbitrary_text(text):
    checked = validate_match(text, make_event())
    assert checked.status in set(ForecastStatus)
    assert (checked.payload is None) != (checked.status in {ForecastStatus.VALID, ForecastStatus.NORMALIZED})


@settings(max_examples=150, deadline=None)
@given(st.lists(probability, min_size=4, max_size=4))
def test_question_sum_rule_and_ranks(probs):
    """Invariant: the sum rule holds for choices too, and ranks order the stored probabilities."""
    choices = list(zip(["Mexico", "South Africa", "South Korea", "Czech Republic"], probs, strict=True))
    checked = validate_question(question_answer(choices), make_question(), world_cup())
    total = sum(probs)
    if abs(total - 1) > 0.02 or total == 0:
        assert checked.status is ForecastStatus.INVALID_SUM
        return
    assert checked.status in {ForecastStatus.VALID, ForecastStatus.NORMALIZED}
    stored = sorted(checked.payload.choices, key=lambda c: c.rank)
    assert [c.rank for c in stored] == [1, 2, 3, 4]
    assert all(a.probability >= b.probability for a, b in zip(stored, stored[1:]))
    assert sum(c.probability for c in stored) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("field", ["home_win_90_prob", "expected_home_goals_90", "confidence"])
def test_an_integer_too_large_for_a_float_is_invalid_range_not_a_crash(field):
    checked = validate_match(answer(**{field: 10**400}), make_event())
    assert checked.status is ForecastStatus.INVALID_RANGE
    assert any(field in e and "finite" in e for e in checked.errors)


def test_an_integer_too_large_for_a_float_in_a_question_answer_is_invalid_range():
    choices = [("Mexico", 10**400), ("South Africa", 0.2), ("South Korea", 0.2), ("Czech Republic", 0.1)]
    checked = validate_question(question_answer(choices), make_question(), world_cup())
    assert checked.status is ForecastStatus.INVALID_RANGE


@pytest.mark.parametrize("depth", [5_000, 200_000])
def test_json_nested_too_deeply_is_invalid_json_not_a_crash(depth):
    text = '{"reason": ' + "[" * depth + "]" * depth + "}"
    checked = validate_match(text, make_event())
    assert checked.status is ForecastStatus.INVALID_JSON
    assert checked.errors == ["the JSON in the response is nested too deeply"]


def test_a_lone_surrogate_in_the_reason_is_replaced_so_the_record_stays_utf8():
    text = answer(reason="PLACEHOLDER").replace("PLACEHOLDER", "\\ud83d broken emoji, \\ud83d\\ude00 whole one")
    checked = validate_match(text, make_event())
    assert checked.status is ForecastStatus.VALID
    assert checked.payload.reason == "\ufffd broken emoji, \U0001f600 whole one"
    orjson.dumps(checked.payload.model_dump(mode="json"))  # raised TypeError on the lone surrogate before


def test_a_lone_surrogate_in_a_question_summary_is_replaced():
    choices = [("Mexico", 0.5), ("South Africa", 0.2), ("South Korea", 0.2), ("Czech Republic", 0.1)]
    text = question_answer(choices, reasoning_summary="PLACEHOLDER").replace("PLACEHOLDER", "a \\udc00 b")
    checked = validate_question(text, make_question(), world_cup())
    assert checked.ok and checked.payload.reasoning_summary == "a \ufffd b"


def test_an_empty_choices_list_is_invalid_schema_naming_every_missing_candidate():
    checked = validate_question(question_answer([]), make_question(), world_cup())
    assert checked.status is ForecastStatus.INVALID_SCHEMA
    assert checked.errors == ["choices must list every candidate once; missing: Mexico, South Africa, South Korea, "
                              "Czech Republic"]


KEYS = st.sampled_from(["team", "probability", "home", "away", "choices", "final_pick", "confidence"])


@settings(max_examples=300, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
    | st.sampled_from(["Mexico", "South Africa", "South Korea", "Czech Republic", "MÉXICO"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
), st.sampled_from(["choices", "final_pick", "confidence", "reasoning_summary", "home_win_90_prob",
                    "most_likely_score_90", "home_advances_prob", "expected_home_goals_90"]))
def test_any_json_value_in_any_field_gives_a_status_never_an_exception(junk, key):
    """Invariant over nested junk: validation returns a status; a payload exists exactly when valid."""
    choices = [{"team": t, "probability": p} for t, p in GROUP_A]
    question_body = {"choices": choices, "final_pick": "Mexico", key: junk}
    checked = validate_question(json.dumps(question_body), make_question(), world_cup())
    assert (checked.payload is None) != (checked.status in {ForecastStatus.VALID, ForecastStatus.NORMALIZED})
    for event in (make_event(), knockout_event()):
        checked = validate_match(json.dumps({**match_answer(event.knockout), key: junk}), event)
        assert (checked.payload is None) != (checked.status in {ForecastStatus.VALID, ForecastStatus.NORMALIZED})


def test_an_enormous_team_name_is_quoted_short_in_errors_and_the_repair_prompt():
    """Errors are sent back in the repair prompt: a megabyte of junk must not be quoted back."""
    choices = [("Mexico" * 200_000, 0.4), ("South Africa", 0.1), ("South Korea", 0.3), ("Czech Republic", 0.2)]
    checked = validate_question(question_answer(choices, pick="x" * 1_000_000), make_question(), world_cup())
    assert checked.status is ForecastStatus.INVALID_SCHEMA
    assert checked.errors and all(len(e) < 200 for e in checked.errors)
    huge_score = validate_match(answer(most_likely_score_90={"home": 10**4000, "away": 0}), make_event())
    assert huge_score.status is ForecastStatus.INVALID_SCORE and len(huge_score.errors[0]) < 200
