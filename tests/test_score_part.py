"""Slices of the leaderboard (builder.score.slices, score_part) give the numbers score_archive gives on that slice alone."""

from __future__ import annotations

from dataclasses import asdict, replace

import pytest

from builder.score.scoring import score_archive, score_part
from builder.score.slices import score_slices, slice_archive, slice_filter, slices
from builder.score.types import ALL
from collector.records import Forecast
from tests.factories import synthetic_archive


def _slice_inputs(archive, scores, competition, stage):
    keep = slice_filter(archive, competition, stage)
    forecasts = sorted((f for f in archive.forecasts if f.target_kind == "match"), key=Forecast.key)
    return ([f for f in forecasts if keep(f.competition_id, f.target_id)],
            [r for r in scores.forecasts if keep(r.competition_id, r.event_id)])


@pytest.mark.slow
def test_score_part_matches_score_archive_on_the_sliced_archive():
    archive = synthetic_archive(n_events=14, n_models=3, knockout_from=9)
    scores = score_archive(archive, inference_tests=False)
    stages = sorted({e.stage for e in archive.events.values()})
    assert len(stages) > 1
    for competition, stage in [(ALL, s) for s in stages] + [(next(iter(archive.competitions)), ALL)]:
        forecasts, rows = _slice_inputs(archive, scores, competition, stage)
        tests = stage == ALL
        part = score_part(archive, forecasts, rows, inference_tests=tests)
        alone = score_archive(slice_archive(archive, competition, stage), inference_tests=tests)
        assert part.forecasts == alone.forecasts
        assert part.matched and part.matched == alone.matched
        assert part.ensemble == alone.ensemble
        assert part.tests == alone.tests
        assert part.notes == alone.notes
        # the all view: same rows; its intervals are left out because the page shows the matched view
        assert [replace(r, intervals={}) for r in part.leaderboard] == [replace(r, intervals={}) for r in alone.leaderboard]
        assert all(not r.intervals for r in part.leaderboard)
        assert any(r.intervals for r in alone.leaderboard)


def test_score_part_of_the_whole_archive_has_the_build_matched_view_and_ensemble():
    archive = synthetic_archive(n_events=6, n_models=2, knockout_from=4)
    scores = score_archive(archive, inference_tests=False)
    forecasts, rows = _slice_inputs(archive, scores, ALL, ALL)
    part = score_part(archive, forecasts, rows, inference_tests=False)
    assert part.matched and [asdict(r) for r in part.matched] == [asdict(r) for r in scores.matched]
    assert [asdict(r) for r in part.ensemble] == [asdict(r) for r in scores.ensemble]
    assert score_part(archive, forecasts, [], inference_tests=False).matched == []


@pytest.mark.slow
def test_score_slices_gives_every_slice_the_scores_of_its_part_of_the_archive():
    archive = synthetic_archive(n_events=14, n_models=3, knockout_from=9)
    scores = score_archive(archive, inference_tests=False)
    found = score_slices(archive, scores)
    assert list(found) == slices(archive) and len(found) > 1
    whole, *parts = found
    assert whole.whole and found[whole] is scores  # the build's own scores, not a second scoring
    for current in parts:
        alone = score_archive(slice_archive(archive, current.competition, current.stage),
                              inference_tests=current.stage == ALL)
        assert found[current].forecasts == alone.forecasts
        assert found[current].matched == alone.matched
        assert found[current].ensemble == alone.ensemble
        assert found[current].tests == alone.tests
