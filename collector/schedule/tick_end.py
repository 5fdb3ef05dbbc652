"""How a tick ends: its manifest, its RFC 3161 tokens, and which failures turn the run red.

Split from :mod:`collector.schedule.tick` (the conductor) so each reads on its own; the steps
receive the tick's :class:`~collector.schedule.tick_context.TickContext`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from collector.archive.write.manifest import unlisted, write_tick_manifest
from collector.audit.tsa_client import stamp_manifests
from collector.errors import ArchiveError, Problem
from collector.forecasters.llm.protocol import arena_protocol_sha256
from collector.records import Clock, ForecasterType
from collector.schedule.cron import last_fire
from collector.schedule.tick_context import TickContext
from collector.schedule.tick_report import TickReport


def write_manifest(tick: TickContext, schedule: str | None) -> None:
    """The tick's manifest: its own files and the files of earlier ticks no manifest lists (adopted).

    Stamped when the tick ends, so two ticks at one ``now`` never collide. A manifest that cannot
    be written (a full disk) is one problem; the files stay for the next tick to adopt.
    """
    orphans = unlisted(tick.archive, tick.writer.written)
    try:
        tick.report.manifest = write_tick_manifest(
            tick.writer, tick.timer(), tick.clock, schedule_fields(schedule, tick.now),
            arena_protocol_sha256(tick.config), lock_path=tick.locks.folder / "manifest.lock", orphans=orphans)
    except ArchiveError as exc:
        tick.report.problems.append(Problem("manifests", str(exc)))
        return
    if tick.report.manifest is not None:
        tick.report.adopted = len(tick.archive.records[tick.report.manifest].adopted)


def schedule_fields(schedule: str | None, now: datetime) -> dict[str, Any] | None:
    """The manifest's record of a scheduled run: the cron, its last firing at or before ``now``, the delay."""
    if not schedule:
        return None
    fired = last_fire(schedule, now)
    delay = round((now - fired).total_seconds(), 3) if fired is not None else None
    return {"schedule": schedule, "scheduled_at": fired, "schedule_delay_s": delay}


async def stamp_tick(tick: TickContext) -> None:
    """RFC 3161 tokens for this tick's manifest and any earlier one still missing a token.

    Live ticks only (an authority stamps the real time, not a replay's). Bounded by
    ``[timestamps] timeout_s``; an authority that fails is reported in the summary, not as a
    problem, and asked again at the next tick: the tick never waits on it or fails for it.
    """
    settings = tick.config.timestamps
    if tick.clock is not Clock.LIVE:
        return
    if not settings.authorities:
        tick.report.notes.append("no time-stamping authority is configured ([timestamps] authorities in "
                                 "prematch.toml): this manifest gets no RFC 3161 token, its time rests on git alone")
        return
    with tick.report.phase("timestamps"):
        tick.report.stamps = await stamp_manifests(tick.writer.root, settings)
    tick.report.written += tick.report.stamps.written


def llm_failures(report: TickReport, forecasters: Sequence) -> list[Problem]:
    """Problems that turn the run red: a provider that stopped the tick (401, 402), or every LLM call failed."""
    problems, seen = [], set()
    for forecaster in forecasters:
        client = getattr(forecaster, "client", None)
        reason = getattr(client, "stopped", None)
        if reason and id(client) not in seen:
            seen.add(id(client))
            source = forecaster.id if getattr(forecaster, "type", None) is ForecasterType.ENDPOINT else "openrouter"
            problems.append(Problem(source, reason))
    if report.llm_records and report.llm_failed == report.llm_records and not problems:
        problems.append(Problem("openrouter", f"all {report.llm_records} LLM forecast(s) of this tick failed "
                                              "(api_error or timeout); is the provider down or the base URL wrong?"))
    return problems
