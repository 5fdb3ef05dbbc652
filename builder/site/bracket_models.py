"""Page models of the bracket page: the knockout tree with its grid placement, the predicted
brackets laid over it, group tables with qualifiers, the T5 table and the questions table.

Each predicted bracket is its own small JSON file (:class:`BracketOverlay`), fetched by the
page when a reader chooses it, so the page weighs the same however many forecasts there are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from builder.site.models import Link, Meta
from builder.site.render import declare


@dataclass(frozen=True)
class PredictedTeam:
    name: str
    hit: bool | None  # really plays this match (None: the real match is not known yet)
    advances: bool  # the forecast has this team go through
    advance_hit: bool | None  # ... and it did (None: undecided, or not the advancing pick)


@dataclass(frozen=True)
class PredictedSlot:
    match: int  # the tree slot's match number (TreeSlot.number)
    home: PredictedTeam
    away: PredictedTeam
    pairing_hit: bool | None


@dataclass(frozen=True)
class TreeSlot:
    """One knockout match box, placed at grid ``column`` and rows ``row`` .. ``row + span`` (row 1: headings)."""

    number: int
    label: str
    rules: str
    href: str | None
    home: str | None
    away: str | None
    home_won: bool
    away_won: bool
    result: str
    column: int
    row: int
    span: int
    feeds_next: bool  # a connector leaves it to the right
    fed: bool  # a connector joins its two feeding matches on the left
    feeders: tuple[int, ...]  # the matches whose winners play it (rules W74, W77)


@dataclass(frozen=True)
class TreeColumn:
    name: str
    column: int
    omitted: int = 0  # matches of this stage left out of the drawing (listed in the match list)


@dataclass(frozen=True)
class PredictedBracket:
    key: str
    label: str
    champion: str
    href: str  # its BracketOverlay file, relative to the bracket page


@dataclass(frozen=True)
class BracketOverlay:
    """One full-tournament forecast's bracket over the drawn tree: a JSON file beside the page, not a page."""

    path: str
    key: str  # PredictedBracket.key
    label: str
    slots: tuple[PredictedSlot, ...]  # one per drawn match the forecast names


@dataclass(frozen=True)
class QualifiedGroup:
    name: str
    rows: tuple[tuple[str, ...], ...]  # team, P, W, D, L, GF, GA, GD, Pts
    qualified: tuple[bool, ...]  # per row: reached the knockouts


@dataclass(frozen=True)
class T5Row:
    forecaster: str
    horizon: str
    stage: str
    known_at: str
    g: str
    a: str
    m: str
    h: str
    t5: str
    t5_value: float | None
    by_stage: str  # "groups 69.8 · round-of-32 67.3 · ..."
    reach_brier: str  # Brier of the first round's reach probabilities ("–" for none)


@dataclass(frozen=True)
class ProgressionRow:
    forecaster: str
    cell: str
    answers: tuple[tuple[str, bool | None], ...]  # per question column: picks text, hit


@declare
@dataclass(frozen=True)
class BracketPage:
    TEMPLATE: ClassVar[str] = "bracket.html"
    path: str
    meta: Meta
    competition: str
    groups: tuple[QualifiedGroup, ...]
    columns: tuple[TreeColumn, ...]
    slots: tuple[TreeSlot, ...]
    rows: int  # grid rows of the tree
    third_place: TreeSlot | None
    match_list: str  # href of the competition's match list (every match of a stage too long to draw)
    predicted: tuple[PredictedBracket, ...]
    t5_rows: tuple[T5Row, ...]
    question_columns: tuple[str, ...]
    progression: tuple[ProgressionRow, ...]
    others: tuple[Link, ...]


@declare
@dataclass(frozen=True)
class BracketIndexPage:
    TEMPLATE: ClassVar[str] = "bracket_index.html"
    path: str
    meta: Meta
    brackets: tuple[Link, ...]
