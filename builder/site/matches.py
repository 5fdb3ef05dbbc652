"""Page models of the match explorer: one list per competition and one page per match."""

from __future__ import annotations

import json

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from functools import partial

from builder.site.fine_grained_view import fine_grained_section
from builder.site.fmt import percent
from builder.site.forecast_view import MeasuresFor, match_forecast_view
from builder.site.links import kickoff, match_list_path, match_path, root_for
from builder.site.market_chart import market_vs_model
from builder.site.measures import measure_inputs
from builder.site.models import (
    CompetitionSummary,
    Consensus,
    ForecastView,
    Goal,
    Link,
    MatchesIndexPage,
    MatchListPage,
    MatchPage,
    MatchRow,
    OutcomeView,
)
from builder.site.pagecache import Deferred
from builder.site.pageinputs import card_inputs, match_inputs
from builder.site.paging import part_links, part_path, split_rows
from builder.site.provenance import record_link
from builder.site.rationale import clean_text, rationale_budget
from builder.site.sitectx import SiteContext
from collector.archive.layout import event_path, path_for
from collector.records import (
    Clock,
    Competition,
    Event,
    Forecast,
    MatchForecast,
    Outcome,
)


def _score(score) -> str | None:
    return f"{score.home}–{score.away}" if score is not None else None


def outcome_view(outcome: Outcome, names: dict[str, str], winner_label: str = "Advances") -> OutcomeView:
    """The outcome as shown; goals in the order they were scored (minute, then stoppage), whichever team."""
    goals = []
    for goal in sorted(outcome.goals or (), key=lambda g: (g.minute is None, g.minute or 0, g.stoppage or 0)):
        minute = "" if goal.minute is None else f"{goal.minute}'" + (f"+{goal.stoppage}" if goal.stoppage else "")
        note = " ".join(n for n, on in (("pen.", goal.penalty), ("o.g.", goal.own_goal)) if on)
        goals.append(Goal(minute=minute, team=names.get(goal.team, goal.team), scorer=goal.scorer or "", note=note))
    return OutcomeView(
        status=outcome.status.value,
        score_90=_score(outcome.score_90),
        score_half_time=_score(outcome.score_half_time),
        score_extra_time=_score(outcome.score_extra_time),
        score_penalties=_score(outcome.score_penalties),
        advancing=names.get(outcome.advancing_team, outcome.advancing_team) if outcome.advancing_team else None,
        goals=tuple(goals),
        replay=outcome.clock is Clock.REPLAY,
        corrections=tuple(f"{c.field}: {json.dumps(c.source_value, ensure_ascii=False)} in the source, "
                          f"{json.dumps(c.value, ensure_ascii=False)} used; source: {c.citation}"
                          + (f" ({c.note})" if c.note else "") for c in outcome.corrections),
        winner_label=winner_label,
    )


def winner_label(competition: Competition, event: Event) -> str:
    """"Advances" when a later match takes this match's winner; "Winner" for a match that ends a path
    (the final, the match for third place), where nobody advances anywhere."""
    if event.match_number is None or not competition.knockout_slots:
        return "Advances"
    rule = f"W{event.match_number}"
    return "Advances" if any(rule in (s.home_rule, s.away_rule) for s in competition.knockout_slots) else "Winner"


def result_label(outcome: Outcome | None) -> str:
    if outcome is None:
        return ""
    if outcome.score_90 is None:
        return outcome.status.value
    text = _score(outcome.score_90) or ""
    if outcome.score_extra_time is not None:
        text += f" (aet {_score(outcome.score_extra_time)})"
    if outcome.score_penalties is not None:
        text += f" (pens {_score(outcome.score_penalties)})"
    return text


