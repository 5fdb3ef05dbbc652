"""Every contract class shares its field-name sets, values and times through its own bound
model_post_init, including classes defined later, and a class's own model_post_init still runs."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic import TypeAdapter

from collector.records import Contract, Score, UtcDatetime


class _Kickoff(Contract):
    shared_values: ClassVar[tuple[str, ...]] = ("score",)
    shared_times: ClassVar[tuple[str, ...]] = ("at",)
    score: Score
    at: UtcDatetime
    note: str = ""


class _Counted(Contract):
    seen: ClassVar[list[str]] = []
    name: str

    def model_post_init(self, context: Any, /) -> None:
        type(self).seen.append(self.name)
        super().model_post_init(context)


def test_a_class_defined_after_the_contract_shares_sets_values_and_times():
    adapter = TypeAdapter(_Kickoff)
    text = '{"score": {"home": 2, "away": 1}, "at": "2026-06-11T19:00:00Z", "note": "%s"}'
    first, second = (adapter.validate_json(text % note) for note in ("a", "b"))
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__ == {"score", "at", "note"}
    assert first.score is second.score and first.at is second.at
    assert first.at == datetime(2026, 6, 11, 19, tzinfo=UTC) and (first.note, second.note) == ("a", "b")
    partial = adapter.validate_json('{"score": {"home": 2, "away": 1}, "at": "2026-06-11T19:00:00Z"}')
    assert partial.model_fields_set == {"score", "at"}  # the defaults given by nobody are not counted
    assert partial.score is first.score


def test_a_class_with_its_own_model_post_init_keeps_it_and_still_shares():
    a, b = _Counted(name="a"), _Counted.model_validate_json('{"name": "b"}')
    assert _Counted.seen == ["a", "b"]
    assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__ == {"name"}
