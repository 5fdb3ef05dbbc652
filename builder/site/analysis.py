"""Page model of the analysis page: the papers' tables, robustness, Holm families, adjusted scores.

Everything shown was computed by the build's one ``score_archive`` call (``SiteContext.scores``)
and by :func:`builder.score.paper_tables.paper_tables` on its scored rows; values are turned
into strings here and escaped by the template like every other page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from builder.score.definitions import REGISTRY_ENTRIES, label
from builder.score.paper_tables import paper_tables
from builder.score.t5_layer import NO_T5
from builder.site.models import Meta
from builder.site.models_board import Table
from builder.site.render import declare
from builder.site.sitectx import SiteContext

PATH = "analysis/index.html"
FAMILY_PREFIXES = ("ensemble/", "ensemble_average/", "stage/", "stage_descriptive/")


@declare
@dataclass(frozen=True)
class AnalysisPage:
    TEMPLATE: ClassVar[str] = "analysis.html"
    path: str
    meta: Meta
    paper: tuple[tuple[Table, str], ...]
    """Each paper's table with its caption."""
    robustness: tuple[Table, ...]
    families: Table
    difficulty: Table
    calibration: tuple[Table, ...]
    definitions: Table


def _f(value, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(low, high, digits: int = 4) -> str:
    return "-" if low is None or high is None else f"[{low:.{digits}f}, {high:.{digits}f}]"


def _test_row(name: str, t) -> tuple[str, ...]:
    if t is None:
        return (name, "-", "-", "-", "-")
    return (name, _f(t.estimate), _ci(t.low, t.high), _f(t.p_value, 3), str(t.n))


def robustness_tables(scores) -> tuple[Table, ...]:
    out = []
    for rob in scores.robustness:
        rows = [_test_row("Access effect, T-24h (intention to treat)", rob.primary),
                _test_row(f"Lead time within {rob.window[0]:.0f}-{rob.window[1]:.0f} min "
                          f"({rob.lead_time_excluded} matches excluded)", rob.lead_time),
                _test_row("As treated: open book with observed search only", rob.as_treated),
                _test_row("Access x strategy interaction", rob.interaction)]
        loo = rob.leave_one_out
        rows.append(("Leave one match out: range of the access effect",
                     f"{_f(loo.get('min'))} to {_f(loo.get('max'))}", "-", "-", str(loo.get("n"))))
        rank = rob.ranking
        if rank.get("ranking"):
            rows.append(("Leave one match out: same ranking / same leader",
                         f"{rank['same_ranking_share']:.1%} / {rank['same_leader_share']:.1%}", "-", "-",
                         str(rank["n"])))
        if rob.variance:
            for part, share in rob.variance["shares"].items():
                low, high = rob.variance["intervals"][part]
                rows.append((f"Share of T-24h cell-mean variation: {part}", f"{share:.1%}",
                             f"[{low:.1%}, {high:.1%}]", "-", str(len(rob.variance["models"]))))
        out.append(Table(f"Robustness (LLM-SoccerArena C.3), {rob.clock} records",
                         ("analysis", "estimate (Brier: closed − open book)", "95% CI", "p", "n"), tuple(rows)))
    return tuple(out)


def families_table(scores) -> Table:
    rows = tuple((t.family, t.comparison, str(t.n), _f(t.estimate), _ci(t.low, t.high), _f(t.p_value, 3),
                  _f(t.p_holm, 3)) for t in scores.tests if t.family.startswith(FAMILY_PREFIXES))
    return Table("Ensemble and stage Holm families (LLM-SoccerArena B.5)",
                 ("family", "comparison", "n", "estimate", "95% CI", "p", "Holm p"), rows)


def difficulty_table(scores) -> Table:
    matched = {(r.forecaster, r.access, r.strategy, r.horizon, r.clock): r for r in scores.matched}
    rows = []
    for d in scores.difficulty:
        m = matched.get((d.forecaster, d.access, d.strategy, d.horizon, d.clock))
        rows.append((d.forecaster, f"{d.access}/{d.strategy}/{d.horizon}" + (" [replay]" if d.clock == "replay" else ""),
                     str(d.n), _f(d.mean), _f(d.adjusted), _ci(d.low, d.high),
                     str(m.n) if m else "-", _f(m.measures.get("brier")) if m else "-"))
    return Table(f"{label('brier_adjusted')}: two-way fixed effects, beside the matched view",
                 ("forecaster", "condition", "n (own events)", f"{label('brier')} (own events)",
                  label("brier_adjusted"), "95% CI", "n (matched)", f"{label('brier')} (matched)"), tuple(rows),
                 ("", "", "", "brier", "brier_adjusted", "", "", "brier"))


def calibration_tables(scores) -> tuple[Table, ...]:
    out = []
    for pooled in scores.pooled_calibration:
        rows = tuple((b.outcome, f"{b.lower:.3f}-{b.upper:.3f}", str(b.n), f"{b.mean_probability:.3f}",
                      f"{b.observed_frequency:.3f}", _ci(b.low, b.high, 3)) for b in pooled.bins)
        out.append(Table(f"Reliability of {pooled.members}-averaged {pooled.horizon} forecasts "
                         f"({pooled.n_vectors} vectors, {pooled.n_events} matches, 5 equal-frequency bins), "
                         f"{pooled.clock} records",
                         ("outcome", "bin", "n", "mean predicted", "observed", "95% CI (match bootstrap)"), rows))
        gaps = tuple((o, f"{g['mean_probability']:.3f}", f"{g['observed_frequency']:.3f}", _f(g["gap"]),
                      _ci(g["low"], g["high"]), _f(g["p"], 3)) for o, g in pooled.gaps.items())
        out.append(Table("Predicted minus observed, per outcome",
                         ("outcome", "mean predicted", "observed", "gap", "95% CI", "p"), gaps))
    return tuple(out)


def analysis_page(ctx: SiteContext) -> AnalysisPage:
    scores = ctx.scores
    made = ctx.paper if ctx.paper is not None else \
        paper_tables(scores.forecasts, t5=scores.t5 or NO_T5) if scores.forecasts else ()
    paper = tuple((Table(t.title, t.columns, t.rows, t.measures, t.figures), t.caption) for t in made)
    definitions = Table("Which paper each measure follows", ("measure", "label", "paper", "where", "definition"),
                        tuple((m.id, m.label, m.paper, m.where, m.text) for m in REGISTRY_ENTRIES))
    return AnalysisPage(path=PATH, meta=ctx.meta("Analysis", PATH, "analysis"), paper=paper,
                        robustness=robustness_tables(scores), families=families_table(scores),
                        difficulty=difficulty_table(scores), calibration=calibration_tables(scores),
                        definitions=definitions)
