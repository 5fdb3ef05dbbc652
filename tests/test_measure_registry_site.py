"""One meaning per number, held on a real site and the paper tables of one replay (the 2026 World
Cup with four baselines, the fine-grained one among them).

Every header and glossary term that names a figure is a label of the measure registry
(``builder.score.definitions``), optionally decorated (a unit, an interval, a direction arrow or
a scope in brackets), and says which entry it is (``data-measure``): no label stands for two
computations, and no figure is printed under a name the registry does not know. Every figure a
page prints under a measure says what it is a figure of (``data-figure``); two pages printing
one measure of one figure print the same number (to their display precision).
"""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest

from builder.cli import main as builder
from builder.score.definitions import (
    INTERVALS,
    PAPER_INTERVALS,
    REGISTRY,
    REGISTRY_ENTRIES,
    label,
)

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

SCOPES = ("own events", "matched", "best cell", "by stage", "by stated confidence", "10 bins")
DECORATION = re.compile(r"^(?: \((?:" + "|".join(map(re.escape, SCOPES)) + r")\))?(?:, %)?"
                        r"(?: \[95% CI\]| \(95% CI\))?(?: ?[↓↑])?$")
NOT_MEASURES = {"Result", "Result (90')"}
"""Headers that hold the match's result (a score, W/D/L), not a figure of a forecast."""
DERIVED = {"estimate (Brier: closed − open book)"}
"""Headers naming a difference of a registered measure (the row says which test): no figure of their own."""
STEMS = sorted({m.label.split(" (")[0] for m in REGISTRY_ENTRIES} - NOT_MEASURES, key=len, reverse=True)
STEM = re.compile(r"\b(?:" + "|".join(map(re.escape, STEMS)) + r")\b", re.IGNORECASE)
BY_LABEL = sorted(((m.label, m.id) for m in REGISTRY_ENTRIES), key=lambda t: len(t[0]), reverse=True)


def registered(text: str) -> str | None:
    """The registry id whose label ``text`` is (decorations allowed), else None."""
    for name, id in BY_LABEL:
        if text.casefold().startswith(name.casefold()) and DECORATION.match(text[len(name):]):
            return id
    return None


class Terms(HTMLParser):
    """Every header (``th`` but row headers) and glossary term (``dt``) with its ``data-measure``
    (its own or its parent's), and every ``td`` that names a figure."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict]] = []
        self.terms: list[tuple[str, str]] = []  # (text, measure id or "")
        self.figures: list[tuple[str, str, str]] = []  # (measure, figure, text)
        self.texts: list[list[str]] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("th", "dt", "td"):
            self.texts = []
        if tag == "a" and "def" in (attrs.get("class") or "").split():
            self.stack.append(("skip", attrs))
            return
        self.stack.append((tag, attrs))

    def handle_endtag(self, tag):
        while self.stack:
            top, attrs = self.stack.pop()
            if top == tag or (top == "skip" and tag == "a"):
                break
        if tag not in ("th", "dt", "td") or self.texts is None:
            return
        text = " ".join("".join(t for part in self.texts for t in part).split())
        self.texts = None
        parent = self.stack[-1][1] if self.stack else {}
        measure = attrs.get("data-measure") or (parent.get("data-measure") if tag == "dt" else None) or ""
        if tag == "td":
            if attrs.get("data-figure"):
                self.figures.append((measure, attrs["data-figure"], text))
        elif not (tag == "th" and attrs.get("scope") == "row"):
            self.terms.append((text, measure))

    def handle_data(self, data):
        if self.texts is not None and not any(t == "skip" for t, _ in self.stack):
            self.texts.append([data])


@pytest.fixture(scope="module")
def built(worldcup_site) -> Path:
    return worldcup_site


@pytest.fixture(scope="module")
def tables(worldcup_replay, capsys_module) -> list[dict]:
    return capsys_module(["paper-tables", "--archive", str(worldcup_replay / "archive"), "--json"])


@pytest.fixture(scope="module")
def capsys_module(tmp_path_factory):
    """Run the builder CLI with its standard output in a file; return the parsed JSON it printed."""
    import contextlib
    import io

    def run(argv: list[str]):
        buffer = io.BytesIO()
        stream = io.TextIOWrapper(buffer, encoding="utf-8")
        with contextlib.redirect_stdout(stream):
            assert builder(argv) == 0
            stream.flush()
        return json.loads(buffer.getvalue())

    return run


def site_terms(site: Path):
    for page in sorted(site.rglob("*.html")):
        parser = Terms()
        parser.feed(page.read_text(encoding="utf-8"))
        yield page.relative_to(site), parser


def check_term(text: str, measure: str) -> str | None:
    """What is wrong with a header or term ``text`` marked as ``measure`` ("" unmarked), or None."""
    found = registered(text)
    if measure:
        if measure not in REGISTRY:
            return f"marked {measure!r}, which the registry does not have"
        if found != measure:
            return f"marked {measure!r} but labelled {text!r}, not {label(measure)!r} (+ a decoration)"
        return None
    if found is not None:
        return f"the label of {found!r} without saying so (data-measure)"
    if text not in NOT_MEASURES | DERIVED and STEM.search(text):
        return f"names a measure the registry does not have: {text!r}"
    return None


def test_every_label_on_every_page_is_one_registry_entry(built):
    problems, marked = [], defaultdict(set)
    for page, parser in site_terms(built):
        for text, measure in parser.terms:
            wrong = check_term(text, measure)
            if wrong:
                problems.append(f"{page}: {wrong}")
            elif measure:
                marked[measure].add(str(page))
    assert not problems, "\n".join(sorted(set(problems))[:40])
    # the pages the issue found saying different things under one name, each marked now
    assert {"index.html", "layers.html", "analysis/index.html"} <= marked["composite"]
    assert "index.html" in marked["scoreline_90"] and "analysis/index.html" in marked["scoreline_wca_c70"]


def test_every_paper_table_column_is_a_registry_label(tables):
    assert [t["key"] for t in tables] == ["lsa_table_2", "wca_table_2", "pa_table_2"]
    for table in tables:
        assert len(table["measures"]) == len(table["columns"]) and len(table["figures"]) == len(table["rows"])
        for header, measure in zip(table["columns"], table["measures"], strict=True):
            assert check_term(header, measure) is None, (table["key"], header, measure)


def test_the_method_page_and_the_tables_name_the_interval_method_they_use(built, tables):
    """The leaderboard's stratified Poisson bootstrap, its references and the paper tables' own
    scheme are named where the intervals are read: the Method page and the tables' captions."""
    page = html.unescape((built / "methodology" / "index.html").read_text(encoding="utf-8"))
    assert "<!-- intervals" not in page
    assert INTERVALS.sentence() in page  # its name, references and what it does
    assert PAPER_INTERVALS.cited() in page and PAPER_INTERVALS.text in page
    assert "Hanley & MacGibbon 2006" in page and "Chamandy" in page
    captions = {t["key"]: t["caption"] for t in tables}
    assert PAPER_INTERVALS.cited() in captions["lsa_table_2"] and PAPER_INTERVALS.name in captions["pa_table_2"]
    assert INTERVALS.name in html.unescape((built / "index.html").read_text(encoding="utf-8"))  # the CI column's help


