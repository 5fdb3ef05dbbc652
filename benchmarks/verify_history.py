"""Time ``verify`` on a history of 10,000 forecast files over 500 commits.

Builds a throwaway repository with ``git fast-import`` (one tick per commit: 20 forecasts,
the events they are for, and the tick's manifest chained to the previous one), then prints, from
one run, the time of a bare ``git log --name-status`` over the same history and of ``verify``:
cold (``--no-cache``), with the per-blob caches only, after one new tick on top of a checkpoint,
answered by the checkpoint of HEAD, and as ``python -m collector verify`` (Python start-up
included), each with its ratio to the bare log.

Each manifest also gets ``--tokens`` RFC 3161 tokens (default 2, from the test authority of
``tests/tsa_authority.py``, as the live tick commits them), and the cost of checking them
offline is printed: the cold verify with the test root trusted, against the same run with
no trusted root (tokens read, not checked).

    python benchmarks/verify_history.py [--commits 500] [--per-commit 20] [--tokens 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from collector.archive.layout import path_for  # noqa: E402
from collector.archive.tokens import token_path  # noqa: E402
from collector.audit.verify import verify_repository  # noqa: E402
from collector.records import Attempt, AttemptRole, Manifest, Usage  # noqa: E402
from collector.records.byteform import record_bytes  # noqa: E402
from tests.gitrepo import KICKOFF, event, forecast  # noqa: E402
from tests.tsa_authority import YEAR, make_chain, token_response  # noqa: E402

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


def build(root: Path, commits: int, per_commit: int, tokens: int = 0) -> Path:
    """Write the history with one ``git fast-import`` stream: same commits, blobs and dates as ticks.

    Returns the PEM file of the root that signed the tokens.
    """
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    start = KICKOFF - timedelta(days=30)
    chains = [make_chain(f"Bench {i}", start - YEAR, start + YEAR) for i in range(tokens)]
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
        digest = hashlib.sha256(data)
        for i, chain in enumerate(chains):  # stamped a minute after the tick, as the live tick does
            files[token_path(path_for(manifest), f"tsa{i}")] = token_response(chain, digest.digest(),
                                                                              when + timedelta(minutes=1))
        previous = (path_for(manifest), digest.hexdigest())
        stream += _commit(files, when, f"archive: tick {when:%Y-%m-%dT%H:%M:%SZ}")
    subprocess.run(["git", "-C", str(root), "fast-import", "--quiet"], input=bytes(stream), check=True)
    roots = root.parent / "bench-roots"  # a folder of roots, one file per authority (its name)
    roots.mkdir(exist_ok=True)
    for i, chain in enumerate(chains):
        (roots / f"tsa{i}.pem").write_bytes(chain.root_pem())
    return roots


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


def best(runs: int, action) -> float:
    return min(timed(action) for _ in range(runs))


def git_out(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=True, text=True).stdout.strip()


def after_one_tick(root: Path, trusted: list[Path], runs: int) -> float:
    """verify of HEAD with the checkpoint and blob caches as verify left them at HEAD~1 (one tick
    earlier): the new tick's blobs checked, the rest of the history reused."""
    tip = git_out(root, "rev-parse", "HEAD")
    caches = root / ".git" / "prematch"
    subprocess.run(["git", "-C", str(root), "update-ref", "--no-deref", "HEAD", f"{tip}~1"], check=True)
    shutil.rmtree(caches)
    verify_repository(root, tsa_roots=trusted)  # the caches one tick earlier
    saved = caches.with_name("prematch-one-tick-earlier")
    shutil.copytree(caches, saved)
    subprocess.run(["git", "-C", str(root), "update-ref", "--no-deref", "HEAD", tip], check=True)

    def run() -> None:
        shutil.rmtree(caches)
        shutil.copytree(saved, caches)
        begin = time.perf_counter()
        verify_repository(root, tsa_roots=trusted)
        times.append(time.perf_counter() - begin)

    times: list[float] = []
    for _ in range(runs):
        run()
    shutil.rmtree(saved)
    return min(times)


def drop_checkpoints(folder: Path) -> None:
    """Remove every verify checkpoint from the store in ``folder`` (the per-blob entries stay)."""
    from collector.archive.store import Store
    from collector.audit.checkpoint import KIND

    store = Store.open(folder, (KIND,))
    store.keep_only(KIND, [])
    store.commit()


def blob_caches_only(root: Path, trusted: list[Path], runs: int) -> float:
    """verify with the per-blob caches but no checkpoint: every check over the whole history."""
    times = []
    for _ in range(runs):
        drop_checkpoints(root / ".git" / "prematch")
        times.append(timed(lambda: verify_repository(root, tsa_roots=trusted)))
    return min(times)


