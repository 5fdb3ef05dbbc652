"""A kickoff known only as a date counts from the earliest instant of that date (competitions.kickoffs)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, available_timezones

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from collector.competitions.kickoffs import day_start_utc

ZONES = sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/")))


def test_hand_worked_day_starts():
    assert day_start_utc(date(1990, 6, 23), "Europe/Rome") == datetime(1990, 6, 22, 22, tzinfo=UTC)  # CEST, UTC+2
    assert day_start_utc(date(2026, 6, 11), "America/Mexico_City") == datetime(2026, 6, 11, 6, tzinfo=UTC)
    assert day_start_utc(date(2026, 1, 1), "UTC") == datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ZONES), st.dates(date(1970, 1, 1), date(2037, 12, 31)), st.times())
def test_no_instant_of_the_local_date_is_before_its_day_start(zone, day, clock):
    """Whatever time the match really kicked off that local day, the deadline used is not after it."""
    tz = ZoneInfo(zone)
    start = day_start_utc(day, tz)
    real = datetime.combine(day, clock, tzinfo=tz).astimezone(UTC)
    if real.astimezone(tz).date() == day:  # a wall time that exists on that date (not skipped by a DST jump)
        assert start <= real
    assert start.astimezone(tz).date() == day  # the instant is on that local date (also where 00:00 is skipped)
    assert real - start < timedelta(hours=26)
