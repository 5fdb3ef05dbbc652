"""The forecast record: identity, timing, every attempt made, validation and the parsed forecast.

One file per forecast key (competition, target, forecaster, access, strategy, horizon,
sample); it is written once and never changed. Failures (API errors, timeouts, invalid
answers, missed windows) are forecast records too, so coverage is honest.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, JsonValue, model_validator

from .attempt import (
    Attempt,
    AttemptTotals,
    Citation,
    SearchObserved,
)
from .base import (
    Contract,
    NonNegativeFloat,
    Probability,
    Record,
    Score,
    Slug,
    UtcDatetime,
)
from .fine_grained import FineGrainedForecast
from .tournament import TournamentForecast

FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]


DEMO_PREFIX = "demo."  # forecaster ids reserved for the demo's synthetic LLMs (collector.forecasters.demo_recipe, docs/demo.md)


def is_demo(forecaster_id: str) -> bool:
    """Whether a forecaster is one of the demo's synthetic LLMs: every page marks them, never a real model."""
    return forecaster_id.startswith(DEMO_PREFIX)


class ForecasterType(StrEnum):
    LLM = "llm"
    BASELINE = "baseline"
    MARKET = "market"
    ENDPOINT = "endpoint"  # an outside agent asked over HTTPS with the arena's endpoint protocol


class Access(StrEnum):
    CLOSED_BOOK = "closed_book"
    OPEN_BOOK = "open_book"
    EVIDENCE_PACKAGE = "evidence_package"  # the arena's frozen evidence record in the prompt, no tools


class Strategy(StrEnum):
    DIRECT_SCORE = "direct_score"
    PROBABILISTIC_FORECAST = "probabilistic_forecast"
    FINE_GRAINED = "fine_grained"  # WorldCupArena T1-T4: the match answer plus players, events, statistics


class Horizon(StrEnum):
    STAGE_OPENING = "stage_opening"
    T_MINUS_24H = "t_minus_24h"
    T_MINUS_2H = "t_minus_2h"
    CLOSING = "closing"  # market odds at kickoff; never requested from an LLM
    GROUPS_COMPLETE = "groups_complete"  # full-tournament forecasts: asked again once the group stage ends


class ForecastStatus(StrEnum):
    VALID = "valid"
    NORMALIZED = "normalized"
    REPAIRED = "repaired"
    REPAIRED_AND_NORMALIZED = "repaired_and_normalized"
    INVALID_JSON = "invalid_json"
    INVALID_SCHEMA = "invalid_schema"
    INVALID_RANGE = "invalid_range"
    INVALID_SUM = "invalid_sum"
    INVALID_SCORE = "invalid_score"
    INVALID_AFTER_REPAIR = "invalid_after_repair"
    API_ERROR = "api_error"
    TIMEOUT = "timeout"
    MISSED = "missed"


TRANSPORT_FAILURES = frozenset({"api_error", "timeout"})
"""The statuses a later tick may retry (a new revision of the key): the call failed, the model never answered."""

SCORABLE_STATUSES = frozenset(
    {
        ForecastStatus.VALID,
        ForecastStatus.NORMALIZED,
        ForecastStatus.REPAIRED,
        ForecastStatus.REPAIRED_AND_NORMALIZED,
    }
)


class StructuredOutput(StrEnum):
    JSON_SCHEMA = "json_schema"
    JSON_OBJECT = "json_object"
    NONE = "none"


class RequestProtocol(Contract):
    """The request protocol a forecast was asked under (collector/forecasters/llm/protocol.py)."""

    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] = Field(description="SHA-256 of settings' sorted JSON")
    settings: dict[str, JsonValue] = Field(description="search, output, routing and reasoning settings as configured")
    structured_output: StructuredOutput = Field(description="the response_format mode of the call that answered")


class SearchFlag(StrEnum):
    OK = "ok"
    OPEN_BOOK_NO_SEARCH = "open_book_no_search"  # search was offered, the provider did not search
    CLOSED_BOOK_SEARCH = "closed_book_search"  # a protocol violation: a search under closed book


class SearchReport(Contract):
    """Whether a search really happened (usage.server_tool_use_details, the tool trace, the generation
    stats' num_search_results), how often, what was cited."""

    observed: SearchObserved
    requests: Annotated[int, Field(ge=0)] = 0
    citations: tuple[Citation, ...] = ()
    flag: SearchFlag = SearchFlag.OK


class Prompt(Contract):
    template_id: str
    template_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    prompt_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    text: str


class ScoreProbability(Contract):
    home: Annotated[int, Field(ge=0, le=99)]
    away: Annotated[int, Field(ge=0, le=99)]
    probability: Probability


