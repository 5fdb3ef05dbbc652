"""Page models of the forecaster pages: condition cells, calibration, operations, questions."""

from __future__ import annotations

from collections import defaultdict

from builder.score.definitions import figure_key, label
from builder.site.charts import reliability
from builder.site.fmt import number as _f
from builder.site.fmt import percent as _p
from builder.site.labels import condition_label, horizon_label
from builder.site.links import forecaster_path
from builder.site.measures import question_measures
from builder.site.models_board import (
    ForecasterPage,
    ForecastersPage,
    ForecasterSummary,
    Table,
)
from builder.site.paging import ROWS_PER_PAGE
from builder.site.sitectx import SiteContext

INDEX = "forecasters/index.html"
CODE = "collector/forecasters/baselines"

# What each built-in reference forecaster is, in two sentences (its code: CODE/{name}.py).
BASELINE_METHODS = {
    "uniform": "Gives home win, draw and away win 1/3 each, whoever plays: the floor every forecaster must beat. "
               "Questions asked before any result are answered with equal chances for every team.",
    "base_rate": "Gives the home-win, draw and away-win frequencies of earlier matches (national teams: the last "
                 "10 years, by venue type; clubs: this season so far plus a prior). It ignores who plays.",
    "elo": "Rates every team with World Football Elo ratings (goal-difference multiplier, home advantage) fitted "
           "on results before the request. The rating gap sets the expected goals of a Poisson score model.",
    "dixon_coles": "Fits attack and defence strengths to earlier results by maximum likelihood, weighting recent "
                   "matches more (half-life 693 days), with the Dixon-Coles correction for low scores. Probabilities, "
                   "expected goals and scorelines all come from one score matrix.",
    "ensemble": "The equal-weight average of elo and dixon_coles: their probabilities and score matrices. "
                "Averaging two different models usually beats either.",
    "market": "Bookmaker odds with the bookmaker's margin removed (Shin's method by default). It is the reference "
              "the betting return is measured against.",
}


def describe(name: str, kind: str, records, ctx: SiteContext) -> tuple[str, str]:
    """(what the forecaster is, in plain words; a link to its code or "")."""
    if kind == "llm":
        models = sorted({f"{f.model or name} (version {f.model_version})" for f in records})
        conditions = sorted({condition_label(f.access.value, f.strategy.value) for f in records})
        horizons = sorted({horizon_label(f.horizon.value) for f in records})
        return (f"A large language model, {', '.join(models)}, asked through OpenRouter with LLM-SoccerArena's "
                f"prompt for each match, under {len(conditions)} condition(s) ({'; '.join(conditions)}) at "
                f"{', '.join(horizons)} before kickoff. Its answer is validated against the forecast schema; "
                "invalid answers get one repair call and are otherwise recorded with their status.", "")
    if kind == "endpoint":
        declared = sorted({f"{f.endpoint.name} {f.endpoint.version}" for f in records if f.endpoint and f.endpoint.name})
        return ("An outside agent asked over HTTPS with the endpoint protocol (docs/enter-your-agent.md): the same "
                "task, window, validation and repair round as the LLMs" + (f"; it declared itself as "
                f"{', '.join(declared)}" if declared else "") + ".", "")
    base = records[0].model_version.rsplit("-", 1)[0] if records else name
    method = BASELINE_METHODS.get(name) or BASELINE_METHODS.get(base)
    if method is None:
        return f"A built-in {kind} forecaster.", ""
    code = f"{CODE}/{name if name in BASELINE_METHODS else base}.py"
    if ctx.repository_url and ctx.commit not in ("", "unknown"):
        return method, f"{ctx.repository_url}/blob/{ctx.commit}/{code}"
    return method, code


CELL_MEASURES = ("", "", "", "", "", "coverage", "", "brier", "", "log_loss", "rps", "accuracy", "ece")
"""The registry id of each column of :func:`cells_table` ("" for the others)."""


def cells_table(rows) -> Table:
    body, figures = [], []
    for r in sorted(rows, key=lambda r: (r.view, r.clock, r.horizon, r.access, r.strategy)):
        ci = r.intervals.get("brier")
        body.append(("matched" if r.view != "all" else "all", condition_label(r.access, r.strategy),
                     horizon_label(r.horizon), r.clock, str(r.n), _p(r.coverage),
                     "yes" if r.ranked else "no", _f(r.measures.get("brier")),
                     f"{ci[0]:.3f} – {ci[1]:.3f}" if ci else "–", _f(r.measures.get("log_loss")),
                     _f(r.measures.get("rps")), _p(r.measures.get("accuracy")), _f(r.ece)))
        figures.append(figure_key(r.forecaster, r.access, r.strategy, r.horizon, r.clock, r.view))
    headers = tuple(label(m) if m else h for m, h in zip(CELL_MEASURES, (
        "matches", "condition", "horizon", "clock", "N", "", "ranked", "", "95% interval", "", "", "", ""),
        strict=True))
    return Table("Condition cells", headers, tuple(body), CELL_MEASURES, tuple(figures))


