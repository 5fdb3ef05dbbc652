"""The append-only archive writer: stable bytes, atomic write, never an overwrite."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from collector.archive.layout import path_for
from collector.errors import RecordExistsError
from collector.records import Record

if TYPE_CHECKING:
    from collector.archive.reader import Archive

_DUMP_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE


def record_bytes(record: Record) -> bytes:
    """The stable byte form of a record: orjson, sorted keys, indented, newline at end."""
    return orjson.dumps(record.model_dump(mode="json"), option=_DUMP_OPTIONS)


def write_new_file(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` atomically; raise :class:`RecordExistsError` if it exists.

    The bytes go to a temporary file in the same folder, are fsynced, then hard-linked to
    the final name (``link`` fails instead of replacing, unlike ``rename``), so two writers
    racing for one path cannot both succeed and a reader never sees a partial file.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        raise RecordExistsError(f"{target}: already exists; the archive is append-only")
    tmp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, target)
        except FileExistsError:
            raise RecordExistsError(f"{target}: already exists; the archive is append-only") from None
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(target.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class ArchiveWriter:
    """Writes records under an archive root and remembers what it wrote (for the tick manifest)."""

    def __init__(self, root: Path | str, archive: Archive | None = None):
        self.root = Path(root)
        self.written: list[str] = []
        self.archive = archive  # when given, kept up to date with every record written

    def exists(self, record: Record) -> bool:
        return (self.root / path_for(record)).exists()

    def write(self, record: Record) -> str:
        """Write one record at its path; return the archive-relative path."""
        relative = path_for(record)
        write_new_file(self.root / relative, record_bytes(record))
        self.written.append(relative)
        if self.archive is not None:
            self.archive.add(relative, record)
        return relative
