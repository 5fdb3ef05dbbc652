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
"""

from __future__ import annotations

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
