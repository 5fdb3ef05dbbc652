"""``market``: bookmaker odds turned into a forecast, stamped with the odds' own time.

Formats read:

- football-data.co.uk CSV (``Date`` dd/mm/yy(yy), ``Time`` UK local, ``HomeTeam``,
  ``AwayTeam``, 1X2 odds ``{B365,PS,Avg,Max}{H,D,A}`` and closing odds
  ``{B365,PS,Avg,Max}C{H,D,A}``). The site collects pre-closing odds on Friday afternoons for
  weekend matches and Tuesday afternoons for midweek matches; those quotes are stamped
  at the collection day 12:00 UTC before kickoff; closing odds one minute before kickoff
  (a forecast must be requested before kickoff) and answer only ``closing``-horizon tasks.
- The Odds API v4 JSON (a list of events with ``commence_time``, ``home_team``,
  ``away_team`` and ``bookmakers[].markets[key=h2h].outcomes[{name, price}]``, each market
  with its ``last_update``), stamped with that ``last_update``.

Margin removal: ``collector.forecasters.baselines.margin`` (proportional, power, Shin; Shin by default).
Expected goals and scores come from the Poisson rates that best reproduce the market's
home and away probabilities (``poisson_match``). Team names go through the competition's
aliases; unknown names and bad prices are collected as problems with file, row and value.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import numpy as np
import orjson

from collector.errors import Problem
from collector.forecasters.tasks import ForecastTask
from collector.records import (
    Competition,
    Forecast,
    ForecasterType,
    ForecastStatus,
    Horizon,
    Validation,
)
from collector.sources.football_data_couk import parse_date
from collector.sources.odds_base import team_id, utc_time

from .common import CONDITIONS, MatchView, forecast_record, match_payload
from .margin import remove_margin
from .scoregrid import outcome_probabilities, score_grid

BOOKMAKERS = ("PS", "B365", "Avg", "Max")  # preference order for football-data.co.uk columns
UK = ZoneInfo("Europe/London")
CLOSING_LEAD = timedelta(minutes=1)


@dataclass(frozen=True)
class Quote:
    """One 1X2 quote for one match at one time."""

    home: str  # team id
    away: str
    kickoff: datetime | None
    quoted_at: datetime
    odds: tuple[float, float, float]
    bookmaker: str
    closing: bool
    source: str  # file and row


def _odds(row: dict[str, str], prefix: str) -> tuple[float, float, float] | None:
    values = [row.get(f"{prefix}{side}", "").strip() for side in "HDA"]
    if not all(values):
        return None
    odds = tuple(float(v) for v in values)
    if any(o <= 1.0 for o in odds):
        raise ValueError(f"odds {prefix}H/D/A must be > 1, got {odds}")
    return odds


def _collection_time(kickoff: datetime) -> datetime:
    """football-data.co.uk pre-closing odds: the Friday (weekend) or Tuesday (midweek) before, 12:00 UTC."""
    day = kickoff.date()
    target = 4 if day.weekday() in (5, 6, 0) else 1  # Friday for Sat/Sun/Mon, else Tuesday
    back = (day.weekday() - target) % 7 or 7
    return datetime.combine(day - timedelta(days=back), time(12), tzinfo=UTC)


def parse_football_data_csv(text: str, competition: Competition, source: str) -> tuple[list[Quote], list[Problem]]:
    """Quotes (pre-closing and closing, best bookmaker available) and problems for each bad row."""
    quotes: list[Quote] = []
    problems: list[Problem] = []
    for line, row in enumerate(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))), start=2):
        where = f"{source} line {line}"
        try:
            home = team_id(competition, row.get("HomeTeam"), "HomeTeam")
            away = team_id(competition, row.get("AwayTeam"), "AwayTeam")
            day = parse_date(row.get("Date", ""))
            clock = time.fromisoformat(row["Time"].strip()) if row.get("Time", "").strip() else time(15)
            kickoff = datetime.combine(day, clock, tzinfo=UK).astimezone(UTC)
            for closing in (False, True):
                for book in BOOKMAKERS:
                    odds = _odds(row, f"{book}C" if closing else book)
                    if odds is not None:
                        stamp = kickoff - CLOSING_LEAD if closing else _collection_time(kickoff)
                        quotes.append(Quote(home, away, kickoff, stamp, odds, book, closing, where))
                        break
        except (ValueError, KeyError) as exc:
            problems.append(Problem(where, str(exc)))
    return quotes, problems


def parse_odds_api_json(data: bytes | str, competition: Competition, source: str) -> tuple[list[Quote], list[Problem]]:
    """One quote per event and bookmaker h2h market, stamped with the market's ``last_update``."""
    quotes: list[Quote] = []
    problems: list[Problem] = []
    try:
        events = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return [], [Problem(source, f"not valid JSON: {exc}")]
    if not isinstance(events, list):
        return [], [Problem(source, "expected a list of events")]
    for i, event in enumerate(events):
        where = f"{source} [{i}]"
        try:
            home = team_id(competition, event.get("home_team"), "home_team")
            away = team_id(competition, event.get("away_team"), "away_team")
            names = {event["home_team"]: 0, "Draw": 1, event["away_team"]: 2}
            kickoff = utc_time(event.get("commence_time"), "commence_time")
            for book in event.get("bookmakers") or []:
                for market in book.get("markets") or []:
                    if market.get("key") != "h2h":
                        continue
                    prices = [0.0, 0.0, 0.0]
                    for outcome in market.get("outcomes") or []:
                        prices[names[outcome["name"]]] = float(outcome["price"])
                    if min(prices) <= 1.0:
                        raise ValueError(f"bookmaker {book.get('key')}: h2h prices must be > 1, got {prices}")
                    stamp = utc_time(market.get("last_update") or book.get("last_update"), "last_update")
                    quotes.append(Quote(home, away, kickoff, stamp, tuple(prices), str(book.get("key")), False, where))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            problems.append(Problem(where, f"{type(exc).__name__}: {exc}" if isinstance(exc, KeyError) else str(exc)))
    return quotes, problems


