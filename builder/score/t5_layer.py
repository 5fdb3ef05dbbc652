"""T5, the competition layer of WorldCupArena's composite, per forecaster and condition.

WorldCupArena's composite weighs five layers (Table 1; eq. 2): T1-T4 are scored per match
(:mod:`builder.score.fine_grained_board`), T5 once per tournament, from the saved
full-tournament forecast (:mod:`builder.score.t5`, eq. 4). A tournament has T5 *truth* once its
first dated truth stage (the completed group stage) is known. For a leaderboard cell
(forecaster, access, strategy, horizon, clock) the T5 layer is the mean, over the tournaments
of the cell's matches that have truth, of the forecaster's T5 at the latest truth stage:

- the forecast is the pre-tournament one (horizon ``stage_opening``; a ``groups_complete``
  forecast was given the real group tables and is another track), of the same access
  condition and clock; several (samples, strategies) are averaged;
- a tournament with truth and no such forecast of the forecaster counts 0 (eq. 2 skips only
  what has no truth: a layer not forecast is no free pass);
- a competition without T5 truth (a league, a tournament still in its groups) is skipped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from builder.score.t5 import real_bracket, score_stage
from collector.archive.reader import Archive
from collector.records import CompetitionFormat, Horizon, TournamentForecast


@dataclass(frozen=True)
class T5Layer:
    """Every pre-tournament forecast's T5 and which tournaments have T5 truth."""

    scores: dict[tuple[str, str, str, str], float] = field(default_factory=dict)
    """(forecaster, access, clock, competition) -> T5 (0-100) at the latest truth stage, forecasts averaged."""
    truth: frozenset[str] = frozenset()
    """The tournaments with at least one dated T5 truth stage."""

    def of_cell(self, forecaster: str, access: str, clock: str, competitions: Iterable[str]) -> tuple[float, int]:
        """The cell's T5 layer mean over its tournaments with truth (0 where it has no forecast)
        and their number; (NaN, 0) when none of ``competitions`` has T5 truth."""
        known = sorted(c for c in set(competitions) if c in self.truth)
        if not known:
            return float("nan"), 0
        values = [self.scores.get((forecaster, access, clock, c), 0.0) for c in known]
        return float(np.mean(values)), len(known)


NO_T5 = T5Layer()


def t5_layer(archive: Archive) -> T5Layer:
    """The T5 of every scorable pre-tournament cup forecast in ``archive`` (see the module docstring)."""
    found: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
    truth = set()
    for cid, competition in sorted(archive.competitions.items()):
        if competition.format is not CompetitionFormat.TOURNAMENT:
            continue
        real, stages = real_bracket(competition, archive.events_of(cid), archive.outcomes_of(cid))
        if not stages:
            continue
        truth.add(cid)
        for f in archive.forecasts_of(cid):
            if (f.target_kind == "tournament" and f.scorable and f.horizon is Horizon.STAGE_OPENING
                    and isinstance(f.payload, TournamentForecast) and f.payload.format == "cup"):
                found[(f.forecaster, f.access.value, f.clock.value, cid)].append(_latest(competition, f.payload, real,
                                                                                          stages))
    return T5Layer({key: float(np.mean(v)) for key, v in found.items()}, frozenset(truth))


def _latest(competition, payload: TournamentForecast, real, stages) -> float:
    """T5 at the latest truth stage that scores something of the forecast (0 if none does)."""
    for stage in reversed(stages):
        t5 = score_stage(competition, payload, real, stage).t5
        if t5 is not None:
            return float(t5)
    return 0.0
