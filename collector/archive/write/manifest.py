"""The per-tick manifest: a record listing the SHA-256 of every file a tick added, chained by hash.

Each manifest names the previous manifest's path and SHA-256, so the manifests form a hash
chain that ``prematch verify`` checks against the files and the git history.

A tick killed, or stopped by a full disk, before its manifest leaves files no manifest lists;
the next tick adopts them (:func:`unlisted` finds them in its view of the archive) and names
them in its manifest's ``adopted``. Ticks that run at once take turns at the manifest (a lock),
and each leaves out what a manifest written meanwhile already lists, so no file is listed twice.
"""

from __future__ import annotations

import fcntl
import hashlib
from collections.abc import Collection
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from collector.archive.layout import MANIFEST_DIR
from collector.archive.write.writer import ArchiveWriter
from collector.records import Clock, Manifest

if TYPE_CHECKING:
    from collector.archive.reader import Archive


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


def unlisted(archive: Archive, written: Collection[str] = ()) -> list[str]:
    """The records of ``archive`` (present and valid) that no manifest lists, besides ``written``: the
    files of earlier ticks that stopped before their manifest."""
    listed = {path for manifest in archive.manifests for path in manifest.files}
    mine = set(written)
    return sorted(path for path in archive.records
                  if path not in listed and path not in mine and not path.startswith(f"{MANIFEST_DIR}/"))  # fmt: skip


def write_tick_manifest(writer: ArchiveWriter, tick_at: datetime, clock: Clock = Clock.LIVE,
                        schedule: dict | None = None, protocol_sha256: str | None = None,
                        lock_path: Path | None = None, orphans: Collection[str] = ()) -> str | None:  # fmt: skip
    """Write the manifest for everything ``writer`` wrote this tick and the ``orphans`` it adopts
    (:func:`unlisted`); None when there is nothing to list.

    ``schedule``: ``schedule``, ``scheduled_at`` and ``schedule_delay_s`` of a scheduled run;
    ``protocol_sha256``: the hash of the LLM request protocol in force. With ``lock_path``,
    ticks running at once take turns: each names the manifest written just before it, and is
    stamped after it, so the chain never forks. A :class:`~collector.errors.ArchiveError` names a
    manifest that cannot be written (a full disk): the files stay, for the next tick to adopt.
    """
    added = [p for p in writer.written if not p.startswith(f"{MANIFEST_DIR}/")]
    if not added and not orphans:
        return None
    with _exclusive(lock_path):
        previous = latest_manifest_path(writer.root)
        meanwhile = _listed_since(writer, previous)
        added = [p for p in added if p not in meanwhile]
        adopted = sorted(p for p in orphans if p not in meanwhile and (writer.root / p).is_file())
        if not added and not adopted:
            return None
        if previous is not None:
            tick_at = max(tick_at, _stamp_of(previous) + timedelta(microseconds=1))
        extra = {**(schedule or {}), "protocol_sha256": protocol_sha256, "adopted": tuple(adopted)}
        return _write_manifest(writer, added + adopted, previous, tick_at, clock, extra)


def _listed_since(writer: ArchiveWriter, latest: str | None) -> set[str]:
    """The files listed by manifests another tick wrote after ``writer``'s view of the archive was read:
    the chain from ``latest`` back to the first manifest the view holds (nothing without a view)."""
    known = writer.archive.records if writer.archive is not None else None
    listed: set[str] = set()
    while known is not None and latest is not None and latest not in known:
        try:
            data = orjson.loads((writer.root / latest).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            break
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            break
        listed.update(data["files"])
        latest = data.get("previous") if isinstance(data.get("previous"), str) else None
    return listed


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
