import pytest
"""The counting blocks of ``benchmarks/bootstrap_floor.py`` count every product and change no number."""

import sys
from pathlib import Path

import numpy as np
import orjson
from factories import archive_from_records, synthetic_records

from builder.score.scoring import score_archive

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import bootstrap_floor


def test_a_counted_product_is_the_plain_product_and_counts_2mkn_operations():
    rng = np.random.default_rng(1)
    left, right = rng.random((6, 5)), rng.random((5, 3))
    bootstrap_floor.FLOPS.clear()
    product = (left.view(bootstrap_floor.Counted) * 2.0) @ right  # an elementwise result stays counted
    assert type(product) is np.ndarray
    assert np.array_equal(product, (left * 2.0) @ right)
    assert sum(bootstrap_floor.FLOPS.values()) == 2 * 6 * 5 * 3


@pytest.mark.slow
def test_scores_with_counting_blocks_are_the_scores_without_them_to_the_bit():
    archive = archive_from_records(synthetic_records(n_events=24, n_models=3, seed=7, knockout_from=16))
    plain = orjson.dumps(score_archive(archive).to_dict(), option=orjson.OPT_SORT_KEYS)
    bootstrap_floor.FLOPS.clear()
    bootstrap_floor.DRAWS.clear()
    with bootstrap_floor.counting_blocks():
        counted = orjson.dumps(score_archive(archive).to_dict(), option=orjson.OPT_SORT_KEYS)
    assert counted == plain
    assert bootstrap_floor.FLOPS["_t_statistics"] > 0 and bootstrap_floor.FLOPS["_sign_flip_p"] > 0  # the products are made in the computing half (builder.score.memo wraps it)
    assert len(bootstrap_floor.DRAWS) >= 1  # the whole archive's resampler drew its counts
    from builder.score import resampling
    assert resampling._float_blocks.__name__ == "_float_blocks"  # put back on leaving
    assert resampling.poisson_weights.__name__ == "poisson_weights"
