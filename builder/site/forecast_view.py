"""Display views of single forecast records (match and question), straight from the archive."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from builder.site import labels
from builder.site.fmt import percent
from builder.site.links import forecaster_path
from builder.site.models import (
    ChoiceView,
    Citation,
    ForecastView,
    Measure,
    QuestionForecastView,
)
from builder.site.rationale import clean_text, render_rationale, safe_href
from collector.archive.layout import path_for
from collector.records import (
    AttemptStatistics,
    Clock,
    Forecast,
    MatchForecast,
    QuestionForecast,
    QuestionResolution,
    SearchFlag,
)

TOP_CHOICES = 6  # choices shown per question forecast besides the final picks (the rest are in the data)
MeasuresFor = Callable[[Forecast], tuple[Measure, ...]]


def condition_label(forecast: Forecast) -> str:
    """"closed book · probabilities first · T-24h" (plus the sample number when there are several)."""
    sample = f" · sample {forecast.sample + 1}" if forecast.sample else ""
    return (f"{labels.condition_label(forecast.access.value, forecast.strategy.value)} · "
            f"{labels.horizon_label(forecast.horizon.value)}{sample}")


def most_likely_score(payload: MatchForecast) -> str:
    """The scoreline with the highest stated probability (not merely the first one listed)."""
    if payload.top_scores:
        best = max(payload.top_scores, key=lambda s: (s.probability, -s.home - s.away))
        return f"{best.home}–{best.away} ({percent(best.probability)})"
    score = payload.most_likely_score_90
    return f"{score.home}–{score.away}"


def _attempt_totals(forecast: Forecast) -> tuple[str | None, str | None]:
    """Cost and latency summed over the record's attempts (``Forecast.usage``), formatted."""
    usage = forecast.usage
    cost = f"${usage.cost_usd:.4f}" if usage.cost_usd is not None else None
    latency = f"{usage.latency_ms / 1000:.1f} s" if usage.latency_ms is not None else None
    return cost, latency


def _citations(forecast: Forecast) -> tuple[Citation, ...]:
    seen: dict[str, Citation] = {}
    for attempt in forecast.attempts:
        for cited in attempt.tool_trace.citations:
            if cited.url not in seen:
                seen[cited.url] = Citation(href=safe_href(cited.url), label=clean_text(cited.title or cited.url))
    return tuple(seen[url] for url in sorted(seen))


def _search(forecast: Forecast) -> str:
    if forecast.search is not None:  # the search observed over every answered call, and how many searches
        report = forecast.search
        return f"{report.observed.value} ({report.requests})" if report.requests else report.observed.value
    observed = [a.tool_trace.search_observed.value for a in forecast.attempts]
    return observed[-1] if observed else "none"


def _search_flag(forecast: Forecast) -> str | None:
    flag = forecast.search.flag if forecast.search is not None else None
    return flag.value if flag is not None and flag is not SearchFlag.OK else None


def _statistics(stats: Sequence[AttemptStatistics]) -> str | None:
    """OpenRouter's generation stats of the calls: served provider(s), search engine and results, cost."""
    if not stats:
        return None
    providers = sorted({s.provider for s in stats if s.provider})
    parts = [f"provider {', '.join(providers)}"] if providers else []
    results = [s.search_results for s in stats if s.search_results is not None]
    engines = sorted({s.web_search_engine for s in stats if s.web_search_engine})
    if results and sum(results):
        parts.append(f"{sum(results)} search results" + (f" ({', '.join(engines)})" if engines else ""))
    costs = [s.total_cost_usd for s in stats if s.total_cost_usd is not None]
    if costs:
        parts.append(f"billed ${sum(costs):.4f}")
    return " · ".join(parts) or None


def _lead_time(forecast: Forecast) -> str | None:
    minutes = forecast.lead_time_minutes
    if minutes is None and forecast.requested_at is not None:
        minutes = (forecast.kickoff_utc - forecast.requested_at).total_seconds() / 60
    if minutes is None:
        return None
    hours = minutes / 60
    return f"{hours:.1f} h" if hours < 72 else f"{hours / 24:.1f} days"


