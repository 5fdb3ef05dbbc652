"""A tick degrades per forecaster: a model the models API rejects sits out, everything else runs.

Through the real ``tick`` command on the 2026 World Cup fixtures, against ``tests/fake_openrouter.py``
whose ``GET /api/v1/models`` lists what each test sets (collector/schedule/model_check.py).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from collector.records import ForecastStatus
from collector.schedule.model_check import MISSED_PREFIX
from tests.collection_helpers import TEST_LLM
from tests.fake_openrouter import TEST_MODELS, model_entry, recorded

NOW = "2026-06-10T12:00:00Z"  # the group stage's stage-opening window is open: 72 matches
ARENA = ('arena = { competitions = ["worldcup-2026"], access = ["closed_book"], '
         'strategies = ["probabilistic_forecast"], questions = false, concurrency = 8 }\n')
CONFIG = ARENA + TEST_LLM + """
[[forecasters]]
id = "gone.model"
type = "llm"
model = "gone/model"
version = "gone/model@1"
[[forecasters]]
id = "old.model"
type = "llm"
model = "old/model"
version = "old/model@1"
[[forecasters]]
id = "uniform"
type = "baseline"
"""
OLD_PARAMETERS = ["max_tokens", "reasoning", "response_format", "structured_outputs", "temperature", "tools"]


def models(*entries: dict) -> tuple[int, dict]:
    data = recorded("models.json")
    data["data"] += list(entries)
    return 200, data


def tick(tmp_path: Path, data_dir: Path) -> int:
    config = tmp_path / "arena.toml"
    config.write_text(CONFIG)
    return main(["tick", "--now", NOW, "--config", str(config), "--archive", str(tmp_path / "archive"),
                 "--data-dir", str(data_dir)])  # fmt: skip


@pytest.mark.slow
def test_a_rejected_model_is_recorded_missed_and_named_while_everything_else_runs(tmp_path, data_dir, server, capsys):
    server.httpd.models = models(
        model_entry("test/model", "test/model@1"),
        model_entry("gone/model", "gone/model@1", expires="2026-05-31"),  # expired before the tick
        model_entry("old/model", "old/model@1", parameters=OLD_PARAMETERS),  # takes max_tokens only
    )
    assert tick(tmp_path, data_dir) == 1
    err = capsys.readouterr().err
    assert ("problem: arena.toml: gone.model: model gone/model: expired on 2026-05-31; skipped this tick, "
            "its due forecasts recorded as missed") in err.replace(str(tmp_path) + "/", "")
    assert err.count("problem: ") == 1  # the one rejected model is the only problem

    archive = load_archive(tmp_path / "archive")
    by = Counter((f.forecaster, f.status) for f in archive.forecasts)
    assert by == {("test.model", ForecastStatus.VALID): 72, ("old.model", ForecastStatus.VALID): 72,
                  ("gone.model", ForecastStatus.MISSED): 72, ("uniform", ForecastStatus.VALID): 73}  # fmt: skip (and its full tournament)
    gone = [f for f in archive.forecasts if f.forecaster == "gone.model"]
    assert all(f.validation.errors == (MISSED_PREFIX + "expired on 2026-05-31",) and not f.attempts for f in gone)
    assert archive.events and len(archive.manifests) == 1  # fixtures and the manifest, as in any tick
    missed = [p for p in archive.records if "/forecasts/gone.model/" in p]
    assert len(missed) == 72 and set(missed) <= set(archive.manifests[0].files)  # the manifest lists them

    bodies = {}
    for seen in server.seen:
        bodies.setdefault(seen["body"]["model"], []).append(seen["body"])
    assert set(bodies) == {"test/model", "old/model"}  # nothing was asked of the rejected model
    assert all("max_completion_tokens" in b and "max_tokens" not in b for b in bodies["test/model"])
    assert all("max_tokens" in b and "max_completion_tokens" not in b for b in bodies["old/model"])


@pytest.mark.slow
def test_a_models_api_that_fails_leaves_the_llms_unasked_and_the_rest_running(tmp_path, data_dir, server, capsys):
    server.httpd.models = (503, {"error": {"code": 503, "message": "unavailable"}})
    assert tick(tmp_path, data_dir) == 1
    err = capsys.readouterr().err
    assert ("problem: GET /api/v1/models: HTTP 503: no LLM could be checked, so none was asked this tick "
            "(gone.model, old.model, test.model)") in err
    archive = load_archive(tmp_path / "archive")
    assert {f.forecaster for f in archive.forecasts} == {"uniform"} and archive.manifests
    assert server.seen == []


def test_the_models_list_is_read_whole_whatever_the_cap_on_answers(server):
    """The models list is megabytes live; the cap that cuts an oversized completion must not cut it."""
    import asyncio
    from datetime import UTC, datetime, timedelta

    from collector.config import OpenRouterSettings
    from collector.forecasters.llm.openrouter import OpenRouterClient

    async def ask():
        client = OpenRouterClient("k", server.base_url, settings=OpenRouterSettings(max_response_bytes=1024))
        try:
            return await client.models(deadline=datetime.now(UTC) + timedelta(seconds=30))
        finally:
            await client.aclose()

    status, payload = asyncio.run(ask())
    assert status == 200 and len(payload["data"]) == len(recorded("models.json")["data"]) + len(TEST_MODELS)


@pytest.mark.slow
def test_a_retry_of_a_rejected_model_is_left_for_a_later_tick_not_recorded_missed(tmp_path, data_dir, server,
                                                                                  capsys):
    """A transport failure's retry keeps the failed record while the model is rejected (a missed record would end it)."""
    config = tmp_path / "arena.toml"
    config.write_text(ARENA + TEST_LLM)
    run = ["tick", "--config", str(config), "--archive", str(tmp_path / "archive"), "--data-dir", str(data_dir)]
    server.mode = "status:500"
    assert main([*run, "--now", NOW]) == 1  # every call fails: api_error records, retried from 10 minutes on
    failed = {p for p in load_archive(tmp_path / "archive").records if "/forecasts/test.model/" in p}
    server.mode = ""
    server.httpd.models = models(model_entry("test/model", "test/model@1", expires="2026-05-31"))
    capsys.readouterr()
    assert main([*run, "--now", "2026-06-10T12:30:00Z"]) == 1
    assert "forecasts due 0, produced 0, missed 0, deferred 0, already claimed 0" in capsys.readouterr().out
    archive = load_archive(tmp_path / "archive")
    after = {p for p in archive.records if "/forecasts/test.model/" in p}
    assert after == failed and len(failed) == 72  # nothing new: neither asked nor recorded missed
    assert {f.status for f in archive.forecasts} == {ForecastStatus.API_ERROR}
