"""A small, hand-shaped tournament archive for the site tests (built with tests/factories.py).

Two groups of four, round-robin group matches, two semi-finals and a final (left unplayed),
two LLM forecasters in four condition cells, an Elo baseline and a market, two tournament
questions (one resolved), one failed forecast, and one forecast whose rationale and
citations are hostile (script tags, onerror images, javascript: links).
"""

from __future__ import annotations

from datetime import timedelta
from itertools import combinations
from pathlib import Path

import numpy as np
from factories import (
    T0,
    make_competition,
    make_event,
    make_forecast,
    make_outcome,
    make_payload,
    make_question,
    make_question_forecast,
    make_resolution,
    write_records,
)

from collector.archive.layout import path_for
from collector.records import (
    Access,
    Attempt,
    AttemptRole,
    AttemptStatistics,
    Citation,
    Clock,
    ForecastStatus,
    Group,
    Horizon,
    SearchFlag,
    SearchObserved,
    SearchReport,
    Strategy,
    ToolTrace,
    Usage,
)

HOSTILE = (
    "Mexico look strong. <script>window.__pwned = 'script'</script>\n\n"
    "<img src=x onerror=\"window.__pwned = 'img'\">\n\n"
    "[read more](javascript:window.__pwned='link') and [also](JaVaScRiPt:alert(1)) and "
    "![pixel](http://127.0.0.1:9/pixel.png) but **bold** stays."
)
TEAMS = ("mex", "rsa", "kor", "cze", "esp", "usa", "par", "aus")
LLMS = ("llm.alpha", "llm.beta")
CELLS = tuple(
    (a, s, h)
    for a in (Access.CLOSED_BOOK, Access.OPEN_BOOK)
    for s, h in ((Strategy.DIRECT_SCORE, Horizon.T_MINUS_24H), (Strategy.PROBABILISTIC_FORECAST, Horizon.T_MINUS_2H))
)


def _events():
    events = []
    day = 0
    for group, teams in (("A", TEAMS[:4]), ("B", TEAMS[4:])):
        for home, away in combinations(teams, 2):
            day += 1
            events.append(make_event(home, away, kickoff=T0 + timedelta(days=10, hours=6 * day), group=group))
    ko = T0 + timedelta(days=20)
    events.append(make_event("mex", "usa", event_id="m013", stage="semi-final", knockout=True, kickoff=ko, match_number=13))
    events.append(make_event("esp", "rsa", event_id="m014", stage="semi-final", knockout=True,
                             kickoff=ko + timedelta(hours=4), match_number=14))
    events.append(make_event("mex", "esp", event_id="m015", stage="final", knockout=True,
                             kickoff=ko + timedelta(days=4), match_number=15))
    return events


def site_records(clock: Clock = Clock.LIVE, hostile: bool = True) -> list:
    rng = np.random.default_rng(7)
    competition = make_competition(
        teams=TEAMS, name="Test Cup <b>2026</b>",
        groups=(Group(name="A", teams=TEAMS[:4]), Group(name="B", teams=TEAMS[4:])),
    )
    records: list = [competition]
    for i, event in enumerate(_events()):
        records.append(event)
        if event.id != "m015":
            h, a = int(rng.integers(0, 4)), int(rng.integers(0, 3))
            records.append(make_outcome(event, h, a, clock=clock))
        for forecaster in LLMS:
            for j, (access, strategy, horizon) in enumerate(CELLS):
                p = rng.dirichlet([3, 2, 2]).round(3)
                p[1] = round(1 - p[0] - p[2], 3)
                payload = make_payload(p, (int(rng.integers(0, 3)), int(rng.integers(0, 2))),
                                       advances=0.6 if event.knockout else None, confidence=0.5,
                                       reason=f"Form and **injuries** ({forecaster}).")
                status = ForecastStatus.VALID
                if forecaster == "llm.beta" and i == 3 and j == 0:
                    status, payload = ForecastStatus.INVALID_JSON, None
                records.append(make_forecast(event, forecaster, payload, access=access, strategy=strategy,
                                             horizon=horizon, status=status, clock=clock))
        for forecaster, horizon in (("elo", Horizon.T_MINUS_24H), ("market", Horizon.CLOSING)):
            records.append(make_forecast(event, forecaster, make_payload((0.45, 0.3, 0.25), (1, 1)),
                                         horizon=horizon, clock=clock))
        if hostile and i == 0:
            hostile_forecast = _hostile_forecast(event, clock)
            records += [hostile_forecast, _statistics(hostile_forecast)]
    records += _questions(clock)
    return records


def _hostile_forecast(event, clock):
    started = event.kickoff_utc - timedelta(hours=30)
    attempt = Attempt(
        role=AttemptRole.FIRST, started_at=started, latency_ms=900.0, request_body={"model": "x"}, http_status=200,
        usage=Usage(prompt_tokens=10, completion_tokens=10, cost_usd=0.01),
        tool_trace=ToolTrace(citations=(Citation(url="javascript:window.__pwned='cite'", title="evil"),
                                        Citation(url="https://example.org/news", title="<b>News</b>"))),
    )
    payload = make_payload((0.5, 0.3, 0.2), (2, 0), reason=HOSTILE)
    searched = SearchReport(observed=SearchObserved.SEARCHED, requests=1, flag=SearchFlag.CLOSED_BOOK_SEARCH)
    return make_forecast(event, "llm.mallory", payload, clock=clock, attempts=(attempt,),
                         requested_at=started, scheduled_at=started, search=searched)  # a closed-book search


def _statistics(forecast):
    """OpenRouter's generation stats of the forecast's call (the provider name is hostile too)."""
    return AttemptStatistics(
        recorded_at=forecast.recorded_at, clock=forecast.clock, competition_id=forecast.competition_id,
        forecast_path=path_for(forecast), attempt_index=0, generation_id="gen-site-1",
        provider="<i>Mallory</i>", web_search_engine="exa", search_results=6, total_cost_usd=0.0123,
    )  # fmt: skip


def _questions(clock):
    winner_a = make_question("group_winner_a", TEAMS[:4], group="A", label="Winner of group A")
    champion = make_question("world_champion", TEAMS, label="World champion")
    records = [winner_a, champion, make_resolution(winner_a, ["mex"])]
    for forecaster in LLMS:
        records.append(make_question_forecast(winner_a, {"mex": 0.5, "rsa": 0.2, "kor": 0.2, "cze": 0.1},
                                              forecaster=forecaster, clock=clock))
        records.append(make_question_forecast(champion, {t: 1 / 8 for t in TEAMS}, picks=["esp"],
                                              forecaster=forecaster, clock=clock))
    return records


def write_site_archive(root: Path, clock: Clock = Clock.LIVE, hostile: bool = True) -> Path:
    write_records(root, site_records(clock, hostile))
    return root
