"""The stratified Poisson bootstrap's 95% intervals cover the true mean at the nominal rate, and as
the stratified multinomial match bootstrap (LLM-SoccerArena's, the scheme it replaced) does, on
panels like the papers' (``tests/coverage_panels.py``); its hashed sign flips reject a true null
at their level.

Monte Carlo error: over N independent panels the number of intervals that cover is binomial,
so an estimated coverage has standard error sigma = sqrt(0.95 x 0.05 / N); both coverages must
lie within 3 sigma of 0.95 and within 3 sigma of each other (for N = 500, 3 sigma = 0.029).
The panels and every draw are seeded: the test gives the same numbers at every run.
``benchmarks/resampling_coverage.py`` runs the same simulation with many more panels."""

from __future__ import annotations

import numpy as np
from coverage_panels import EVENTS, coverage
import pytest

from builder.score.resampling import MULTINOMIAL, POISSON, Resampler

NOMINAL = 0.95
PANELS = 500
REPLICATES = 1000  # the interval's quantiles from 1,000 replicates: the coverage, not the last digit


def _three_sigma(p: float, n: int) -> float:
    return 3 * np.sqrt(p * (1 - p) / n)


@pytest.mark.slow
def test_poisson_intervals_cover_at_the_nominal_rate_and_as_the_multinomial_ones():
    found = coverage("papers", PANELS, REPLICATES, {"poisson": (POISSON, True), "multinomial": (MULTINOMIAL, True)})
    poisson, multinomial = found["poisson"][0].mean(), found["multinomial"][0].mean()
    bound = _three_sigma(NOMINAL, PANELS)
    assert abs(poisson - NOMINAL) <= bound, (poisson, bound)
    assert abs(multinomial - NOMINAL) <= bound, (multinomial, bound)
    assert abs(poisson - multinomial) <= bound, (poisson, multinomial, bound)
    # the same kind of interval: widths within a few percent of each other on every panel's average
    assert abs(found["poisson"][1].mean() / found["multinomial"][1].mean() - 1) < 0.05


def test_sign_flip_tests_reject_a_true_null_at_their_level():
    """Paired Brier differences of two exchangeable forecasters (each states the true
    probabilities plus its own noise of one law): symmetric about 0, the sign-flip null."""
    columns, alpha = 2000, 0.05
    rng = np.random.default_rng(8)
    q = rng.dirichlet((2.7, 1.6, 1.7), size=(len(EVENTS), columns))
    result = (rng.random((len(EVENTS), columns))[..., None] > np.cumsum(q, axis=2)[..., :2]).sum(axis=2)
    hit = np.eye(3)[result]

    def brier() -> np.ndarray:
        stated = q * np.exp(rng.normal(0, 0.3, size=q.shape))
        stated /= stated.sum(axis=2, keepdims=True)
        return ((stated - hit) ** 2).sum(axis=2)

    differences = brier() - brier()
    resampler = Resampler.for_events(EVENTS, replicates=0, permutations=2000)
    rejected = (resampler.sign_flip_p(differences) <= alpha).mean()
    assert abs(rejected - alpha) <= _three_sigma(alpha, columns), rejected
