"""The site's market parts: the market row at each horizon with Return, Sharpe and N market, and
the match page's market-vs-model chart, built from live ticks against the local market servers
and looked at in a real browser (chromium) at 1366 and 390 px."""

from __future__ import annotations

import json
import re

import pytest

from builder.site.build import build_site
from tests.browser_helpers import launched_chromium, require_chromium, serve
from tests.test_odds_tick import markets, tick  # noqa: F401 - the fixture

MATCH = "matches/worldcup-2026/mex-v-rsa.html"


def _site(tmp_path, data_dir):
    for now in ("2026-06-10T19:05:00Z", "2026-06-11T17:05:00Z", "2026-06-11T18:55:00Z", "2026-06-12T12:00:00Z"):
        assert tick(tmp_path, data_dir, now) == 0
    out = tmp_path / "site"
    build_site(tmp_path / "archive", out, commit="abc123", progress=lambda _: None)
    return out


@pytest.mark.browser
def test_market_rows_columns_and_chart_on_the_site(tmp_path, data_dir, markets):  # noqa: F811
    out = _site(tmp_path, data_dir)
    home = (out / "index.html").read_text()
    for label in ("Return (Prematch edge rule)", "Sharpe", "N market"):
        assert f">{label} <a" in home
    match = (out / MATCH).read_text()
    assert "Market and models" in match
    figure = json.loads(re.search(r'<script type="application/json" id="fig-market-mex-v-rsa">(.*?)</script>',
                                  match, re.S).group(1))
    names = [t["name"] for t in figure["data"]]
    assert "the-odds-api quoted price" in names and "polymarket quoted price" in names and "market" in names
    api = next(t for t in figure["data"] if t["name"] == "the-odds-api quoted price")
    assert len(api["x"]) == 3  # T-24h, T-2h, closing
    assert api["y"][0] == round(sorted([1 / 2.10, 1 / 2.05, 1 / 2.00])[1], 4)
    market = next(t for t in figure["data"] if t["name"] == "market")
    assert len(market["x"]) == 3 and all(y < a for y, a in zip(market["y"], api["y"], strict=True))  # margin removed

    require_chromium()
    server, base = serve(out)
    try:
        with launched_chromium() as chromium:
            for width in (1366, 390):
                page = chromium.new_page(viewport={"width": width, "height": 900})
                errors = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(base + MATCH)
                page.wait_for_selector("#chart-market-mex-v-rsa .main-svg", timeout=15000)
                box = page.locator("#chart-market-mex-v-rsa").bounding_box()
                assert box is not None and box["width"] <= width and box["height"] > 200
                assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
                page.locator("section.market-chart").screenshot(path=str(tmp_path / f"market-{width}.png"))
                assert errors == []
                page.close()
    finally:
        server.shutdown()
