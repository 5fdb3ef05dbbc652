"""``market`` from odds files: the consensus of every bookmaker's latest quote, stamped with the quotes' time.

Formats read:

- football-data.co.uk season CSV, parsed by :func:`collector.sources.football_data_couk.parse_csv`
  (the live and replayed snapshots read the same files the same way): one quote per real
  bookmaker's ``<book>H/D/A`` columns (``B365`` bet365, ``PS`` pinnacle, ``WH`` williamhill, ...,
  named as there), never the ``Avg``/``Max`` summaries (not bookmakers: a median would count
  them twice). Pre-closing odds are stamped at the collection day 12:00 UTC (the Friday before a
  weekend match, the Tuesday before a midweek one), closing odds ``<book>CH/CD/CA`` one minute
  before kickoff; closing quotes answer only ``closing``-horizon tasks.
- The Odds API v4 JSON, parsed by :func:`collector.sources.odds_api.parse_odds_api` (as the
  live source's answers are): a list of events with ``commence_time``, ``home_team``,
  ``away_team`` and ``bookmakers[].markets[key=h2h].outcomes[{name, price}]``, each market
  with its ``last_update`` (or the historical endpoint's ``{timestamp, data}``): one quote per
  event and bookmaker, stamped with that ``last_update`` (else the snapshot's ``timestamp``).

Consensus (LLM-SoccerArena App. E, :mod:`collector.forecasters.baselines.consensus`): for a
task, each bookmaker's latest quote at or before the request time (and before kickoff) is
taken; the margin is removed within each bookmaker (``proportional`` by default, ``power`` or
``shin``: :mod:`collector.forecasters.baselines.margin`), the median taken per outcome and
renormalised. A bookmaker with a bad price (not > 1, missing, an unknown outcome) is skipped and
named as a problem with file, row and value, and so is a quote no one offered (odds within 1% of 1,
an overround outside 0.95..1.35, a time after the read: the check every odds route shares,
:func:`collector.sources.odds_base.plausible_quotes`); unknown team names are problems too. With no
usable bookmaker the record is ``missed``. Expected goals and scores come from the Poisson rates
that best reproduce the consensus home and away probabilities (``poisson_match``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from collector.errors import Problem
from collector.forecasters.tasks import ForecastTask
from collector.records import (
    BookQuote,
    Competition,
    Forecast,
    ForecasterType,
    ForecastStatus,
    Horizon,
    Validation,
)
from collector.sources.football_data_couk import parse_csv
from collector.sources.odds_api import parse_odds_api
from collector.sources.odds_base import OddsBatch, plausible_quotes

from .common import CONDITIONS, MatchView, forecast_record, match_payload
from .consensus import consensus_inputs
from .margin import METHODS
from .scoregrid import outcome_probabilities, score_grid


@dataclass(frozen=True)
class Quote:
    """One bookmaker's 1X2 quote for one match at one time."""

    home: str  # team id
    away: str
    kickoff: datetime | None
    quoted_at: datetime
    odds: tuple[float, float, float]
    bookmaker: str
    closing: bool
    source: str  # file and row


def parse_football_data_csv(text: str, competition: Competition, source: str) -> tuple[list[Quote], list[Problem]]:
    """One quote per row, real bookmaker and kind (pre-closing, closing); a bad row or book is a problem, and so
    is a quote no one offered (:func:`collector.sources.odds_base.plausible_quotes`, as of the read)."""
    matches, problems = parse_csv(text, competition, source)
    read_at = datetime.now(UTC)
    quotes = []
    for m in matches:
        for closing, found in ((False, m.opening), (True, m.closing)):
            kept = _plausible(found, read_at, "football-data-co-uk", m.where, problems)
            quotes += [Quote(m.home, m.away, m.kickoff, q.last_update, tuple(p.odds for p in q.prices), q.bookmaker,
                             closing, m.where) for q in kept]
    return quotes, problems


