"""The demo sites as a visitor reads them: headless Chromium at 1366 px and 390 px (Playwright, 127.0.0.1).

Two real sites, each built once per session: the README's demo (the whole 2026 World Cup,
``python -m collector demo``) and a league replay (the first two months of the 2025-26
Premier League). On each key page, at both widths: no console error, no horizontal overflow
of the page or of any table's essential columns, "last updated" shown, and axe-core finds
no serious or critical violation. Then what each page must say: one leaderboard horizon at
a time with ranks from 1 for what a filter leaves, few-event rows marked, significance
sentences that follow the filters, definitions by tap; match pages with how a knockout was
decided, group rounds, team names in probabilities, the comparison table and record links.

With ``PREMATCH_SCREENSHOTS=DIR`` every page visited is saved there as ``{site}-{page}-{width}.png``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pytest
from browser_helpers import launched_chromium, require_chromium, serve

from builder.site.build import build_site
from collector.archive.reader import load_archive
from collector.cli import main as collector

pytestmark = pytest.mark.browser
WIDTHS = (1366, 390)
SHOTS = os.environ.get("PREMATCH_SCREENSHOTS")


@pytest.fixture(scope="module")
def sites(data_dir, tmp_path_factory):
    """name -> (site folder, base URL, archive view); built once for the module."""
    require_chromium()
    root = tmp_path_factory.mktemp("reading")
    demo = root / "prematch-demo"
    assert collector(["demo", "--out", str(demo), "--data-dir", str(data_dir)]) == 0
    league = root / "league"
    assert collector(["replay", "en-1-2025-26", "--out", str(league), "--data-dir", str(data_dir),
                      "--until", "2025-10-01T00:00Z"]) == 0
    report = build_site(league / "archive", league / "site", progress=lambda _l: None)
    assert report.problems == []
    served = {}
    for name, repo in (("wc", demo), ("league", league)):
        server, base = serve(repo / "site")
        served[name] = (server, base, load_archive(repo / "archive"))
    yield {name: (base, archive) for name, (_, base, archive) in served.items()}
    for server, _, _ in served.values():
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(sites):
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


def _eventually(tab, expression: str, tries: int = 100) -> bool:
    """Poll ``expression`` (the site's CSP forbids the eval that ``wait_for_function`` uses)."""
    for _ in range(tries):
        if tab.evaluate(expression):
            return True
        tab.wait_for_timeout(100)
    return False


class Visitor:
    """One browser tab at one width that records console errors and refuses other hosts."""

    def __init__(self, browser, base: str, width: int, site: str):
        self.context = browser.new_context(viewport={"width": width, "height": 900})
        self.base, self.width, self.site = base, width, site
        self.errors: list[str] = []
        self.context.route("**/*", lambda r: r.continue_() if r.request.url.startswith((base, "data:")) else r.abort())
        self.tab = self.context.new_page()
        self.tab.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.tab.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, path: str):
        response = self.tab.goto(self.base + path)
        assert response is not None and response.status == 200, path
        if self.tab.locator("div.chart").count():
            assert _eventually(self.tab, "document.querySelectorAll('div.chart svg.main-svg').length >= "
                                         "document.querySelectorAll('div.chart').length"), f"{path}: charts not drawn"
        if SHOTS:
            name = re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            self.tab.screenshot(path=str(Path(SHOTS) / f"{self.site}-{name}-{self.width}.png"), full_page=True)
        return self.tab

    def close(self):
        self.context.close()


@pytest.fixture
def visit(browser, sites):
    opened: list[Visitor] = []

    def make(site: str, width: int) -> Visitor:
        visitor = Visitor(browser, sites[site][0], width, site)
        opened.append(visitor)
        return visitor

    yield make
    for visitor in opened:
        visitor.close()


def _extra_time_match(archive) -> str:
    return next(eid for (cid, eid), o in sorted(archive.outcomes.items())
                if o.score_extra_time is not None and o.score_penalties is None)


