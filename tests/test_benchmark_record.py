"""benchmarks/record.py: a benchmark's latest run goes into docs/performance.md, replacing only its own block."""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("bench_record", ROOT / "benchmarks" / "record.py")
record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record)

PAGE = "# Performance\n\nIntro.\n\n## Latest runs\n\nOlder text.\n\n## Earlier measurements\n\nKept.\n"
WHEN = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)


def _block(output: str) -> str:
    return record.block("verify_history.py", ["--forecasts", "2000"], output, WHEN, "abc1234", 2, 3.25)


def test_a_first_run_is_added_under_latest_runs_and_a_second_replaces_it():
    first = record.replace_block(PAGE, "verify_history.py", _block("verify: 1.0 s\n"))
    assert first.index("## Latest runs") < first.index("verify: 1.0 s") < first.index("Older text.")
    assert "`python benchmarks/verify_history.py --forecasts 2000` at abc1234, 2026-12-07 08:00 UTC, 2 cores, " \
           "load average 3.2 at the start:" in first
    second = record.replace_block(first, "verify_history.py", _block("verify: 2.0 s\n"))
    assert "verify: 2.0 s" in second and "verify: 1.0 s" not in second
    assert second.count("<!-- latest: verify_history.py -->") == 1
    assert second.replace(_block("verify: 2.0 s\n"), _block("verify: 1.0 s\n")) == first
    other = record.replace_block(second, "scoring.py", record.block("scoring.py", [], "x\n", WHEN, "abc", 2, 1.0))
    assert "verify: 2.0 s" in other and "Kept." in other and other.count("<!-- latest:") == 2


def test_output_with_a_code_fence_stays_inside_its_block():
    text = _block("```\ninner\n```\n")
    assert text.count("````") == 2


def test_the_real_page_has_the_heading_runs_are_added_under():
    assert record.LATEST in (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
