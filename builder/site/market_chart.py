"""The match page's market-vs-model chart: the market's price path and every forecast over time.

For one event, the x axis is time (UTC) up to kickoff, the y axis the probability of a home
win. Drawn from records only:

- one line per odds source: at each ``odds_snapshot`` (its retrieval time), the median across
  its books of the *quoted* price of a home win, 1 / decimal odds (margin included, so the
  three outcomes' prices sum to more than 1);
- one marker series per forecaster: its stated home-win probability at its request time (the
  ``market`` forecaster's is the margin-free consensus of the snapshot of that horizon).

No score is computed here; the caption says what each series is and how many points it has.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import median

from builder.site.charts import _layout, style
from builder.site.models_board import Chart
from collector.records import Event, Forecast, MatchForecast, OddsSnapshot


def snapshots_by_event(records: dict) -> dict[tuple[str, str], list[OddsSnapshot]]:
    """Every odds snapshot of the archive, grouped by (competition, event), in archive order (one pass)."""
    grouped: dict[tuple[str, str], list[OddsSnapshot]] = defaultdict(list)
    for record in records.values():
        if isinstance(record, OddsSnapshot):
            grouped[(record.competition_id, record.event_id)].append(record)
    return grouped


def price_path(snapshots: list[OddsSnapshot]) -> dict[str, list[tuple[str, float]]]:
    """Per source: (retrieval time, median quoted home price across books), in time order."""
    path: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for snap in sorted(snapshots, key=lambda s: s.retrieved_at):
        homes = [1.0 / p.odds for q in snap.quotes for p in q.prices if p.outcome == "home"]
        if homes:
            path[snap.source].append((snap.retrieved_at.isoformat(), round(median(homes), 4)))
    return dict(path)


def forecast_points(forecasts: list[Forecast]) -> dict[str, list[tuple[str, float]]]:
    """Per forecaster: (request time, home-win probability) of its scorable match forecasts, in time order."""
    points: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for f in sorted(forecasts, key=lambda f: (f.requested_at or f.recorded_at)):
        if isinstance(f.payload, MatchForecast) and f.scorable:
            points[f.forecaster].append(((f.requested_at or f.recorded_at).isoformat(), round(f.payload.home_win_90, 4)))
    return dict(points)


def market_vs_model(event: Event, snapshots: list[OddsSnapshot], forecasts: list[Forecast],
                    home_name: str) -> Chart | None:
    """The chart, or None when the event has no odds snapshot (nothing to compare against)."""
    prices = price_path(snapshots)
    if not prices:
        return None
    data, index = [], 0
    for source, pts in sorted(prices.items()):
        s = style(index)
        index += 1
        data.append({"type": "scatter", "mode": "lines+markers", "name": f"{source} quoted price",
                     "x": [t for t, _ in pts], "y": [v for _, v in pts],
                     "line": {"color": s["color"], "dash": s["dash"]}, "marker": {"symbol": s["symbol"]}})
    points = forecast_points(forecasts)
    for forecaster, pts in sorted(points.items()):
        s = style(index)
        index += 1
        data.append({"type": "scatter", "mode": "markers", "name": forecaster, "x": [t for t, _ in pts],
                     "y": [v for _, v in pts], "marker": {"color": s["color"], "symbol": s["symbol"], "size": 9}})
    n_prices = sum(len(p) for p in prices.values())
    n_forecasts = sum(len(p) for p in points.values())
    layout = _layout(f"{home_name} to win: market and forecasts", "time (UTC)", "probability of a home win",
                     yaxis={"title": {"text": "probability of a home win"}, "range": [0, 1]})
    layout["margin"] = {**layout["margin"], "b": 100}  # room for two-line date ticks on a phone
    layout["legend"] = {"orientation": "h", "y": -0.4}
    if event.kickoff_utc is not None:
        layout["shapes"] = [{"type": "line", "x0": event.kickoff_utc.isoformat(), "x1": event.kickoff_utc.isoformat(),
                             "y0": 0, "y1": 1, "line": {"dash": "dot", "width": 1}}]
    caption = (f"Lines: each odds source's quoted price of a home win (median of 1 / odds across its books, margin "
               f"included) at each snapshot ({n_prices} point(s)). Markers: each forecaster's home-win probability "
               f"at its request time ({n_forecasts} forecast(s)); the dotted line is kickoff.")
    return Chart(id=f"market-{event.id}", title=f"Market vs models, {home_name} to win", caption=caption,
                 figure={"data": data, "layout": layout}, guide="Select a legend entry to show or hide its series.")