def decided_text(event: Event, outcome: Outcome | None, competition: Competition) -> str:
    """How a knockout was decided, from the outcome's own scores ("" for a group or league match);
    before its result, how it will be, by the edition's rules (:meth:`Competition.plays_extra_time`).

    A 1-0 after extra time was decided in extra time, not on penalties: the words follow which
    scores the outcome holds (``score_penalties`` only when there was a shoot-out).
    """
    if not event.knockout:
        return ""
    if outcome is None or outcome.score_90 is None:
        then = [*(("extra time",) if competition.plays_extra_time(event.stage) else ()),
                *(("penalties",) if competition.shootouts else ())]
        if not then:
            return "knockout: a draw after 90 minutes is decided as the competition's rules say"
        return f"knockout: a draw after 90 minutes goes {'straight ' if len(then) == 1 and competition.shootouts else ''}" \
               f"to {', then '.join(then)}"
    if outcome.score_penalties is not None:
        after = f" after {_score(outcome.score_extra_time)} in extra time" if outcome.score_extra_time else ""
        return f"decided on penalties ({_score(outcome.score_penalties)}){after}"
    if outcome.score_extra_time is not None:
        return f"decided in extra time ({_score(outcome.score_extra_time)} after 120 minutes)"
    return "decided in 90 minutes"


def group_rounds(events: Iterable[Event], sizes: dict[tuple[str, str], int] | None = None
                 ) -> dict[tuple[str, str], tuple[int, int]]:
    """(competition, event) -> (round, rounds) of every group match: the round is the larger number of
    group matches either team has played by then, this one included (kickoff order, ties by event id);
    a group of n teams (``sizes[(competition, group)]``, else the teams seen) plays n - 1 rounds."""
    by_group: dict[tuple[str, str], list[Event]] = defaultdict(list)
    for event in events:
        if event.group and not event.knockout:
            by_group[(event.competition_id, event.group)].append(event)
    rounds: dict[tuple[str, str], tuple[int, int]] = {}
    for key, group_events in by_group.items():
        teams = {t for e in group_events for t in (e.home_team, e.away_team)}
        size = (sizes or {}).get(key, len(teams))
        played: dict[str, int] = defaultdict(int)
        for event in sorted(group_events, key=_event_sort_key):
            played[event.home_team] += 1
            played[event.away_team] += 1
            rounds[(event.competition_id, event.id)] = (max(played[event.home_team], played[event.away_team]),
                                                        max(size - 1, 1))
    return rounds


def round_label(event: Event, rounds: dict[tuple[str, str], tuple[int, int]]) -> str:
    """"Group A · round 2 of 3" for a group match, "Matchday 6" for a league's, "" otherwise."""
    found = rounds.get((event.competition_id, event.id))
    if found is not None:
        return f"Group {event.group} · round {found[0]} of {found[1]}"
    if event.group:
        return f"Group {event.group}"
    if event.matchday is not None and not event.knockout:
        return f"Matchday {event.matchday}"
    return ""


def consensus(forecasts: Iterable[Forecast]) -> Consensus | None:
    """Average the 90-minute probabilities of every scorable forecast of the match (all cells).

    This is a display summary, not a score (scores come from builder.score.scoring).
    """
    payloads = [f.payload for f in forecasts if f.scorable and isinstance(f.payload, MatchForecast)]
    if not payloads:
        return None
    n = len(payloads)
    mean = [sum(p.probabilities_90()[i] for p in payloads) / n for i in range(3)]
    votes: dict[str, int] = defaultdict(int)
    for p in payloads:
        votes[f"{p.most_likely_score_90.home}–{p.most_likely_score_90.away}"] += 1
    top = max(sorted(votes), key=lambda k: votes[k])
    forecasters = len({f.forecaster for f in forecasts if f.scorable})
    return Consensus(
        forecasters=forecasters,
        probabilities=tuple(percent(v) for v in mean),
        bars=tuple(round(100 * v, 1) for v in mean),
        most_likely=f"{top} (picked by {votes[top]} of {n})",
    )


def match_consensus(ctx: SiteContext, key: tuple[str, str]) -> Consensus | None:
    """:func:`consensus` of one match's forecasts, computed once per build."""
    return ctx.memo_consensus(key, lambda: consensus(ctx.match_forecasts(*key)))


def _sort_forecasts(forecasts: list[Forecast]) -> list[Forecast]:
    order = {"llm": 0, "market": 1, "baseline": 2}
    return sorted(forecasts, key=lambda f: (order.get(f.forecaster_type.value, 3), f.forecaster, f.key()))


