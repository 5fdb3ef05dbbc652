"""The tick's binary-market step: register contracts, ask the LLMs with and without the price, resolve.

For each registered :class:`~collector.records.BinaryEvent` and each arena horizon
(T-24h, T-2h before its ``closes_at``, the same windows as a match's) open at ``now``, the
step reads the contract's market price once (Polymarket, through :mod:`collector.http`) and
asks every LLM forecaster under both conditions, ``with_price`` and ``no_price``; both records
carry the price read at that moment (the price their return buys at). A price that cannot be
read is a problem of the tick and nothing is asked (both conditions are asked at the same
moment or not at all; the next tick inside the window tries again). Resolutions are written
once the deciding outcome is recorded.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from collector.archive.layout import path_for
from collector.config import OFFSETS, ArenaConfig
from collector.errors import ArchiveError, Problem, RecordExistsError
from collector.fixtures.market_events import (
    binary_events,
    register_binary_events,
    resolve_binary_events,
)
from collector.http import ServiceCallFailed
from collector.records import BinaryEvent, BinaryQuote, Clock, ForecasterType, Horizon

CONDITIONS = ("with_price", "no_price")


def binary_windows(config: ArenaConfig, event: BinaryEvent) -> list[tuple[Horizon, datetime, datetime]]:
    """(horizon, opens, closes) before the contract's close: the arena's T-24h and T-2h windows."""
    out = []
    for horizon in config.horizons:
        if horizon in OFFSETS:
            opens = event.closes_at - OFFSETS[horizon]
            width: timedelta = getattr(config.windows, horizon.value).width()
            out.append((horizon, opens, min(opens + width, event.closes_at)))
    return out


def forecast_path(event: BinaryEvent, forecaster: str, condition: str, horizon: Horizon) -> str:
    return f"{event.competition_id}/markets/{event.id}/forecasts/{forecaster}/{condition}.{horizon.value}.json"


async def read_quote(event: BinaryEvent, at: datetime | None, clock) -> BinaryQuote:
    """The contract's Yes price now (or at ``at`` in a replay); ValueError / ServiceCallFailed otherwise."""
    from collector.sources.polymarket import PolymarketSource, contract_quote

    source = PolymarketSource.from_env(clock=clock)
    try:
        price, endpoint, _ = await contract_quote(source, event.market, at)
    finally:
        await source.aclose()
    return BinaryQuote(ask=price.ask, bid=price.bid, retrieved_at=clock(), endpoint=endpoint)


async def collect_binary(tick, forecasters) -> int:
    """Register the configured contracts and ask the due ones; returns the number of records written."""
    config = tick.config
    if not config.markets.binary:
        return 0
    written, problems = register_binary_events(tick.writer, tick.archive, config, now=tick.now, clock=tick.clock)
    tick.report.problems += problems
    count = len(written)
    llms = [f for f in forecasters if getattr(f, "type", None) is ForecasterType.LLM and hasattr(f, "client")]
    for event in binary_events(tick.archive):
        for horizon, opens, closes in binary_windows(config, event):
            if opens <= tick.now < closes:
                count += await _ask_window(tick, event, horizon, llms)
    return count


def resolve_binary(tick) -> int:
    """The resolutions the outcomes known at ``now`` decide (after the tick's outcome sync)."""
    if not tick.config.markets.binary:
        return 0
    resolved, problems = resolve_binary_events(tick.writer, tick.archive, now=tick.now, clock=tick.clock)
    tick.report.problems += problems
    return len(resolved)


async def _ask_window(tick, event: BinaryEvent, horizon: Horizon, llms) -> int:
    from collector.forecasters.llm.binary import ask_binary, rule_text

    due = [(f, c) for f in llms for c in CONDITIONS
           if forecast_path(event, f.id, c, horizon) not in tick.archive.records]
    if not due:
        return 0
    at = tick.now if tick.clock is Clock.REPLAY else None
    try:
        quote = await read_quote(event, at, tick.timer)
    except (ServiceCallFailed, ValueError) as exc:
        tick.report.problems.append(Problem(f"{event.competition_id}/markets/{event.id}", f"price: {exc}"))
        return 0
    match = next((e for e in tick.archive.events_of(event.competition_id) if e.id == event.rule.event_id), None)
    competition = tick.archive.competitions.get(event.competition_id)
    names = {t.id: t.name for t in competition.teams} if competition else {}
    rule = rule_text(event, names, match)
    written = 0
    for forecaster, condition in due:
        if forecaster.client.stopped or not forecaster.budget.allows() or tick.timer() >= event.closes_at:
            continue  # not attempted: no record, asked again while the window is open
        record = await ask_binary(forecaster, event, condition, horizon, quote, tick.timer(), tick.clock, rule)
        try:
            tick.writer.write(record)
            written += 1
        except RecordExistsError:
            continue
        except ArchiveError as exc:
            tick.report.problems.append(Problem(path_for(record), str(exc)))
    return written
