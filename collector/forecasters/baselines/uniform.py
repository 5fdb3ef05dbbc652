"""``uniform``: 1/3 each for home win, draw and away win; the floor every forecaster must beat.

Scores come from a neutral Poisson grid with ``RATE`` goals per side (a typical international
average), so expected goals and the most likely score (1-1) are filled like any forecast.

Questions asked before any result is known are answered exactly, not by simulation: when
every match is a coin with three equal sides, every candidate is equally likely, P = k / N
(N candidates, k picks). A Monte Carlo run would only add noise and make noise-driven picks
(Algeria as champion); the picks are the first k candidates in the question's listed order,
a declared tie-break, not a view. Once results are known the seeded simulation is used.
"""

from __future__ import annotations

from collector.records import Choice, QuestionForecast

from .base import BaselineForecaster, Source
from .common import MatchView, forecast_record
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

    def forecast_now(self, task):
        if task.question is not None and task.event is None and not task.history:
            return self._equal_chances(task)
        return super().forecast_now(task)

    def _equal_chances(self, task):
        question = task.question
        share = round(question.k / len(question.candidates), 6)
        picks = tuple(question.candidates[: question.k])
        payload = QuestionForecast(
            question_id=question.id, prediction_type=question.prediction_type.value, k=question.k,
            choices=tuple(Choice(team=t, probability=share, rank=r, is_final_pick=t in picks)
                          for r, t in enumerate(question.candidates, start=1)),
            final_picks=picks, confidence=share,
            reasoning_summary=(f"Uniform reference: all {len(question.candidates)} candidates equally likely "
                               f"(k/N = {share:.4f} each); the picks are the first {question.k} in the question's "
                               "listed order, a tie-break, not a view."),
        )
        return forecast_record(task, forecaster=self.id, version=self.version, payload=payload,
                               inputs={"data": "none", "method": "equal chances, k/N"},
                               forecaster_type=self.type)
