"""What kind of failure an OpenRouter exchange is, whether to retry it, and whether to stop the tick.

OpenRouter answers errors as ``{"error": {"code", "message", "metadata"}}``, with the HTTP
status of ``code`` for request errors (400, 401 invalid key, 402 no credits, 403 moderation
or guardrail, 408, 429, 502, 503) and inside an HTTP 200 once the model started
(https://openrouter.ai/docs/api/reference/errors-and-debugging). ``metadata.error_type`` and
``metadata.availability.retryable`` (or ``metadata.retryable``), when present, decide; else
the kind follows the status:

==============  ===========================================  =========  ==========
kind            when                                         retried    stops tick
==============  ===========================================  =========  ==========
auth            401                                          no         yes
credits         402                                          no         yes
refusal         403, or error_type naming moderation,        no         no
                content policy, guardrail or a refusal
bad_request     400, 404, 413, 422                           no         no
oversized       the body was cut at the response limit       no         no
rate_limit      429                                          yes        no
server          5xx, 408                                     yes        no
timeout         no complete answer in time                   yes        no
transport       connection refused, reset, DNS               yes        no
body            another error inside an HTTP 200             yes        no
==============  ===========================================  =========  ==========
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from collector.http import Exchange

STOP_KINDS = frozenset({"auth", "credits"})
_NOT_RETRIED = frozenset({"auth", "credits", "refusal", "bad_request", "oversized"})
_REFUSAL_WORDS = ("moderation", "content_policy", "content-policy", "content_filter", "guardrail", "refus", "flagged")


@dataclass(frozen=True)
class ErrorClass:
    kind: str
    retryable: bool

    @property
    def stops_tick(self) -> bool:
        return self.kind in STOP_KINDS


def _metadata(text: str | None) -> tuple[str | None, bool | None]:
    """``error.metadata.error_type`` and the ``retryable`` flag of an error body, if it has them."""
    try:
        data = orjson.loads(text) if text else None
    except orjson.JSONDecodeError:
        return None, None
    error = data.get("error") if isinstance(data, dict) else None
    meta = error.get("metadata") if isinstance(error, dict) else None
    if not isinstance(meta, dict):
        return None, None
    error_type = meta.get("error_type") if isinstance(meta.get("error_type"), str) else None
    availability = meta.get("availability")
    flag = availability.get("retryable") if isinstance(availability, dict) else meta.get("retryable")
    if error_type is None and isinstance(meta.get("reasons"), list):
        error_type = "moderation"  # the documented moderation metadata: reasons, flagged_input
    return error_type, flag if isinstance(flag, bool) else None


def _by_status(exchange: Exchange) -> str:
    status = exchange.status
    if exchange.body_bytes is not None:
        return "oversized"
    if exchange.error_kind in ("timeout", "transport"):
        return exchange.error_kind
    if status == 401:
        return "auth"
    if status == 402:
        return "credits"
    if status == 403:
        return "refusal"
    if status == 429:
        return "rate_limit"
    if status in (400, 404, 413, 422):
        return "bad_request"
    if status is not None and (status >= 500 or status == 408):
        return "server"
    return "body" if exchange.error_kind == "body" else "bad_request"


def classify(exchange: Exchange) -> ErrorClass | None:
    """The failure class of an exchange (None when it succeeded)."""
    if exchange.ok:
        return None
    error_type, flag = _metadata(exchange.text)
    kind = _by_status(exchange)
    if error_type and any(word in error_type.lower() for word in _REFUSAL_WORDS) and kind not in STOP_KINDS:
        kind = "refusal"
    retryable = kind not in _NOT_RETRIED if flag is None or kind in STOP_KINDS else flag
    return ErrorClass(kind, retryable)


def retry_decision(exchange: Exchange) -> bool | None:
    """The :meth:`ServiceClient.request` hook: whether to send this failed exchange again."""
    found = classify(exchange)
    return None if found is None else found.retryable
