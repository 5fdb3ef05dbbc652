"""Tournament and season questions, registered per competition before its first kickoff.

Tournaments (World Cup): ``group_winner_a`` .. one per group, ``semifinalists`` (k = 4),
``world_champion`` (``champion`` for other tournaments) and ``top_scorer_team``. Leagues:
``champion``, ``top_four`` (k = 4) and ``relegation`` (k = the competition's relegation
places). Each question closes at the competition's first kickoff; the sync engineer's code
resolves them from outcomes.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from collector.reader import Archive
from collector.records import Clock, Competition, CompetitionFormat, Event, PredictionType, Question
from collector.writer import ArchiveWriter


def first_kickoff(events: Iterable[Event]) -> datetime | None:
    times = [e.kickoff_utc for e in events if e.kickoff_utc is not None]
    return min(times) if times else None


def _q(c: Competition, qid: str, label: str, meaning: str, candidates, closes: datetime, now, clock, **kw) -> Question:
    k = kw.pop("k", 1)
    kind = PredictionType.SINGLE_CHOICE if k == 1 else PredictionType.MULTI_CHOICE_FIXED_K
    return Question(
        recorded_at=now, clock=clock, competition_id=c.id, id=qid, label=label, meaning=meaning,
        prediction_type=kind, k=k, candidates=tuple(candidates), closes_at=closes, **kw,
    )  # fmt: skip


def tournament_questions(c: Competition, closes: datetime, now: datetime, clock: Clock) -> list[Question]:
    teams = [t.id for t in c.teams]
    out = [
        _q(c, f"group_winner_{g.name.lower()}", f"Winner of Group {g.name}",
           f"The team that finishes first in Group {g.name} after the group stage.", g.teams, closes, now, clock,
           group=g.name)
        for g in c.groups
        if len(g.teams) >= 2
    ]  # fmt: skip
    champion = "world_champion" if c.id.startswith("worldcup") else "champion"
    out += [
        _q(c, "semifinalists", "Semifinalists", "The four teams that reach the semi-finals.",
           teams, closes, now, clock, k=4),
        _q(c, champion, f"Winner of the {c.name}", f"The team that wins the {c.name} final.", teams, closes, now, clock),
        _q(c, "top_scorer_team", "Team of the top scorer",
           "The team of the player who scores the most goals in the tournament (official top scorer).",
           teams, closes, now, clock),
    ]  # fmt: skip
    return out


def league_questions(c: Competition, closes: datetime, now: datetime, clock: Clock) -> list[Question]:
    teams = [t.id for t in c.teams]
    out = [
        _q(c, "champion", f"{c.name} champion", "The team that finishes first in the final league table.",
           teams, closes, now, clock),
        _q(c, "top_four", "Top four", "The four teams that finish in the top four places of the final table.",
           teams, closes, now, clock, k=4),
    ]  # fmt: skip
    places = c.relegation_places
    if 0 < places < len(teams):
        out.append(
            _q(c, "relegation", "Relegated teams",
               f"The {places} teams that finish in the bottom {places} places of the final table (directly relegated).",
               teams, closes, now, clock, k=places)
        )  # fmt: skip
    return out


def questions_for(c: Competition, events: Iterable[Event], now: datetime, clock: Clock) -> list[Question]:
    """The questions a competition should have; empty once its first kickoff is not in the future."""
    closes = first_kickoff(events)
    if closes is None or now >= closes or len(c.teams) < 5:
        return []
    if c.format is CompetitionFormat.TOURNAMENT:
        return tournament_questions(c, closes, now, clock)
    return league_questions(c, closes, now, clock)


def register_questions(
    writer: ArchiveWriter, archive: Archive, competition_id: str, *, now: datetime, clock: Clock = Clock.LIVE
) -> list[str]:
    """Write each missing question of the competition (before its first kickoff); return written paths."""
    competition = archive.competitions.get(competition_id)
    if competition is None:
        return []
    events = [e for (cid, _), e in archive.events.items() if cid == competition_id]
    written = []
    for question in questions_for(competition, events, now, clock):
        if (competition_id, question.id) in archive.questions or writer.exists(question):
            continue
        written.append(writer.write(question))
    return written
