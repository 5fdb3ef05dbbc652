"""Page models of the fine-grained views: the match page's players/events/statistics section and
the layers page (composite, T1-T5 layers, radar). Templates get these, never records or scores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from builder.score.definitions import label
from builder.site.models import Meta
from builder.site.render import declare

NO_DATA = "no data"


@dataclass(frozen=True)
class FieldCompare:
    """One field of a match: what a forecast said, what the report recorded, and the field's score.

    ``recorded`` is None when the report has no data for the field (shown as "no data", never
    as an empty list or a 0); an empty tuple is a confirmed "nothing happened"."""

    label: str
    predicted: tuple[str, ...]
    recorded: tuple[str, ...] | None
    score: str  # "83.3", or "no data"
    source: str = ""


@dataclass(frozen=True)
class ForecastFineView:
    anchor: str
    forecaster: str
    condition: str
    horizon: str
    fields: tuple[FieldCompare, ...]
    layers: tuple[tuple[str, str], ...]  # ("T2 players and lineups", "45.1" or "no data")


@dataclass(frozen=True)
class FineGrainedSection:
    forecasts: tuple[ForecastFineView, ...]
    report_path: str  # archive path of the match report ("" without one)
    report_href: str = ""  # its raw JSON (``SiteContext.record_href``; "" without one)


@dataclass(frozen=True)
class RadarAxis:
    label: str
    low: str
    high: str
    x: float  # the axis end
    y: float
    label_x: float
    label_y: float
    anchor: str  # text-anchor


@dataclass(frozen=True)
class RadarShape:
    name: str
    colour: str
    points: str  # "x,y x,y ..." over the axes with data
    dots: tuple[tuple[float, float, str], ...]  # (x, y, title)


@dataclass(frozen=True)
class Radar:
    size: int
    centre: float
    axes: tuple[RadarAxis, ...]
    rings: tuple[float, ...]  # radii of the guide rings
    shapes: tuple[RadarShape, ...]


@dataclass(frozen=True)
class LayerRow:
    forecaster: str
    condition: str
    n: str
    composite: str
    cells: tuple[str, ...]  # T1..T5 as "raw mean (N = n)" or "no data"
    colour: str
    figure: str = ""  # what the row's figures are figures of (builder.score.definitions.figure_key)


@declare
@dataclass(frozen=True)
class LayersPage:
    TEMPLATE: ClassVar[str] = "layers.html"
    path: str
    meta: Meta
    horizon: str
    rows: tuple[LayerRow, ...]
    layer_names: tuple[str, ...]
    radar: Radar | None
    note: str
    layer_ids: tuple[str, ...] = ()  # the registry ids of ``layer_names`` (t1-t5)
    composite_label: str = label("composite")
