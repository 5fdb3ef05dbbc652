"""The per-tick manifest: a record listing the SHA-256 of every file a tick added, chained by hash.

Each manifest names the previous manifest's path and SHA-256, so the manifests form a hash
chain that ``prematch verify`` checks against the files and the git history.
"""

from __future__ import annotations

import fcntl
import hashlib
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from collector.archive.layout import MANIFEST_DIR
from collector.archive.writer import ArchiveWriter
from collector.records import Clock, Manifest


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def latest_manifest_path(root: Path) -> str | None:
    """The newest manifest file (names sort by tick time), archive-relative, or None."""
    folder = root / MANIFEST_DIR
    if not folder.is_dir():
        return None
    names = sorted(p.relative_to(root).as_posix() for p in folder.glob("*/*.json"))
    return names[-1] if names else None


def _stamp_of(path: str) -> datetime:
    return datetime.strptime(path.rsplit("/", 1)[-1].removesuffix(".json"), "%Y%m%dT%H%M%S%fZ").replace(tzinfo=UTC)


@contextmanager
def _exclusive(lock_path: Path | None):
    """Hold an ``flock`` on ``lock_path`` (released by the kernel if the process dies); no-op without one."""
    if lock_path is None:
        yield
        return
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def write_tick_manifest(writer: ArchiveWriter, tick_at: datetime, clock: Clock = Clock.LIVE,
                        schedule: dict | None = None, protocol_sha256: str | None = None,
                        lock_path: Path | None = None) -> str | None:  # fmt: skip
    """Write the manifest for everything ``writer`` wrote this tick; None when it wrote nothing.

    ``schedule``: ``schedule``, ``scheduled_at`` and ``schedule_delay_s`` of a scheduled run;
    ``protocol_sha256``: the hash of the LLM request protocol in force. With ``lock_path``,
    ticks running at once take turns: each names the manifest written just before it, and is
    stamped after it, so the chain never forks.
    """
    added = [p for p in writer.written if not p.startswith(f"{MANIFEST_DIR}/")]
    if not added:
        return None
    with _exclusive(lock_path):
        previous = latest_manifest_path(writer.root)
        if previous is not None:
            tick_at = max(tick_at, _stamp_of(previous) + timedelta(microseconds=1))
        extra = {**(schedule or {}), "protocol_sha256": protocol_sha256}
        return _write_manifest(writer, added, previous, tick_at, clock, extra)


def _write_manifest(writer: ArchiveWriter, added: list[str], previous: str | None, tick_at: datetime,
                    clock: Clock, extra: dict) -> str:  # fmt: skip
    manifest = Manifest(
        recorded_at=tick_at,
        clock=clock,
        tick_at=tick_at,
        files={p: sha256_file(writer.root / p) for p in sorted(added)},
        previous=previous,
        previous_sha256=sha256_file(writer.root / previous) if previous else None,
        **extra,
    )
    return writer.write(manifest)
