"""Slices of the leaderboard: which parts of an archive get their own leaderboard, and their scores.

A slice is one competition (or all) x one stage (or all): the whole archive first, then each
competition (when there are several) and each stage with events (when there are several).
``score_slices`` is called once per build, after ``score_archive``; the site receives its
result and never scores anything itself. Every slice's numbers are those ``score_archive``
gives on that part of the archive alone (``slice_archive``), computed from the build's scored
rows by ``builder.score.scoring.score_part`` rather than by scoring every forecast again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from builder.score import market
from builder.score.blas import one_blas_thread
from builder.score.columns import RowTable
from builder.score.scoring import score_part
from builder.score.t5_layer import T5Layer, t5_layer
from builder.score.types import ALL, Scores, Slice
from collector.archive.memory import paused_garbage_collector
from collector.archive.reader import Archive
from collector.records import Forecast


def slice_filter(archive: Archive, competition: str, stage: str) -> Callable[[str, str], bool]:
    """Whether the event (competition id, event id) belongs to the slice."""
    def keep(cid: str, eid: str) -> bool:
        if competition != ALL and cid != competition:
            return False
        event = archive.events.get((cid, eid))
        return stage == ALL or (event is not None and event.stage == stage)

    return keep


def slice_archive(archive: Archive, competition: str, stage: str) -> Archive:
    """The part of ``archive`` one slice covers (events, outcomes and their forecasts)."""
    keep = slice_filter(archive, competition, stage)
    return replace(
        archive,
        events={k: v for k, v in archive.events.items() if keep(*k)},
        outcomes={k: v for k, v in archive.outcomes.items() if keep(*k)},
        forecasts=[
            f for f in archive.forecasts
            if (f.target_kind == "match" and keep(f.competition_id, f.target_id))
            or (f.target_kind == "question" and stage == ALL and competition in (ALL, f.competition_id))
        ],
        problems=[],
    )


def slices(archive: Archive) -> list[Slice]:
    """(all, all) first; then each competition (if several) and each stage with events."""
    comps = sorted(archive.competitions)
    wanted = [(ALL, ALL)] + [(c, ALL) for c in comps if len(comps) > 1]
    order = {st.id: (st.order, st.id) for _, comp in sorted(archive.competitions.items()) for st in comp.stages}
    for cid in [ALL] + (comps if len(comps) > 1 else []):
        events = archive.events.values() if cid == ALL else archive.events_of(cid)
        stages = sorted({e.stage for e in events}, key=lambda st: order.get(st, (99, st)))
        if len(stages) > 1:
            wanted += [(cid, s) for s in stages]
    return [
        Slice(cid, stage, ALL if cid == ALL else archive.competitions[cid].name,
              ALL if stage == ALL else _stage_name(archive, cid, stage))
        for cid, stage in wanted
    ]


def _stage_name(archive: Archive, competition: str, stage: str) -> str:
    """The stage's display name (from any competition that defines it), else its id."""
    for cid, comp in sorted(archive.competitions.items()):
        if competition in (ALL, cid):
            for s in comp.stages:
                if s.id == stage:
                    return s.name
    return stage


def score_slices(archive: Archive, scores: Scores, wanted: list[Slice] | None = None) -> dict[Slice, Scores]:
    """The scores of every slice (``wanted``, by default :func:`slices`), in slice order.

    The whole archive's slice is ``scores`` itself (the build's ``score_archive`` result, the
    ``score --json`` numbers). Every other slice reuses the build's scored rows: ``score_part``
    gets the slice's match forecasts (sorted by key, as ``score_archive`` sorts them) and its
    rows, in the build's order, with their columns taken from one ``RowTable`` of the whole and
    their market pairs from one ``market_events`` of the whole. Significance tests are run for
    whole competitions only (a slice whose stage is ``all``).
    """
    wanted = slices(archive) if wanted is None else wanted
    if all(current.whole for current in wanted):
        return {current: scores for current in wanted}
    # as score_archive: a full archive's rows and columns are no cycles to scan for; one BLAS thread
    with paused_garbage_collector(), one_blas_thread():
        return _score_slices(archive, scores, wanted)


def _score_slices(archive: Archive, scores: Scores, wanted: list[Slice]) -> dict[Slice, Scores]:
    """:func:`score_slices` of ``wanted`` (some slice is not the whole archive)."""
    match_forecasts = sorted((f for f in archive.forecasts if f.target_kind == "match"), key=Forecast.key)
    table = RowTable.of(scores.forecasts)  # once; each part takes its rows from it
    priced = market.table_market_events(table)  # once; each part keeps its events' entries
    t5 = scores.t5 if scores.t5 is not None else t5_layer(archive)  # once; each part's cells take their tournaments' T5
    return {current: scores if current.whole else _score_slice(archive, current, match_forecasts, table, priced, t5)
            for current in wanted}


def _score_slice(archive: Archive, current: Slice, match_forecasts: list[Forecast], table: RowTable,
                 priced: dict, t5: T5Layer) -> Scores:
    """One slice's scores from the whole archive's match forecasts (sorted by key), rows as a
    table and market pairs (``market.table_market_events`` of the table)."""
    keep = slice_filter(archive, current.competition, current.stage)
    kept = np.array([keep(*event) for event in table.events], dtype=bool).reshape(-1)  # per event code
    part = table.take(np.flatnonzero(kept[table.event]))
    targets = [(f.competition_id, f.target_id) for f in match_forecasts]
    chosen = {target for target in set(targets) if keep(*target)}  # ``keep`` once per event, not per forecast
    events = {event for event, k in zip(table.events, kept.tolist(), strict=True) if k}
    return score_part(archive, [f for f, t in zip(match_forecasts, targets, strict=True) if t in chosen], part.rows,
                      inference_tests=current.stage == ALL, table=part, market_rows=market.events_within(priced, events),
                      t5=t5)
