"""The ``fine_grained`` prompt strategy: the match answer plus players, events and statistics (T1-T4).

The prompt is the match prompt of the prompt set (preamble, access, definitions, fixture)
with the strategy, the two squads, the fine-grained definitions and the extended schema of
``prompts/fine_grained_v1.txt``. Squads come from the competition definition's squads file
(announced before the tournament, so knowable at any forecast time); without one the prompt
says so and the squad check below is skipped (``diagnostics["squad_checked"] = False``).

Semantic validation (WorldCupArena App. A.3), after the match fields pass
:func:`~collector.forecasters.llm.validation.validate_match`:

* the ``fine_grained`` object matches :class:`~collector.records.fine_grained.FineGrainedForecast`
  (every requested statistic with home and away values, 11 starters, formations adding up to 10);
* each side's 11 starters are distinct players of that side's squad, and every named player of
  the lists and events belongs to the side's squad (a substitute coming on may be any squad player);
* the declared ``result`` is the outcome with the largest 90-minute probability, and the most
  likely 90-minute score has the same result.

A failed constraint is quoted, one per line, in the single repair prompt, which asks for a
complete replacement object and reveals nothing after the lock.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from collector.competitions.players import same_player
from collector.forecasters.llm.answer_schema import match_schema
from collector.forecasters.llm.prompting import (
    PromptSet,
    _prompt,
    fixture_values,
    load_template,
    prompt_set,
    team_names,
)
from collector.forecasters.llm.validation import (
    Checked,
    extract_json,
    outcome_of,
    validate_match,
)
from collector.forecasters.squads import Squads
from collector.records import Access, Competition, Event, ForecastStatus, Prompt
from collector.records.fine_grained import FineGrainedForecast

TEMPLATE = "fine_grained_v1"
RESULTS = ("home", "draw", "away")


def squad_block(competition: Competition, event: Event, squads: Squads | None, pset: PromptSet) -> str:
    t = load_template(TEMPLATE)
    names = team_names(competition, pset).names
    if not squads or event.home_team not in squads or event.away_team not in squads:
        return "Squads: not available; name the players you expect."
    lines = [f"{names[team]} ({side}): " + ", ".join(f"{n} ({p})" for n, p in squads[team])
             for side, team in (("home", event.home_team), ("away", event.away_team))]
    return t.block("squads", {"SQUAD_LINES": "\n".join(lines)})


def fine_grained_prompt(competition: Competition, event: Event, access: Access, pset: PromptSet | None = None,
                        squads: Squads | None = None) -> Prompt:
    pset = pset or prompt_set()
    base, t = load_template(pset.match_template), load_template(TEMPLATE)
    blocks = [base.block("preamble"), base.block(f"access.{access.value}"), t.block("strategy.fine_grained"),
              base.block("definitions"), t.block("fine_grained.definitions"),
              base.block("fixture", fixture_values(competition, event, pset)),
              squad_block(competition, event, squads, pset), t.block("schema")]
    return _prompt(t, blocks)


def fine_grained_repair_prompt(competition: Competition, event: Event, errors: Sequence[str], previous: str,
                               pset: PromptSet | None = None, squads: Squads | None = None) -> str:
    pset = pset or prompt_set()
    base, t = load_template(pset.match_template), load_template(TEMPLATE)
    return t.block("repair", {
        "VALIDATION_ERRORS": "\n".join(f"- {e}" for e in errors),
        "FIXTURE_BLOCK": base.block("fixture", fixture_values(competition, event, pset)),
        "SQUAD_BLOCK": squad_block(competition, event, squads, pset),
        "SCHEMA_BLOCK": t.block("schema"), "ORIGINAL_RESPONSE": previous,
    })


def fine_grained_schema() -> dict[str, Any]:
    """The structured-output schema: the match answer plus a ``fine_grained`` object (loosely typed:
    the validator, not the provider, enforces the contract)."""
    schema = match_schema()
    schema["properties"]["fine_grained"] = {"type": "object"}
    schema["required"] = [*schema["required"], "fine_grained"]
    return schema


def _pydantic_errors(exc: ValidationError) -> list[str]:
    out = []
    for e in exc.errors()[:12]:
        where = "fine_grained." + ".".join(str(p) for p in e["loc"])
        out.append(f"{where}: {e['msg']}" + (f" (got {e['input']!r:.60})" if e["type"] != "missing" else ""))
    return out


def _squad_errors(fg: FineGrainedForecast, event: Event, squads: Squads) -> list[str]:
    errors = []
    teams = {"home": event.home_team, "away": event.away_team}

    def known(side: str, name: str) -> bool:
        return any(same_player(n, name) for n, _ in squads.get(teams[side], ()))
    for side in ("home", "away"):
        starting = [p.name for p in fg.lineup(side).starting]
        outside = [n for n in starting if not known(side, n)]
        if outside:
            errors.append(f"{side}_lineup: {len(outside)} of the 11 starters are not in the {side} squad: "
                          + ", ".join(outside[:5]))
        if len({n.casefold() for n in starting}) != 11:
            errors.append(f"{side}_lineup: the 11 starters must be 11 different players")
    named = [(f, p.side, p.player) for f in ("scorers", "assisters", "player_of_the_match") for p in getattr(fg, f)]
    named += [("goals", g.side, g.player) for g in fg.goals] + [("cards", c.side, c.player) for c in fg.cards]
    named += [("own_goals", g.side, g.player) for g in fg.own_goals] + [("penalties", p.side, p.taker)
                                                                        for p in fg.penalties]
    named += [("substitutions", s.side, n) for s in fg.substitutions for n in (s.player_on, s.player_off)]
    for field, side, name in named:
        if not known(side, name):
            errors.append(f"{field}: {name!r} is not in the {side} squad")
    return errors[:12]


def validate_fine_grained(text: str | None, event: Event, squads: Squads | None) -> Checked:
    """The match answer with its ``fine_grained`` part, validated as the module docstring says."""
    checked = validate_match(text, event)
    if not checked.ok:
        return checked
    obj = extract_json(text)
    raw = obj.get("fine_grained")
    errors: list[str] = []
    fg = None
    if not isinstance(raw, dict):
        errors.append("field fine_grained must be an object")
    else:
        result = raw.pop("result", None)
        try:
            fg = FineGrainedForecast.model_validate_json(json.dumps(raw))
        except ValidationError as exc:
            errors += _pydantic_errors(exc)
        p90 = checked.payload.probabilities_90()
        largest = RESULTS[max(range(3), key=lambda i: p90[i])]
        if result not in RESULTS:
            errors.append(f"fine_grained.result must be home, draw or away, got {result!r:.40}")
        elif result != largest:
            errors.append(f"fine_grained.result is {result} but the largest 90-minute probability is {largest}")
        if RESULTS[outcome_of(checked.payload.most_likely_score_90)] != largest:
            errors.append("most_likely_score_90 does not have the result of the largest 90-minute probability")
    if fg is not None and squads:
        errors += _squad_errors(fg, event, squads)
    checked.diagnostics["squad_checked"] = bool(squads)
    if errors:
        return Checked(ForecastStatus.INVALID_SCHEMA, errors=errors, original_sums=checked.original_sums,
                       diagnostics=checked.diagnostics)
    checked.payload = checked.payload.model_copy(update={"fine_grained": fg})
    return checked