class MatchForecast(Contract):
    """The parsed match forecast (LLM-SoccerArena Appendix F schema, team-neutral names).

    Probabilities are of the 90-minute result (regulation plus stoppage time), the full
    match (after extra time and penalties), and of advancing (knockouts only, else None).
    """

    shared_values: ClassVar[tuple[str, ...]] = ("most_likely_score_90", "most_likely_score_full")
    target: Literal["match"] = "match"
    home_win_90: Probability
    draw_90: Probability
    away_win_90: Probability
    expected_home_goals_90: NonNegativeFloat
    expected_away_goals_90: NonNegativeFloat
    most_likely_score_90: Score
    home_win_full: Probability | None = None
    draw_full: Probability | None = None
    away_win_full: Probability | None = None
    most_likely_score_full: Score | None = None
    home_advances: Probability | None = None
    away_advances: Probability | None = None
    confidence: Probability | None = None
    reason: str = ""
    top_scores: tuple[ScoreProbability, ...] = Field(
        default=(), description="Most likely scorelines with probabilities (baselines fill this)"
    )
    fine_grained: FineGrainedForecast | None = Field(
        default=None, description="players, events and statistics (T2-T4), asked by the fine_grained strategy")

    @model_validator(mode="after")
    def _sums(self) -> MatchForecast:
        total = self.home_win_90 + self.draw_90 + self.away_win_90
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"90-minute probabilities sum to {total:.6f}, not 1")
        if (self.home_advances is None) != (self.away_advances is None):
            raise ValueError("home_advances and away_advances are both set or both null")
        if self.home_advances is not None and abs(self.home_advances + self.away_advances - 1.0) > 1e-6:
            raise ValueError("advancement probabilities must sum to 1")
        return self

    def probabilities_90(self) -> tuple[float, float, float]:
        return (self.home_win_90, self.draw_90, self.away_win_90)


class Choice(Contract):
    team: Slug
    probability: Probability
    rank: Annotated[int, Field(ge=1)]
    is_final_pick: bool


class QuestionForecast(Contract):
    """The parsed tournament-question forecast; teams are team ids of the competition."""

    target: Literal["question"] = "question"
    question_id: Slug
    prediction_type: Literal["single_choice", "multi_choice_fixed_k"]
    k: Annotated[int, Field(ge=1)] = 1
    choices: tuple[Choice, ...] = Field(min_length=2)
    final_picks: tuple[Slug, ...] = Field(min_length=1)
    confidence: Probability | None = None
    reasoning_summary: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> QuestionForecast:
        if len(self.final_picks) != self.k or len(set(self.final_picks)) != self.k:
            raise ValueError(f"final_picks must hold exactly {self.k} distinct teams")
        teams = [c.team for c in self.choices]
        if len(set(teams)) != len(teams):
            raise ValueError("each candidate appears once in choices")
        return self

    def tied_picks(self) -> frozenset[str]:
        """The final picks that are no picks: tied in stated probability with a listed team not
        picked (a forecast giving every team the same probability picks nobody; the order of
        ties is the source's, not the forecaster's). A pick not listed in ``choices`` has
        probability 0."""
        stated = {c.team: c.probability for c in self.choices}
        chosen = set(self.final_picks)
        others = {round(p, 12) for team, p in stated.items() if team not in chosen}
        return frozenset(t for t in self.final_picks if round(stated.get(t, 0.0), 12) in others)

    def picks_made(self) -> tuple[str, ...]:
        """The final picks that are picks (:meth:`tied_picks` left out), in the stated order."""
        tied = self.tied_picks()
        return tuple(t for t in self.final_picks if t not in tied)


class Validation(Contract):
    errors: tuple[str, ...] = ()
    original_sums: dict[str, FiniteFloat] = Field(default_factory=dict)
    normalized: bool = False
    repaired: bool = False
    diagnostics: dict[str, JsonValue] = Field(default_factory=dict)

    def share_key(self) -> tuple[bool, bool] | None:
        """Reports with nothing to tell (no errors, sums or diagnostics) are shared: most records'."""
        empty = not (self.errors or self.original_sums or self.diagnostics)
        return (self.normalized, self.repaired) if empty else None


class EvidenceRef(Contract):
    """The evidence package a forecast used (collector/records/evidence.py): its archive path and the
    SHA-256 of its record file's bytes as written."""

    path: str = Field(min_length=1)
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class EndpointReport(Contract):
    """For an endpoint forecaster: the protocol version it was asked under and what the agent declared
    of itself in its last answer (name, version, cost: its own word, never checked)."""

    protocol_version: Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]+$")] = Field(
        description="version of the endpoint protocol the tasks were sent in (docs/protocol/)")
    name: Annotated[str, Field(max_length=100)] | None = Field(default=None, description="the agent's declared name")
    version: Annotated[str, Field(max_length=100)] | None = Field(default=None, description="its declared version")
    cost_usd: NonNegativeFloat | None = Field(default=None, description="its declared cost of the answer, USD")


