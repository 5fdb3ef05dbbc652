"""Prompts of LLM-SoccerArena Appendix F (``wc2026_v1``, ``wc2026_special_v1``), for any competition.

Templates live in ``collector/forecasters/llm/prompts/<template_id>.txt`` as named blocks (``=== name ===``);
``<PLACEHOLDER>`` tokens are filled in one pass, so values are never re-expanded. Builders
take only the competition, the event or question, and registered fixtures: no outcome,
score or forecast can reach a prompt. Each :class:`~collector.records.Prompt` records the
template id, the SHA-256 of the template file and of the final prompt text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from collector.records import (
    Access,
    Competition,
    Event,
    PredictionType,
    Prompt,
    Question,
    Strategy,
)

PROMPT_DIR = Path(__file__).parent / "prompts"
MATCH_TEMPLATE = "wc2026_v1"
QUESTION_TEMPLATE = "wc2026_special_v1"
_BLOCK = re.compile(r"^=== ([a-z0-9_.]+) ===$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*)>")


@dataclass(frozen=True)
class Template:
    id: str
    sha256: str
    blocks: dict[str, str]

    def block(self, name: str, values: dict[str, str] | None = None) -> str:
        return fill(self.blocks[name], values or {})


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@cache
def load_template(template_id: str) -> Template:
    raw = (PROMPT_DIR / f"{template_id}.txt").read_bytes()
    text = raw.decode("utf-8")
    parts = _BLOCK.split(text)
    blocks = {parts[i]: parts[i + 1].strip("\n") for i in range(1, len(parts), 2)}
    return Template(template_id, hashlib.sha256(raw).hexdigest(), blocks)


def fill(text: str, values: dict[str, str]) -> str:
    """Replace ``<NAME>`` tokens present in ``values``; one pass, inserted text is left as is."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def _prompt(template: Template, blocks: Iterable[str]) -> Prompt:
    text = "\n\n".join(b for b in blocks if b)
    return Prompt(template_id=template.id, template_sha256=template.sha256, prompt_sha256=sha256_text(text), text=text)


def team_name(competition: Competition, team_id: str) -> str:
    return competition.team(team_id).name


def stage_label(competition: Competition, event: Event) -> str:
    try:
        name = competition.stage(event.stage).name
    except KeyError:
        name = event.stage
    if event.group:
        return f"{name}, {_group_label(event.group)}"
    if event.matchday is not None and competition.stage_opening_by == "matchday":
        return f"{name}, Matchday {event.matchday}"
    return name


def _group_label(group: str) -> str:
    return group if group.lower().startswith("group") else f"Group {group}"


def utc_label(event: Event) -> str:
    return event.kickoff_utc.strftime("%Y-%m-%d %H:%M UTC") if event.kickoff_utc else "unknown"


def fixture_values(competition: Competition, event: Event) -> dict[str, str]:
    return {
        "COMPETITION": competition.name,
        "TOURNAMENT_EDITION": competition.edition,
        "STAGE": stage_label(competition, event),
        "UTC_DATE": utc_label(event),
        "HOME_TEAM": team_name(competition, event.home_team),
        "AWAY_TEAM": team_name(competition, event.away_team),
        "VENUE_OR_UNKNOWN": event.venue or "unknown",
        "YES_NO_OR_UNKNOWN": "yes" if event.knockout else "no",
    }


def match_prompt(competition: Competition, event: Event, access: Access, strategy: Strategy) -> Prompt:
    """The ``wc2026_v1`` prompt: preamble, access header, strategy, definitions, fixture, schema."""
    t = load_template(MATCH_TEMPLATE)
    return _prompt(
        t,
        [
            t.block("preamble"),
            t.block(f"access.{access.value}"),
            t.block(f"strategy.{strategy.value}"),
            t.block("definitions"),
            t.block("fixture", fixture_values(competition, event)),
            t.block("schema"),
        ],
    )


def match_repair_prompt(competition: Competition, event: Event, errors: Sequence[str], previous: str) -> str:
    """The single repair call: the errors, the match context again, the schema, the previous answer."""
    t = load_template(MATCH_TEMPLATE)
    return t.block(
        "repair",
        {
            "VALIDATION_ERRORS": "\n".join(f"- {e}" for e in errors),
            "FIXTURE_BLOCK": t.block("fixture", fixture_values(competition, event)),
            "SCHEMA_BLOCK": t.block("schema"),
            "ORIGINAL_RESPONSE": previous,
        },
    )