def _key_pages(site: str, archive) -> list[str]:
    competition = "worldcup-2026" if site == "wc" else "en-1-2025-26"
    events = sorted(eid for (cid, eid) in archive.outcomes if cid == competition)
    questions = sorted(qid for (cid, qid) in archive.questions if cid == competition)
    pages = ["index.html", f"matches/{competition}/index.html", f"matches/{competition}/{events[0]}.html",
             f"questions/{competition}/{questions[0]}.html" if questions else "questions/index.html",
             "questions/index.html", "forecasters/index.html", "forecasters/dixon_coles.html", "charts/index.html",
             f"teams/{competition}/{archive.events[(competition, events[0])].home_team}.html",
             f"bracket/{competition}.html" if site == "wc" else "bracket/index.html", "data/index.html", "methodology/index.html", "audit/index.html"]
    if site == "wc":
        pages += ["leaderboard/all/final.html", f"matches/{competition}/{_extra_time_match(archive)}.html"]
    return pages


OVERFLOW = """() => {
  const out = [];
  for (const t of document.querySelectorAll('main table')) {
    if (!t.offsetParent) continue;
    const box = (t.closest('.scroll') || t.parentElement).getBoundingClientRect();
    const limit = Math.min(box.right, window.innerWidth) + 1;
    let heads = Array.from(t.querySelectorAll('thead th[data-essential]'));
    if (!heads.length) heads = Array.from(t.querySelectorAll('thead th, tbody tr:first-child > *')).slice(0, 1);
    for (const h of heads) {
      if (h.offsetParent && h.getBoundingClientRect().right > limit)
        out.push((t.id || t.className || 'table') + ': ' + h.textContent.trim().slice(0, 30));
    }
  }
  return out;
}"""


