"""The tick's odds step: snapshots at each horizon and at kickoff, and the market's closing forecast.

For every followed competition, every scheduled match and every horizon window open at ``now``
(the arena's T-24h and T-2h windows, and ``closing``: the last ``[odds] closing_minutes``
before kickoff) that has no snapshot yet from a configured source, the step asks the source
once per tick (all matches of a competition in one call where the source allows it) and
writes one ``odds_snapshot`` per event x horizon x source. It runs before the forecasts, so
the ``market`` forecaster of a horizon reads the snapshot of that horizon (``task.odds``); at
``closing``, which no other forecaster answers, this step also writes the market forecaster's
record. A live tick asks the live endpoints; a replay asks the historical ones at ``now``.

A source call that fails is a problem of the tick (and asked again at the next tick while the
window is open), and so is a source that raises: the tick goes on to its forecasts and
manifest. Every source's quotes are checked alike (:func:`collector.sources.odds_base.implausible`)
and its payload sanitised as decoded values; a match the source does not price gets no snapshot
(the market's record of that horizon is then ``missed``, with the reason).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta

from collector.archive.layout import odds_path, path_for
from collector.archive.reader import Archive
from collector.config import ArenaConfig
from collector.config_sections import ODDS_SOURCES
from collector.errors import ArchiveError, ConfigError, Problem, RecordExistsError
from collector.forecasters.tasks import ScheduledTask
from collector.records import (
    Clock,
    Event,
    EventStatus,
    ForecasterType,
    Horizon,
    OddsSnapshot,
)
from collector.redaction import sanitised_value
from collector.schedule.scheduler import event_windows
from collector.sources.odds_base import OddsBatch, OddsSource, keep_plausible

CLOSING_TICK_LEAD = timedelta(minutes=1)


@dataclass(frozen=True)
class OddsDue:
    event: Event
    horizon: Horizon
    closes: datetime


def odds_windows(config: ArenaConfig, event: Event) -> list[tuple[Horizon, datetime, datetime]]:
    """(horizon, opens, closes) of the event's odds windows: the arena's match horizons and closing."""
    kickoff = event.kickoff_utc
    out = [(w.horizon, w.opens, w.closes) for w in event_windows(config, event, None)
           if w.horizon in (Horizon.T_MINUS_24H, Horizon.T_MINUS_2H)]
    out.append((Horizon.CLOSING, kickoff - timedelta(minutes=config.odds.closing_minutes), kickoff))
    return out


def due_snapshots(archive: Archive, config: ArenaConfig, cid: str, source: str, now: datetime) -> list[OddsDue]:
    """The event x horizon pairs of ``cid`` whose odds window is open at ``now`` with no snapshot from ``source``."""
    due = []
    for event in archive.events_of(cid):
        if event.status is not EventStatus.SCHEDULED or event.kickoff_utc is None or event.kickoff_utc <= now:
            continue
        for horizon, opens, closes in odds_windows(config, event):
            if opens <= now < closes and odds_path(cid, event.id, source, horizon.value) not in archive.records:
                due.append(OddsDue(event, horizon, closes))
    return due


def snapshots_for(archive: Archive, cid: str, event_id: str, horizon: Horizon) -> tuple[OddsSnapshot, ...]:
    """The event's odds snapshots of one horizon, every source (what the market forecaster reads).

    Looked up by path, never by iterating ``archive.records``: the tick builds tasks while its
    writes (in threads) add records to that dict, and a scan would be O(records) per task.
    """
    found = (archive.records.get(odds_path(cid, event_id, source, horizon.value)) for source in ODDS_SOURCES)
    return tuple(r for r in found if isinstance(r, OddsSnapshot))


def keyless(config: ArenaConfig) -> set[str]:
    """The configured sources that need a key the environment does not hold (``[odds] without_key``)."""
    from collector.sources.odds_api import KEY_ENV

    missing = {"the-odds-api"} if not os.environ.get(KEY_ENV, "").strip() else set()
    return missing & set(config.odds.sources)


def active_sources(config: ArenaConfig) -> list[str]:
    """The configured sources a tick asks: all of them, less those ``[odds] without_key = "skip"`` leaves out."""
    skipped = keyless(config) if config.odds.without_key == "skip" else set()
    return [name for name in config.odds.sources if name not in skipped]


def build_sources(config: ArenaConfig, cid: str, clock) -> tuple[list[OddsSource], list[Problem]]:
    """The configured odds sources for one competition (a missing key or sport key is a problem; with
    ``[odds] without_key = "skip"`` a source without its key is left out)."""
    from collector.sources.football_data_couk import FootballDataCsvSource
    from collector.sources.kalshi import KalshiSource
    from collector.sources.odds_api import OddsApiSource
    from collector.sources.polymarket import PolymarketSource

    sources, problems = [], []
    settings = config.odds
    for name in active_sources(config):
        try:
            if name == "the-odds-api":
                sport = settings.sport_keys.get(cid)
                if not sport:
                    raise ConfigError(f"[odds] sport_keys has no The Odds API sport key for {cid}")
                sources.append(OddsApiSource.from_env(sport, regions=settings.regions, clock=clock))
            elif name == "polymarket":
                sources.append(PolymarketSource.from_env(slugs=settings.polymarket_slugs, clock=clock))
            elif name == "kalshi":
                sources.append(KalshiSource.from_env(events=settings.kalshi_events, clock=clock))
            elif name == "football-data-co-uk":
                sources.append(FootballDataCsvSource(settings.files, clock=clock))
        except ConfigError as exc:
            problems.append(Problem(config.source_path, f"odds source {name}: {exc}"))
    return sources, problems


def next_closing_tick(config: ArenaConfig, archive: Archive, after: datetime) -> datetime | None:
    """A replay's next tick inside a closing window: one minute before the next kickoff after ``after``."""
    if not active_sources(config):
        return None
    times = [e.kickoff_utc - CLOSING_TICK_LEAD for cid in config.competitions for e in archive.events_of(cid)
             if e.status is EventStatus.SCHEDULED and e.kickoff_utc is not None
             and e.kickoff_utc - CLOSING_TICK_LEAD > after]
    return min(times, default=None)


