"""The one interface of every odds source: quotes per match, what the call cost, problems collected.

An odds source (The Odds API, Polymarket, Kalshi, a football-data.co.uk CSV) answers
:meth:`OddsSource.fetch_odds` with an :class:`OddsBatch`: one :class:`EventOdds` per match
it priced, with team ids resolved through the competition's aliases, the quotes as
:class:`~collector.records.BookQuote` values and the provider's payload for that match
verbatim. A quote it cannot use (a price <= 1, an unknown outcome name, a missing field)
becomes a problem naming the source, the match and the value; the other quotes stay. So does a
quote that is no price anyone offered (:func:`implausible`: odds within 1% of 1, an overround
outside :data:`OVERROUND`, an update time after the read), checked for every source and every route
(:func:`plausible_quotes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import orjson

from collector.competitions import find_team
from collector.errors import Problem
from collector.records import BookQuote, Competition, Credits, Event

ODDS_RESPONSE_BYTES = 4 * 1024 * 1024  # an odds source's body is cut here (a season's 1X2 quotes take far less)
MIN_ODDS = 1.01  # decimal odds nearer 1 promise no return a bookmaker would offer: not a price
OVERROUND = (0.95, 1.35)  # the sum of 1/odds over home, draw and away a real book or market gives
MAX_QUOTES = 200  # quotes of one match from one read: more is not a list of bookmakers
CLOCK_SKEW = timedelta(minutes=5)  # a quote's own update time may run this far ahead of ours


@dataclass
class EventOdds:
    """One match's quotes from one read of a source."""

    home_team: str  # team ids
    away_team: str
    kickoff_utc: datetime | None
    quotes: list[BookQuote] = field(default_factory=list)
    payload: Any = None  # the source's JSON (or CSV row) for this match, verbatim
    problems: list[str] = field(default_factory=list)


@dataclass
class OddsBatch:
    """What one read of an odds source produced."""

    source: str  # a slug: the-odds-api, polymarket, kalshi, football-data-co-uk
    endpoint: str  # what was asked, never a key
    retrieved_at: datetime
    snapshot_at: datetime | None = None
    events: list[EventOdds] = field(default_factory=list)
    credits: Credits | None = None
    problems: list[Problem] = field(default_factory=list)

    def for_event(self, event: Event) -> EventOdds | None:
        """The quotes of ``event``: same teams, and the same kickoff day when the source gives one."""
        for odds in self.events:
            if (odds.home_team, odds.away_team) != (event.home_team, event.away_team):
                continue
            if odds.kickoff_utc is None or event.kickoff_utc is None or odds.kickoff_utc.date() == event.kickoff_utc.date():
                return odds
        return None


def implausible(quote: BookQuote, now: datetime) -> str | None:
    """Why ``quote`` is no price anyone offered (None: it is plausible): odds within ``MIN_ODDS`` of 1, a
    1X2 book whose overround is outside :data:`OVERROUND`, or an update time after ``now``."""
    low = [p for p in quote.prices if p.odds < MIN_ODDS]
    if low:
        return f"odds {low[0].odds!r} for {low[0].outcome} are not above {MIN_ODDS}"
    if len(quote.prices) == 3:
        overround = sum(1 / p.odds for p in quote.prices)
        if not OVERROUND[0] <= overround <= OVERROUND[1]:
            return f"the 1X2 prices' overround {overround:.4f} is outside {OVERROUND[0]}..{OVERROUND[1]}"
    if quote.last_update is not None and quote.last_update > now + CLOCK_SKEW:
        return f"last_update {quote.last_update.isoformat()} is after the time it was read ({now.isoformat()})"
    return None


