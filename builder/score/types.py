"""The result of scoring an archive: plain, JSON-serialisable dataclasses.

Data flows one way: archive records -> :class:`ScoredForecast` rows -> aggregates
(:class:`LeaderboardRow`, tests, calibration, ...) -> page models. Field names are a
contract with the site and with ``python -m builder score --json``; add fields, never
rename them. Every row carries ``clock`` ("live" or "replay") so replayed forecasts stay
labelled wherever they appear. Missing values are ``None`` (JSON null), never NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

MEASURES = (
    "brier",
    "log_loss",
    "rps",
    "accuracy",
    "exact",
    "goal_difference",
    "tendency",
    "abs_home_goals",
    "abs_away_goals",
    "abs_total_goals",
    "abs_goal_difference",
    "points",
    "scoreline",
    "agreement",
    "mean_goal_distance",
    "scoreline_90",
    "scoreline_wca",
    "exact_wca",
    "result_wca",
    "brier_pa",
    "goal_difference_error_wca",
)
"""Per-forecast match measures, in the order they appear in every row. ``scoreline`` is kept
as the name of ``scoreline_90`` (the same values) for readers of earlier JSON; which paper
each measure follows is in :data:`builder.score.definitions.MEASURE_DEFINITIONS`."""

ADVANCEMENT_MEASURES = ("advancement_brier", "advancement_log_loss", "advancement_accuracy")

MARKET_FIELDS = ("n", "n_return", "return", "sharpe", "brier_difference")
"""Keys of ``LeaderboardRow.market`` (flattened as ``market_<key>``, null without market prices)."""

INTERVAL_MEASURES = ("brier", "log_loss", "rps", "accuracy", "exact", "points", "scoreline")
"""Measures that get a bootstrap 95% interval (``<measure>_low`` / ``<measure>_high``)."""


@dataclass(frozen=True)
class Cell:
    """A condition cell: who forecast, under which access, strategy and horizon, on which clock."""

    forecaster: str
    access: str
    strategy: str
    horizon: str
    clock: str

    def label(self) -> str:
        return f"{self.forecaster} {self.access}/{self.strategy}/{self.horizon}" + (
            " [replay]" if self.clock == "replay" else ""
        )


ALL = "all"
"""The competition or stage of a :class:`Slice` that covers every competition or stage."""


@dataclass(frozen=True)
class Slice:
    """A part of the archive with its own leaderboard: one competition (or all) x one stage (or all).

    The names are the archive's display names (``"all"`` for the whole); ``builder.score.slices``
    decides which slices exist and scores each.
    """

    competition: str  # competition id or ALL
    stage: str  # stage id or ALL
    competition_name: str = ALL
    stage_name: str = ALL

    @property
    def whole(self) -> bool:
        """Whether this slice is the whole archive (every competition, every stage)."""
        return (self.competition, self.stage) == (ALL, ALL)


@dataclass(frozen=True, slots=True)
class ScoredForecast:
    """One scorable match forecast joined with its outcome, with every per-forecast measure.

    ``key`` and ``path`` name the scored record, so a row finds its record (and a record its
    row) by ``Forecast.key()`` or archive path, never by re-joining fields by hand. Slotted
    (no per-row ``__dict__``: a third of a row's memory, with an archive's worth of rows held
    for the whole build); ``asdict``, ``replace``, equality and pickling work as before.
    """

    competition_id: str
    event_id: str
    forecaster: str
    forecaster_type: str
    model: str | None
    access: str
    strategy: str
    horizon: str
    sample: int
    clock: str
    status: str
    stage: str
    knockout: bool
    p_home: float
    p_draw: float
    p_away: float
    predicted_home: int
    predicted_away: int
    score_home: int
    score_away: int
    result: str
    confidence: float | None
    measures: Mapping[str, float]
    """Every measure of :data:`MEASURES`, in that order (scoring's rows: ``builder.score.measurerows.Measures``)."""
    advancement: Mapping[str, float] | None = None
    key: tuple[Any, ...] | None = None
    """The scored record's ``Forecast.key()`` (None for derived rows such as the ensemble)."""
    path: str | None = None
    """The scored record's archive-relative path (``collector.archive.layout.path_for``; None when derived)."""
    lead_time_minutes: float | None = None
    """Realised lead time: kickoff - the first request (LLM-SoccerArena §3.1.3), None when unknown."""
    search_observed: bool | None = None
    """Open book: whether any call of the record searched (None when no trace tells)."""
    layers: dict[str, float] | None = field(default=None, compare=False)
    """WorldCupArena layers T1-T4 of this forecast, 0-100, NaN = unavailable (builder.score.fine_grained_board)."""
    fine_tasks: dict[str, float] | None = field(default=None, compare=False)
    """The T2-T4 task scores behind ``layers`` (empty without a fine-grained part or a match report)."""
    buy_odds: tuple[float, float, float] | None = None
    """Market records: the quoted decimal odds one could back home, draw, away at (returns.quoted_odds)."""

    def cell(self) -> Cell:
        return Cell(self.forecaster, self.access, self.strategy, self.horizon, self.clock)


@dataclass(frozen=True)
class LeaderboardRow:
    """One forecaster x condition cell: counts, coverage, every mean measure and its interval.

    ``view`` is "all" (every scored event of the cell) or "matched" (only events every
    compared forecaster of the cell forecast). ``ranked`` applies WorldCupArena's rule: at
    least half the coverage of the most complete forecaster in the cell.
    """

    forecaster: str
    forecaster_type: str
    access: str
    strategy: str
    horizon: str
    clock: str
    view: str
    n: int
    scheduled: int
    eligible_events: int
    coverage: float | None
    ranked: bool
    measures: dict[str, float | None]
    intervals: dict[str, tuple[float, float] | None]
    scoreline_display: float | None = None
    ece: float | None = None
    n_advancement: int = 0
    market: dict[str, float | None] | None = None
    composite: dict[str, float | int | None] | None = None
    """WorldCupArena's composite and layers of the cell, each with its N (builder.score.fine_grained_board)."""

    def flat(self) -> dict[str, Any]:
        """One flat dict (``brier``, ``brier_low``, ``brier_high``, ...), as printed by ``--json``."""
        row: dict[str, Any] = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in ("measures", "intervals", "market", "composite")
        }
        for name, value in (self.composite or {}).items():
            row[name] = value
        for name, value in self.measures.items():
            row[name] = value
            bounds = self.intervals.get(name)
            if name in INTERVAL_MEASURES:
                row[f"{name}_low"] = bounds[0] if bounds else None
                row[f"{name}_high"] = bounds[1] if bounds else None
        for name in MARKET_FIELDS:
            row[f"market_{name}"] = (self.market or {}).get(name)
        return row