def snapshot_record(batch: OddsBatch, due: OddsDue, cid: str, clock: Clock, recorded_at: datetime) -> OddsSnapshot | None:
    """The snapshot of one event x horizon from one source's batch (None if the source did not price it)."""
    odds = batch.for_event(due.event)
    if odds is None or not odds.quotes:
        return None
    return OddsSnapshot(
        clock=clock, recorded_at=recorded_at, competition_id=cid, event_id=due.event.id, horizon=due.horizon,
        source=batch.source, endpoint=batch.endpoint, retrieved_at=batch.retrieved_at, snapshot_at=batch.snapshot_at,
        kickoff_utc=due.event.kickoff_utc, quotes=tuple(odds.quotes), payload=sanitised_value(odds.payload),
        credits=batch.credits,
        problems=tuple(odds.problems),
    )  # fmt: skip


async def collect_odds(tick, forecasters) -> int:
    """Write the due odds snapshots of every followed competition, then the market's closing records."""
    written = 0
    if not tick.config.odds.sources:
        return 0
    if tick.config.odds.without_key == "skip":
        tick.report.notes += [f"odds source {name} off: its key is not in the environment" for name in
                              sorted(keyless(tick.config))]  # fmt: skip
    if not active_sources(tick.config):
        return 0
    for cid in tick.config.competitions:
        if cid not in tick.archive.competitions:
            continue
        sources, problems = build_sources(tick.config, cid, tick.timer)
        tick.report.problems += problems
        for source in sources:
            try:
                written += await _one_source(tick, cid, source)
            except Exception as exc:  # noqa: BLE001 - one source's failure must not stop the tick (or its manifest)
                tick.report.problems.append(Problem(f"{source.name} {cid}", f"failed: {type(exc).__name__}: {exc}"))
            finally:
                await source.aclose()
        written += _closing_forecasts(tick, cid, forecasters)
    return written


async def _one_source(tick, cid: str, source: OddsSource) -> int:
    due = due_snapshots(tick.archive, tick.config, cid, source.name, tick.now)
    if not due:
        return 0
    competition = tick.archive.competitions[cid]
    at = tick.now if tick.clock is Clock.REPLAY else None
    batch = await source.fetch_odds(competition, [d.event for d in due], at)
    tick.report.problems += batch.problems
    for odds in batch.events:  # every source's quotes checked alike: prices offered, overround, times
        keep_plausible(odds, batch.retrieved_at, source.name)
    written = 0
    for item in due:
        priced = batch.for_event(item.event)
        if priced is not None and not priced.quotes and priced.problems:  # found, but no usable price
            tick.report.problems.append(Problem(f"{source.name} {cid}/{item.event.id}", "; ".join(priced.problems)))
        record = snapshot_record(batch, item, cid, tick.clock, tick.timer())
        if record is not None and record.retrieved_at < item.event.kickoff_utc and _write(tick, record):
            written += 1
    return written


def _closing_forecasts(tick, cid: str, forecasters) -> int:
    """The market forecasters' ``closing`` records, from the closing snapshots just written."""
    written = 0
    markets = [f for f in forecasters if getattr(f, "type", None) is ForecasterType.MARKET and hasattr(f, "usable")]
    for event in tick.archive.events_of(cid):
        odds = snapshots_for(tick.archive, cid, event.id, Horizon.CLOSING)
        if not odds or event.kickoff_utc is None or event.kickoff_utc <= tick.now:
            continue
        for forecaster in markets:
            for access, strategy in forecaster.conditions:
                task = ScheduledTask(
                    competition=tick.archive.competitions[cid], access=access, strategy=strategy,
                    horizon=Horizon.CLOSING, sample=0, scheduled_at=event.kickoff_utc - timedelta(
                        minutes=tick.config.odds.closing_minutes), now=tick.timer(), deadline=event.kickoff_utc,
                    clock=tick.clock, event=event, odds=odds, window_closes=event.kickoff_utc,
                )  # fmt: skip
                record = forecaster.forecast_now(task)
                if path_for(record) not in tick.archive.records and _write(tick, record):
                    written += 1
    return written


def _write(tick, record) -> bool:
    try:
        tick.writer.write(record)
    except RecordExistsError:
        return False
    except ArchiveError as exc:  # a secret, too large, a linked folder: reported, never written
        tick.report.problems.append(Problem(path_for(record), str(exc)))
        return False
    return True
