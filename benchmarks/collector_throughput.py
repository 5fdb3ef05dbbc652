"""Throughput of one full tick against an instant local OpenRouter-format server (127.0.0.1).

Usage: python benchmarks/collector_throughput.py [--data-dir DIR] [--forecasters N] [--concurrency C]

First a tick registers the 2026 World Cup fixtures and questions (no forecasters), then a
full tick (sync, due forecasts, outcomes, manifest) runs with N LLM forecasters at
concurrency C. Prints forecasts per second over the whole second tick, the share of the
200 forecasts/s aim, and the peak resident memory of the process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from collector.config import parse_config  # noqa: E402
from collector.schedule.tick import run_tick  # noqa: E402
from tests.conftest import shared_data_dir  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


@contextmanager
def local_server():
    """The fake OpenRouter server in its own process (so it does not share our interpreter lock)."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.fake_openrouter"], cwd=REPO, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)

AIM = 200.0


def config(forecasters: int, concurrency: int):
    return parse_config(
        {
            "arena": {"competitions": ["worldcup-2026"], "concurrency": concurrency, "spending_cap_usd": 1e6},
            "openrouter": {"max_attempts": 1},
            "forecasters": [
                {"id": f"bench.m{i}", "type": "llm", "model": f"bench/m{i}", "version": f"bench/m{i}@1"}
                for i in range(forecasters)
            ],
        },
        "benchmark",
    )


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def raw_rate(base_url: str, n: int, concurrency: int) -> float:
    """Requests per second of bare httpx POSTs (a forecast-sized body), the harness's own ceiling."""
    body = {"model": "bench/m0", "messages": [{"role": "user", "content": "Is knockout match: no. " * 150}]}

    async def run() -> float:
        gate = asyncio.Semaphore(concurrency)
        async with httpx.AsyncClient(base_url=base_url, limits=httpx.Limits(max_connections=concurrency)) as client:
            async def one() -> None:
                async with gate:
                    response = await client.post("/chat/completions", json=body)
                    await response.aread()

            start = time.perf_counter()
            await asyncio.gather(*(one() for _ in range(n)))
            return n / (time.perf_counter() - start)

    return asyncio.run(run())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=shared_data_dir(), help="shared data folder")
    parser.add_argument("--forecasters", type=int, default=4, help="LLM forecasters (4 cells each)")
    parser.add_argument("--concurrency", type=int, default=16, help="forecasts in flight")
    args = parser.parse_args()
    now = datetime(2026, 6, 10, 12, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as tmp, local_server() as base_url:
        os.environ["OPENROUTER_API_KEY"] = "sk-or-v1-benchmark"
        os.environ["OPENROUTER_BASE_URL"] = base_url
        root = Path(tmp) / "archive"
        t0 = time.perf_counter()
        run_tick(config(0, args.concurrency), root, now, args.data_dir, forecasters=[])
        t1, c1 = time.perf_counter(), cpu_seconds()
        report = run_tick(config(args.forecasters, args.concurrency), root, now, args.data_dir)
        t2, c2 = time.perf_counter(), cpu_seconds()
        c3 = cpu_seconds()
        ceiling = raw_rate(base_url, report.produced, args.concurrency)
        bare_cpu_ms = 1000 * (cpu_seconds() - c3) / report.produced
    rate = report.produced / (t2 - t1)
    phase_rate = report.produced / report.seconds["forecasts"]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"registration tick: {t1 - t0:.2f} s")
    print(f"forecast tick: {report.produced} forecasts ({dict(report.statuses)}) in {t2 - t1:.2f} s "
          f"at concurrency {args.concurrency}")
    print("phases (s): " + ", ".join(f"{k} {v:.2f}" for k, v in report.seconds.items()))
    print(f"forecasts per second, whole tick: {rate:.0f} ({rate / AIM:.2f} x the aim of {AIM:.0f}/s)")
    print(f"forecasts per second, forecast phase: {phase_rate:.0f} ({phase_rate / AIM:.2f} x the aim)")
    print(f"CPU time of this process per forecast: {1000 * (c2 - c1) / report.produced:.2f} ms "
          f"(forecasts per CPU-second: {report.produced / (c2 - c1):.0f})")
    print(f"CPU time per bare httpx POST: {bare_cpu_ms:.2f} ms, so Prematch's own share per forecast is "
          f"{1000 * (c2 - c1) / report.produced - bare_cpu_ms:.2f} ms")
    print(f"bare httpx POSTs to the same server, same concurrency: {ceiling:.0f}/s; "
          f"forecast phase / bare = {phase_rate / ceiling:.2f}")
    print(f"peak resident memory: {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
