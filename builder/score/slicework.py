"""The leaderboard slices, the analysis page's paper tables and the row analyses, made beside the whole archive's scoring.

All three need only the archive and the scored rows (``Scores.forecasts``, with their
resampler for the row analyses), which :func:`~builder.score.scoring.score_archive` makes
first; the rest of its work (the whole archive's boards, tests, calibration, operations)
needs none of them. So when the build may use two processes, :meth:`SliceWork.start`
(score_archive's ``rows_scored`` hook) forks a child (:class:`builder.parallel.Background`)
as soon as the rows exist: it makes the whole archive's row analyses
(:func:`builder.score.row_analyses.row_analyses`: difficulty, robustness, the ensemble and
stage test families, diversity), which score_archive waits for at its end, then scores the
slices (:func:`builder.score.slices.score_slices`) and the paper tables
(:func:`builder.score.paper_tables.paper_tables`) while this process finishes the whole
archive's scores, and :meth:`SliceWork.finish` collects them, instead of doing all of it one
after the other.

What comes back through the pipe is small (no scored row, no record): the row
analyses (their rows hold names and numbers, no scored row), each slice's scores with the
positions of its rows among the whole's rows in place of the rows (put back here, the same
objects as a serial build's), the tables, and what the child's lookups added to the
bootstrap memo (:mod:`builder.score.memo`), taken into this build's memo so that the next
build finds those results. The values are those a serial build makes: the same deterministic
functions of the same rows, and pickling keeps every float to the bit
(``tests/test_build_parallel.py`` compares the sites' bytes).

Serially (one worker, or a cold build over :data:`builder.site.build.CHILD_RECORDS` records,
whose memory the child's copy-on-write pages would push over its aim) score_archive makes the
row analyses itself, the slices are scored here after the whole archive and the analysis page
makes its tables, as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial

import numpy as np

from builder.parallel import Background
from builder.score.memo import MemoDelta, active_memo
from builder.score.paper_tables import PaperTable, paper_tables
from builder.score.row_analyses import RowAnalyses
from builder.score.slices import score_slices
from builder.score.t5_layer import T5Layer
from builder.score.types import ScoredForecast, Scores, Slice
from collector.archive.reader import Archive

ANNOUNCE = "  in a background process meanwhile: the row analyses, the leaderboard slices and the paper tables"


class SliceWork:
    """The slices (``wanted``) of ``archive`` and its paper tables: in a child when ``parallel``."""

    def __init__(self, archive: Archive, wanted: list[Slice], parallel: bool,
                 progress: Callable[[str], None] = print):
        self.archive, self.wanted, self.parallel, self.progress = archive, wanted, parallel, progress
        self.background: Background | None = None
        self.waited = 0.0  # seconds scoring waited for the child's row analyses

    def start(self, rows: list[ScoredForecast], t5: T5Layer,
              analyses: Callable[[], RowAnalyses]) -> Callable[[], RowAnalyses] | None:
        """Fork the child (when ``parallel``) that makes ``analyses`` (the whole archive's
        :func:`~builder.score.row_analyses.row_analyses`, first: scoring waits for them), then the
        slices and the tables from ``rows``; return how to get the analyses, or None (serially:
        score_archive makes them). score_archive's ``rows_scored`` hook."""
        if not self.parallel or self.background is not None:
            return None
        whole = Scores(archive=str(self.archive.root), competition_id=None, forecasts=rows, t5=t5)
        self.background = Background([("analyses", partial(_noted, analyses)),
                                      ("slices", partial(_noted, _parts, self.archive, whole, self.wanted)),
                                      ("paper", partial(_noted, _tables, t5, rows))], parallel=True)
        self.progress(ANNOUNCE)
        return self._analyses

    def _analyses(self) -> RowAnalyses:
        """The child's row analyses, waited for (the wait is reported with the rest by :meth:`finish`)."""
        start = time.perf_counter()
        try:
            return _taken(self.background.result("analyses"))
        finally:
            self.waited += time.perf_counter() - start

    def finish(self, scores: Scores) -> tuple[dict[Slice, Scores], tuple[PaperTable, ...] | None]:
        """Every slice's scores (in slice order, the whole archive's being ``scores``) and the paper
        tables (None when the analysis page is to make them): the child's, waited for, or made now."""
        if self.background is None:
            return score_slices(self.archive, scores, self.wanted), None
        start = time.perf_counter()
        try:
            parts, paper = _taken(self.background.result("slices")), _taken(self.background.result("paper"))
        finally:
            self.background.close()
        seconds = sum(self.background.seconds.values())
        self.progress(f"  the slices (with the row analyses and paper tables) were made in the background process "
                      f"in {seconds:.1f}s (waited {self.waited:.1f}s for the analyses, "
                      f"{time.perf_counter() - start:.1f}s for the rest)")
        rows = scores.forecasts
        found = {current: scores if current.whole else replace(parts[current], forecasts=[
            rows[i] for i in parts[current].forecasts.tolist()]) for current in self.wanted}
        return found, paper

    def __enter__(self) -> SliceWork:
        return self

    def __exit__(self, *exc) -> None:
        if self.background is not None:
            self.background.close()


def _parts(archive: Archive, whole: Scores, wanted: list[Slice]) -> dict[Slice, Scores]:
    """Each slice but the whole archive's, its rows given as their positions in ``whole``'s rows
    (an int array: the rows stay in the parent)."""
    position = {id(row): i for i, row in enumerate(whole.forecasts)}
    return {current: replace(found, forecasts=np.array([position[id(row)] for row in found.forecasts], dtype=np.intp))
            for current, found in score_slices(archive, whole, wanted).items() if not current.whole}


def _tables(t5: T5Layer, rows: list[ScoredForecast]) -> tuple[PaperTable, ...]:
    """The analysis page's paper tables (none without rows, as the page shows none)."""
    return tuple(paper_tables(rows, t5=t5)) if rows else ()


def _noted(task: Callable, *args) -> tuple[object, MemoDelta | None]:
    """``task(*args)`` and what it added to the active bootstrap memo (None without one)."""
    memo = active_memo()
    before = memo.mark() if memo is not None else None
    value = task(*args)
    return value, memo.delta(before) if memo is not None else None


def _taken(found: tuple[object, MemoDelta | None]):
    """A task's value, its memo additions taken into this build's memo."""
    value, delta = found
    memo = active_memo()
    if memo is not None and delta is not None:
        memo.absorb(delta)
    return value