FRAME_FITS = """() => {
  const frame = document.querySelector('footer iframe.build-facts');
  const body = frame && frame.contentDocument && frame.contentDocument.body;
  return !!body && body.getBoundingClientRect().height <= frame.getBoundingClientRect().height;
}"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("site", ["wc", "league"])
def test_key_pages_fit_the_screen_show_last_updated_and_pass_axe(visit, sites, axe, site, width):
    visitor = visit(site, width)
    archive = sites[site][1]
    latest = archive.manifests[-1].tick_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    problems: list[str] = []
    for path in _key_pages(site, archive):
        tab = visitor.open(path)
        if tab.evaluate("document.documentElement.scrollWidth") > width:
            problems.append(f"{path}: the page is wider than the screen")
        problems += [f"{path}: essential column cut: {c}" for c in tab.evaluate(OVERFLOW)]
        updated = tab.frame_locator("footer iframe.build-facts").locator("time")  # the per-build facts, framed
        if updated.count() != 1 or updated.get_attribute("datetime") != latest:
            problems.append(f"{path}: no 'last updated' with the latest tick {latest}")
        if not _eventually(tab, FRAME_FITS, tries=30):  # fitted once the frame has loaded
            problems.append(f"{path}: the footer's build facts are cut (taller than their frame)")
        results = axe.run(tab)
        for violation in results.response["violations"]:
            if violation["impact"] in ("serious", "critical"):
                nodes = "; ".join(n["target"][0] if isinstance(n["target"][0], str) else str(n["target"])
                                  for n in violation["nodes"][:3])
                problems.append(f"{path}: axe {violation['id']} ({violation['impact']}): {nodes}")
    assert problems == [], "\n".join(problems)
    assert visitor.errors == []


def _board(tab):
    return tab.eval_on_selector_all("#board tbody tr:not([hidden])", """rs => rs.map(r => ({
        horizon: r.dataset.horizon, access: r.dataset.access, rank: r.querySelector('td.rank').textContent.trim(),
        rankable: r.dataset.rankable === '1', brier: parseFloat(r.querySelector('[data-key=brier]').dataset.value)}))""")


def _ranked_from_one(rows) -> bool:
    ranked = sorted((r for r in rows if r["rankable"]), key=lambda r: int(r["rank"]))
    return ([int(r["rank"]) for r in ranked] == list(range(1, len(ranked) + 1))
            and [r["brier"] for r in ranked] == sorted(r["brier"] for r in ranked))


@pytest.mark.parametrize("width", WIDTHS)
def test_leaderboard_one_horizon_ranks_and_sentences_follow_the_filters(visit, width):
    tab = visit("wc", width).open("index.html")
    rows = _board(tab)
    assert rows and {r["horizon"] for r in rows} == {"t_minus_24h"}  # one horizon by default
    assert _ranked_from_one(rows)
    assert tab.locator("#board [data-key=brier]").first.is_visible()  # Brier on every screen
    assert not tab.locator("#board th[data-key=log_loss]").is_visible()  # compact: the rest one click away
    tab.click("button.more-cols")
    assert tab.locator("#board th[data-key=log_loss]").is_visible()
    findings = tab.locator("#findings li:not([hidden])")
    assert findings.count() > 0
    assert set(findings.evaluate_all("ls => ls.map(l => l.dataset.horizon)")) <= {"t_minus_24h", ""}
    pairwise = re.compile(r"^\S+ beats \S+ at T-24h \(closed book · probabilities first\): −\d\.\d{3} Brier on \d+ "
                          r"matches, 95% \[[−+]\d\.\d{3}, [−+]\d\.\d{3}\], Holm p [=<] [\d.]+: (not )?significant\.")
    texts = findings.all_inner_texts()
    assert any(pairwise.match(text) for text in texts), texts
    assert texts[0].startswith("llm-ensemble beats average member at T-24h, averaged over the LLMs")  # the demo's LLMs
    tab.select_option("form.filters select[name=horizon]", "stage_opening")  # the demo's other horizon
    rows = _board(tab)
    assert {r["horizon"] for r in rows} == {"stage_opening"} and _ranked_from_one(rows)
    assert set(findings.evaluate_all("ls => ls.map(l => l.dataset.horizon)")) <= {"stage_opening", ""}
    assert "at stage opening" in findings.first.inner_text()
    if width == 390:
        return
    tab.click("#board thead a.def[href='#def-brier']")  # definitions by tap, not only on hover
    assert tab.url.endswith("#def-brier") and tab.locator("#def-brier dd").is_visible()
    assert "uniform" in tab.locator("#def-brier dd").inner_text()


def test_a_stage_with_one_match_warns_and_ranks_nobody(visit):
    tab = visit("wc", 1366).open("leaderboard/all/final.html")
    assert "fewer than 10 matches" in tab.locator("p.warn").inner_text()
    rows = _board(tab)
    assert rows and all(r["rank"] == "–" and not r["rankable"] for r in rows)
    assert "few matches: N = 1" in tab.locator("#board tbody tr:not([hidden]) .row-warn").first.inner_text()


@pytest.mark.parametrize("width", WIDTHS)
def test_match_page_reads_as_a_match(visit, sites, width):
    archive = sites["wc"][1]
    eid = _extra_time_match(archive)
    event = archive.events[("worldcup-2026", eid)]
    names = {t.id: t.name for t in archive.competitions["worldcup-2026"].teams}
    outcome = archive.outcomes[("worldcup-2026", eid)]
    tab = visit("wc", width).open(f"matches/worldcup-2026/{eid}.html")
    fixture = tab.locator("p.fixture").inner_text()
    et = outcome.score_extra_time
    assert f"decided in extra time ({et.home}–{et.away} after 120 minutes)" in fixture and "penalties" not in fixture
    heads = tab.locator("#compare thead th").all_inner_texts()
    assert heads[:4] == ["Forecaster", names[event.home_team], "Draw", names[event.away_team]]
    forecasts = [f for f in archive.forecasts if f.target_id == eid]
    assert tab.locator("#compare tbody tr").count() == len(forecasts) == tab.locator("article.forecast").count()
    assert f"{names[event.home_team]} " in tab.locator("article.forecast .probs").first.inner_text()
    tab.click("#compare thead th:nth-child(2)")
    home = tab.eval_on_selector_all("#compare tbody tr td:nth-of-type(1)", "cs => cs.map(c => parseFloat(c.dataset.value))")
    assert home == sorted(home)
    link = tab.locator("#compare tbody tr a", has_text="JSON").first
    record = orjson.loads(tab.request.get(link.evaluate("a => a.href")).body())
    assert record["kind"] == "forecast" and record["target_id"] == eid
    assert tab.locator("article.forecast p.path code").first.inner_text().startswith("worldcup-2026/events/")


def test_group_matches_show_their_round_and_the_list_shows_consensus(visit, sites):
    tab = visit("wc", 1366).open("matches/worldcup-2026/mex-v-rsa.html")
    assert "Group A · round 1 of 3" in tab.locator("p.crumbs").inner_text()
    assert "Matchday" not in tab.locator("p.crumbs").inner_text()
    tab = visit("wc", 390).open("matches/worldcup-2026/index.html")
    row = tab.locator("#match-table tbody tr", has_text="Mexico v South Africa")
    assert "Group A · round 1 of 3" in row.inner_text()
    consensus = row.locator("td.cons .sr").inner_text()
    assert re.fullmatch(r"Mexico \d+%, draw \d+%, South Africa \d+%", consensus), consensus
    league = visit("league", 1366).open("matches/en-1-2025-26/index.html")
    assert "Matchday 1" in league.locator("#match-table tbody tr").first.inner_text()


@pytest.mark.parametrize("width", WIDTHS)
def test_charts_have_guides_counts_every_series_and_say_what_is_missing(visit, sites, width):
    archive = sites["wc"][1]
    tab = visit("wc", width).open("charts/index.html")
    captions = tab.locator("figure.chartbox figcaption")
    assert captions.count() == 6  # the demo's LLMs fill the factorial, cost and similarity charts too
    for text in captions.all_inner_texts():
        assert text.startswith("How to read:") and "N" in text
    assert "N matches per stage: Group stage 72, Round of 32 16" in captions.nth(1).inner_text()
    traces = tab.evaluate("document.getElementById('chart-reliability').data.map(t => [t.name, t.visible])")
    cells = {(f.forecaster, f.access, f.strategy, f.horizon) for f in archive.forecasts
             if f.target_kind == "match" and f.status.value in ("valid", "repaired")}  # every scored condition cell
    assert len(traces) == 1 + len(cells)  # every cell, none silently dropped
    hidden = [name for name, visible in traces if visible == "legendonly"]
    assert hidden and f"{len(hidden)} more series are listed in the legend" in captions.nth(2).inner_text()
    # a reader can show it (names repeat across the legend's forecaster groups: the first such entry)
    entry = tab.locator("#chart-reliability g.traces", has=tab.locator(".legendtext", has_text=hidden[0]))
    entry.locator("rect.legendtoggle").first.click()
    shown = f"document.getElementById('chart-reliability').data.filter(t => t.name === {hidden[0]!r} && t.visible === true)"
    before = sum(1 for name, visible in traces if name == hidden[0] and visible is True)
    assert _eventually(tab, f"{shown}.length === {before + 1}")
    assert tab.locator("section.missing-charts li").count() == 0  # no chart said to be missing
    for chart in ("chart-factorial-effects", "chart-cost-vs-brier", "chart-similarity"):
        assert tab.evaluate(f"document.getElementById('{chart}').data.length") > 0, chart
    looks = tab.evaluate("document.getElementById('chart-brier-by-stage').data"
                         ".map(t => [t.marker.color, (t.marker.pattern || {}).shape || ''])")
    assert len({tuple(look) for look in looks}) == len(looks)  # one look per forecaster: colour-blind-safe palette,
    assert len({look[0] for look in looks}) == min(len(looks), 8)  # hatched past its eight colours


def test_team_pages_list_every_match_the_group_and_the_path(visit, sites):
    archive = sites["wc"][1]
    tab = visit("wc", 390).open("matches/worldcup-2026/m082.html")
    event = archive.events[("worldcup-2026", "m082")]
    with tab.expect_navigation():
        tab.locator("h1 a.team").first.click()
    assert tab.url.endswith(f"teams/worldcup-2026/{event.home_team}.html")
    played = [e for (c, _), e in archive.events.items() if c == "worldcup-2026" and event.home_team in (e.home_team, e.away_team)]
    assert tab.locator("table.team-matches tbody tr").count() == len(played)
    name = next(t.name for t in archive.competitions["worldcup-2026"].teams if t.id == event.home_team)
    assert name in tab.locator("table.group tbody tr.picked").inner_text()  # its group, its own row marked
    assert "Round of 32" in tab.locator("p.path-taken").inner_text()
    wins = tab.locator("table.team-matches tbody td.n[data-value]:nth-of-type(4)").all_inner_texts()
    assert all(re.fullmatch(r"\d+%|–", w) for w in wins) and any(w != "–" for w in wins)
