"""When a cron schedule last fired: the scheduled time of a GitHub ``schedule`` run, from its cron string.

GitHub gives a scheduled run the cron expression that triggered it (``github.event.schedule``)
but not the time it was due; runs start minutes late, and later still near the top of the hour.
:func:`last_fire` finds the latest minute at or before ``at`` that the expression matches
(POSIX cron, five fields, UTC as on GitHub: ``*``, lists, ranges and ``/`` steps; day of month
and day of week match either when both are restricted), so the tick can record how late it ran.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from collector.errors import UsageError

_FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31), ("month", 1, 12), ("day of week", 0, 7))
SEARCH = timedelta(days=35)  # any schedule without a month restriction fires within this (minute steps: ~50 ms)


def _field(text: str, name: str, low: int, high: int) -> frozenset[int]:
    values: set[int] = set()
    for part in text.split(","):
        body, _, step_text = part.partition("/")
        step = int(step_text) if step_text else 1
        if body == "*":
            start, end = low, high
        elif "-" in body:
            start, end = (int(x) for x in body.split("-", 1))
        else:
            start = end = int(body)
            if step_text:
                end = high
        if step < 1 or not low <= start <= end <= high:
            raise ValueError(f"{name} {part!r} is out of range {low}-{high}")
        values.update(range(start, end + 1, step))
    return frozenset(values)


def parse_cron(expression: str) -> tuple[frozenset[int], ...]:
    """The five value sets of a cron expression; UsageError naming the field when it is not one."""
    parts = expression.split()
    if len(parts) != 5:
        raise UsageError(f"schedule {expression!r}: a cron expression has five fields, not {len(parts)}")
    try:
        fields = tuple(_field(p, *spec) for p, spec in zip(parts, _FIELDS, strict=True))
    except ValueError as exc:
        raise UsageError(f"schedule {expression!r}: {exc}") from None
    dow = fields[4] | ({0} if 7 in fields[4] else set())
    return (*fields[:4], frozenset(dow), frozenset({parts[2] != "*" and parts[4] != "*"}))


def _matches(fields: tuple[frozenset[int], ...], moment: datetime) -> bool:
    minute, hour, dom, month, dow, either = fields
    if moment.minute not in minute or moment.hour not in hour or moment.month not in month:
        return False
    day_ok, week_ok = moment.day in dom, (moment.isoweekday() % 7) in dow
    return (day_ok or week_ok) if True in either else (day_ok and week_ok)


def last_fire(expression: str, at: datetime) -> datetime | None:
    """The latest minute at or before ``at`` (UTC) that ``expression`` matches, within :data:`SEARCH`."""
    fields = parse_cron(expression)
    moment = at.replace(second=0, microsecond=0)
    stop = moment - SEARCH
    while moment > stop:
        if _matches(fields, moment):
            return moment
        moment -= timedelta(minutes=1)
    return None
