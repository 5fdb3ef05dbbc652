"""``ensemble``: the equal-weight average of member baselines (default: elo and dixon_coles).

Probabilities are averaged (a linear pool); the score grid is the equal mixture of the
members' grids, so expected goals and the most likely score come from the same mixture.
``uniform`` and ``base_rate`` are left out by default: they ignore who plays, and on the
pre-2026 tuning tournaments (benchmarks/tune_international.py) mixing them in only hurt.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from collector.forecasters.tasks import ForecastTask

from .base import BaselineForecaster, Source, source_for
from .common import MatchView
from .dixon_coles import DixonColesForecaster
from .elo import EloForecaster

DEFAULT_MEMBERS: tuple[type[BaselineForecaster], ...] = (EloForecaster, DixonColesForecaster)


class EnsembleForecaster(BaselineForecaster):
    name = "ensemble"

    def __init__(self, data_dir=None, *, members: tuple[BaselineForecaster, ...] = (), **kwargs: Any):
        super().__init__(data_dir, **kwargs)
        if not members:
            members = tuple(member(data_dir) for member in DEFAULT_MEMBERS)
        self.members = members

    def prepared(self, task: ForecastTask) -> tuple[Source, Any]:
        source = source_for(task, self.data_dir, self._sources)
        return source, [member.prepared(task) for member in self.members]

    def view(self, source: Source, fit: list, home: str, away: str, edge: int) -> MatchView:
        views = [m.view(s, f, home, away, edge) for m, (s, f) in zip(self.members, fit, strict=True)]
        probs = np.mean([v.outcome() for v in views], axis=0)
        return MatchView(
            grid=np.mean([v.grid for v in views], axis=0),
            rate_home=float(np.mean([v.rate_home for v in views])),
            rate_away=float(np.mean([v.rate_away for v in views])),
            probs_90=(float(probs[0]), float(probs[1]), float(probs[2])),
            reason="Equal-weight average of " + ", ".join(m.id for m in self.members) + ".",
            inputs={"members": {m.id: v.inputs for m, v in zip(self.members, views, strict=True)}},
        )
