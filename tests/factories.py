"""Helpers that build valid archive records and synthetic archives, for tests and benchmarks.

Everything here constructs the real contract models (so a factory can never produce a
record the reader would reject) with enum members, UTC timestamps and sensible defaults;
keyword arguments override any field. ``synthetic_archive`` builds an in-memory
:class:`~collector.archive.reader.Archive` of any size (the LLM-SoccerArena shape is 104 matches x
7 models x 12 cells); ``write_records`` puts records on disk through the archive writer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from collector.archive.layout import path_for
from collector.archive.reader import Archive, _resolve
from collector.archive.write.writer import ArchiveWriter
from collector.records import (
    Access,
    Attempt,
    AttemptRole,
    Choice,
    Clock,
    Competition,
    CompetitionFormat,
    Event,
    Forecast,
    ForecasterType,
    ForecastStatus,
    Horizon,
    MatchForecast,
    Outcome,
    OutcomeStatus,
    PredictionType,
    Question,
    QuestionForecast,
    QuestionResolution,
    Record,
    ResolutionRule,
    Score,
    SearchObserved,
    Stage,
    Strategy,
    Team,
    ToolTrace,
    Usage,
)

T0 = datetime(2026, 6, 1, 12, tzinfo=UTC)
COMPETITION = "worldcup-2026"
WORLD_CUP_STAGES = (
    ("group", False),
    ("round-of-32", True),
    ("round-of-16", True),
    ("quarter-final", True),
    ("semi-final", True),
    ("third-place", True),
    ("final", True),
)
HORIZON_LEAD = {
    Horizon.STAGE_OPENING: timedelta(days=7),
    Horizon.T_MINUS_24H: timedelta(hours=24),
    Horizon.T_MINUS_2H: timedelta(hours=2),
    Horizon.CLOSING: timedelta(minutes=5),
}
ALL_CELLS = tuple(
    (a, s, h)
    for a in (Access.CLOSED_BOOK, Access.OPEN_BOOK)
    for s in (Strategy.DIRECT_SCORE, Strategy.PROBABILISTIC_FORECAST)
    for h in (Horizon.STAGE_OPENING, Horizon.T_MINUS_24H, Horizon.T_MINUS_2H)
)
"""The 12 condition cells of LLM-SoccerArena: access x strategy x horizon."""


def make_competition(
    cid: str = COMPETITION, teams: Sequence[str] = ("mex", "rsa", "esp", "usa"), **changes: Any
) -> Competition:
    fields: dict[str, Any] = dict(
        recorded_at=T0,
        id=cid,
        name="Synthetic Cup",
        edition="2026",
        format=CompetitionFormat.TOURNAMENT,
        time_zone="UTC",
        teams=tuple(Team(id=t, name=t.upper()) for t in teams),
        stages=tuple(Stage(id=s, name=s, knockout=k, order=i) for i, (s, k) in enumerate(WORLD_CUP_STAGES)),
        source="tests.factories",
    )
    fields.update(changes)
    return Competition(**fields)


def make_event(
    home: str = "mex", away: str = "rsa", *, event_id: str | None = None, cid: str = COMPETITION,
    kickoff: datetime = T0 + timedelta(days=10), stage: str = "group", knockout: bool = False, **changes: Any,
) -> Event:
    fields: dict[str, Any] = dict(
        recorded_at=T0,
        competition_id=cid,
        id=event_id or f"{home}-v-{away}",
        stage=stage,
        kickoff_utc=kickoff,
        kickoff_date=kickoff.date() if kickoff else date(2026, 6, 11),
        kickoff_source=f"{kickoff:%Y-%m-%d %H:%M} UTC" if kickoff else "2026-06-11",
        home_team=home,
        away_team=away,
        knockout=knockout,
        resolution=ResolutionRule.EXTRA_TIME_AND_PENALTIES if knockout else ResolutionRule.REGULATION,
        source="tests.factories",
        source_retrieved_at=T0,
    )
    fields.update(changes)
    return Event(**fields)


def make_outcome(
    event: Event, home_goals: int, away_goals: int, *, advancing_team: str | None = None,
    status: OutcomeStatus = OutcomeStatus.FINISHED, **changes: Any,
) -> Outcome:
    """A finished outcome; for a knockout drawn after 90 minutes, extra time and penalties are
    filled so that ``advancing_team`` (default: the home team) wins the shoot-out. A second leg
    carries ``advancing_team`` as given (the tie's winner; its ``aggregate`` through ``changes``)."""
    fields: dict[str, Any] = dict(
        recorded_at=(event.kickoff_utc or T0) + timedelta(hours=3),
        competition_id=event.competition_id,
        event_id=event.id,
        status=status,
        score_90=Score(home=home_goals, away=away_goals) if status.has_result else None,
        source="tests.factories",
        source_retrieved_at=(event.kickoff_utc or T0) + timedelta(hours=3),
        source_payload={"score": {"ft": [home_goals, away_goals]}},
    )
    if event.knockout and fields["score_90"] is not None:
        if home_goals == away_goals:
            winner = advancing_team or event.home_team
            fields["score_extra_time"] = Score(home=home_goals, away=away_goals)
            fields["score_penalties"] = Score(home=5, away=4) if winner == event.home_team else Score(home=3, away=4)
            fields["advancing_team"] = winner
        else:
            fields["advancing_team"] = event.home_team if home_goals > away_goals else event.away_team
    if event.leg == 2 and advancing_team is not None:  # a tie's second leg carries the tie's winner
        fields["advancing_team"] = advancing_team
    fields.update(changes)
    return Outcome(**fields)


def make_payload(
    probs: Sequence[float] = (0.5, 0.3, 0.2), score: tuple[int, int] = (1, 0), *,
    advances: float | None = None, confidence: float | None = None,
    expected: tuple[float, float] | None = None, **changes: Any,
) -> MatchForecast:
    h, d, a = (float(x) for x in probs)
    fields: dict[str, Any] = dict(
        home_win_90=h,
        draw_90=d,
        away_win_90=a,
        expected_home_goals_90=float(expected[0] if expected else score[0]),
        expected_away_goals_90=float(expected[1] if expected else score[1]),
        most_likely_score_90=Score(home=score[0], away=score[1]),
        confidence=confidence,
    )
    if advances is not None:
        fields["home_advances"] = float(advances)
        fields["away_advances"] = 1.0 - float(advances)
    fields.update(changes)
    return MatchForecast(**fields)


def make_attempt(
    *, latency_ms: float = 1200.0, prompt_tokens: int = 900, completion_tokens: int = 300,
    cost_usd: float = 0.002, search: SearchObserved = SearchObserved.UNKNOWN, started_at: datetime = T0,
) -> Attempt:
    return Attempt(
        role=AttemptRole.FIRST,
        started_at=started_at,
        latency_ms=latency_ms,
        request_body={"model": "x"},
        http_status=200,
        usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cost_usd=cost_usd),
        tool_trace=ToolTrace(search_observed=search),
    )


