"""The whole archive's analyses that need only its scored rows: made wherever the build has a core free.

Difficulty-adjusted Brier, the robustness analyses, the ensemble and stage test families and
the forecasters' diversity read nothing but the scored rows, their resampler and the analysis
options. :func:`row_analyses` makes them, a pure function of those, so that
:func:`builder.score.scoring.score_archive` can hand the work to its ``rows_scored`` hook
(:data:`RowsScored`): the build runs it in the forked child that scores the leaderboard slices
(:mod:`builder.score.slicework`) while this process makes the boards, the other tests and the
operational rates; called alone, ``score_archive`` runs it in place. Either way the same
function of the same inputs on one BLAS thread: the same floats (``tests/test_build_parallel.py``
compares the sites' bytes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from builder.score import difficulty, diversity, families, robustness
from builder.score.blas import one_blas_thread
from builder.score.options import LSA_DEFAULTS, AnalysisOptions
from builder.score.types import ScoredForecast


@dataclass(frozen=True)
class RowAnalyses:
    """The whole archive's analyses that need nothing but its scored rows, their resampler and
    the options: a pure function of them (:func:`row_analyses`), so the build may make them in
    a forked child while this process makes the boards, tests and operational rates."""

    difficulty: list
    robustness: list
    family_tests: list
    diversity: list


def row_analyses(rows: list[ScoredForecast], resampler, options: AnalysisOptions = LSA_DEFAULTS,
                 inference_tests: bool = True) -> RowAnalyses:
    """Difficulty-adjusted Brier (:mod:`builder.score.difficulty`; its intervals only with
    ``inference_tests``), LLM-SoccerArena's App. C.3 robustness analyses and App. B.5 ensemble
    and stage test families (both only with ``inference_tests`` and a resampler, else empty)
    and the forecasters' diversity (App. C.2)."""
    tested = inference_tests and resampler is not None
    with one_blas_thread():  # as in score_archive, wherever this runs (a forked child included)
        return RowAnalyses(
            difficulty=difficulty.difficulty_rows(rows, resampler if inference_tests else None),
            robustness=robustness.robustness(rows, resampler) if tested else [],
            family_tests=families.family_tests(rows, resampler) if tested else [],
            diversity=diversity.diversity_rows(rows, options),
        )


RowsScored = Callable[[list[ScoredForecast], Any, Callable[[], "RowAnalyses"]], Callable[[], "RowAnalyses"] | None]
"""The hook ``score_archive`` calls once the rows exist: given the rows, the archive's T5 layer
(``builder.score.t5_layer.T5Layer``, for the slices and paper tables made elsewhere) and the work of
:func:`row_analyses` on them (a call with no arguments), it returns how to get that work's
result when it runs it elsewhere (a forked child: :mod:`builder.score.slicework`), or None to
have it run here."""
