"""The tick's evidence step: write every package a due ``evidence_package`` forecast needs, first.

Called by :func:`collector.schedule.tick._forecasts` after planning and before any forecast is
requested. The package of (event, horizon) locks when this step starts, after the tick's sync
and odds step and before any request of the tick (so it can hold the odds snapshot of its own
horizon, and no request of the horizon can start before the lock), gathers its news digest with the configured gatherer through the
tick's OpenRouter client (the spending cap counts its cost), and is written to the archive; a
package that cannot be built is a problem, and its forecasts are not requested (fail closed).
"""

from __future__ import annotations

from datetime import datetime

from collector.evidence.news import gather_news
from collector.evidence.package import ensure_packages
from collector.records import Access


async def prepare_evidence(tick, due, client) -> int:
    """Packages for the due slots under ``evidence_package`` into ``tick.evidence``; returns how many were written."""
    closes: dict[tuple, datetime] = {}
    for s in due:
        if s.access is Access.EVIDENCE_PACKAGE and s.target_kind == "match":
            key = (s.competition_id, s.target_id, s.horizon)
            closes[key] = min(closes.get(key, s.closes), s.closes, s.deadline, tick.stop)
    if not closes:
        return 0
    news = None
    if tick.config.evidence.gatherer is not None and client is not None:
        async def news(competition, event, horizon, lock):
            deadline = closes[(competition.id, event.id, horizon)]
            return await gather_news(tick.config, client, tick.budget, competition, event, lock, deadline, tick.timer)
    before = len(tick.writer.written)
    packages, problems = await ensure_packages(
        tick.writer, tick.archive, closes, lock=tick.timer(), settings=tick.config.evidence, data_dir=tick.data_dir,
        clock=tick.clock, timer=tick.timer, news=news, gate=tick.gate,
    )  # fmt: skip
    tick.evidence.update(packages)
    tick.report.problems += problems
    return len(tick.writer.written) - before
