"""``uniform``: 1/3 each for home win, draw and away win; the floor every forecaster must beat.

Scores come from a neutral Poisson grid with ``RATE`` goals per side (a typical international
average), so expected goals and the most likely score (1-1) are filled like any forecast.
"""

from __future__ import annotations

from .base import BaselineForecaster, Source
from .common import MatchView
from .scoregrid import score_grid

RATE = 1.3


class UniformForecaster(BaselineForecaster):
    name = "uniform"

    def view(self, source: Source, fit: None, home: str, away: str, edge: int) -> MatchView:
        return MatchView(
            grid=score_grid(RATE, RATE),
            rate_home=RATE,
            rate_away=RATE,
            probs_90=(1 / 3, 1 / 3, 1 / 3),
            reason=f"Uniform reference: 1/3 each; scores from a Poisson({RATE}) grid per side. Uses no data.",
            inputs={"data": "none"},
        )

    def prepared(self, task) -> tuple[None, None]:
        return None, None  # uses no data at all
