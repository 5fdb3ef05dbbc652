"""Page models of the leaderboard: one pre-rendered page per (competition, stage) slice.

Competition and stage filters link between slices (which slices exist and each slice's scores
come from the scoring stage, ``builder.score.slices``, through ``SiteContext.slices``: no metric
is computed here). Horizons are never ranked together (the method page's rule): a row's rank
is its place by matched Brier among the rankable rows of its horizon, and the page shows one
horizon at a time (``labels.DEFAULT_HORIZON`` first) with access and strategy filters; the
page's script re-numbers the ranks of what a filter leaves. A row is rankable when the
scoring stage ranked it (coverage rule) and it rests on at least ``MIN_EVENTS`` events; the
others are shown, marked and not ranked. Without JavaScript every row is shown, grouped by
horizon, each group ranked on its own.
"""

from __future__ import annotations

from dataclasses import replace

from builder.score.definitions import (
    COMPOSITE_RULE,
    INTERVALS,
    LEADERBOARD_SCORELINE,
    figure_key,
    help_text,
    label,
)
from builder.score.types import ALL, Scores, Slice
from builder.site.findings import findings
from builder.site.fmt import percent
from builder.site.labels import (
    ACCESS,
    DEFAULT_HORIZON,
    STRATEGIES,
    condition_label,
    horizon_label,
    horizon_rank,
    plain,
)
from builder.site.links import forecaster_path, root_for
from builder.site.models import Link
from builder.site.models_board import (
    BoardColumn,
    BoardRow,
    Cell,
    Facet,
    LeaderboardPage,
)
from builder.site.sitectx import SiteContext

HOME = "index.html"
MAX_TESTS = 240
MIN_EVENTS = 10  # fewer scored events than this: shown, marked, not ranked

def _measure(id: str, essential: bool = False) -> BoardColumn:
    """A column of one registered measure: its label and glossary text are the registry's."""
    return BoardColumn(id, label(id), help_text(id), True, essential, measure=id)


COLUMNS = (
    _measure("brier", essential=True),
    BoardColumn("brier_ci", "95% interval", f"95% interval of the mean Brier ({INTERVALS.name}, see Methodology): "
                "the range the mean would likely fall in with other matches of the same kind.", False, True),
    BoardColumn("n", "N", "Number of matches scored for this row (matched events: those every compared "
                "forecaster of the same condition forecast).", True, True),
    _measure("coverage", essential=True),
    _measure("log_loss"),
    _measure("rps"),
    _measure("accuracy"),
    _measure("exact"),
    _measure("points"),
    _measure(LEADERBOARD_SCORELINE),
    BoardColumn("composite", label("composite"), f"{help_text('composite')} {COMPOSITE_RULE} Over every scored "
                "match of the forecaster's condition (not only the matched ones); N under it is that number of "
                "matches.", True, measure="composite"),
    _measure("ece"),
    _measure("market_return"),
    _measure("market_sharpe"),
    BoardColumn("market_n", "N market", f"Number of matches with a quoted market price behind "
                f"{label('market_return')} and {label('market_sharpe')}.", True),
)


def slice_path(current: Slice) -> str:
    """The page of a slice: the home page for the whole archive, else ``leaderboard/{competition}/{stage}.html``."""
    return HOME if current.whole else f"leaderboard/{current.competition}/{current.stage}.html"


def slice_label(current: Slice) -> str:
    """How a slice is named on its page: "all competitions", a competition, or "<competition>, stage <stage>"."""
    name = "all competitions" if current.competition == ALL else current.competition_name
    return name if current.stage == ALL else f"{name}, stage {current.stage_name}"


def _num(value: float | None, digits: int = 3) -> Cell:
    if value is None:
        return Cell("–", "")
    return Cell(f"{value:.{digits}f}", f"{value:.6f}")


def _pct(value: float | None) -> Cell:
    if value is None:
        return Cell("–", "")
    return Cell(percent(value), f"{value:.6f}")


def _composite(values: dict | None) -> Cell:
    """The displayed composite with its N ("–" when no layer of the cell has truth)."""
    value = (values or {}).get("composite")
    if value is None:
        return Cell("–", "", title="no layer with truth: no composite")
    n = values.get("composite_n", 0)
    return Cell(f"{value:.2f}", f"{value:.6f}", title=f"raw {values.get('composite_raw'):.2f}, N = {n}",
                detail=f"N = {n}")


def rankable(row) -> bool:
    """Ranked by the coverage rule and scored on at least ``MIN_EVENTS`` events."""
    return row.ranked and row.n >= MIN_EVENTS


def _warning(row) -> str:
    if not row.ranked:
        coverage = percent(row.coverage) if row.coverage is not None else "unknown"
        return f"coverage {coverage}: below half the most complete forecaster's, not ranked"
    if row.n < MIN_EVENTS:
        return f"few matches: N = {row.n} (fewer than {MIN_EVENTS}), not ranked"
    return ""


