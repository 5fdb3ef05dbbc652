"""Throughput of one full tick against a local OpenRouter-format server (127.0.0.1), instant unless asked.

Usage: python benchmarks/collector_throughput.py [--data-dir DIR] [--forecasters N] [--concurrency C] [--runs R]
                                                [--latency-ms L]

First a tick registers the 2026 World Cup fixtures and questions (no forecasters), then a
full tick (sync, due forecasts, outcomes, manifest) runs with N LLM forecasters at
concurrency C, R times, each on a fresh copy of the registered archive. Each run prints
forecasts per second over the whole tick and over its forecast phase, the share of the
200 forecasts/s aim, bare httpx POSTs to the same server at the same concurrency (measured
just before and just after the tick; the ratio is to their mean), and the forecast phase's
CPU time per forecast split into the tick's own parts (prompt, answer check, record
building, record validation, serialising, secret check, file and fsync, archive view,
locking), the HTTP client (every step of ``ServiceClient.request``, httpx included) and the
rest (event loop, tasks, thread hand-offs). The parts are measured with per-thread CPU clocks
around the functions that do them (a writer thread's work included) during the forecast
phase only; several runs print the spread of the ratio.

The server answers at once by default: the ratio is then the collector's own cost against a
bare POST's (both bound by CPU). ``--latency-ms L`` holds every answer L ms, as a provider's
generation time does (a real LLM answer takes seconds), for both the tick and the bare POSTs:
it shows from what latency on the collector's own cost stops setting the rate.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import collector.archive.write.writer as writer_module  # noqa: E402
import collector.schedule.tick as tick_module  # noqa: E402
from collector.archive.reader import Archive  # noqa: E402
from collector.config import parse_config  # noqa: E402
from collector.forecasters.llm.forecaster import LLMForecaster  # noqa: E402
from collector.forecasters.llm.openrouter import OpenRouterClient  # noqa: E402
from collector.http import ServiceClient  # noqa: E402
from collector.records.base import Contract  # noqa: E402
from collector.schedule.scheduler import KeyLocks  # noqa: E402
from collector.schedule.tick import run_tick  # noqa: E402
from tests.conftest import shared_data_dir  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
AIM = 200.0
PARTS = ("prompt", "HTTP client", "answer check", "record building", "record validation", "serialising",
         "secret check", "file and fsync", "archive view", "locking")  # fmt: skip


@contextmanager
def local_server(latency_ms: float = 0.0):
    """The fake OpenRouter server in its own process (so it does not share our interpreter lock),
    holding each answer ``latency_ms``."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.fake_openrouter", "--latency-ms", str(latency_ms)], cwd=REPO,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


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


