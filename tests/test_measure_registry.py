"""The measure registry itself: one label per computation, every scored measure registered, and
the measure list of docs/scoring.md made from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.score import definitions
from builder.score.definitions import (
    ALIASES,
    REGISTRY,
    REGISTRY_ENTRIES,
    entry,
    label,
    markdown_list,
)
from builder.score.types import ADVANCEMENT_MEASURES, MEASURES

SCORING_PAGE = Path(__file__).resolve().parent.parent / "docs" / "scoring.md"
START, END = "<!-- measures:start -->\n", "<!-- measures:end -->"


def test_the_documented_measure_list_is_the_registry():
    text = SCORING_PAGE.read_text(encoding="utf-8")
    assert START in text and END in text, "docs/scoring.md has no measure list between the markers"
    listed = text[text.index(START) + len(START): text.index(END)]
    assert listed == markdown_list(), "the measure list of docs/scoring.md differs from builder/score/definitions.py: " \
        "paste the output of markdown_list() between the markers"


def test_every_scored_measure_is_registered_with_its_paper():
    for name in MEASURES + ADVANCEMENT_MEASURES:
        m = entry(name)
        assert m.paper and m.where and m.text and m.unit and m.better, name


def test_one_label_is_one_entry_and_a_second_label_for_a_computation_is_refused(monkeypatch):
    labels = [m.label.casefold() for m in REGISTRY_ENTRIES]
    assert len(labels) == len(set(labels)) and len(REGISTRY) == len(REGISTRY_ENTRIES)
    assert set(ALIASES) == {"scoreline"} and label("scoreline") == label("scoreline_90")
    doubled = REGISTRY_ENTRIES + (definitions._m("scoreline_wca_again", "Scoreline (WCA C₇₀)", "0-100",
                                                 definitions.HIGHER, definitions.WCA, "§4.1", "a second meaning"),)
    monkeypatch.setattr(definitions, "REGISTRY_ENTRIES", doubled)
    with pytest.raises(ValueError, match="label used twice: scoreline \\(wca c₇₀\\)"):
        definitions._check_unique()


def test_the_papers_scorelines_and_returns_are_printed_under_their_own_names():
    assert (label("scoreline_90"), label("scoreline_wca"), label("scoreline_wca_c70")) == (
        "Scoreline (raw, 90')", "Scoreline (raw, published score)", "Scoreline (WCA C₇₀)")
    assert (label("market_return"), label("return_pa")) == ("Return (Prematch edge rule)", "Return (Prophet Arena rule)")
    assert label("composite") == "Composite" and label("brier_pa") == "Brier (per market)"
    assert "configs/tasks.yaml" in entry("t1").text  # how T1 differs from the public grader
