"""Page models of binary market events (Prophet Arena): an index with the scores, one page per contract.

The index lists every registered contract (its rule, close, latest market price and resolved
value) and the scores per forecaster x condition x horizon from the scoring stage
(``scores.binary_summary``): N, Brier, log loss, ECE, and the return per unit at the quoted
price, risk-neutral and CRRA side by side, with the price used stated. A contract's page
shows each forecast: its condition (with or without the price in the prompt), P(Yes), the
market's ask and bid read at that moment beside it, and, once resolved, its Brier and returns.
LLM text (the reason) reaches the templates as plain strings; the templates escape it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from builder.site.fmt import number
from builder.site.labels import horizon_label
from builder.site.links import kickoff
from builder.site.models import Kickoff, Meta
from builder.site.render import declare
from builder.site.sitectx import SiteContext
from collector.records import BinaryEvent, BinaryForecast, BinaryResolution

INDEX = "questions/markets.html"
PRICE_USED = ("Return per unit staked at the quoted price: a Yes share bought at the ask, a No share at "
              "1 − bid (no bid: no No side, the stake is kept). Risk-neutral: buy the side whose probability "
              "beats its price, else abstain (return 1). CRRA γ = 0.5: the budget split by the optimal Yes share. "
              "1 is break-even.")
CONDITIONS = {"with_price": "with price", "no_price": "without price", "price": "market price"}
RULES = {"champion": "wins the final", "reaches": "plays the {stage}", "match_result": "{event}: {result} after 90'",
         "total_goals_over": "{event}: more than {line} goals after 90'"}
RESULTS = {"home": "home win", "draw": "draw", "away": "away win"}


@dataclass(frozen=True)
class BinaryEventRow:
    href: str
    competition: str
    label: str
    rule: str
    closes: Kickoff
    price: str  # the latest Yes ask read
    value: str | None  # Yes / No once resolved
    forecasts: int


@dataclass(frozen=True)
class BinaryForecastRow:
    forecaster: str
    condition: str
    horizon: str
    requested: str
    probability: str
    ask: str
    bid: str
    status: str
    brier: str
    return_risk_neutral: str
    return_crra: str
    reason: str
    record: str  # link to the record's JSON


@declare
@dataclass(frozen=True)
class BinaryEventsPage:
    TEMPLATE: ClassVar[str] = "binary_events.html"
    path: str
    meta: Meta
    events: tuple[BinaryEventRow, ...]
    score_headers: tuple[str, ...]
    score_rows: tuple[tuple[str, ...], ...]
    price_used: str


@declare
@dataclass(frozen=True)
class BinaryEventPage:
    TEMPLATE: ClassVar[str] = "binary_event.html"
    path: str
    meta: Meta
    competition: str
    label: str
    rule: str
    market: str
    closes: Kickoff
    value: str | None
    forecasts: tuple[BinaryForecastRow, ...]
    price_used: str


def event_path(event: BinaryEvent) -> str:
    return f"questions/markets/{event.competition_id}/{event.id}.html"


def rule_label(event: BinaryEvent, names: dict[str, str], matches: dict[str, object]) -> str:
    r = event.rule
    match = matches.get(r.event_id) if r.event_id else None
    game = (f"{names.get(match.home_team, match.home_team)} v {names.get(match.away_team, match.away_team)}"
            if match is not None else r.event_id)
    text = RULES[r.kind].format(stage=r.stage, event=game, result=RESULTS.get(r.result or "", r.result), line=r.line)
    return f"{names.get(r.team, r.team)} {text}" if r.team else text


def _closes(event: BinaryEvent):
    return kickoff(event.closes_at, event.closes_at.strftime("%Y-%m-%d %H:%M UTC"))


def _yes_no(resolution: BinaryResolution | None) -> str | None:
    return None if resolution is None else ("Yes" if resolution.value else "No")


def _forecast_row(f: BinaryForecast, scored: dict, record: str) -> BinaryForecastRow:
    """One forecast's row; ``record``: the link to its raw JSON (``SiteContext.record_href``)."""
    row = scored.get((f.event_id, f.forecaster, f.condition, f.horizon.value))
    quote = f.quote
    return BinaryForecastRow(
        forecaster=f.forecaster, condition=CONDITIONS[f.condition], horizon=horizon_label(f.horizon.value),
        requested=f.requested_at.strftime("%Y-%m-%d %H:%M UTC") if f.requested_at else "–",
        probability=number(f.probability), ask=number(quote.ask if quote else None),
        bid=number(quote.bid if quote else None), status=f.status.value,
        brier=number(row.brier if row else None),
        return_risk_neutral=number(row.return_risk_neutral if row else None),
        return_crra=number(row.return_crra if row else None), reason=f.reason or "", record=record,
    )  # fmt: skip


