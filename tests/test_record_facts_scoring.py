"""Record facts on a real World Cup 2026 replay, and scoring's inputs from facts equal to the scorer's own."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from cache_tampering import entry_keys

from builder.score.scoring import score_match_forecasts
from collector.archive.facts import load_facts
from collector.archive.facts_cache import KIND
from collector.archive.layout import path_for
from collector.archive.reader import load_archive
from collector.records import Forecast
from collector.schedule.replay import replay
from tests.factories import synthetic_records, write_records

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

UNTIL = datetime(2026, 6, 12, 6, 0, tzinfo=UTC)  # the first two matches played


@pytest.fixture(scope="module")
def replayed(data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("replay") / "wc"
    replay("worldcup-2026", out, data_dir, until=UNTIL, baselines=("uniform", "elo"), progress=lambda _l: None,
           progress_every_s=0.0)
    return out / "archive"


def test_the_replay_loads_the_same_cold_cached_and_through_the_reader(replayed):
    archive = load_archive(replayed)
    cold = load_facts(replayed)  # the replay is a git repository: the default cache is its .git/prematch/
    assert entry_keys(replayed.parent / ".git" / "prematch", KIND)  # kept in the one store
    cached = load_facts(replayed)
    assert cold.validated == len(set(cold.digests)) > 0 and cached.validated == 0
    for facts in (cold, cached):
        assert facts.problems == archive.problems == []
        assert facts.effective_paths() == archive.effective_paths
        assert facts.sha256() == archive.sha256
    assert len(cached.rows("event")) == len(archive.events) and len(cached.rows("outcome")) == len(archive.outcomes)


def _scoring_inputs_match(archive, facts) -> int:
    forecasts = sorted((f for f in archive.forecasts if f.target_kind == "match"), key=Forecast.key)
    rows = score_match_forecasts(archive, forecasts)
    columns = facts.match_scoring_columns()
    assert columns["path"].tolist() == [r.path for r in rows]
    assert columns["p"].tolist() == [[r.p_home, r.p_draw, r.p_away] for r in rows]  # the same floats, exactly
    assert columns["ph"].tolist() == [r.predicted_home for r in rows]
    assert columns["pa"].tolist() == [r.predicted_away for r in rows]
    assert columns["h"].tolist() == [r.score_home for r in rows] and columns["a"].tolist() == [r.score_away for r in rows]
    for name in ("competition_id", "event_id", "forecaster", "forecaster_type", "model", "access", "strategy",
                 "horizon", "sample", "clock", "status", "stage", "knockout", "lead_time_minutes"):
        assert columns[name].tolist() == [getattr(r, name) for r in rows], name
    assert [None if np.isnan(c) else c for c in columns["confidence"].tolist()] == [r.confidence for r in rows]
    assert columns["advancement"].tolist() == [r.advancement is not None for r in rows]
    by_path = {path_for(f): f for f in forecasts}
    outcomes = [archive.outcomes[(r.competition_id, r.event_id)] for r in rows]
    assert columns["et"].tolist() == [o.score_extra_time is not None for o in outcomes]
    assert columns["h_et"].tolist() == [o.score_extra_time.home if o.score_extra_time else 0 for o in outcomes]
    assert columns["eh"].tolist() == [by_path[r.path].payload.expected_home_goals_90 for r in rows]
    assert columns["ea"].tolist() == [by_path[r.path].payload.expected_away_goals_90 for r in rows]
    advanced = [o.advancing_team == archive.events[(o.competition_id, o.event_id)].home_team for o in outcomes]
    assert [bool(h) for h, s in zip(columns["home_advanced"], columns["advancement"]) if s] == \
           [a for a, r in zip(advanced, rows) if r.advancement is not None]
    return len(rows)


def test_scoring_inputs_from_facts_are_the_scorers_on_the_replay(replayed):
    assert _scoring_inputs_match(load_archive(replayed), load_facts(replayed)) > 0


def test_scoring_inputs_from_cached_facts_are_the_scorers_with_knockouts_and_failures(tmp_path):
    root = tmp_path / "archive"
    write_records(root, synthetic_records(n_events=16, n_models=2, seed=7, knockout_from=8, failure_rate=0.1))
    load_facts(root, cache=tmp_path / "cache")
    facts = load_facts(root, cache=tmp_path / "cache")
    assert facts.validated == 0
    columns = facts.match_scoring_columns()
    assert columns["et"].any() and columns["advancement"].any()  # extra time and advancement are exercised
    assert _scoring_inputs_match(load_archive(root), facts) == len(columns["row"])