class Forecast(Record):
    """One forecast key's single record, whatever happened when it was due."""

    shared_values: ClassVar[tuple[str, ...]] = ("validation",)
    shared_times: ClassVar[tuple[str, ...]] = ("kickoff_utc", "scheduled_at", "requested_at", "recorded_at")

    kind: Literal["forecast"] = "forecast"
    competition_id: Slug
    target_kind: Literal["match", "question", "tournament"]
    target_id: Slug = Field(description="Event id for matches, question id for questions, "
                            "'full-tournament' for a full-tournament forecast")
    forecaster: Slug = Field(description="Forecaster id as configured, e.g. openai.gpt-5.5 or elo")
    forecaster_type: ForecasterType
    model: str | None = Field(default=None, description="OpenRouter model id, for LLMs")
    model_version: str = Field(description="Canonical version string of the forecaster")
    access: Access
    strategy: Strategy
    horizon: Horizon
    sample: Annotated[int, Field(ge=0)] = 0
    kickoff_utc: UtcDatetime = Field(description="Kickoff (or question close) as known when due")
    kickoff_time_known: bool = Field(
        default=True, description="False: the source gave the kickoff's date only, and kickoff_utc is 00:00 of "
        "that date in the competition's time zone (the earliest instant it could be)")
    scheduled_at: UtcDatetime
    requested_at: UtcDatetime | None = None
    lead_time_minutes: FiniteFloat | None = Field(default=None, description="kickoff_utc - requested_at")
    status: ForecastStatus
    prompt: Prompt | None = None
    attempts: tuple[Attempt, ...] = ()
    validation: Validation = Validation()
    payload: MatchForecast | QuestionForecast | TournamentForecast | None = Field(default=None, discriminator="target")
    inputs: dict[str, JsonValue] = Field(
        default_factory=dict, description="For baselines and markets: what the forecast was computed from"
    )
    protocol: RequestProtocol | None = Field(default=None, description="For LLMs: the request protocol and its hash")
    search: SearchReport | None = Field(default=None, description="For LLMs: the search that was observed")
    revision: Annotated[int, Field(ge=0)] = Field(
        default=0, description="0, or the retry number of a key whose earlier revision was a transport failure")
    supersedes: str | None = Field(default=None, description="archive path of the failed revision this retry replaces")
    served_model: str | None = Field(default=None, description="the model id the provider says answered (LLMs)")
    served_model_differs: bool = Field(
        default=False, description="served_model is another model than the one requested (beyond a version suffix)"
    )
    evidence: EvidenceRef | None = Field(default=None, description="evidence_package: the package the prompt held")
    endpoint: EndpointReport | None = Field(
        default=None, description="endpoint forecasters: protocol version and the agent's declared name, version, cost")

    @model_validator(mode="after")
    def _consistent(self) -> Forecast:
        scorable = self.status in SCORABLE_STATUSES
        if scorable and self.payload is None:
            raise ValueError(f"status {self.status.value} needs a payload")
        if self.payload is not None and self.payload.target != self.target_kind:
            raise ValueError("payload target does not match target_kind")
        if self.requested_at is not None and self.requested_at >= self.kickoff_utc:
            raise ValueError("a forecast cannot be requested at or after kickoff")
        if self.status is ForecastStatus.MISSED and self.requested_at is not None:
            raise ValueError("a missed forecast has no request time")
        if (self.revision == 0) != (self.supersedes is None):
            raise ValueError("a retry (revision >= 1) names the revision it supersedes, and only a retry does")
        return self

    @property
    def transport_failure(self) -> bool:
        """The call failed (api_error, timeout): the only kind of record a retry may supersede."""
        return self.status.value in TRANSPORT_FAILURES

    @property
    def scorable(self) -> bool:
        return self.status in SCORABLE_STATUSES

    @property
    def usage(self) -> AttemptTotals:
        """Tokens, cost, latency and search calls summed over every attempt (:class:`AttemptTotals`)."""
        return AttemptTotals.of(self.attempts)

    def key(self) -> tuple[Any, ...]:
        """The forecast's identity: competition, target, forecaster, condition and sample (plain
        strings and ints; the StrEnum fields' ``_value_`` is ``.value`` without the enum
        descriptor, which cost most of a key: every score sorts by it)."""
        return (
            self.competition_id,
            self.target_kind,
            self.target_id,
            self.forecaster,
            self.access._value_,
            self.strategy._value_,
            self.horizon._value_,
            self.sample,
        )
