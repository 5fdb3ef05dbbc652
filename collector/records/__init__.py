"""The archive contract: every record model, and one adapter that validates any of them.

Collector and builder both import from here; ``prematch schema`` exports the
JSON Schemas into ``archive/schema/`` (a test fails when they drift).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, TypeAdapter

from .attempt import Attempt, AttemptRole, Citation, SearchObserved, ToolTrace, Usage
from .base import (
    SCHEMA_VERSION,
    Clock,
    Contract,
    Record,
    Revisable,
    Score,
    UtcDatetime,
    now_utc,
)
from .competition import (
    BestThirdRow,
    Competition,
    CompetitionFormat,
    Group,
    KnockoutSlot,
    Stage,
    Team,
    ThirdPlaceAssignment,
    TieBreakers,
    TopScorerTieBreak,
)
from .event import (
    Event,
    EventStatus,
    Goal,
    Outcome,
    OutcomeStatus,
    ResolutionRule,
    SourceCorrection,
)
from .evidence import (
    Evidence,
    HeadToHead,
    NewsDigest,
    NewsItem,
    OddsPart,
    PastMatch,
    Provenance,
    RestTravel,
    Squad,
    StandingRow,
    Standings,
    TeamForm,
)
from .fine_grained import FineGrainedForecast
from .forecast import (
    DEMO_PREFIX,
    SCORABLE_STATUSES,
    TRANSPORT_FAILURES,
    Access,
    Choice,
    EndpointReport,
    EvidenceRef,
    Forecast,
    ForecasterType,
    ForecastStatus,
    Horizon,
    MatchForecast,
    Prompt,
    QuestionForecast,
    RequestProtocol,
    ScoreProbability,
    SearchFlag,
    SearchReport,
    Strategy,
    StructuredOutput,
    Validation,
    is_demo,
)
from .manifest import Manifest
from .market_event import (
    BinaryEvent,
    BinaryForecast,
    BinaryQuote,
    BinaryResolution,
    BinaryRule,
)
from .match_report import MatchReport
from .odds import BookQuote, Credits, OddsSnapshot, OutcomePrice
from .question import PredictionType, Question, QuestionResolution
from .statistics import AttemptStatistics
from .tournament import (
    GroupMatchForecast,
    KnockoutMatchForecast,
    ReachProbability,
    TableEntry,
    TournamentForecast,
    advancement_rounds,
    final_rounds,
    round_ties,
)

AnyRecord = Annotated[
    Competition | Event | Outcome | Question | QuestionResolution | Forecast | Manifest | AttemptStatistics
    | Evidence
    | MatchReport
    | OddsSnapshot | BinaryEvent | BinaryForecast | BinaryResolution,
    Field(discriminator="kind"),
]
RECORD_ADAPTER: TypeAdapter[AnyRecord] = TypeAdapter(AnyRecord)

RECORD_MODELS: dict[str, type[Record]] = {
    "competition": Competition,
    "event": Event,
    "outcome": Outcome,
    "question": Question,
    "question_resolution": QuestionResolution,
    "forecast": Forecast,
    "manifest": Manifest,
    "attempt_statistics": AttemptStatistics,
    "evidence": Evidence,
    "match_report": MatchReport,
    "odds_snapshot": OddsSnapshot,
    "binary_event": BinaryEvent,
    "binary_forecast": BinaryForecast,
    "binary_resolution": BinaryResolution,
}

__all__ = [name for name in dir() if not name.startswith("_")]