def _with_provenance(ctx: SiteContext, view: ForecastView, root: str) -> ForecastView:
    """The forecast's raw JSON beside the site, and its file at the adding commit on the repository host."""
    commit = ctx.added.get(view.archive_path, "")
    brier = next((m.value for m in view.measures if m.label == "Brier"), "–")
    return replace(view, record_href=ctx.record_href(view.archive_path, root), commit=commit[:12],
                   host_href=record_link(ctx.repository_url, commit, view.archive_path), brier=brier)


def _with_leaks(ctx: SiteContext, view: ForecastView, root: str) -> ForecastView:
    """The card's suspected-leak reasons (the leakage audit's, computed with the scores) and its package's link."""
    found = ctx.scores.leakage.get(view.archive_path)
    if view.evidence:
        view = replace(view, evidence_href=ctx.record_href(view.evidence, root))
    return replace(view, leaks=tuple(clean_text(f"{rule}: {reason}") for rule, reason in found)) if found else view


def match_page(ctx: SiteContext, event: Event, forecasts: list[Forecast], measures: MeasuresFor,
               rounds: dict[tuple[str, str], tuple[int, int]] | None = None) -> MatchPage:
    competition = ctx.archive.competitions[event.competition_id]
    names = ctx.team_names(competition.id)
    outcome = ctx.archive.outcomes.get((event.competition_id, event.id))
    path = match_path(event.competition_id, event.id)
    root = root_for(path)
    stage = _stage_name(competition, event.stage)
    title = f"{names.get(event.home_team, event.home_team)} v {names.get(event.away_team, event.away_team)}"
    budget = rationale_budget(sum(1 for f in forecasts if isinstance(f.payload, MatchForecast) and f.payload.reason))
    stats = ctx.archive.attempt_statistics  # OpenRouter's generation stats, by forecast path
    event_file = (ctx.archive.effective_paths.get(("event", event.competition_id, event.id))
                  or event_path(event.competition_id, event.id, event.revision))
    ordered = _sort_forecasts(forecasts)
    views = tuple(_with_leaks(ctx, _with_provenance(
        ctx, match_forecast_view(f, names, measures, budget, stats.get(path_for(f), ())), root), root)
        for f in ordered)
    anchors = {path_for(f): f"f{i}" for i, f in enumerate(ordered, 1)}
    chart = market_vs_model(event, ctx.odds_snapshots(event.competition_id, event.id), forecasts,
                            names.get(event.home_team, event.home_team))
    return MatchPage(
        path=path,
        meta=ctx.meta(title, path, "matches", charts=chart is not None),
        competition=Link(root + match_list_path(competition.id), competition.name),
        stage=stage,
        group=event.group,
        matchday=event.matchday,
        match_number=event.match_number,
        kickoff=kickoff(event.kickoff_utc, event.kickoff_source),
        venue=event.venue,
        status=event.status.value,
        home=names.get(event.home_team, event.home_team),
        away=names.get(event.away_team, event.away_team),
        knockout=event.knockout,
        outcome=outcome_view(outcome, names, winner_label(competition, event)) if outcome else None,
        consensus=match_consensus(ctx, (event.competition_id, event.id)),
        forecasts=views,
        archive_path=event_file,
        record_href=ctx.record_href(event_file, root),
        round_label=round_label(event, rounds or {}),
        home_href=root + f"teams/{competition.id}/{event.home_team}.html" if event.home_team in names else "",
        away_href=root + f"teams/{competition.id}/{event.away_team}.html" if event.away_team in names else "",
        decided=decided_text(event, outcome, competition),
        fine_grained=fine_grained_section(ctx, event, ordered, names, anchors),
        market_chart=chart,
    )


def _stage_name(competition: Competition, stage_id: str) -> str:
    try:
        return competition.stage(stage_id).name
    except KeyError:
        return stage_id


def _event_sort_key(event: Event) -> tuple:
    return (event.kickoff_date, event.kickoff_utc is None, event.kickoff_utc or event.kickoff_date, event.id)


