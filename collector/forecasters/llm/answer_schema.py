"""JSON Schemas of the answers, sent as ``response_format: json_schema`` (OpenRouter structured outputs).

They describe the same fields the prompts ask for (LLM-SoccerArena Appendix F, match and
tournament-question schemas) in the form the documented ``strict`` mode accepts: every
property listed in ``required``, ``additionalProperties: false``, optional values as a
``null`` type. Validation (:mod:`collector.forecasters.llm.validation`) still checks every
answer: a provider's structured-output mode is a help, never trusted.
"""

from __future__ import annotations

from typing import Any

NUMBER = {"type": "number"}
NULLABLE_NUMBER = {"type": ["number", "null"]}
SCORE = {
    "type": "object",
    "properties": {"home": {"type": "integer"}, "away": {"type": "integer"}},
    "required": ["home", "away"],
    "additionalProperties": False,
}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def match_schema() -> dict[str, Any]:
    """The match answer (advancement probabilities are null outside knockouts)."""
    return _object({
        "home_win_90_prob": NUMBER, "draw_90_prob": NUMBER, "away_win_90_prob": NUMBER,
        "expected_home_goals_90": NUMBER, "expected_away_goals_90": NUMBER, "most_likely_score_90": SCORE,
        "home_win_full_prob": NUMBER, "draw_full_prob": NUMBER, "away_win_full_prob": NUMBER,
        "most_likely_score_full": SCORE,
        "home_advances_prob": NULLABLE_NUMBER, "away_advances_prob": NULLABLE_NUMBER,
        "confidence": NUMBER, "reason": {"type": "string"},
    })  # fmt: skip


def question_schema(single_choice: bool) -> dict[str, Any]:
    """A tournament question's answer: ``final_pick`` (single choice) or ``final_picks`` (fixed k)."""
    choice = _object({
        "team": {"type": "string"}, "probability": NUMBER, "rank": {"type": "integer"},
        "is_final_pick": {"type": "boolean"},
    })  # fmt: skip
    fields: dict[str, Any] = {
        "question_id": {"type": "string"},
        "prediction_type": {"type": "string", "enum": ["single_choice" if single_choice else "multi_choice_fixed_k"]},
        "stage": {"type": "string"},
        "choices": {"type": "array", "items": choice},
    }
    if single_choice:
        fields["final_pick"] = {"type": "string"}
    else:
        fields["k"] = {"type": "integer"}
        fields["final_picks"] = {"type": "array", "items": {"type": "string"}}
    fields["confidence"] = NULLABLE_NUMBER
    fields["reasoning_summary"] = {"type": "string"}
    return _object(fields)


def schema_name(target_kind: str, single_choice: bool = True) -> str:
    """The ``json_schema.name`` (documented: letters, digits, underscores and dashes)."""
    if target_kind == "match":
        return "match_forecast"
    return "question_single_choice" if single_choice else "question_multi_choice_fixed_k"