def make_forecast(
    event: Event, forecaster: str = "openai.gpt-5.5", payload: MatchForecast | None = None, *,
    access: Access = Access.CLOSED_BOOK, strategy: Strategy = Strategy.PROBABILISTIC_FORECAST,
    horizon: Horizon = Horizon.T_MINUS_24H, status: ForecastStatus = ForecastStatus.VALID,
    forecaster_type: ForecasterType | None = None, clock: Clock = Clock.LIVE, sample: int = 0,
    attempts: Sequence[Attempt] | None = None, **changes: Any,
) -> Forecast:
    """A match forecast record. Scorable statuses get ``payload`` (default 0.5/0.3/0.2, 1-0)."""
    kickoff = event.kickoff_utc or T0 + timedelta(days=10)
    if forecaster_type is None:
        forecaster_type = (
            ForecasterType.MARKET if forecaster == "market"
            else ForecasterType.LLM if "." in forecaster else ForecasterType.BASELINE
        )
    scorable = status in (ForecastStatus.VALID, ForecastStatus.NORMALIZED, ForecastStatus.REPAIRED,
                          ForecastStatus.REPAIRED_AND_NORMALIZED)
    if payload is None and scorable:
        payload = make_payload()
    requested = None if status is ForecastStatus.MISSED else kickoff - HORIZON_LEAD[horizon]
    if attempts is None:
        attempts = () if requested is None or forecaster_type is not ForecasterType.LLM else (
            make_attempt(started_at=requested),
        )
    fields: dict[str, Any] = dict(
        recorded_at=kickoff - HORIZON_LEAD[horizon] + timedelta(minutes=1),
        clock=clock,
        competition_id=event.competition_id,
        target_kind="match",
        target_id=event.id,
        forecaster=forecaster,
        forecaster_type=forecaster_type,
        model=forecaster if forecaster_type is ForecasterType.LLM else None,
        model_version=f"{forecaster}@1",
        access=access,
        strategy=strategy,
        horizon=horizon,
        sample=sample,
        kickoff_utc=kickoff,
        scheduled_at=kickoff - HORIZON_LEAD[horizon],
        requested_at=requested,
        status=status,
        attempts=tuple(attempts),
        payload=payload if scorable or payload is not None else None,
    )
    fields.update(changes)
    return Forecast(**fields)


