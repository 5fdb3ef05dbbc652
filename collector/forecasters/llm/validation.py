"""Deterministic validation of LLM answers: parse, check schema, types, ranges and sums, normalise.

Rules (LLM-SoccerArena §3.3 and Appendix B, as the issue fixes them):

* parsing: the answer is the first JSON object of the one fenced code block that holds one
  (prose around the block is ignored), or without such a block of the text; anything but white
  space after that object (a second object, more prose), or two blocks holding JSON, is
  ``invalid_json``, and so is JSON nested too deeply to parse; a lone UTF-16 surrogate escaped in a
  text field becomes U+FFFD (the record must stay valid UTF-8);
* types: numbers must be JSON numbers (a string such as ``"0.5"`` is ``invalid_schema``);
  ``-0.0`` is kept as ``0.0``;
* scores are non-negative integers (else ``invalid_score``); probabilities lie in [0, 1] and
  expected goals are finite and non-negative (else ``invalid_range``; an integer too large for a
  float, such as 10**400 written out in digits, is not finite);
* a vector that must sum to ``s`` (1, or k for fixed-k questions) is accepted when
  ``|sum - s| <= 1e-9``, normalised (``p * s / sum``) and recorded when ``|sum - s| <= 0.02``,
  otherwise ``invalid_sum``;
* fixed-k sums are *audited, not enforced* when the prompt set says so (``lsa_v1``,
  LLM-SoccerArena App. C.6: "We audit the reported probabilities without retrospective
  normalization"; its models' sums ran from 0 to 12, Fig. 11): any sum is accepted, the
  probabilities are kept as stated, and ``diagnostics["sum_audit"]`` holds ``sum - k``;
* ``original_sums`` always describes the answer as given: every probability vector whose
  entries parsed as numbers is summed *before* any other check, so an answer rejected for
  another reason still records its sums (the forecaster keeps the first answer's sums after
  a repair and stores the repaired answer's as ``diagnostics["repaired_sums"]``);
* knockout matches need both advancement probabilities (summing to 1), group matches null;
* question answers name exact candidates (after aliases), list every candidate once and
  have exactly k final picks;
* whether the most likely score agrees with the highest H/D/A probability is a diagnostic.

When several problems occur, the status is the first of: invalid_json, invalid_schema,
invalid_score, invalid_range, invalid_sum.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from collector.competitions.teams import name_index, normalise_name
from collector.records import (
    Choice,
    Competition,
    Event,
    ForecastStatus,
    MatchForecast,
    PredictionType,
    Question,
    QuestionForecast,
    Score,
)

SUM_TOLERANCE = 0.02
EXACT = 1e-9
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*")
_BLOCK = re.compile(r"```[a-zA-Z0-9_-]*\n?(.*?)```", re.DOTALL)  # a fenced block's content
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
ADVANCES = ("home_advances_prob", "away_advances_prob")
_ORDER = ("invalid_json", "invalid_schema", "invalid_score", "invalid_range", "invalid_sum")


@dataclass
class Checked:
    """The outcome of validating one answer."""

    status: ForecastStatus
    payload: MatchForecast | QuestionForecast | None = None
    errors: list[str] = field(default_factory=list)
    original_sums: dict[str, float] = field(default_factory=dict)
    normalized: bool = False
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.payload is not None


class _Issues:
    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, kind: str, message: str) -> None:
        self.items.append((kind, message))

    def status(self) -> ForecastStatus:
        kinds = {k for k, _ in self.items}
        return ForecastStatus(next(k for k in _ORDER if k in kinds))

    def messages(self) -> list[str]:
        return [m for _, m in self.items]


def extract_json(text: str | None) -> dict[str, Any]:
    """The JSON object answering (see the module docstring); ValueError when there is none, or when
    more than the one object is offered (which answer would count?)."""
    if not text or not text.strip():
        raise ValueError("the response is empty")
    blocks = _BLOCK.findall(text)
    answering = [b for b in blocks if "{" in b]
    if len(answering) > 1:
        raise ValueError(f"{len(answering)} fenced blocks hold JSON; the answer must be one JSON object")
    cleaned = answering[0] if answering else _FENCE.sub("", text)
    decoder = json.JSONDecoder()
    start = cleaned.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(cleaned, start)
        except json.JSONDecodeError:
            start = cleaned.find("{", start + 1)
            continue
        except RecursionError:
            raise ValueError("the JSON in the response is nested too deeply") from None
        if isinstance(value, dict):
            rest = cleaned[end:].strip()
            if rest:
                raise ValueError(f"content follows the JSON answer ({len(rest)} characters: {rest[:40]!r}); "
                                 "the answer must be one JSON object")
            return value
        start = cleaned.find("{", start + 1)
    raise ValueError("no JSON object found in the response")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(obj: dict, key: str, issues: _Issues, *, nullable: bool = False) -> float | None:
    if key not in obj:
        issues.add("invalid_schema", f"missing field {key}")
        return None
    value = obj[key]
    if value is None and nullable:
        return None
    if not _is_number(value):
        issues.add("invalid_schema", f"field {key} must be a number, got {type(value).__name__} {value!r:.40}")
        return None
    try:
        number = float(value)  # an int beyond float's range raises OverflowError
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        issues.add("invalid_range", f"field {key} must be finite, got {value!r:.40}")
        return None
    return number + 0.0  # -0.0 is 0.0: a record never holds a negative zero (a page would show "-0%")


def _probability(obj: dict, key: str, issues: _Issues, *, nullable: bool = False) -> float | None:
    value = _number(obj, key, issues, nullable=nullable)
    if value is not None and not 0.0 <= value <= 1.0:
        issues.add("invalid_range", f"field {key} = {value} is outside [0, 1]")
        return None
    return value


def _score(obj: dict, key: str, issues: _Issues) -> Score | None:
    value = obj.get(key)
    if not isinstance(value, dict) or "home" not in value or "away" not in value:
        issues.add("invalid_schema", f"field {key} must be an object with integer home and away")
        return None
    goals = []
    for side in ("home", "away"):
        g = value[side]
        if not _is_number(g):
            issues.add("invalid_schema", f"field {key}.{side} must be a number, got {type(g).__name__} {g!r:.40}")
            return None
        if not isinstance(g, int) or g < 0 or g > 99:
            issues.add("invalid_score", f"field {key}.{side} = {g!r:.40} is not a non-negative integer score")
            return None
        goals.append(g)
    return Score(home=goals[0], away=goals[1])


def check_sum(values: list[float], target: float, name: str, issues: _Issues, out: Checked) -> list[float] | None:
    """Accept an exact sum, normalise within the tolerance (recording it), else flag invalid_sum."""
    total = math.fsum(values)
    out.original_sums[name] = total
    if abs(total - target) <= EXACT:
        return values
    if abs(total - target) <= SUM_TOLERANCE and total > 0:
        scaled = [v * target / total for v in values]
        if any(v > 1.0 for v in scaled):
            issues.add("invalid_sum", f"{name} probabilities cannot be normalised to {target:g} within [0, 1]")
            return None
        out.normalized = True
        return scaled
    issues.add("invalid_sum", f"{name} probabilities sum to {total:.4f}, not {target:g} (tolerance {SUM_TOLERANCE})")
    return None


def _text(obj: dict, key: str, issues: _Issues) -> str:
    value = obj.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        issues.add("invalid_schema", f"field {key} must be a string")
        return ""
    return _LONE_SURROGATE.sub("\ufffd", value)  # JSON may escape one ("\\ud800"); UTF-8 cannot hold it


def outcome_of(score: Score) -> int:
    return 0 if score.home > score.away else 2 if score.away > score.home else 1


def validate_match(text: str | None, event: Event) -> Checked:
    """Parse and validate a match answer for ``event``; never raises on bad input."""
    try:
        obj = extract_json(text)
    except ValueError as exc:
        return Checked(ForecastStatus.INVALID_JSON, errors=[str(exc)])
    issues, out = _Issues(), Checked(ForecastStatus.VALID)
    p90 = [_probability(obj, k, issues) for k in ("home_win_90_prob", "draw_90_prob", "away_win_90_prob")]
    pfull = [_probability(obj, k, issues) for k in ("home_win_full_prob", "draw_full_prob", "away_win_full_prob")]
    adv = [_probability(obj, k, issues, nullable=True) if k in obj else None for k in ADVANCES]
    xg = [_number(obj, k, issues) for k in ("expected_home_goals_90", "expected_away_goals_90")]
    for key, value in zip(("expected_home_goals_90", "expected_away_goals_90"), xg, strict=True):
        if value is not None and value < 0:
            issues.add("invalid_range", f"field {key} = {value} is negative")
    score90 = _score(obj, "most_likely_score_90", issues)
    score_full = _score(obj, "most_likely_score_full", issues) if obj.get("most_likely_score_full") is not None else None
    confidence = _probability(obj, "confidence", issues, nullable=True) if "confidence" in obj else None
    reason = _text(obj, "reason", issues)
    _check_advancement(obj, event, issues)
    _stated_sums(out, {"90": p90, "full": pfull, "advances": adv if event.knockout else None})
    if not issues.items:
        p90 = check_sum(p90, 1.0, "90", issues, out)
        pfull = check_sum(pfull, 1.0, "full", issues, out)
        if event.knockout:
            adv = check_sum(adv, 1.0, "advances", issues, out)
    if issues.items:
        return Checked(issues.status(), errors=issues.messages(), original_sums=out.original_sums)
    out.payload = MatchForecast(
        home_win_90=p90[0], draw_90=p90[1], away_win_90=p90[2],
        expected_home_goals_90=xg[0], expected_away_goals_90=xg[1], most_likely_score_90=score90,
        home_win_full=pfull[0], draw_full=pfull[1], away_win_full=pfull[2], most_likely_score_full=score_full,
        home_advances=adv[0] if event.knockout else None, away_advances=adv[1] if event.knockout else None,
        confidence=confidence, reason=reason,
    )  # fmt: skip
    best = max(p90)
    out.diagnostics["score_probability_agreement"] = p90[outcome_of(score90)] >= best - EXACT
    out.status = ForecastStatus.NORMALIZED if out.normalized else ForecastStatus.VALID
    return out


def _stated_sums(out: Checked, vectors: dict[str, list[float | None] | None]) -> None:
    """Record the sum of every vector whose entries all parsed (the answer as stated)."""
    for name, values in vectors.items():
        if values and all(v is not None for v in values):
            out.original_sums[name] = math.fsum(values)


def _check_advancement(obj: dict, event: Event, issues: _Issues) -> None:
    raw = [obj.get(k) for k in ADVANCES]
    if event.knockout and any(v is None for v in raw):
        issues.add("invalid_schema", "knockout match: home_advances_prob and away_advances_prob are both required")
    if not event.knockout and any(v is not None for v in raw):
        issues.add("invalid_schema", "not a knockout match: home_advances_prob and away_advances_prob must be null")




def _team(value: Any, index: dict[str, str], candidates: set[str], where: str, issues: _Issues) -> str | None:
    if not isinstance(value, str):
        issues.add("invalid_schema", f"{where} must be a team name string, got {type(value).__name__}")
        return None
    team_id = index.get(normalise_name(value))
    if team_id is None:
        issues.add("invalid_schema", f"{where}: unknown team {value!r:.80}")
        return None
    if team_id not in candidates:
        issues.add("invalid_schema", f"{where}: {value!r:.80} is not a valid candidate for this question")
        return None
    return team_id


def validate_question(text: str | None, question: Question, competition: Competition, *,
                      enforce_fixed_k_sum: bool = True, names: dict[str, str] | None = None) -> Checked:
    """Parse and validate a tournament-question answer; teams map to ids through names and aliases
    (and ``names``, the prompt set's team id -> name, when its names differ from the competition's).

    Without ``enforce_fixed_k_sum`` a fixed-k answer's probabilities may sum to anything: they
    are kept as stated and the sum is audited (``diagnostics["sum_audit"] = sum - k``)."""
    try:
        obj = extract_json(text)
    except ValueError as exc:
        return Checked(ForecastStatus.INVALID_JSON, errors=[str(exc)])
    issues, out = _Issues(), Checked(ForecastStatus.VALID)
    index, candidates = name_index(competition), set(question.candidates)
    if names:
        index = {**{normalise_name(n): tid for tid, n in names.items()}, **index}
    probs: dict[str, float] = {}
    stated: list[float] = []
    raw_choices = obj.get("choices")
    if not isinstance(raw_choices, list):
        issues.add("invalid_schema", "field choices must be a list")
        raw_choices = []
    for i, item in enumerate(raw_choices):
        if not isinstance(item, dict):
            issues.add("invalid_schema", f"choices[{i}] must be an object")
            continue
        team = _team(item.get("team"), index, candidates, f"choices[{i}].team", issues)
        p = _probability(item, "probability", issues)
        if p is not None:
            stated.append(p)
        if team in probs:
            issues.add("invalid_schema", f"choices[{i}]: team {item.get('team')!r} is listed twice")
        elif team is not None and p is not None:
            probs[team] = p
    missing = [c for c in question.candidates if c not in probs]
    if missing and not issues.items:  # an empty list misses them all
        names = ", ".join(competition.team(c).name for c in missing)
        issues.add("invalid_schema", f"choices must list every candidate once; missing: {names}")
    picks = _picks(obj, question, index, candidates, issues)
    confidence = _probability(obj, "confidence", issues, nullable=True) if "confidence" in obj else None
    summary = _text(obj, "reasoning_summary", issues)
    if stated:
        out.original_sums["choices"] = math.fsum(stated)
    audit_only = not enforce_fixed_k_sum and question.prediction_type is PredictionType.MULTI_CHOICE_FIXED_K
    if not issues.items and audit_only:
        values = [probs[c] for c in question.candidates]
        out.diagnostics["sum_audit"] = math.fsum(values) - question.k
    elif not issues.items:
        values = check_sum([probs[c] for c in question.candidates], float(question.k), "choices", issues, out)
    if issues.items:
        return Checked(issues.status(), errors=issues.messages(), original_sums=out.original_sums)
    final = dict(zip(question.candidates, values, strict=True))
    order = sorted(question.candidates, key=lambda c: (-final[c], question.candidates.index(c)))
    choices = tuple(
        Choice(team=c, probability=min(1.0, final[c]), rank=order.index(c) + 1, is_final_pick=c in picks)
        for c in question.candidates
    )
    out.payload = QuestionForecast(
        question_id=question.id, prediction_type=question.prediction_type.value, k=question.k,
        choices=choices, final_picks=tuple(picks), confidence=confidence, reasoning_summary=summary,
    )  # fmt: skip
    top = set(order[: question.k])
    out.diagnostics["picks_match_top_probabilities"] = top == set(picks)
    out.status = ForecastStatus.NORMALIZED if out.normalized else ForecastStatus.VALID
    return out


def _picks(obj: dict, question: Question, index: dict[str, str], candidates: set, issues: _Issues) -> list[str]:
    single = question.prediction_type is PredictionType.SINGLE_CHOICE
    key = "final_pick" if single else "final_picks"
    raw = obj.get(key)
    if single and isinstance(raw, list) and len(raw) == 1:
        raw = raw[0]
    raw_list = [raw] if single else raw
    if raw is None or not isinstance(raw_list, list):
        issues.add("invalid_schema", f"field {key} is required" + ("" if single else " (a list of team names)"))
        return []
    picks = [_team(v, index, candidates, f"{key}[{i}]" if not single else key, issues) for i, v in enumerate(raw_list)]
    picks = [p for p in picks if p is not None]
    if len(picks) == len(raw_list) and (len(set(picks)) != question.k or len(picks) != question.k):
        issues.add("invalid_schema", f"field {key} must hold exactly {question.k} distinct candidate(s), got {len(picks)}")
    return picks
