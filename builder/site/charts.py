"""Plotly figures (plain JSON dicts) for the charts page and forecaster pages.

Figures are drawn in the browser by the one shared ``assets/plotly.min.js`` copied from the
installed plotly package (never a CDN). Values come from ``builder.score.scoring``'s per-forecast
measures and aggregates; the only arithmetic here is grouping them for display (running and
group means of per-forecast Brier), and every caption says so.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import plotly

from builder.site.models_board import Chart

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
MAX_POINTS = 300  # per line; longer series are thinned evenly so pages stay light
FACTOR_FAMILIES = ("access/", "strategy/", "horizon/")


def _layout(title: str, x: str, y: str, **extra) -> dict:
    layout = {
        "title": {"text": title},
        "xaxis": {"title": {"text": x}},
        "yaxis": {"title": {"text": y}},
        "margin": {"l": 60, "r": 20, "t": 50, "b": 60},
        "legend": {"orientation": "h", "y": -0.25},
        "template": {"layout": {"font": {"family": "system-ui, sans-serif"}}},
        "height": 420,
    }
    layout.update(extra)
    return layout


def _r(values) -> list:
    return [None if v is None or not np.isfinite(v) else round(float(v), 4) for v in values]


def _thin(n: int) -> np.ndarray:
    return np.unique(np.linspace(0, n - 1, min(n, MAX_POINTS)).round().astype(int)) if n else np.array([], int)


def cumulative_brier(scored, kickoffs: dict) -> Chart:
    """Running mean of each forecaster's Brier (averaged over its cells per match) in kickoff order."""
    per: dict[str, dict[tuple, list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in scored:
        per[s.forecaster][(s.competition_id, s.event_id)].append(s.measures["brier"])
    traces = []
    for forecaster in sorted(per):
        events = sorted(per[forecaster], key=lambda k: (kickoffs.get(k, ""), k))
        values = np.array([np.mean(per[forecaster][e]) for e in events])
        running = np.cumsum(values) / np.arange(1, len(values) + 1)
        keep = _thin(len(values))
        traces.append({"type": "scatter", "mode": "lines", "name": forecaster,
                       "x": [int(i) + 1 for i in keep], "y": _r(running[keep])})
    return Chart("cumulative-brier", "Cumulative Brier over matches",
                 "Running mean of the per-match Brier score (each match: mean over the forecaster's condition "
                 "cells), in kickoff order. Lower is better; uniform = 0.667.",
                 {"data": traces, "layout": _layout("Cumulative Brier", "matches scored", "mean Brier")})


def brier_by_stage(scored, stage_order: list[str]) -> Chart:
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for s in scored:
        groups[(s.forecaster, s.stage)].append(s.measures["brier"])
    stages = [st for st in stage_order if any(k[1] == st for k in groups)]
    traces = []
    for forecaster in sorted({k[0] for k in groups}):
        ys = [float(np.mean(groups[(forecaster, st)])) if (forecaster, st) in groups else None for st in stages]
        traces.append({"type": "bar", "name": forecaster, "x": stages, "y": _r(ys)})
    return Chart("brier-by-stage", "Brier by stage",
                 "Mean per-forecast Brier score by stage (all condition cells pooled).",
                 {"data": traces, "layout": _layout("Brier by stage", "stage", "mean Brier", barmode="group")})


def reliability(calibration_rows, title: str, chart_id: str, limit: int = 8) -> Chart:
    """Equal-width reliability bins, pooled over home/draw/away, for the largest cells."""
    rows = sorted(calibration_rows, key=lambda c: (-c.n, c.cell.forecaster, c.cell.access, c.cell.strategy, c.cell.horizon))[:limit]
    traces = [{"type": "scatter", "mode": "lines", "name": "perfect calibration", "x": [0, 1], "y": [0, 1],
               "line": {"dash": "dot", "color": "#888"}}]
    for row in sorted(rows, key=lambda c: (c.cell.forecaster, c.cell.access, c.cell.strategy, c.cell.horizon)):
        bins = sorted((b for b in row.bins if b.scheme == "equal_width"), key=lambda b: (b.outcome, b.lower))
        label = f"{row.cell.forecaster} {row.cell.access}/{row.cell.strategy}/{row.cell.horizon}"
        traces.append({"type": "scatter", "mode": "markers", "name": label,
                       "x": _r(b.mean_probability for b in bins), "y": _r(b.observed_frequency for b in bins),
                       "text": [f"{b.outcome}, n={b.n}" for b in bins]})
    return Chart(chart_id, title,
                 "Reliability diagram: forecast probability against observed frequency in 10 equal-width bins "
                 "(home, draw and away points together). Points on the diagonal are well calibrated.",
                 {"data": traces, "layout": _layout(title, "forecast probability", "observed frequency",
                                                    xaxis={"range": [0, 1], "title": {"text": "forecast probability"}},
                                                    yaxis={"range": [0, 1], "title": {"text": "observed frequency"}})})


def factorial_effects(tests) -> Chart:
    rows = sorted((t for t in tests if t.family.startswith(FACTOR_FAMILIES) and t.low is not None),
                  key=lambda t: (t.family, t.comparison))
    labels = [f"{t.family}: {t.comparison}" for t in rows]
    trace = {"type": "scatter", "mode": "markers", "name": "mean difference", "x": _r(t.estimate for t in rows),
             "y": labels, "error_x": {"type": "data", "symmetric": False,
                                       "array": _r(t.high - t.estimate for t in rows),
                                       "arrayminus": _r(t.estimate - t.low for t in rows)}}
    height = max(300, 40 + 28 * len(rows))
    return Chart("factorial-effects", "Factorial effects",
                 "Paired differences of the factorial design (closed − open book, score-first − probabilistic, "
                 "horizon changes) with 95% bootstrap intervals; negative Brier differences favour the first level.",
                 {"data": [trace], "layout": _layout("Factorial effects", "mean difference", "", height=height,
                                                     margin={"l": 360, "r": 20, "t": 50, "b": 60})})


def cost_vs_brier(scored, operations) -> Chart:
    brier: dict[str, list[float]] = defaultdict(list)
    for s in scored:
        brier[s.forecaster].append(s.measures["brier"])
    points = []
    for op in sorted(operations, key=lambda o: o.forecaster):
        if op.forecaster in brier and op.scheduled:
            points.append((op.forecaster, op.cost_usd / op.scheduled, float(np.mean(brier[op.forecaster]))))
    trace = {"type": "scatter", "mode": "markers+text", "textposition": "top center", "name": "forecasters",
             "x": _r(p[1] for p in points), "y": _r(p[2] for p in points), "text": [p[0] for p in points]}
    return Chart("cost-vs-brier", "Cost against Brier",
                 "Mean API cost per scheduled forecast (USD) against mean per-forecast Brier; baselines cost nothing.",
                 {"data": [trace], "layout": _layout("Cost against Brier", "USD per forecast", "mean Brier")})


def similarity(diversity) -> Chart:
    pairs: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for d in diversity:
        pairs[(d.a, d.b)].append((d.n, d.jensen_shannon))
    names = sorted({n for k in pairs for n in k})
    index = {n: i for i, n in enumerate(names)}
    z = [[0.0 if i == j else None for j in range(len(names))] for i in range(len(names))]
    for (a, b), values in pairs.items():
        weights = np.array([v[0] for v in values], float)
        mean = float(np.average([v[1] for v in values], weights=weights)) if weights.sum() else None
        z[index[a]][index[b]] = z[index[b]][index[a]] = None if mean is None else round(mean, 4)
    trace = {"type": "heatmap", "x": names, "y": names, "z": z, "colorscale": "Blues", "reversescale": True,
             "colorbar": {"title": {"text": "JSD"}}}
    return Chart("similarity", "Pairwise similarity",
                 "Mean Jensen–Shannon divergence between two forecasters' 90-minute probabilities on the same "
                 "event and conditions (0 = identical), weighted by the number of shared forecasts.",
                 {"data": [trace], "layout": _layout("Pairwise similarity (JSD)", "", "", height=max(420, 30 * len(names) + 150),
                                                     margin={"l": 160, "r": 20, "t": 50, "b": 160})})
