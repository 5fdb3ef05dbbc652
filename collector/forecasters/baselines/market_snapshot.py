"""``market`` in live operation: the forecast derived from the odds snapshots of the same horizon.

The tick writes the event's odds snapshots (:class:`~collector.records.OddsSnapshot`, one per
source) for a horizon before the forecasts of that horizon are made, and hands them to the
task (``task.odds``). This forecaster pools every 1X2 quote of those snapshots (each
bookmaker, and each prediction market as one more book), removes the margin within each
(``proportional`` by default, ``power`` or ``shin``), takes the median per outcome and
renormalises (LLM-SoccerArena App. E; :mod:`collector.forecasters.baselines.consensus`).

Recorded in ``inputs`` (:func:`~collector.forecasters.baselines.consensus.consensus_inputs`):
the method, the aggregation, the number of books and their odds, the median quoted odds one
could back at (``buy_odds``, for the return), the spread across books of each outcome's
margin-free probability, and the snapshots' paths.
``requested_at`` is the latest retrieval time of the snapshots used; a snapshot retrieved at or
after kickoff is never used (fail closed). With no usable quote the record is ``missed``, with
the reason.

Configured as a baseline: ``options = {baseline = "market_snapshot"}`` (or
``"market_snapshot/shin"``, ``"market_snapshot/power"``).
"""

from __future__ import annotations

from collector.archive.layout import path_for
from collector.forecasters.tasks import ForecastTask
from collector.records import BookQuote, Forecast, ForecasterType, OddsSnapshot

from .common import CONDITIONS, MatchView, forecast_record, match_payload
from .consensus import consensus_inputs
from .margin import METHODS
from .market import forecast_missed, poisson_match
from .scoregrid import score_grid

SIDES = ("home", "draw", "away")


def h2h_odds(quote: BookQuote) -> tuple[float, float, float] | None:
    """The quote's (home, draw, away) decimal odds, or None if it is not a complete 1X2 quote."""
    by_side = {p.outcome: p.odds for p in quote.prices}
    return tuple(by_side[s] for s in SIDES) if set(SIDES) <= set(by_side) else None


class SnapshotMarketForecaster:
    """Forecaster ``market`` from the task's odds snapshots."""

    type = ForecasterType.MARKET
    conditions = CONDITIONS
    version = "market-snapshot-2"  # 1 played extra time in every knockout
    answers_questions = False

    def __init__(self, *, id: str = "market", method: str = "proportional", **_: object):
        if method not in METHODS:
            raise ValueError(f"unknown margin-removal method {method!r}: expected one of {', '.join(METHODS)}")
        self.id, self.method = id, method

    async def forecast(self, task: ForecastTask) -> Forecast:
        return self.forecast_now(task)

    def usable(self, task: ForecastTask) -> list[tuple[OddsSnapshot, BookQuote, tuple[float, float, float]]]:
        """Every complete 1X2 quote of this horizon's snapshots retrieved before kickoff (fail closed).

        The tick retrieves a horizon's snapshots just before its forecasts, so ``retrieved_at``
        may be a few seconds after the tick's ``now``; never after kickoff."""
        out = []
        for snapshot in task.odds:
            if snapshot.horizon is not task.horizon or snapshot.retrieved_at >= task.deadline:
                continue
            for quote in snapshot.quotes:
                odds = h2h_odds(quote)
                if odds is not None:
                    out.append((snapshot, quote, odds))
        return out

    def forecast_now(self, task: ForecastTask) -> Forecast:
        found = self.usable(task)
        if not found:
            why = "no odds snapshot of this horizon with a complete 1X2 quote before kickoff"
            return forecast_missed(task, self.id, self.version, why)
        probs, consensus = consensus_inputs([o for _, _, o in found], self.method)
        lam, mu = poisson_match(probs)
        snapshots = sorted({path_for(s) for s, _, _ in found})
        requested = max(s.retrieved_at for s, _, _ in found)
        view = MatchView(
            grid=score_grid(lam, mu), rate_home=lam, rate_away=mu, probs_90=probs,
            reason=f"Consensus of {len(found)} book(s) at {task.horizon.value}: {self.method} margin removal "
                   f"per book, median per outcome, renormalised.",
        )
        inputs = {**consensus, "odds_by_book": {f"{s.source}:{q.bookmaker}": list(o) for s, q, o in found},
                  "snapshots": snapshots}
        payload = match_payload(view, task.competition, task.event)
        return forecast_record(task, forecaster=self.id, version=self.version, payload=payload, inputs=inputs,
                               forecaster_type=ForecasterType.MARKET, requested_at=requested)
