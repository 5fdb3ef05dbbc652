"""Shared pieces of every archive record: the base model, UTC timestamps, small value types.

Every record in ``archive/`` is one of the models exported by :mod:`collector.records`.
They are frozen, strict, forbid unknown fields, and carry ``kind`` and ``schema_version``.
Both the collector (which writes) and the builder (which reads) import them from here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, GetPydanticSchema
from pydantic_core import core_schema

SCHEMA_VERSION = 1

# Identifiers used in paths: lowercase letters, digits, '-', '_' and '.', no leading dot.
SLUG_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"
_SLUG = re.compile(SLUG_PATTERN)


def _utc_schema(source: Any, handler: Any) -> core_schema.CoreSchema:
    # Checked inside pydantic-core (no Python call per value): a timestamp must carry a
    # time zone and its offset must be zero, e.g. "2026-06-11T19:00:00Z".
    return core_schema.datetime_schema(tz_constraint=0)


UtcDatetime = Annotated[datetime, GetPydanticSchema(_utc_schema)]
"""A timezone-aware datetime whose offset is zero."""

Slug = Annotated[str, Field(pattern=SLUG_PATTERN, min_length=1, max_length=120)]
"""An identifier safe to use as a path component."""

Probability = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
NonNegativeFloat = Annotated[float, Field(ge=0.0, allow_inf_nan=False)]
Goals = Annotated[int, Field(ge=0, le=99)]


def is_slug(value: str) -> bool:
    return bool(_SLUG.match(value))


class Clock(StrEnum):
    """Whether a record was produced live (prospective) or by a replay on a simulated clock."""

    LIVE = "live"
    REPLAY = "replay"


class Contract(BaseModel):
    """Base of every model in the contract: frozen, strict, no unknown fields."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        strict=True,
        use_enum_values=False,
        validate_default=True,
        ser_json_inf_nan="strings",
    )

    shared_values: ClassVar[tuple[str, ...]] = ()
    """Fields holding small value models that equal instances share (see :meth:`share_key`)."""
    shared_times: ClassVar[tuple[str, ...]] = ()
    """Timestamp fields whose equal values records share (a kickoff, a scheduled time: every
    forecast of a match and horizon has the same ones)."""

    def share_key(self) -> Hashable | None:
        """The key under which every equal instance is one object (a score, an empty validation
        report), or None: this instance is not shared (the default)."""
        return None

    def model_post_init(self, context: Any, /) -> None:
        """Share one set of field names among every instance given the same fields.

        pydantic keeps, per instance, the set of fields its input gave
        (``model_fields_set``); a record's few nested models each carried a set of a dozen or
        more names, most of a loaded forecast's memory. The
        models are frozen, so the set is never changed in place: ``model_copy`` copies it
        before adding to it. The shared set is a private copy, never one a caller gave.

        Each subclass gets its own copy of this with its plan bound (:func:`_sharing_post_init`):
        it runs for every model of every record loaded (about 7 per forecast), so lookups it
        would repeat per call are made once."""
        shape = type(self)
        bound = _POST_INITS.get(shape)
        if bound is None:
            bound = _POST_INITS[shape] = _sharing_post_init(shape)
        bound(self, context)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """Give the new class its own bound :meth:`model_post_init` (one of its own is left alone)."""
        super().__pydantic_init_subclass__(**kwargs)
        inherited = cls.model_post_init
        if inherited is Contract.model_post_init or hasattr(inherited, "shares_for"):
            cls.model_post_init = _POST_INITS[cls] = _sharing_post_init(cls)


