"""Command-line time options: --until must name an instant (an offset), and is kept in UTC."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from collector.cli import main
from collector.commandline import parse_utc_instant


def test_until_with_an_offset_is_converted_to_utc():
    assert parse_utc_instant("2026-06-14T02:00+02:00") == datetime(2026, 6, 14, 0, 0, tzinfo=UTC)
    assert parse_utc_instant("2026-06-14T00:00Z").utcoffset().total_seconds() == 0


@pytest.mark.parametrize("command", ["replay", "demo"])
@pytest.mark.parametrize(("value", "message"), [
    ("2026-06-14T00:00", "needs a UTC offset"), ("tomorrow", "is not an ISO 8601 timestamp"),
])  # fmt: skip
def test_until_without_an_offset_or_unparseable_is_refused(command, value, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--out", str(tmp_path / "x"), "--until", value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --until" in err and message in err and not (tmp_path / "x").exists()