def make_question(
    question_id: str = "world_champion", candidates: Sequence[str] = ("mex", "rsa", "esp", "usa"), *,
    k: int = 1, cid: str = COMPETITION, **changes: Any,
) -> Question:
    fields: dict[str, Any] = dict(
        recorded_at=T0,
        competition_id=cid,
        id=question_id,
        label=question_id.replace("_", " "),
        meaning="synthetic question",
        prediction_type=PredictionType.SINGLE_CHOICE if k == 1 else PredictionType.MULTI_CHOICE_FIXED_K,
        k=k,
        candidates=tuple(candidates),
        closes_at=T0 + timedelta(days=5),
    )
    fields.update(changes)
    return Question(**fields)


def make_resolution(question: Question, answer: Sequence[str], **changes: Any) -> QuestionResolution:
    fields: dict[str, Any] = dict(
        recorded_at=T0 + timedelta(days=40),
        competition_id=question.competition_id,
        question_id=question.id,
        answer=tuple(answer),
        source="tests.factories",
    )
    fields.update(changes)
    return QuestionResolution(**fields)


def make_question_forecast(
    question: Question, probabilities: dict[str, float], picks: Sequence[str] | None = None,
    forecaster: str = "openai.gpt-5.5", *, access: Access = Access.CLOSED_BOOK,
    strategy: Strategy = Strategy.PROBABILISTIC_FORECAST, horizon: Horizon = Horizon.STAGE_OPENING,
    status: ForecastStatus = ForecastStatus.VALID, clock: Clock = Clock.LIVE, **changes: Any,
) -> Forecast:
    """A question forecast; ``picks`` default to the k most probable teams."""
    ranked = sorted(probabilities, key=lambda t: -probabilities[t])
    picks = tuple(picks) if picks is not None else tuple(ranked[: question.k])
    payload = QuestionForecast(
        question_id=question.id,
        prediction_type=question.prediction_type.value,
        k=question.k,
        choices=tuple(
            Choice(team=t, probability=float(probabilities[t]), rank=i + 1, is_final_pick=t in picks)
            for i, t in enumerate(ranked)
        ),
        final_picks=picks,
    )
    close = question.closes_at
    fields: dict[str, Any] = dict(
        recorded_at=close - timedelta(days=1),
        clock=clock,
        competition_id=question.competition_id,
        target_kind="question",
        target_id=question.id,
        forecaster=forecaster,
        forecaster_type=ForecasterType.LLM if "." in forecaster else ForecasterType.BASELINE,
        model=forecaster if "." in forecaster else None,
        model_version=f"{forecaster}@1",
        access=access,
        strategy=strategy,
        horizon=horizon,
        kickoff_utc=close,
        scheduled_at=close - timedelta(days=2),
        requested_at=close - timedelta(days=2),
        status=status,
        payload=payload,
    )
    fields.update(changes)
    return Forecast(**fields)


def archive_from_records(records: Iterable[Record], root: Path | str = "memory") -> Archive:
    """An in-memory :class:`Archive` of ``records`` resolved exactly as ``load_archive`` does."""
    archive = Archive(root=Path(root))
    for record in records:
        archive.records[path_for(record)] = record
    _resolve(archive)
    return archive


def write_records(root: Path | str, records: Iterable[Record]) -> list[str]:
    """Write records through :class:`ArchiveWriter`; return their archive-relative paths."""
    writer = ArchiveWriter(root)
    return [writer.write(record) for record in records]


def _dirichlet_around(rng: np.random.Generator, p: np.ndarray, concentration: float) -> np.ndarray:
    q = rng.dirichlet(p * concentration + 0.3)
    q = np.round(q, 3)
    q[1] = round(1.0 - q[0] - q[2], 3)
    if q[1] < 0:
        q = np.array([0.4, 0.3, 0.3])
    return q


