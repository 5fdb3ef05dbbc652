"""The inference tests and robustness checks scored in a forked child (``score_archive(background=True)``):
the same scores and the same bootstrap memo as scoring them in the one process, a failure that
fails the scoring, and no child left behind."""

from __future__ import annotations

import os

import pytest
from children import no_child_left
from factories import synthetic_records, write_records

import builder.score.scoring as scoring
from builder.parallel import WORKERS_ENV, BackgroundError
from builder.score.memo import BootstrapMemo, remembering
from builder.score.scoring import score_archive
from collector.archive.reader import load_archive

needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                                reason="no os.fork or one core: scoring runs serially")


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    root = tmp_path_factory.mktemp("scored") / "archive"
    write_records(root, synthetic_records(n_events=16, n_models=3, seed=5, knockout_from=10))
    return load_archive(root)


def _scored(archive, memo: BootstrapMemo, background: bool) -> str:
    with remembering(memo):
        scores = score_archive(archive, background=background)
    assert scores.tests and scores.robustness is not None  # the work that may run in the child was done
    return repr(scores)  # every field, NaN included (repr of nan is 'nan')


def _memo_state(memo: BootstrapMemo) -> tuple:
    return (memo.reused, memo.computed, {key: [a.tobytes() for a in arrays] for key, arrays in memo.used.items()})


@needs_fork
def test_scores_and_memo_are_the_same_with_the_inference_in_a_child(archive, monkeypatch, tmp_path):
    monkeypatch.setenv(WORKERS_ENV, "2")
    pids = tmp_path / "pids"
    real = scoring._inference

    def noted(*args):
        with open(pids, "a") as handle:
            handle.write(f"{os.getpid()}\n")
        return real(*args)

    monkeypatch.setattr(scoring, "_inference", noted)
    serial, child = BootstrapMemo(), BootstrapMemo()
    assert _scored(archive, serial, False) == _scored(archive, child, True)
    assert pids.read_text().split()[0] == str(os.getpid()) and pids.read_text().split()[1] != str(os.getpid())
    assert child.computed > 0 and _memo_state(serial) == _memo_state(child)  # the child's results came back
    again = BootstrapMemo(kept=child.used)  # the next build, from the memo the child filled
    assert _scored(archive, again, True) == _scored(archive, BootstrapMemo(), False)
    assert again.computed == 0 and again.reused == child.computed + child.reused
    assert no_child_left()


@needs_fork
def test_a_failure_in_the_child_fails_the_scoring_and_leaves_no_child(archive, monkeypatch):
    monkeypatch.setenv(WORKERS_ENV, "2")

    def broken(*_args):
        raise ValueError("a test's own failure")

    monkeypatch.setattr(scoring, "_inference", broken)
    with pytest.raises(BackgroundError, match="a test's own failure"):
        score_archive(archive, background=True)
    assert no_child_left()


def test_without_background_everything_is_scored_in_this_process(archive, monkeypatch):
    seen: list[int] = []
    real = scoring._inference
    monkeypatch.setattr(scoring, "_inference", lambda *a: seen.append(os.getpid()) or real(*a))
    _scored(archive, BootstrapMemo(), False)
    assert seen == [os.getpid()] and no_child_left()
