"""Page model of the charts page."""

from __future__ import annotations

from builder.site.charts import (
    brier_by_stage,
    cost_vs_brier,
    cumulative_brier,
    factorial_effects,
    reliability,
    similarity,
)
from builder.site.models_board import ChartsPage, MissingChart
from builder.site.sitectx import SiteContext

PATH = "charts/index.html"
NO_SCORES = "no match with forecasts has been played and scored yet."


def charts_page(ctx: SiteContext) -> ChartsPage:
    scores = ctx.scores
    charts, missing = [], []
    if scores.forecasts:
        kickoffs = {k: (e.kickoff_utc.isoformat() if e.kickoff_utc else str(e.kickoff_date))
                    for k, e in ctx.archive.events.items()}
        stage_order, stage_names = [], {}
        for _, competition in sorted(ctx.archive.competitions.items()):
            stage_order += [s.id for s in sorted(competition.stages, key=lambda s: (s.order, s.id)) if s.id not in stage_order]
            stage_names.update({s.id: s.name for s in competition.stages if s.id not in stage_names})
        charts += [cumulative_brier(scores.forecasts, kickoffs),
                   brier_by_stage(scores.forecasts, stage_order, stage_names)]
    else:
        missing += [MissingChart("Cumulative Brier over matches", NO_SCORES), MissingChart("Brier by stage", NO_SCORES)]
    if scores.calibration:
        charts.append(reliability(scores.calibration, "Reliability diagrams", "reliability"))
    else:
        missing.append(MissingChart("Reliability diagrams", NO_SCORES))
    if any(t.family.startswith(("access/", "strategy/", "horizon/")) and t.low is not None for t in scores.tests):
        charts.append(factorial_effects(scores.tests))
    else:
        missing.append(MissingChart("Factorial effects", "the factorial contrasts compare LLM forecasts under both "
                                    "levels of a factor (closed and open book, scoreline and probabilities first); "
                                    "this archive has no such pairs yet (baselines answer in one condition only)."))
    if scores.forecasts and any(op.cost_usd > 0 for op in scores.operations):  # all free: nothing to compare
        charts.append(cost_vs_brier(scores.forecasts, scores.operations))
    else:
        missing.append(MissingChart("Cost against Brier", "every forecaster here cost nothing (the built-in "
                                    "baselines need no API); the chart appears with the first paid LLM forecast."))
    if scores.diversity:
        charts.append(similarity(scores.diversity))
    else:
        missing.append(MissingChart("Pairwise similarity", "it compares the probabilities of LLM forecasters on the "
                                    "same matches and conditions; this archive has fewer than two LLMs."))
    return ChartsPage(path=PATH, meta=ctx.meta("Charts", PATH, "charts", charts=bool(charts)), charts=tuple(charts),
                      missing=tuple(missing))
