"""DataSource: the local data folder, the environment variable, and downloads via collector.http."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import respx

from collector.datasource import (
    ENV_VAR,
    PUBLIC_FILES,
    RAW_GITHUB,
    DataSource,
    run_blocking,
)
from collector.errors import SourceError

RESULTS = "international-results/results.csv"


def test_reads_the_local_folder_by_relative_name(data_dir):
    head = DataSource(data_dir).read_bytes(RESULTS)[:40]
    assert head.startswith(b"date,home_team,away_team,home_score")


def test_environment_variable_names_the_folder(data_dir, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(data_dir))
    source = DataSource()
    assert source.data_dir == data_dir and source.read_bytes("openfootball/worldcup-2026/worldcup.json")[:1] == b"{"


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(SourceError, match="openfootball/leagues-2025-26/xx.1.json: cannot read"):
        DataSource(tmp_path).read_bytes("openfootball/leagues-2025-26/xx.1.json")


@pytest.mark.parametrize("name", ["../secrets.txt", "/etc/passwd", "a/../../b"])
def test_names_outside_the_folder_are_refused(tmp_path, name):
    with pytest.raises(SourceError, match="relative paths inside the data folder"):
        DataSource(tmp_path).read_bytes(name)


@respx.mock
def test_downloads_public_files_once(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    route = respx.get(RAW_GITHUB + PUBLIC_FILES[RESULTS]).mock(return_value=httpx.Response(200, content=b"date,x\n"))
    source = DataSource()
    assert source.read_bytes(RESULTS) == b"date,x\n" and source.read_bytes(RESULTS) == b"date,x\n"
    assert route.call_count == 1
    assert source.describe(RESULTS) == "https://raw.githubusercontent.com/martj42/international_results/master/results.csv"


@respx.mock
def test_download_failure_is_a_source_error(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    respx.get(RAW_GITHUB + PUBLIC_FILES[RESULTS]).mock(return_value=httpx.Response(404, text="Not Found"))
    with pytest.raises(SourceError, match="download failed.*HTTP 404"):
        DataSource().read_bytes(RESULTS)
    with pytest.raises(SourceError, match="no public URL"):
        DataSource().read_bytes("openfootball/elsewhere.json")


def test_run_blocking_works_inside_a_running_event_loop():
    async def inner():
        await asyncio.sleep(0)
        return 42

    async def outer():
        return run_blocking(inner())  # e.g. sync_fixtures called from the async tick

    assert run_blocking(inner()) == 42 and asyncio.run(outer()) == 42
