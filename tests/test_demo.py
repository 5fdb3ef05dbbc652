"""The README's demo: the opening days of the 2026 World Cup with every condition (the full run is minutes).

One shortened demo is made per module: its records are checked here, and its site is visited in a
real browser at 1280 and 390 px, one page of each family (leaderboard with LLM rows under every
access condition, evidence, markets, fine-grained, full tournament, analysis with robustness, all
six charts), each with data where a live arena would have it, each marked demo.
"""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout

import pytest
from browser_helpers import launched_chromium, require_chromium, served

from collector.archive.reader import load_archive
from collector.audit.verify import verify_repository
from collector.cli import main
from collector.forecasters.demo_recipe import MODELS, Recipe, Reference
from collector.forecasters.llm.demo_answers import question_answer, tournament_answer
from collector.records import Access, Evidence, ForecasterType, OddsSnapshot, Strategy, is_demo

UNTIL = "2026-06-15T00:00Z"  # the first eleven matches: every page family has data


@pytest.fixture(scope="module")
def demo(data_dir, tmp_path_factory):
    """(repository folder, exit code, what the demo printed)."""
    out = tmp_path_factory.mktemp("demo") / "prematch-demo"
    printed = io.StringIO()
    with redirect_stdout(printed):
        code = main(["demo", "--out", str(out), "--data-dir", str(data_dir), "--until", UNTIL])
    return out, code, printed.getvalue()


@pytest.mark.slow  # the module's demo run (minutes): the fast lane has the short demo below and the recipe's tests
def test_demo_replays_with_every_condition_builds_and_verifies(demo):
    out, code, printed = demo
    assert code == 0, printed
    assert (out / "site" / "index.html").exists()
    assert "OK: no violations" in printed and "0 live (prospective)" in printed
    assert "requested_after_commit" not in printed  # each tick's commit is dated when it ended, after its requests
    assert f"python -m http.server --directory {out / 'site'} 8000" in printed
    report = verify_repository(out)
    forecasts = [f for f in report.files.values() if f.kind == "forecast"]
    assert forecasts and all(f.replay for f in forecasts)
    archive = load_archive(out / "archive")
    assert archive.problems == []
    llm = [f for f in archive.forecasts if f.forecaster_type is ForecasterType.LLM]
    assert {f.forecaster for f in llm} == {m.id for m in MODELS} and all(is_demo(f.forecaster) for f in llm)
    assert {f.access for f in llm} == set(Access)  # closed book, open book and the evidence package
    assert any(f.strategy is Strategy.FINE_GRAINED and f.payload is not None and f.payload.fine_grained for f in llm)
    assert any(f.target_kind == "tournament" for f in llm)  # the full-tournament task
    valid = [f for f in llm if f.payload is not None]
    assert len(valid) >= 0.95 * len(llm)  # the recipe's answers pass the real validation
    assert all(a.provider == "Prematch demo server" for f in valid for a in f.attempts if a.provider)
    packaged = [f for f in valid if f.access is Access.EVIDENCE_PACKAGE and f.target_kind == "match"]
    assert packaged and all("from the evidence package" in f.payload.reason for f in packaged)
    assert any(isinstance(r, Evidence) and r.news is not None for r in archive.records.values())
    books = {q.bookmaker for r in archive.records.values() if isinstance(r, OddsSnapshot) for q in r.quotes}
    assert books == {"demo-book-a", "demo-book-b", "demo-book-c"}  # never a real bookmaker's name
    assert any(f.forecaster == "market" and f.payload is not None for f in archive.forecasts)


def test_the_recipe_is_deterministic_and_differs_by_model_and_access():
    recipe = Recipe({("Mexico", "South Africa"): Reference((0.5, 0.3, 0.2), (1.5, 0.9))})
    prompt = "Date UTC: 2026-06-11\nHome/listed first team: Mexico\nAway/listed second team: South Africa\n"

    def body(model: str, tools: bool = False, extra: str = "") -> dict:
        return {"model": model, "messages": [{"role": "user", "content": prompt + extra}],
                **({"tools": [{"type": "openrouter:web_search"}]} if tools else {})}

    def probs(answer: dict) -> tuple:
        return answer["home_win_90_prob"], answer["draw_90_prob"], answer["away_win_90_prob"]

    atlas = recipe.match(body("demo/atlas"))
    assert atlas == recipe.match(body("demo/atlas"))  # the same request, the same answer
    assert abs(sum(probs(atlas)) - 1) < 1e-9 and atlas["reason"].startswith("[demo] Mexico")
    assert probs(atlas) != probs(recipe.match(body("demo/bolt")))
    assert probs(atlas) != probs(recipe.match(body("demo/atlas", tools=True)))
    market = "Access condition: EVIDENCE_PACKAGE.\nMarket odds (x, 3 book(s), read y; margin removed per book, " \
             "median across books): Mexico win 80.0%, draw 15.0%, South Africa win 5.0%.\n"
    packaged = recipe.match(body("demo/atlas", extra=market))
    assert packaged["home_win_90_prob"] > atlas["home_win_90_prob"]  # half the market's 80% is averaged in
    assert "market Mexico 80%" in packaged["reason"]


