"""football-data.co.uk season CSVs (``E0.csv``, ``D1.csv``, ...) as an odds source, every bookmaker kept.

Column layout (football-data.co.uk ``notes.txt``): ``Div``, ``Date`` (dd/mm/yy or dd/mm/yyyy),
``Time`` (UK local clock), ``HomeTeam``, ``AwayTeam``, results ``FTHG FTAG FTR``, then 1X2 odds
per bookmaker as ``<book>H``, ``<book>D``, ``<book>A`` (``B365`` Bet365, ``BW`` Bet&Win,
``IW`` Interwetten, ``PS`` Pinnacle, ``WH`` William Hill, ``VC`` Bet Victor, ``BF`` Betfair,
``BFD`` Betfred, ``BMGM`` BetMGM, ``BV`` BetVictor, ``CL`` Coral, ``LB`` Ladbrokes,
``1XB`` 1xBet), the market's average and maximum ``AvgH``/``MaxH`` (older files ``BbAvH``,
``BbMxH``), and the closing odds of the same books with a ``C`` after the prefix (``B365CH``,
``PSCH``, ``AvgCH``, ``MaxCH``).

Times: the site collects pre-closing odds on Friday afternoons for weekend matches and on
Tuesday afternoons for midweek ones; those quotes are stamped at that day 12:00 UTC, closing
odds one minute before kickoff. A read at ``at`` gives each match the latest set stamped at or
before ``at`` (closing from one minute before kickoff, pre-closing from the collection day,
nothing before): a file written after the season never leaks a later price into an earlier
snapshot. ``Avg`` and ``Max`` are summaries, not bookmakers: they are kept in the payload but
not quoted (a median across books would count them twice).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from collector.errors import Problem
from collector.records import BookQuote, Competition, Event, OutcomePrice
from collector.sources.odds_base import EventOdds, OddsBatch, decimal_odds, team_id

UK = ZoneInfo("Europe/London")
BOOKMAKERS = {"B365": "bet365", "BW": "betandwin", "IW": "interwetten", "PS": "pinnacle", "WH": "williamhill",
              "VC": "betvictor", "BF": "betfair", "BFD": "betfred", "BMGM": "betmgm", "BV": "betvictor-bv",
              "CL": "coral", "LB": "ladbrokes", "1XB": "1xbet"}  # fmt: skip
# The demo's synthetic odds file (collector/forecasters/demo_recipe.py) quotes made-up books in the same layout,
# named so that no record or page passes them off as a real bookmaker.
DEMO_BOOKMAKERS = {"DMA": "demo-book-a", "DMB": "demo-book-b", "DMC": "demo-book-c"}
SUMMARIES = ("Avg", "Max", "BbAv", "BbMx")
CLOSING_LEAD = timedelta(minutes=1)


def collection_time(kickoff: datetime) -> datetime:
    """Pre-closing odds: the Friday (Sat/Sun/Mon matches) or Tuesday (others) before kickoff, 12:00 UTC."""
    day = kickoff.date()
    target = 4 if day.weekday() in (5, 6, 0) else 1
    back = (day.weekday() - target) % 7 or 7
    return datetime.combine(day - timedelta(days=back), time(12), tzinfo=UTC)


def parse_date(raw: str) -> date:
    for fmt in ("%d/%m/%Y", "%d/%m/%y"):
        try:
            return datetime.strptime(raw.strip(), fmt).date()
        except ValueError:
            continue
    raise ValueError(f"field Date: unparseable date {raw!r} (expected dd/mm/yyyy)")


class CsvMatch:
    """One row: the match, its pre-closing and closing quotes, the row as read."""

    def __init__(self, home: str, away: str, kickoff: datetime, row: dict[str, str], where: str):
        self.home, self.away, self.kickoff, self.row, self.where = home, away, kickoff, row, where
        self.opening: list[BookQuote] = []
        self.closing: list[BookQuote] = []
        self.problems: list[str] = []


def _quote(row: dict[str, str], prefix: str, name: str, stamp: datetime) -> BookQuote | None:
    raw = [row.get(f"{prefix}{side}", "").strip() for side in "HDA"]
    if not any(raw):
        return None
    prices = tuple(OutcomePrice(outcome=side, odds=decimal_odds(value, f"{prefix}{side[0].upper()}"))
                   for side, value in zip(("home", "draw", "away"), raw, strict=True))
    return BookQuote(bookmaker=name, market="h2h", prices=prices, last_update=stamp)


def parse_csv(text: str, competition: Competition, source: str) -> tuple[list[CsvMatch], list[Problem]]:
    """Every row's match with its quotes; a bad row or a bad book's prices is a problem naming line and column."""
    matches, problems = [], []
    for line, row in enumerate(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))), start=2):
        where = f"{source} line {line}"
        try:
            home = team_id(competition, row.get("HomeTeam"), "HomeTeam")
            away = team_id(competition, row.get("AwayTeam"), "AwayTeam")
            clock = time.fromisoformat(row["Time"].strip()) if (row.get("Time") or "").strip() else time(15)
            kickoff = datetime.combine(parse_date(row.get("Date") or ""), clock, tzinfo=UK).astimezone(UTC)
        except (ValueError, KeyError) as exc:
            problems.append(Problem(where, str(exc)))
            continue
        match = CsvMatch(home, away, kickoff, {k: v for k, v in row.items() if k}, where)
        for prefix, name in {**BOOKMAKERS, **DEMO_BOOKMAKERS}.items():
            for closing in (False, True):
                try:
                    stamp = kickoff - CLOSING_LEAD if closing else collection_time(kickoff)
                    quote = _quote(row, f"{prefix}C" if closing else prefix, name, stamp)
                except ValueError as exc:
                    problems.append(Problem(where, str(exc)))
                    continue
                if quote is not None:
                    (match.closing if closing else match.opening).append(quote)
        matches.append(match)
    return matches, problems


class FootballDataCsvSource:
    """Odds from football-data.co.uk season CSV files (read once, served at any ``at``)."""

    name = "football-data-co-uk"

    def __init__(self, paths: Sequence[Path | str], clock: Callable[[], datetime] = lambda: datetime.now(UTC)):
        self.paths = [Path(p) for p in paths]
        self._clock = clock
        self._parsed: dict[str, tuple[list[CsvMatch], list[Problem]]] = {}

    async def aclose(self) -> None:
        return None

    def matches(self, competition: Competition) -> tuple[list[CsvMatch], list[Problem]]:
        if competition.id not in self._parsed:
            found, problems = [], []
            for path in self.paths:
                try:
                    text = path.read_bytes().decode("utf-8", errors="replace")
                except OSError as exc:
                    problems.append(Problem(str(path), f"cannot read: {exc.strerror}"))
                    continue
                rows, bad = parse_csv(text, competition, str(path))
                found += rows
                problems += bad
            self._parsed[competition.id] = (found, problems)
        return self._parsed[competition.id]

    async def fetch_odds(self, competition: Competition, events: list[Event], at: datetime | None = None) -> OddsBatch:
        at = at or self._clock()
        batch = OddsBatch(self.name, ", ".join(p.name for p in self.paths), self._clock())
        rows, problems = self.matches(competition)
        batch.problems += problems
        for row in rows:
            closing = at >= row.kickoff - CLOSING_LEAD and bool(row.closing)
            quotes = row.closing if closing else (row.opening if at >= collection_time(row.kickoff) else [])
            if at >= row.kickoff or not quotes:
                continue
            batch.events.append(EventOdds(row.home, row.away, row.kickoff, quotes=list(quotes),
                                          payload=_payload(row, closing)))
        return batch


def _payload(row: CsvMatch, closing: bool) -> dict[str, Any]:
    """The row's identifying columns and the odds columns of the set served (never the result, and
    never the closing odds in a pre-closing snapshot: they were not knowable then)."""
    keep = {"Div", "Date", "Time", "HomeTeam", "AwayTeam"}
    for prefix in (*BOOKMAKERS, *DEMO_BOOKMAKERS, *SUMMARIES):
        keep.update(f"{prefix}{'C' if closing else ''}{side}" for side in "HDA")
    return {"source": row.where, "row": {k: v for k, v in row.row.items() if k in keep}}