def calibration_table(cal_rows, groups) -> Table:
    body = []
    for c in sorted(cal_rows, key=lambda c: (c.cell.clock, c.cell.horizon, c.cell.access, c.cell.strategy)):
        cell = f"{condition_label(c.cell.access, c.cell.strategy)} · {horizon_label(c.cell.horizon)}"
        mine = [g for g in groups if g.cell == c.cell]
        conf = "; ".join(f"{g.group} confidence ({g.mean_confidence:.2f}): Brier {g.brier:.3f}, N = {g.n}" for g in mine)
        body.append((cell, c.cell.clock, str(c.n), _f(c.ece), conf or "–"))
    return Table("Calibration", ("condition", "clock", "N", f"{label('ece')} (10 bins)",
                                 f"{label('brier')} (by stated confidence)"), tuple(body), ("", "", "", "ece", "brier"))


def operations_table(ops) -> Table:
    body = []
    for op in sorted(ops, key=lambda o: o.clock):
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(op.statuses.items()) if v)
        if getattr(op, "suspected_leaks", 0):  # the leakage audit's flags (not scored)
            statuses += f"; suspected leak {op.suspected_leaks}"
        shares = ", ".join(f"{k} {_p(v)}" for k, v in sorted(getattr(op, "search_shares", {}).items()) if v)
        body.append((op.clock, str(op.scheduled), statuses or "–", str(op.attempts),
                     _p(op.search_observed_rate) + (f" ({shares})" if shares else ""),
                     f"{op.prompt_tokens:,} / {op.completion_tokens:,}", f"${op.cost_usd:.4f}",
                     "–" if op.latency_ms_mean is None else f"{op.latency_ms_mean / 1000:.1f} s",
                     "–" if op.latency_ms_median is None else f"{op.latency_ms_median / 1000:.1f} s"))
    return Table("Operational reliability", ("clock", "scheduled", "statuses (valid, repaired, failed, missed ...)",
                                             "HTTP attempts", "search observed", "tokens in / out", "cost",
                                             "mean latency", "median latency"), tuple(body))


def questions_table(question_scores, team_names) -> Table:
    """Every tournament-question score of the forecaster, at most ``ROWS_PER_PAGE`` of them.

    The rows grow with the competitions of the archive, not with one page: past that many the
    table shows the first (by competition and question) and its title says where every score is
    (each question's own page and ``data/question_scores.csv``).
    """
    ordered = sorted(question_scores, key=lambda q: (q.competition_id, q.question_id, q.access, q.strategy, q.horizon))
    title = "Tournament questions"
    if len(ordered) > ROWS_PER_PAGE:
        title += (f" (the first {ROWS_PER_PAGE} of {len(ordered)}: every score is on its question's page and in "
                  "data/question_scores.csv)")
    body = []
    for q in ordered[:ROWS_PER_PAGE]:
        names = team_names(q.competition_id)
        measures = ", ".join(f"{m.label} {m.value}" for m in question_measures(q.measures, q.k))
        body.append((q.question_id.replace("_", " "), f"{condition_label(q.access, q.strategy)} · "
                     f"{horizon_label(q.horizon)}", ", ".join("tie" if t in q.tied else names.get(t, t)
                                                              for t in q.final_picks),
                     ", ".join(names.get(t, t) for t in q.answer), measures))
    return Table(title, ("question", "condition", "picks", "answer", "scores"), tuple(body))


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
        tables = (cells_table(board), calibration_table(cal, groups), operations_table(ops),
                  questions_table(qs, ctx.team_names))
        what, code = describe(name, kind, records[name], ctx)
        charts = (reliability(cal, f"Reliability · {name}", "reliability"),) if cal else ()
        pages.append(ForecasterPage(
            path=path, meta=ctx.meta(name, path, "forecasters", charts=bool(charts)), forecaster=name,
            forecaster_type=kind, models=tuple(sorted({f.model_version for f in records[name]})),
            tables=tables, charts=charts, description=what, code=code,
        ))
        briers = [r.measures.get("brier") for r in board if r.view == "all" and r.measures.get("brier") is not None]
        summaries.append(ForecasterSummary(
            forecaster=name, href=path.removeprefix("forecasters/"), forecaster_type=kind,
            forecasts=len(records[name]), scored=scored[name], best_brier=_f(min(briers) if briers else None),
            cost=f"${sum(o.cost_usd for o in ops):.2f}",
        ))
    pages.append(ForecastersPage(path=INDEX, meta=ctx.meta("Forecasters", INDEX, "forecasters"), forecasters=tuple(summaries)))
    return pages
