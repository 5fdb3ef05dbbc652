"""The bracket page: its page model, and the page in a real browser at 1366 and 390 px.

The archive is the real 2026 World Cup (every match and result from the shared data) with the
full-tournament forecasts of two baselines asked the day before the opener.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import orjson
import pytest
from browser_helpers import launched_chromium, require_chromium, served

from builder.score.scoring import score_archive
from builder.score.t5 import score_forecast
from builder.site.bracket import (
    bracket_pages,
    overlay_files,
    overlays,
    tournament_forecasts,
)
from builder.site.bracket_models import BracketPage
from builder.site.build import build_site
from builder.site.render import render_page
from builder.site.sitectx import SiteContext
from collector.archive.reader import load_archive
from collector.forecasters.baselines import build_baseline
from collector.forecasters.baselines.backtest import played_matches
from collector.forecasters.tasks import ForecastTask
from collector.records import Access, Clock, Horizon, Strategy
from tests.factories import write_records

FORECASTERS = ("elo", "uniform")
PAGE = "bracket/worldcup-2026.html"


@pytest.fixture(scope="module")
def archive_root(data_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("bracket") / "archive"
    competition, played = played_matches("worldcup-2026", data_dir)
    first = played[0].event.kickoff_utc
    task = ForecastTask(competition=competition, access=Access.CLOSED_BOOK, strategy=Strategy.PROBABILISTIC_FORECAST,
                        horizon=Horizon.STAGE_OPENING, sample=0, scheduled_at=first - timedelta(days=1),
                        now=first - timedelta(days=1), deadline=first, clock=Clock.REPLAY,
                        fixtures=tuple(p.event for p in played if not p.event.knockout), full_tournament=True)
    forecasts = [build_baseline(name, data_dir, simulations=300, seed=5).forecast_now(task) for name in FORECASTERS]
    write_records(root, [competition, *(p.event for p in played), *(p.outcome for p in played), *forecasts])
    return root


@pytest.fixture(scope="module")
def ctx(archive_root) -> SiteContext:
    archive = load_archive(archive_root)
    return SiteContext(archive, score_archive(archive, inference_tests=False), "x", False)


@pytest.fixture(scope="module")
def page_model(ctx) -> BracketPage:
    return next(p for p in bracket_pages(ctx) if isinstance(p, BracketPage))


@pytest.mark.slow
def test_the_tree_holds_every_knockout_match_placed_between_its_feeders(page_model):
    slots = {s.number: s for s in page_model.slots}
    assert len(slots) == 31 and page_model.third_place.number == 103  # R32 16, R16 8, QF 4, SF 2, final 1
    assert [c.name for c in page_model.columns] == ["Round of 32", "Round of 16", "Quarter-finals", "Semi-finals",
                                                    "Final"]
    for s in slots.values():
        assert s.home and s.away and s.result and (s.home_won != s.away_won)  # the whole tournament is played
        if s.feeders:  # a match spans exactly its two feeders' rows, in the next column
            a, b = (slots[n] for n in s.feeders)
            assert {a.column, b.column} == {s.column - 1} and a.span == b.span == s.span // 2
            assert {a.row, b.row} == {s.row, s.row + s.span // 2}
    assert slots[104].span == page_model.rows and slots[104].home == "Spain" and slots[104].home_won


@pytest.mark.slow
def test_each_predicted_slot_marks_teams_pairings_and_advancement_against_the_real_match(page_model, ctx,
                                                                                       archive_root):
    archive = load_archive(archive_root)
    real = {e.match_number: e for e in archive.events_of("worldcup-2026") if e.knockout}
    winners = {e.match_number: archive.outcomes[("worldcup-2026", e.id)].advancing_team for e in real.values()}
    names = {t.id: t.name for t in archive.competitions["worldcup-2026"].teams}
    elo = next(f for f in archive.forecasts if f.forecaster == "elo" and f.target_kind == "tournament")
    competition = archive.competitions["worldcup-2026"]
    (overlay,) = [o for o in overlays(ctx, competition, tournament_forecasts(ctx, competition), names)
                  if o.key.startswith("elo.")]
    predicted = {p.match: p for p in overlay.slots}
    assert set(predicted) == {s.number for s in page_model.slots} | {page_model.third_place.number}
    for s in page_model.slots:
        layer = predicted[s.number]
        m = elo.payload.knockout(s.number)
        playing = {real[s.number].home_team, real[s.number].away_team}
        assert (layer.home.name, layer.away.name) == (names[m.home], names[m.away])
        assert layer.home.hit is (m.home in playing) and layer.away.hit is (m.away in playing)
        assert layer.pairing_hit is ({m.home, m.away} == playing)
        picked = layer.home if m.advances == m.home else layer.away
        assert picked.advances and picked.advance_hit is (m.advances == winners[s.number])
    qualified = sum(sum(g.qualified) for g in page_model.groups)
    assert qualified == 32 and all(sum(g.qualified) >= 2 for g in page_model.groups)
    rows = {r.forecaster: r for r in page_model.t5_rows}
    expected = score_forecast(archive.competitions["worldcup-2026"], elo.payload, list(real.values()) +
                              [e for e in archive.events_of("worldcup-2026") if not e.knockout],
                              archive.outcomes_of("worldcup-2026"))[-1]
    assert rows["elo"].stage == "final" and rows["elo"].t5 == f"{expected.t5:.1f}"
    assert [r.forecaster for r in page_model.t5_rows] == sorted(rows, key=lambda f: -(rows[f].t5_value or 0))


@pytest.fixture(scope="module")
def site(archive_root, tmp_path_factory):
    require_chromium()
    out = tmp_path_factory.mktemp("bracket-site")
    build_site(archive_root, out, commit="test", progress=lambda _l: None)
    with served(out) as base:
        yield base


@pytest.fixture(scope="module")
def browser(site):
    with launched_chromium() as chromium:
        yield chromium


CONNECTORS = """() => {
  const box = n => document.querySelector(`.tree .slot[data-match="${n}"] .box`).getBoundingClientRect();
  const centre = r => (r.top + r.bottom) / 2;
  return [...document.querySelectorAll('.tree .slot.in')].map(s => {
    const join = s.querySelector('.join').getBoundingClientRect();
    const [a, b] = s.dataset.feeds.split(' ').map(box);
    const out = getComputedStyle(document.querySelector(`.tree .slot[data-match="${s.dataset.feeds.split(' ')[0]}"]`), '::after');
    return {top: join.top - centre(a), bottom: join.bottom - centre(b), width: join.width,
            gap: box(s.dataset.match).left - join.left, out: out.borderTopWidth};
  });
}"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [1366, 390])
def test_the_bracket_page_in_a_browser(browser, site, width, tmp_path_factory):
    context = browser.new_context(viewport={"width": width, "height": 900}, has_touch=width == 390)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if r.url.endswith(".json") else None)
    page.goto(site + PAGE)
    shots = tmp_path_factory.getbasetemp() / "bracket-shots"
    shots.mkdir(exist_ok=True)
    numbers = page.eval_on_selector_all(".tree .slot", "els => els.map(e => Number(e.dataset.match))")
    assert sorted(numbers) == list(range(73, 103)) + [104] and page.locator(".third .slot").count() == 1
    for c in page.evaluate(CONNECTORS):  # each vertical bar runs from one feeder's centre to the other's
        assert abs(c["top"]) <= 2 and abs(c["bottom"]) <= 2 and c["width"] >= 1 and c["gap"] > 0, c
        assert c["out"] == "1px"
    assert len(page.evaluate(CONNECTORS)) == 15
    scroll = page.locator(".tree-scroll")
    wide, shown = scroll.evaluate("e => [e.scrollWidth, e.clientWidth]")
    final = page.locator('.tree .slot[data-match="104"] .box')
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # the page itself never scrolls sideways
    if width == 1366:
        assert wide <= shown and final.bounding_box()["x"] + final.bounding_box()["width"] <= width
    else:
        assert wide > shown  # a tree too wide for the phone scrolls inside its frame
        scroll.evaluate("e => e.scrollLeft = e.scrollWidth")
        box = final.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    final.scroll_into_view_if_needed()
    scroll.screenshot(path=str(shots / f"tree-{width}.png"))
    slot = page.locator('.tree .slot[data-match="73"]')
    # every score on a line of its own, never cut; a head shows whole when tapped, without hover
    cut = page.eval_on_selector_all(".slot .res", "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).length")
    assert page.locator(".slot .res").count() == 32 and cut == 0
    cut_heads = page.eval_on_selector_all(
        ".tree .slot", "els => els.filter(s => { const h = s.querySelector('.head'); "
                       "return h.scrollWidth > h.clientWidth + 1; }).map(s => s.dataset.match)")
    head = page.locator(f'.tree .slot[data-match="{(cut_heads or ["73"])[0]}"] .head')
    rules = head.locator("button.rules")  # the state's carrier for assistive tech, beside (not around) the link
    rules.tap() if width == 390 else rules.click()
    assert rules.get_attribute("aria-expanded") == "true" and head.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    head.locator("xpath=../..").screenshot(path=str(shots / f"slot-open-{width}.png"))
    rules.press("Enter")
    assert rules.get_attribute("aria-expanded") == "false"
    assert slot.locator(".layer:visible").count() == 1
    assert slot.locator('.layer[data-layer="real"]').is_visible()
    options = page.eval_on_selector_all("#bracket-overlay option", "os => os.map(o => o.value)")
    assert options[0] == "real" and len(options) == 1 + len(FORECASTERS)
    assert page.locator(".layer.pred").count() == 0  # no forecast's overlay is in the page itself
    elo = next(o for o in options if o.startswith("elo."))
    page.select_option("#bracket-overlay", elo)
    slot.locator(f'.layer[data-layer="{elo}"]').wait_for(state="visible")  # its overlay file is fetched
    assert not slot.locator('.layer[data-layer="real"]').is_visible()
    assert slot.locator(f'.layer[data-layer="{elo}"]').is_visible() and slot.locator(".layer:visible").count() == 1
    assert page.locator(".layer.pred:visible").count() == 32  # every slot, the third-place match too
    assert page.locator(".layer.pred:visible .team.hit").count() + page.locator(
        ".layer.pred:visible .team.miss").count() == 64
    scroll.screenshot(path=str(shots / f"tree-{width}-elo.png"))
    page.locator("table.t5").screenshot(path=str(shots / f"t5-{width}.png"))
    questions = page.locator(".questions")
    if questions.count():
        assert questions.evaluate("e => e.getBoundingClientRect().right") <= width
    uniform = next(o for o in options if o.startswith("uniform."))
    page.select_option("#bracket-overlay", uniform)
    slot.locator(f'.layer[data-layer="{uniform}"]').wait_for(state="visible")
    assert page.locator(".layer.pred").count() == page.locator(f'.layer.pred[data-layer="{uniform}"]').count() == 32
    page.select_option("#bracket-overlay", "real")
    assert slot.locator('.layer[data-layer="real"]').is_visible() and page.locator(".layer.pred").count() == 0
    page.select_option("#bracket-overlay", elo)  # shown at once, from the overlay fetched before
    assert slot.locator(f'.layer[data-layer="{elo}"]').is_visible()
    assert fetched == [f"{site}bracket/worldcup-2026/{elo}.json", f"{site}bracket/worldcup-2026/{uniform}.json"]
    assert page.locator("#bracket-overlay-status").inner_text() == ""
    assert errors == []
    context.close()


