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
from builder.site.models_board import ChartsPage
from builder.site.sitectx import SiteContext

PATH = "charts/index.html"


def charts_page(ctx: SiteContext) -> ChartsPage:
    scores = ctx.scores
    charts = []
    if scores.forecasts:
        kickoffs = {k: (e.kickoff_utc.isoformat() if e.kickoff_utc else str(e.kickoff_date))
                    for k, e in ctx.archive.events.items()}
        stage_order = []
        for _, competition in sorted(ctx.archive.competitions.items()):
            stage_order += [s.id for s in sorted(competition.stages, key=lambda s: (s.order, s.id)) if s.id not in stage_order]
        charts += [cumulative_brier(scores.forecasts, kickoffs), brier_by_stage(scores.forecasts, stage_order)]
    if scores.calibration:
        charts.append(reliability(scores.calibration, "Reliability diagrams", "reliability"))
    if any(t.family.startswith(("access/", "strategy/", "horizon/")) for t in scores.tests):
        charts.append(factorial_effects(scores.tests))
    if scores.forecasts and any(op.cost_usd > 0 for op in scores.operations):  # all free: nothing to compare
        charts.append(cost_vs_brier(scores.forecasts, scores.operations))
    if scores.diversity:
        charts.append(similarity(scores.diversity))
    return ChartsPage(path=PATH, meta=ctx.meta("Charts", PATH, "charts", charts=bool(charts)), charts=tuple(charts))