def score_table(summary) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    headers = ("Forecaster", "Condition", "Horizon", "N", "Brier", "log loss", "ECE", "Return (risk-neutral)",
               "Return (CRRA γ 0.5)", "Sharpe")
    rows = tuple((s.forecaster, CONDITIONS.get(s.condition, s.condition), horizon_label(s.horizon),
                  f"{s.n}/{s.n_asked}" if s.n != s.n_asked else str(s.n), number(s.brier, 4), number(s.log_loss, 4),
                  number(s.ece, 3), number(s.return_risk_neutral), number(s.return_crra), number(s.sharpe))
                 for s in summary)
    return headers, rows


def binary_event_pages(ctx: SiteContext) -> list:
    records = ctx.archive.records
    events = sorted((r for r in records.values() if isinstance(r, BinaryEvent)), key=lambda r: (r.competition_id, r.id))
    if not events:
        return []
    forecasts: dict[tuple[str, str], list[BinaryForecast]] = {}
    resolutions: dict[tuple[str, str], BinaryResolution] = {}
    for r in records.values():
        if isinstance(r, BinaryForecast):
            forecasts.setdefault((r.competition_id, r.event_id), []).append(r)
        elif isinstance(r, BinaryResolution):
            resolutions[(r.competition_id, r.event_id)] = r
    scored = {(b.event_id, b.forecaster, b.condition, b.horizon): b for b in ctx.scores.binary}
    pages, rows, matches_of = [], [], {}
    for event in events:
        key = (event.competition_id, event.id)
        competition = ctx.archive.competitions.get(event.competition_id)
        names = ctx.team_names(event.competition_id) if competition else {}
        mine = sorted(forecasts.get(key, []), key=lambda f: (f.requested_at or f.recorded_at, f.forecaster, f.condition))
        path = event_path(event)
        meta = ctx.meta(event.label, path, "questions")
        if event.competition_id not in matches_of:
            matches_of[event.competition_id] = {e.id: e for e in ctx.archive.events_of(event.competition_id)}
        matches = matches_of[event.competition_id]
        rule, value = rule_label(event, names, matches), _yes_no(resolutions.get(key))
        pages.append(BinaryEventPage(
            path=path, meta=meta, competition=competition.name if competition else event.competition_id,
            label=event.label, rule=rule, market=f"{event.source}: {event.market}", closes=_closes(event), value=value,
            forecasts=tuple(_forecast_row(f, scored, ctx.record_href(ctx.record_path(f), meta.root)) for f in mine),
            price_used=PRICE_USED))
        latest = next((f.quote for f in reversed(mine) if f.quote), None)
        rows.append(BinaryEventRow(
            href=path.removeprefix("questions/"), competition=competition.name if competition else event.competition_id,
            label=event.label, rule=rule, closes=_closes(event), price=number(latest.ask if latest else None),
            value=value, forecasts=len(mine)))
    headers, score_rows = score_table(ctx.scores.binary_summary)
    pages.append(BinaryEventsPage(path=INDEX, meta=ctx.meta("Binary market events", INDEX, "questions"),
                                  events=tuple(rows), score_headers=headers, score_rows=score_rows,
                                  price_used=PRICE_USED))
    return pages
