"""The README's demo, shortened to the opening days of the 2026 World Cup (the full run is minutes)."""

from __future__ import annotations

import pytest

from collector.audit.verify import verify_repository
from collector.cli import main


@pytest.mark.slow
def test_demo_replays_builds_and_verifies(tmp_path, data_dir, capsys):
    out = tmp_path / "prematch-demo"
    code = main(["demo", "--out", str(out), "--data-dir", str(data_dir), "--until", "2026-06-12T00:00Z"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert (out / "site" / "index.html").exists()
    assert "OK: no violations" in printed and "0 live (prospective)" in printed
    assert f"python -m http.server --directory {out / 'site'} 8000" in printed
    report = verify_repository(out)
    forecasts = [f for f in report.files.values() if f.kind == "forecast"]
    assert forecasts and all(f.replay for f in forecasts)
    assert any(f.kind == "outcome" for f in report.files.values())  # the opening match was played and recorded
    # running the demo again with the same --out replaces the previous demo (and only a demo's folder)
    (out / "site" / "stale.txt").write_text("from the first run\n")
    assert main(["demo", "--out", str(out), "--data-dir", str(data_dir), "--until", "2026-06-01T00:00Z"]) == 0
    again = capsys.readouterr().out
    assert again.startswith(f"replacing the previous demo in {out}\n")
    assert (out / "site" / "index.html").exists() and not (out / "site" / "stale.txt").exists()
    assert "OK: no violations" in again


def test_demo_refuses_a_folder_that_is_not_empty(tmp_path, data_dir, capsys):
    (tmp_path / "keep.txt").write_text("mine\n")
    assert main(["demo", "--out", str(tmp_path), "--data-dir", str(data_dir)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "not an empty folder" in captured.err
    assert (tmp_path / "keep.txt").read_text() == "mine\n"
