"""A first run cannot mislead: without the data, the README's first command fails in one line and makes nothing.

The README's first command is read from the README itself and run as a user would (its
Python replaced by this interpreter), with no data folder and no network: every proxy
variable points at a closed port on 127.0.0.1, so no download can succeed even where the
machine has network.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from collector.cli import main

ROOT = Path(__file__).resolve().parents[1]


def readme_first_command() -> list[str]:
    """The command the README's set-up block runs after installing: ``python -m collector demo ...``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block, "the README starts with a bash block of set-up commands"
    first = block.group(1).splitlines()[0]
    command = shlex.split(first.split("&&")[-1])
    assert command[:3] == [".venv/bin/python", "-m", "collector"], first
    return [sys.executable, *command[1:]]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again when the socket is: connections are refused


def offline_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.upper() not in {"PREMATCH_DATA_DIR", "NO_PROXY"}}
    proxy = f"http://127.0.0.1:{closed_port()}"
    env.update(HTTPS_PROXY=proxy, HTTP_PROXY=proxy, ALL_PROXY=proxy, https_proxy=proxy, http_proxy=proxy,
               all_proxy=proxy, no_proxy="", PYTHONPATH=str(ROOT))
    return env


@pytest.mark.slow
def test_readme_first_command_without_data_or_network_fails_in_one_line(tmp_path):
    command = readme_first_command()
    done = subprocess.run(command, cwd=tmp_path, env=offline_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    line = lines[0]
    assert line.startswith("problem: cannot read the fixtures of worldcup-2026: https://raw.githubusercontent.com/")
    assert "download failed" in line
    assert "connect to the internet" in line and "--data-dir DIR" in line and "PREMATCH_DATA_DIR=DIR" in line
    out = command[command.index("--out") + 1]
    assert not (tmp_path / out).exists()  # nothing made: the corrected command can use the same --out


def test_replay_with_a_data_folder_that_lacks_the_data_leaves_nothing(tmp_path, capsys):
    empty = tmp_path / "data"
    empty.mkdir()
    out = tmp_path / "wc"
    assert main(["replay", "worldcup-2026", "--out", str(out), "--data-dir", str(empty)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert f"{empty}/openfootball/worldcup-2026/worldcup.json: cannot read data file" in captured.err
    assert "--data-dir (or PREMATCH_DATA_DIR) must name a folder laid out as in docs/data.md" in captured.err
    assert not out.exists()


def test_replay_without_the_baselines_results_names_that_file(tmp_path, data_dir, capsys):
    partial = tmp_path / "data" / "openfootball"
    partial.mkdir(parents=True)
    (partial / "worldcup-2026").symlink_to(data_dir / "openfootball" / "worldcup-2026")
    out = tmp_path / "wc"
    out.mkdir()  # an empty folder given as --out stays, empty
    assert main(["demo", "--out", str(out), "--data-dir", str(tmp_path / "data")]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "cannot read the results the baselines of worldcup-2026 fit on" in captured.err
    assert "international-results/results.csv: cannot read data file" in captured.err
    assert out.is_dir() and not any(out.iterdir())


@pytest.mark.slow
def test_a_mistyped_replay_leaves_nothing_and_the_corrected_one_runs(tmp_path, data_dir, capsys):
    out = tmp_path / "wc"
    assert main(["replay", "worldcup-2026", "--out", str(out), "--data-dir", str(data_dir),
                 "--baselines", "elo,dixn_coles"]) == 2
    assert "--baselines: unknown dixn_coles" in capsys.readouterr().err
    assert not out.exists()
    assert main(["replay", "worldcup-2026", "--out", str(out), "--data-dir", str(data_dir),
                 "--baselines", "elo", "--until", "2026-06-01T00:00Z"]) == 0
    assert (out / ".git").is_dir()


def test_a_replay_that_fails_midway_removes_its_folder(tmp_path, data_dir, monkeypatch):
    import collector.schedule.replay as replay_module

    def broken_tick(*args, **kwargs):
        raise RuntimeError("the machine went away")

    monkeypatch.setattr(replay_module, "run_tick", broken_tick)
    out = tmp_path / "demo"
    with pytest.raises(RuntimeError, match="went away"):
        main(["demo", "--out", str(out), "--data-dir", str(data_dir)])
    assert not out.exists()


def test_tick_without_any_readable_source_writes_nothing_and_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    empty = tmp_path / "data"
    empty.mkdir()
    archive = tmp_path / "archive"
    code = main(["tick", "--config", str(ROOT / "prematch.toml"), "--archive", str(archive), "--data-dir", str(empty),
                 "--now", "2026-06-10T12:00Z"])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("problem: cannot read the fixtures of any followed competition (worldcup-2026, ")
    assert f"{empty}/openfootball/worldcup-2026/worldcup.json: cannot read data file" in captured.err
    assert not archive.exists()  # no competition records, no manifest that would look like a pass


@pytest.mark.slow
def test_tick_with_one_readable_source_goes_on_and_reports_the_other(tmp_path, data_dir, capsys, monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    partial = tmp_path / "data" / "openfootball"
    partial.mkdir(parents=True)
    (partial / "worldcup-2026").symlink_to(data_dir / "openfootball" / "worldcup-2026")
    (tmp_path / "data" / "international-results").symlink_to(data_dir / "international-results")
    config = tmp_path / "arena.toml"
    config.write_text('[arena]\ncompetitions = ["worldcup-2026", "en-1-2025-26"]\n'
                      '[[forecasters]]\nid = "uniform"\ntype = "baseline"\n')
    archive = tmp_path / "archive"
    code = main(["tick", "--config", str(config), "--archive", str(archive), "--data-dir", str(tmp_path / "data"),
                 "--now", "2026-06-01T00:00Z"])
    captured = capsys.readouterr()
    assert code == 1 and "en.1.json: cannot read data file" in captured.err
    assert (archive / "worldcup-2026" / "competition.r000.json").exists()  # the readable one was synced
