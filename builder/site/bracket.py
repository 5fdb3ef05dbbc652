"""Page models of the bracket view: the realised knockout tree with connectors, every saved
full-tournament forecast laid over it slot by slot (hits and misses), group tables marking who
qualified, each forecast's T5 with its components, and the tournament questions' picks.

The page's weight does not grow with the archive: each forecast's overlay is its own JSON file
(fetched when chosen), and a stage drawn without slot rules shows at most ``MAX_STAGE_SLOTS``
matches (the rest are in the competition's match list)."""

from __future__ import annotations

from collections import defaultdict

import orjson

from builder.score.t5 import score_forecast
from builder.site.bracket_models import (
    BracketIndexPage,
    BracketOverlay,
    BracketPage,
    PredictedBracket,
    PredictedSlot,
    PredictedTeam,
    ProgressionRow,
    QualifiedGroup,
    T5Row,
    TreeColumn,
    TreeSlot,
)
from builder.site.bracket_tree import Placement, placements
from builder.site.labels import condition_label, horizon_label
from builder.site.links import (
    bracket_overlay_path,
    bracket_path,
    match_list_path,
    match_path,
    root_for,
)
from builder.site.matches import result_label
from builder.site.models import Link
from builder.site.sitectx import SiteContext
from collector.competitions.standings import MatchResult, table_for
from collector.records import (
    Competition,
    CompetitionFormat,
    Event,
    Forecast,
    Outcome,
    QuestionForecast,
    TournamentForecast,
    advancement_rounds,
)

INDEX = "bracket/index.html"
MAX_STAGE_SLOTS = 64  # a stage drawn without slot rules: more matches than a round of 64 are listed, not drawn


def group_tables(ctx: SiteContext, competition: Competition, names: dict[str, str]) -> tuple[QualifiedGroup, ...]:
    results = defaultdict(list)
    outcomes = ctx.archive.outcomes_of(competition.id)
    events = ctx.archive.events_of(competition.id)
    for event in sorted(events, key=lambda e: e.id):
        outcome = outcomes.get(event.id)
        if event.group is None or outcome is None or outcome.score_90 is None:
            continue
        s = outcome.score_90
        results[event.group].append(MatchResult(event.home_team, event.away_team, s.home, s.away))
    order = {s.id: s.order for s in competition.stages}
    knockout = sorted({e.stage for e in events if e.knockout}, key=lambda sid: order.get(sid, 0))
    rounds = advancement_rounds(competition) or knockout  # no slot rules: the first stage with knockouts
    through = {t for e in events if rounds and e.stage == rounds[0] for t in (e.home_team, e.away_team)}
    tables = []
    for group in sorted(competition.groups, key=lambda g: g.name):
        rows = table_for(competition, group.teams, results.get(group.name, []))
        tables.append(QualifiedGroup(group.name, tuple(
            (names.get(r.team, r.team), str(r.played), str(r.won), str(r.drawn), str(r.lost), str(r.goals_for),
             str(r.goals_against), f"{r.goal_difference:+d}", str(r.points))
            for r in rows
        ), tuple(r.team in through for r in rows)))
    return tuple(tables)


def layer_key(f: Forecast) -> str:
    return f"{f.forecaster}.{f.horizon.value}.{f.access.value}.{f.strategy.value}".replace("_", "-")


def layer_label(f: Forecast) -> str:
    return f"{f.forecaster} · {horizon_label(f.horizon.value)} · {condition_label(f.access.value, f.strategy.value)}"


def tournament_forecasts(ctx: SiteContext, competition: Competition) -> list[Forecast]:
    found = [f for f in ctx.archive.forecasts_of(competition.id)
             if f.target_kind == "tournament" and f.scorable and f.sample == 0
             and isinstance(f.payload, TournamentForecast) and f.payload.format == "cup"]
    return sorted(found, key=lambda f: (f.forecaster, f.horizon.value, f.access.value, f.strategy.value))


def _predicted(f: Forecast, number: int, real: Event | None, winner: str | None, names) -> PredictedSlot | None:
    m = f.payload.knockout(number)
    if m is None:
        return None
    playing = None if real is None else {real.home_team, real.away_team}

    def team(t: str) -> PredictedTeam:
        goes = t == m.advances
        return PredictedTeam(names.get(t, t), None if playing is None else t in playing, goes,
                             None if winner is None or not goes else t == winner)

    pairing = None if playing is None else {m.home, m.away} == playing
    return PredictedSlot(number, team(m.home), team(m.away), pairing)