@pytest.mark.slow
def test_each_overlay_is_its_own_json_file_and_the_page_carries_none(page_model, ctx):
    """The page links each forecast's overlay file; its weight grows by one option and one T5 row a forecast."""
    files = overlay_files(ctx)
    assert sorted(f"bracket/{b.href}" for b in page_model.predicted) == sorted(files) and len(files) == 2
    html = render_page(page_model).decode()
    assert "layer pred" not in html and all(f'data-src="{b.href}"' in html for b in page_model.predicted)
    for path, data in files.items():
        body = orjson.loads(data)
        assert path == f"bracket/worldcup-2026/{body['key']}.json" and len(body["slots"]) == 32
        assert {s["match"] for s in body["slots"]} == {s.number for s in page_model.slots} | {103}
    one = replace(page_model, predicted=page_model.predicted[:1], t5_rows=page_model.t5_rows[:1])
    assert len(html) - len(render_page(one)) < 1024


def test_a_stage_too_long_to_draw_shows_its_first_matches_and_points_to_the_match_list():
    from factories import ALL_CELLS, synthetic_archive

    from builder.site.bracket import MAX_STAGE_SLOTS

    archive = synthetic_archive(n_events=MAX_STAGE_SLOTS + 20, n_models=1, cells=ALL_CELLS[:1], knockout_from=10,
                                market=False)
    ctx = SiteContext(archive, score_archive(archive, inference_tests=False), "x", False)
    page = next(p for p in bracket_pages(ctx) if isinstance(p, BracketPage))
    (column,) = page.columns
    assert len(page.slots) == MAX_STAGE_SLOTS and column.omitted == 10
    assert [s.label for s in page.slots][:2] == ["Match 11", "Match 12"]  # the first by match number
    html = render_page(page).decode()
    assert f'<a href="{page.match_list}">10 more in the match list</a>' in html
    assert page.match_list == "../matches/" + next(iter(archive.competitions)) + "/index.html"


@pytest.mark.browser
def test_an_overlay_that_cannot_be_fetched_is_said_and_the_real_bracket_stays(browser, site):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    thrown: list[str] = []
    page.on("pageerror", lambda e: thrown.append(str(e)))
    page.route("**/*.json", lambda route: route.fulfill(status=404, body="gone"))
    page.goto(site + PAGE)
    elo = next(o for o in page.eval_on_selector_all("#bracket-overlay option", "os => os.map(o => o.value)")
               if o.startswith("elo."))
    page.select_option("#bracket-overlay", elo)
    status = page.locator("#bracket-overlay-status")
    status.filter(has_text="could not be loaded").wait_for()
    assert "404" in status.inner_text() and page.locator(".layer.pred").count() == 0
    assert page.locator('.tree .slot[data-match="73"] .layer[data-layer="real"]').is_visible()
    assert thrown == []  # said on the page, no uncaught error
    context.close()
