"""Binary market events on the questions pages: the contract list with price and resolved value,
the scores with both returns and the price used, each forecast beside the market price; looked at
in chromium at 1366 and 390 px."""

from __future__ import annotations

import pytest

from builder.site.build import build_site
from tests.browser_helpers import launched_chromium, require_chromium, serve
from tests.test_binary_markets import _tick, polymarket  # noqa: F401 - the fixture

EVENT = "questions/markets/worldcup-2026/mex-win-opener.html"


@pytest.mark.browser
def test_binary_events_on_the_questions_pages(tmp_path, data_dir, server, polymarket):  # noqa: F811
    server.mode = None
    for now in ("2026-06-10T19:05:00Z", "2026-06-12T12:00:00Z"):
        _tick(tmp_path, data_dir, now)
    out = tmp_path / "site"
    build_site(tmp_path / "archive", out, commit="abc123", progress=lambda _: None)
    index = (out / "questions/index.html").read_text()
    assert 'href="markets.html">Binary market events</a> (3 contracts' in index
    markets = (out / "questions/markets.html").read_text()
    assert "Mexico v South Africa: home win after 90" in markets and "Spain wins the final" in markets
    assert "Will Spain win the 2026 World Cup?" in markets and "<em>open</em>" in markets  # not resolved
    assert ">0.550<" in markets and ">0.120<" in markets  # the latest Yes ask of each contract
    for label in ("Return (risk-neutral)", "Return (CRRA γ 0.5)", "a Yes share bought at the ask"):
        assert label in markets
    assert "with price" in markets and "without price" in markets and "market price" in markets
    page = (out / EVENT).read_text()
    assert "Resolved: <strong>" in page and page.count('<tr class="status-valid">') == 2
    assert ">0.650<" in page and ">0.500<" in page and page.count(">0.550<") == 2  # both beside the same ask
    assert "records/worldcup-2026/markets/mex-win-opener/forecasts/test.model/with_price.t_minus_24h.json" in page

    require_chromium()
    http, base = serve(out)
    try:
        with launched_chromium() as chromium:
            for width in (1366, 390):
                tab = chromium.new_page(viewport={"width": width, "height": 900})
                errors = []
                tab.on("pageerror", lambda e: errors.append(str(e)))
                for path, name in (("questions/markets.html", "markets"), (EVENT, "contract")):
                    tab.goto(base + path)
                    assert tab.evaluate("document.documentElement.scrollWidth") <= width + 1
                    tab.screenshot(path=str(tmp_path / f"binary-{name}-{width}.png"), full_page=True)
                assert errors == []
                tab.close()
    finally:
        http.shutdown()
    print("screenshots in", tmp_path)
