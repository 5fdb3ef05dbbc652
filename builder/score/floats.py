"""Sharing equal floats: rows made through one sharer hold one float object per distinct number."""

from __future__ import annotations

import math
from collections.abc import Callable


def float_sharer() -> Callable[[float], float]:
    """A function returning, for each float, the first float of equal value (and sign) it was
    given: rows built through one sharer hold one object per distinct number (a 0/1 measure,
    a goal count, a quoted probability) instead of one per row. Floats are immutable, so only
    identity changes; NaN is returned as given (containers compare NaN by identity) and so is
    -0.0 (it would find 0.0, an equal key). Its ``many(values, plain)`` shares a list at once."""
    seen: dict[float, float] = {}
    keep = seen.setdefault

    def same(value: float) -> float:
        if value != value or (value == 0.0 and math.copysign(1.0, value) < 0):
            return value
        return keep(value, value)

    def many(values: list[float], plain: bool = False) -> list[float]:
        """``[same(v) for v in values]``; ``plain``: the caller knows none is NaN or -0.0 (then
        one pass at C speed, the same objects). Not through ``same`` itself: a function its own
        attribute calls would be a cycle, keeping every shared float until a collection."""
        if plain:
            return list(map(keep, values, values))
        return [v if v != v or (v == 0.0 and math.copysign(1.0, v) < 0) else keep(v, v) for v in values]

    same.many = many  # type: ignore[attr-defined]
    return same
