"""OpenRouter failures classified by kind (collector/forecasters/llm/errors.py): retried or not, stop or not."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from collector.forecasters.llm.errors import classify, retry_decision
from collector.forecasters.llm.limits import same_model
from collector.http import Exchange

NOW = datetime(2026, 6, 10, tzinfo=UTC)


def failed(status: int | None, body: dict | None = None, kind: str = "http", **extra) -> Exchange:
    return Exchange(started_at=NOW, status=status, text=json.dumps(body) if body else None, error_kind=kind,
                    error="failed", **extra)  # fmt: skip


@pytest.mark.parametrize(("status", "kind", "retryable", "stops"), [
    (401, "auth", False, True), (402, "credits", False, True), (403, "refusal", False, False),
    (400, "bad_request", False, False), (429, "rate_limit", True, False), (502, "server", True, False),
    (503, "server", True, False), (408, "server", True, False),
])  # fmt: skip
def test_http_errors_by_status(status, kind, retryable, stops):
    found = classify(failed(status, {"error": {"code": status, "message": "x"}}))
    assert (found.kind, found.retryable, found.stops_tick) == (kind, retryable, stops)


def test_metadata_decides_over_the_status():
    final = {"error": {"code": 503, "message": "down", "metadata": {"availability": {"retryable": False}}}}
    assert classify(failed(503, final)).retryable is False
    again = {"error": {"code": 400, "message": "x", "metadata": {"error_type": "provider_overloaded", "retryable": True}}}
    assert retry_decision(failed(400, again)) is True
    policy = {"error": {"code": 200, "message": "blocked", "metadata": {"error_type": "content_policy_violation"}}}
    found = classify(failed(200, policy, kind="body"))
    assert (found.kind, found.retryable) == ("refusal", False)
    moderation = {"error": {"code": 403, "message": "flagged", "metadata": {"reasons": ["x"], "flagged_input": "y"}}}
    assert classify(failed(403, moderation)).kind == "refusal"
    revoked = {"error": {"code": 401, "message": "x", "metadata": {"retryable": True}}}
    assert classify(failed(401, revoked)).retryable is False  # a revoked key is never asked again


def test_transport_timeouts_oversized_and_success():
    assert classify(failed(None, kind="transport")).kind == "transport"
    assert classify(failed(None, kind="timeout")).retryable is True
    assert classify(failed(200, kind="body", body_bytes=10**8, body_sha256="0" * 64)).kind == "oversized"
    assert classify(Exchange(started_at=NOW, status=200, text="{}")) is None
    assert classify(failed(200, kind="body")).kind == "body"  # an error inside 200 without metadata: retried
    assert classify(failed(200, kind="body")).retryable is True


@pytest.mark.parametrize(("requested", "served", "same"), [
    ("openai/gpt-4o", "openai/gpt-4o", True), ("openai/gpt-4o", "openai/gpt-4o-2024-08-06", True),
    ("openai/gpt-4o:free", "openai/gpt-4o", True), ("openai/gpt-4o", "gpt-4o-2024-08-06", True),
    ("google/gemini-2.5-pro", "google/gemini-2.5-pro-preview-05-06", True),
    ("openai/gpt-4o", "openai/gpt-4o-mini", False), ("anthropic/claude-3.5", "anthropic/claude-3.5-sonnet", False),
    ("x/y", "z/y", False), ("x/y", None, True),
])  # fmt: skip
def test_same_model_up_to_a_version_suffix(requested, served, same):
    assert same_model(requested, served) is same
