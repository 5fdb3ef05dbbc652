"""Page models of the forecaster pages: condition cells, calibration, operations, questions."""

from __future__ import annotations

from collections import defaultdict

from builder.site.charts import reliability
from builder.site.fmt import number as _f
from builder.site.fmt import percent as _p
from builder.site.links import forecaster_path
from builder.site.models_board import (
    ForecasterPage,
    ForecastersPage,
    ForecasterSummary,
    Table,
)
from builder.site.sitectx import SiteContext

INDEX = "forecasters/index.html"


def cells_table(rows) -> Table:
    body = []
    for r in sorted(rows, key=lambda r: (r.view, r.clock, r.horizon, r.access, r.strategy)):
        ci = r.intervals.get("brier")
        body.append((r.view, r.access, r.strategy, r.horizon, r.clock, str(r.n), _p(r.coverage),
                     "yes" if r.ranked else "no", _f(r.measures.get("brier")),
                     f"{ci[0]:.3f} – {ci[1]:.3f}" if ci else "–", _f(r.measures.get("log_loss")),
                     _f(r.measures.get("rps")), _p(r.measures.get("accuracy")), _f(r.ece)))
    return Table("Condition cells", ("view", "access", "strategy", "horizon", "clock", "N", "coverage", "ranked",
                                     "Brier", "95% interval", "log loss", "RPS", "accuracy", "ECE"), tuple(body))


def calibration_table(cal_rows, groups) -> Table:
    body = []
    for c in sorted(cal_rows, key=lambda c: (c.cell.clock, c.cell.horizon, c.cell.access, c.cell.strategy)):
        cell = f"{c.cell.access}/{c.cell.strategy}/{c.cell.horizon}"
        mine = [g for g in groups if g.cell == c.cell]
        conf = "; ".join(f"{g.group}: conf {g.mean_confidence:.2f}, Brier {g.brier:.3f} (n={g.n})" for g in mine)
        body.append((cell, c.cell.clock, str(c.n), _f(c.ece), conf or "–"))
    return Table("Calibration", ("cell", "clock", "N", "ECE (10 bins)", "confidence groups"), tuple(body))


def operations_table(ops) -> Table:
    body = []
    for op in sorted(ops, key=lambda o: o.clock):
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(op.statuses.items()) if v)
        shares = ", ".join(f"{k} {_p(v)}" for k, v in sorted(getattr(op, "search_shares", {}).items()) if v)
        body.append((op.clock, str(op.scheduled), statuses or "–", str(op.attempts),
                     _p(op.search_observed_rate) + (f" ({shares})" if shares else ""),
                     f"{op.prompt_tokens:,} / {op.completion_tokens:,}", f"${op.cost_usd:.4f}",
                     "–" if op.latency_ms_mean is None else f"{op.latency_ms_mean / 1000:.1f} s",
                     "–" if op.latency_ms_median is None else f"{op.latency_ms_median / 1000:.1f} s"))
    return Table("Operational reliability", ("clock", "scheduled", "statuses (valid, repaired, failed, missed ...)",
                                             "HTTP attempts", "search observed", "tokens in / out", "cost",
                                             "mean latency", "median latency"), tuple(body))


def questions_table(question_scores) -> Table:
    body = []
    for q in sorted(question_scores, key=lambda q: (q.competition_id, q.question_id, q.access, q.strategy, q.horizon)):
        measures = ", ".join(f"{k.replace('_', ' ')} {_f(v)}" for k, v in sorted(q.measures.items()) if v is not None)
        body.append((q.question_id, f"{q.access}/{q.strategy}/{q.horizon}", " ".join(q.final_picks),
                     " ".join(q.answer), measures))
    return Table("Tournament questions", ("question", "cell", "picks", "answer", "scores"), tuple(body))


def forecaster_pages(ctx: SiteContext) -> list[ForecasterPage | ForecastersPage]:
    scores = ctx.scores
    records = defaultdict(list)
    for f in ctx.archive.forecasts:
        records[f.forecaster].append(f)
    scored = defaultdict(int)
    for s in scores.forecasts:
        scored[s.forecaster] += 1
    pages: list[ForecasterPage | ForecastersPage] = []
    summaries = []
    for name in sorted(records):
        path = forecaster_path(name)
        kind = records[name][0].forecaster_type.value
        board = [r for r in list(scores.leaderboard) + list(scores.matched) if r.forecaster == name]
        cal = [c for c in scores.calibration if c.cell.forecaster == name]
        groups = [g for g in scores.confidence_groups if g.cell.forecaster == name]
        ops = [o for o in scores.operations if o.forecaster == name]
        qs = [q for q in scores.questions if q.forecaster == name]
        tables = (cells_table(board), calibration_table(cal, groups), operations_table(ops), questions_table(qs))
        charts = (reliability(cal, f"Reliability · {name}", "reliability"),) if cal else ()
        pages.append(ForecasterPage(
            path=path, meta=ctx.meta(name, path, "forecasters", charts=bool(charts)), forecaster=name,
            forecaster_type=kind, models=tuple(sorted({f.model_version for f in records[name]})),
            tables=tables, charts=charts,
        ))
        briers = [r.measures.get("brier") for r in board if r.view == "all" and r.measures.get("brier") is not None]
        summaries.append(ForecasterSummary(
            forecaster=name, href=path.removeprefix("forecasters/"), forecaster_type=kind,
            forecasts=len(records[name]), scored=scored[name], best_brier=_f(min(briers) if briers else None),
            cost=f"${sum(o.cost_usd for o in ops):.2f}",
        ))
    pages.append(ForecastersPage(path=INDEX, meta=ctx.meta("Forecasters", INDEX, "forecasters"), forecasters=tuple(summaries)))
    return pages
