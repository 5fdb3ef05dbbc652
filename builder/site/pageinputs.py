"""What a page is made of, named before its model is built: the inputs of :class:`~builder.site.pagecache.Deferred` pages.

Records enter by archive path and the SHA-256 of their bytes (``Archive.sha256``, taken by the
load), so an unchanged file costs a dict lookup; what the scoring stage computed for a page
enters as the values the page shows (the formatted measures, the fine-grained task scores,
the leakage flags). Whatever else a page prints (its round label, the repository's address,
the replay flag) enters as the value itself. The templates and site code are in every key
(:func:`builder.site.pagecache.templates_fingerprint`).

Exactness is the contract: a page whose inputs are equal renders to equal bytes. The test over
replay ticks (``tests/test_site_incremental.py``) builds with and without the cache and
compares every file; an input left out here shows up there as a stale page.
"""

from __future__ import annotations

from collections.abc import Callable

from builder.site.fine_grained_view import _rows_by_path
from builder.site.sitectx import SiteContext
from collector.records import Event, Forecast, MatchForecast


def record_input(ctx: SiteContext, key: tuple[str, ...]) -> tuple[str, str] | None:
    """(path, SHA-256) of the effective record of ``key`` (``identity`` form), or None if there is none."""
    path = ctx.archive.effective_paths.get(key)
    return None if path is None else (path, ctx.archive.sha256.get(path, ""))


def _file(ctx: SiteContext, record) -> tuple[str, str]:
    path = ctx.record_path(record)
    return path, ctx.archive.sha256.get(path, "")


def forecast_inputs(ctx: SiteContext, forecast: Forecast, scored: Callable[[Forecast], tuple]) -> str:
    """One forecast card: its record, the commit that added it, its generation stats, its scores and flags.

    One ``repr`` of builtins (strings, floats, dicts, tuples, None): exact for them (a float's
    repr round-trips, ``1``, ``1.0`` and ``True`` differ) and far cheaper than walking each value.
    """
    path = ctx.record_path(forecast)
    payload = forecast.payload
    fine = None  # the fine-grained section reads its row's task and layer scores, for such forecasts only
    if isinstance(payload, MatchForecast) and payload.fine_grained is not None:
        row = _rows_by_path(ctx.scores).get(path)
        fine = None if row is None else (row.fine_tasks, row.layers)
    return repr((path, ctx.archive.sha256.get(path, ""), ctx.added.get(path, ""),
                 tuple(_file(ctx, s) for s in ctx.archive.attempt_statistics.get(path, ())),
                 scored(forecast), tuple(ctx.scores.leakage.get(path, ())), fine))


def match_inputs(ctx: SiteContext, event: Event, forecasts: list[Forecast], scored: Callable[[Forecast], tuple],
                 round_text: str) -> tuple:
    """Everything :func:`builder.site.matches.match_page` reads for ``event`` (``scored``:
    :func:`builder.site.measures.measure_inputs`)."""
    cid, eid = event.competition_id, event.id
    return ("match", ctx.replay, ctx.repository_url, round_text,
            record_input(ctx, ("competition", cid)), record_input(ctx, ("event", cid, eid)),
            record_input(ctx, ("outcome", cid, eid)), record_input(ctx, ("match_report", cid, eid)),
            tuple(_file(ctx, s) for s in ctx.odds_snapshots(cid, eid)),
            "\x1e".join(forecast_inputs(ctx, f, scored) for f in forecasts))
