"""The news digest of an evidence package: one configurable gatherer, under the open-book protocol.

The gatherer (``[evidence.gatherer]`` in ``prematch.toml``) is an LLM asked through OpenRouter
with the same ``openrouter:web_search`` tool, output and reasoning settings as an open-book
forecaster (:func:`collector.forecasters.llm.protocol.resolve` under ``open_book``), for a
fixed number of dated sources about the match with a short summary each. Its answer is kept
verbatim, every call with its usage, cost and tool trace (the :class:`Attempt` records the
forecasters keep). An item without a parseable publication time is kept with
``published_at = None``; an item the gatherer dates after the lock is kept as stated (the
record never hides what was returned) and ``verify`` reports the package.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import orjson

from collector.config import ArenaConfig, ForecasterConfig
from collector.config_sections import GathererSettings
from collector.forecasters.llm.openrouter import OpenRouterClient
from collector.forecasters.llm.protocol import build_body, resolve
from collector.forecasters.tasks import Budget
from collector.records import (
    Access,
    AttemptRole,
    Competition,
    Event,
    NewsDigest,
    NewsItem,
)

PROMPT = """You gather news for a football forecasting benchmark. Search the web for exactly {items} \
sources published before {lock} about this match and the two teams (injuries, suspensions, squad \
news, coaching changes, recent form). Do not report anything published after {lock}.

Match: {home} vs {away}
Competition: {competition}, {stage}
Kickoff (UTC): {kickoff}

Answer with one JSON object: {{"items": [{{"url": "...", "title": "...", "publisher": "...", \
"published_at": "YYYY-MM-DDTHH:MM:SSZ", "summary": "at most 60 words"}}]}} with exactly {items} items."""

ITEM_SCHEMA = {
    "type": "object", "additionalProperties": False,
    "required": ["url", "title", "publisher", "published_at", "summary"],
    "properties": {k: {"type": "string"} for k in ("url", "title", "publisher", "published_at", "summary")},
}  # fmt: skip
DIGEST_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["items"],
                 "properties": {"items": {"type": "array", "items": ITEM_SCHEMA}}}  # fmt: skip


def gatherer_config(settings: GathererSettings) -> ForecasterConfig:
    """The gatherer as a forecaster configuration, so it is asked exactly as an open-book model is."""
    return ForecasterConfig(id=settings.id, type="llm", model=settings.model, version=settings.model,
                            reasoning_supported=settings.reasoning_supported,
                            honours_temperature=settings.honours_temperature)  # fmt: skip


def news_prompt(competition: Competition, event: Event, lock: datetime, items: int) -> str:
    names = {t.id: t.name for t in competition.teams}
    stage = next((s.name for s in competition.stages if s.id == event.stage), event.stage)
    return PROMPT.format(items=items, lock=lock.strftime("%Y-%m-%dT%H:%M:%SZ"), home=names[event.home_team],
                         away=names[event.away_team], competition=competition.name, stage=stage,
                         kickoff=event.kickoff_utc.strftime("%Y-%m-%d %H:%M") if event.kickoff_utc else "unknown")


async def gather_news(
    arena: ArenaConfig, client: OpenRouterClient, budget: Budget, competition: Competition, event: Event,
    lock: datetime, deadline: datetime, clock: Callable[[], datetime],
) -> NewsDigest:  # fmt: skip
    """One gatherer call (with the client's transport retries); the digest records every attempt."""
    settings = arena.evidence.gatherer
    assert settings is not None
    protocol = resolve(arena, gatherer_config(settings), Access.OPEN_BOOK)
    text = news_prompt(competition, event, lock, settings.items)
    body = build_body(settings.model, [{"role": "user", "content": text}], protocol, schema=DIGEST_SCHEMA,
                      schema_name="news_digest")  # fmt: skip
    result = await client.chat(body, role=AttemptRole.FIRST, deadline=deadline)
    budget.add(result.cost)
    base = {"gatherer": settings.id, "model": settings.model, "requested_items": settings.items,
            "attempts": tuple(result.attempts)}  # fmt: skip
    if result.failure:
        return NewsDigest(**base, status="failed", errors=(result.error or result.failure,))
    items, errors = parse_items(result.content, clock())
    if len(items) != settings.items:
        errors.append(f"asked for {settings.items} items, got {len(items)}")
    return NewsDigest(**base, status="ok" if not errors else "invalid", items=tuple(items),
                      response_text=result.content, errors=tuple(errors))  # fmt: skip


def parse_items(content: str | None, retrieved_at: datetime) -> tuple[list[NewsItem], list[str]]:
    """The items of the gatherer's answer, and what was wrong with it (each error names the item and field)."""
    try:
        data = orjson.loads(content or "")
    except orjson.JSONDecodeError as exc:
        return [], [f"the answer is not JSON: {exc}"]
    raw = data.get("items") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        return [], ["the answer has no list 'items'"]
    items, errors = [], []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str) or not entry["url"].strip():
            errors.append(f"items[{i}]: no url")
            continue
        published, problem = _published(entry.get("published_at"))
        if problem:
            errors.append(f"items[{i}].published_at: {problem}")
        items.append(NewsItem(url=entry["url"].strip(), title=_text(entry.get("title")),
                              publisher=_text(entry.get("publisher")), published_at=published,
                              summary=_text(entry.get("summary")), retrieved_at=retrieved_at))  # fmt: skip
    return items, errors


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _published(value: object) -> tuple[datetime | None, str | None]:
    """A stated publication time as UTC; a date without time is taken as the end of that day (conservative)."""
    if not isinstance(value, str) or not value.strip():
        return None, "missing"
    text = value.strip()
    try:
        if len(text) == 10:
            return datetime.fromisoformat(text).replace(hour=23, minute=59, second=59, tzinfo=UTC), None
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None, f"not an ISO 8601 time: {text[:60]!r}"
    if parsed.tzinfo is None:
        return None, f"no time zone: {text[:60]!r}"
    return parsed.astimezone(UTC), None