def overlay_files(ctx: SiteContext) -> dict[str, bytes]:
    """Site path -> JSON of every full-tournament forecast's overlay (each fetched by its bracket page when chosen)."""
    files: dict[str, bytes] = {}
    for competition in tournaments(ctx):
        names = ctx.team_names(competition.id)
        for overlay in overlays(ctx, competition, tournament_forecasts(ctx, competition), names):
            files[overlay.path] = orjson.dumps(overlay, option=orjson.OPT_APPEND_NEWLINE)
    return files


def overlays(ctx: SiteContext, competition: Competition, forecasts: list[Forecast], names) -> list[BracketOverlay]:
    """Each forecast's bracket over the matches of the drawn slot-rule tree (none for a tree drawn by stage)."""
    events = {e.match_number: e for e in ctx.archive.events_of(competition.id) if e.knockout and e.match_number}
    outcomes = ctx.archive.outcomes_of(competition.id)
    winners = {n: o.advancing_team for n, e in events.items() if (o := outcomes.get(e.id)) is not None}
    places, _ = placements(competition)
    third = _third_place(competition, places)
    numbers = [p.match_number for p in places] + ([third] if third is not None else [])
    return [
        BracketOverlay(path=bracket_overlay_path(competition.id, layer_key(f)), key=layer_key(f), label=layer_label(f),
                       slots=tuple(p for n in numbers
                                   if (p := _predicted(f, n, events.get(n), winners.get(n), names)) is not None))
        for f in forecasts
    ]


def _third_place(competition: Competition, places: list[Placement]) -> int | None:
    """The one knockout slot outside the drawn tree (the third-place match), if there is exactly one."""
    placed = {p.match_number for p in places}
    others = [s.match_number for s in competition.knockout_slots if s.match_number not in placed]
    return others[0] if len(others) == 1 else None


def _slot(place: Placement | None, number: int, competition: Competition, real: Event | None,
          outcome: Outcome | None, names, path: str) -> TreeSlot:
    rule = competition.slot(number)
    winner = outcome.advancing_team if outcome is not None else None
    return TreeSlot(
        number=number, label=f"Match {number}" if number else real.id,
        rules=f"{rule.home_rule} v {rule.away_rule}" if rule else "",
        href=root_for(path) + match_path(competition.id, real.id) if real else None,
        home=names.get(real.home_team, real.home_team) if real else None,
        away=names.get(real.away_team, real.away_team) if real else None,
        home_won=bool(real and winner == real.home_team), away_won=bool(real and winner == real.away_team),
        result=result_label(outcome), column=place.column if place else 1, row=place.row + 1 if place else 1,
        span=place.span if place else 1, feeds_next=bool(place and place.feeds_next), fed=bool(place and place.fed),
        feeders=tuple(int(r[1:]) for r in (rule.home_rule, rule.away_rule) if r[0] == "W") if rule else (),
    )


def _by_stage(ctx: SiteContext, competition: Competition, names, path: str):
    """Without slot rules in the definition: the registered knockout matches, a column per stage, no connectors.

    A stage's column holds its first ``MAX_STAGE_SLOTS`` matches; the column says how many more
    there are (all of them are in the match list).
    """
    outcomes = ctx.archive.outcomes_of(competition.id)
    stages = sorted((s for s in competition.stages if s.knockout), key=lambda s: (s.order, s.id))
    columns, slots = [], []
    for stage in stages:
        events = sorted((e for e in ctx.archive.events_of(competition.id) if e.stage == stage.id),
                        key=lambda e: (e.match_number or 0, e.id))
        if not events:
            continue
        columns.append(TreeColumn(stage.name, len(columns) + 1, max(0, len(events) - MAX_STAGE_SLOTS)))
        slots += [_slot(Placement(e.match_number or 0, stage.id, len(columns), 2 * k + 1, 2, False, False),
                        e.match_number or 0, competition, e, outcomes.get(e.id), names, path)
                  for k, e in enumerate(events[:MAX_STAGE_SLOTS])]
    rows = max((s.row + s.span - 2 for s in slots), default=0)  # row 1 holds the headings
    return tuple(columns), tuple(slots), rows, None


