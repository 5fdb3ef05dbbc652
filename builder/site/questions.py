"""Page models of the tournament questions: an index, and one page per question with every forecast."""

from __future__ import annotations

from collections import defaultdict
from operator import attrgetter

from builder.score.definitions import label
from builder.site.fmt import number
from builder.site.forecast_view import MeasuresFor, question_forecast_view
from builder.site.labels import condition_label, horizon_label, plain
from builder.site.links import kickoff
from builder.site.models import (
    QuestionPage,
    QuestionsPage,
    QuestionSummary,
    QuestionView,
)
from builder.site.rationale import rationale_budget
from builder.site.sitectx import SiteContext
from collector.records import Forecast, Question

INDEX = "questions/index.html"


def question_path(question: Question) -> str:
    return f"questions/{question.competition_id}/{question.id}.html"


def kind_label(prediction_type: str, k: int) -> str:
    """"pick one team" / "pick 4 teams" instead of the protocol's ``multi_choice_fixed_k``."""
    return "pick one team" if k == 1 else f"pick {k} teams"


def _closes(question: Question):
    return kickoff(question.closes_at, question.closes_at.strftime("%Y-%m-%d %H:%M UTC"))


def question_pages(ctx: SiteContext, measures: MeasuresFor) -> list[QuestionsPage | QuestionPage]:
    by_question: dict[tuple[str, str], list[Forecast]] = defaultdict(list)
    for forecast in ctx.archive.forecasts:
        if forecast.target_kind == "question":
            by_question[(forecast.competition_id, forecast.target_id)].append(forecast)
    pages: list[QuestionsPage | QuestionPage] = []
    summaries = []
    for key in sorted(ctx.archive.questions):
        question = ctx.archive.questions[key]
        competition = ctx.archive.competitions.get(question.competition_id)
        if competition is None:
            continue
        names = ctx.team_names(competition.id)
        resolution = ctx.archive.resolutions.get(key)
        answer = tuple(names.get(t, t) for t in resolution.answer) if resolution else None
        forecasts = sorted(by_question.get(key, []), key=lambda f: (f.forecaster, f.key()))
        path = question_path(question)
        budget = rationale_budget(len(forecasts))
        view = QuestionView(
            competition=competition.name,
            label=question.label,
            meaning=question.meaning,
            kind=kind_label(question.prediction_type.value, question.k),
            closes=_closes(question),
            answer=answer,
            forecasts=tuple(question_forecast_view(f, names, resolution, measures, budget) for f in forecasts),
        )
        pages.append(QuestionPage(path=path, meta=ctx.meta(question.label, path, "questions"), question=view))
        summaries.append(
            QuestionSummary(
                href=path.removeprefix("questions/"),
                competition=competition.name,
                label=question.label,
                closes=_closes(question),
                answer=answer,
                forecasts=len(forecasts),
            )
        )
    headers, rows, measures = score_summary(ctx.scores)
    pages.append(QuestionsPage(path=INDEX, meta=ctx.meta("Tournament questions", INDEX, "questions"),
                               questions=tuple(summaries), score_headers=headers, score_rows=rows, score_measures=measures,
                               binary_events=list(map(attrgetter("kind"), ctx.archive.records.values())).count("binary_event")))
    return pages


QUESTION_MEASURES = {name: label(f"question_{name}") for name in (
    "brier", "log_loss", "accuracy", "exact_set", "correct", "marginal_brier", "probability_realised",
    "probability_sum_audit")}
"""The question scores' column headers: the registry's labels (``builder.score.definitions``)."""


def score_summary(scores) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """Mean question scores per forecaster, condition and question type (from builder.score.scoring):
    the headers, the rows and each column's registry id ("" for the others)."""
    summary = getattr(scores, "question_summary", [])
    names = sorted({m for row in summary for m in row.measures})
    headers = ("Forecaster", "Condition", "Questions", "N") + tuple(plain(n, QUESTION_MEASURES) for n in names)
    rows = []
    for row in sorted(summary, key=lambda r: (r.prediction_type, r.forecaster, r.access, r.strategy, r.horizon, r.clock)):
        values = tuple(number(row.measures.get(n)) for n in names)
        condition = f"{condition_label(row.access, row.strategy)} · {horizon_label(row.horizon)}"
        kind = "one team" if row.prediction_type == "single_choice" else "several teams"
        rows.append((row.forecaster, condition + (" · replay" if row.clock == "replay" else ""), kind,
                     str(row.n)) + values)
    return headers, tuple(rows), ("", "", "", "") + tuple(f"question_{n}" if n in QUESTION_MEASURES else ""
                                                          for n in names)