NUMBER = re.compile(r"[−-]?\d+(?:\.(\d+))?(%?)")


def shown(text: str) -> tuple[float, float]:
    """A printed figure's value and half its display step (the first number of the cell; % in
    percent points, turned into a share)."""
    match = NUMBER.search(text)
    assert match, text
    value = float(match.group(0).rstrip("%").replace("−", "-"))
    step = 0.5 * 10 ** -len(match.group(1) or "")
    return (value / 100, step / 100) if match.group(2) else (value, step)


def test_a_figure_printed_on_two_pages_is_one_number(built, tables):
    seen: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for page, parser in site_terms(built):
        for measure, figure, text in parser.figures:
            if text not in ("–", "-", "no data"):
                seen[(measure, figure)].append((str(page), text))
    for table in tables:  # the command's tables are the analysis page's: the same numbers
        for row, figure in zip(table["rows"], table["figures"], strict=True):
            for text, measure in zip(row, table["measures"], strict=True):
                if measure and figure and text not in ("–", "-"):
                    seen[(measure, figure)].append((f"paper-tables {table['key']}", text))
    shared = {key: where for key, where in seen.items() if len({page for page, _ in where}) > 1}
    composites = [{page for page, _ in where} for (measure, _), where in shared.items() if measure == "composite"]
    assert composites and all({"index.html", "layers.html", "analysis/index.html",
                               "paper-tables wca_table_2"} <= pages for pages in composites)
    for (measure, figure), where in shared.items():
        values = [shown(text) for _, text in where]
        for i, (a, da) in enumerate(values):  # every pair, so no chain of roundings drifts
            for b, db in values[i + 1:]:
                assert abs(a - b) <= max(da, db) + 1e-9, (measure, figure, where)


FIELDS = {
    "competition_id", "event_id", "question_id", "prediction_type", "forecaster", "forecaster_type", "access",
    "strategy", "horizon", "sample", "clock", "view", "status", "stage", "knockout", "k", "answer", "final_picks",
    "tied_picks", "p_home", "p_draw", "p_away", "predicted_home", "predicted_away", "score_home", "score_away",
    "result", "n", "scheduled", "eligible_events", "ranked", "n_advancement", "market_n", "market_n_return",
}
"""Columns that say which forecast, cell or match a row is, or count its matches: no measures."""


def unregistered(names) -> list[str]:
    """The column names that are neither :data:`FIELDS` nor a registry id (or an alias), alone or with
    the suffix of its interval ends or count (``_low``, ``_high``, ``_n``)."""
    from builder.score.definitions import ALIASES

    known = set(REGISTRY) | set(ALIASES)
    return [n for n in names if n not in FIELDS and n not in known
            and not any(n.endswith(s) and n[: -len(s)] in known for s in ("_low", "_high", "_n"))]


def test_every_download_column_and_json_key_is_a_registry_id(built, worldcup_replay, capsys_module):
    for name in ("leaderboard", "scores", "question_scores"):
        header = (built / "data" / f"{name}.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
        assert not unregistered(header), (name, unregistered(header))
    rows = capsys_module(["score", "--archive", str(worldcup_replay / "archive"), "--json", "--no-tests"])
    assert rows and not unregistered({key for row in rows for key in row})
    measures = json.loads((built / "data" / "measures.json").read_text(encoding="utf-8"))
    assert [m["id"] for m in measures] == [m.id for m in REGISTRY_ENTRIES]
    assert {m["id"]: m["label"] for m in measures}["composite"] == label("composite")