def tree(ctx: SiteContext, competition: Competition, names, path: str):
    """The columns, the placed slots, the grid's rows and the third-place match (if any)."""
    events = {e.match_number: e for e in ctx.archive.events_of(competition.id) if e.knockout and e.match_number}
    outcomes = ctx.archive.outcomes_of(competition.id)
    places, rows = placements(competition)
    if not places:
        return _by_stage(ctx, competition, names, path)
    slots = tuple(_slot(p, p.match_number, competition, events.get(p.match_number),
                        outcomes.get(events[p.match_number].id) if p.match_number in events else None,
                        names, path) for p in places)
    columns = tuple(TreeColumn(competition.stage(stage).name, i)
                    for i, stage in enumerate(advancement_rounds(competition), start=1))
    third, number = None, _third_place(competition, places)
    if number is not None:
        e = events.get(number)
        third = _slot(None, number, competition, e, outcomes.get(e.id) if e else None, names, path)
    return columns, slots, rows, third


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def t5_rows(ctx: SiteContext, competition: Competition, forecasts: list[Forecast]) -> tuple[T5Row, ...]:
    """One row per saved forecast: the latest truth stage's components, and T5 at every stage."""
    events = ctx.archive.events_of(competition.id)
    outcomes = ctx.archive.outcomes_of(competition.id)
    rows = []
    for f in forecasts:
        scores = score_forecast(competition, f.payload, events, outcomes)
        last = scores[-1] if scores else None
        first_round = advancement_rounds(competition)[:1]
        reach = last.reach.get(first_round[0]) if last and first_round else None
        rows.append(T5Row(
            forecaster=f.forecaster, horizon=horizon_label(f.horizon.value),
            stage=last.stage if last else "not yet scorable", known_at=last.known_at.strftime("%Y-%m-%d") if last else "",
            g=_fmt(last.g if last else None), a=_fmt(last.a if last else None), m=_fmt(last.m if last else None),
            h=_fmt(last.h if last else None), t5=_fmt(last.t5 if last else None), t5_value=last.t5 if last else None,
            by_stage=" · ".join(f"{s.stage} {_fmt(s.t5)}" for s in scores),
            reach_brier=f"{reach[0]:.3f}" if reach else "–",
        ))
    return tuple(sorted(rows, key=lambda r: (r.t5_value is None, -(r.t5_value or 0.0), r.forecaster)))


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
            made = payload.picks_made()  # a pick tied with a team not picked is shown as "tie" and never right
            text = ", ".join([names.get(t, t) for t in made] + ["tie"] * (len(payload.final_picks) - len(made)))
            hit = None if resolution is None else bool(made) and len(made) == len(payload.final_picks) \
                and set(made) <= set(resolution.answer)
            answers.append((text, hit))
        rows.append(ProgressionRow(forecaster, cell, tuple(answers)))
    return columns, tuple(rows)


def bracket_page(ctx: SiteContext, competition: Competition, links: tuple[Link, ...]) -> BracketPage:
    path = bracket_path(competition.id)
    names = ctx.team_names(competition.id)
    forecasts = tournament_forecasts(ctx, competition)
    columns, slots, rows, third = tree(ctx, competition, names, path)
    predicted = tuple(PredictedBracket(layer_key(f), layer_label(f), _champion(f, competition, names),
                                       bracket_overlay_path(competition.id, layer_key(f)).removeprefix("bracket/"))
                      for f in forecasts)
    question_columns, progression_rows = progression(ctx, competition, names)
    return BracketPage(
        path=path, meta=ctx.meta(f"Bracket · {competition.name}", path, "bracket"), competition=competition.name,
        groups=group_tables(ctx, competition, names), columns=columns, slots=slots, rows=rows, third_place=third,
        match_list=root_for(path) + match_list_path(competition.id), predicted=predicted,
        t5_rows=t5_rows(ctx, competition, forecasts), question_columns=question_columns,
        progression=progression_rows, others=links,
    )


def _champion(f: Forecast, competition: Competition, names) -> str:
    rounds = advancement_rounds(competition)
    final = [m for m in f.payload.knockout_matches if rounds and m.stage == rounds[-1]]
    return names.get(final[0].advances, final[0].advances) if len(final) == 1 else "–"


def tournaments(ctx: SiteContext) -> list[Competition]:
    """The competitions that have a bracket page (tournaments), by id."""
    return [c for _, c in sorted(ctx.archive.competitions.items()) if c.format is CompetitionFormat.TOURNAMENT]


def bracket_pages(ctx: SiteContext) -> list[BracketPage | BracketIndexPage]:
    """Every tournament's bracket page and the index of brackets (the overlays: :func:`overlay_files`)."""
    competitions = tournaments(ctx)
    links = tuple(Link(bracket_path(c.id).removeprefix("bracket/"), c.name) for c in competitions)
    pages: list[BracketPage | BracketIndexPage] = [bracket_page(ctx, c, links) for c in competitions]
    pages.append(BracketIndexPage(path=INDEX, meta=ctx.meta("Brackets", INDEX, "bracket"), brackets=links))
    return pages
