"""The instant a forecast must precede when the source gives a kickoff date but no time.

Rule (fail closed): a kickoff known only as a date is treated as the **earliest instant it
could be**, 00:00 of that date in the competition's time zone (``Competition.time_zone``, the
zone the source's local dates are read in). Horizons count back from that instant and no
request starts at or after it, so a forecast of a match whose time is unknown can never be
made after the real kickoff, whatever time it was. The event record keeps ``kickoff_utc``
empty and ``kickoff_source`` the source's own string (the date alone); each forecast of it
carries ``kickoff_utc`` = that instant and ``kickoff_time_known = false``.

The result side is the mirror image: a date-only match's result becomes knowable only after
the *end* of its local day (:func:`collector.fixtures.knowable.kickoff_or_day_end`).

:func:`kickoff_span`: the days a match of a competition can plausibly be played on, its
``starts_on``..``ends_on`` when the definition gives them, else the years its edition names
(``2026``, ``2025/26``) with a year either side; a source's match outside it (a 1900-01-01
kickoff, a year 9999) is refused at ingest and by ``define-competition``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

from collector.records import Competition, Event


def day_start_utc(day: date, zone: ZoneInfo | str) -> datetime:
    """00:00 of ``day`` in ``zone``, in UTC: the earliest instant a match dated ``day`` could kick off."""
    tz = ZoneInfo(zone) if isinstance(zone, str) else zone
    return datetime.combine(day, time(0, 0), tzinfo=tz).astimezone(UTC)


def effective_kickoff(event: Event, competition: Competition) -> datetime:
    """The event's kickoff, or (date only) the earliest instant of its date (module docstring)."""
    if event.kickoff_utc is not None:
        return event.kickoff_utc
    return day_start_utc(event.kickoff_date, competition.time_zone)


def first_kickoff(events: Iterable[Event], competition: Competition) -> datetime | None:
    """The earliest (effective) kickoff of ``events``: a date-only source's is the start of its first match day
    in the competition's time zone, so its questions and tournament forecasts close then."""
    return min((effective_kickoff(e, competition) for e in events), default=None)


_YEAR = re.compile(r"(?<!\d)(18[5-9]\d|19\d\d|2[01]\d\d)(?:[/-](\d{2,4}))?(?!\d)")


def edition_span(edition: str) -> tuple[date, date] | None:
    """The first day of the year before the first year ``edition`` names to the last day of the year
    after its last (``2025/26`` and ``2025-2026`` name two years); None when it names no year."""
    years = []
    for first, second in _YEAR.findall(edition):
        years.append(int(first))
        if second:
            later = int(second) if len(second) == 4 else int(first[:2] + second[-2:])
            years.append(later + 100 if later < int(first) else later)  # 1999/00 ends in 2000
    if not years:
        return None
    return date(min(years) - 1, 1, 1), date(max(years) + 1, 12, 31)


def kickoff_span(competition: Competition) -> tuple[date | None, date | None]:
    """The days a match of ``competition`` can be played on (module docstring); None where unbounded."""
    span = edition_span(competition.edition) or (None, None)
    return competition.starts_on or span[0], competition.ends_on or span[1]
