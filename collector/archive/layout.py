"""Where each record lives in ``archive/``: one deterministic, readable path per record key.

    {competition}/competition.r000.json
    {competition}/events/{event}/event.r000.json
    {competition}/events/{event}/outcome.r000.json
    {competition}/events/{event}/match_report.r000.json
    {competition}/events/{event}/forecasts/{forecaster}/{access}.{strategy}.{horizon}.s0.json
    {competition}/questions/{question}/question.r000.json
    {competition}/questions/{question}/resolution.r000.json
    {competition}/questions/{question}/forecasts/{forecaster}/{access}.{strategy}.{horizon}.s0.json
    {competition}/events/{event}/evidence/{horizon}.json
    {competition}/tournament/full-tournament/forecasts/{forecaster}/{access}.{strategy}.{horizon}.s0.json
    {competition}/events/{event}/statistics/{forecaster}/{access}.{strategy}.{horizon}.s0.a{attempt}.{generation}.json
    {competition}/questions/{question}/statistics/{forecaster}/{access}.{strategy}.{horizon}.s0.a{attempt}.{generation}.json
    {competition}/events/{event}/odds/{source}/{horizon}.json
    {competition}/markets/{event}/event.json, resolution.json, forecasts/{forecaster}/{condition}.{horizon}.json
    manifests/{YYYY}/{YYYYMMDDTHHMMSSffffffZ}.json

``rNNN`` is the revision: a correction at the source is a new file with the next revision
that names the one it supersedes. Paths are POSIX, relative to the archive root.
"""

from __future__ import annotations

from collector.records import (
    AttemptStatistics,
    BinaryEvent,
    BinaryForecast,
    BinaryResolution,
    Competition,
    Event,
    Evidence,
    Forecast,
    Manifest,
    MatchReport,
    OddsSnapshot,
    Outcome,
    Question,
    QuestionResolution,
    Record,
)

SCHEMA_DIR = "schema"
MANIFEST_DIR = "manifests"


def is_record_path(relative: str) -> bool:
    """Whether an archive-relative POSIX path names a record file: the one rule for every reader.

    A record file ends in ``.json``, lies outside ``schema/`` (generated JSON Schemas) and has
    no path part starting with ``.`` (editor and tool folders, dotfiles). The reader, ``verify``
    and the pull-request guard all ask this function, so they agree on what the archive holds.
    """
    parts = relative.split("/")
    return (relative.endswith(".json") and parts[0] != SCHEMA_DIR
            and not any(part.startswith(".") for part in parts))


def _rev(revision: int) -> str:
    return f"r{revision:03d}"


def competition_path(competition_id: str, revision: int = 0) -> str:
    return f"{competition_id}/competition.{_rev(revision)}.json"


def event_path(competition_id: str, event_id: str, revision: int = 0) -> str:
    return f"{competition_id}/events/{event_id}/event.{_rev(revision)}.json"


def outcome_path(competition_id: str, event_id: str, revision: int = 0) -> str:
    return f"{competition_id}/events/{event_id}/outcome.{_rev(revision)}.json"


def match_report_path(competition_id: str, event_id: str, revision: int = 0) -> str:
    return f"{competition_id}/events/{event_id}/match_report.{_rev(revision)}.json"


def question_path(competition_id: str, question_id: str, revision: int = 0) -> str:
    return f"{competition_id}/questions/{question_id}/question.{_rev(revision)}.json"


def resolution_path(competition_id: str, question_id: str, revision: int = 0) -> str:
    return f"{competition_id}/questions/{question_id}/resolution.{_rev(revision)}.json"