def plausible_quotes(quotes: list[BookQuote], now: datetime, source: str) -> tuple[list[BookQuote], list[str]]:
    """The quotes of one match from one read that are not :func:`implausible`, at most :data:`MAX_QUOTES` of
    them, and a problem for each quote left out (naming the source, the bookmaker, the field and its value).

    Every route by which quotes enter the archive or a forecast passes here: the tick's odds step
    (:func:`keep_plausible`) and the replay's odds files (:mod:`collector.forecasters.baselines.market`)."""
    kept, problems = [], []
    for quote in quotes:
        why = implausible(quote, now)
        if why is not None:
            problems.append(f"{source} bookmaker {quote.bookmaker!r} {quote.market}: {why}; left out")
        else:
            kept.append(quote)
    if len(kept) > MAX_QUOTES:
        problems.append(f"{source}: {len(kept)} quotes for one match, more than {MAX_QUOTES}; the first "
                        f"{MAX_QUOTES} kept")
        kept = kept[:MAX_QUOTES]
    return kept, problems


def keep_plausible(odds: EventOdds, now: datetime, source: str) -> None:
    """Drop the quotes of ``odds`` that :func:`plausible_quotes` leaves out, each named in ``odds.problems``."""
    odds.quotes, problems = plausible_quotes(odds.quotes, now, source)
    odds.problems += problems


class OddsSource(Protocol):
    """An odds source for one competition; ``at`` asks for a past snapshot (historical endpoints)."""

    name: str

    async def fetch_odds(self, competition: Competition, events: list[Event], at: datetime | None = None) -> OddsBatch: ...

    async def aclose(self) -> None: ...


def team_id(competition: Competition, name: Any, field_name: str) -> str:
    """The team id for a source's name; ValueError naming the field and the value otherwise."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"field {field_name}: missing team name (got {name!r})")
    found = find_team(competition, name)
    if found is None:
        raise ValueError(f"field {field_name}: unknown team {name!r} in {competition.id} (add it as an alias)")
    return found


def utc_time(raw: Any, field_name: str) -> datetime:
    """An ISO 8601 timestamp with a zone (``Z`` accepted) as UTC; ValueError naming the field otherwise."""
    if not isinstance(raw, str):
        raise ValueError(f"field {field_name}: expected an ISO timestamp, got {raw!r}")
    try:
        value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"field {field_name}: unparseable timestamp {raw!r}") from None
    if value.tzinfo is None:
        raise ValueError(f"field {field_name}: timestamp {raw!r} has no time zone")
    return value.astimezone(UTC)


def decimal_odds(raw: Any, field_name: str) -> float:
    """A decimal price > 1 (finite); ValueError naming the field and the value otherwise."""
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError(f"field {field_name}: expected decimal odds, got {raw!r}")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"field {field_name}: expected decimal odds, got {raw!r}") from None
    if not (1.0 < value <= 10_000.0):
        raise ValueError(f"field {field_name}: decimal odds must be > 1 and finite, got {raw!r}")
    return value


def share_price(raw: Any, field_name: str) -> float:
    """A prediction market's share price in (0, 1); ValueError naming the field and the value otherwise."""
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"field {field_name}: expected a price between 0 and 1, got {raw!r}") from None
    if not (0.0 < value < 1.0):
        raise ValueError(f"field {field_name}: a share price must be strictly between 0 and 1, got {raw!r}")
    return value


def json_payload(data: bytes, where: str) -> Any:
    """A source's body parsed as JSON (ValueError naming ``where`` when it is not JSON)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"{where}: not valid JSON: {exc}") from None


def match_sides(markets: list, competition: Competition, event: Event, title_field: str,
                draw_prefixes: tuple[str, ...]) -> dict[str, dict]:
    """home/draw/away -> the prediction market of one match whose ``title_field`` names that team, or a
    draw (a title starting with one of ``draw_prefixes``, case-insensitive); markets of other teams are left out."""
    out: dict[str, dict] = {}
    for market in markets:
        if not isinstance(market, dict):
            continue
        title = str(market.get(title_field) or "").strip()
        if title.lower().startswith(draw_prefixes):
            out["draw"] = market
            continue
        try:
            team = team_id(competition, title, title_field)
        except ValueError:
            continue
        if team == event.home_team:
            out["home"] = market
        elif team == event.away_team:
            out["away"] = market
    return out
