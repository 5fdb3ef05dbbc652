"""The per-tick manifest: SHA-256 of every file a tick added, chained to the previous manifest.

A tick also adopts the files of earlier ticks that were interrupted before their manifest was
written (present, valid, listed by no manifest): they are listed in ``files`` like its own and
named in ``adopted``, so every file of the archive comes under a manifest and its time-stamp.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from .base import Record, UtcDatetime

Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class Manifest(Record):
    kind: Literal["manifest"] = "manifest"
    tick_at: UtcDatetime
    files: dict[str, Sha256] = Field(description="archive-relative path -> SHA-256 of its bytes")
    previous: str | None = Field(default=None, description="archive-relative path of the previous manifest")
    previous_sha256: Sha256 | None = None
    schedule: str | None = Field(default=None, max_length=200,
                                 description="the cron schedule that started the tick (GitHub's github.event.schedule)")
    scheduled_at: UtcDatetime | None = Field(default=None, description="the time that schedule last fired, at or before the tick began")
    schedule_delay_s: float | None = Field(default=None, ge=0,
                                           description="seconds from scheduled_at to the tick's start: how late the scheduler ran it")
    protocol_sha256: Sha256 | None = Field(
        default=None,
        description="SHA-256 of the request protocol of every configured LLM (collector/forecasters/llm/protocol.py)",
    )
    adopted: tuple[str, ...] = Field(
        default=(), description="files of earlier, interrupted ticks that no manifest listed, adopted by this one "
                                "(each is also in files)")

    @model_validator(mode="after")
    def _adopted_listed(self) -> Manifest:
        missing = [p for p in self.adopted if p not in self.files]
        if missing:
            raise ValueError(f"adopted files must be listed in files too: {missing[:3]}")
        return self