def forecast_path(
    competition_id: str,
    target_kind: str,
    target_id: str,
    forecaster: str,
    access: str,
    strategy: str,
    horizon: str,
    sample: int = 0,
    revision: int = 0,
) -> str:
    """A forecast key's path; a retry (revision n >= 1, see :class:`Forecast`) adds ``.rNNN``."""
    folder = {"match": "events", "question": "questions"}.get(target_kind, "tournament")
    retry = f".{_rev(revision)}" if revision else ""
    name = f"{access}.{strategy}.{horizon}.s{sample}{retry}.json"
    return f"{competition_id}/{folder}/{target_id}/forecasts/{forecaster}/{name}"


def evidence_path(competition_id: str, event_id: str, horizon: str) -> str:
    """The evidence package of one (event, horizon): written once, never revised."""
    return f"{competition_id}/events/{event_id}/evidence/{horizon}.json"


def statistics_path(record: AttemptStatistics) -> str:
    """Beside the forecast's folder: ``.../forecasts/F/NAME.json`` -> ``.../statistics/F/NAME.aN.GEN.json``."""
    head, sep, tail = record.forecast_path.rpartition("/forecasts/")
    if not sep or not tail.endswith(".json"):
        raise ValueError(f"forecast_path {record.forecast_path!r} is not a forecast's archive path")
    return f"{head}/statistics/{tail[: -len('.json')]}.a{record.attempt_index}.{record.generation_id}.json"


def odds_path(competition_id: str, event_id: str, source: str, horizon: str) -> str:
    """An odds snapshot: one per event x source x horizon, written once."""
    return f"{competition_id}/events/{event_id}/odds/{source}/{horizon}.json"


def manifest_path(manifest: Manifest) -> str:
    stamp = manifest.tick_at.strftime("%Y%m%dT%H%M%S%fZ")
    return f"{MANIFEST_DIR}/{manifest.tick_at:%Y}/{stamp}.json"


def path_for(record: Record) -> str:
    """The one archive-relative path a record belongs at."""
    match record:
        case Competition():
            return competition_path(record.id, record.revision)
        case Event():
            return event_path(record.competition_id, record.id, record.revision)
        case Outcome():
            return outcome_path(record.competition_id, record.event_id, record.revision)
        case MatchReport():
            return match_report_path(record.competition_id, record.event_id, record.revision)
        case Question():
            return question_path(record.competition_id, record.id, record.revision)
        case QuestionResolution():
            return resolution_path(record.competition_id, record.question_id, record.revision)
        case Forecast():
            return forecast_path(
                record.competition_id,
                record.target_kind,
                record.target_id,
                record.forecaster,
                record.access.value,
                record.strategy.value,
                record.horizon.value,
                record.sample,
                record.revision,
            )
        case Manifest():
            return manifest_path(record)
        case AttemptStatistics():
            return statistics_path(record)
        case Evidence():
            return evidence_path(record.competition_id, record.event_id, record.horizon.value)
        case OddsSnapshot():
            return odds_path(record.competition_id, record.event_id, record.source, record.horizon.value)
        case BinaryEvent():
            return f"{record.competition_id}/markets/{record.id}/event.json"
        case BinaryResolution():
            return f"{record.competition_id}/markets/{record.event_id}/resolution.json"
        case BinaryForecast():
            return (f"{record.competition_id}/markets/{record.event_id}/forecasts/{record.forecaster}/"
                    f"{record.condition}.{record.horizon.value}.json")
    raise TypeError(f"no archive path for {type(record).__name__}")


def identity(record: Record) -> tuple[str, ...]:
    """The key that revisions of one record share (kind plus natural key, without revision)."""
    match record:
        case Competition():
            return ("competition", record.id)
        case Event():
            return ("event", record.competition_id, record.id)
        case Outcome():
            return ("outcome", record.competition_id, record.event_id)
        case MatchReport():
            return ("match_report", record.competition_id, record.event_id)
        case Question():
            return ("question", record.competition_id, record.id)
        case QuestionResolution():
            return ("question_resolution", record.competition_id, record.question_id)
        case Forecast():
            return ("forecast", *map(str, record.key()))
    return (record.kind, path_for(record))
