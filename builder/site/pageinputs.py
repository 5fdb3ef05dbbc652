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


def record_input(ctx: SiteContext, key: tuple[str, ...]) -> tuple[str, str, str] | None:
    """(path, SHA-256, host link) of the effective record of ``key`` (``identity`` form), or None if
    there is none. The host link (:meth:`SiteContext.host_link`, '' for a copy beside the site) is
    where the page links the record's raw JSON: it changes when git no longer vouches for the
    bytes at their adding commit even if the bytes are the same again."""
    path = ctx.archive.effective_paths.get(key)
    return None if path is None else (path, ctx.archive.sha256.get(path, ""), ctx.host_link(path))


def _file(ctx: SiteContext, record) -> tuple[str, str]:
    path = ctx.record_path(record)
    return path, ctx.archive.sha256.get(path, "")


def card_inputs(ctx: SiteContext, scored: Callable[[Forecast], tuple]) -> Callable[[Forecast], str]:
    """A function from a forecast to what its card is made of: its record, the commit that added
    it, where its raw JSON and its evidence package's are linked, its generation stats, its
    scores and flags (``scored``: :func:`builder.site.measures.measure_inputs`).

    One ``repr`` of builtins (strings, floats, dicts, tuples, None) per card: exact for them (a
    float's repr round-trips, ``1``, ``1.0`` and ``True`` differ) and far cheaper than walking
    each value. The lookups are bound once: this runs for every forecast at every build.
    """
    sha256, added, stats = ctx.archive.sha256.get, ctx.added.get, ctx.archive.attempt_statistics.get
    leakage, rows, path_of = ctx.scores.leakage.get, _rows_by_path(ctx.scores), ctx.record_path
    host = ctx.host_link

    def inputs(forecast: Forecast) -> str:
        path = path_of(forecast)
        payload = forecast.payload
        fine = None  # the fine-grained section reads its row's task and layer scores, for such forecasts only
        if isinstance(payload, MatchForecast) and payload.fine_grained is not None:
            row = rows.get(path)
            fine = None if row is None else (row.fine_tasks, row.layers)
        evidence = forecast.evidence.path if forecast.evidence else None  # the card links the package's raw JSON
        return repr((path, sha256(path, ""), added(path, ""), host(path), evidence and host(evidence),
                     tuple(_file(ctx, s) for s in stats(path, ())), scored(forecast), tuple(leakage(path, ())), fine))

    return inputs


def match_inputs(ctx: SiteContext, event: Event, forecasts: list[Forecast], cards: Callable[[Forecast], str],
                 round_text: str) -> tuple:
    """Everything :func:`builder.site.matches.match_page` reads for ``event`` (``cards``: :func:`card_inputs`)."""
    cid, eid = event.competition_id, event.id
    return ("match", ctx.replay, ctx.demo, ctx.repository_url, round_text,
            record_input(ctx, ("competition", cid)), record_input(ctx, ("event", cid, eid)),
            record_input(ctx, ("outcome", cid, eid)), record_input(ctx, ("match_report", cid, eid)),
            tuple(_file(ctx, s) for s in ctx.odds_snapshots(cid, eid)),
            "\x1e".join(map(cards, forecasts)))
