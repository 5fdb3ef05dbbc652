"""Prompts of LLM-SoccerArena Appendix F (``wc2026_v1``, ``wc2026_special_v1``), for any competition.

Templates live in ``collector/forecasters/llm/prompts/<template_id>.txt`` as named blocks (``=== name ===``);
``<PLACEHOLDER>`` tokens are filled in one pass, so values are never re-expanded. Builders
take only the competition, the event or question, and registered fixtures: no outcome,
score or forecast can reach a prompt. Each :class:`~collector.records.Prompt` records the
template id, the SHA-256 of the template file and of the final prompt text.

Two prompt sets (``[arena] prompt_set`` in ``prematch.toml``):

* ``prematch_v1`` (default, the prompts every archived forecast so far used): templates
  ``wc2026_v1`` / ``wc2026_special_v1``. It adds to Appendix F a line telling the model that
  fixed-k probabilities must sum to k (the validator enforces it) and repeats the match in the
  match repair prompt; team names and group order are the competition's.
* ``lsa_v1``: Appendix F as published (templates ``lsa_v1/wc2026_v1`` /
  ``lsa_v1/wc2026_special_v1``, line layout of the released project's ``prompt.ts``): no
  sum-to-k line (fixed-k sums are audited, not enforced), the match repair prompt of F.5
  without a fixture block, candidate names and group order of Table 8 (``lsa_v1/<competition>
  .teams.toml``; other competitions keep their own names), ISO 8601 kickoff times. The
  question repair prompt is not printed in F.5; ``lsa_v1`` uses the released project's
  (``special-questions.ts``). Names differ from the site's display names; team ids never do.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
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
class PromptSet:
    """One protocol's prompts: its templates, where its team names come from, and its sum rule."""

    name: str
    match_template: str
    question_template: str
    enforce_fixed_k_sum: bool
    """Whether fixed-k probabilities must sum to k (else the sum is audited and kept as stated)."""
    names_dir: str | None = None
    """Folder under ``prompts/`` holding ``<competition id>.teams.toml`` name tables."""
    iso_kickoff: bool = False
    edition_first: bool = False
    """Name the competition edition first ("2026 FIFA World Cup", as Appendix F prints it)."""


PROMPT_SETS = {
    "prematch_v1": PromptSet("prematch_v1", MATCH_TEMPLATE, QUESTION_TEMPLATE, enforce_fixed_k_sum=True),
    "lsa_v1": PromptSet("lsa_v1", "lsa_v1/wc2026_v1", "lsa_v1/wc2026_special_v1", enforce_fixed_k_sum=False,
                        names_dir="lsa_v1", iso_kickoff=True, edition_first=True),
}
DEFAULT_PROMPT_SET = "prematch_v1"
TEMPLATE_ACCESS = (Access.CLOSED_BOOK, Access.OPEN_BOOK)
TEMPLATE_STRATEGIES = (Strategy.DIRECT_SCORE, Strategy.PROBABILISTIC_FORECAST)  # Appendix F's two; the others have their own templates
"""The access levels whose header is in the match and question templates; ``evidence_package`` has its own
template (``prompts/evidence_v1.txt``, :mod:`collector.forecasters.llm.evidence_prompt`) and needs the package."""


def _access_block(t: Template, access: Access) -> str:
    if access not in TEMPLATE_ACCESS:
        raise ValueError(f"access {access.value}: the prompt needs its evidence package "
                         "(collector.forecasters.llm.evidence_prompt)")
    return t.block(f"access.{access.value}")


def prompt_set(name: str = DEFAULT_PROMPT_SET) -> PromptSet:
    """The named prompt set; KeyError naming the known sets otherwise."""
    try:
        return PROMPT_SETS[name]
    except KeyError:
        raise KeyError(f"unknown prompt set {name!r} (known: {', '.join(PROMPT_SETS)})") from None


@dataclass(frozen=True)
class TeamNames:
    """The names a prompt set shows for a competition's teams, and its group order."""

    names: dict[str, str]
    groups: tuple[tuple[str, tuple[str, ...]], ...]

    def order(self, team_ids: Iterable[str]) -> list[str]:
        """``team_ids`` in the table's order (group by group); ids it does not list keep their order last."""
        flat = {tid: i for i, tid in enumerate(t for _, teams in self.groups for t in teams)}
        ids = list(team_ids)
        return sorted(ids, key=lambda t: flat.get(t, len(flat) + ids.index(t)))