def synthetic_records(
    n_events: int = 104, n_models: int = 7, cells: Sequence[tuple[Access, Strategy, Horizon]] = ALL_CELLS, *,
    seed: int = 0, knockout_from: int = 72, market: bool = True, failure_rate: float = 0.02,
    clock: Clock = Clock.LIVE,
) -> list[Record]:
    """Records of a World-Cup-shaped synthetic archive with outcomes.

    ``n_events`` matches (the first ``knockout_from`` are group matches, the rest numbered
    knockouts ``m073``...), ``n_models`` LLM forecasters ``llm.model-1``... answering every
    cell, an ``elo`` baseline in closed-book cells and (optionally) a ``market`` forecast at
    ``closing``. Outcomes are drawn from a hidden truth the forecasters see with noise, and
    about ``failure_rate`` of LLM forecasts fail (API error or invalid answer).
    """
    rng = np.random.default_rng(seed)
    n_teams = max(4, 2 * n_events)
    teams = [f"t{i:03d}" for i in range(n_teams)]
    records: list[Record] = [make_competition(teams=teams)]
    strength = rng.normal(0, 0.6, n_teams)
    for i in range(n_events):
        home, away = teams[2 * i % n_teams], teams[(2 * i + 1) % n_teams]
        knockout = i >= knockout_from
        kickoff = T0 + timedelta(days=10 + i // 4, hours=3 * (i % 4))
        eid = f"m{i + 1:03d}" if knockout else f"{home}-v-{away}"
        stage = "round-of-32" if knockout else "group"
        event = make_event(home, away, event_id=eid, kickoff=kickoff, stage=stage, knockout=knockout,
                           match_number=i + 1)
        gap = strength[2 * i % n_teams] - strength[(2 * i + 1) % n_teams]
        truth = np.array([np.exp(gap), 0.9, np.exp(-gap)])
        truth /= truth.sum()
        h, a = _score_for(rng, int(rng.choice(3, p=truth)))
        records += [event, make_outcome(event, int(h), int(a))]
        for m in range(n_models):
            for access, strategy, horizon in cells:
                records.append(_synthetic_forecast(rng, event, f"llm.model-{m + 1}", truth, access, strategy,
                                                   horizon, failure_rate, clock))
        for horizon in sorted({c[2] for c in cells}):
            records.append(_synthetic_forecast(rng, event, "elo", truth, Access.CLOSED_BOOK,
                                               Strategy.PROBABILISTIC_FORECAST, horizon, 0.0, clock))
        if market:
            records.append(_synthetic_forecast(rng, event, "market", truth, Access.CLOSED_BOOK,
                                               Strategy.PROBABILISTIC_FORECAST, Horizon.CLOSING, 0.0, clock))
    return records


def _score_for(rng: np.random.Generator, result: int) -> tuple[int, int]:
    """A plausible score with the given H/D/A result (0 home win, 1 draw, 2 away win)."""
    low, extra = int(rng.poisson(0.9)), 1 + int(rng.poisson(0.5))
    return [(low + extra, low), (low, low), (low, low + extra)][result]


def _synthetic_forecast(rng, event, forecaster, truth, access, strategy, horizon, failure_rate, clock) -> Forecast:
    draw = rng.random()
    if draw < failure_rate:
        status = ForecastStatus.API_ERROR if draw < failure_rate / 2 else ForecastStatus.INVALID_JSON
        return make_forecast(event, forecaster, None, access=access, strategy=strategy, horizon=horizon,
                             status=status, clock=clock)
    sharp = 60.0 if forecaster == "market" else 25.0 if access is Access.OPEN_BOOK else 15.0
    p = _dirichlet_around(rng, truth, sharp)
    score = (int(rng.integers(0, 3)), int(rng.integers(0, 3)))
    advances = float(np.round(0.2 + 0.6 * rng.random(), 3)) if event.knockout else None
    search = SearchObserved.SEARCHED if access is Access.OPEN_BOOK and rng.random() < 0.8 else SearchObserved.NONE
    kickoff = event.kickoff_utc
    attempts = None
    # realised lead time: a few minutes after the scheduled time, and for one match in fifty far
    # outside the T-24h window (derived from the match number, so no random draw is consumed)
    number = event.match_number or 0
    late = 150 if number % 50 == 7 and horizon is Horizon.T_MINUS_24H else 0
    jitter = (number * 7 + len(forecaster)) % 40 if horizon in (Horizon.T_MINUS_24H, Horizon.T_MINUS_2H) else 0
    delay = timedelta(minutes=jitter + late)
    requested = kickoff - HORIZON_LEAD[horizon] + delay
    if "." in forecaster:
        attempts = (make_attempt(latency_ms=float(rng.gamma(4, 800)), search=search, started_at=requested),)
    payload = make_payload(p, score, advances=advances, confidence=float(np.round(rng.random(), 2)))
    return make_forecast(event, forecaster, payload, access=access, strategy=strategy, horizon=horizon,
                         clock=clock, attempts=attempts, requested_at=requested,
                         lead_time_minutes=(kickoff - requested).total_seconds() / 60,
                         recorded_at=requested + timedelta(minutes=1))


def synthetic_archive(**kwargs: Any) -> Archive:
    """An in-memory archive of :func:`synthetic_records` (same keyword arguments)."""
    return archive_from_records(synthetic_records(**kwargs))
