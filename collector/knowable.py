"""What was knowable at a (real or simulated) time ``now``, from one read of a source.

A replay on a simulated clock must see only what a live run would have seen then, so:

* a match's result is knowable once it has *finished*: kickoff plus an allowance for the
  match's length (:data:`ALLOWANCE`: 2 h for 90 minutes, 2 h 45 with extra time, 3 h 15 with
  a shoot-out; a match with a date but no time counts from the end of that local day);
* a knockout slot is knowable once what decides it has finished: ``1E``/``2E`` when group E's
  last match has, ``3A/B/C/D/F`` when every group has, ``W74``/``L74`` when match 74 has;
* an event is registered only when both its teams are knowable.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from collector.records import Competition
from collector.sources.base import MatchStatus, SourceMatch

ALLOWANCE = {
    "regulation": timedelta(hours=2),
    "extra_time": timedelta(hours=2, minutes=45),
    "penalties": timedelta(hours=3, minutes=15),
}
RESULT_STATUSES = frozenset({MatchStatus.FINISHED, MatchStatus.AWARDED})


def kickoff_or_day_end(match: SourceMatch, tz: ZoneInfo) -> datetime:
    """The kickoff in UTC, or (time not given) the end of the match's local calendar day."""
    if match.kickoff_utc is not None:
        return match.kickoff_utc
    next_day = match.kickoff_date + timedelta(days=1)
    return datetime.combine(next_day, time(0, 0), tzinfo=tz).astimezone(ZoneInfo("UTC"))


def finished_at(match: SourceMatch, tz: ZoneInfo) -> datetime | None:
    """When the match's result became knowable, or None if the source has no result."""
    if match.status not in RESULT_STATUSES:
        return None
    length = "penalties" if match.score_penalties else "extra_time" if match.score_extra_time else "regulation"
    return kickoff_or_day_end(match, tz) + ALLOWANCE[length]


class Knowledge:
    """Finish times of matches, groups and slots, from one source batch."""

    def __init__(self, competition: Competition, matches: list[SourceMatch]):
        self.tz = ZoneInfo(competition.time_zone)
        self.slots = {s.match_number: s for s in competition.knockout_slots}
        self.by_number: dict[int, datetime | None] = {}
        per_group: dict[str, list[datetime | None]] = defaultdict(list)
        for match in matches:
            done = finished_at(match, self.tz)
            if match.match_number is not None and match.knockout:
                self.by_number[match.match_number] = done
            if match.group is not None and not match.knockout:
                per_group[match.group].append(done)
        self.group_done: dict[str, datetime | None] = {}
        for group in competition.groups:
            times = per_group.get(group.name, [])
            expected = len(group.teams) * (len(group.teams) - 1) // 2
            complete = len(times) >= expected and all(t is not None for t in times)
            self.group_done[group.name] = max(times) if complete and times else None  # type: ignore[type-var]
        done = list(self.group_done.values())
        self.all_groups_done = max(done) if done and all(d is not None for d in done) else None  # type: ignore[type-var]

    def rule_known_at(self, rule: str) -> datetime | None:
        """When a slot rule (``1E``, ``3A/B/C``, ``W74``, ``L101``) became decided, or None."""
        if rule[0] in "12":
            return self.group_done.get(rule[1])
        if rule[0] == "3":
            return self.all_groups_done
        return self.by_number.get(int(rule[1:]))

    def teams_known(self, match: SourceMatch, now: datetime) -> bool:
        """Whether both teams of ``match`` were knowable at ``now``."""
        if match.home_team is None or match.away_team is None:
            return False
        slot = self.slots.get(match.match_number) if match.knockout else None
        if slot is None:
            return True
        for rule in (slot.home_rule, slot.away_rule):
            known = self.rule_known_at(rule)
            if known is None or known > now:
                return False
        return True

    def result_known(self, match: SourceMatch, now: datetime) -> bool:
        done = finished_at(match, self.tz)
        return done is not None and done <= now