def _question_values(competition: Competition, question: Question) -> dict[str, str]:
    return {
        "COMPETITION_EDITION": f"{competition.edition} {competition.name}".strip()
        if competition.edition not in competition.name
        else competition.name,
        "TOURNAMENT_EDITION": competition.edition,
        "QUESTION_ID": question.id,
        "QUESTION_LABEL": question.label,
        "QUESTION_MEANING": question.meaning,
        "SINGLE_CHOICE_OR_MULTI_CHOICE_FIXED_K": question.prediction_type.value,
        "GROUP_NAME": question.group or "",
        "K": str(question.k),
    }


def question_block(t: Template, competition: Competition, question: Question) -> str:
    values = _question_values(competition, question)
    lines = [t.block("question", values)]
    if question.group:
        lines.append(t.block("question.group", values))
    if question.prediction_type is PredictionType.MULTI_CHOICE_FIXED_K:
        lines.append(t.block("question.k", values))
    if question.id.startswith("top_scorer"):
        lines.append(t.block("question.top_scorer", values))
    return "\n".join(lines)


def candidate_block(t: Template, competition: Competition, question: Question) -> str:
    names = "\n".join(f"- {team_name(competition, c)}" for c in question.candidates)
    return t.block("candidates", {"CANDIDATE_LINES": names})


def context_block(t: Template, competition: Competition, fixtures: Sequence[Event]) -> str:
    names = {team.id: team.name for team in competition.teams}
    stages = {stage.id: stage.name for stage in competition.stages}
    groups = "\n".join(f"Group {g.name}: " + ", ".join(names[tid] for tid in g.teams) for g in competition.groups)
    groups = "Groups:\n" + groups if groups else "Teams: " + ", ".join(names.values())
    dated = sorted((e for e in fixtures if e.kickoff_utc is not None), key=lambda e: (e.kickoff_utc, e.id))
    rows = []
    for e in dated:
        # Appendix F: <UTC_DATE> | <STAGE> | <OPTIONAL_GROUP> | <HOME_TEAM> vs <AWAY_TEAM> | <OPTIONAL_VENUE>
        cells = [utc_label(e), stages.get(e.stage, e.stage)]
        if e.group:
            cells.append(_group_label(e.group))
        elif e.matchday is not None and competition.stage_opening_by == "matchday":
            cells.append(f"Matchday {e.matchday}")
        cells.append(f"{names[e.home_team]} vs {names[e.away_team]}")
        if e.venue:
            cells.append(e.venue)
        rows.append(" | ".join(cells))
    return t.block(
        "context",
        {"TOURNAMENT_EDITION": competition.edition, "GROUP_LINES": groups, "FIXTURE_LINES": "\n".join(rows)},
    )


def schema_block(t: Template, competition: Competition, question: Question) -> str:
    return t.block(f"schema.{question.prediction_type.value}", _question_values(competition, question))


def question_prompt(
    competition: Competition, question: Question, fixtures: Sequence[Event], access: Access, strategy: Strategy
) -> Prompt:
    """The ``wc2026_special_v1`` prompt: preamble, access, strategy, question, candidates, context, schema."""
    t = load_template(QUESTION_TEMPLATE)
    values = _question_values(competition, question)
    return _prompt(
        t,
        [
            t.block("preamble", values),
            t.block(f"access.{access.value}"),
            t.block(f"strategy.{strategy.value}"),
            question_block(t, competition, question),
            candidate_block(t, competition, question),
            context_block(t, competition, fixtures),
            schema_block(t, competition, question),
        ],
    )


def question_repair_prompt(competition: Competition, question: Question, errors: Sequence[str], previous: str) -> str:
    t = load_template(QUESTION_TEMPLATE)
    return t.block(
        "repair",
        {
            "VALIDATION_ERRORS": "\n".join(f"- {e}" for e in errors),
            "QUESTION_BLOCK": question_block(t, competition, question),
            "CANDIDATE_BLOCK": candidate_block(t, competition, question),
            "SCHEMA_BLOCK": schema_block(t, competition, question),
            "ORIGINAL_RESPONSE": previous,
        },
    )
