"""The sections of ``prematch.toml`` about outside services: time-stamping authorities, odds,
match reports, binary markets, evidence gathering and endpoint agents (:mod:`collector.config`
holds the arena, the forecasters and the loading)."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from collector.records.base import SLUG_PATTERN, UtcDatetime


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)  # every number finite


# -- time-stamping authorities and the arena's public addresses ----------------------------------


class TimestampAuthority(_Model):
    """One RFC 3161 time-stamping authority: an id (names its ``.tsr`` files) and its HTTP endpoint."""

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=40)] = Field(
        description="names the authority's token files, manifests/YYYY/TICK.ID.tsr")
    url: Annotated[str, Field(pattern=r"^https?://[^\s]+$")] = Field(description="the authority's RFC 3161 endpoint")


OddsSourceName = Literal["the-odds-api", "polymarket", "kalshi", "football-data-co-uk"]
ODDS_SOURCES: tuple[str, ...] = get_args(OddsSourceName)  # every odds source, in the order odds paths are looked up


class OddsSettings(_Model):
    """``[odds]``: the odds sources a tick reads at each horizon and at kickoff (``odds_snapshot`` records).

    Keys come only from the environment (``ODDS_API_KEY``); base URLs may be overridden by
    ``ODDS_API_BASE_URL``, ``POLYMARKET_GAMMA_URL``, ``POLYMARKET_CLOB_URL`` and ``KALSHI_BASE_URL``.
    """

    sources: tuple[OddsSourceName, ...] = Field(
        default=(), description="odds sources asked at each horizon (none: no odds snapshots)")
    files: tuple[str, ...] = Field(default=(), description="football-data.co.uk season CSV files (replays)")
    sport_keys: dict[str, str] = Field(
        default_factory=dict, description="The Odds API sport key per competition id, e.g. soccer_epl")
    regions: str = Field(default="eu", pattern=r"^[a-z]{2}(,[a-z]{2})*$", description="The Odds API regions")
    polymarket_slugs: dict[str, str] = Field(
        default_factory=dict, description="Polymarket event slug per event id (else Gamma's search finds it)")
    kalshi_events: dict[str, str] = Field(default_factory=dict, description="Kalshi event ticker per event id")
    closing_minutes: Annotated[float, Field(gt=0, le=120)] = Field(
        default=20.0, description="closing odds are read in the last this many minutes before kickoff "
                                  "(more than the cron's step, 15 minutes, so one tick always falls in it)")
    without_key: Literal["problem", "skip"] = Field(
        default="problem", description="a source whose key is not in the environment (the-odds-api: ODDS_API_KEY): "
        "a problem (the run fails), or skipped with a note (an arena that turns it on by adding the secret)")


class ReportsSettings(_Model):
    """``[reports]``: the match-report source ``prematch reports --config`` asks for each competition listed.

    API-Football needs ``API_FOOTBALL_KEY`` in the environment; without it the command does nothing
    and says so (exit 0), so an arena turns the source on by adding the secret.
    """

    api_football_leagues: dict[str, int] = Field(
        default_factory=dict, description="API-Football league id per competition id, e.g. worldcup-2026 = 1")
    api_football_season: dict[str, int] = Field(
        default_factory=dict, description="API-Football season per competition id (default: the edition's first year)")


class BinaryMarketConfig(_Model):
    """One ``[[markets.binary]]`` entry: a market's binary contract asked as a question (Prophet Arena).

    ``rule`` is ``champion`` (``team``), ``reaches`` (``team``, ``stage``), ``match_result``
    (``event``, ``result`` home/draw/away) or ``total_goals_over`` (``event``, ``line`` a half
    line); see :class:`collector.records.BinaryRule`. Match rules close at the match's kickoff;
    the others need ``closes_at``.
    """

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=120)] = Field(description="the event id")
    competition: str = Field(description="competition id the rule reads outcomes of")
    label: str = Field(min_length=1, max_length=300, description="the contract's question as asked")
    source: Literal["polymarket"] = Field(default="polymarket", description="where its price is read (Polymarket)")
    market: str = Field(min_length=1, max_length=200, description="Polymarket market slug or Kalshi ticker")
    contract: str = Field(default="Yes", description="the side priced")
    rule: Literal["champion", "reaches", "match_result", "total_goals_over"] = Field(
        description="how the contract resolves from the outcomes (see the table's description)")
    team: str | None = Field(default=None, description="team id (champion, reaches)")
    stage: str | None = Field(default=None, description="stage name (reaches), e.g. semi-final")
    event: str | None = Field(default=None, description="event id (match_result, total_goals_over)")
    result: Literal["home", "draw", "away"] | None = Field(default=None, description="match_result's side")
    line: float | None = Field(default=None, description="total_goals_over's half line, e.g. 2.5")
    closes_at: UtcDatetime | None = Field(default=None, description="UTC; required for champion and reaches")


class MarketsSettings(_Model):
    """``[markets]``: the binary contracts asked to the LLMs with and without their price."""

    binary: tuple[BinaryMarketConfig, ...] = Field(default=(), description="the configured market list")


class TimestampSettings(_Model):
    """``[timestamps]``: which authorities stamp each live tick manifest, and how long the tick waits.

    Every authority is asked concurrently; one that fails (or does not answer within
    ``timeout_s``) is asked again at the next tick for those of the newest ``retry_manifests``
    manifests still without its token (older ones are covered by later tokens through the chain). Replay ticks are never stamped (their
    clock is simulated; an authority stamps the real time).
    """

    authorities: tuple[TimestampAuthority, ...] = ()
    timeout_s: Annotated[float, Field(gt=0, le=120)] = 10.0
    retry_manifests: Annotated[int, Field(ge=1, le=1000)] = 8

    @model_validator(mode="after")
    def _unique(self) -> TimestampSettings:
        ids = [a.id for a in self.authorities]
        if len(set(ids)) != len(ids):
            raise ValueError(f"timestamp authority ids must be unique: {ids}")
        return self


PublicUrl = Annotated[str, Field(pattern=r"^https://[^\s]+$")]

# -- end of the time-stamping block ---------------------------------------------------------------


class GathererSettings(_Model):
    """``[evidence.gatherer]``: the one LLM that gathers each package's news digest.

    It is asked under the open-book protocol (``[protocol]`` and ``[protocol.search]``, exactly as
    an open-book forecaster) for ``items`` dated sources with short summaries.
    """

    id: Annotated[str, Field(pattern=SLUG_PATTERN)] = Field(default="news-gatherer", description="the gatherer's id in the records")
    model: str = Field(min_length=1, description="OpenRouter model id of the gatherer")
    items: Annotated[int, Field(ge=1, le=20)] = Field(default=5, description="the fixed number of sources asked for")
    reasoning_supported: bool = Field(default=True, description="false: no `reasoning` is sent")
    honours_temperature: bool = Field(default=True, description="false: no `temperature` is sent")


class EvidenceSettings(_Model):
    """``[evidence]``: what each evidence package holds (collector/evidence/)."""

    recent_matches: Annotated[int, Field(ge=1, le=20)] = Field(default=5, description="results per team's form")
    head_to_head: Annotated[int, Field(ge=0, le=20)] = Field(default=5, description="earlier meetings listed")
    gatherer: GathererSettings | None = Field(default=None, description="no gatherer: structured parts only")


class EndpointSettings(_Model):
    """``endpoint`` of an ``endpoint`` forecaster: an outside agent answering the arena's protocol over HTTPS.

    The token, when the agent wants one, is read from the environment variable ``token_env`` and
    sent only to ``url`` (``Authorization: Bearer``); it is a secret like any API key.
    """

    url: Annotated[str, Field(pattern=r"^https://[^\s]+$|^http://(127\.0\.0\.1|localhost|\[::1\])(:[0-9]+)?(/[^\s]*)?$")] = Field(
        description="where the tasks are POSTed: https, or http on this machine's loopback (tests, local trials)")
    token_env: Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9_]{2,63}$")] | None = Field(
        default=None, description="name of the environment variable holding the agent's token (none: no token)")
    timeout_s: Annotated[float, Field(gt=0, le=600)] = Field(default=60.0, description="seconds an answer may take")
    max_response_bytes: Annotated[int, Field(ge=1024, le=4_194_304)] = Field(
        default=65_536, description="bytes of an answer kept; a longer answer is cut and fails (api_error, oversized)")
    max_calls_per_tick: Annotated[int, Field(ge=1, le=10_000)] = Field(
        default=200, description="calls (first, retry, repair) one tick makes to the agent; the rest wait for the next")
    max_attempts: Annotated[int, Field(ge=1, le=5)] = Field(default=2, description="transport attempts per call")
