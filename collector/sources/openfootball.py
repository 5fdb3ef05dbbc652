"""openfootball JSON (worldcup.json, football.json) in all its shapes, as :class:`SourceMatch`.

Shapes handled:

* ``{"matches": [...]}`` with ``"time": "13:00 UTC-6"`` (2026 World Cup: offset given);
* league files with ``"time": "20:00"`` local clock time and no offset: the competition's
  IANA time zone applies; a match with a date but no time has ``kickoff_utc = None``;
* ``{"rounds": [{"name": ..., "matches": [...]}]}`` with team objects (``{"name", "code"}``)
  and ``score1``/``score2``/``score1i``/``score1et``/``score1p`` fields (older repositories).

Scores: ``ft`` is the 90-minute score, ``et`` the cumulative score after extra time, ``p``
the shoot-out alone, ``ht`` the half-time score. ``goals1`` are the goals credited to team 1
(its own goals included, flagged ``owngoal``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import orjson
from pydantic import ValidationError

from collector.archive.reader import describe_validation_error
from collector.competitions import Definition
from collector.competitions.teams import resolve_team
from collector.datasource import DataSource
from collector.errors import Problem, SourceError
from collector.records import Competition, Goal
from collector.records.competition import SLOT_RULE
from collector.sources.base import (
    MatchStatus,
    SourceBatch,
    SourceMatch,
    score_from_pair,
)
from collector.sources.bracket import number_by_slot_dates
from collector.sources.checks import (
    LAST_STOPPAGE_MINUTE,
    batch_problems,
    edition_problems,
    goal_problems,
    late_goal_problems,
    score_problems,
)
from collector.sources.corrections import apply as apply_corrections
from collector.sources.corrections import load_corrections
from collector.sources.legs import pair_legs, two_legged_stages
from collector.sources.openfootball_rounds import flatten_rounds

HELD = (" (the match is registered; its outcome is held back until a correction is applied: a corrections file "
        "beside the definition, docs/competitions.md)")
_TIME = re.compile(r"^(\d{1,2}):(\d{2})(?:\s*(UTC|GMT|Z)(?:\s*([+-])(\d{1,2})(?::?(\d{2}))?)?)?$", re.IGNORECASE)
_MINUTE = re.compile(r"^\s*(\d{1,3})(?:\s*\+\s*(\d{1,2}))?\s*'?\s*$")
_NUMBER = re.compile(r"(\d+)\s*$")
_STATUS = {
    "postponed": MatchStatus.POSTPONED,
    "cancelled": MatchStatus.CANCELLED,
    "canceled": MatchStatus.CANCELLED,
    "abandoned": MatchStatus.ABANDONED,
    "suspended": MatchStatus.SUSPENDED,
    "awarded": MatchStatus.AWARDED,
}


class OpenfootballSource:
    """Reads one openfootball JSON file through a :class:`DataSource`."""

    name = "openfootball"

    def __init__(self, definition: Definition, data: DataSource, *, retrieved_at: datetime | None = None):
        if not definition.source.file:
            raise SourceError(f"{definition.path}: [source] names no openfootball file")
        self.definition = definition
        self.data = data.add_urls(definition.source.urls)
        self.file = definition.source.file
        self.retrieved_at = retrieved_at

    def fetch(self, competition: Competition) -> SourceBatch:
        batch = SourceBatch(source=f"openfootball:{self.file}", retrieved_at=self.retrieved_at or datetime.now(UTC))
        where = self.data.describe(self.file)
        try:
            document = orjson.loads(self.data.read_bytes(self.file))
        except orjson.JSONDecodeError as exc:
            batch.problems.append(Problem(where, f"not valid JSON: {exc}"))
            return batch
        except SourceError as exc:  # the message names the file already
            batch.problems.append(Problem(where, str(exc).removeprefix(f"{where}: ").removeprefix(f"{self.file}: ")))
            return batch
        raw_matches = _match_list(document)
        if raw_matches is None:
            batch.problems.append(Problem(where, "expected an object with a 'matches' or 'rounds' list"))
            return batch
        tz = ZoneInfo(competition.time_zone)
        corrections = load_corrections(self.definition.path, competition.id)
        batch.problems += corrections.problems
        for index, raw in enumerate(raw_matches):
            warnings: list[str] = []
            fixed, applied, bad = apply_corrections(raw, corrections)
            batch.problems += bad
            try:
                match = self._parse(fixed, competition, tz, batch.source, warnings)
                batch.matches.append(replace(match, payload=raw, corrections=applied) if applied else match)
                batch.problems += [Problem(f"{where} matches[{index}] {_label(raw)}", w) for w in warnings]
            except (SourceError, ValueError, TypeError, KeyError) as exc:
                batch.problems.append(Problem(f"{where} matches[{index}] {_label(raw)}", _message(exc)))
        batch.problems += corrections.unused_problems()
        for match, message in batch_problems(batch.matches, competition):
            batch.problems.append(Problem(f"{where} {match.label}" if match else where, message))
            batch.matches = [m for m in batch.matches if m is not match]
        batch.matches = number_by_slot_dates(batch.matches, competition)
        batch.matches, legs = pair_legs(batch.matches, competition)
        batch.problems += [Problem(f"{where} {match.label}", message) for match, message in legs]
        return batch

    def _parse(self, raw: Any, competition: Competition, tz: ZoneInfo, source: str,
               warnings: list[str]) -> SourceMatch:
        if not isinstance(raw, dict):
            raise ValueError(f"a match must be an object, got {type(raw).__name__}")
        label = _label(raw)
        round_name = str(raw.get("round") or "")
        stage = self.definition.stage_for_round(round_name)
        if stage is None:
            raise ValueError(f"field round: {round_name!r} maps to no stage of {competition.id}")
        knockout = competition.stage(stage).knockout
        kickoff_date, kickoff_utc, kickoff_source = parse_kickoff(raw.get("date"), raw.get("time"), tz)
        home, home_slot = _team(competition, raw.get("team1"), source, label)
        away, away_slot = _team(competition, raw.get("team2"), source, label)
        status, scores = _status_and_scores(raw)
        number = raw.get("num")
        if number is not None and (not isinstance(number, int) or isinstance(number, bool) or number < 1):
            raise ValueError(f"field num: expected a positive match number, got {number!r}")
        if raw.get("score_conflict") is not None:
            raise ValueError(f"fields score and score1/score2 disagree: {raw['score_conflict']}")
        group = raw.get("group") or (round_name if round_name.startswith("Group ") and not knockout else None)
        matchday = _NUMBER.search(round_name)
        goals = _goals(raw, home, away, scores) if scores else None
        inconsistent = score_problems(scores.get("score_90"), scores.get("score_extra_time"),
                                      scores.get("score_penalties"), stage not in two_legged_stages(competition)) \
            if scores else []
        if scores and knockout and stage not in two_legged_stages(competition):
            inconsistent += edition_problems(competition, stage, scores.get("score_90"), scores.get("score_extra_time"),
                                             scores.get("score_penalties"))
        inconsistent += late_goal_problems(goals, scores.get("score_90"), scores.get("score_extra_time"))
        held = None
        if inconsistent:  # the result is in doubt: the match stays an event, its outcome decides nothing
            held = "; ".join(inconsistent) + HELD
            status, scores, goals = MatchStatus.IN_DOUBT, {}, None
        elif dropped := goal_problems(goals, home, away, scores.get("score_90"), scores.get("score_extra_time")):
            held = "; ".join(dropped) + HELD + "; the score decides who advances"
        if held is not None:
            warnings.append(held)
        return SourceMatch(
            label=label,
            stage=stage,
            round_name=round_name,
            kickoff_date=kickoff_date,
            kickoff_source=kickoff_source,
            kickoff_utc=kickoff_utc,
            home_team=home,
            away_team=away,
            home_slot=home_slot,
            away_slot=away_slot,
            status=status,
            payload=raw,
            knockout=knockout,
            match_number=number,
            group=str(group).removeprefix("Group ").strip() if group else None,
            matchday=int(matchday.group(1)) if matchday and not knockout else None,
            venue=raw.get("ground") or raw.get("stadium") or None,
            goals=goals,
            held=held,
            **scores,
        )


def _match_list(document: Any) -> list[Any] | None:
    if isinstance(document, dict) and isinstance(document.get("matches"), list):
        return document["matches"]
    if isinstance(document, dict) and isinstance(document.get("rounds"), list):
        return flatten_rounds(document["rounds"])
    return None


def _label(raw: Any) -> str:
    if not isinstance(raw, dict):
        return "(not an object)"
    names = [t.get("name") if isinstance(t, dict) else t for t in (raw.get("team1"), raw.get("team2"))]
    number = f"({raw['num']}) " if raw.get("num") is not None else ""
    return f"{number}{raw.get('round', '?')} {raw.get('date', '?')} {names[0]} v {names[1]}"


def _message(exc: Exception) -> str:
    if isinstance(exc, ValidationError):  # a Score or Goal the contract refuses: one line
        return describe_validation_error(exc)
    return str(exc) if not isinstance(exc, KeyError) else f"missing field {exc}"


def parse_kickoff(raw_date: Any, raw_time: Any, tz: ZoneInfo) -> tuple[date, datetime | None, str]:
    """(local date, UTC kickoff or None when no time is given, the source's own string)."""
    if not isinstance(raw_date, str):
        raise ValueError(f"field date: missing or not a string ({raw_date!r})")
    try:
        day = date.fromisoformat(raw_date.strip())
    except ValueError:
        raise ValueError(f"field date: unparseable date {raw_date!r} (expected YYYY-MM-DD)") from None
    if raw_time is None or raw_time == "":
        return day, None, raw_date
    found = _TIME.match(str(raw_time).strip()) if isinstance(raw_time, str) else None
    if not found:
        raise ValueError(f"field time: unparseable time {raw_time!r} (expected HH:MM or HH:MM UTC±H)")
    hour, minute, utc, sign, off_h, off_m = found.groups()
    if int(hour) > 23 or int(minute) > 59 or (off_h and (int(off_h) > 14 or int(off_m or 0) > 59)):
        raise ValueError(f"field time: unparseable time {raw_time!r} (hour, minute or offset out of range)")
    if utc:  # "13:00 UTC-6"; a bare "UTC" means offset zero, not the competition's local clock
        offset = timedelta(hours=int(off_h or 0), minutes=int(off_m or 0)) * (-1 if sign == "-" else 1)
        zone: timezone | ZoneInfo = timezone(offset)
    else:
        zone = tz
    local = datetime(day.year, day.month, day.day, int(hour), int(minute), tzinfo=zone)
    return day, local.astimezone(UTC), f"{raw_date} {raw_time}"


def _team(competition: Competition, raw: Any, source: str, label: str) -> tuple[str | None, str | None]:
    name = raw.get("name") if isinstance(raw, dict) else raw
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"field team: missing team name ({raw!r})")
    if SLOT_RULE.match(name.strip()):
        return None, name.strip()
    return resolve_team(competition, name, source=source, match=label), None


