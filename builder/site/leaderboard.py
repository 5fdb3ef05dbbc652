"""Page models of the leaderboard: one pre-rendered page per (competition, stage) slice.

Competition and stage filters link between slices (each slice's leaderboard is computed by
``builder.score.scoring.score_part`` from the build's scored rows of the matching part of the
archive, so no metric is computed here); horizon, access and strategy filters hide rows in the browser. Without
JavaScript every row of the slice is shown, sorted by matched Brier.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

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
from collector.archive.reader import Archive
from collector.records import Forecast

ALL = "all"
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


@dataclass(frozen=True)
class Slice:
    competition: str  # competition id or "all"
    stage: str  # stage id or "all"
    label: str
    path: str
    competition_name: str = ALL
    stage_name: str = ALL


def slice_path(competition: str, stage: str) -> str:
    return HOME if (competition, stage) == (ALL, ALL) else f"leaderboard/{competition}/{stage}.html"


def slice_filter(archive: Archive, competition: str, stage: str) -> Callable[[str, str], bool]:
    """Whether the event (competition id, event id) belongs to the slice."""
    def keep(cid: str, eid: str) -> bool:
        if competition != ALL and cid != competition:
            return False
        event = archive.events.get((cid, eid))
        return stage == ALL or (event is not None and event.stage == stage)

    return keep


def slice_archive(archive: Archive, competition: str, stage: str) -> Archive:
    """The part of ``archive`` one slice covers (events, outcomes and their forecasts)."""
    keep = slice_filter(archive, competition, stage)
    return replace(
        archive,
        events={k: v for k, v in archive.events.items() if keep(*k)},
        outcomes={k: v for k, v in archive.outcomes.items() if keep(*k)},
        forecasts=[
            f for f in archive.forecasts
            if (f.target_kind == "match" and keep(f.competition_id, f.target_id))
            or (f.target_kind == "question" and stage == ALL and competition in (ALL, f.competition_id))
        ],
        problems=[],
    )


def slices(archive: Archive) -> list[Slice]:
    """(all, all) first; then each competition (if several) and each stage with events."""
    comps = sorted(archive.competitions)
    wanted = [(ALL, ALL)] + [(c, ALL) for c in comps if len(comps) > 1]
    for cid in [ALL] + (comps if len(comps) > 1 else []):
        order = {st.id: (st.order, st.id) for _, comp in sorted(archive.competitions.items()) for st in comp.stages}
        events = archive.events.values() if cid == ALL else archive.events_of(cid)
        stages = sorted({e.stage for e in events},
                        key=lambda st: order.get(st, (99, st)))
        if len(stages) > 1:
            wanted += [(cid, s) for s in stages]
    found = []
    for cid, stage in wanted:
        name = "all competitions" if cid == ALL else archive.competitions[cid].name
        stage_name = ALL if stage == ALL else _stage_name(archive, cid, stage)
        label = name if stage == ALL else f"{name}, stage {stage_name}"
        found.append(Slice(cid, stage, label, slice_path(cid, stage), name if cid != ALL else ALL, stage_name))
    return found


def _stage_name(archive: Archive, competition: str, stage: str) -> str:
    """The stage's display name (from any competition that defines it), else its id."""
    for cid, comp in sorted(archive.competitions.items()):
        if competition in (ALL, cid):
            for s in comp.stages:
                if s.id == stage:
                    return s.name
    return stage


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


def leaderboard_page(ctx: SiteContext, current: Slice, scores, all_slices: list[Slice], with_tests: bool) -> LeaderboardPage:
    root = root_for(current.path)
    board = scores.matched or scores.leaderboard
    ordered = sorted(board, key=_sort_key)
    rows = tuple(board_row(r, str(i + 1) if r.ranked else "–", root) for i, r in enumerate(ordered))
    facets = (
        Facet("competition", "Competition", _options(all_slices, root, stage=current.stage, by="competition"),
              root + current.path),
        Facet("stage", "Stage", _options(all_slices, root, competition=current.competition, by="stage"),
              root + current.path),
    )
    note = (
        "Paired sign-flip permutation tests on matched events, Holm-corrected within each declared family; "
        "differences with adjusted p < 0.05 are marked significant."
        if with_tests else "Significance tests are computed for whole competitions, not for single stages."
    )
    return LeaderboardPage(
        path=current.path,
        meta=ctx.meta("Leaderboard" if current.path == HOME else f"Leaderboard · {current.label}", current.path, "leaderboard"),
        heading="Leaderboard",
        slice_label=current.label,
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
            chosen.append(Link(root + s.path, s.competition_name))
        elif by == "stage" and s.competition == competition:
            chosen.append(Link(root + s.path, s.stage_name))
    return tuple(chosen)


def slice_scores(ctx: SiteContext, score: Callable[..., object]) -> dict[Slice, object]:
    """Scores of every slice; (all, all) reuses the build's scores (the ``score --json`` numbers).

    The other slices reuse the build's scored rows: ``score(archive, match_forecasts, rows,
    inference_tests=...)`` (``builder.score.scoring.score_part``) gets the slice's match forecasts
    (sorted by key, as ``score_archive`` sorts them) and its rows, in the build's order.
    """
    found = {}
    match_forecasts = sorted((f for f in ctx.archive.forecasts if f.target_kind == "match"), key=Forecast.key)
    for current in slices(ctx.archive):
        if (current.competition, current.stage) == (ALL, ALL):
            found[current] = ctx.scores
            continue
        keep = slice_filter(ctx.archive, current.competition, current.stage)
        found[current] = score(ctx.archive, [f for f in match_forecasts if keep(f.competition_id, f.target_id)],
                               [r for r in ctx.scores.forecasts if keep(r.competition_id, r.event_id)],
                               inference_tests=current.stage == ALL)
    return found


def leaderboard_pages(ctx: SiteContext, scored: dict[Slice, object]) -> list[LeaderboardPage]:
    """One page per slice, each with the facets that link to the others."""
    found = list(scored)
    return [leaderboard_page(ctx, current, scored[current], found, current.stage == ALL) for current in found]
