"""Page models of the leaderboard: one pre-rendered page per (competition, stage) slice.

Competition and stage filters link between slices (which slices exist and each slice's scores
come from the scoring stage, ``builder.score.slices``, through ``SiteContext.slices``: no metric
is computed here); horizon, access and strategy filters hide rows in the browser. Without
JavaScript every row of the slice is shown, sorted by matched Brier.
"""

from __future__ import annotations

from builder.score.types import ALL, Scores, Slice
from builder.site.links import forecaster_path, root_for
from builder.site.models import Link
from builder.site.models_board import (
    BoardColumn,
    BoardRow,
    Cell,
    Facet,
    LeaderboardPage,
    SignificantPair,
)
from builder.site.sitectx import SiteContext

HOME = "index.html"
MAX_TESTS = 80

COLUMNS = (
    BoardColumn("n", "N", "forecasts scored on matched events", True),
    BoardColumn("coverage", "Coverage", "share of the cell's eligible events this forecaster forecast", True),
    BoardColumn("brier", "Brier", "mean multiclass Brier score, 90-minute result (0-2, lower is better; uniform 0.667)", True),
    BoardColumn("brier_ci", "95% interval", "match-level bootstrap interval of the mean Brier", False),
    BoardColumn("log_loss", "Log loss", "mean log loss (lower is better)", True),
    BoardColumn("rps", "RPS", "ranked probability score (lower is better)", True),
    BoardColumn("accuracy", "Accuracy", "modal accuracy, ties give 1/k credit", True),
    BoardColumn("exact", "Exact", "share of exactly right scorelines", True),
    BoardColumn("points", "Points", "mean points 5/2/1/0 per match", True),
    BoardColumn("scoreline", "Scoreline", "WorldCupArena scoreline partial credit", True),
    BoardColumn("ece", "ECE", "expected calibration error, 10 equal-width bins", True),
    BoardColumn("market_return", "Return", "mean return of the risk-neutral betting rule against the market", True),
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
    return Cell(f"{100 * value:.0f}%", f"{value:.6f}")


def board_row(row, rank: str, root: str, linked: bool = True) -> BoardRow:
    m = row.measures
    low_high = row.intervals.get("brier")
    market = (row.market or {}).get("return")
    cells = (
        Cell(str(row.n), f"{row.n}"),
        _pct(row.coverage),
        _num(m.get("brier")),
        Cell(f"{low_high[0]:.3f} – {low_high[1]:.3f}" if low_high else "–", ""),
        _num(m.get("log_loss")),
        _num(m.get("rps")),
        _pct(m.get("accuracy")),
        _pct(m.get("exact")),
        _num(m.get("points"), 2),
        _num(m.get("scoreline"), 3),
        _num(row.ece),
        _num(market),
    )
    return BoardRow(
        forecaster=row.forecaster,
        href=root + forecaster_path(row.forecaster) if linked else "",
        forecaster_type=row.forecaster_type,
        access=row.access,
        strategy=row.strategy,
        horizon=row.horizon,
        clock=row.clock,
        ranked=row.ranked,
        rank=rank,
        cells=cells,
    )


def _sort_key(row) -> tuple:
    brier = row.measures.get("brier")
    return (not row.ranked, brier is None, brier or 0.0, row.forecaster, row.access, row.strategy, row.horizon, row.clock)


def _tests(scores) -> tuple[SignificantPair, ...]:
    tests = sorted(
        (t for t in scores.tests if t.p_holm is not None),
        key=lambda t: (t.p_holm, t.family, t.comparison, t.a, t.b),
    )[:MAX_TESTS]
    return tuple(
        SignificantPair(
            family=t.family,
            comparison=t.comparison,
            estimate=f"{t.estimate:+.3f} ({t.measure}, n={t.n})",
            interval=f"{t.low:+.3f} – {t.high:+.3f}" if t.low is not None and t.high is not None else "–",
            p_holm=f"{t.p_holm:.4f}",
            significant=t.p_holm < 0.05,
        )
        for t in tests
    )


def leaderboard_page(ctx: SiteContext, current: Slice, scores: Scores, all_slices: list[Slice],
                     with_tests: bool) -> LeaderboardPage:
    """The leaderboard page of one slice, from that slice's scores."""
    path = slice_path(current)
    root = root_for(path)
    board = scores.matched or scores.leaderboard
    ordered = sorted(board, key=_sort_key)
    rows = tuple(board_row(r, str(i + 1) if r.ranked else "–", root) for i, r in enumerate(ordered))
    facets = (
        Facet("competition", "Competition", _options(all_slices, root, stage=current.stage, by="competition"),
              root + path),
        Facet("stage", "Stage", _options(all_slices, root, competition=current.competition, by="stage"),
              root + path),
    )
    note = (
        "Paired sign-flip permutation tests on matched events, Holm-corrected within each declared family; "
        "differences with adjusted p < 0.05 are marked significant."
        if with_tests else "Significance tests are computed for whole competitions, not for single stages."
    )
    return LeaderboardPage(
        path=path,
        meta=ctx.meta("Leaderboard" if path == HOME else f"Leaderboard · {slice_label(current)}", path, "leaderboard"),
        heading="Leaderboard",
        slice_label=slice_label(current),
        facets=tuple(f for f in facets if len(f.options) > 1),
        horizons=tuple(sorted({r.horizon for r in rows})),
        accesses=tuple(sorted({r.access for r in rows})),
        strategies=tuple(sorted({r.strategy for r in rows})),
        columns=COLUMNS,
        rows=rows,
        ensemble=tuple(board_row(r, "–", root, linked=False) for r in sorted(scores.ensemble, key=_sort_key)),
        tests=_tests(scores) if with_tests else (),
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