@cache
def _name_table(names_dir: str, competition_id: str) -> TeamNames | None:
    path = PROMPT_DIR / names_dir / f"{competition_id}.teams.toml"
    if not path.exists():
        return None
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    groups = tuple((g, tuple(tid for tid, _ in pairs)) for g, pairs in data["groups"].items())
    return TeamNames({tid: name for pairs in data["groups"].values() for tid, name in pairs}, groups)


def team_names(competition: Competition, pset: PromptSet) -> TeamNames:
    """The prompt set's names for the competition's teams (its own names where the set has none)."""
    table = _name_table(pset.names_dir, competition.id) if pset.names_dir else None
    names = {team.id: team.name for team in competition.teams}
    groups = tuple((g.name, tuple(g.teams)) for g in competition.groups)
    if table is None:
        return TeamNames(names, groups)
    return TeamNames({**names, **table.names}, table.groups)


@cache
def _question_table(names_dir: str, competition_id: str) -> dict[str, dict[str, str]]:
    path = PROMPT_DIR / names_dir / f"{competition_id}.questions.toml"
    return tomllib.loads(path.read_text(encoding="utf-8"))["questions"] if path.exists() else {}


def prompt_names(competition: Competition, pset: PromptSet) -> dict[str, str]:
    """Team id -> the name the prompt set shows (for the validator's name index)."""
    return team_names(competition, pset).names


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


def utc_label(event: Event, iso: bool = False) -> str:
    """Kickoff as ``2026-06-11 19:00 UTC`` (``prematch_v1``) or ``2026-06-11T19:00:00Z`` (ISO 8601, ``lsa_v1``).

    A kickoff known only as a date gives the source's local date: ``1990-06-23, time not known``.
    """
    if event.kickoff_utc is None:
        return f"{event.kickoff_date.isoformat()}, time not known"
    return event.kickoff_utc.strftime("%Y-%m-%dT%H:%M:%SZ" if iso else "%Y-%m-%d %H:%M UTC")


def fixture_values(competition: Competition, event: Event, pset: PromptSet | None = None) -> dict[str, str]:
    pset = pset or prompt_set()
    names = team_names(competition, pset).names
    return {
        "COMPETITION": competition.name,
        "TOURNAMENT_EDITION": competition.edition,
        "STAGE": stage_label(competition, event),
        "UTC_DATE": utc_label(event, pset.iso_kickoff),
        "HOME_TEAM": names[event.home_team],
        "AWAY_TEAM": names[event.away_team],
        "VENUE_OR_UNKNOWN": event.venue or "unknown",
        "YES_NO_OR_UNKNOWN": "yes" if event.knockout else "no",
    }


def match_prompt(competition: Competition, event: Event, access: Access, strategy: Strategy,
                 pset: PromptSet | None = None) -> Prompt:
    """The ``wc2026_v1`` prompt: preamble, access header, strategy, definitions, fixture, schema."""
    pset = pset or prompt_set()
    t = load_template(pset.match_template)
    return _prompt(
        t,
        [
            t.block("preamble"),
            _access_block(t, access),
            t.block(f"strategy.{strategy.value}"),
            t.block("definitions"),
            t.block("fixture", fixture_values(competition, event, pset)),
            t.block("schema"),
        ],
    )


def match_repair_prompt(competition: Competition, event: Event, errors: Sequence[str], previous: str,
                        pset: PromptSet | None = None) -> str:
    """The single repair call: the errors, the schema, the previous answer (``prematch_v1`` also
    repeats the match; ``lsa_v1``, as Appendix F.5, does not)."""
    pset = pset or prompt_set()
    t = load_template(pset.match_template)
    return t.block(
        "repair",
        {
            "VALIDATION_ERRORS": "\n".join(f"- {e}" for e in errors),
            "FIXTURE_BLOCK": t.block("fixture", fixture_values(competition, event, pset)),
            "SCHEMA_BLOCK": t.block("schema"),
            "ORIGINAL_RESPONSE": previous,
        },
    )