@dataclass(frozen=True)
class TestResult:
    """A paired comparison on matched events: estimate (mean difference a - b), interval, p-values.

    ``family`` is the declared Holm family; ``p_holm`` is adjusted within it.
    """

    family: str
    comparison: str
    a: str
    b: str
    measure: str
    n: int
    estimate: float
    low: float | None
    high: float | None
    p_value: float | None
    p_holm: float | None = None
    clock: str = "live"


@dataclass(frozen=True)
class ReliabilityBin:
    outcome: str
    scheme: str  # "equal_frequency" or "equal_width"
    lower: float
    upper: float
    n: int
    mean_probability: float
    observed_frequency: float


@dataclass(frozen=True)
class CalibrationRow:
    """Calibration of one forecaster x cell: ECE (10 equal-width bins) and reliability bins."""

    cell: Cell
    n: int
    ece: float | None
    bins: tuple[ReliabilityBin, ...]


@dataclass(frozen=True)
class ConfidenceGroup:
    """Forecasts of one cell grouped by their stated confidence, ranked within the cell."""

    cell: Cell
    group: str  # "low", "middle", "high"
    n: int
    mean_confidence: float
    brier: float
    accuracy: float


@dataclass(frozen=True)
class QuestionScore:
    """One scored tournament-question forecast (``key`` and ``path`` name its record)."""

    competition_id: str
    question_id: str
    prediction_type: str
    forecaster: str
    access: str
    strategy: str
    horizon: str
    clock: str
    k: int
    answer: tuple[str, ...]
    final_picks: tuple[str, ...]
    measures: dict[str, float | None]
    key: tuple[Any, ...] | None = None
    """The scored record's ``Forecast.key()``."""
    path: str | None = None
    """The scored record's archive-relative path (``collector.archive.layout.path_for``)."""
    tied: tuple[str, ...] = ()
    """The final picks that are no picks (tied with a team not picked: ``QuestionForecast.tied_picks``)."""


