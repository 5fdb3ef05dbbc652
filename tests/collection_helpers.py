"""Small hand-built records for the collection tests (no copy of the real data)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import cache
from pathlib import Path

from collector.competitions import load_competition
from collector.config import parse_config
from collector.forecasters.tasks import ScheduledTask
from collector.records import (
    Access,
    Clock,
    Competition,
    Event,
    Horizon,
    PredictionType,
    Question,
    ResolutionRule,
    Strategy,
)

T0 = datetime(2026, 6, 1, 12, tzinfo=UTC)
KICKOFF = datetime(2026, 6, 11, 19, tzinfo=UTC)
FAKE_KEY = "sk-or-v1-PREMATCH-TEST-KEY-7f3a9c"
# One LLM forecaster ``test.model`` against the local OpenRouter-format server, no back-off (TOML).
TEST_LLM = """
[openrouter]
max_attempts = 2
base_delay_s = 0
[[forecasters]]
id = "test.model"
type = "llm"
model = "test/model"
version = "test/model@1"
"""


@cache
def world_cup() -> Competition:
    return load_competition("worldcup-2026", T0)


def make_event(**changes) -> Event:
    fields = dict(
        recorded_at=T0, competition_id="worldcup-2026", id="mex-v-rsa", stage="group", group="A",
        kickoff_utc=KICKOFF, kickoff_date=date(2026, 6, 11), kickoff_source="2026-06-11 13:00 UTC-6",
        venue="Mexico City", home_team="mex", away_team="rsa", knockout=False,
        resolution=ResolutionRule.REGULATION, source="test", source_retrieved_at=T0,
    )  # fmt: skip
    fields.update(changes)
    return Event(**fields)


def knockout_event(**changes) -> Event:
    base = dict(id="m073", stage="round-of-32", group=None, match_number=73, knockout=True,
                resolution=ResolutionRule.EXTRA_TIME_AND_PENALTIES, home_team="kor", away_team="cze")  # fmt: skip
    base.update(changes)
    return make_event(**base)


def make_question(**changes) -> Question:
    c = world_cup()
    fields = dict(
        recorded_at=T0, competition_id=c.id, id="group_winner_a", label="Winner of Group A",
        meaning="The team that finishes first in Group A.", prediction_type=PredictionType.SINGLE_CHOICE,
        k=1, group="A", candidates=("mex", "rsa", "kor", "cze"), closes_at=KICKOFF,
    )  # fmt: skip
    fields.update(changes)
    return Question(**fields)


def make_task(event: Event | None = None, question: Question | None = None, **changes) -> ScheduledTask:
    if event is None and question is None:
        event = make_event()
    deadline = event.kickoff_utc if event is not None else question.closes_at
    fields = dict(
        competition=world_cup(), access=Access.CLOSED_BOOK, strategy=Strategy.DIRECT_SCORE,
        horizon=Horizon.T_MINUS_24H, sample=0, scheduled_at=deadline - timedelta(hours=24),
        now=deadline - timedelta(hours=24), deadline=deadline, clock=Clock.LIVE, event=event, question=question,
        window_closes=deadline - timedelta(hours=22, minutes=30),
    )  # fmt: skip
    fields.update(changes)
    return ScheduledTask(**fields)


def arena(**arena_keys):
    data = {
        "arena": {"competitions": ["worldcup-2026"], "concurrency": 4, "spending_cap_usd": 100.0, **arena_keys},
        "openrouter": {"max_attempts": 3, "base_delay_s": 0.0, "total_timeout_s": 5.0},
        "forecasters": [{"id": "test.model", "type": "llm", "model": "test/model", "version": "test/model@1"}],
    }
    return parse_config(data, "test.toml")


WORLD_CUP_FILE = "openfootball/worldcup-2026/worldcup.json"


def edited_data(tmp_path, data_dir, edit) -> Path:
    """A data folder like ``data_dir`` whose World Cup 2026 file is ``edit(document)`` (made at run time: every
    other file is a link to the real one). ``without_results`` is the edit of a folder as it stood before
    the tournament: no scores, no goals."""
    import json

    folder = Path(tmp_path) / "data"
    (folder / WORLD_CUP_FILE).parent.mkdir(parents=True)
    for top in Path(data_dir).iterdir():
        if top.name != "openfootball":
            (folder / top.name).symlink_to(top)
    for competition in (Path(data_dir) / "openfootball").iterdir():
        if competition.name != "worldcup-2026":
            (folder / "openfootball" / competition.name).symlink_to(competition)
    document = edit(json.loads((Path(data_dir) / WORLD_CUP_FILE).read_text(encoding="utf-8")))
    (folder / WORLD_CUP_FILE).write_text(json.dumps(document), encoding="utf-8")
    return folder


def without_results(document: dict) -> dict:
    for match in document["matches"]:
        for field in ("score", "goals1", "goals2"):
            match.pop(field, None)
    return document
