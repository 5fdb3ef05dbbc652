"""The odds snapshot record: every bookmaker's or market's quotes for one event at one horizon.

At each forecast horizon of a match (T-24h, T-2h) and at kickoff (``closing``) the tick asks
each configured odds source for the match's prices and writes one record per
event x horizon x source, before any forecast of that horizon is made:

    {competition}/events/{event}/odds/{source}/{horizon}.json

It keeps the quotes as received (decimal odds per outcome, each bookmaker's own update
time; for prediction markets the price paid for a Yes share, its bid and ask), when they were
retrieved, the source's payload for the event verbatim and the credits the call cost. The
file is written once and never changed: the ``market`` forecaster of that horizon reads it,
``verify`` checks it was committed before kickoff. A source that had no prices for the
event still gets a record (empty ``quotes``, the reason in ``problems``), so a missing market
is visible rather than silent.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue

from .base import Contract, Probability, Record, Slug, UtcDatetime
from .forecast import Horizon

DecimalOdds = Annotated[float, Field(gt=1.0, le=10_000.0, allow_inf_nan=False)]


class OutcomePrice(Contract):
    """One outcome's price: decimal odds (the stake's payout per unit), as quoted."""

    outcome: Annotated[str, Field(min_length=1, max_length=200)] = Field(
        description="home, draw or away for a 1X2 market; yes for a binary contract")
    odds: DecimalOdds = Field(description="decimal odds you would be paid at (a market's ask: 1 / ask)")
    ask: Probability | None = Field(default=None, description="prediction markets: the price of a share (0-1)")
    bid: Probability | None = None
    name: str | None = Field(default=None, description="the outcome's name at the source (a team, 'Draw', a token)")


class BookQuote(Contract):
    """One bookmaker's (or prediction market's) prices for one market of the event."""

    bookmaker: Annotated[str, Field(min_length=1, max_length=120)]
    market: Annotated[str, Field(min_length=1, max_length=120)] = Field(
        default="h2h", description="h2h (1X2), or a binary contract's id at the source")
    last_update: UtcDatetime | None = Field(default=None, description="the bookmaker's own time of these prices")
    prices: tuple[OutcomePrice, ...] = Field(min_length=1)
    fee_rate: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] = Field(
        default=0.0, description="a trading fee charged on top of the price (Kalshi), as a rate")


MAX_CREDITS = 10**12  # far above any plan's credits; a header beyond it is not a count


class Credits(Contract):
    """What the call cost at a metered source (The Odds API's x-requests-* headers)."""

    last: Annotated[int, Field(ge=0, le=MAX_CREDITS)] | None = Field(default=None, description="x-requests-last: this call's cost")
    used: Annotated[int, Field(ge=0, le=MAX_CREDITS)] | None = Field(default=None, description="x-requests-used")
    remaining: Annotated[int, Field(ge=0, le=MAX_CREDITS)] | None = Field(default=None, description="x-requests-remaining")


class OddsSnapshot(Record):
    kind: Literal["odds_snapshot"] = "odds_snapshot"
    competition_id: Slug
    event_id: Slug
    horizon: Horizon
    source: Slug = Field(description="the-odds-api, polymarket, kalshi, football-data-co-uk")
    endpoint: str = Field(description="what was asked (path and parameters, never a key)")
    retrieved_at: UtcDatetime = Field(description="when the source answered")
    snapshot_at: UtcDatetime | None = Field(
        default=None, description="the source's own snapshot time (The Odds API historical `timestamp`)")
    kickoff_utc: UtcDatetime
    quotes: tuple[BookQuote, ...] = ()
    payload: JsonValue = Field(default=None, description="the source's payload for this event, verbatim")
    credits: Credits | None = None
    problems: tuple[str, ...] = Field(default=(), description="quotes the source sent that could not be used, and why")
