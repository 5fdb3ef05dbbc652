"""Page models of the pages built from scores: leaderboard, forecasters, charts, bracket, data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from markupsafe import Markup

from builder.site.findings import Finding
from builder.site.models import Link, Meta
from builder.site.render import declare


@dataclass(frozen=True)
class Cell:
    """One table cell: shown text, sort value, optional hover title, optional second line (narrow screens)."""

    text: str
    sort: str
    title: str = ""
    detail: str = ""
    figure: str = ""  # what the figure is a figure of (builder.score.definitions.figure_key), "" for no measure


@dataclass(frozen=True)
class BoardRow:
    forecaster: str
    href: str
    forecaster_type: str
    access: str
    strategy: str
    horizon: str
    clock: str
    ranked: bool  # ranked by the scoring stage's coverage rule
    rankable: bool  # ranked here: ``ranked`` and enough events
    rank: str  # within its horizon (the page's script re-ranks what a filter leaves)
    condition: str  # "closed book · probabilities first"
    horizon_label: str  # "T-24h"
    warning: str  # why the row is not ranked ("few events: N = 1", "coverage 40%"), or ""
    cells: tuple[Cell, ...]  # one per BoardColumn


@dataclass(frozen=True)
class BoardColumn:
    key: str
    label: str
    title: str  # the definition, shown in the glossary (reachable by tap) and on hover
    numeric: bool
    essential: bool = False  # in the compact default view; the others are one click away
    measure: str = ""  # the registry id of the figure (builder.score.definitions), "" for counts and intervals


@dataclass(frozen=True)
class Facet:
    """A filter that navigates between pre-rendered slices (competition, stage)."""

    name: str
    label: str
    options: tuple[Link, ...]  # href relative to this page
    current: str  # href of this page (the selected option)


@declare
@dataclass(frozen=True)
class LeaderboardPage:
    TEMPLATE: ClassVar[str] = "leaderboard.html"
    path: str
    meta: Meta
    heading: str
    slice_label: str
    facets: tuple[Facet, ...]
    horizons: tuple[Link, ...]  # href = horizon id, label = its plain name
    default_horizon: str
    accesses: tuple[Link, ...]
    strategies: tuple[Link, ...]
    columns: tuple[BoardColumn, ...]
    rows: tuple[BoardRow, ...]
    ensemble: tuple[BoardRow, ...]  # the equal-weight LLM ensemble, shown apart from the ranking
    min_events: int
    few_warning: str  # a page-wide warning when rows rest on few events, or ""
    mixed_clocks: bool  # live and replay rows side by side: mark the replay rows
    tests: tuple[Finding, ...]
    tests_note: str
    notes: tuple[str, ...]
    problems: int


@dataclass(frozen=True)
class Chart:
    id: str
    title: str
    caption: str
    figure: dict  # plotly {"data": [...], "layout": {...}}
    guide: str = ""  # one line: how to read it


@dataclass(frozen=True)
class MissingChart:
    """A chart the site promises but cannot draw from this archive, and why."""

    title: str
    reason: str


@declare
@dataclass(frozen=True)
class ChartsPage:
    TEMPLATE: ClassVar[str] = "charts.html"
    path: str
    meta: Meta
    charts: tuple[Chart, ...]
    missing: tuple[MissingChart, ...] = ()


@dataclass(frozen=True)
class Table:
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    measures: tuple[str, ...] = ()
    """Per column, the registry id of the measure it prints ("" for others; ``builder.score.definitions``)."""
    figures: tuple[str, ...] = ()
    """Per row, what its measures' figures are figures of (``builder.score.definitions.figure_key``)."""


@dataclass(frozen=True)
class ForecasterSummary:
    forecaster: str
    href: str
    forecaster_type: str
    forecasts: int
    scored: int
    best_brier: str
    cost: str


@declare
@dataclass(frozen=True)
class ForecastersPage:
    TEMPLATE: ClassVar[str] = "forecasters.html"
    path: str
    meta: Meta
    forecasters: tuple[ForecasterSummary, ...]


@declare
@dataclass(frozen=True)
class ForecasterPage:
    TEMPLATE: ClassVar[str] = "forecaster.html"
    path: str
    meta: Meta
    forecaster: str
    forecaster_type: str
    models: tuple[str, ...]
    tables: tuple[Table, ...]
    charts: tuple[Chart, ...]
    description: str = ""  # what the forecaster is, in plain words
    code: str = ""  # link (or repository path) of a baseline's code


@dataclass(frozen=True)
class Download:
    href: str
    label: str
    size: str
    sha256: str


@declare
@dataclass(frozen=True)
class DataPage:
    TEMPLATE: ClassVar[str] = "data.html"
    path: str
    meta: Meta
    downloads: tuple[Download, ...]
    schemas: tuple[Download, ...]
    records: int
    problems: tuple[str, ...]
    intro: Markup
    open_data: tuple[Download, ...] = ()  # Parquet tables, dataset card, Atom feed, JSON API


@dataclass(frozen=True)
class GroupTable:
    name: str
    rows: tuple[tuple[str, ...], ...]  # team, P, W, D, L, GF, GA, GD, Pts
