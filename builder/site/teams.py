"""Page models of the team pages: every match of a team, its forecasts, its group and its path.

``teams/{competition}/{team}.html`` lists the team's matches in kickoff order with the result,
the consensus probability that the team wins (mean over every scorable forecast of the match)
and the number of forecasts (each linked to the match page, which shows every one of them);
its group's table (tournaments) and the knockout rounds it reached, in order.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import ClassVar

from builder.site.bracket import group_tables
from builder.site.links import kickoff, match_path, root_for
from builder.site.matches import (
    _event_sort_key,
    decided_text,
    match_consensus,
    result_label,
)
from builder.site.models import Kickoff, Link, Meta
from builder.site.models_board import GroupTable
from builder.site.render import declare
from builder.site.sitectx import SiteContext


def team_path(competition_id: str, team_id: str) -> str:
    return f"teams/{competition_id}/{team_id}.html"


@dataclass(frozen=True)
class TeamMatch:
    href: str
    kickoff: Kickoff
    stage: str
    opponent: str
    venue: str  # "home" or "away" (the source's listing order)
    result: str
    decided: str
    win: str  # consensus probability that this team wins in 90 minutes, or "–"
    forecasts: int


@declare
@dataclass(frozen=True)
class TeamPage:
    TEMPLATE: ClassVar[str] = "team.html"
    path: str
    meta: Meta
    team: str
    competition: Link
    group: GroupTable | None
    path_taken: tuple[str, ...]  # knockout stages reached, in order
    matches: tuple[TeamMatch, ...]


def team_pages(ctx: SiteContext) -> list[TeamPage]:
    pages = []
    for cid, competition in sorted(ctx.archive.competitions.items()):
        names = ctx.team_names(cid)
        events = sorted((e for (c, _), e in ctx.archive.events.items() if c == cid), key=_event_sort_key)
        tables = {t.name: t for t in group_tables(ctx, competition, names)} if competition.groups else {}
        stages = {s.id: s for s in competition.stages}
        by_team: dict[str, list] = defaultdict(list)  # each team's matches, in kickoff order
        for event in events:
            by_team[event.home_team].append(event)
            if event.away_team != event.home_team:
                by_team[event.away_team].append(event)
        for team in competition.teams:
            path = team_path(cid, team.id)
            root = root_for(path)
            rows, reached = [], []
            for event in by_team.get(team.id, ()):
                home = event.home_team == team.id
                outcome = ctx.archive.outcomes.get((cid, event.id))
                shared = match_consensus(ctx, (cid, event.id))
                stage = stages[event.stage].name if event.stage in stages else event.stage
                if event.knockout and stage not in reached:
                    reached.append(stage)
                rows.append(TeamMatch(
                    href=root + match_path(cid, event.id), kickoff=kickoff(event.kickoff_utc, event.kickoff_source),
                    stage=stage, opponent=names.get(event.away_team if home else event.home_team, "?"),
                    venue="home" if home else "away", result=result_label(outcome),
                    decided=decided_text(event, outcome, competition), forecasts=len(ctx.match_forecasts(cid, event.id)),
                    win=(shared.probabilities[0] if home else shared.probabilities[2]) if shared else "–",
                ))
            group = next((g.name for g in competition.groups if team.id in g.teams), None)
            pages.append(TeamPage(
                path=path, meta=ctx.meta(f"{team.name} · {competition.name}", path, "matches"), team=team.name,
                competition=Link(root + f"matches/{cid}/index.html", competition.name),
                group=tables.get(group) if group else None, path_taken=tuple(reached), matches=tuple(rows),
            ))
    return pages