def _question_values(competition: Competition, question: Question, pset: PromptSet | None = None) -> dict[str, str]:
    """Runtime values of a question; a prompt set with a question table (``lsa_v1``) shows its own
    question id, label and meaning (``<competition>.questions.toml``)."""
    pset = pset or prompt_set()
    shown = (_question_table(pset.names_dir, competition.id) if pset.names_dir else {}).get(question.id, {})
    return {
        "COMPETITION_EDITION": _edition_name(competition, pset.edition_first),
        "TOURNAMENT_EDITION": competition.edition,
        "QUESTION_ID": shown.get("id", question.id),
        "QUESTION_LABEL": shown.get("label", question.label),
        "QUESTION_MEANING": shown.get("meaning", question.meaning),
        "SINGLE_CHOICE_OR_MULTI_CHOICE_FIXED_K": question.prediction_type.value,
        "GROUP_NAME": question.group or "",
        "K": str(question.k),
    }


def _edition_name(competition: Competition, edition_first: bool) -> str:
    """"FIFA World Cup 2026" (the name, which holds the edition) or "2026 FIFA World Cup" (edition first)."""
    name, edition = competition.name, competition.edition
    if edition_first or edition not in name:
        return " ".join(f"{edition} {name.replace(edition, '')}".split())
    return name


def question_block(t: Template, competition: Competition, question: Question, pset: PromptSet | None = None) -> str:
    values = _question_values(competition, question, pset)
    lines = [t.block("question", values)]
    if question.group:
        lines.append(t.block("question.group", values))
    if question.prediction_type is PredictionType.MULTI_CHOICE_FIXED_K:
        lines.append(t.block("question.k", values))
    if question.id.startswith("top_scorer"):
        lines.append(t.block("question.top_scorer", values))
    return "\n".join(lines)


def candidate_block(t: Template, competition: Competition, question: Question, pset: PromptSet | None = None) -> str:
    table = team_names(competition, pset or prompt_set())
    names = "\n".join(f"- {table.names[c]}" for c in table.order(question.candidates))
    return t.block("candidates", {"CANDIDATE_LINES": names})


def context_block(t: Template, competition: Competition, fixtures: Sequence[Event],
                  pset: PromptSet | None = None) -> str:
    pset = pset or prompt_set()
    table = team_names(competition, pset)
    names = table.names
    stages = {stage.id: stage.name for stage in competition.stages}
    groups = "\n".join(f"Group {g}: " + ", ".join(names[tid] for tid in teams) for g, teams in table.groups)
    groups = "Groups:\n" + groups if groups else "Teams: " + ", ".join(names[t.id] for t in competition.teams)
    dated = sorted((e for e in fixtures if e.kickoff_utc is not None), key=lambda e: (e.kickoff_utc, e.id))
    rows = []
    for e in dated:
        # Appendix F: <UTC_DATE> | <STAGE> | <OPTIONAL_GROUP> | <HOME_TEAM> vs <AWAY_TEAM> | <OPTIONAL_VENUE>
        cells = [utc_label(e, pset.iso_kickoff), stages.get(e.stage, e.stage)]
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


def schema_block(t: Template, competition: Competition, question: Question, pset: PromptSet | None = None) -> str:
    return t.block(f"schema.{question.prediction_type.value}", _question_values(competition, question, pset))


def question_prompt(
    competition: Competition, question: Question, fixtures: Sequence[Event], access: Access, strategy: Strategy,
    pset: PromptSet | None = None,
) -> Prompt:
    """The ``wc2026_special_v1`` prompt: preamble, access, strategy, question, candidates, context, schema."""
    pset = pset or prompt_set()
    t = load_template(pset.question_template)
    values = _question_values(competition, question, pset)
    return _prompt(
        t,
        [
            t.block("preamble", values),
            _access_block(t, access),
            t.block(f"strategy.{strategy.value}"),
            question_block(t, competition, question, pset),
            candidate_block(t, competition, question, pset),
            context_block(t, competition, fixtures, pset),
            schema_block(t, competition, question, pset),
        ],
    )


def question_repair_prompt(competition: Competition, question: Question, errors: Sequence[str], previous: str,
                           pset: PromptSet | None = None) -> str:
    pset = pset or prompt_set()
    t = load_template(pset.question_template)
    return t.block(
        "repair",
        {
            "VALIDATION_ERRORS": "\n".join(f"- {e}" for e in errors),
            "QUESTION_BLOCK": question_block(t, competition, question, pset),
            "CANDIDATE_BLOCK": candidate_block(t, competition, question, pset),
            "SCHEMA_BLOCK": schema_block(t, competition, question, pset),
            "ORIGINAL_RESPONSE": previous,
        },
    )