def poisson_match(probs: tuple[float, float, float]) -> tuple[float, float]:
    """Poisson rates (l, m) whose grid best reproduces P(home) and P(away) (least squares, grid then refine)."""
    target = np.array([probs[0], probs[2]])
    best, rates = np.inf, (1.3, 1.3)
    for span, centre in ((np.linspace(0.1, 4.0, 40), None), (np.linspace(-0.1, 0.1, 21), "refine")):
        pairs = [(a, b) for a in span for b in span] if centre is None else [
            (rates[0] + a, rates[1] + b) for a in span for b in span
        ]
        for lam, mu in pairs:
            if lam <= 0.05 or mu <= 0.05:
                continue
            home, _, away = outcome_probabilities(score_grid(lam, mu))
            err = (home - target[0]) ** 2 + (away - target[1]) ** 2
            if err < best:
                best, rates = err, (float(lam), float(mu))
    return rates


class MarketForecaster:
    """Forecaster ``market``: the latest quote before the request time, margin removed."""

    type = ForecasterType.MARKET
    conditions = CONDITIONS
    version = "market-1"
    answers_questions = False  # odds files carry 1X2 markets only

    def __init__(self, quotes: list[Quote], *, id: str = "market", method: str = "shin"):
        self.id = id
        self.method = method
        self.quotes = sorted(quotes, key=lambda q: q.quoted_at)

    def quote_for(self, task: ForecastTask) -> Quote | None:
        event = task.event
        if event is None:
            return None
        closing = task.horizon is Horizon.CLOSING
        usable = [
            q for q in self.quotes
            if q.home == event.home_team and q.away == event.away_team and q.closing == closing
            and (closing or q.quoted_at <= task.now) and q.quoted_at < task.deadline
            and (q.kickoff is None or q.kickoff.date() == event.kickoff_utc.date())
        ]
        return usable[-1] if usable else None

    async def forecast(self, task: ForecastTask) -> Forecast:
        return self.forecast_now(task)

    def forecast_now(self, task: ForecastTask) -> Forecast:
        quote = self.quote_for(task)
        if quote is None:
            return forecast_missed(task, self.id, self.version, "no odds quoted for this match before the request time")
        probs = tuple(float(p) for p in remove_margin(quote.odds, self.method))
        lam, mu = poisson_match(probs)
        view = MatchView(
            grid=score_grid(lam, mu), rate_home=lam, rate_away=mu, probs_90=probs,
            reason=f"{quote.bookmaker} {'closing ' if quote.closing else ''}odds {quote.odds} at "
                   f"{quote.quoted_at.isoformat()}, margin removed by the {self.method} method.",
        )
        inputs = {"odds": list(quote.odds), "bookmaker": quote.bookmaker, "quoted_at": quote.quoted_at.isoformat(),
                  "closing": quote.closing, "margin_method": self.method,
                  "booksum": round(sum(1 / o for o in quote.odds), 6),
                  "source": quote.source}
        payload = match_payload(view, task.event.knockout)
        return forecast_record(task, forecaster=self.id, version=self.version, payload=payload, inputs=inputs,
                               forecaster_type=ForecasterType.MARKET, requested_at=quote.quoted_at)


def forecast_missed(task: ForecastTask, forecaster: str, version: str, why: str) -> Forecast:
    return Forecast(
        clock=task.clock, recorded_at=task.now, competition_id=task.competition.id, target_kind=task.target_kind,
        target_id=task.target_id, forecaster=forecaster, forecaster_type=ForecasterType.MARKET, model_version=version,
        access=task.access, strategy=task.strategy, horizon=task.horizon, sample=task.sample,
        kickoff_utc=task.deadline, scheduled_at=task.scheduled_at, status=ForecastStatus.MISSED,
        validation=Validation(errors=(why,)),
    )


def load_quotes(paths, competition: Competition) -> tuple[list[Quote], list[Problem]]:
    """Quotes from every odds file (``.csv``: football-data.co.uk, ``.json``: The Odds API), problems collected."""
    from pathlib import Path

    quotes: list[Quote] = []
    problems: list[Problem] = []
    for path in map(Path, paths):
        try:
            data = path.read_bytes()
        except OSError as exc:
            problems.append(Problem(str(path), f"cannot read: {exc}"))
            continue
        if path.suffix.lower() == ".json":
            found, bad = parse_odds_api_json(data, competition, str(path))
        else:
            found, bad = parse_football_data_csv(data.decode("utf-8", errors="replace"), competition, str(path))
        quotes += found
        problems += bad
    return quotes, problems
