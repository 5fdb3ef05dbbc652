"""Page models shared by every page, and those of pages that come straight from the archive.

Each page model is a frozen dataclass registered with :func:`~builder.site.render.declare`
for exactly one template. Values are display-ready (strings, numbers, ``Markup`` for
already-sanitised HTML); templates do no computing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from markupsafe import Markup

from builder.site.render import declare


@dataclass(frozen=True)
class Link:
    href: str
    label: str


@dataclass(frozen=True)
class Kickoff:
    iso_utc: str | None  # 2026-06-11T19:00:00Z, shown in the visitor's zone by site.js
    utc_label: str  # 2026-06-11 19:00 UTC (the no-JavaScript text and the hover title)
    source: str  # the source's own string


@dataclass(frozen=True)
class Meta:
    """What the layout of every page needs: title, relative root, nav, replay banner (nothing per-build)."""

    title: str
    root: str  # relative prefix to the site root ("", "../", "../../")
    section: str  # which nav entry is active
    replay: bool  # built from replay records: show the banner
    demo: bool = False  # the demo's synthetic LLMs are in the archive: show the demo banner
    commit: str = ""  # not printed: per-build facts (commit, anchor, last update) live on build.html
    charts: bool = False  # load the shared plotly.js


@dataclass(frozen=True)
class Goal:
    minute: str
    team: str
    scorer: str
    note: str


@dataclass(frozen=True)
class OutcomeView:
    status: str
    score_90: str | None
    score_half_time: str | None
    score_extra_time: str | None
    score_penalties: str | None
    advancing: str | None
    goals: tuple[Goal, ...]
    replay: bool
    corrections: tuple[str, ...] = ()  # corrections of the source applied at ingest, each with its citation
    winner_label: str = "Advances"  # "Winner" where no later match takes the winner (final, third place)


@dataclass(frozen=True)
class Citation:
    href: str | None  # None when the URL was not a plain http(s) link
    label: str


class Measure(NamedTuple):
    """One displayed score beside a forecast (a tuple: hundreds of thousands are made per build)."""

    label: str
    value: str
    measure: str = ""  # its registry id (builder.score.definitions), written as data-measure


@dataclass(frozen=True)
class ForecastView:
    forecaster: str
    forecaster_href: str
    forecaster_type: str
    model: str | None
    served_model: str | None  # set only when the provider served another model than requested
    condition: str  # "closed_book · direct_score · t_minus_24h · s0"
    access: str
    strategy: str
    horizon: str
    status: str
    scorable: bool
    probabilities: tuple[str, str, str] | None  # home, draw, away (formatted)
    bars: tuple[float, float, float] | None  # widths in percent
    most_likely: str | None
    expected_goals: str | None
    advancement: str | None
    confidence: str | None
    rationale: Markup
    requested_at: str | None
    lead_time: str | None
    cost: str | None
    latency: str | None
    search: str
    citations: tuple[Citation, ...]
    search_flag: str | None  # open_book_no_search (a note) | closed_book_search (a protocol violation)
    protocol: str | None  # the first 12 hex digits of the request protocol's SHA-256
    statistics: str | None  # from the attempt statistics records: provider, search results, billed cost
    measures: tuple[Measure, ...]  # per-forecast scores once resolved
    replay: bool
    archive_path: str
    record_href: str = ""  # the raw JSON: on the repository host, or beside the site (``SiteContext.record_href``)
    host_href: str = ""  # the record at the commit that added it, on the repository host ("" when unknown)
    commit: str = ""  # short id of that commit
    brier: str = "–"  # once resolved, for the comparison table
    evidence: str | None = None  # evidence_package: the package's archive path
    evidence_sha256: str | None = None  # the SHA-256 the forecast names (of the package file's bytes)
    evidence_href: str = ""  # the package's raw JSON beside the site
    leaks: tuple[str, ...] = ()  # the leakage audit's reasons (builder/score/leakage.py): left out of the scores


@dataclass(frozen=True)
class Consensus:
    forecasters: int
    probabilities: tuple[str, str, str]
    bars: tuple[float, float, float]
    most_likely: str | None


@dataclass(frozen=True)
class MatchRow:
    href: str
    competition: str
    competition_id: str
    stage: str
    stage_id: str
    group: str
    kickoff: Kickoff
    home: str
    away: str
    result: str
    forecasts: int
    resolved: bool
    consensus: Consensus | None = None


@declare
@dataclass(frozen=True)
class MatchListPage:
    TEMPLATE: ClassVar[str] = "matches.html"
    path: str
    meta: Meta
    heading: str
    competitions: tuple[Link, ...]
    stages: tuple[tuple[str, str], ...]  # (id, label) for the stage filter
    rows: tuple[MatchRow, ...]
    parts: tuple[Link, ...] = ()  # a long list is split (builder.site.paging): every part, in kickoff order
    part: int = 1  # which of them this page is


@dataclass(frozen=True)
class CompetitionSummary:
    href: str
    label: str
    matches: int
    played: int
    forecasts: int


@declare
@dataclass(frozen=True)
class MatchesIndexPage:
    TEMPLATE: ClassVar[str] = "matches_index.html"
    path: str
    meta: Meta
    competitions: tuple[CompetitionSummary, ...]


@declare
@dataclass(frozen=True)
class MatchPage:
    TEMPLATE: ClassVar[str] = "match.html"
    path: str
    meta: Meta
    competition: Link
    stage: str
    group: str | None
    matchday: int | None
    match_number: int | None
    kickoff: Kickoff
    venue: str | None
    status: str
    home: str
    away: str
    knockout: bool
    outcome: OutcomeView | None
    consensus: Consensus | None
    forecasts: tuple[ForecastView, ...]
    archive_path: str
    record_href: str = ""  # the event record's raw JSON (``SiteContext.record_href``)
    round_label: str = ""  # "Group A · round 2 of 3", "Matchday 6", "" for a knockout
    home_href: str = ""  # the team pages
    away_href: str = ""
    decided: str = ""  # how a knockout was (or will be) decided, in words
    fine_grained: Any = None  # builder.site.models_fine_grained.FineGrainedSection: players, events, statistics
    market_chart: Any = None  # builder.site.models_board.Chart: market price path and forecasts over time


@dataclass(frozen=True)
class ChoiceView:
    team: str
    probability: str
    width: float
    picked: bool
    correct: bool | None  # None while unresolved
    tie: bool = False  # a final pick tied in probability with a team not picked: no pick, shown as "tie"


@dataclass(frozen=True)
class QuestionForecastView:
    forecaster: str
    forecaster_href: str
    forecaster_type: str
    condition: str
    status: str
    picks: tuple[ChoiceView, ...]
    rationale: Markup
    measures: tuple[Measure, ...]
    replay: bool


@dataclass(frozen=True)
class QuestionView:
    competition: str
    label: str
    meaning: str
    kind: str
    closes: Kickoff
    answer: tuple[str, ...] | None
    forecasts: tuple[QuestionForecastView, ...]


@dataclass(frozen=True)
class QuestionSummary:
    href: str
    competition: str
    label: str
    closes: Kickoff
    answer: tuple[str, ...] | None
    forecasts: int


@declare
@dataclass(frozen=True)
class QuestionsPage:
    TEMPLATE: ClassVar[str] = "questions.html"
    path: str
    meta: Meta
    questions: tuple[QuestionSummary, ...]
    score_headers: tuple[str, ...]  # mean scores per forecaster x condition x question type
    score_rows: tuple[tuple[str, ...], ...]
    score_measures: tuple[str, ...] = ()  # per score column, its registry id ("" for the others)
    binary_events: int = 0  # binary market events: a link to their page (builder/site/binary_events.py)


@declare
@dataclass(frozen=True)
class QuestionPage:
    TEMPLATE: ClassVar[str] = "question.html"
    path: str
    meta: Meta
    question: QuestionView


@declare
@dataclass(frozen=True)
class TextPage:
    """Methodology and audit pages: trusted markdown written by the project."""

    TEMPLATE: ClassVar[str] = "text.html"
    path: str
    meta: Meta
    body: Markup
    extra: tuple[Link, ...] = field(default=())
