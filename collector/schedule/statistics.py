"""A tick step: fetch OpenRouter's generation stats for LLM forecasts and write attempt statistics.

For every live or replayed LLM forecast of the last ``LOOKBACK`` whose answered attempts have
no statistics record yet (this tick's and those a previous tick could not get: the endpoint
answers 404 for a few seconds after a call), ask ``GET /generation?id=`` through the tick's client
(:meth:`~collector.forecasters.llm.openrouter.OpenRouterClient.generation_stats`) and write one
:class:`~collector.records.AttemptStatistics` per generation. The client keeps the stats it already
got this tick (the forecaster's search look-up of an open-book answer without server-tool counts),
so such a generation is written from that answer, not fetched twice. What the stats bill beyond the
recorded ``usage.cost`` is added to the tick's spending (the cap counts it). At most
``MAX_PER_TICK`` look-ups a tick, as many in flight as the tick's concurrency; a failure is a
problem, never a lost record.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from collector.archive.layout import path_for
from collector.archive.write.writer import RecordExistsError
from collector.errors import Problem
from collector.forecasters.llm.generation import (
    extra_cost,
    pending_generations,
    statistics_record,
)
from collector.records import ForecasterType

LOOKBACK = timedelta(days=2)
MAX_PER_TICK = 400


async def fetch_statistics(tick, client) -> int:
    """Write the statistics records that are due; returns how many were written."""
    known = {s.generation_id for stats in tick.archive.attempt_statistics.values() for s in stats}
    since = tick.now - LOOKBACK
    todo = []
    for forecast in tick.archive.forecasts:
        if forecast.forecaster_type is ForecasterType.LLM and forecast.recorded_at >= since:
            todo += [(forecast, i, gen) for i, gen in pending_generations(forecast, known)]
    results = await asyncio.gather(*(_one(tick, client, f, i, g) for f, i, g in todo[:MAX_PER_TICK]))
    return sum(results)


async def _one(tick, client, forecast, index: int, gen: str) -> int:
    """One generation's statistics (``tick.gate`` bounds the look-ups in flight); 1 when written."""
    async with tick.gate:
        if tick.timer() >= tick.stop:
            return 0
        status, payload = await client.generation_stats(gen, deadline=tick.stop)
    if status == 404:
        return 0  # not queryable yet: a later tick asks again
    path = path_for(forecast)
    record = statistics_record(
        payload, forecast=forecast, forecast_path=path, attempt_index=index, generation_id=gen,
        recorded_at=tick.timer(), clock=tick.clock,
    ) if status == 200 else None  # fmt: skip
    if record is None:
        message = f"generation stats for {gen}: HTTP {status}, not the documented data object"
        tick.report.problems.append(Problem(path, message))
        return 0
    try:
        await asyncio.to_thread(tick.writer.write, record)  # fsync off the loop
    except RecordExistsError:
        return 0
    tick.budget.add(extra_cost(record, forecast))
    return 1
