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

from builder.site.labels import ACCESS, HORIZONS, STRATEGIES, horizon_label, plain
from builder.site.models_board import Chart

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
# Okabe & Ito's palette (distinguishable with the common colour-vision deficiencies), then marker
# symbols and dashes so that more series than colours stay apart without relying on colour alone.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
PATTERNS = ("", "/", "x", ".", "\\", "+")  # bars past the palette's eight colours: the same colours, hatched
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x", "triangle-down", "star")
DASHES = ("solid", "dash", "dot", "dashdot")
TOGGLE = "Select a legend entry to show or hide its series."
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


def style(index: int) -> dict:
    """Colour, marker symbol and dash of the ``index``-th series: colour first, then symbol and dash."""
    return {"color": PALETTE[index % len(PALETTE)], "symbol": SYMBOLS[(index // len(PALETTE)) % len(SYMBOLS)],
            "dash": DASHES[(index // len(PALETTE)) % len(DASHES)],
            "pattern": PATTERNS[(index // len(PALETTE)) % len(PATTERNS)]}


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
    for i, forecaster in enumerate(sorted(per)):
        events = sorted(per[forecaster], key=lambda k: (kickoffs.get(k, ""), k))
        values = np.array([np.mean(per[forecaster][e]) for e in events])
        running = np.cumsum(values) / np.arange(1, len(values) + 1)
        keep = _thin(len(values))
        look = style(i)
        traces.append({"type": "scatter", "mode": "lines", "name": f"{forecaster} (N = {len(values)})",
                       "x": [int(i) + 1 for i in keep], "y": _r(running[keep]),
                       "line": {"color": look["color"], "dash": look["dash"]}})
    matches = max((len(v) for v in per.values()), default=0)
    return Chart("cumulative-brier", "Cumulative Brier over matches",
                 "Running mean of the per-match Brier score (each match: mean over the forecaster's condition "
                 f"cells), in kickoff order; N = matches scored per forecaster (up to {matches}). {TOGGLE}",
                 {"data": traces, "layout": _layout("Cumulative Brier", "matches scored", "mean Brier")},
                 guide="How to read: lower is better; a line settling below 0.667 (uniform) beats guessing, "
                       "and early wiggles rest on few matches.")


def brier_by_stage(scored, stage_order: list[str], stage_names: dict[str, str] | None = None) -> Chart:
    """Mean Brier per forecaster and stage with a 95% normal interval over matches (N = matches).

    Each match counts once: its Brier is first averaged over the forecaster's condition cells,
    so the interval's standard error is over matches (sd / sqrt(N)), not over correlated cells.
    The axis names each stage as its competition does (``stage_names``: id -> name).
    """
    names = stage_names or {}
    per_match: dict[tuple[str, str], dict[tuple, list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in scored:
        per_match[(s.forecaster, s.stage)][(s.competition_id, s.event_id)].append(s.measures["brier"])
    stages = [st for st in stage_order if any(k[1] == st for k in per_match)]
    traces = []
    for i, forecaster in enumerate(sorted({k[0] for k in per_match})):
        means, half, counts = [], [], []
        for st in stages:
            values = np.array([np.mean(v) for v in per_match.get((forecaster, st), {}).values()])
            means.append(float(values.mean()) if values.size else None)
            half.append(float(1.96 * values.std(ddof=1) / np.sqrt(values.size)) if values.size > 1 else None)
            counts.append(int(values.size))
        traces.append({"type": "bar", "name": forecaster, "x": [names.get(st, st) for st in stages], "y": _r(means),
                       "marker": {"color": style(i)["color"], "pattern": {"shape": style(i)["pattern"]}},
                       "error_y": {"type": "data", "array": _r(half), "visible": True},
                       "customdata": counts, "hovertemplate": "%{x}: %{y:.3f} (N = %{customdata} matches)"})
    counts = {st: max((len(per_match.get((f, st), {})) for f in {k[0] for k in per_match}), default=0) for st in stages}
    n_text = ", ".join(f"{names.get(st, st)} {n}" for st, n in counts.items())
    return Chart("brier-by-stage", "Brier by stage",
                 f"Mean Brier per match by stage (a match's condition cells averaged first), with 95% intervals "
                 f"(±1.96 standard errors over matches). N matches per stage: {n_text}. {TOGGLE}",
                 {"data": traces, "layout": _layout("Brier by stage", "stage", "mean Brier", barmode="group")},
                 guide="How to read: lower bars are better; a stage with few matches has wide intervals, and "
                       "bars whose intervals overlap are not clearly different.")


EDGES = [-0.04, 1.04]  # a little room past 0 and 1: a bin's marker at an edge is drawn whole, not cut in half


def reliability(calibration_rows, title: str, chart_id: str, shown: int = 6) -> Chart:
    """Equal-width reliability bins, pooled over home/draw/away, for every cell: the ``shown`` largest
    drawn at first, the others one legend click away (never dropped); marker area follows the bin's N."""
    rows = sorted(calibration_rows, key=lambda c: (c.cell.forecaster, c.cell.access, c.cell.strategy, c.cell.horizon))
    first = {id(c) for c in sorted(rows, key=lambda c: (-c.n, c.cell.forecaster, c.cell.horizon))[:shown]}
    traces = [{"type": "scatter", "mode": "lines", "name": "perfect calibration", "x": [0, 1], "y": [0, 1],
               "line": {"dash": "dot", "color": "#595959"}}]
    titled = set()
    for i, row in enumerate(rows):
        bins = sorted((b for b in row.bins if b.scheme == "equal_width" and b.n), key=lambda b: (b.outcome, b.lower))
        cell = row.cell
        label = f"{horizon_label(cell.horizon)} · {_short(cell.access)} · {_short(cell.strategy)} (N = {row.n})"
        look = style(i)
        trace = {"type": "scatter", "mode": "markers", "name": label, "cliponaxis": False,
                 "legendgroup": cell.forecaster,
                 "x": _r(b.mean_probability for b in bins), "y": _r(b.observed_frequency for b in bins),
                 "marker": {"color": look["color"], "symbol": look["symbol"],
                            "size": [round(float(4 + 2 * np.sqrt(b.n)), 1) for b in bins]},
                 "text": [f"{b.outcome}: {b.n} probabilities in [{b.lower:.1f}, {b.upper:.1f})" for b in bins],
                 "hovertemplate": "%{text}<br>mean forecast %{x:.2f}, observed %{y:.2f}"}
        if cell.forecaster not in titled:  # the legend lists each forecaster's series under its name
            titled.add(cell.forecaster)
            trace["legendgrouptitle"] = {"text": cell.forecaster}
        if id(row) not in first:
            trace["visible"] = "legendonly"
        traces.append(trace)
    hidden = len(rows) - len(first)
    more = f" {hidden} more series are listed in the legend, hidden at first." if hidden > 0 else ""
    return Chart(chart_id, title,
                 "Reliability diagram: forecast probability against observed frequency in 10 equal-width bins "
                 f"(home, draw and away points together); {len(rows)} series, N = forecasts per series, marker "
                 f"size = probabilities in the bin.{more} {TOGGLE}",
                 {"data": traces, "layout": _layout(title, "forecast probability", "observed frequency",
                                                    xaxis={"range": EDGES, "title": {"text": "forecast probability"}},
                                                    yaxis={"range": EDGES, "title": {"text": "observed frequency"}},
                                                    legend={"orientation": "h", "yanchor": "top", "y": -0.2,
                                                            "groupclick": "toggleitem"},
                                                    height=640, margin={"l": 60, "r": 20, "t": 50, "b": 300})},
                 guide="How to read: points on the dotted diagonal are well calibrated; points below it mean the "
                       "forecaster said more often than it happened, and big markers rest on many forecasts.")


def contrast_label(test) -> str:
    """"brier · T-24h<br>evidence package − closed book": short lines, so the chart fits a phone's width."""
    parts = test.family.split("/")
    measure = " ".join(parts[1:]).replace("_", " ")
    stratum = test.comparison.rpartition("(")[2].rstrip(")") if "(" in test.comparison else ""
    if test.family.startswith("horizon/"):
        levels = f"{horizon_label(test.a)} − {horizon_label(test.b)}"
    else:
        levels = f"{_short(test.a)} − {_short(test.b)}"
    where = horizon_label(stratum) if stratum in HORIZONS else stratum
    return f"{measure} · {where}<br>{levels}" if where else f"{measure}<br>{levels}"


def _short(level: str) -> str:
    """An access or strategy level's plain name without its parenthesis ("open book", "evidence package")."""
    return plain(level, {**ACCESS, **STRATEGIES}).split(" (")[0]


def factorial_effects(tests) -> Chart:
    rows = sorted((t for t in tests if t.family.startswith(FACTOR_FAMILIES) and t.low is not None),
                  key=lambda t: (t.family, t.comparison))
    labels = [contrast_label(t) for t in rows]
    trace = {"type": "scatter", "mode": "markers", "name": "mean difference", "x": _r(t.estimate for t in rows),
             "y": labels, "error_x": {"type": "data", "symmetric": False,
                                       "array": _r(t.high - t.estimate for t in rows),
                                       "arrayminus": _r(t.estimate - t.low for t in rows)}}
    height = max(300, 60 + 40 * len(rows))
    return Chart("factorial-effects", "Factorial effects",
                 "Paired differences of the factorial design (closed − open book, and evidence package − closed "
                 "and evidence package − open book where the third access level was asked; score-first − "
                 f"probabilistic; horizon changes) with 95% bootstrap intervals; {len(rows)} contrasts, "
                 f"N = paired matches per contrast ({_span(t.n for t in rows)}).",
                 {"data": [trace], "layout": _layout("Factorial effects", "mean difference", "", height=height,
                                                     margin={"l": 20, "r": 20, "t": 50, "b": 60},
                                                     yaxis={"automargin": True, "title": {"text": ""}})},
                 guide="How to read: a point left of 0 means the first level of the contrast scored the lower "
                       "(better) Brier; an interval crossing 0 leaves the direction open.")


def _span(counts) -> str:
    """A caption's range of counts: "12" when they are all equal, "12–104" otherwise, "none" when empty."""
    values = sorted(set(counts))
    if not values:
        return "none"
    return f"{values[0]}" if len(values) == 1 else f"{values[0]}–{values[-1]}"


def cost_vs_brier(scored, operations) -> Chart:
    brier: dict[str, list[float]] = defaultdict(list)
    for s in scored:
        brier[s.forecaster].append(s.measures["brier"])
    points = []
    for op in sorted(operations, key=lambda o: o.forecaster):
        if op.forecaster in brier and op.scheduled:
            points.append((op.forecaster, op.cost_usd / op.scheduled, float(np.mean(brier[op.forecaster])),
                           op.scheduled))
    trace = {"type": "scatter", "mode": "markers+text", "textposition": "top center", "name": "forecasters",
             "x": _r(p[1] for p in points), "y": _r(p[2] for p in points), "text": [p[0] for p in points]}
    return Chart("cost-vs-brier", "Cost against Brier",
                 f"Mean API cost per scheduled forecast (USD) against mean per-forecast Brier; {len(points)} "
                 f"forecasters, N = scheduled forecasts per forecaster ({_span(p[3] for p in points)}); "
                 "baselines cost nothing.",
                 {"data": [trace], "layout": _layout("Cost against Brier", "USD per forecast", "mean Brier")},
                 guide="How to read: down and to the left is cheaper and better; a forecaster above another at "
                       "the same cost is worse for the money.")


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
    trace = {"type": "heatmap", "x": names, "y": names, "z": z, "colorscale": "Cividis", "reversescale": True,
             "colorbar": {"title": {"text": "JSD"}}}
    return Chart("similarity", "Pairwise similarity",
                 "Mean Jensen–Shannon divergence between two forecasters' 90-minute probabilities on the same "
                 "event and conditions (0 = identical), weighted by the number of shared forecasts; "
                 f"{len(names)} forecasters, N = shared forecasts per pair "
                 f"({_span(sum(v[0] for v in values) for values in pairs.values())}).",
                 {"data": [trace], "layout": _layout("Pairwise similarity (JSD)", "", "", height=max(420, 30 * len(names) + 150),
                                                     margin={"l": 160, "r": 20, "t": 50, "b": 160})},
                 guide="How to read: darker cells are pairs that forecast alike; an ensemble of similar "
                       "forecasters adds little.")
