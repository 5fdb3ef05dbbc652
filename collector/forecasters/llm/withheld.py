"""A forecast the archive writer refused, made writable: the provider's texts withheld, its calls kept.

The writer refuses a record that still holds a secret or is over the size limit. An LLM
forecast is then not dropped (a later tick would call the key ``missed`` and the calls made,
and the money spent, would be lost): :func:`withheld` keeps every attempt's role, times, HTTP
status, usage, cost and error kind, and replaces what the provider wrote (the body, its
identifiers, the tool trace, the rationale, citations, validation messages) by a note of its
length and SHA-256. The parsed numbers stay when they still make a valid record; :func:`bare`
drops the answer too, leaving an ``api_error`` (retried at a later tick, like any failed call).
"""

from __future__ import annotations

import hashlib

from collector.records import (
    Attempt,
    Forecast,
    ForecastStatus,
    MatchForecast,
    QuestionForecast,
    ToolTrace,
    Validation,
)
from collector.redaction import contains_secret


def _note(text: str | None, reason: str) -> str | None:
    if text is None:
        return None
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"[withheld ({reason}): {len(text)} characters, SHA-256 {digest}]"


def _request(body: dict) -> dict:
    """The request body with each message's text noted: it is the record's own ``prompt`` (or a repair
    prompt made from it), and a record over the size limit holds it once."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return body
    noted = [{**m, "content": _note(m["content"], "the prompt, kept once in the record's prompt")} if isinstance(m, dict) and isinstance(m.get("content"), str)
             else m for m in messages]  # fmt: skip
    return {**body, "messages": noted}


def _attempt(attempt: Attempt, reason: str, large: bool) -> Attempt:
    return attempt.model_copy(update={
        "request_body": _request(attempt.request_body) if large else attempt.request_body,
        "response_text": _note(attempt.response_text, reason), "response_id": None, "served_model": None,
        "provider": None, "tool_trace": ToolTrace(search_observed=attempt.tool_trace.search_observed),
        "error": attempt.error if attempt.error is None or not contains_secret(attempt.error) else _note(attempt.error, reason),
    })  # fmt: skip


def withheld(record: Forecast, reason: str, large: bool = False) -> Forecast:
    """``record`` with every text the provider wrote replaced by a note (see the module docstring);
    ``large``: the record was over the size limit, and the request bodies' prompts are noted too."""
    payload = record.payload
    if isinstance(payload, MatchForecast):
        payload = payload.model_copy(update={"reason": ""})
    elif isinstance(payload, QuestionForecast):
        payload = payload.model_copy(update={"reasoning_summary": ""})
    validation = record.validation.model_copy(update={
        "errors": (f"the provider's texts are withheld: {reason}",), "diagnostics": {}})  # fmt: skip
    search = record.search.model_copy(update={"citations": ()}) if record.search is not None else None
    return record.model_copy(update={
        "attempts": tuple(_attempt(a, reason, large) for a in record.attempts), "payload": payload, "search": search,
        "validation": validation, "served_model": None, "served_model_differs": False,
    })  # fmt: skip


def bare(record: Forecast, reason: str, large: bool = False) -> Forecast:
    """:func:`withheld`, and the answer dropped too: an ``api_error`` naming ``reason``."""
    kept = withheld(record, reason, large)
    return kept.model_copy(update={"payload": None, "status": ForecastStatus.API_ERROR,
                                   "validation": Validation(errors=(f"the answer is withheld: {reason}",))})
