"""The LLM ``full_tournament`` task: two calls, recorded as one forecast with every attempt.

WorldCupArena Appendix A.2. Call 1 (skipped at ``groups_complete``, when the real tables are
known) asks for every group match; Prematch computes the tables and the knockout pairings
they produce (``collector.forecasters.tournament.bracket``). Call 2 asks for the knockout
matches round by round; validation checks that they use exactly the code's pairings (from
the tables and the answer's own winners). Each call may be repaired once, the repair quoting
the errors (a pairing mismatch names the match, the rule, the expected and the answered
teams). Champion, runner-up, third place and semi-finalists are derived from the saved
matches, never asked. Cups only (``answers_league_table = False``): a league's slots are not
given to an LLM.

Enabled per forecaster: ``[[forecasters]] options.full_tournament = true``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from collector.forecasters.tasks import ScheduledTask
from collector.forecasters.tournament.bracket import (
    group_fixtures,
    predicted_tables,
    real_tables,
)
from collector.records import (
    AttemptRole,
    Forecast,
    ForecastStatus,
    Horizon,
    Validation,
)

from .full_tournament_prompts import (
    groups_block,
    groups_prompt,
    groups_schema,
    knockouts_block,
    knockouts_prompt,
    knockouts_schema,
    repair_prompt,
    template,
)
from .full_tournament_validation import validate_groups, validate_knockouts
from .validation import Checked


@dataclass
class Step:
    """One of the two calls: its name, what it asks, and how its answer is checked."""

    name: str
    prompt_text: str
    task_block: str
    schema_block: str
    schema: dict
    check: Callable[[str | None], Checked]


async def _ask(fc, task, step: Step, attempts: list, deadline, notes: list[str]) -> Checked:
    """The call, a truncation retry when cut, and at most one repair; errors of the first answer go to ``notes``."""
    first = await fc._call(step.prompt_text, task, AttemptRole.FIRST,
                           fc.max_tokens, attempts, deadline, schema=step.schema, name=f"full_tournament_{step.name}")
    if first.failure:
        status = ForecastStatus.TIMEOUT if first.failure == "timeout" else ForecastStatus.API_ERROR
        return Checked(status, errors=[f"{step.name}: {first.error or 'failed'}"])
    content = first.content
    if first.finish_reason == "length" and fc.budget.allows():
        more = await fc._call(step.prompt_text, task, AttemptRole.TRUNCATION_RETRY, fc.max_tokens * 2, attempts,
                              deadline, schema=step.schema, name=f"full_tournament_{step.name}")
        if not more.failure:
            content = more.content
    checked = step.check(content)
    if checked.ok:
        return checked
    notes += [f"{step.name}: {e}" for e in checked.errors]
    if not fc.budget.allows() or fc.clock() >= deadline:
        notes.append(f"{step.name}: no repair call: " + ("spending cap reached" if not fc.budget.allows() else "deadline"))
        return checked
    text = repair_prompt(step.task_block, step.schema_block, checked.errors, content or "")
    repaired = await fc._call(text, task, AttemptRole.REPAIR, fc.max_tokens, attempts, deadline, schema=step.schema,
                              name=f"full_tournament_{step.name}")
    if repaired.failure:
        notes.append(f"{step.name}: repair call failed: {repaired.error}")
        return checked
    second = step.check(repaired.content)
    if not second.ok:
        notes += [f"{step.name}: after repair: {e}" for e in second.errors]
        return Checked(ForecastStatus.INVALID_AFTER_REPAIR, errors=second.errors)
    second.diagnostics[f"{step.name}_repaired"] = True
    return second


def _status(results: list[Checked]) -> ForecastStatus:
    repaired = any(any(k.endswith("_repaired") for k in c.diagnostics) for c in results)
    normalized = any(c.normalized for c in results)
    if repaired:
        return ForecastStatus.REPAIRED_AND_NORMALIZED if normalized else ForecastStatus.REPAIRED
    return ForecastStatus.NORMALIZED if normalized else ForecastStatus.VALID


async def forecast_full_tournament(fc, task: ScheduledTask, deadline, attempts: list) -> Forecast:
    """Both calls for ``task`` (a cup's ``full-tournament`` target) and the one record they make;
    ``attempts`` (the caller's list) receives every attempt as it is made."""
    comp, access = task.competition, task.access
    real = task.horizon is Horizon.GROUPS_COMPLETE
    notes: list[str] = []
    results: list[Checked] = []
    groups: tuple = ()
    t = template()
    if real:
        tables = real_tables(task)
        prompt = None
    else:
        fixtures = group_fixtures(comp, task.fixtures)
        prompt = groups_prompt(comp, fixtures, access)
        step = Step("groups", prompt.text, groups_block(comp, fixtures), t.block("groups_schema"), groups_schema(),
                    lambda text: validate_groups(text, fixtures))
        checked = await _ask(fc, task, step, attempts, deadline, notes)
        if not checked.ok:
            return _failed(fc, task, prompt, attempts, checked, notes)
        groups = checked.payload.group_matches
        results.append(checked)
        tables = predicted_tables(comp, checked.payload)
    ko_prompt = knockouts_prompt(comp, tables, access, real)
    step = Step("knockouts", ko_prompt.text, knockouts_block(comp, tables, real), t.block("knockouts_schema"),
                knockouts_schema(), lambda text: validate_knockouts(text, comp, groups, tables))
    checked = await _ask(fc, task, step, attempts, deadline, notes)
    prompt = prompt or ko_prompt
    if not checked.ok:
        return _failed(fc, task, prompt, attempts, checked, notes)
    results.append(checked)
    diagnostics = {k: v for c in results for k, v in c.diagnostics.items()}
    diagnostics["knockout_prompt_sha256"] = ko_prompt.prompt_sha256
    validation = Validation(errors=tuple(notes), original_sums={k: v for c in results for k, v in c.original_sums.items()},
                            normalized=any(c.normalized for c in results), repaired=bool(notes),
                            diagnostics=diagnostics)
    return fc._record(task, prompt, attempts, _status(results), validation, checked)


def _failed(fc, task, prompt, attempts, checked: Checked, notes: list[str]) -> Forecast:
    validation = Validation(errors=tuple(notes or checked.errors), original_sums=checked.original_sums,
                            repaired=any("repair" in n for n in notes))
    return fc._record(task, prompt, attempts, checked.status, validation)
