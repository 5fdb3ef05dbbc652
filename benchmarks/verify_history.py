"""Time ``verify`` on a history of 10,000 forecast files over 500 commits.

Builds a throwaway repository with ``git fast-import`` (one tick per commit: 20 forecasts,
the events they are for, and the tick's manifest chained to the previous one), then prints the time of a bare
``git log --name-status`` over the same history, of ``verify`` in-process, and of
``python -m collector verify`` as a user runs it, with their ratios to the bare log.

    python benchmarks/verify_history.py [--commits 500] [--per-commit 20] [--keep DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from collector.archive.layout import path_for  # noqa: E402
from collector.archive.writer import record_bytes  # noqa: E402
from collector.audit.verify import verify_repository  # noqa: E402
from collector.records import Attempt, AttemptRole, Manifest, Usage  # noqa: E402
from tests.gitrepo import KICKOFF, event, forecast  # noqa: E402

FORECASTERS = ("elo", "dixon_coles", "uniform", "base_rate", "ensemble")


def tick_records(commit: int, per_commit: int, start):
    """The forecasts of one tick: ``per_commit`` forecasts spread over the tick's events."""
    when = start + timedelta(hours=commit)
    for i in range(per_commit):
        event_id = f"e{commit:03d}-v-x{i // len(FORECASTERS):02d}"
        attempt = Attempt(
            role=AttemptRole.FIRST,
            started_at=when,
            request_body={"model": "demo/model", "messages": [{"role": "user", "content": "x" * 600}]},
            http_status=200,
            response_text='{"home_win_90": 0.5, "draw_90": 0.3, "away_win_90": 0.2}' * 8,
            usage=Usage(prompt_tokens=900, completion_tokens=120, cost_usd=0.002),
        )
        yield event_id, forecast(
            FORECASTERS[i % len(FORECASTERS)],
            requested_at=when,
            target_id=event_id,
            kickoff_utc=when + timedelta(days=2),
            attempts=(attempt,),
        )


def build(root: Path, commits: int, per_commit: int) -> None:
    """Write the history with one ``git fast-import`` stream: same commits, blobs and dates as ticks."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    start = KICKOFF - timedelta(days=30)
    stream = bytearray()
    previous: tuple[str, str] | None = None  # path and SHA-256 of the last manifest
    for commit in range(commits):
        when = start + timedelta(hours=commit)
        files: dict[str, bytes] = {}
        for event_id, record in tick_records(commit, per_commit, start):
            made = event(id=event_id, recorded_at=when, kickoff_utc=record.kickoff_utc)
            files.setdefault(path_for(made), record_bytes(made))
            files[path_for(record)] = record_bytes(record)
        manifest = Manifest(
            recorded_at=when,
            tick_at=when,
            files={p: hashlib.sha256(b).hexdigest() for p, b in sorted(files.items())},
            previous=previous[0] if previous else None,
            previous_sha256=previous[1] if previous else None,
        )
        data = record_bytes(manifest)
        files[path_for(manifest)] = data
        previous = (path_for(manifest), hashlib.sha256(data).hexdigest())
        stream += _commit(files, when, f"archive: tick {when:%Y-%m-%dT%H:%M:%SZ}")
    subprocess.run(["git", "-C", str(root), "fast-import", "--quiet"], input=bytes(stream), check=True)


def _commit(files: dict[str, bytes], when, message: str) -> bytes:
    epoch = int(when.timestamp())
    out = bytearray(b"commit refs/heads/main\n")
    out += f"committer prematch-bot <bot@example.invalid> {epoch} +0000\n".encode()
    out += f"data {len(message)}\n{message}\n".encode()
    for path, data in files.items():
        out += f"M 100644 inline archive/{path}\ndata {len(data)}\n".encode() + data + b"\n"
    return bytes(out)


def timed(action) -> float:
    begin = time.perf_counter()
    action()
    return time.perf_counter() - begin


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=500, help="commits in the history (default 500)")
    parser.add_argument("--per-commit", type=int, default=20, help="forecast files per commit (default 20)")
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="prematch-verify-bench-")) / "repo"
    print(f"building {args.commits} commits x {args.per_commit} forecasts in {root} ...", flush=True)
    print(f"  built in {timed(lambda: build(root, args.commits, args.per_commit)):.1f} s")
    bare_cmd = ["git", "-C", str(root), "log", "--name-status", "--no-renames", "--", "archive/"]
    cli_cmd = [sys.executable, "-m", "collector", "verify", "--repo", str(root)]
    bare = min(timed(lambda: subprocess.run(bare_cmd, capture_output=True, check=True)) for _ in range(7))
    cold = min(timed(lambda: verify_repository(root, use_cache=False)) for _ in range(3))
    timed(lambda: verify_repository(root))  # fills the cache in .git/prematch
    warm = min(timed(lambda: verify_repository(root)) for _ in range(7))
    cli = min(timed(lambda: subprocess.run(cli_cmd, capture_output=True, check=True)) for _ in range(3))
    report = verify_repository(root)
    forecasts = sum(1 for f in report.files.values() if f.kind == "forecast")
    print(f"history: {len(report.commits)} commits, {len(report.files)} record files ({forecasts} forecasts)")
    print(f"verify ok: {report.ok}, violations: {len(report.violations)}")
    print(f"git log --name-status (bare):              {bare:.3f} s")
    print(f"verify, every blob validated (--no-cache): {cold:.3f} s  ratio {cold / bare:.2f}x")
    print(f"verify, blob results cached in .git:       {warm:.3f} s  ratio {warm / bare:.2f}x")
    print(f"python -m collector verify (CLI, cached):  {cli:.3f} s  ratio {cli / bare:.2f}x")
    print("(best of 7 runs for git log and the cached verify, 3 for the others;")
    print(" the CLI figure includes Python start-up and importing every command module)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
