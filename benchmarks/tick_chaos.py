"""Soak test: a week of the 2026 World Cup ticked by two processes at once against a hostile provider.

A local OpenRouter-format server (``tests/fake_openrouter.py`` in ``chaos`` mode) answers with a
random mix of valid answers, 429s, 5xx, hangs, errors inside HTTP 200, malformed and oversized
bodies, another model than the one asked, and control characters. At every simulated tick two
``python -m collector tick`` processes run at once on one archive (``--now`` one second apart),
and with probability ``--kill`` one of them is killed with SIGKILL at a random moment. Each tick
is committed at its simulated time; one more tick (never killed) follows the last pair, as the
next scheduled run would. At the end the site is built and ``verify`` run.

Printed: forecasts due, written, retried, missed, duplicates (must be 0), files that do not
validate (must be 0), key occurrences in the archive, site and logs (must be 0), files in no
manifest (must be 0: a tick adopts the files of killed ticks before it), and verify's verdict
(must be OK); the script exits 1 when one of those does not hold.

    PREMATCH_DATA_DIR=/work/shared/data python benchmarks/tick_chaos.py [--days 7] [--kill 0.3] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from collector.archive.layout import identity  # noqa: E402
from collector.archive.reader import load_archive  # noqa: E402
from collector.config import load_config  # noqa: E402
from collector.forecasters.roster import forecaster_specs  # noqa: E402
from collector.records import ForecastStatus  # noqa: E402
from collector.redaction import pattern_for  # noqa: E402
from collector.schedule.scheduler import plan  # noqa: E402
from collector.schedule.tick import next_due_after  # noqa: E402
from tests.fake_openrouter import FakeOpenRouter  # noqa: E402

KEY = "sk-or-v1-CHAOS-BENCHMARK-KEY-0c9d2e7a"
START = datetime(2026, 6, 10, 12, tzinfo=UTC)
RETRY_STEP = timedelta(minutes=15)
CONFIG = """
[arena]
competitions = ["worldcup-2026"]
concurrency = 8
spending_cap_usd = 1000
[openrouter]
max_attempts = 2
base_delay_s = 0
max_delay_s = 0.2
total_timeout_s = 1.5
max_response_bytes = 65536
[[forecasters]]
id = "chaos.model"
type = "llm"
model = "chaos/model"
version = "chaos/model@1"
"""


def git(root: Path, *args: str, when: datetime | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "chaos", "GIT_AUTHOR_EMAIL": "chaos@prematch.invalid",
           "GIT_COMMITTER_NAME": "chaos", "GIT_COMMITTER_EMAIL": "chaos@prematch.invalid"}  # fmt: skip
    if when is not None:
        env.update(GIT_AUTHOR_DATE=when.isoformat(), GIT_COMMITTER_DATE=when.isoformat())
    subprocess.run(["git", "-C", str(root), *args], env=env, check=True, capture_output=True)


def tick(root: Path, now: datetime, env: dict) -> subprocess.Popen:
    args = [sys.executable, "-m", "collector", "tick", "--now", now.isoformat(), "--config", str(root / "arena.toml"),
            "--archive", str(root / "archive")]  # fmt: skip
    return subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def next_tick(root: Path, config, now: datetime) -> datetime | None:
    """15 minutes on (the cron's step) while a key is due or failed before kickoff, else when a window opens next."""
    archive = load_archive(root / "archive")
    failed = any(f.transport_failure and f.kickoff_utc > now + RETRY_STEP for f in archive.forecasts)
    if failed or plan(archive, config, forecaster_specs(config), now + RETRY_STEP).due:
        return now + RETRY_STEP
    return next_due_after(config, archive, now)


def run_ticks(root: Path, config, end: datetime, kill: float, rng: random.Random, env: dict) -> dict:
    stats = Counter()
    logs: list[str] = []
    now: datetime | None = START
    last = 3.0  # seconds the last pair ran: a kill falls anywhere in a tick's life, sync or forecasts
    while now is not None and now < end:
        began = time.perf_counter()
        pair = [tick(root, now, env), tick(root, now + timedelta(seconds=1), env)]
        if rng.random() < kill:
            time.sleep(rng.uniform(0.1, last))
            victim = rng.choice(pair)
            if victim.poll() is None:
                os.kill(victim.pid, signal.SIGKILL)
                stats["killed"] += 1
        for process in pair:
            out, err = process.communicate()
            logs += [out, err]
            stats[f"exit {process.returncode}"] += 1
        last = max(0.5, time.perf_counter() - began)
        git(root, "add", "-A", "archive")
        git(root, "commit", "-q", "--allow-empty", "-m", f"tick {now.isoformat()}", when=now + timedelta(minutes=5))
        stats["ticks"] += 1
        now = next_tick(root, config, now)
    closing = tick(root, end, env)  # the next tick after the last pair, never killed: it adopts their orphans
    out, err = closing.communicate()
    logs += [out, err]
    stats[f"exit {closing.returncode}"] += 1
    git(root, "add", "-A", "archive")
    git(root, "commit", "-q", "--allow-empty", "-m", f"tick {end.isoformat()}", when=end + timedelta(minutes=5))
    stats["logs"] = "\n".join(logs)
    return stats


def tally(root: Path, config, end: datetime) -> dict:
    archive = load_archive(root / "archive")
    files = [r for r in archive.records.values() if r.kind == "forecast"]
    answers = Counter(identity(f) for f in files if not f.transport_failure)
    unserved = plan(archive, config, forecaster_specs(config), end).missed
    return {
        "due": len(archive.forecasts) + len(unserved),
        "written": len(files),
        "retried": sum(1 for f in files if f.revision > 0),
        "missed": sum(1 for f in archive.forecasts if f.status is ForecastStatus.MISSED) + len(unserved),
        "still failed": sum(1 for f in archive.forecasts if f.transport_failure),
        "duplicates": sum(n - 1 for n in answers.values() if n > 1),
        "invalid files": len(archive.problems),
        "statuses": Counter(f.status.value for f in archive.forecasts),
        "unlisted": len({p for p in archive.records if not p.startswith("manifests/")}
                        - {p for m in archive.manifests for p in m.files}),
        "tmp left": sum(1 for p in (root / "archive").rglob(".*.tmp")),
        "problems": archive.problems[:5],
    }


def tick_problems(logs: str) -> Counter:
    """The ticks' ``problem:`` lines, without the path or numbers, counted."""
    import re

    found = Counter()
    for line in logs.splitlines():
        if line.startswith("problem: "):
            message = line.removeprefix("problem: ").split(": ", 1)[-1]
            found[re.sub(r"\d+", "N", message)[:110]] += 1
    return found


def key_occurrences(folders: list[Path], texts: list[str]) -> int:
    """The key's escaped forms (the sanitiser's pattern) counted, and each text or file holding it in any
    other form the normalising search finds (collector/redaction/forms.py) counted once."""
    from collector.redaction import contains_secret, register_secret

    register_secret(KEY)
    pattern = pattern_for([KEY])
    count = sum(len(pattern.findall(t)) + contains_secret(t) for t in texts)
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file() and not path.is_symlink():
                data = path.read_bytes()
                count += len(pattern.findall(data.decode("utf-8", "replace"))) + contains_secret(data)
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=float, default=7.0, help="simulated days from 2026-06-10 12:00Z (default 7)")
    parser.add_argument("--kill", type=float, default=0.3, help="probability that a tick's pair loses one process "
                                                                 "to SIGKILL (default 0.3)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1, help="seed of the provider's mix and of the kills (default 1)")
    parser.add_argument("--out", type=Path, default=None, help="work folder (default: a temporary folder)")
    args = parser.parse_args()
    data_dir = os.environ.get("PREMATCH_DATA_DIR")
    if not data_dir:
        parser.error("set PREMATCH_DATA_DIR to a local copy of the public data")
    root = args.out or Path(tempfile.mkdtemp(prefix="tick-chaos-"))
    root.mkdir(parents=True, exist_ok=True)
    (root / "archive").mkdir()
    (root / "arena.toml").write_text(CONFIG)
    git(root, "init", "-q", "-b", "main")
    config = load_config(root / "arena.toml")
    end = START + timedelta(days=args.days)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    with FakeOpenRouter(mode=f"chaos:{args.seed}") as server:
        env = {**os.environ, "OPENROUTER_API_KEY": KEY, "OPENROUTER_BASE_URL": server.base_url,
               "PREMATCH_DATA_DIR": data_dir}  # fmt: skip
        stats = run_ticks(root, config, end, args.kill, rng, env)
        calls = len(server.seen)
    tick_s = time.perf_counter() - started
    build = subprocess.run([sys.executable, "-m", "builder", "build", "--archive", str(root / "archive"), "--out",
                            str(root / "site"), "--quiet"], cwd=REPO, capture_output=True, text=True)  # fmt: skip
    verify = subprocess.run([sys.executable, "-m", "collector", "verify", "--repo", str(root), "--no-cache"],
                            cwd=REPO, capture_output=True, text=True)  # fmt: skip
    counts = tally(root, config, end)
    logs = stats.pop("logs")
    counts["leaks"] = key_occurrences([root / "archive", root / "site"],
                                      [logs, build.stdout, build.stderr, verify.stdout, verify.stderr])
    print(f"tick chaos: {args.days:g} simulated days of worldcup-2026 from {START:%Y-%m-%d %H:%MZ}, "
          f"seed {args.seed}, in {root}")
    print_report(stats, calls, counts, tick_s, build, verify, logs)
    good = (counts["duplicates"] == 0 and counts["invalid files"] == 0 and counts["leaks"] == 0
            and counts["unlisted"] == 0 and verify.returncode == 0 and build.returncode == 0)  # fmt: skip
    return 0 if good else 1


def print_report(stats: Counter, calls: int, counts: dict, tick_s: float, build, verify, logs: str) -> None:
    lines = verify.stdout.splitlines()
    verdict = next((line for line in lines if line.startswith(("OK", "FAIL", "VIOLATIONS"))), verify.stdout[-200:])
    exits = ", ".join(f"{k.split()[1]}: {v}" for k, v in sorted(stats.items()) if k.startswith("exit"))
    print(f"  ticks {stats['ticks']} (two processes each), killed {stats['killed']} (a running process), "
          f"exits {exits}")
    print(f"  provider calls {calls}, {calls / max(counts['written'], 1):.2f} per forecast file written")
    print(f"  forecasts due {counts['due']}, written {counts['written']}, retried {counts['retried']}, "
          f"missed {counts['missed']}, still failed at the end {counts['still failed']}")
    print("  effective statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(counts["statuses"].items())))
    print(f"  duplicates {counts['duplicates']} (must be 0)")
    print(f"  files that do not validate {counts['invalid files']} (must be 0)")
    print(f"  key occurrences in archive, site and logs {counts['leaks']} (must be 0)")
    print(f"  site build exit {build.returncode}; verify exit {verify.returncode}: {verdict}")
    print(f"  files in no manifest {counts['unlisted']} (must be 0: each tick adopts those of killed ticks before "
          f"it), dead writers' temporary files left {counts['tmp left']}")
    print(f"  {tick_s / max(stats['ticks'], 1):.2f} s of wall clock per simulated tick (both processes and the commit)")
    for problem in counts["problems"]:
        print(f"  problem: {problem}")
    print("  the ticks' problem lines (why a tick exited 1), by kind:")
    for line, n in tick_problems(logs).most_common(6):
        print(f"    {n} x {line}")

if __name__ == "__main__":
    sys.exit(main())