class CpuParts:
    """CPU seconds per part of the tick, summed over threads (each call timed with its thread's CPU clock).

    Record validation is every call of a record model's pydantic validator; its time is taken out
    of the part that called it (mostly record building), so no time counts twice.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._active = threading.local()  # the part running in this thread, if any
        self.forecast_phase = 0.0  # process CPU (every thread) of the forecast phase
        self.counting = False  # only during the forecast phase (its writes are awaited inside it)

    def timed(self, part: str, fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            outer, self._active.part = getattr(self._active, "part", None), part
            start = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self._count(part, outer, time.thread_time() - start)
        return inner

    def timed_async(self, part: str, fn):
        """``fn`` (a coroutine function) with the CPU of each of its steps counted to ``part``."""
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            return _TimedSteps(fn(*args, **kwargs), self, part)
        return inner

    def step(self, part: str, run):
        """Run one step of a timed coroutine (``run()``) with ``part`` active; as :meth:`timed`."""
        outer, self._active.part = getattr(self._active, "part", None), part
        start = time.thread_time()
        try:
            return run()
        finally:
            self._count(part, outer, time.thread_time() - start)

    def _count(self, part: str, outer: str | None, seconds: float) -> None:
        self._active.part = outer
        if self.counting:
            self.seconds[part] += seconds
            if outer is not None:  # a part inside another (a view update inside a write): counted once
                self.seconds[outer] -= seconds

    def validated(self, seconds: float) -> None:
        part = getattr(self._active, "part", None)
        if self.counting:
            self.seconds["record validation"] += seconds
            if part is not None:
                self.seconds[part] -= seconds

    def install(self) -> None:
        """Wrap the functions of each part (the benchmark's process only; nothing is changed on disk)."""
        patch = [(LLMForecaster, "_prompt", "prompt"), (LLMForecaster, "_validate", "answer check"),
                 (LLMForecaster, "_record", "record building"), (OpenRouterClient, "_attempt", "record building"),
                 (writer_module, "record_bytes", "serialising"), (writer_module, "contains_secret", "secret check"),
                 (writer_module, "write_new_file", "file and fsync"), (Archive, "add", "archive view"),
                 (KeyLocks, "claim", "locking"), (KeyLocks, "release", "locking")]  # fmt: skip
        for owner, name, part in patch:
            setattr(owner, name, self.timed(part, getattr(owner, name)))
        ServiceClient.request = self.timed_async("HTTP client", ServiceClient.request)
        for model in _models(Contract):
            model.__pydantic_validator__ = _TimedValidator(model.__pydantic_validator__, self)
        phase = tick_module._forecasts

        async def forecasts(*args, **kwargs):
            start, self.counting = cpu_seconds(), True
            try:
                return await phase(*args, **kwargs)
            finally:
                self.forecast_phase += cpu_seconds() - start
                self.counting = False
        tick_module._forecasts = forecasts

    def reset(self) -> None:
        self.seconds.clear()
        self.forecast_phase = 0.0


class _TimedSteps:
    """A coroutine whose every step (from one suspension to the next) runs under :meth:`CpuParts.step`."""

    def __init__(self, coro, parts: CpuParts, part: str):
        self._coro, self._parts, self._part = coro, parts, part

    def __await__(self):
        value, error = None, None
        while True:
            try:
                if error is not None:
                    yielded = self._parts.step(self._part, lambda: self._coro.throw(error))
                else:
                    yielded = self._parts.step(self._part, lambda: self._coro.send(value))
            except StopIteration as stop:
                return stop.value
            try:
                value, error = (yield yielded), None
            except BaseException as exc:  # noqa: BLE001 - handed to the coroutine, as await does
                value, error = None, exc


class _TimedValidator:
    """A record model's pydantic validator, timed: record validation wherever it is called."""

    def __init__(self, inner, parts: CpuParts):
        self._inner, self._parts = inner, parts

    def validate_python(self, *args, **kwargs):
        start = time.thread_time()
        try:
            return self._inner.validate_python(*args, **kwargs)
        finally:
            self._parts.validated(time.thread_time() - start)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def _models(base: type) -> list[type]:
    found = []
    for sub in base.__subclasses__():
        found += [sub, *_models(sub)]
    return list(dict.fromkeys(found))


def raw_rate(base_url: str, n: int, concurrency: int) -> tuple[float, float]:
    """Requests per second of bare httpx POSTs (a forecast-sized body), the harness's own ceiling, and
    the CPU seconds per POST."""
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

    c0 = cpu_seconds()
    rate = asyncio.run(run())
    return rate, (cpu_seconds() - c0) / n


def one_run(args, base_url: str, registered: Path, work: Path, parts: CpuParts) -> float:
    """One forecast tick on a fresh copy of the registered archive; prints its lines, returns the ratio."""
    root = work / "archive"
    shutil.copytree(registered, root)
    before, _ = raw_rate(base_url, 400, args.concurrency)
    parts.reset()
    t1, c1 = time.perf_counter(), cpu_seconds()
    report = run_tick(config(args.forecasters, args.concurrency), root, args.now, args.data_dir,
                      lock_dir=work / "locks")  # fmt: skip
    t2, c2 = time.perf_counter(), cpu_seconds()
    if not report.produced:  # e.g. no data folder: the registration tick found no fixtures to forecast
        problems = "; ".join(f"{p.path}: {p.message}" for p in report.problems) or "no problem reported"
        raise SystemExit(f"the forecast tick produced no forecast (data folder {args.data_dir}): {problems}")
    after, bare_cpu = raw_rate(base_url, report.produced, args.concurrency)
    n = report.produced
    ceiling = (before + after) / 2
    rate, phase_rate = n / (t2 - t1), n / report.seconds["forecasts"]
    print(f"forecast tick: {n} forecasts ({dict(report.statuses)}) in {t2 - t1:.2f} s "
          f"at concurrency {args.concurrency}")
    print("phases (s): " + ", ".join(f"{k} {v:.2f}" for k, v in report.seconds.items()))
    print(f"forecasts per second, whole tick: {rate:.0f} ({rate / AIM:.2f} x the aim of {AIM:.0f}/s)")
    print(f"forecasts per second, forecast phase: {phase_rate:.0f} ({phase_rate / AIM:.2f} x the aim)")
    print(f"CPU time of this process per forecast, whole tick: {1000 * (c2 - c1) / n:.2f} ms")
    own = {p: 1000 * parts.seconds[p] / n for p in PARTS}
    phase_ms = 1000 * parts.forecast_phase / n
    rest = phase_ms - sum(own.values())
    print(f"forecast phase CPU per forecast: {phase_ms:.2f} ms = " + ", ".join(f"{p} {v:.3f}" for p, v in own.items())
          + f", event loop, tasks and thread hand-offs (the rest) {rest:.3f}")
    print(f"CPU time per bare httpx POST (its event loop included): {1000 * bare_cpu:.2f} ms; per forecast, "
          f"HTTP client and the rest {own['HTTP client'] + rest:.2f} ms, the tick's own parts "
          f"{sum(own.values()) - own['HTTP client']:.2f} ms")
    print(f"bare httpx POSTs to the same server, same concurrency: {before:.0f}/s before, {after:.0f}/s after; "
          f"forecast phase / bare = {phase_rate / ceiling:.2f}")
    return phase_rate / ceiling


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=shared_data_dir(), help="shared data folder")
    parser.add_argument("--forecasters", type=int, default=4, help="LLM forecasters (4 cells each)")
    parser.add_argument("--concurrency", type=int, default=16, help="forecasts in flight")
    parser.add_argument("--runs", type=int, default=1, help="forecast ticks, each on a fresh copy")
    parser.add_argument("--latency-ms", type=float, default=0.0,
                        help="milliseconds the local server holds each answer, as a provider's generation time (default 0)")
    args = parser.parse_args()
    if args.latency_ms < 0:
        parser.error(f"--latency-ms must be 0 or more, not {args.latency_ms:g}")
    args.now = datetime(2026, 6, 10, 12, tzinfo=UTC)
    parts = CpuParts()
    parts.install()
    ratios = []
    print(f"local server: answers held {args.latency_ms:g} ms each, concurrency {args.concurrency}")
    with tempfile.TemporaryDirectory() as tmp, local_server(args.latency_ms) as base_url:
        os.environ["OPENROUTER_API_KEY"] = "sk-or-v1-benchmark"
        os.environ["OPENROUTER_BASE_URL"] = base_url
        registered = Path(tmp) / "registered"
        t0 = time.perf_counter()
        run_tick(config(0, args.concurrency), registered, args.now, args.data_dir, forecasters=[],
                 lock_dir=Path(tmp) / "locks")  # fmt: skip
        print(f"registration tick: {time.perf_counter() - t0:.2f} s")
        for i in range(args.runs):
            ratios.append(one_run(args, base_url, registered, Path(tmp) / f"run{i}", parts))
    if len(ratios) > 1:
        print(f"forecast phase / bare over {len(ratios)} runs: min {min(ratios):.2f}, "
              f"median {statistics.median(ratios):.2f}, max {max(ratios):.2f}")
    print(f"peak resident memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
