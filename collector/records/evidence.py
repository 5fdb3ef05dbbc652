"""The evidence record: one frozen information package per event and horizon.

WorldCupArena's S1 condition and Prophet Arena hold the *information* fixed: every model gets
the same package and no tools. A tick writes one ``evidence`` record per (event, horizon)
before any forecast of that horizon is requested; a forecast under ``evidence_package`` names
it by path and by the SHA-256 **of the record file's bytes as written** (the writer's
``record_bytes``: sorted-key JSON with a trailing newline), so ``verify`` can check it.

Every part carries where it came from (``source``) and when it was read (``retrieved_at``);
news items also carry their publication time. ``locks_at`` is the package's lock: nothing in
it may be dated after it (results strictly before it, news published at or before it), and
no forecast that uses it may be requested before it.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import Field, model_validator

from .base import Contract, Record, Slug, UtcDatetime
from .forecast import Attempt, FiniteFloat, Horizon

Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class Provenance(Contract):
    """Where one part of the package came from, and when Prematch read it."""

    source: str = Field(min_length=1, description="file, service or archive path the part was read from")
    retrieved_at: UtcDatetime


class PastMatch(Contract):
    """One earlier match, from the named team's side (``venue``: home, away or neutral)."""

    date: date
    opponent: str
    goals_for: Annotated[int, Field(ge=0, le=99)]
    goals_against: Annotated[int, Field(ge=0, le=99)]
    venue: Literal["home", "away", "neutral"]
    tournament: str = ""
    city: str | None = None
    country: str | None = None

    @property
    def result(self) -> str:
        return "W" if self.goals_for > self.goals_against else "L" if self.goals_for < self.goals_against else "D"


class TeamForm(Contract):
    """A team's most recent results (newest first) and its form string (``WDLWW``, newest first)."""

    team_id: Slug
    provenance: Provenance
    matches: tuple[PastMatch, ...] = ()
    form: str = Field(default="", pattern=r"^[WDL]*$")


class HeadToHead(Contract):
    """Earlier meetings of the two teams, from the home team's side, newest first."""

    provenance: Provenance
    matches: tuple[PastMatch, ...] = ()
    home_wins: Annotated[int, Field(ge=0)] = 0
    draws: Annotated[int, Field(ge=0)] = 0
    away_wins: Annotated[int, Field(ge=0)] = 0


class StandingRow(Contract):
    team_id: Slug
    played: Annotated[int, Field(ge=0)]
    won: Annotated[int, Field(ge=0)]
    drawn: Annotated[int, Field(ge=0)]
    lost: Annotated[int, Field(ge=0)]
    goals_for: Annotated[int, Field(ge=0)]
    goals_against: Annotated[int, Field(ge=0)]
    points: Annotated[int, Field(ge=0)]


class Standings(Contract):
    """The group (tournaments) or league table from the outcomes recorded in the archive before the lock."""

    provenance: Provenance
    table: str = Field(description="group name, or the league")
    rows: tuple[StandingRow, ...] = ()
    results_counted: Annotated[int, Field(ge=0)] = 0


class RestTravel(Contract):
    """Days since a team's last match before the lock, and where it was played (where the source says)."""

    team_id: Slug
    provenance: Provenance
    last_match: date | None = None
    rest_days: Annotated[int, Field(ge=0)] | None = None
    last_city: str | None = None
    last_country: str | None = None
    venue: str | None = Field(default=None, description="this match's venue, as the fixture source gives it")


class Squad(Contract):
    team_id: Slug
    provenance: Provenance
    players: tuple[str, ...] = ()


class OddsPart(Contract):
    """The latest odds snapshot of the match retrieved before the lock (``odds_snapshot`` records of
    the configured market sources); empty, with a note, when there is none."""

    snapshot_path: str | None = Field(default=None, description="archive path of the odds_snapshot record")
    snapshot_sha256: Sha256 | None = Field(default=None, description="SHA-256 of that record file's bytes")
    source: str | None = Field(default=None, description="the market source of the snapshot")
    retrieved_at: UtcDatetime | None = Field(default=None, description="when the source answered")
    books: Annotated[int, Field(ge=0)] = Field(default=0, description="bookmakers with a complete 1X2 quote")
    probabilities: tuple[FiniteFloat, FiniteFloat, FiniteFloat] | None = Field(
        default=None, description="home, draw, away: per-book margin removed, median across books, renormalised")
    note: str = ""


class NewsItem(Contract):
    """One dated source the gatherer cited, with its short summary, kept verbatim."""

    url: str = Field(min_length=1)
    title: str = ""
    publisher: str = ""
    published_at: UtcDatetime | None = Field(description="publication time as the gatherer stated it (None: unknown)")
    summary: str = ""
    retrieved_at: UtcDatetime


class NewsDigest(Contract):
    """What the configured gatherer (an LLM with web search, open-book protocol) returned, and its calls."""

    gatherer: Slug
    model: str
    requested_items: Annotated[int, Field(ge=1)]
    status: Literal["ok", "invalid", "failed"]
    items: tuple[NewsItem, ...] = ()
    response_text: str | None = Field(default=None, description="the answer the items were parsed from, verbatim")
    errors: tuple[str, ...] = ()
    attempts: tuple[Attempt, ...] = ()


class Evidence(Record):
    """The package for one (event, horizon): written once, before any forecast of the horizon."""

    kind: Literal["evidence"] = "evidence"
    competition_id: Slug
    event_id: Slug
    horizon: Horizon
    kickoff_utc: UtcDatetime
    locks_at: UtcDatetime = Field(description="the package's lock: no item may be dated after it")
    home_team: Slug
    away_team: Slug
    form: tuple[TeamForm, ...] = ()
    head_to_head: HeadToHead | None = None
    standings: Standings | None = None
    rest: tuple[RestTravel, ...] = ()
    squads: tuple[Squad, ...] = ()
    odds: OddsPart = OddsPart(note="no market source is configured")
    news: NewsDigest | None = Field(default=None, description="None: no gatherer configured")
    notes: tuple[str, ...] = Field(default=(), description="parts left empty, and why")

    @model_validator(mode="after")
    def _consistent(self) -> Evidence:
        if self.locks_at > self.recorded_at:
            raise ValueError("locks_at is after recorded_at: a package is written once it is locked")
        if self.locks_at >= self.kickoff_utc:
            raise ValueError("a package cannot lock at or after kickoff")
        return self

    def dated_items(self) -> list[tuple[str, object]]:
        """Every dated part, as (label, date or datetime): what the lock rule is checked against."""
        out: list[tuple[str, object]] = []
        for team in self.form:
            out += [(f"form {team.team_id} v {m.opponent}", m.date) for m in team.matches]
        if self.head_to_head is not None:
            out += [(f"head-to-head v {m.opponent}", m.date) for m in self.head_to_head.matches]
        out += [(f"rest {r.team_id}", r.last_match) for r in self.rest if r.last_match is not None]
        if self.odds.retrieved_at is not None:
            out.append((f"odds {self.odds.snapshot_path}", self.odds.retrieved_at))
        if self.news is not None:
            out += [(f"news {i.url}", i.published_at) for i in self.news.items if i.published_at is not None]
        return out

    def late_items(self) -> list[str]:
        """The dated parts that break the lock: a datetime after ``locks_at``, a date after the lock's date."""
        late = []
        for label, moment in self.dated_items():
            when = moment.date() if isinstance(moment, datetime) else moment
            if (isinstance(moment, datetime) and moment > self.locks_at) or when > self.locks_at.date():
                late.append(f"{label} ({moment.isoformat()})")
        return late
