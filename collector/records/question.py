"""Tournament questions (group winners, semifinalists, champion, ...) and their resolutions.

Binary market questions ("Will X happen?") will be a further ``prediction_type`` here;
the contract leaves room for them through ``prediction_type`` and ``kind`` discriminators.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, model_validator

from .base import Revisable, Slug, UtcDatetime


class PredictionType(StrEnum):
    SINGLE_CHOICE = "single_choice"
    MULTI_CHOICE_FIXED_K = "multi_choice_fixed_k"


class Question(Revisable):
    """A tournament question, registered before the competition's first kickoff."""

    kind: Literal["question"] = "question"
    competition_id: Slug
    id: Slug = Field(description="e.g. group_winner_a, semifinalists, world_champion")
    label: str
    meaning: str
    prediction_type: PredictionType
    k: Annotated[int, Field(ge=1)] = 1
    group: str | None = None
    candidates: tuple[Slug, ...] = Field(min_length=2)
    closes_at: UtcDatetime = Field(description="No forecast may be requested at or after this time")

    @model_validator(mode="after")
    def _consistent(self) -> Question:
        if len(set(self.candidates)) != len(self.candidates):
            raise ValueError("candidates must be unique")
        if self.prediction_type is PredictionType.SINGLE_CHOICE and self.k != 1:
            raise ValueError("single_choice questions have k = 1")
        if self.k >= len(self.candidates):
            raise ValueError("k must be smaller than the number of candidates")
        return self


class QuestionResolution(Revisable):
    """The realised answer of a question: the k teams that satisfy it."""

    kind: Literal["question_resolution"] = "question_resolution"
    competition_id: Slug
    question_id: Slug
    answer: tuple[Slug, ...] = Field(min_length=1)
    resolved_from: tuple[Slug, ...] = Field(default=(), description="Event ids the answer follows from")
    source: str