def _sharing_post_init(shape: type[Contract]) -> Callable[[Contract, Any], None]:
    """``shape``'s :meth:`Contract.model_post_init`: the shared field-name sets, then the
    shared values and times its class names, with the class's lookups made once."""
    values, times = shape.shared_values, shape.shared_times
    everything: set[str] | None = None  # every field's name: taken at the first call, as the fields are final

    def model_post_init(self: Contract, context: Any, /) -> None:
        nonlocal everything
        if everything is None:
            everything = _ALL_FIELDS.setdefault(shape, set(shape.__pydantic_fields__))
        names = self.__pydantic_fields_set__
        _set_fields_set(self, everything if len(names) == len(everything) else _fields_set_of(names))
        if values:
            _share_values(self, values)
        if times:
            _share_times(self, times)

    model_post_init.shares_for = shape  # type: ignore[attr-defined]
    model_post_init.__doc__ = Contract.model_post_init.__doc__
    return model_post_init


_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
"""Sets a model's ``__pydantic_fields_set__`` slot directly (what ``object.__setattr__`` does, without
looking the name up each time)."""


def _fields_set_of(names: set[str]) -> set[str]:
    """The one set shared by every instance given just these fields (a partial ``model_construct``)."""
    key = frozenset(names)
    shared = _FIELDS_SETS.get(key)
    if shared is None:
        shared = _FIELDS_SETS[key] = set(key)
    return shared


def _share_values(model: Contract, names: tuple[str, ...]) -> None:
    """Replace each of ``model``'s :attr:`~Contract.shared_values` by the one equal instance
    kept for its :meth:`~Contract.share_key` (the first one seen). Those are frozen value
    models with a bounded number of keys (a score has at most 100 x 100), so the pool stays small
    while every forecast holding an equal value shares it."""
    values = model.__dict__
    for name in names:
        value = values.get(name)
        key = None if value is None else value.share_key()
        if key is not None:
            pooled = _VALUES.setdefault((type(value), key), value)
            if pooled is not value:
                values[name] = pooled


def _share_times(model: Contract, names: tuple[str, ...]) -> None:
    """Replace each of ``model``'s :attr:`~Contract.shared_times` by the equal datetime kept
    first (a large archive holds many equal copies of the same kickoff and tick times). The pool
    stops growing at :data:`TIMES_KEPT` distinct values (later ones are kept as they are)."""
    values = model.__dict__
    for name in names:
        moment = values.get(name)
        if moment is not None:
            pooled = _TIMES.get(moment)
            if pooled is None:
                if len(_TIMES) < TIMES_KEPT:
                    _TIMES[moment] = moment
            elif pooled is not moment:
                values[name] = pooled


TIMES_KEPT = 1 << 20
"""Distinct timestamps the pool keeps at most (bounded in a long-lived process)."""
_POST_INITS: dict[type, Callable[[Contract, Any], None]] = {}
"""Model class -> its bound :meth:`Contract.model_post_init` (see :func:`_sharing_post_init`)."""
_ALL_FIELDS: dict[type, set[str]] = {}
"""Model class -> the one set of all its field names, shared by every instance given them all."""
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}
"""frozenset of some field names -> the one set every instance given just those shares (a few dozen entries)."""
_VALUES: dict[tuple[type, Hashable], Contract] = {}
"""(value model class, share key) -> the instance every equal value shares."""
_TIMES: dict[datetime, datetime] = {}
"""A timestamp -> the one equal datetime records share."""


class Record(Contract):
    """Fields every archive record has.

    ``recorded_at`` is when Prematch wrote the record (simulated time for replays).
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    clock: Clock = Clock.LIVE
    recorded_at: UtcDatetime


class Revisable(Record):
    """A record that a later record may supersede (a source correction, a reschedule).

    Revision 0 is the original; revision n names the archive path of revision n-1 in
    ``supersedes``. Nothing is rewritten: readers resolve the highest valid revision.
    """

    revision: Annotated[int, Field(ge=0)] = 0
    supersedes: str | None = None
    change_reason: str | None = None


class Score(Contract):
    """A score as (home, away) goals, home being the team listed first."""

    home: Goals
    away: Goals

    def share_key(self) -> tuple[int, int]:
        return self.as_tuple()

    def as_tuple(self) -> tuple[int, int]:
        return (self.home, self.away)


def now_utc() -> datetime:
    return datetime.now(UTC)
