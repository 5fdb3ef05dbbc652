"""Benchmark: what the evidence packages add to a tick (issue 17).

The stage-opening tick of the 2026 World Cup (72 group matches, questions off) against the local
OpenRouter-format server, once with one LLM under closed book only and once with the same LLM
under closed book and ``evidence_package`` with a news gatherer (72 packages, 72 gatherer calls,
twice the forecasts: three times the calls). Prints both wall-clock times, their ratio, and the
cost per package; both are warmed up first (fixture files and results.csv are parsed once per process).

    PREMATCH_DATA_DIR=../shared/data python benchmarks/evidence_tick.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from collector.config import parse_config  # noqa: E402
from collector.records import Clock  # noqa: E402
from collector.schedule.tick import run_tick  # noqa: E402
from tests.fake_openrouter import FakeOpenRouter  # noqa: E402

NOW = datetime(2026, 6, 10, 12, tzinfo=UTC)


def arena(evidence: bool):
    access = ["closed_book", "evidence_package"] if evidence else ["closed_book"]
    data = {"arena": {"competitions": ["worldcup-2026"], "access": access, "strategies": ["probabilistic_forecast"],
                      "questions": False, "spending_cap_usd": 100},
            "forecasters": [{"id": "bench.model", "type": "llm", "model": "bench/model", "version": "bench/model@1"}]}
    if evidence:
        data["evidence"] = {"gatherer": {"model": "bench/gatherer", "items": 5}}
    return parse_config(data, "benchmark")


def timed(evidence: bool, data_dir: str) -> tuple[float, object]:
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        report = run_tick(arena(evidence), Path(folder) / "archive", now=NOW, data_dir=data_dir, clock=Clock.REPLAY)
        return time.perf_counter() - start, report


def main() -> int:
    data_dir = os.environ.get("PREMATCH_DATA_DIR", str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    with FakeOpenRouter(record=False) as server:
        os.environ.update(OPENROUTER_API_KEY="sk-bench", OPENROUTER_BASE_URL=server.base_url)
        timed(False, data_dir)  # warm-up: the fixture files parsed once,
        timed(True, data_dir)  # and results.csv (parsed once per process, as in a long replay)
        plain, first = timed(False, data_dir)
        with_evidence, second = timed(True, data_dir)
    print(f"closed book only:           {plain:6.2f} s, {first.produced} forecasts")
    print(f"closed book + evidence:     {with_evidence:6.2f} s, {second.produced} forecasts, "
          f"{second.evidence} packages (each with one gatherer call)")
    print(f"ratio (evidence / plain):   {with_evidence / plain:6.2f}")
    print(f"per package and its extra forecast: {(with_evidence - plain) / max(second.evidence, 1) * 1000:6.1f} ms")
    return 0 if first.ok and second.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