def test_the_recipe_ranks_questions_and_brackets_by_strength():
    recipe = Recipe({("Spain", "Mexico"): Reference((0.6, 0.25, 0.15), (1.6, 0.9)),
                     ("Mexico", "Haiti"): Reference((0.7, 0.2, 0.1), (2.0, 0.6))}, {"esp": "Spain", "mex": "Mexico",
                                                                                   "hai": "Haiti"})
    prompt = "Valid candidates:\n- Haiti\n- Mexico\n- Spain\nRequired number of final picks: 2\n"
    for model in MODELS:
        answer = question_answer(prompt, recipe.strength(model))
        shares = {c["team"]: c["probability"] for c in answer["choices"]}
        assert abs(sum(shares.values()) - 2) < 1e-9 and max(shares.values()) <= 1
        assert shares["Spain"] >= shares["Mexico"] > shares["Haiti"] and answer["final_picks"] == ["Spain", "Mexico"]
    bracket = tournament_answer("Knockout matches:\n- match 1 (final): hai (Haiti) v esp (Spain)\n",
                                strength=recipe.strength(MODELS[0]))
    (final,) = bracket["knockout_matches"]
    assert final["advances"] == "esp" and final["score"] == {"home": 0, "away": 1} and final["advance_probability"] > 0.5


