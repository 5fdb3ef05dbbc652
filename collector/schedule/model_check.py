"""A tick step: check each configured LLM against OpenRouter's models API, and go on without the rejected.

``prematch models --check`` used to stop a whole tick when one model was unknown, expired, renamed
(its ``version`` no longer the canonical slug) or lacked a parameter the protocol sends. The tick
now asks the models API itself (``GET /api/v1/models``, :mod:`collector.forecasters.llm.models_api`)
and judges each LLM on its own:

* a **rejected** model is not asked anything this tick; each of its due forecast keys gets a
  ``missed`` record whose ``validation.errors`` says why (:data:`MISSED_PREFIX`), and the tick's
  problems name the model, so the run fails at the end while everything else (fixtures, the other
  forecasters, outcomes, baselines, the manifest, time-stamps) runs;
* when the models list cannot be read at all, no model can be judged: the LLMs sit this tick
  out without records (a window that closes meanwhile becomes ``missed`` by the ordinary rule at a
  later tick) and the problem names the models API.

An accepted model that lists ``max_completion_tokens`` among its ``supported_parameters`` is asked
with that parameter (OpenRouter's current name for the output limit); the others keep
``max_tokens``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from collector.errors import Problem
from collector.forecasters.llm.models_api import check_roster, parse_models
from collector.records import ForecasterType

MISSED_PREFIX = "not requested: the model check rejected the model: "
MODELS_SOURCE = "GET /api/v1/models"


@dataclass
class ModelCheck:
    """Forecaster ids the check rejected (with why) and those it could not judge."""

    rejected: dict[str, str] = field(default_factory=dict)
    unchecked: set[str] = field(default_factory=set)

    def skipped(self) -> set[str]:
        return set(self.rejected) | self.unchecked


async def check_models(tick, forecasters, client) -> ModelCheck:
    """Judge every LLM forecaster of the tick (see the module docstring); problems go to the tick's report."""
    llms = [f for f in forecasters if getattr(f, "type", None) is ForecasterType.LLM and hasattr(f, "cfg")]
    result = ModelCheck()
    if not llms or client is None:
        return result
    deadline = tick.timer() + timedelta(seconds=tick.config.openrouter.total_timeout_s)
    status, payload = await client.models(deadline=deadline)
    models, problems = parse_models(payload if status == 200 else None, MODELS_SOURCE)
    if status != 200 or not models:
        result.unchecked = {f.id for f in llms}
        why = "no model in the answer" if status == 200 else f"HTTP {status}" if status else "no answer"
        tick.report.problems.append(Problem(MODELS_SOURCE, f"{why}: no LLM could be checked, so none was asked this "
                                            f"tick ({', '.join(sorted(result.unchecked))})"))
        return result
    tick.report.problems += problems
    ids = {f.id for f in llms}
    rows = {row.forecaster: row for row in check_roster(tick.config, models, tick.now.date()) if row.forecaster in ids}
    for forecaster in llms:
        row = rows.get(forecaster.id)
        if row is None:
            continue
        if row.problems:
            result.rejected[forecaster.id] = "; ".join(row.problems)
            tick.report.problems.append(Problem(f"{tick.config.source_path}: {forecaster.id}",
                                                f"model {row.model}: {result.rejected[forecaster.id]}; skipped this "
                                                "tick, its due forecasts recorded as missed"))
        elif "max_completion_tokens" in row.info.supported_parameters:
            forecaster.limit_parameter = "max_completion_tokens"
    return result
