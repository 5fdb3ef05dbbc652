"""The fine-grained views: each fine-grained forecast's players, events and statistics beside the
match report, field by field with its score (match page), and the layers page with the T1-T5
radar (WorldCupArena Figure 3: each axis on its own labelled range).

Scores come from the scoring stage (``ScoredForecast.fine_tasks`` and ``layers``; the
leaderboard rows' ``composite``); nothing is computed here but layout. A field the report has
no data for shows "no data", never 0 or an empty list.
"""

from __future__ import annotations

import math

from builder.score.definitions import label
from builder.score.fine_grained_layers import LAYER_WEIGHTS
from builder.site.fmt import percent
from builder.site.labels import condition_label, horizon_label
from builder.site.links import match_path, root_for
from builder.site.models_fine_grained import (
    NO_DATA,
    FieldCompare,
    FineGrainedSection,
    ForecastFineView,
)
from builder.site.sitectx import SiteContext
from collector.archive.layout import path_for
from collector.records import Event, Forecast, MatchForecast
from collector.records.fine_grained import STATISTICS, FineGrainedForecast
from collector.records.match_report import MatchReport

LAYERS = tuple((key.lower(), label(key.lower())) for key in LAYER_WEIGHTS)
"""(registry id, label) of WorldCupArena's five layers, T1 to T5."""
COLOURS = ("#1b6ca8", "#c0392b", "#27ae60", "#8e44ad", "#d35400", "#16a085", "#7f8c8d", "#2c3e50")
RADAR_HORIZON = "t_minus_24h"


def _score(tasks: dict[str, float], key: str) -> str:
    value = tasks.get(key, float("nan"))
    return NO_DATA if value is None or math.isnan(value) else f"{value:.1f}"


def _minute(value: float | int | None, stoppage: int | None = None) -> str:
    if value is None:
        return "?'"
    text = f"{value:g}"
    return f"{text}+{stoppage}'" if stoppage else f"{text}'"


def _players(items, names) -> tuple[str, ...]:
    return tuple(f"{p.player} ({names[p.side]}) {percent(p.probability)}" for p in items)


def _recorded(report: MatchReport | None, field: str, lines) -> tuple[str, ...] | None:
    if report is None or getattr(report, field) is None:
        return None
    return tuple(lines(getattr(report, field)))


def _source(report: MatchReport | None, field: str) -> str:
    """The source of a field, by name ("openfootball", not the file it was read from)."""
    return report.sources[field].source.split(":")[0] if report is not None and field in report.sources else ""


def _lineup_field(fg, report, side: str, names, tasks) -> FieldCompare:
    predicted = fg.lineup(side)
    shown = (f"{predicted.formation}: " + ", ".join(f"{p.name} ({p.position})" for p in predicted.starting),)
    recorded = _recorded(report, f"{side}_lineup", lambda lu: [", ".join(
        f"{p.name} ({p.position})" if p.position else p.name for p in lu.starting)])
    formation = getattr(report, f"{side}_formation") if report is not None else None
    if recorded is not None and formation:
        recorded = (f"{formation}: {recorded[0]}",)
    return FieldCompare(f"{names[side]} starting eleven", shown, recorded, _score(tasks, "starting_xi"),
                        _source(report, f"{side}_lineup"))


def _event_fields(fg: FineGrainedForecast, report: MatchReport | None, names, tasks) -> list[FieldCompare]:
    goals = report.goals if report is not None else None
    own = None if goals is None else tuple(g for g in goals if g.own_goal)
    normal = None if goals is None else tuple(g for g in goals if not g.own_goal)

    def goal_lines(items):
        return [f"{_minute(g.minute, g.stoppage)} {g.player or '?'} ({names[g.side]})" + (" pen." if g.penalty else "")
                for g in items]
    rows = [
        FieldCompare("Goals", tuple(f"{_minute(g.minute)} {g.player} ({names[g.side]})" for g in fg.goals),
                     None if normal is None else tuple(goal_lines(normal)), _score(tasks, "goal_minute"),
                     _source(report, "goals")),
        FieldCompare("Own goals", tuple(f"{_minute(g.minute)} {g.player} ({names[g.side]})" for g in fg.own_goals),
                     None if own is None else tuple(goal_lines(own)), _score(tasks, "own_goals"),
                     _source(report, "goals")),
        FieldCompare("Cards", tuple(f"{_minute(c.minute)} {c.player} ({names[c.side]}) {c.colour}" for c in fg.cards),
                     _recorded(report, "cards", lambda cs: [f"{_minute(c.minute)} {c.player} ({names[c.side]}) "
                                                            f"{c.colour}" for c in cs]),
                     _score(tasks, "cards"), _source(report, "cards")),
        FieldCompare("Substitutions", tuple(f"{_minute(s.minute)} {s.player_on} for {s.player_off} ({names[s.side]})"
                                            for s in fg.substitutions),
                     _recorded(report, "substitutions", lambda ss: [
                         f"{_minute(s.minute)} {s.player_on} for {s.player_off} ({names[s.side]})" for s in ss]),
                     _score(tasks, "substitution_times"), _source(report, "substitutions")),
    ]
    penalties = _recorded(report, "penalties", lambda ps: [f"{_minute(p.minute)} {p.taker} ({names[p.side]}) "
                                                           f"{p.outcome}" for p in ps])
    if penalties is None and normal is not None:  # only the scored ones are known
        penalties = tuple(line + " (scored penalties only)" for line in goal_lines(g for g in normal if g.penalty))
    rows.append(FieldCompare("Penalties", tuple(f"{_minute(p.minute)} {p.taker} ({names[p.side]}) {p.outcome}"
                                                for p in fg.penalties), penalties, _score(tasks, "penalty_events"),
                             _source(report, "penalties") or _source(report, "goals")))
    return rows


