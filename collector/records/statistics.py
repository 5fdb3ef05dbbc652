"""The attempt statistics record: what OpenRouter's generation endpoint reports about one call.

``GET /api/v1/generation?id=`` answers, a few seconds after a call, with the served
provider, the web-search engine used and the number of search results, native token counts
(reasoning included), the total cost and every provider attempt. A tick fetches it after
the forecast is written (or a later tick, while the endpoint still answers 404) and writes
one record per generation, linked to the forecast by its archive path: the forecast itself
is never rewritten.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue

from .base import NonNegativeFloat, Record, Slug

GENERATION_ID_PATTERN = r"^[A-Za-z0-9_-]{1,200}$"


class AttemptStatistics(Record):
    kind: Literal["attempt_statistics"] = "attempt_statistics"
    competition_id: Slug
    forecast_path: str = Field(description="archive-relative path of the forecast the attempt belongs to")
    attempt_index: Annotated[int, Field(ge=0)] = Field(description="index into the forecast's attempts")
    generation_id: Annotated[str, Field(pattern=GENERATION_ID_PATTERN)]
    provider: str | None = Field(default=None, description="data.provider_name")
    model: str | None = None
    web_search_engine: str | None = Field(default=None, description="data.web_search_engine")
    search_results: Annotated[int, Field(ge=0)] | None = Field(default=None, description="data.num_search_results")
    native_reasoning_tokens: Annotated[int, Field(ge=0)] | None = Field(
        default=None, description="data.native_tokens_reasoning"
    )
    native_prompt_tokens: Annotated[int, Field(ge=0)] | None = None
    native_completion_tokens: Annotated[int, Field(ge=0)] | None = None
    total_cost_usd: NonNegativeFloat | None = Field(default=None, description="data.total_cost")
    fallback_attempts: Annotated[int, Field(ge=0)] | None = Field(
        default=None, description="provider responses before the last (data.provider_responses)"
    )
    cancelled: bool | None = None
    finish_reason: str | None = None
    raw: dict[str, JsonValue] = Field(default_factory=dict, description="the endpoint's data object, verbatim")
