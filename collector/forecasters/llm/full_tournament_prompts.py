"""The two prompts of the ``full_tournament`` task, its repair prompt and its answer schemas.

Template ``prompts/full_tournament_v1.txt`` (WorldCupArena Appendix A.2): call 1 lists every
group match; call 2 gives the forecast's own tables (or, at ``groups_complete``, the real
ones) and the knockout matches they produce: the first round as fixed pairings, later rounds
as the slot rules (``W73 v W74``) that the model fills from its own answers. Teams are written
``id (Name)``; answers use the ids.
"""

from __future__ import annotations

from typing import Any

from collector.competitions.standings import TableRow
from collector.forecasters.tournament.bracket import (
    GroupFixture,
    expected_pairings,
    slots_in_order,
)
from collector.records import Access, Competition, Prompt

from .answer_schema import NUMBER, SCORE, _object
from .prompting import Template, _prompt, load_template

TEMPLATE = "full_tournament_v1"


def template() -> Template:
    return load_template(TEMPLATE)


def label(competition: Competition, team_id: str) -> str:
    return f"{team_id} ({competition.team(team_id).name})"


def _competition(competition: Competition) -> str:
    return f"{competition.name} {competition.edition}".strip()


def groups_block(competition: Competition, fixtures: list[GroupFixture]) -> str:
    lines = "\n".join(f"- group {f.group}: {label(competition, f.home)} v {label(competition, f.away)}"
                      for f in fixtures)
    breakers = ", ".join(t.value.replace("_", " ") for t in competition.tie_breakers)
    return template().block("groups", {"COMPETITION": _competition(competition), "GROUP_FIXTURES": lines,
                                       "TIE_BREAKERS": breakers})


def groups_prompt(competition: Competition, fixtures: list[GroupFixture], access: Access) -> Prompt:
    t = template()
    return _prompt(t, [t.block("preamble"), t.block(f"access.{access.value}"), groups_block(competition, fixtures),
                       t.block("groups_schema")])


def tables_text(competition: Competition, tables: dict[str, list[TableRow]]) -> str:
    out = []
    for name, rows in tables.items():
        cells = "; ".join(f"{r.rank}. {label(competition, r.team)} {r.points} pts, GD {r.goal_difference:+d}, "
                          f"GF {r.goals_for}" for r in rows)
        out.append(f"Group {name}: {cells}")
    return "\n".join(out)


def knockout_lines(competition: Competition, tables: dict[str, list[TableRow]]) -> str:
    fixed = expected_pairings(competition, tables, {})
    lines = []
    for slot in slots_in_order(competition):
        pair = fixed.get(slot.match_number)
        teams = (f"{label(competition, pair[0])} v {label(competition, pair[1])}" if pair
                 else f"{slot.home_rule} v {slot.away_rule}")
        lines.append(f"- match {slot.match_number} ({slot.stage}): {teams}")
    return "\n".join(lines)


def knockouts_block(competition: Competition, tables: dict[str, list[TableRow]], real: bool) -> str:
    source = "the real final group tables" if real else "computed from your group-match scores"
    return template().block("knockouts", {
        "COMPETITION": _competition(competition), "TABLES_SOURCE": source,
        "TABLES": tables_text(competition, tables), "KNOCKOUT_MATCHES": knockout_lines(competition, tables)})


def knockouts_prompt(competition: Competition, tables: dict[str, list[TableRow]], access: Access,
                     real: bool) -> Prompt:
    t = template()
    return _prompt(t, [t.block("preamble"), t.block(f"access.{access.value}"),
                       knockouts_block(competition, tables, real), t.block("knockouts_schema")])


def repair_prompt(task_block: str, schema_block: str, errors: list[str], previous: str) -> str:
    """The single repair of one call: the errors (a pairing mismatch is quoted as such), the task, the schema."""
    return template().block("repair", {
        "VALIDATION_ERRORS": "\n".join(f"- {e}" for e in errors), "TASK_BLOCK": task_block,
        "SCHEMA_BLOCK": schema_block, "ORIGINAL_RESPONSE": previous})


def groups_schema() -> dict[str, Any]:
    match = _object({"group": {"type": "string"}, "home": {"type": "string"}, "away": {"type": "string"},
                     "home_win": NUMBER, "draw": NUMBER, "away_win": NUMBER, "score": SCORE})
    return _object({"group_matches": {"type": "array", "items": match}, "reason": {"type": "string"}})


def knockouts_schema() -> dict[str, Any]:
    match = _object({"match_number": {"type": "integer"}, "home": {"type": "string"}, "away": {"type": "string"},
                     "score": SCORE, "advances": {"type": "string"}, "advance_probability": NUMBER})
    return _object({"knockout_matches": {"type": "array", "items": match}, "reason": {"type": "string"}})
