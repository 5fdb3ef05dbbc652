"""Scoring's matrix products run on one BLAS thread (builder.score.blas), whatever the caller set,
and the caller's setting is given back: the numbers do not depend on the machine's core count."""

from __future__ import annotations

import pytest
from factories import synthetic_records, write_records
from threadpoolctl import threadpool_info, threadpool_limits

from builder.score.blas import blas_threads, one_blas_thread
from builder.score.memo import BootstrapMemo, remembering
from builder.score.paper_tables import paper_tables
from builder.score.scoring import score_archive
from builder.score.slices import score_slices
from collector.archive.reader import load_archive

needs_blas = pytest.mark.skipif(not any(i.get("user_api") == "blas" for i in threadpool_info()),
                                reason="numpy's BLAS is not one threadpoolctl can limit")


class Watching(BootstrapMemo):
    """A memo noting the BLAS threads in effect at each bootstrap computation it is asked for."""

    def __init__(self):
        super().__init__()
        self.threads: list[int] = []

    def result(self, key, compute, shapes):
        self.threads.append(blas_threads())
        return super().result(key, compute, shapes)


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    root = tmp_path_factory.mktemp("blas") / "archive"
    write_records(root, synthetic_records(n_events=14, n_models=2, seed=5, knockout_from=9))
    return load_archive(root)


@pytest.mark.slow
@needs_blas
def test_scoring_the_slices_and_the_paper_tables_run_on_one_blas_thread(archive):
    memo = Watching()
    with threadpool_limits(limits=3, user_api="blas"), remembering(memo):
        assert blas_threads() == 3
        scores = score_archive(archive)
        whole = len(memo.threads)
        score_slices(archive, scores)
        sliced = len(memo.threads)
        paper_tables(scores.forecasts)
        assert blas_threads() == 3  # the caller's setting, given back
    assert 0 < whole < sliced < len(memo.threads)  # each of the three asked for bootstrap results
    assert set(memo.threads) == {1}


@pytest.mark.slow
@needs_blas
def test_the_limit_is_given_back_when_scoring_fails(archive, monkeypatch):
    import builder.score.scoring as scoring

    def broken(*args, **kwargs):
        assert blas_threads() == 1
        raise RuntimeError("a measure that cannot be computed")

    monkeypatch.setattr(scoring, "score_match_forecasts", broken)
    with threadpool_limits(limits=2, user_api="blas"):
        with pytest.raises(RuntimeError, match="cannot be computed"):
            score_archive(archive)
        assert blas_threads() == 2


@needs_blas
def test_nested_limits_give_back_each_callers_setting():
    with threadpool_limits(limits=3, user_api="blas"):
        with one_blas_thread():
            with one_blas_thread():
                assert blas_threads() == 1
            assert blas_threads() == 1  # the outer scoring call's limit, not the caller's 3
        assert blas_threads() == 3
