"""Simulated tournaments for the coverage of the bootstrap's intervals (``tests/test_resampling_coverage.py``,
``benchmarks/resampling_coverage.py``).

A panel is the papers' design: 72 group-stage and 32 knockout matches (the 2026 World Cup's
104, WorldCupArena's panel), one Brier score per match. Each match has true H/D/A
probabilities q ~ Dirichlet(alpha) of its stratum, a calibrated forecaster states q, and the
result is drawn from q: the match's Brier sum_c (q_c - o_c)^2 is bounded (0-2) and right-skewed
(a favourite's win scores little, an upset much), as real Brier scores are. Its expectation is
known in closed form, E[1 - sum_c q_c^2] = 1 - sum_c alpha_c (alpha_c + 1) / (a0 (a0 + 1)),
a0 = sum_c alpha_c, so the panel's true mean is the strata's expectations weighted by their
fixed numbers of matches: the target of a stratified bootstrap interval.
"""

from __future__ import annotations

import numpy as np

from builder.score.resampling import Resampler

GROUP, KNOCKOUT = 72, 32
SCENARIOS = {
    "papers": ((2.7, 1.6, 1.7), (2.0, 1.9, 2.1)),
    "strata apart": ((5.0, 1.0, 1.0), (1.6, 1.6, 1.6)),
}
"""Dirichlet alphas (home, draw, away) of the group stage and the knockouts. "papers": home
favourites in the group stage, closer knockouts (expected Brier 0.554 and 0.571); "strata
apart": strong favourites in the group stage, balanced knockouts (0.393 and 0.552), where an
unstratified bootstrap's intervals widen by the strata's difference."""

EVENTS = {("sim", f"g{i:03d}"): False for i in range(GROUP)} | {("sim", f"k{i:03d}"): True for i in range(KNOCKOUT)}


def expected_brier(alpha: tuple[float, ...]) -> float:
    a = np.asarray(alpha, dtype=float)
    return float(1 - (a * (a + 1)).sum() / (a.sum() * (a.sum() + 1)))


def true_mean(scenario: str) -> float:
    group, knockout = SCENARIOS[scenario]
    return (GROUP * expected_brier(group) + KNOCKOUT * expected_brier(knockout)) / (GROUP + KNOCKOUT)


def panel(rng: np.random.Generator, scenario: str) -> dict[tuple[str, str], float]:
    """One simulated tournament: each match's Brier score, by event."""
    group, knockout = SCENARIOS[scenario]
    q = np.vstack([rng.dirichlet(group, GROUP), rng.dirichlet(knockout, KNOCKOUT)])
    result = (rng.random(len(q))[:, None] > np.cumsum(q, axis=1)[:, :2]).sum(axis=1)
    brier = ((q - np.eye(3)[result]) ** 2).sum(axis=1)
    return dict(zip(EVENTS, brier.tolist(), strict=True))


def intervals(values: dict[tuple[str, str], float], scheme: str, seed: int, replicates: int,
              stratified: bool = True) -> tuple[float, float]:
    """The studentized 95% interval of the panel's mean by ``scheme`` drawn from ``seed``
    (``stratified=False``: the Poisson counts scaled as one stratum, for comparison)."""
    resampler = Resampler.for_events(EVENTS, seed=seed, replicates=replicates, permutations=0, scheme=scheme)
    if not stratified:
        resampler = Resampler(resampler.events, resampler.draws, resampler.flips)
    column = np.array([[values[e]] for e in resampler.events])
    low, high = resampler.studentized_intervals(column)
    return float(low[0]), float(high[0])


def coverage(scenario: str, panels: int, replicates: int, schemes: dict[str, tuple[str, bool]],
             seed: int = 1) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per named (scheme, stratified): whether each panel's interval covers the true mean, and
    its width. Every method sees the same panels; panel i's draws come from seed i."""
    rng, truth = np.random.default_rng(seed), true_mean(scenario)
    found: dict[str, list[tuple[bool, float]]] = {name: [] for name in schemes}
    for i in range(panels):
        values = panel(rng, scenario)
        for name, (scheme, stratified) in schemes.items():
            low, high = intervals(values, scheme, i, replicates, stratified)
            found[name].append((low <= truth <= high, high - low))
    return {name: (np.array([c for c, _ in rows]), np.array([w for _, w in rows])) for name, rows in found.items()}
