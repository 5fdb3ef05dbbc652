"""The layers page: WorldCupArena's composite, each layer with its N, and the T1-T5 radar.

One row per leaderboard cell at the T-24h horizon (the whole archive's leaderboard, all view),
from the scoring stage's ``LeaderboardRow.composite``: the composite is the leaderboard's and
the WorldCupArena table's number (one function makes it). Layers are raw means (registry ids
``t1``-``t5``). The radar (WorldCupArena Figure 3) draws every layer that has scores; each axis
has its own range, the values shown on it rounded outwards to 5 and labelled at both ends, so
differences stay visible when one layer is much lower than another. A layer without truth
for any row is drawn as an axis labelled "no data".
"""

from __future__ import annotations

import math

from builder.score.definitions import COMPOSITE_RULE, figure_key, label
from builder.site.fine_grained_view import COLOURS, LAYERS, RADAR_HORIZON
from builder.site.labels import condition_label, horizon_label
from builder.site.models_fine_grained import (
    NO_DATA,
    LayerRow,
    LayersPage,
    Radar,
    RadarAxis,
    RadarShape,
)
from builder.site.sitectx import SiteContext

PATH = "layers.html"
SIZE, RADIUS, INNER = 360, 120.0, 0.15  # the inner 15% of each axis is left empty (the range's low end)


def axis_range(values: list[float]) -> tuple[float, float]:
    """[low, high] of one axis: the values rounded outwards to multiples of 5, at least 10 wide, within 0-100."""
    low, high = 5 * math.floor(min(values) / 5), 5 * math.ceil(max(values) / 5)
    if high - low < 10:
        low, high = max(0, low - 5), min(100, high + 5)
    return float(max(0, low)), float(min(100, high))


def _point(k: int, fraction: float, centre: float) -> tuple[float, float]:
    angle = -math.pi / 2 + 2 * math.pi * k / len(LAYERS)
    r = RADIUS * (INNER + (1 - INNER) * fraction)
    return round(centre + r * math.cos(angle), 2), round(centre + r * math.sin(angle), 2)


def radar(cells: list[tuple[str, dict]]) -> Radar | None:
    """The radar of (name, composite dict) cells, or None when no cell has a layer value."""
    centre = SIZE / 2
    ranges: dict[str, tuple[float, float] | None] = {}
    for key, _ in LAYERS:
        values = [c[key] for _, c in cells if c.get(key) is not None]
        ranges[key] = axis_range(values) if values else None
    if not any(ranges.values()):
        return None
    axes = []
    for k, (key, name) in enumerate(LAYERS):
        x, y = _point(k, 1.0, centre)
        lx, ly = _point(k, 1.32, centre)
        rng = ranges[key]
        anchor = "middle" if abs(lx - centre) < 20 else ("start" if lx > centre else "end")
        axes.append(RadarAxis(name, f"{rng[0]:.0f}" if rng else NO_DATA, f"{rng[1]:.0f}" if rng else "",
                              x, y, lx, ly, anchor))
    shapes = []
    for i, (who, c) in enumerate(cells):
        dots = []
        for k, (key, layer) in enumerate(LAYERS):
            value, rng = c.get(key), ranges[key]
            if value is None or rng is None:
                continue
            px, py = _point(k, (value - rng[0]) / (rng[1] - rng[0]), centre)
            dots.append((px, py, f"{who}: {layer} {value:.1f} (N = {c.get(f'{key}_n')})"))
        shapes.append(RadarShape(who, COLOURS[i % len(COLOURS)], " ".join(f"{x},{y}" for x, y, _ in dots),
                                 tuple(dots)))
    rings = tuple(round(RADIUS * (INNER + (1 - INNER) * f), 2) for f in (0.0, 0.5, 1.0))
    return Radar(SIZE, centre, tuple(axes), rings, tuple(shapes))


def _cell(c: dict, key: str) -> str:
    """A layer's raw mean with its N, or "no data" (no truth for the layer in this cell)."""
    if c.get(key) is None:
        return NO_DATA
    return f"{c[key]:.1f} (N = {c[f'{key}_n']})"


def layers_page(ctx: SiteContext) -> LayersPage:
    board = [b for b in ctx.scores.leaderboard if b.horizon == RADAR_HORIZON and b.composite is not None]
    board.sort(key=lambda b: (b.composite.get("composite") is None, -(b.composite.get("composite") or 0),
                              b.forecaster, b.access, b.strategy, b.clock))
    rows, cells = [], []
    for i, b in enumerate(board):
        c = b.composite
        name = f"{b.forecaster} ({condition_label(b.access, b.strategy)})"
        composite = NO_DATA if c.get("composite") is None else f"{c['composite']:.2f} (N = {c['composite_n']})"
        rows.append(LayerRow(b.forecaster, condition_label(b.access, b.strategy), str(b.n), composite,
                             tuple(_cell(c, key) for key, _ in LAYERS), COLOURS[i % len(COLOURS)],
                             figure_key(b.forecaster, b.access, b.strategy, b.horizon, b.clock)))
        cells.append((name, c))
    note = (f"{label('composite')} = {COMPOSITE_RULE} Layers are raw means (0-100) over the matches where the "
            "layer has truth (T5: over the tournaments whose group stage is complete, from the pre-tournament "
            "full-tournament forecast), each with its N. The radar draws every layer that has scores, each axis "
            "on its own range.")
    return LayersPage(PATH, ctx.meta("Composite and layers", PATH, "leaderboard"), horizon_label(RADAR_HORIZON),
                      tuple(rows), tuple(name for _, name in LAYERS), radar(cells[:len(COLOURS)]), note,
                      tuple(key for key, _ in LAYERS))
