"""The test lanes: `pytest` alone leaves out the tests marked slow or browser (the full suite is
`pytest -m ""`, as `.ci/run` runs it); every test that drives chromium is marked browser; a run
says in one line how many tests were skipped for want of the data folder, and fails for it where
the data is required (PREMATCH_REQUIRE_DATA, set by .ci/run)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CONFTEST = """
import tests.conftest as shared
shared.shared_data_dir = lambda: None  # as on a machine without the data folder
from tests.conftest import *  # noqa: F403 - the fixtures and hooks under test
from tests.conftest import pytest_sessionfinish, pytest_terminal_summary  # noqa: F401
"""

TESTS = """
import pytest
from tests.conftest import NO_DATA


def test_needs_the_data(data_dir):
    assert data_dir


def test_skips_itself_for_the_data():
    pytest.skip(NO_DATA)


def test_needs_nothing():
    assert True
"""


def _run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_inner.py").write_text(TESTS)
    environ = {k: v for k, v in os.environ.items() if k not in ("CI", "PREMATCH_REQUIRE_DATA", "PYTEST_ADDOPTS")}
    environ.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir", str(tmp_path),
                           str(tmp_path)], cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_a_run_without_the_data_says_how_many_tests_it_skipped(tmp_path):
    done = _run(tmp_path)
    assert done.returncode == 0, done.stdout
    assert "2 test(s) that need the football data were SKIPPED" in done.stdout
    assert "1 passed, 2 skipped" in done.stdout


@pytest.mark.slow
def test_where_the_data_is_required_its_absence_fails_the_run(tmp_path):
    done = _run(tmp_path, PREMATCH_REQUIRE_DATA="1")
    assert done.returncode == 1, done.stdout
    assert "the shared data folder is missing" in done.stdout  # the fixture fails
    assert "1 test(s) that need the football data were SKIPPED" in done.stdout  # the test that skips itself
    assert "1 failed" in done.stdout or "1 error" in done.stdout


def test_the_default_lane_leaves_out_slow_and_browser_tests():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert '-m "not slow and not browser"' in options["addopts"]
    assert 'python -m pytest -m ""' in (ROOT / ".ci" / "run").read_text()
    assert "PREMATCH_REQUIRE_DATA=1" in (ROOT / ".ci" / "run").read_text()


def _marked(decorators: list[ast.expr], mark: str) -> bool:
    return any(mark in ast.unparse(d) for d in decorators)


def test_every_test_that_drives_chromium_is_marked_browser():
    unmarked = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_marked = any(isinstance(node, ast.Assign) and "pytestmark" in ast.unparse(node.targets[0])
                            and "browser" in ast.unparse(node.value) for node in tree.body)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                drives = any(isinstance(n, ast.Name) and n.id in ("launched_chromium", "require_chromium")
                             for n in ast.walk(node))
                if drives and not module_marked and not _marked(node.decorator_list, "browser"):
                    unmarked.append(f"{path.name}::{node.name}")
    assert unmarked == []
