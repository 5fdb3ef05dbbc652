"""Transport failures are retried by a later tick as a new revision of the key; nothing else is (issue 12)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from builder.cli import main as builder_main
from builder.score.scoring import score_archive
from collector.archive.layout import path_for
from collector.archive.reader import load_archive
from collector.cli import main
from collector.records import ForecastStatus
from tests.gitrepo import KICKOFF, GitRepo, at, event, forecast
from tests.test_hostile_provider import tick


@pytest.mark.slow
def test_a_later_tick_retries_transport_failures_as_new_revisions(tmp_path, data_dir, server, capsys):
    repo = GitRepo(tmp_path)
    server.mode = "status:503"
    assert tick(tmp_path, data_dir, "2026-06-10T12:00:00Z") == 1  # every call failed: the run is red
    repo.commit(at(10, 12, 1), "outage")
    failed = load_archive(tmp_path / "archive").forecasts
    assert Counter(f.status for f in failed) == {ForecastStatus.API_ERROR: 72}
    server.mode = ""
    capsys.readouterr()
    assert tick(tmp_path, data_dir, "2026-06-10T12:15:00Z") == 0
    assert "retried 72" in capsys.readouterr().out
    repo.commit(at(10, 12, 16), "recovered")
    archive = load_archive(tmp_path / "archive")
    assert archive.problems == []
    assert Counter(f.status for f in archive.forecasts) == {ForecastStatus.VALID: 72}  # one effective record per key
    assert {(f.revision, f.supersedes is not None) for f in archive.forecasts} == {(1, True)}
    assert {f.supersedes for f in archive.forecasts} == {path_for(f) for f in failed}
    assert len(archive.superseded) == 72 and all(f.status is ForecastStatus.API_ERROR for f in archive.superseded)
    assert tick(tmp_path, data_dir, "2026-06-10T12:30:00Z") == 0  # a valid answer is final
    assert "retried 0" in capsys.readouterr().out
    scores = score_archive(load_archive(tmp_path / "archive"))
    (row,) = [r for r in scores.operations if r.forecaster == "test.model"]
    assert row.scheduled == 144 and row.statuses == {"api_error": 72, "valid": 72}  # failed attempts still count
    assert main(["verify", "--repo", str(tmp_path)]) == 0
    assert builder_main(["build", "--archive", str(tmp_path / "archive"), "--out", str(tmp_path / "site"),
                         "--strict"]) == 0  # fmt: skip


def test_superseding_an_answer_is_refused_by_the_reader_and_reported_by_verify(tmp_path, capsys):
    repo = GitRepo(tmp_path / "repo")
    original = forecast("elo")
    repo.tick(at(1), event(), original)
    better = forecast("elo", requested_at=KICKOFF - timedelta(hours=23), revision=1, supersedes=path_for(original),
                      payload=original.payload.model_copy(update={"home_win_90": 0.6, "draw_90": 0.2}))
    repo.tick(at(2), better)
    archive = load_archive(repo.archive)
    assert archive.forecasts == [original]  # the model's own answer stands
    assert any("only transport failures (api_error, timeout) may be retried" in p.message for p in archive.problems)
    assert main(["verify", "--repo", str(repo.root)]) == 1
    err = capsys.readouterr().err
    assert f"problem: {path_for(better)}: supersession: supersedes {path_for(original)} (forecast valid)" in err


@pytest.mark.slow
def test_retries_back_off_so_an_outage_costs_a_few_records_per_key(tmp_path, data_dir, server, capsys):
    server.mode = "status:503"
    for minute in (0, 15, 30, 45, 60, 75, 90, 105, 120):  # two hours of a cron every 15 minutes, all failing
        tick(tmp_path, data_dir, f"2026-06-10T{12 + minute // 60}:{minute % 60:02d}:00Z")
    archive = load_archive(tmp_path / "archive")
    revisions = Counter(f.revision for f in archive.records.values() if f.kind == "forecast")
    # waits of 10, 20, 40, 80 minutes: retried at 12:15, 12:45 (12:35 due), 13:30 (13:25 due); 14:50 is later
    assert revisions == {0: 72, 1: 72, 2: 72, 3: 72}
    assert {f.revision for f in archive.forecasts} == {3} and len(archive.superseded) == 216


def test_guard_refuses_a_pull_request_that_supersedes_an_answer(tmp_path, capsys):
    repo = GitRepo(tmp_path / "repo")
    original = forecast("elo")
    failed = forecast("uniform", status=ForecastStatus.API_ERROR, payload=None, model_version="u-1")
    repo.tick(at(1), event(), original, failed)
    repo.git("checkout", "-q", "-b", "pr")
    payload = original.payload.model_copy(update={"home_win_90": 0.6, "draw_90": 0.2})
    later = KICKOFF - timedelta(hours=23)
    repo.tick(at(2), forecast("elo", requested_at=later, revision=1, supersedes=path_for(original), payload=payload),
              forecast("uniform", requested_at=later, revision=1, supersedes=path_for(failed), model_version="u-1"))
    assert main(["guard", "--repo", str(repo.root), "--base", "main"]) == 1
    err = capsys.readouterr().err
    assert f"supersedes archive/{path_for(original)} (valid); only a transport failure" in err
    assert "uniform" not in err  # retrying the api_error is allowed
