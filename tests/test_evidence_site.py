"""The third access level on the site (issue 17): the factorial contrasts and their tests include
evidence package - closed and evidence package - open beside closed - open; a suspected leak is shown
on its forecast card. Checked in the scores, against a hand computation, and in a real browser."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import orjson
import pytest
from browser_helpers import launched_chromium, require_chromium, serve

from builder.score.scoring import score_archive
from builder.site.build import build_site
from collector.records import Access, Event, Horizon, Outcome, Strategy
from tests.factories import (
    archive_from_records,
    make_forecast,
    make_payload,
    synthetic_records,
    write_records,
)

CELLS = tuple((a, Strategy.PROBABILISTIC_FORECAST, Horizon.T_MINUS_24H)
              for a in (Access.CLOSED_BOOK, Access.OPEN_BOOK, Access.EVIDENCE_PACKAGE))


def records():
    out = synthetic_records(n_events=30, n_models=3, cells=CELLS, market=False, failure_rate=0.0, seed=3)
    event = next(r for r in out if isinstance(r, Event))
    outcome = next(r for r in out if isinstance(r, Outcome) and r.event_id == event.id)
    reason = f"The hosts won <script>alert(1)</script> {outcome.score_90.home}-{outcome.score_90.away} in this match."
    out.append(make_forecast(event, "llm.leaky", make_payload(reason=reason), access=Access.CLOSED_BOOK))
    return out


def test_the_access_family_holds_all_three_contrasts_with_the_paired_means():
    archive = archive_from_records(records())
    scores = score_archive(archive)
    access = {t.comparison: t for t in scores.tests if t.family == "access/brier"}
    assert set(access) == {"closed_book - open_book (t_minus_24h)", "evidence_package - closed_book (t_minus_24h)",
                           "evidence_package - open_book (t_minus_24h)"}
    # the estimate by hand: per match, the mean over LLMs of Brier(evidence) - Brier(closed); then the mean over matches
    brier = {(r.forecaster, r.access, r.event_id): r.measures["brier"] for r in scores.forecasts
             if r.forecaster_type == "llm"}
    per_match = defaultdict(list)
    for (forecaster, acc, event), value in brier.items():
        if acc == "evidence_package" and (forecaster, "closed_book", event) in brier:
            per_match[event].append(value - brier[(forecaster, "closed_book", event)])
    expected = float(np.mean([np.mean(v) for v in per_match.values()]))
    test = access["evidence_package - closed_book (t_minus_24h)"]
    assert test.estimate == pytest.approx(expected, abs=1e-12) and test.n == len(per_match) == 30
    assert all(t.p_holm is not None and t.p_holm >= t.p_value for t in access.values())  # Holm over the three
    assert list(scores.leakage) and all("llm.leaky" in p for p in scores.leakage)


@pytest.mark.browser
@pytest.mark.parametrize("width", [1366, 390])
def test_the_factorial_chart_and_the_leak_card_in_a_browser(tmp_path, width):
    require_chromium()
    archive = tmp_path / "archive"
    written = write_records(archive, records())
    build_site(archive, tmp_path / "site", commit="test", progress=lambda _l: None)
    leaky = next(p for p in written if "/llm.leaky/" in p)
    event_id = leaky.split("/")[2]
    server, base = serve(tmp_path / "site")
    try:
        with launched_chromium() as chromium:
            page = chromium.new_page(viewport={"width": width, "height": 900})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(base + "charts/index.html")
            page.locator("#chart-factorial-effects svg.main-svg").first.wait_for()
            labels = orjson.loads(page.locator("#fig-factorial-effects").text_content())["data"][0]["y"]
            drawn = " ".join(page.locator("#chart-factorial-effects .ytick text").all_text_contents())
            assert "evidence package − closed book" in drawn  # drawn as an axis label, not only in the data
            assert any("evidence package − closed book" in label for label in labels)
            assert any("evidence package − open book" in label for label in labels)
            assert any("closed book − open book" in label for label in labels)
            page.locator("#chart-factorial-effects").screenshot(path=str(tmp_path / f"factorial-{width}.png"))
            match = next((tmp_path / "site").rglob(f"{event_id}.html")).relative_to(tmp_path / "site")
            page.goto(base + str(match))
            card = page.locator(".flag.violation", has_text="Suspected leak")
            assert card.count() == 1 and "states_result" in card.inner_text()
            # the rationale quoted in the reason is LLM text: shown as text, never as markup
            assert "<script>alert(1)</script>" in card.inner_text()
            assert page.locator(".flag.violation script").count() == 0
            assert card.is_visible()
            card.locator("xpath=..").screenshot(path=str(tmp_path / f"match-{width}.png"))  # the whole card
            assert errors == []
    finally:
        server.shutdown()
        server.server_close()