def test_demo_refuses_a_folder_that_is_not_empty(tmp_path, data_dir, capsys):
    (tmp_path / "keep.txt").write_text("mine\n")
    assert main(["demo", "--out", str(tmp_path), "--data-dir", str(data_dir)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "not an empty folder" in captured.err
    assert (tmp_path / "keep.txt").read_text() == "mine\n"


def test_demo_again_with_the_same_out_replaces_only_a_demo(tmp_path, data_dir, capsys):
    out = tmp_path / "prematch-demo"
    assert main(["demo", "--out", str(out), "--data-dir", str(data_dir), "--until", "2026-06-01T00:00Z"]) == 0
    (out / "site" / "stale.txt").write_text("from the first run\n")
    capsys.readouterr()
    assert main(["demo", "--out", str(out), "--data-dir", str(data_dir), "--until", "2026-06-01T00:00Z"]) == 0
    again = capsys.readouterr().out
    assert again.startswith(f"replacing the previous demo in {out}\n")
    assert (out / "site" / "index.html").exists() and not (out / "site" / "stale.txt").exists()
    assert "OK: no violations" in again


# -- the demo's site in a browser --------------------------------------------------------------

MATCH = "matches/worldcup-2026/mex-v-rsa.html"


@pytest.fixture(scope="module")
def browser_site(demo):
    """Chromium, and the base URL of the demo's site served on 127.0.0.1."""
    require_chromium()
    with served(demo[0] / "site") as base, launched_chromium() as chromium:
        yield chromium, base


def _open(browser, base: str, path: str, width: int):
    context = browser.new_context(viewport={"width": width, "height": 900})
    tab = context.new_page()
    tab.errors = []  # type: ignore[attr-defined]
    tab.on("console", lambda m: tab.errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: tab.errors.append(str(e)))
    tab.goto(base + path)
    assert tab.locator(".demo-banner").is_visible(), f"{path}: no demo banner"
    assert tab.evaluate("document.documentElement.scrollWidth") <= width, f"{path}: the page scrolls sideways"
    return context, tab


CUE = ("e => { const c = e.previousElementSibling; "
       "return [c.className, c.textContent, !c.hidden && c.offsetHeight > 0]; }")


def _scroll_cue(tab, frame_selector: str, wide: bool) -> None:
    """A frame wider than the screen says so above it, and shades its edge, until its end is in view."""
    frame = tab.locator(frame_selector)
    assert frame.evaluate("e => e.scrollWidth > e.clientWidth + 1") is wide
    cls, text, shown = frame.evaluate(CUE)  # the cue sits right before its frame
    assert cls == "scroll-cue" and text == "Scroll sideways for more →" and shown is wide
    assert ("overflows" in frame.get_attribute("class").split()) is wide
    if wide:
        hidden = f"() => document.querySelector('{frame_selector}').previousElementSibling.hidden"
        frame.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
        tab.wait_for_function(hidden)
        frame.evaluate("e => { e.scrollLeft = 0; }")
        tab.wait_for_function(f"() => !({hidden[6:]})")


def _cells(tab, row, keys) -> dict[str, str]:
    return {k: row.locator(f'td[data-key="{k}"]').inner_text().strip() for k in keys}


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 390])
def test_every_page_family_of_the_demo_has_data(browser_site, width, tmp_path_factory):
    browser, site = browser_site
    shots = tmp_path_factory.getbasetemp() / "demo-shots"
    shots.mkdir(exist_ok=True)
    visited = []

    def visit(path: str):
        context, tab = _open(browser, site, path, width)
        visited.append((context, tab, path))
        return tab

    # leaderboard: LLM rows under all three access conditions, every measure filled
    board = visit("index.html")
    rows = board.locator('#board tbody tr[data-type="llm"]')
    assert {rows.nth(i).get_attribute("data-access") for i in range(rows.count())} == {a.value for a in Access}
    keys = ("brier", "composite", "market_return", "market_sharpe", "market_n")
    for i in range(rows.count()):
        cells = _cells(board, rows.nth(i), keys)
        assert "–" not in cells.values() and "" not in cells.values(), cells
    assert board.locator("#board .badge.demo").count() == rows.count()
    board.screenshot(path=str(shots / f"leaderboard-{width}.png"))
    # a match: evidence package, the market chart, fine-grained section, goals in order, demo cards
    match = visit(MATCH)
    assert match.locator("dd a code", has_text="/evidence/").count() >= 1  # the cards link their package
    match.locator("section.market-chart svg.main-svg").first.wait_for()
    fine = match.locator("section.fine-grained")
    assert fine.is_visible() and "demo.cirrus" in fine.inner_text()
    assert match.locator(".badge.demo").count() >= 10
    match.screenshot(path=str(shots / f"match-{width}.png"), full_page=True)
    # fine-grained layers: the radar draws the cells
    layers = visit("layers.html")
    assert layers.locator("figure.radar svg").count() >= 1
    # full tournament: a demo LLM's bracket is one of the overlays, and draws every slot
    bracket = visit("bracket/worldcup-2026.html")
    options = bracket.eval_on_selector_all("#bracket-overlay option", "os => os.map(o => o.value)")
    llm_bracket = next(o for o in options if o.startswith("demo."))
    bracket.select_option("#bracket-overlay", llm_bracket)
    bracket.locator(f'.layer[data-layer="{llm_bracket}"]').first.wait_for(state="visible")
    assert bracket.locator(".layer.pred:visible").count() == 32
    bracket.locator(".tree-scroll").screenshot(path=str(shots / f"bracket-{width}.png"))
    _scroll_cue(bracket, ".tree-scroll", wide=width == 390)  # the tree fits a desktop, not a phone
    # analysis: the robustness section has its table
    analysis = visit("analysis/index.html")
    assert "Needs LLM forecasts" not in analysis.inner_text("main")
    assert analysis.locator("h2", has_text="Robustness").count() == 1
    # charts: all six drawn, none listed as missing
    charts = visit("charts/index.html")
    charts.locator("div.chart svg.main-svg").nth(5).wait_for()
    assert charts.locator("div.chart").count() == 6 and charts.locator(".missing-charts").count() == 0
    stages = json.loads(charts.locator("#fig-brier-by-stage").text_content())["data"][0]["x"]
    assert stages == ["Group stage"]  # named as the competition names it, not its id
    charts.screenshot(path=str(shots / f"charts-{width}.png"), full_page=True)
    # questions: the demo LLMs' answers to a tournament question
    question = visit("questions/worldcup-2026/group_winner_a.html")
    assert {"demo.atlas", "demo.bolt", "demo.cirrus"} <= set(re.findall(r"demo\.(?:atlas|bolt|cirrus)",
                                                                         question.inner_text("main")))
    for context, tab, path in visited:
        assert tab.errors == [], (path, tab.errors)
        context.close()
