"""Page models of the bracket view: realised group tables and knockout tree, and beside them
each forecaster's predicted progression (knockout picks and tournament answers), hits and misses marked."""

from __future__ import annotations

from collections import defaultdict

from builder.site.labels import condition_label, horizon_label
from builder.site.links import bracket_path, match_path, root_for
from builder.site.matches import result_label
from builder.site.models import Link
from builder.site.models_board import (
    BracketIndexPage,
    BracketPage,
    GroupTable,
    Pick,
    ProgressionRow,
    Round,
    Tie,
)
from builder.site.sitectx import SiteContext
from collector.competitions.standings import MatchResult, compute_table
from collector.records import (
    Competition,
    CompetitionFormat,
    Event,
    Forecast,
    MatchForecast,
    QuestionForecast,
)

INDEX = "bracket/index.html"


def group_tables(ctx: SiteContext, competition: Competition, names: dict[str, str]) -> tuple[GroupTable, ...]:
    results = defaultdict(list)
    outcomes = ctx.archive.outcomes_of(competition.id)
    for event in sorted(ctx.archive.events_of(competition.id), key=lambda e: e.id):
        outcome = outcomes.get(event.id)
        if event.group is None or outcome is None or outcome.score_90 is None:
            continue
        s = outcome.score_90
        results[event.group].append(MatchResult(event.home_team, event.away_team, s.home, s.away))
    tables = []
    for group in sorted(competition.groups, key=lambda g: g.name):
        rows = compute_table(group.teams, results.get(group.name, []), competition.tie_breakers)
        tables.append(GroupTable(group.name, tuple(
            (names.get(r.team, r.team), str(r.played), str(r.won), str(r.drawn), str(r.lost), str(r.goals_for),
             str(r.goals_against), f"{r.goal_difference:+d}", str(r.points))
            for r in rows
        )))
    return tuple(tables)


def _knockout_picks(forecasts: list[Forecast], event: Event, winner: str | None, names: dict[str, str]) -> tuple[Pick, ...]:
    """Each forecaster's advancing pick: mean advancement probability over its scorable forecasts."""
    probs = defaultdict(list)
    for f in forecasts:
        if f.scorable and isinstance(f.payload, MatchForecast) and f.payload.home_advances is not None:
            probs[f.forecaster].append(f.payload.home_advances)
    picks = []
    for forecaster in sorted(probs):
        mean = sum(probs[forecaster]) / len(probs[forecaster])
        if abs(mean - 0.5) < 1e-9:
            picks.append(Pick(forecaster, "50–50, no pick", None))
            continue
        team = event.home_team if mean > 0.5 else event.away_team
        picks.append(Pick(forecaster, names.get(team, team), None if winner is None else team == winner))
    return tuple(picks)


def knockout_rounds(ctx: SiteContext, competition: Competition, names: dict[str, str], path: str) -> tuple[Round, ...]:
    by_event = defaultdict(list)
    for f in ctx.archive.forecasts_of(competition.id):
        if f.target_kind == "match":
            by_event[f.target_id].append(f)
    rounds = []
    for stage in sorted((s for s in competition.stages if s.knockout), key=lambda s: (s.order, s.id)):
        events = sorted((e for e in ctx.archive.events_of(competition.id) if e.stage == stage.id),
                        key=lambda e: (e.match_number or 0, e.id))
        ties = []
        for e in events:
            outcome = ctx.archive.outcomes.get((competition.id, e.id))
            winner = outcome.advancing_team if outcome else None
            ties.append(Tie(
                label=f"Match {e.match_number}" if e.match_number else e.id,
                href=root_for(path) + match_path(competition.id, e.id),
                home=names.get(e.home_team, e.home_team), away=names.get(e.away_team, e.away_team),
                result=result_label(outcome), winner=names.get(winner, winner) if winner else None,
                picks=_knockout_picks(by_event[e.id], e, winner, names),
            ))
        if ties:
            rounds.append(Round(stage.name, tuple(ties)))
    return tuple(rounds)


def progression(ctx: SiteContext, competition: Competition, names: dict[str, str]):
    """One row per forecaster and condition cell: its final picks for every tournament question."""
    questions = sorted(ctx.archive.questions_of(competition.id), key=lambda q: q.id)
    columns = tuple(q.label for q in questions)
    picks: dict[tuple[str, str], dict[str, QuestionForecast]] = defaultdict(dict)
    for f in ctx.archive.forecasts_of(competition.id):
        if f.target_kind == "question" and f.scorable and f.sample == 0:
            cell = f"{condition_label(f.access.value, f.strategy.value)} · {horizon_label(f.horizon.value)}"
            picks[(f.forecaster, cell)][f.target_id] = f.payload
    rows = []
    for (forecaster, cell) in sorted(picks):
        answers = []
        for q in questions:
            payload = picks[(forecaster, cell)].get(q.id)
            resolution = ctx.archive.resolutions.get((competition.id, q.id))
            if payload is None:
                answers.append(("–", None))
                continue
            text = ", ".join(names.get(t, t) for t in payload.final_picks)
            hit = None if resolution is None else set(payload.final_picks) <= set(resolution.answer)
            answers.append((text, hit))
        rows.append(ProgressionRow(forecaster, cell, tuple(answers)))
    return columns, tuple(rows)


def bracket_pages(ctx: SiteContext) -> list[BracketPage | BracketIndexPage]:
    tournaments = [c for _, c in sorted(ctx.archive.competitions.items()) if c.format is CompetitionFormat.TOURNAMENT]
    pages: list[BracketPage | BracketIndexPage] = []
    links = tuple(Link(bracket_path(c.id).removeprefix("bracket/"), c.name) for c in tournaments)
    for competition in tournaments:
        path = bracket_path(competition.id)
        names = ctx.team_names(competition.id)
        columns, rows = progression(ctx, competition, names)
        pages.append(BracketPage(
            path=path, meta=ctx.meta(f"Bracket · {competition.name}", path, "bracket"), competition=competition.name,
            groups=group_tables(ctx, competition, names), rounds=knockout_rounds(ctx, competition, names, path),
            question_columns=columns, progression=rows, others=links,
        ))
    pages.append(BracketIndexPage(path=INDEX, meta=ctx.meta("Brackets", INDEX, "bracket"), brackets=links))
    return pages