def board_row(row, rank: str, root: str, linked: bool = True, part: str = ALL) -> BoardRow:
    """One row of the board: its cells in :data:`COLUMNS` order, each measure's cell naming what
    its figure is (``figure_key``: the row's view, the composite over every match of the cell)."""
    m = row.measures
    low_high = row.intervals.get("brier")
    market_row = row.market or {}
    interval = f"{low_high[0]:.3f} – {low_high[1]:.3f}" if low_high else "–"
    brier = _num(m.get("brier"))
    cells = (
        Cell(brier.text, brier.sort, detail=interval if low_high else ""),
        Cell(interval, ""),
        Cell(str(row.n), f"{row.n}"),
        _pct(row.coverage),
        _num(m.get("log_loss")),
        _num(m.get("rps")),
        _pct(m.get("accuracy")),
        _pct(m.get("exact")),
        _num(m.get("points"), 2),
        _num(m.get(LEADERBOARD_SCORELINE), 3),
        _composite(getattr(row, "composite", None)),
        _num(row.ece),
        _num(market_row.get("return")),
        _num(market_row.get("sharpe"), 2),
        Cell(str(market_row["n_return"]), f"{market_row['n_return']}") if market_row.get("n_return") is not None
        else Cell("–", ""),
    )
    view = figure_key(row.forecaster, row.access, row.strategy, row.horizon, row.clock, row.view, part)
    whole = figure_key(row.forecaster, row.access, row.strategy, row.horizon, row.clock, "all", part)
    cells = tuple(replace(c, figure=(whole if col.measure == "composite" else view) if col.measure else "")
                  for c, col in zip(cells, COLUMNS, strict=True))
    return BoardRow(
        forecaster=row.forecaster,
        href=root + forecaster_path(row.forecaster) if linked else "",
        forecaster_type=row.forecaster_type,
        access=row.access,
        strategy=row.strategy,
        horizon=row.horizon,
        clock=row.clock,
        ranked=row.ranked,
        rankable=rankable(row),
        rank=rank,
        condition=condition_label(row.access, row.strategy),
        horizon_label=horizon_label(row.horizon),
        warning=_warning(row),
        cells=cells,
    )


def _sort_key(row) -> tuple:
    brier = row.measures.get("brier")
    return (horizon_rank(row.horizon), row.horizon, not rankable(row), brier is None, brier or 0.0,
            row.forecaster, row.access, row.strategy, row.clock)


def ranked_rows(board, root: str, part: str = ALL) -> tuple[BoardRow, ...]:
    """Rows grouped by horizon (earliest first), each group ranked 1, 2, ... by Brier among its rankable rows."""
    rows, place, horizon = [], 0, None
    for row in sorted(board, key=_sort_key):
        if row.horizon != horizon:
            horizon, place = row.horizon, 0
        if rankable(row):
            place += 1
        rows.append(board_row(row, str(place) if rankable(row) else "–", root, part=part))
    return tuple(rows)


def _few_warning(rows: tuple[BoardRow, ...]) -> str:
    few = [r for r in rows if r.ranked and not r.rankable]
    if not few:
        return ""
    if len(few) == len(rows):
        return (f"Every row here rests on fewer than {MIN_EVENTS} matches: the rows are shown but not ranked, "
                "and their differences say little.")
    return f"{len(few)} row(s) rest on fewer than {MIN_EVENTS} matches: they are shown, marked, and not ranked."


def _choices(values, table) -> tuple[Link, ...]:
    return tuple(Link(v, plain(v, table)) for v in sorted(set(values)))


def leaderboard_page(ctx: SiteContext, current: Slice, scores: Scores, all_slices: list[Slice],
                     with_tests: bool) -> LeaderboardPage:
    """The leaderboard page of one slice, from that slice's scores."""
    path = slice_path(current)
    root = root_for(path)
    board = scores.matched or scores.leaderboard
    part = ALL if current.whole else f"{current.competition}/{current.stage}"
    rows = ranked_rows(board, root, part)
    horizons = sorted({r.horizon for r in rows}, key=lambda h: (horizon_rank(h), h))
    facets = (
        Facet("competition", "Competition", _options(all_slices, root, stage=current.stage, by="competition"),
              root + path),
        Facet("stage", "Stage", _options(all_slices, root, competition=current.competition, by="stage"),
              root + path),
    )
    note = (
        "Paired sign-flip permutation tests on matched matches, Holm-corrected within each declared family "
        "of comparisons; a difference is significant when its adjusted p is below 0.05. The sentences follow "
        "the filters above."
        if with_tests else "Significance tests are computed for whole competitions, not for single stages."
    )
    return LeaderboardPage(
        path=path,
        meta=ctx.meta("Leaderboard" if path == HOME else f"Leaderboard · {slice_label(current)}", path, "leaderboard"),
        heading="Leaderboard",
        slice_label=slice_label(current),
        facets=tuple(f for f in facets if len(f.options) > 1),
        horizons=tuple(Link(h, horizon_label(h)) for h in horizons),
        default_horizon=DEFAULT_HORIZON if DEFAULT_HORIZON in horizons else (horizons[0] if horizons else ""),
        accesses=_choices((r.access for r in rows), ACCESS),
        strategies=_choices((r.strategy for r in rows), STRATEGIES),
        columns=COLUMNS,
        rows=rows,
        ensemble=tuple(board_row(r, "–", root, linked=False, part=part) for r in sorted(scores.ensemble, key=_sort_key)),
        min_events=MIN_EVENTS,
        few_warning=_few_warning(rows),
        mixed_clocks=len({r.clock for r in rows}) > 1,
        tests=findings(scores.tests, MAX_TESTS) if with_tests else (),
        tests_note=note,
        notes=tuple(scores.notes),
        problems=len(ctx.archive.problems),
    )


def _options(all_slices: list[Slice], root: str, by: str, competition: str | None = None, stage: str | None = None) -> tuple[Link, ...]:
    chosen = []
    for s in all_slices:
        if by == "competition" and s.stage == stage:
            chosen.append(Link(root + slice_path(s), s.competition_name))
        elif by == "stage" and s.competition == competition:
            chosen.append(Link(root + slice_path(s), s.stage_name))
    return tuple(chosen)


def leaderboard_pages(ctx: SiteContext) -> list[LeaderboardPage]:
    """One page per slice scored by the build (``ctx.slices``), each with the facets that link to the others."""
    found = list(ctx.slices)
    return [leaderboard_page(ctx, current, ctx.slices[current], found, current.stage == ALL) for current in found]
