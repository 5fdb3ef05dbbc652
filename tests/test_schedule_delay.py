"""The schedule's delay in each manifest: when the cron of a scheduled run last fired, and how late the tick began."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from collector.archive.write.manifest import latest_manifest_path, write_tick_manifest
from collector.archive.write.writer import ArchiveWriter
from collector.cli import main
from collector.errors import UsageError
from collector.schedule.cron import last_fire, parse_cron
from collector.schedule.tick_end import schedule_fields
from tests.gitrepo import event

COLLECT = "4,19,34,49 * * * *"


@pytest.mark.parametrize(("now", "fired"), [
    (datetime(2026, 6, 11, 18, 53, 12, tzinfo=UTC), datetime(2026, 6, 11, 18, 49, tzinfo=UTC)),
    (datetime(2026, 6, 11, 18, 49, 0, tzinfo=UTC), datetime(2026, 6, 11, 18, 49, tzinfo=UTC)),  # at the minute
    (datetime(2026, 6, 11, 0, 3, tzinfo=UTC), datetime(2026, 6, 10, 23, 49, tzinfo=UTC)),  # across midnight
])  # fmt: skip
def test_last_fire_of_the_collect_schedule(now, fired):
    assert last_fire(COLLECT, now) == fired


def test_last_fire_of_day_and_week_schedules():
    thursday = datetime(2026, 6, 11, 18, 3, tzinfo=UTC)
    assert last_fire("23 6 1,15 * *", thursday) == datetime(2026, 6, 1, 6, 23, tzinfo=UTC)
    assert last_fire("0 12 * * 1", thursday) == datetime(2026, 6, 8, 12, tzinfo=UTC)  # Monday
    assert last_fire("*/20 9-10 * * *", thursday) == datetime(2026, 6, 11, 10, 40, tzinfo=UTC)
    # both day fields restricted: either matches (cron's rule); 1 June is a Monday, 7 = Sunday too
    assert last_fire("0 0 5 * 0", thursday) == datetime(2026, 6, 7, 0, 0, tzinfo=UTC)
    assert last_fire("0 0 5 * 7", thursday) == datetime(2026, 6, 7, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize("bad", ["*/15 * * *", "61 * * * *", "a * * * *", "*/0 * * * *"])
def test_a_malformed_schedule_is_a_usage_error(bad):
    with pytest.raises(UsageError, match="schedule"):
        parse_cron(bad)


def test_the_manifest_records_the_schedule_and_its_delay(tmp_path):
    now = datetime(2026, 6, 11, 18, 53, 12, tzinfo=UTC)
    writer = ArchiveWriter(tmp_path)
    writer.write(event())
    path = write_tick_manifest(writer, now + timedelta(seconds=30), schedule=schedule_fields(COLLECT, now))
    data = orjson.loads((tmp_path / path).read_bytes())
    assert data["schedule"] == COLLECT and data["scheduled_at"] == "2026-06-11T18:49:00Z"
    assert data["schedule_delay_s"] == 252.0  # 4 min 12 s late
    assert schedule_fields(None, now) is None and latest_manifest_path(tmp_path) == path


def test_tick_refuses_a_malformed_schedule_before_doing_anything(tmp_path, capsys):
    args = ["tick", "--archive", str(tmp_path / "archive"), "--schedule", "*/15 * *", "--now", "2026-06-11"]
    assert main(args) == 2 and "five fields" in capsys.readouterr().err
    assert not (tmp_path / "archive" / "manifests").exists()


@given(minutes=st.sets(st.integers(0, 59), min_size=1, max_size=6),
       moment=st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2027, 1, 1), timezones=st.just(UTC)))
def test_last_fire_of_an_hourly_schedule_matches_a_direct_computation(minutes, moment):
    """Oracle: the latest listed minute at or before ``moment`` in its hour, else the last one of the hour before."""
    expression = ",".join(str(m) for m in sorted(minutes)) + " * * * *"
    hour = moment.replace(minute=0, second=0, microsecond=0)
    earlier = [m for m in minutes if m <= moment.minute]
    expected = hour.replace(minute=max(earlier)) if earlier else (hour - timedelta(hours=1)).replace(minute=max(minutes))
    fired = last_fire(expression, moment)
    assert fired == expected and fired <= moment and moment - fired < timedelta(hours=1)