def _status_and_scores(raw: dict[str, Any]) -> tuple[MatchStatus, dict[str, Any]]:
    score = raw.get("score") or {}
    if not isinstance(score, dict):
        raise ValueError(f"field score: expected an object, got {score!r}")
    declared = raw.get("status")
    status = MatchStatus.FINISHED if score.get("ft") is not None else MatchStatus.SCHEDULED
    if declared is not None:
        if str(declared).lower() not in _STATUS:
            raise ValueError(f"field status: unknown status {declared!r}")
        status = _STATUS[str(declared).lower()]
    if not status.has_result:
        return status, {}
    scores = {
        "score_90": score_from_pair(score.get("ft"), "score.ft"),
        "score_half_time": score_from_pair(score.get("ht"), "score.ht"),
        "score_extra_time": score_from_pair(score.get("et"), "score.et"),
        "score_penalties": score_from_pair(score.get("p"), "score.p"),
    }
    if scores["score_90"] is None:
        raise ValueError(f"field score.ft: a {status.value} match needs its 90-minute score")
    return status, scores


def _goals(raw: dict[str, Any], home: str | None, away: str | None, scores: dict[str, Any]) -> tuple[Goal, ...] | None:
    """Goals credited to each team; ``()`` for a goalless match, None when the source lists none.

    A goal after the 90th minute without an offset (``91``, not ``90+1``) is extra time
    (:func:`collector.sources.checks.late_goal_problems` then wants an extra-time score), except in
    a match whose goals never use offsets and whose minute is at most 105: such a file writes
    stoppage time as ``92``.
    """
    final = scores["score_extra_time"] or scores["score_90"]
    if "goals1" not in raw and "goals2" not in raw:
        return () if final.home == final.away == 0 else None
    listed = [(key, team, index, goal) for key, team in (("goals1", home), ("goals2", away))
              for index, goal in enumerate(raw.get(key) or [])]
    offsets = any(isinstance(g, dict) and ("+" in str(g.get("minute")) or g.get("offset")) for _, _, _, g in listed)
    goals: list[Goal] = []
    for key, team, index, goal in listed:
        if team is None or not isinstance(goal, dict):
            raise ValueError(f"field {key}[{index}]: expected a goal object with a known team")
        goals.append(_goal(goal, team, scores["score_extra_time"] is not None or offsets, f"{key}[{index}]"))
    return tuple(goals)


