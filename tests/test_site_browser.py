"""The built site in a real browser (Debian chromium via Playwright, served on 127.0.0.1).

Checks what a visitor relies on: the leaderboard shows the numbers ``python -m builder
score --json --matched`` prints, filters and sorting change the table, charts draw, no page
logs a console error or links to a missing page, and hostile rationales stay inert.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from urllib.parse import urljoin, urlparse

import orjson
import pytest
from browser_helpers import launched_chromium, require_chromium, serve
from site_archive import write_site_archive

from builder.site.build import build_site

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    require_chromium()
    root = tmp_path_factory.mktemp("browser")
    archive = write_site_archive(root / "archive")
    out = root / "site"
    build_site(archive, out, commit="test", progress=lambda _l: None)
    server, base = serve(out)
    try:
        yield archive, base
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(site):
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture
def page(browser, site):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    base = site[1]
    # Only the local site may be contacted; anything else is recorded and refused.
    outside: list[str] = []

    def guard(route):
        if route.request.url.startswith(base) or route.request.url.startswith("data:"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    tab = context.new_page()
    tab.errors = []  # type: ignore[attr-defined]
    tab.on("console", lambda m: tab.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    tab.on("pageerror", lambda e: tab.errors.append(f"pageerror: {e}"))
    tab.outside = outside  # type: ignore[attr-defined]
    yield tab
    context.close()


def _visible_rows(tab):
    return tab.locator("#board tbody tr:not([hidden])")


def test_leaderboard_numbers_equal_the_score_command(page, site):
    archive, base = site
    done = subprocess.run([sys.executable, "-m", "builder", "score", "--archive", str(archive), "--json", "--matched"],
                          capture_output=True, check=True, cwd=REPO)
    expected = {(r["forecaster"], r["access"], r["strategy"], r["horizon"]): r for r in orjson.loads(done.stdout)}
    page.goto(base + "index.html")
    rows = page.eval_on_selector_all("#board tbody tr", """rows => rows.map(r => ({
        key: [r.dataset.forecaster, r.dataset.access, r.dataset.strategy, r.dataset.horizon],
        brier: r.querySelector('[data-key=brier] .val').textContent.trim(),
        n: r.querySelector('[data-key=n]').textContent.trim(),
        ci: r.querySelector('[data-key=brier_ci]').textContent.trim()}))""")
    assert len(rows) == len(expected) > 0
    for row in rows:
        want = expected[tuple(row["key"])]
        assert row["brier"] == f"{want['brier']:.3f}"
        assert row["n"] == str(want["n"])
        assert row["ci"] == f"{want['brier_low']:.3f} – {want['brier_high']:.3f}"
    assert page.errors == []


def _ranks(tab):
    return tab.eval_on_selector_all("#board tbody tr:not([hidden])", """rs => rs.map(r => ({
        rank: r.querySelector('td.rank').textContent.trim(), rankable: r.dataset.rankable === '1',
        brier: parseFloat(r.querySelector('[data-key=brier]').dataset.value)}))""")


def _assert_ranked_from_one(rows):
    ranked = sorted((r for r in rows if r["rankable"]), key=lambda r: int(r["rank"]))
    assert [int(r["rank"]) for r in ranked] == list(range(1, len(ranked) + 1))  # no gaps after a filter
    assert [r["brier"] for r in ranked] == sorted(r["brier"] for r in ranked)
    assert all(r["rank"] == "–" for r in rows if not r["rankable"])


def test_filters_change_the_table_and_sorting_orders_it(page, site):
    page.goto(site[1] + "index.html")
    total = page.locator("#board tbody tr").count()
    default = _visible_rows(page)
    assert 0 < default.count() < total  # one horizon at a time by default
    assert set(default.evaluate_all("rs => rs.map(r => r.dataset.horizon)")) == {"t_minus_24h"}
    page.select_option("form.filters select[name=horizon]", "t_minus_2h")
    shown = _visible_rows(page)
    assert 0 < shown.count() < total
    assert set(shown.evaluate_all("rs => rs.map(r => r.dataset.horizon)")) == {"t_minus_2h"}
    _assert_ranked_from_one(_ranks(page))
    page.select_option("form.filters select[name=access]", "open_book")
    assert set(_visible_rows(page).evaluate_all("rs => rs.map(r => r.dataset.access)")) == {"open_book"}
    _assert_ranked_from_one(_ranks(page))  # ranks recomputed for what is shown
    assert "of" in page.locator("form.filters .count").inner_text()
    page.select_option("form.filters select[name=access]", "")
    page.click("button.more-cols")
    page.click("#board thead th[data-key=log_loss]")
    values = page.eval_on_selector_all("#board tbody tr [data-key=log_loss]", "cs => cs.map(c => parseFloat(c.dataset.value))")
    assert values == sorted(values)
    page.click("#board thead th[data-key=log_loss]")
    values = page.eval_on_selector_all("#board tbody tr [data-key=log_loss]", "cs => cs.map(c => parseFloat(c.dataset.value))")
    assert values == sorted(values, reverse=True)
    assert page.errors == []


def test_stage_filter_navigates_to_the_stage_slice(page, site):
    page.goto(site[1] + "index.html")
    with page.expect_navigation():
        page.select_option("form.filters select[data-navigate]", label="semi-final")
    assert page.url.endswith("leaderboard/all/semi-final.html")
    assert "stage semi-final" in page.locator("h1").inner_text()
    assert page.errors == []


def test_match_filters_and_local_time(page, site):
    page.goto(site[1] + "matches/worldcup-2026/index.html")
    rows = page.locator("#match-table tbody tr:not([hidden])")
    total = rows.count()
    page.fill("form.filters input[name=team]", "mex")
    assert 0 < rows.count() < total
    page.fill("form.filters input[name=team]", "")
    page.select_option("form.filters select[name=stage]", "semi-final")
    assert rows.count() == 2
    first = page.locator("time.local").first
    assert "UTC" in first.get_attribute("title")
    assert first.get_attribute("datetime").endswith("Z")


def test_charts_draw(page, site):
    page.goto(site[1] + "charts/index.html")
    charts = page.locator("div.chart")
    assert charts.count() >= 5
    page.wait_for_function("document.querySelectorAll('div.chart svg.main-svg').length >= document.querySelectorAll('div.chart').length")
    assert page.errors == []


def test_hostile_rationale_is_inert(page, site):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(site[1] + "matches/worldcup-2026/mex-v-rsa.html")
    page.click("article.forecast:has-text('llm.mallory') details.rationale summary")
    page.click("article.forecast:has-text('llm.mallory') details.citations summary")
    body = page.locator("article.forecast:has-text('llm.mallory')")
    assert "<script>" in body.inner_text()  # shown as text
    assert body.locator(".md script, .md img, .md svg, .md [onerror]").count() == 0
    hrefs = body.locator("a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert all(h.startswith(("http://", "https://", "../")) for h in hrefs)
    for link in body.locator(".md span.dropped-link").all():
        link.click()
    assert page.evaluate("window.__pwned === undefined")
    assert dialogs == []
    assert page.outside == []  # the hostile image was never fetched


def test_every_page_loads_without_errors_or_broken_links(page, site):
    base = site[1]
    seen: set[str] = set()
    queue = [base + "index.html"]
    broken: list[str] = []
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        response = page.goto(url)
        if response is None or response.status != 200:
            broken.append(url)
            continue
        if not url.endswith(".html"):
            continue
        for href in page.eval_on_selector_all("a[href]", "as => as.map(a => a.getAttribute('href'))"):
            target = urljoin(url, href).split("#")[0]
            if target.startswith(base) and target not in seen and urlparse(target).path.endswith(".html"):
                queue.append(target)
            elif target.startswith(base) and not target.endswith(".html"):
                status = page.request.get(target).status
                if status != 200:
                    broken.append(f"{url} -> {href}")
    assert broken == []
    assert len(seen) > 30
    assert page.errors == []
    assert page.outside == []


def test_kickoffs_are_shown_in_the_visitors_time_zone(browser, site):
    context = browser.new_context(timezone_id="Asia/Tokyo", locale="en-US")
    try:
        tab = context.new_page()
        tab.goto(site[1] + "matches/worldcup-2026/mex-v-rsa.html")
        kickoff = tab.locator("p.fixture time.local")
        utc = kickoff.get_attribute("datetime")  # e.g. 2026-06-11T18:00:00Z
        assert kickoff.get_attribute("title").startswith(utc[:10])  # UTC stays available on hover
        shown = kickoff.inner_text()
        assert "GMT+9" in shown and "UTC" not in shown
        assert f"{(int(utc[11:13]) + 9) % 24 % 12 or 12}:{utc[14:16]}" in shown
    finally:
        context.close()


def test_default_view_makes_sense_without_javascript(browser, site):
    context = browser.new_context(java_script_enabled=False)
    try:
        tab = context.new_page()
        tab.goto(site[1] + "index.html")
        rows = tab.locator("#board tbody tr")
        assert rows.count() > 0 and rows.count() == tab.locator("#board tbody tr:visible").count()
        assert not tab.locator("form.filters").is_visible()  # JavaScript-only controls stay hidden
        assert tab.locator("nav.facet a", has_text="semi-final").is_visible()  # plain links still filter by stage
        rows = tab.eval_on_selector_all("#board tbody tr", """rs => rs.map(r => ({horizon: r.dataset.horizon,
            rank: r.querySelector('td.rank').textContent.trim(), rankable: r.dataset.rankable === '1',
            brier: parseFloat(r.querySelector('[data-key=brier]').dataset.value)}))""")
        horizons = [r["horizon"] for r in rows]
        runs = [h for i, h in enumerate(horizons) if i == 0 or horizons[i - 1] != h]
        assert len(set(horizons)) > 1 and len(runs) == len(set(runs))  # grouped by horizon, one block each
        for horizon in set(horizons):  # each horizon ranked on its own, by Brier as served
            _assert_ranked_from_one([r for r in rows if r["horizon"] == horizon])
        assert tab.locator("#board th[data-key=log_loss]").is_visible()  # every measure without the script
        tab.goto(site[1] + "matches/worldcup-2026/index.html")
        assert "UTC" in tab.locator("time.local").first.inner_text()  # UTC without the script
    finally:
        context.close()