def parse_odds_api_json(data: bytes | str, competition: Competition, source: str) -> tuple[list[Quote], list[Problem]]:
    """One quote per event and bookmaker h2h market, stamped with the market's ``last_update``.

    Parsed by :func:`collector.sources.odds_api.parse_odds_api`, as the live source's answers are:
    a live (list of events) or historical (``{timestamp, data}``) body; a bookmaker without a
    usable price or time is a problem, and so is a quote no one offered
    (:func:`collector.sources.odds_base.plausible_quotes`, its stamp checked against the read);
    the event's other bookmakers are kept."""
    raw = data.encode() if isinstance(data, str) else data
    batch = OddsBatch("the-odds-api", source, datetime.now(UTC))
    parse_odds_api(raw, competition, batch, historical=raw.lstrip()[:1] == b"{")
    quotes, problems = [], list(batch.problems)
    for event in batch.events:
        where = f"{source} {event.home_team} v {event.away_team}"
        problems += [Problem(where, message) for message in event.problems]
        stamped = []
        for q in event.quotes:
            stamp = q.last_update or batch.snapshot_at
            if stamp is None:
                problems.append(Problem(where, f"bookmaker {q.bookmaker!r} h2h: no last_update"))
                continue
            stamped.append(q.model_copy(update={"last_update": stamp}))
        kept = _plausible(stamped, batch.retrieved_at, "the-odds-api", where, problems)
        quotes += [Quote(event.home_team, event.away_team, event.kickoff_utc, q.last_update,
                         tuple(p.odds for p in q.prices), q.bookmaker, False, where) for q in kept]
    return quotes, problems


def _plausible(found: list[BookQuote], read_at: datetime, source: str, where: str,
               problems: list[Problem]) -> list[BookQuote]:
    """The plausible quotes of ``found``; each one left out added to ``problems`` at ``where`` (file and match)."""
    kept, bad = plausible_quotes(found, read_at, source)
    problems += [Problem(where, message) for message in bad]
    return kept


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
    """Forecaster ``market``: each bookmaker's latest quote before the request time, consensus of the books."""

    type = ForecasterType.MARKET
    conditions = CONDITIONS
    version = "market-3"  # market-1 took the single latest quote of one bookmaker; market-2 played extra time in every knockout
    answers_questions = False  # odds files carry 1X2 markets only

    def __init__(self, quotes: list[Quote], *, id: str = "market", method: str = "proportional"):
        if method not in METHODS:
            raise ValueError(f"unknown margin-removal method {method!r}: expected one of {', '.join(METHODS)}")
        self.id = id
        self.method = method
        self.by_match: dict[tuple[str, str], list[Quote]] = defaultdict(list)
        for quote in sorted(quotes, key=lambda q: q.quoted_at):
            self.by_match[(quote.home, quote.away)].append(quote)

    def quotes_for(self, task: ForecastTask) -> list[Quote]:
        """Per bookmaker, its latest quote of the task's kind (closing at ``closing``, else pre-closing)
        quoted at or before the request time (closing quotes: before kickoff), in bookmaker order."""
        event = task.event
        if event is None:
            return []
        closing = task.horizon is Horizon.CLOSING
        latest: dict[str, Quote] = {}
        for q in self.by_match.get((event.home_team, event.away_team), ()):
            if (q.closing == closing and (closing or q.quoted_at <= task.now) and q.quoted_at < task.deadline
                    and (q.kickoff is None or q.kickoff.date() == event.kickoff_utc.date())):
                latest[q.bookmaker] = q  # sorted by time: a later quote of the same book replaces it
        return [latest[b] for b in sorted(latest)]

    async def forecast(self, task: ForecastTask) -> Forecast:
        return self.forecast_now(task)

    def forecast_now(self, task: ForecastTask) -> Forecast:
        quotes = self.quotes_for(task)
        if not quotes:
            return forecast_missed(task, self.id, self.version, "no odds quoted for this match before the request time")
        probs, consensus = consensus_inputs([q.odds for q in quotes], self.method)
        lam, mu = poisson_match(probs)
        kind, books = "closing " if quotes[0].closing else "", ", ".join(q.bookmaker for q in quotes)
        view = MatchView(
            grid=score_grid(lam, mu), rate_home=lam, rate_away=mu, probs_90=probs,
            reason=f"Consensus of {len(quotes)} bookmaker(s)' latest {kind}odds ({books}): {self.method} margin "
                   "removal per bookmaker, median per outcome, renormalised.",
        )
        inputs = {**consensus, "closing": quotes[0].closing,
                  "odds_by_book": {q.bookmaker: list(q.odds) for q in quotes},
                  "quoted_at_by_book": {q.bookmaker: q.quoted_at.isoformat() for q in quotes},
                  "sources": sorted({q.source for q in quotes})}
        payload = match_payload(view, task.competition, task.event)
        return forecast_record(task, forecaster=self.id, version=self.version, payload=payload, inputs=inputs,
                               forecaster_type=ForecasterType.MARKET,
                               requested_at=max(q.quoted_at for q in quotes))


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
