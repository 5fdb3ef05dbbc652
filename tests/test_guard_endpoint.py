"""The guard refuses a pull request that adds forecasts of an endpoint forecaster (issue 56): an agent's
records come only from the arena's tick, asked in its window and committed in its manifest."""

from __future__ import annotations

import pytest

from collector.cli import main
from collector.records import ForecasterType
from tests.gitrepo import GitRepo, at, event, forecast

AGENT_TABLE = """
[[forecasters]]
id = "{id}"
type = "endpoint"
endpoint = {{ url = "https://agent.example/forecast" }}
"""


@pytest.fixture
def repo(tmp_path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event(), forecast("elo"))
    (repo.root / "prematch.toml").write_text('[arena]\ncompetitions = ["worldcup-2026"]\n')
    repo.git("add", "prematch.toml")
    repo.commit(at(1, 13), "config")
    repo.git("checkout", "-q", "-b", "pr")
    return repo


def guard(repo: GitRepo) -> int:
    return main(["guard", "--repo", str(repo.root), "--base", "main"])


def test_a_forecast_of_type_endpoint_added_by_a_pull_request_is_refused(repo, capsys):
    repo.tick(at(2), forecast("my-agent", forecaster_type=ForecasterType.ENDPOINT, model_version="a-1"))
    assert guard(repo) == 1
    err = capsys.readouterr().err
    assert "endpoint forecaster my-agent" in err and "only from the arena's tick" in err


@pytest.mark.parametrize("configured_in", ["base", "head"])
def test_a_forecast_claiming_another_type_for_a_configured_agent_is_refused(repo, capsys, configured_in):
    if configured_in == "base":  # the agent is on main already; the PR forges its records as a baseline
        repo.git("checkout", "-q", "main")
    with open(repo.root / "prematch.toml", "a") as handle:
        handle.write(AGENT_TABLE.format(id="their-agent"))
    repo.git("add", "prematch.toml")
    repo.commit(at(1, 14), "the agent enters")
    if configured_in == "base":
        repo.git("checkout", "-q", "pr")
        repo.git("merge", "-q", "main")
    repo.tick(at(2), forecast("their-agent", model_version="b-1"))  # forecaster_type baseline, by its own word
    assert guard(repo) == 1
    assert "endpoint forecaster their-agent" in capsys.readouterr().err


def test_other_forecasts_still_pass(repo, capsys):
    with open(repo.root / "prematch.toml", "a") as handle:
        handle.write(AGENT_TABLE.format(id="their-agent"))
    repo.git("add", "prematch.toml")
    repo.commit(at(1, 14), "the agent enters")
    repo.tick(at(2), forecast("uniform", model_version="u-1"))
    assert guard(repo) == 0, capsys.readouterr().err
