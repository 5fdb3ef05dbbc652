"""A real git repository in a temporary folder, with commits at chosen dates, for audit tests.

Records are built with the contract models and written with the archive writer, exactly
as the collector does; ``tick`` also writes the per-tick manifest.
"""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from collector.archive.write.manifest import write_tick_manifest
from collector.archive.write.writer import ArchiveWriter
from collector.records import (
    Access,
    Clock,
    Event,
    Forecast,
    ForecasterType,
    ForecastStatus,
    Horizon,
    MatchForecast,
    Outcome,
    OutcomeStatus,
    Record,
    ResolutionRule,
    Score,
    Strategy,
)

KICKOFF = datetime(2026, 6, 11, 19, tzinfo=UTC)


def at(day: int, hour: int = 12, minute: int = 0) -> datetime:
    return datetime(2026, 6, day, hour, minute, tzinfo=UTC)


class GitRepo:
    """``archive/`` inside a fresh repository; every commit is dated by the caller."""

    def __init__(self, root: Path):
        self.root = root
        self.archive = root / "archive"
        self.archive.mkdir(parents=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, when: datetime | None = None) -> str:
        env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid"}
        env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
        if when is not None:
            env.update(GIT_AUTHOR_DATE=when.isoformat(), GIT_COMMITTER_DATE=when.isoformat())
        done = subprocess.run(["git", "-C", str(self.root), *args], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def commit(self, when: datetime, message: str = "tick") -> str:
        self.git("add", "-A", "archive")
        self.git("commit", "-q", "--allow-empty", "-m", message, when=when)
        return self.git("rev-parse", "HEAD").strip()

    def tick(self, when: datetime, *records: Record, clock: Clock = Clock.LIVE) -> str:
        """Write records and the tick's manifest, then commit them at ``when``."""
        writer = ArchiveWriter(self.archive)
        for record in records:
            writer.write(record)
        write_tick_manifest(writer, when, clock)
        return self.commit(when)


def event(**changes: Any) -> Event:
    fields: dict[str, Any] = dict(
        recorded_at=at(1),
        competition_id="worldcup-2026",
        id="mex-v-rsa",
        stage="group",
        group="A",
        kickoff_utc=KICKOFF,
        kickoff_date=date(2026, 6, 11),
        kickoff_source="2026-06-11 13:00 UTC-6",
        home_team="mex",
        away_team="rsa",
        knockout=False,
        resolution=ResolutionRule.REGULATION,
        source="openfootball",
        source_retrieved_at=at(1),
    )
    fields.update(changes)
    return Event(**fields)


def outcome(**changes: Any) -> Outcome:
    fields: dict[str, Any] = dict(
        recorded_at=at(12),
        competition_id="worldcup-2026",
        event_id="mex-v-rsa",
        status=OutcomeStatus.FINISHED,
        score_90=Score(home=2, away=0),
        source="openfootball",
        source_retrieved_at=at(12),
        source_payload={"score": {"ft": [2, 0]}},
    )
    fields.update(changes)
    return Outcome(**fields)


def forecast(forecaster: str = "elo", requested_at: datetime | None = None, **changes: Any) -> Forecast:
    requested = requested_at or KICKOFF - timedelta(hours=24)
    fields: dict[str, Any] = dict(
        recorded_at=requested,
        competition_id="worldcup-2026",
        target_kind="match",
        target_id="mex-v-rsa",
        forecaster=forecaster,
        forecaster_type=ForecasterType.BASELINE,
        model_version="elo-1",
        access=Access.CLOSED_BOOK,
        strategy=Strategy.PROBABILISTIC_FORECAST,
        horizon=Horizon.T_MINUS_24H,
        kickoff_utc=KICKOFF,
        scheduled_at=requested,
        requested_at=requested,
        status=ForecastStatus.VALID,
        payload=MatchForecast(
            home_win_90=0.5,
            draw_90=0.3,
            away_win_90=0.2,
            expected_home_goals_90=1.4,
            expected_away_goals_90=0.8,
            most_likely_score_90=Score(home=1, away=0),
        ),
    )
    fields.update(changes)
    return Forecast(**fields)
