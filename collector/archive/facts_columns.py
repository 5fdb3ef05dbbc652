"""What the later stages need from one record file, as one row of typed columns.

A record file's *facts* are its validation verdict (valid, or the exact message the reader
gives), the path its key says it belongs at, its kind and identity key, its revision and
what it supersedes, and per kind the measures scoring needs: a forecast's cell, timing,
status and 90-minute answer; an event's stage, teams and kickoff; an outcome's scores and
advancing team. Every other kind carries its kind and key only.

Columns are numpy arrays, one row per distinct file content. Text is stored as codes into
one table of distinct strings shared by every text column (``-1`` is ``None``), so equal
strings have equal codes and columns join by code. Missing numbers are ``-1`` (goals), NaN
(floats: the contract forbids NaN, so it never stands for a real value) or ``NO_TIME``.
The extractor's source is part of the cache's fingerprint: change a column here and every
cached row is recomputed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

import numpy as np

from collector.archive.layout import identity, path_for
from collector.records import (
    RECORD_MODELS,
    Event,
    Forecast,
    ForecastStatus,
    MatchForecast,
    Outcome,
    OutcomeStatus,
    Record,
    Revisable,
)

KEY_SEPARATOR = "\x1f"  # joins an identity key's parts; no slug, enum value or archive path holds it
NO_TIME = int(np.iinfo(np.int64).min)  # a missing timestamp (microseconds since the epoch otherwise)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

TEXT = ("kind", "key", "expected_path", "problem", "supersedes", "competition_id", "target_kind", "target_id",
        "event_id", "forecaster", "forecaster_type", "model", "access", "strategy", "horizon", "clock", "status",
        "payload", "stage", "home_team", "away_team", "kickoff_source", "advancing_team")
BOOL = ("valid", "revisable", "knockout", "time_known")
INT = ("revision", "sample", "ml_home", "ml_away", "h", "a", "h_et", "a_et", "h_pen", "a_pen")
FLOAT = ("p_home", "p_draw", "p_away", "eh", "ea", "confidence", "home_advances", "away_advances",
         "lead_time_minutes")
TIME = ("recorded_at", "requested_at", "scheduled_at", "kickoff_utc")
DTYPES: dict[str, np.dtype] = {
    **{n: np.dtype(np.int32) for n in TEXT}, **{n: np.dtype(bool) for n in BOOL},
    **{n: np.dtype(np.int64) for n in INT + TIME}, **{n: np.dtype(np.float64) for n in FLOAT},
}
COLUMNS = tuple(DTYPES)
REQUIRED_TEXT = {  # text every valid row of a kind has (a store lacking one is not used)
    None: ("kind", "key", "expected_path", "clock"),
    "forecast": ("competition_id", "target_kind", "target_id", "forecaster", "forecaster_type", "access",
                 "strategy", "horizon", "status"),
    "event": ("competition_id", "event_id", "stage", "home_team", "away_team", "kickoff_source", "status"),
    "outcome": ("competition_id", "event_id", "status"),
}
CHOICES = {  # (kind, column) -> the values it may hold in a valid row; the resolution relies on these
    (None, "kind"): frozenset(RECORD_MODELS),
    ("forecast", "status"): frozenset(s.value for s in ForecastStatus),
    ("outcome", "status"): frozenset(s.value for s in OutcomeStatus),
}
_MISSING = {**{n: None for n in TEXT}, **{n: False for n in BOOL}, **{n: -1 for n in INT},
            **{n: float("nan") for n in FLOAT}, **{n: NO_TIME for n in TIME}}


class FactsRows(Protocol):
    """What resolution and joins read of a loaded facts table (``collector.archive.facts.ArchiveFacts``),
    named here so that they need not import the loader."""

    paths: list[str]
    columns: dict[str, np.ndarray]
    strings: list[str]
    ok: np.ndarray

    def __len__(self) -> int: ...
    def code(self, text: str) -> int: ...
    def text(self, name: str, rows: np.ndarray | None = None) -> np.ndarray: ...
    def rows(self, kind: str, *, effective: bool = True) -> np.ndarray: ...


def record_facts(record: Record | None, problem: str | None) -> dict:
    """One file's facts from the reader's verdict on its bytes (a record, or the problem message)."""
    if record is None:
        return {**_MISSING, "problem": problem}
    row = {**_MISSING, "valid": True, "kind": record.kind, "key": KEY_SEPARATOR.join(identity(record)),
           "expected_path": path_for(record), "clock": record.clock.value, "recorded_at": micros(record.recorded_at)}
    if isinstance(record, Revisable):
        row.update(revisable=True, revision=record.revision, supersedes=record.supersedes)
    for name in ("competition_id", "event_id"):  # outcomes, match reports, evidence, odds: their match
        value = getattr(record, name, None)
        if isinstance(value, str):
            row[name] = value
    if isinstance(record, Forecast):
        _forecast(record, row)
    elif isinstance(record, Event):
        _event(record, row)
    elif isinstance(record, Outcome):
        _outcome(record, row)
    return row


def _forecast(f: Forecast, row: dict) -> None:
    row.update(target_kind=f.target_kind, target_id=f.target_id, forecaster=f.forecaster,
               forecaster_type=f.forecaster_type.value, model=f.model, access=f.access.value,
               strategy=f.strategy.value, horizon=f.horizon.value, sample=f.sample, status=f.status.value,
               revision=f.revision, supersedes=f.supersedes, requested_at=micros(f.requested_at),
               scheduled_at=micros(f.scheduled_at), kickoff_utc=micros(f.kickoff_utc),
               time_known=f.kickoff_time_known, lead_time_minutes=_float(f.lead_time_minutes),
               payload=None if f.payload is None else f.payload.target)
    p = f.payload
    if isinstance(p, MatchForecast):
        row.update(p_home=p.home_win_90, p_draw=p.draw_90, p_away=p.away_win_90, ml_home=p.most_likely_score_90.home,
                   ml_away=p.most_likely_score_90.away, eh=p.expected_home_goals_90, ea=p.expected_away_goals_90,
                   confidence=_float(p.confidence), home_advances=_float(p.home_advances),
                   away_advances=_float(p.away_advances))


def _event(e: Event, row: dict) -> None:
    row.update(event_id=e.id, stage=e.stage, knockout=e.knockout, home_team=e.home_team, away_team=e.away_team,
               kickoff_source=e.kickoff_source, kickoff_utc=micros(e.kickoff_utc), status=e.status.value,
               time_known=e.kickoff_utc is not None)


def _outcome(o: Outcome, row: dict) -> None:
    row.update(event_id=o.event_id, status=o.status.value, advancing_team=o.advancing_team)
    for score, home, away in ((o.score_90, "h", "a"), (o.score_extra_time, "h_et", "a_et"),
                              (o.score_penalties, "h_pen", "a_pen")):
        if score is not None:
            row[home], row[away] = score.home, score.away


def micros(moment: datetime | None) -> int:
    """Microseconds since the epoch of a UTC timestamp, exactly (no float on the way); NO_TIME for None."""
    if moment is None:
        return NO_TIME
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _float(value: float | None) -> float:
    return float("nan") if value is None else value