def match_forecast_view(
    forecast: Forecast, names: dict[str, str], measures: MeasuresFor, rationale_bytes: int | None = None,
    stats: Sequence[AttemptStatistics] = (),
) -> ForecastView:
    payload = forecast.payload if isinstance(forecast.payload, MatchForecast) else None
    cost, latency = _attempt_totals(forecast)
    probs = bars = ml = xg = adv = conf = None
    if payload is not None:
        p = payload.probabilities_90()
        probs = tuple(percent(v) for v in p)
        bars = tuple(round(100 * v, 1) for v in p)
        ml = most_likely_score(payload)
        xg = f"{payload.expected_home_goals_90:.2f} – {payload.expected_away_goals_90:.2f}"
        if payload.home_advances is not None:
            adv = f"{percent(payload.home_advances)} – {percent(payload.away_advances)}"
        conf = percent(payload.confidence) if payload.confidence is not None else None
    return ForecastView(
        forecaster=forecast.forecaster,
        forecaster_href=forecaster_path(forecast.forecaster),
        forecaster_type=forecast.forecaster_type.value,
        model=forecast.model,
        served_model=clean_text(forecast.served_model) if forecast.served_model_differs else None,
        condition=condition_label(forecast),
        access=forecast.access.value,
        strategy=forecast.strategy.value,
        horizon=forecast.horizon.value,
        status=forecast.status.value,
        scorable=forecast.scorable,
        probabilities=probs,
        bars=bars,
        most_likely=ml,
        expected_goals=xg,
        advancement=adv,
        confidence=conf,
        rationale=render_rationale(payload.reason if payload else None, rationale_bytes),
        requested_at=forecast.requested_at.strftime("%Y-%m-%d %H:%M UTC") if forecast.requested_at else None,
        lead_time=_lead_time(forecast),
        cost=cost,
        latency=latency,
        search=_search(forecast),
        citations=_citations(forecast),
        search_flag=_search_flag(forecast),
        protocol=forecast.protocol.sha256[:12] if forecast.protocol is not None else None,
        statistics=_statistics(stats),
        measures=measures(forecast),
        replay=forecast.clock is Clock.REPLAY,
        archive_path=path_for(forecast),
        evidence=forecast.evidence.path if forecast.evidence else None,
        evidence_sha256=forecast.evidence.sha256 if forecast.evidence else None,
    )


def question_forecast_view(
    forecast: Forecast,
    names: dict[str, str],
    resolution: QuestionResolution | None,
    measures: MeasuresFor,
    rationale_bytes: int | None = None,
) -> QuestionForecastView:
    payload = forecast.payload if isinstance(forecast.payload, QuestionForecast) else None
    answer = set(resolution.answer) if resolution else None
    picks: list[ChoiceView] = []
    if payload is not None:
        chosen, tied = set(payload.final_picks), payload.tied_picks()
        ranked = sorted(payload.choices, key=lambda c: (c.rank, -c.probability, c.team))
        shown = [c for i, c in enumerate(ranked) if i < TOP_CHOICES or c.team in chosen]
        for choice in shown:
            picks.append(
                ChoiceView(
                    team=names.get(choice.team, choice.team),
                    probability=percent(choice.probability),
                    width=round(100 * choice.probability, 1),
                    picked=choice.team in chosen and choice.team not in tied,
                    tie=choice.team in tied,
                    correct=None if answer is None else choice.team in answer,
                )
            )
    return QuestionForecastView(
        forecaster=forecast.forecaster,
        forecaster_href=forecaster_path(forecast.forecaster),
        forecaster_type=forecast.forecaster_type.value,
        condition=condition_label(forecast),
        status=forecast.status.value,
        picks=tuple(picks),
        rationale=render_rationale(payload.reasoning_summary if payload else None, rationale_bytes),
        measures=measures(forecast),
        replay=forecast.clock is Clock.REPLAY,
    )
