"""The five-minute quick start of the README and docs/quickstart.md: one configuration in both, valid,
and its commands run as written (against the local OpenRouter server of the tests) print what the
quick start shows."""

from __future__ import annotations

import re
import shlex
import textwrap
from pathlib import Path

import pytest

from builder.cli import main as builder
from collector.cli import main as collector
from collector.config import parse_config, read_toml

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
QUICKSTART = (ROOT / "docs" / "quickstart.md").read_text(encoding="utf-8")


def _heredoc(text: str) -> str:
    """The quick start's prematch.toml: the lines between ``<<'TOML'`` and ``TOML``, unindented."""
    block = re.search(r"<<'TOML'\n(.*?)\n\s*TOML\n", text, re.S)
    assert block, "no prematch.toml here-document"
    return textwrap.dedent(block.group(1)) + "\n"


def _commands(text: str) -> list[list[str]]:
    return [shlex.split(line.strip()) for line in text.splitlines() if line.strip().startswith("prematch ")]


def test_the_readme_and_the_docs_give_one_valid_configuration_and_the_same_commands(tmp_path):
    assert _heredoc(README) == _heredoc(QUICKSTART)
    (tmp_path / "prematch.toml").write_text(_heredoc(README), encoding="utf-8")
    config = parse_config(read_toml(tmp_path / "prematch.toml", "the arena configuration"), "prematch.toml")
    assert [f.type for f in config.forecasters] == ["llm", "baseline"]
    assert _commands(README) == _commands(QUICKSTART)
    assert [c[:2] for c in _commands(README)] == [["prematch", "tick"], ["prematch", "tick"], ["prematch", "build"]]


def _shown_output() -> list[str]:
    """The tick output docs/quickstart.md shows, without the lines that change from run to run."""
    block = QUICKSTART.split("The ticks print", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    return [line.strip() for line in block.splitlines() if "manifest:" not in line and line.strip()]


def _comparable(line: str) -> str:
    return re.sub(r"spent [0-9.]+ USD", "spent USD", line)


@pytest.mark.slow
def test_the_quick_start_runs_as_written_and_prints_what_it_shows(tmp_path, data_dir, server, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PREMATCH_DATA_DIR", str(data_dir))
    (tmp_path / "prematch.toml").write_text(_heredoc(README), encoding="utf-8")
    printed = []
    for command in _commands(README):
        run = collector if command[1] == "tick" else builder
        assert run(command[1:]) == 0, command
        printed += capsys.readouterr().out.splitlines()
    ticks = [line.strip() for line in printed if line.startswith(("tick ", "  ")) and "manifest:" not in line]
    shown = _shown_output()
    assert [_comparable(line) for line in ticks[:len(shown)]] == [_comparable(line) for line in shown]
    built = re.search(r"and the build ends with `(built \d+ pages \(\d+ files\) into site)`", QUICKSTART)
    assert built and built.group(1) in printed, [line for line in printed if line.startswith("built")]