def measure(root: Path, trusted: list[Path]) -> dict[str, float]:
    """Every figure, in one run: the bare log before and after the verify runs (the best of both)."""
    bare_cmd = ["git", "-C", str(root), "log", "--name-status", "--no-renames", "--", "archive/"]
    cli_cmd = [sys.executable, "-m", "collector", "verify", "--repo", str(root), "--tsa-roots", str(trusted[0])]
    bare = best(7, lambda: subprocess.run(bare_cmd, capture_output=True, check=True))
    out = {
        "cold": best(3, lambda: verify_repository(root, use_cache=False, tsa_roots=trusted)),
        "cold_unchecked": best(3, lambda: verify_repository(root, use_cache=False, tsa_roots=[])),
        "blobs": blob_caches_only(root, trusted, 3),
        "tick": after_one_tick(root, trusted, 3),
    }
    verify_repository(root, tsa_roots=trusted)  # the checkpoint at HEAD
    verify_repository(root, tsa_roots=[])
    out["warm"] = best(7, lambda: verify_repository(root, tsa_roots=trusted))
    out["unchecked"] = best(7, lambda: verify_repository(root, tsa_roots=[]))
    out["cli"] = best(5, lambda: subprocess.run(cli_cmd, capture_output=True, check=True))
    out["python"] = best(5, lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))
    out["help"] = best(5, lambda: subprocess.run([sys.executable, "-m", "collector", "--help"],
                                                 capture_output=True, check=True))
    out["bare"] = min(bare, best(7, lambda: subprocess.run(bare_cmd, capture_output=True, check=True)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=500, help="commits in the history (default 500)")
    parser.add_argument("--per-commit", type=int, default=20, help="forecast files per commit (default 20)")
    parser.add_argument("--tokens", type=int, default=2, help="RFC 3161 tokens per manifest (default 2)")
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="prematch-verify-bench-")) / "repo"
    print(f"building {args.commits} commits x {args.per_commit} forecasts in {root} ...", flush=True)
    built: list[Path] = []
    print(f"  built in {timed(lambda: built.append(build(root, args.commits, args.per_commit, args.tokens))):.1f} s")
    trusted = [built[0]]
    t = measure(root, trusted)
    report = verify_repository(root, tsa_roots=trusted)
    forecasts = sum(1 for f in report.files.values() if f.kind == "forecast")
    print(f"history: {len(report.commits)} commits, {len(report.files)} record files ({forecasts} forecasts)")
    print(f"verify ok: {report.ok}, violations: {len(report.violations)}")
    tokens = len(report.proofs.tokens)
    valid = sum(len(v) for v in report.proofs.valid.values())
    kinds = dict(sorted(Counter(p.kind for p in report.proofs.proofs.values()).items()))
    print(f"tokens: {tokens} committed, {valid} valid; forecast proofs: {kinds}")
    bare = t["bare"]
    print(f"git log --name-status (bare):                 {bare:.3f} s")
    print(f"verify, every blob validated (--no-cache):    {t['cold']:.3f} s  ratio {t['cold'] / bare:.2f}x")
    print(f"verify, blob caches, no checkpoint:           {t['blobs']:.3f} s  ratio {t['blobs'] / bare:.2f}x")
    print(f"verify, one new tick on the checkpoint:       {t['tick']:.3f} s  ratio {t['tick'] / bare:.2f}x")
    print(f"verify, cached (checkpoint at HEAD):          {t['warm']:.3f} s  ratio {t['warm'] / bare:.2f}x")
    print(f"verify, cached, tokens not checked:           {t['unchecked']:.3f} s  ratio {t['unchecked'] / bare:.2f}x")
    cost = t["cold"] - t["cold_unchecked"]
    print(f"cost of the token checks, uncached:           {cost:.3f} s  ({cost / tokens * 1000 if tokens else 0:.2f} ms "
          f"per token, {cost / bare:.2f}x the bare log)")
    print(f"python -m collector verify (CLI, cached):     {t['cli']:.3f} s  ratio {t['cli'] / bare:.2f}x")
    print(f"python -m collector --help:                   {t['help']:.3f} s  ({t['help'] / t['python']:.1f}x a bare "
          f"python start-up, {t['python']:.3f} s)")
    print("(best of 7 runs for git log and the cached verify, 5 for the CLI, 3 for the others; the CLI")
    print(" figure includes Python start-up; a token check is the difference between cold runs that")
    print(" trust the test root and runs that trust none)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
