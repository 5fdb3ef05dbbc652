"""One HTTP call to a forecaster, kept verbatim (usage, tool trace), and the totals of a record's calls.

Every :class:`~collector.records.forecast.Forecast` holds its attempts: the first call,
transport retries, the fallback without ``response_format``, truncation retries and the repair.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any, ClassVar, NamedTuple

from pydantic import Field, JsonValue

from .base import Contract, NonNegativeFloat, UtcDatetime


class SearchObserved(StrEnum):
    SEARCHED = "searched"  # a search call or its results appear in the trace
    CITED_ONLY = "cited_only"  # url citations but no observed search call
    NONE = "none"
    UNKNOWN = "unknown"


class Usage(Contract):
    prompt_tokens: Annotated[int, Field(ge=0)] | None = None
    completion_tokens: Annotated[int, Field(ge=0)] | None = None
    reasoning_tokens: Annotated[int, Field(ge=0)] | None = None
    cached_tokens: Annotated[int, Field(ge=0)] | None = None
    cost_usd: NonNegativeFloat | None = None
    upstream_cost_usd: NonNegativeFloat | None = Field(
        default=None, description="usage.cost_details.upstream_inference_cost"
    )
    web_search_requests: Annotated[int, Field(ge=0)] | None = Field(
        default=None,
        description="usage.server_tool_use_details.web_search_requests (usage.server_tool_use in the older shape)"
    )


class Citation(Contract):
    url: str
    title: str | None = None


class ToolTrace(Contract):
    search_calls: tuple[dict[str, JsonValue], ...] = ()
    search_results: tuple[dict[str, JsonValue], ...] = ()
    citations: tuple[Citation, ...] = ()
    search_observed: SearchObserved = SearchObserved.UNKNOWN

    def share_key(self) -> SearchObserved | None:
        """Empty traces (no calls, results or citations) are shared: most calls have one."""
        empty = not (self.search_calls or self.search_results or self.citations)
        return self.search_observed if empty else None


class AttemptRole(StrEnum):
    FIRST = "first"
    RETRY = "retry"  # a transport retry (429, 5xx, timeout, error inside 200)
    FALLBACK = "fallback"  # resent without response_format
    TRUNCATION_RETRY = "truncation_retry"  # finish_reason 'length'
    REPAIR = "repair"


class Attempt(Contract):
    """One HTTP call to a forecaster, kept verbatim. Credentials are never stored."""

    shared_values: ClassVar[tuple[str, ...]] = ("tool_trace",)

    role: AttemptRole
    started_at: UtcDatetime
    latency_ms: NonNegativeFloat | None = None
    request_body: dict[str, JsonValue]
    http_status: int | None = None
    response_text: str | None = None
    response_id: str | None = None
    served_model: str | None = None
    provider: str | None = None
    finish_reason: str | None = None
    usage: Usage = Usage()
    tool_trace: ToolTrace = ToolTrace()
    error: str | None = None
    timed_out: bool = Field(default=False, description="sent, but no complete answer in time (billed all the same)")
    estimated_cost_usd: NonNegativeFloat | None = Field(
        default=None, description="for a timed-out call: the cost estimate the spending cap counted"
    )
    fallback_attempts: Annotated[int, Field(ge=0)] | None = Field(
        default=None, description="provider attempts before the one that answered (openrouter_metadata)"
    )
    error_kind: str | None = Field(default=None, description="auth, credits, refusal, bad_request, oversized, "
                                   "rate_limit, server, timeout, transport or body (collector.forecasters.llm.errors)")
    response_truncated: bool = Field(default=False, description="the body was cut at the response limit")
    response_bytes: Annotated[int, Field(ge=0)] | None = Field(default=None, description="the full body's length, when cut")
    response_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = Field(
        default=None, description="SHA-256 of the full body, when cut")


class AttemptTotals(NamedTuple):
    """What a sequence of attempts used, added up: the one place attempt usage is summed.

    A quantity is None when no attempt reported it (unknown, not zero), else the sum over the
    attempts that did (``sum`` in attempt order). ``attempts`` and ``search_calls`` (search
    calls seen in the tool traces) are counts. Immutable and derived, never stored: not part
    of any record's JSON Schema. (A named tuple: made for every record a build shows, twice.)
    """

    attempts: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    search_calls: int = 0

    @classmethod
    def of(cls, attempts: Iterable[Attempt]) -> AttemptTotals:
        """The totals of ``attempts`` (of one record, or of many records' attempts in a row)."""
        if not isinstance(attempts, tuple | list):
            attempts = tuple(attempts)
        if not attempts:
            return NO_ATTEMPTS
        if len(attempts) == 1:  # most records: no lists to build (0 + v is what sum([v]) gives)
            only, usage = attempts[0], attempts[0].usage
            return cls(1, _plus(usage.prompt_tokens), _plus(usage.completion_tokens), _plus(usage.reasoning_tokens),
                       _plus(usage.cached_tokens), _plus(usage.cost_usd), _plus(only.latency_ms),
                       len(only.tool_trace.search_calls))
        usages = [a.usage for a in attempts]
        return cls(
            attempts=len(attempts),
            prompt_tokens=_total([u.prompt_tokens for u in usages]),
            completion_tokens=_total([u.completion_tokens for u in usages]),
            reasoning_tokens=_total([u.reasoning_tokens for u in usages]),
            cached_tokens=_total([u.cached_tokens for u in usages]),
            cost_usd=_total([u.cost_usd for u in usages]),
            latency_ms=_total([a.latency_ms for a in attempts]),
            search_calls=sum(len(a.tool_trace.search_calls) for a in attempts),
        )


NO_ATTEMPTS = AttemptTotals()
"""The totals of no attempt at all (a baseline, a market price, a missed forecast)."""


def _total(values: list[Any]) -> Any:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _plus(value: Any) -> Any:
    return None if value is None else 0 + value