@dataclass(frozen=True)
class QuestionSummary:
    """Mean question measures of one forecaster x condition over its scored questions of one type."""

    forecaster: str
    access: str
    strategy: str
    horizon: str
    clock: str
    prediction_type: str
    n: int
    measures: dict[str, float | None]


@dataclass(frozen=True)
class OperationalRow:
    """Record statuses and resource use of one forecaster (all its forecast records)."""

    forecaster: str
    forecaster_type: str
    clock: str
    scheduled: int
    statuses: dict[str, int]
    rates: dict[str, float]
    open_book_calls: int
    search_observed_rate: float | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    latency_ms_mean: float | None
    latency_ms_median: float | None
    attempts: int
    search_shares: dict[str, float] = field(default_factory=dict)
    sum_audit: dict[str, float] = field(default_factory=dict)
    suspected_leaks: int = 0  # records the leakage audit flags (builder/score/leakage.py)


@dataclass(frozen=True)
class DiversityRow:
    """Similarity of two forecasters' probability vectors on identical event and conditions."""

    a: str
    b: str
    access: str
    strategy: str
    horizon: str
    clock: str
    n: int
    jensen_shannon: float
    correlation: float | None
    unit: str = "nats"
    """Unit of ``jensen_shannon``: "nats" (LLM-SoccerArena) or "bits"."""
    correlation_method: str = "fisher_z"
    """How ``correlation`` was formed: "fisher_z" (per-outcome r, Fisher-z mean) or "pooled"."""
    correlation_by_outcome: tuple[float | None, float | None, float | None] = (None, None, None)
    correlation_pooled: float | None = None


@dataclass
class Scores:
    """Everything the builder derives from an archive. Recomputed at every build, never stored."""

    archive: str
    competition_id: str | None
    forecasts: list[ScoredForecast] = field(default_factory=list)
    leaderboard: list[LeaderboardRow] = field(default_factory=list)
    matched: list[LeaderboardRow] = field(default_factory=list)
    ensemble: list[LeaderboardRow] = field(default_factory=list)
    tests: list[TestResult] = field(default_factory=list)
    calibration: list[CalibrationRow] = field(default_factory=list)
    confidence_groups: list[ConfidenceGroup] = field(default_factory=list)
    questions: list[QuestionScore] = field(default_factory=list)
    question_summary: list[QuestionSummary] = field(default_factory=list)
    operations: list[OperationalRow] = field(default_factory=list)
    diversity: list[DiversityRow] = field(default_factory=list)
    difficulty: list[Any] = field(default_factory=list)
    """Difficulty-adjusted Brier (``builder.score.difficulty.DifficultyRow``), beside the matched view."""
    robustness: list[Any] = field(default_factory=list)
    """LLM-SoccerArena C.3 robustness analyses (``builder.score.robustness.Robustness`` per clock)."""
    pooled_calibration: list[Any] = field(default_factory=list)
    """LLM-SoccerArena C.5 reliability (``builder.score.reliability.PooledReliability`` rows)."""
    binary: list[Any] = field(default_factory=list)
    """Scored binary market forecasts (``builder.score.binary_events.BinaryRow``), resolved events only."""
    binary_summary: list[Any] = field(default_factory=list)
    """Per forecaster x condition x horizon (``builder.score.binary_events.BinarySummary``)."""
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    leakage: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Forecast archive path -> the leakage audit's (rule, reason) flags (builder/score/leakage.py)."""
    t5: Any = None
    """The archive's T5 layer (``builder.score.t5_layer.T5Layer``), made once by ``score_archive``:
    the composite's fifth layer for every view, slice and paper table of this archive."""

    def to_dict(self) -> dict[str, Any]:
        return clean({k: v for k, v in asdict(self).items() if k != "t5"})


def clean(value: Any) -> Any:
    """Make a value JSON-safe: NaN/inf become None, tuples lists, numpy scalars Python numbers,
    mappings dicts (a row's ``measures``: ``builder.score.measurerows``)."""
    if isinstance(value, Mapping):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