def match_list_page(ctx: SiteContext, competition: Competition, events: list[Event], counts: dict,
                    consensuses: dict | None = None, rounds: dict | None = None) -> MatchListPage:
    path = match_list_path(competition.id)
    names = ctx.team_names(competition.id)
    rows = []
    for event in sorted(events, key=_event_sort_key):
        outcome = ctx.archive.outcomes.get((competition.id, event.id))
        rows.append(
            MatchRow(
                href=f"{event.id}.html",
                competition=competition.name,
                competition_id=competition.id,
                stage=round_label(event, rounds or {}) or _stage_name(competition, event.stage),
                stage_id=event.stage,
                group=event.group or "",
                kickoff=kickoff(event.kickoff_utc, event.kickoff_source),
                home=names.get(event.home_team, event.home_team),
                away=names.get(event.away_team, event.away_team),
                result=result_label(outcome),
                forecasts=counts.get((competition.id, event.id), 0),
                resolved=outcome is not None and outcome.score_90 is not None,
                consensus=(consensuses or {}).get((competition.id, event.id)),
            )
        )
    used = {e.stage for e in events}
    stages = tuple((s.id, s.name) for s in sorted(competition.stages, key=lambda s: (s.order, s.id)) if s.id in used)
    others = tuple(
        Link(root_for(path) + match_list_path(cid), c.name) for cid, c in sorted(ctx.archive.competitions.items())
    )
    return MatchListPage(
        path=path,
        meta=ctx.meta(f"Matches · {competition.name}", path, "matches"),
        heading=competition.name,
        competitions=others,
        stages=stages,
        rows=tuple(rows),
    )


def match_pages(ctx: SiteContext, measures: MeasuresFor) -> list[MatchListPage | Deferred | MatchesIndexPage]:
    """Every match page (deferred: built only if its inputs changed) and every competition's match
    list, in a stable order."""
    counts = {key: len(ctx.match_forecasts(*key)) for key in ctx.archive.events}
    events_by_comp: dict[str, list[Event]] = defaultdict(list)
    pages: list = []
    sizes = {(cid, g.name): len(g.teams) for cid, c in ctx.archive.competitions.items() for g in c.groups}
    rounds = group_rounds(ctx.archive.events.values(), sizes)
    consensuses = {}
    cards = card_inputs(ctx, measure_inputs(ctx.scores))
    for key in sorted(ctx.archive.events):
        event = ctx.archive.events[key]
        if event.competition_id not in ctx.archive.competitions:
            continue
        events_by_comp[event.competition_id].append(event)
        forecasts = ctx.match_forecasts(*key)
        consensuses[key] = match_consensus(ctx, key)
        inputs = match_inputs(ctx, event, forecasts, cards, round_label(event, rounds))
        pages.append(Deferred(match_path(*key), inputs, partial(match_page, ctx, event, forecasts, measures, rounds)))
    summaries = []
    for cid in sorted(events_by_comp):
        page = match_list_page(ctx, ctx.archive.competitions[cid], events_by_comp[cid], counts, consensuses, rounds)
        pages.append(page)
        summaries.append(
            CompetitionSummary(
                href=f"{cid}/index.html",
                label=page.heading,
                matches=len(page.rows),
                played=sum(r.resolved for r in page.rows),
                forecasts=sum(r.forecasts for r in page.rows),
            )
        )
    pages = [part for page in pages for part in (split_match_list(ctx, page) if isinstance(page, MatchListPage) else [page])]
    index = "matches/index.html"
    pages.append(MatchesIndexPage(index, ctx.meta("Matches", index, "matches"), tuple(summaries)))
    return pages


def split_match_list(ctx: SiteContext, page: MatchListPage) -> list[MatchListPage]:
    """A competition's match list in parts of at most ``paging.ROWS_PER_PAGE`` rows, each linking every part."""
    parts = split_rows(page.rows)
    if len(parts) == 1:
        return [page]
    links = part_links(page.path, parts, lambda rows: f"{rows[0].kickoff.utc_label[:10]} to {rows[-1].kickoff.utc_label[:10]}")
    title = f"Matches · {page.heading}"
    return [replace(page, path=part_path(page.path, k), rows=rows, parts=links, part=k,
                    meta=ctx.meta(f"{title} ({k} of {len(parts)})", part_path(page.path, k), "matches"))
            for k, rows in enumerate(parts, 1)]
