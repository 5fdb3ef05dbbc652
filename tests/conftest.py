"""Shared test fixtures: the real data folder (read at run time, never copied) and temp archives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def shared_data_dir() -> Path | None:
    """``PREMATCH_DATA_DIR`` if set, else ``../shared/data`` beside the checkout, if present."""
    env = os.environ.get("PREMATCH_DATA_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(REPO_ROOT.parent / "shared" / "data")
    for candidate in candidates:
        if (candidate / "openfootball").is_dir():
            return candidate.resolve()
    return None


NO_DATA = "no shared data folder; set PREMATCH_DATA_DIR"
"""The skip reason of every test that needs the data folder (counted in the run's summary)."""
REQUIRE_DATA_ENV = "PREMATCH_REQUIRE_DATA"
"""Set (to anything but empty or 0) by ``.ci/run``: a test that needs the data fails without it."""


def data_required() -> bool:
    return os.environ.get(REQUIRE_DATA_ENV, "") not in ("", "0") or bool(os.environ.get("CI"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    found = shared_data_dir()
    if found is None:
        if data_required():
            pytest.fail(f"the shared data folder is missing ({REQUIRE_DATA_ENV} or CI is set); set PREMATCH_DATA_DIR")
        pytest.skip(NO_DATA)
    return found


def _skipped_for_data(terminalreporter) -> int:
    return sum(1 for report in terminalreporter.stats.get("skipped", ())
               if isinstance(report.longrepr, tuple) and NO_DATA in str(report.longrepr[2]))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """One line when tests were skipped for want of the data folder: a green run without it tested less."""
    skipped = _skipped_for_data(terminalreporter)
    if skipped:
        terminalreporter.write_line(
            f"{skipped} test(s) that need the football data were SKIPPED: no data folder "
            f"(set PREMATCH_DATA_DIR, or put it at ../shared/data; docs/data.md)", yellow=True, bold=True)


def pytest_sessionfinish(session, exitstatus):
    """Where the data is required (``PREMATCH_REQUIRE_DATA``, CI), a run with data skips fails."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if data_required() and reporter is not None and _skipped_for_data(reporter) and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def archive_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "archive"
    folder.mkdir()
    return folder


@pytest.fixture(autouse=True)
def _package_definitions_only():
    """A command's --config adds a fork's competitions folder for the process; each test starts without."""
    from collector.competitions.loader import use_definitions_dir

    use_definitions_dir(None)
    yield
    use_definitions_dir(None)


@pytest.fixture(autouse=True)
def _secrets_of_this_test_only():
    """Secrets registered by a client (``collector.redaction.register_secret``) live for the process;
    each test starts with none and leaves none, so what is redacted never depends on test order."""
    from collector import redaction

    saved = set(redaction._registered)
    redaction._registered.clear()
    yield
    redaction._registered.clear()
    redaction._registered.update(saved)


@pytest.fixture
def server(monkeypatch):
    """A local server speaking OpenRouter's format (tests/fake_openrouter.py), with the client's
    environment pointed at it and a fake key (every request's Authorization carries it)."""
    from tests.collection_helpers import FAKE_KEY
    from tests.fake_openrouter import FakeOpenRouter

    with FakeOpenRouter() as fake:
        monkeypatch.setenv("OPENROUTER_API_KEY", FAKE_KEY)
        monkeypatch.setenv("OPENROUTER_BASE_URL", fake.base_url)
        yield fake


@pytest.fixture(scope="session")
def worldcup_replay(data_dir, tmp_path_factory) -> Path:
    """The whole 2026 World Cup replayed with four baselines, squad_form (fine-grained) among
    them: a repository whose ``archive/`` every forecast, outcome, report and question is in.
    Made once per test session (several modules read it; none writes to it)."""
    from collector.cli import main

    out = tmp_path_factory.mktemp("worldcup-replay") / "replay"
    code = main(["replay", "worldcup-2026", "--out", str(out), "--data-dir", str(data_dir),
                 "--baselines", "uniform,base_rate,elo,squad_form"])
    assert code == 0
    return out


@pytest.fixture(scope="session")
def worldcup_scored(worldcup_replay):
    """:func:`worldcup_replay`'s archive loaded and scored once (no significance tests): (archive, scores)."""
    from builder.score.scoring import score_archive
    from collector.archive.reader import load_archive

    archive = load_archive(worldcup_replay / "archive")
    return archive, score_archive(archive, inference_tests=False)


@pytest.fixture(scope="session")
def worldcup_site(worldcup_replay, tmp_path_factory) -> Path:
    """:func:`worldcup_replay`'s site, built once by ``prematch build`` without a cache (read only)."""
    from builder.cli import main

    out = tmp_path_factory.mktemp("worldcup-site") / "site"
    assert main(["build", "--archive", str(worldcup_replay / "archive"), "--out", str(out), "--no-cache",
                 "--quiet"]) == 0
    return out
