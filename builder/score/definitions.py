"""Which paper's definition every measure implements, in one table the site and the tables print.

Each entry is ``name -> Definition(paper, where, text)``. Where two papers define a measure
differently, both exist under distinct names (``scoreline_90`` / ``scoreline_wca``,
``exact`` / ``exact_wca``, ``accuracy`` / ``result_wca``, ``brier`` / ``brier_pa``) and a
table states which one it shows. Papers: LSA = LLM-SoccerArena (seeds/000), WCA =
WorldCupArena (seeds/001), PA = Prophet Arena (seeds/002).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from builder.score.metrics import LOG_LOSS_FLOOR

LSA, WCA, PA, PREMATCH = "LLM-SoccerArena", "WorldCupArena", "Prophet Arena", "Prematch"


@dataclass(frozen=True)
class Definition:
    paper: str
    where: str
    text: str


MEASURE_DEFINITIONS: dict[str, Definition] = {
    "brier": Definition(LSA, "§4.1, Table 5", "unscaled three-class Brier score on the 90-minute result, in [0, 2]"),
    "log_loss": Definition(LSA, "§4.1, Table 5", "-ln p(realised 90-minute class), nats, floor 1e-6"),
    "rps": Definition(LSA, "App. E, Table 7", "ranked probability score over home < draw < away"),
    "accuracy": Definition(LSA, "§4.1, Table 5", "modal H/D/A accuracy on the 90-minute result, 1/k tie credit"),
    "exact": Definition(LSA, "Table 5", "predicted 90-minute score equals the 90-minute score"),
    "goal_difference": Definition(LSA, "Table 5", "correct signed 90-minute goal difference"),
    "tendency": Definition(LSA, "Table 5", "scoreline's H/D/A tendency equals the 90-minute result"),
    "abs_home_goals": Definition(LSA, "Table 5", "|predicted - real| home goals (90 minutes)"),
    "abs_away_goals": Definition(LSA, "Table 5", "|predicted - real| away goals (90 minutes)"),
    "abs_total_goals": Definition(LSA, "Table 5", "|predicted - real| total goals (90 minutes)"),
    "abs_goal_difference": Definition(LSA, "Table 5", "|predicted - real| goal difference (90 minutes)"),
    "points": Definition(LSA, "§4.1, Table 5", "Scoring System: 5 exact, 2 goal difference, 1 tendency, else 0"),
    "scoreline": Definition(WCA, "§4.1 eq. (1)", "the same values as scoreline_90 (kept for earlier readers)"),
    "scoreline_90": Definition(WCA, "§4.1 eq. (1)",
                               "partial credit on the 90-minute score (Prematch basis; e_team is a Prematch reading)"),
    "scoreline_wca": Definition(WCA, "§4.1 eq. (1), §5.1",
                                "partial credit on the published score: extra-time goals count in knockouts"),
    "exact_wca": Definition(WCA, "§4.1, §5.1", "predicted score equals the published score (extra time included)"),
    "result_wca": Definition(WCA, "§4.1", "most probable H/D/A outcome equals the published score's result"),
    "brier_pa": Definition(PA, "§3.1.1 eq. (1)", "mean over the three H/D/A markets of (p - o)^2 = brier / 3"),
    "goal_difference_error_wca": Definition(WCA, "§4.1 eq. (1)", "e_d on the published score (extra time included)"),
    "agreement": Definition(LSA, "Table 5, App. C.4", "scoreline tendency is a modal H/D/A class"),
    "mean_goal_distance": Definition(LSA, "Table 5", "|E[home] - score home| + |E[away] - score away|"),
    "advancement_brier": Definition(LSA, "Table 5", "two-class Brier of advancing"),
    "advancement_log_loss": Definition(LSA, "Table 5", "-ln p(team that advanced)"),
    "advancement_accuracy": Definition(LSA, "Table 5", "larger advancement probability names the team that advanced"),
    "ece": Definition(PA, "App. B.2", "binned ECE, 10 equal-width bins, pooled H/D/A one-vs-rest markets"),
    "market_return": Definition(PA, "§3.1.3", "risk-neutral unit-stake return per market against the market price"),
}

MEASURE_RANGES: dict[str, tuple[float, float]] = {
    "brier": (0.0, 2.0),
    "log_loss": (0.0, -math.log(LOG_LOSS_FLOOR)),
    "accuracy": (0.0, 1.0),
    "exact": (0.0, 1.0),
    "points": (0.0, 5.0),
}
"""The values a match's mean of each measure can take (per-forecast scale). An interval that is
not a percentile of replicate means (a studentized one) can pass these bounds when the matches
are few; the tables show such an end at the bound and say so."""

LEADERBOARD_SCORELINE = "scoreline_90"
"""The scoreline measure the leaderboard's "Scoreline" column shows."""


def describe(name: str) -> str:
    """``"<paper> <where>: <text>"`` for a measure, or the name when it has no entry."""
    d = MEASURE_DEFINITIONS.get(name)
    return name if d is None else f"{d.paper} {d.where}: {d.text}"
