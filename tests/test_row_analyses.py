"""score_archive's row analyses (difficulty, robustness, test families, diversity) made where its
``rows_scored`` hook says: in place, or elsewhere and handed back (as a forked child hands them
back, pickled), with the same values either way."""

from __future__ import annotations

import pickle

import pytest

from builder.score.inference import resampler_for
from builder.score.row_analyses import RowAnalyses, row_analyses
from builder.score.scoring import score_archive
from tests.factories import archive_from_records, synthetic_records


def _archive():
    return archive_from_records(synthetic_records(n_events=14, n_models=3, seed=7, knockout_from=9))


def _analyses(scores) -> str:
    """The row analyses and tests of ``scores`` as text (repr keeps NaN and every float's digits)."""
    return repr((scores.difficulty, scores.robustness, scores.diversity, scores.tests))


@pytest.mark.slow
def test_the_hook_gets_the_final_rows_and_the_work_and_its_result_is_used():
    archive = _archive()
    plain = score_archive(archive)
    calls = []

    def elsewhere(rows, t5, work):
        calls.append((rows, t5, work))
        return lambda: pickle.loads(pickle.dumps(work()))  # handed back as a child hands it back

    hooked = score_archive(archive, rows_scored=elsewhere)
    assert len(calls) == 1 and calls[0][0] is hooked.forecasts and len(hooked.forecasts) > 0
    assert calls[0][1] is hooked.t5  # the archive's T5 layer, made once, handed to the slices and tables
    assert _analyses(hooked) == _analyses(plain)
    assert hooked.difficulty and hooked.robustness and hooked.diversity
    assert any(t.family.startswith(("ensemble/", "stage/")) for t in hooked.tests)  # the child's families joined


@pytest.mark.slow
def test_a_hook_that_returns_none_has_the_analyses_made_in_place():
    archive = _archive()
    asked = []
    scores = score_archive(archive, rows_scored=lambda rows, t5, work: asked.append(rows) and None)
    assert asked and _analyses(scores) == _analyses(score_archive(archive))


def test_the_result_handed_back_is_what_the_work_makes():
    archive = _archive()
    rows = score_archive(archive).forecasts
    made = row_analyses(rows, resampler_for(rows))
    assert isinstance(made, RowAnalyses)
    assert repr(pickle.loads(pickle.dumps(made))) == repr(made)


def test_without_inference_tests_no_robustness_tests_or_intervals_are_made():
    archive = _archive()
    scores = score_archive(archive, inference_tests=False, rows_scored=lambda rows, t5, work: work)
    assert scores.robustness == [] and scores.tests == []
    assert scores.difficulty and scores.diversity
    assert all(row.low is None and row.high is None for row in scores.difficulty)