def _stat_fields(fg: FineGrainedForecast, report: MatchReport | None, tasks) -> list[FieldCompare]:
    rows = []
    for name in STATISTICS:
        predicted = getattr(fg.statistics, name)
        real = getattr(report.statistics, name) if report is not None and report.statistics is not None else None
        key = "stat_cards" if name in ("yellow_cards", "red_cards") else f"stat_{name}"
        rows.append(FieldCompare(name.replace("_", " "), () if predicted is None else
                                 (f"{predicted.home:g} – {predicted.away:g}",),
                                 None if real is None else (f"{real.home:g} – {real.away:g}",), _score(tasks, key),
                                 _source(report, "statistics")))
    return rows


def forecast_fine_view(forecast: Forecast, fg: FineGrainedForecast, report: MatchReport | None, names,
                       tasks: dict[str, float], layers: dict[str, float], anchor: str) -> ForecastFineView:
    fields = [_lineup_field(fg, report, "home", names, tasks), _lineup_field(fg, report, "away", names, tasks),
              FieldCompare("Likely scorers", _players(fg.ranked("scorers"), names),
                           None if report is None or report.goals is None else tuple(dict.fromkeys(
                               f"{g.player} ({names[g.side]})" for g in report.goals if not g.own_goal)),
                           _score(tasks, "goalscorers"), _source(report, "goals")),
              FieldCompare("Assists", _players(fg.ranked("assisters"), names),
                           _recorded(report, "assists", lambda a: [f"{x.player} ({names[x.side]})" for x in a]),
                           _score(tasks, "assist_providers"), _source(report, "assists")),
              FieldCompare("Player of the match", _players(fg.ranked("player_of_the_match"), names),
                           None if report is None or report.player_of_the_match is None else
                           (f"{report.player_of_the_match.player} ({names[report.player_of_the_match.side]})",),
                           _score(tasks, "player_of_the_match"), _source(report, "player_of_the_match"))]
    fields += _event_fields(fg, report, names, tasks) + _stat_fields(fg, report, tasks)
    shown = tuple((name, _score(layers, key.upper())) for key, name in LAYERS[:4])
    return ForecastFineView(anchor, forecast.forecaster, condition_label(forecast.access.value, forecast.strategy.value),
                            horizon_label(forecast.horizon.value), tuple(fields), shown)


_BY_PATH: list = [None, {}]  # (the Scores indexed, its rows by record path): one index per build


def _rows_by_path(scores) -> dict:
    if _BY_PATH[0] is not scores:
        _BY_PATH[0], _BY_PATH[1] = scores, {r.path: r for r in scores.forecasts if r.path}
    return _BY_PATH[1]


def fine_grained_section(ctx: SiteContext, event: Event, forecasts: list[Forecast], names: dict[str, str],
                         anchors: dict[str, str]) -> FineGrainedSection | None:
    """The section of a match page; None when no forecast of the match has a fine-grained part."""
    rows = _rows_by_path(ctx.scores)
    report = ctx.archive.match_reports.get((event.competition_id, event.id))
    sides = {"home": names.get(event.home_team, event.home_team), "away": names.get(event.away_team, event.away_team)}
    views = []
    for forecast in forecasts:
        payload = forecast.payload
        if not isinstance(payload, MatchForecast) or payload.fine_grained is None:
            continue
        row = rows.get(path_for(forecast))
        tasks = (row.fine_tasks if row is not None else None) or {}
        layers = (row.layers if row is not None else None) or {}
        views.append(forecast_fine_view(forecast, payload.fine_grained, report, sides, tasks, layers,
                                        anchors.get(path_for(forecast), "")))
    if not views:
        return None
    path = ctx.archive.effective_paths.get(("match_report", event.competition_id, event.id), "")
    root = root_for(match_path(event.competition_id, event.id))  # the section is on the match's page
    return FineGrainedSection(tuple(views), path, ctx.record_href(path, root) if path else "")