def _goal(goal: dict[str, Any], team: str, bare_is_extra: bool, where: str) -> Goal:
    minute = stoppage = None
    if goal.get("minute") is not None:
        found = _MINUTE.match(str(goal["minute"]))
        if not found:
            raise ValueError(f"field {where}.minute: unparseable minute {goal['minute']!r}")
        minute = int(found.group(1))
        stoppage = int(found.group(2)) if found.group(2) else (goal.get("offset") or None)
    period = None
    if minute is not None:
        extra = minute > 90 and (bare_is_extra or stoppage is not None or minute > LAST_STOPPAGE_MINUTE)
        period = "extra_time" if extra else "regulation"
    return Goal(
        team=team,
        scorer=goal.get("name"),
        minute=minute,
        stoppage=stoppage,
        penalty=bool(goal.get("penalty")),
        own_goal=bool(goal.get("owngoal")),
        period=period,
    )


def read_squads(definition: Definition, data: DataSource, competition: Competition) -> tuple[dict[str, list[str]] | None, list[Problem]]:
    """Player names per team id from the definition's openfootball squads file (None when it names none)."""
    if not definition.source.squads:
        return None, []
    where = data.describe(definition.source.squads)
    try:
        document = orjson.loads(data.read_bytes(definition.source.squads))
    except (orjson.JSONDecodeError, SourceError) as exc:
        return None, [Problem(where, f"squads file unusable ({exc}); scorers are matched by name only")]
    squads: dict[str, list[str]] = {}
    problems = []
    codes = {(t.code or "").upper(): t.id for t in competition.teams}
    for index, team in enumerate(document if isinstance(document, list) else []):
        try:
            team_id = codes.get(str(team.get("fifa_code", "")).upper()) or resolve_team(competition, team["name"])
            squads[team_id] = [p["name"] for p in team["players"] if isinstance(p.get("name"), str)]
        except (SourceError, KeyError, TypeError, AttributeError) as exc:
            problems.append(Problem(f"{where} [{index}]", f"squad not read: {_message(exc)}"))
    return squads, problems
