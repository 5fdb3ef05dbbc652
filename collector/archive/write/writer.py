"""The append-only archive writer: stable bytes, atomic write, never an overwrite, never through a link.

Before a record is written it must pass two checks, each a :class:`~collector.errors.ArchiveError`
naming the path: no known secret in any encoding (:func:`collector.redaction.contains_secret`),
and no more than ``max_record_bytes`` bytes (GitHub refuses files over 100 MB; the default
limit is far below). Folders are opened one at a time from the archive root without following
links (``O_NOFOLLOW``), so a symlinked folder inside the archive is refused instead of written
through.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from collector.archive.layout import path_for
from collector.archive.write.owner import owner_now
from collector.errors import ArchiveError, RecordExistsError
from collector.records import RECORD_ADAPTER, Record
from collector.records.byteform import record_bytes
from collector.redaction import contains_secret

if TYPE_CHECKING:
    from collector.archive.reader import Archive

DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024
_ROOT_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)  # the root itself may be a link
_DIR_FLAGS = _ROOT_FLAGS | os.O_NOFOLLOW
TMP_SUFFIX = ".tmp"


class SecretInRecordError(ArchiveError):
    """A record still holds a secret after sanitising; it is not written."""


class RecordTooLargeError(ArchiveError):
    """A record's bytes exceed the writer's limit; it is not written."""


class WriteFailedError(ArchiveError):
    """The file system refused a write (a full disk, a read-only folder); nothing of the file is left."""


def open_folder(root: Path, parts: list[str], create: bool) -> int:
    """A descriptor of ``root/parts...``, each part opened without following a link.

    A part that is a symlink (or not a folder) raises :class:`ArchiveError`; missing parts
    (and a missing ``root``) are created when ``create``. The caller closes the descriptor.
    Each part is opened first and made only when missing: a folder that exists (nearly every
    write) costs one system call, not a refused ``mkdir`` as well.
    """
    try:
        fd = os.open(root, _ROOT_FLAGS)
    except FileNotFoundError:
        if not create:
            raise
        Path(root).mkdir(parents=True, exist_ok=True)
        fd = os.open(root, _ROOT_FLAGS)
    for i, part in enumerate(parts):
        try:
            child = _open_part(fd, part, create)
        except OSError as exc:
            os.close(fd)
            where = "/".join(parts[: i + 1])
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise ArchiveError(f"{where}: is a symlink or not a folder; the archive is never written through a link") from None
            raise
        os.close(fd)
        fd = child
    return fd


def _open_part(fd: int, part: str, create: bool) -> int:
    """The folder ``part`` inside the folder ``fd``, never through a link; made first when missing and ``create``."""
    try:
        return os.open(part, _DIR_FLAGS, dir_fd=fd)
    except FileNotFoundError:
        if not create:
            raise
    try:
        os.mkdir(part, 0o755, dir_fd=fd)
    except FileExistsError:
        pass  # another writer made it meanwhile (or a link appeared: the open below refuses it)
    return os.open(part, _DIR_FLAGS, dir_fd=fd)


def read_no_follow(root: Path, relative: str) -> bytes:
    """The bytes of a regular file inside the archive, never through a link (:class:`ArchiveError` if one)."""
    parts = relative.split("/")
    fd = open_folder(root, parts[:-1], create=False)
    try:
        try:
            handle = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), dir_fd=fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise ArchiveError(f"{relative}: is a symlink; links are never followed") from None
            raise
        with os.fdopen(handle, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise ArchiveError(f"{relative}: not a regular file")
            return file.read()
    finally:
        os.close(fd)


def write_new_file(target: Path, data: bytes, root: Path | None = None) -> None:
    """Write ``data`` to ``target`` atomically; raise :class:`RecordExistsError` if it exists.

    The bytes go to a temporary file in the same folder (named after its owner, so a dead
    writer's leftovers can be removed), are fsynced, then hard-linked to the final name
    (``link`` fails instead of replacing, unlike ``rename``), so two writers racing for one
    path cannot both succeed and a reader never sees a partial file. Folders below ``root``
    (default: the target's folder) are never followed through a link.
    """
    root = Path(root) if root is not None else target.parent
    parts = list(target.relative_to(root).parts)
    folder = open_folder(root, parts[:-1], create=True)
    name = parts[-1]
    tmp = f".{name}.{owner_now().token()}~{secrets.token_hex(4)}{TMP_SUFFIX}"
    try:
        try:
            os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            pass
        else:
            raise RecordExistsError(f"{target}: already exists; the archive is append-only")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=folder)
        try:
            try:
                _write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(tmp, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
            except FileExistsError:
                raise RecordExistsError(f"{target}: already exists; the archive is append-only") from None
        finally:
            try:
                os.unlink(tmp, dir_fd=folder)
            except FileNotFoundError:
                pass
        try:
            os.fsync(folder)
        except OSError:
            pass
    finally:
        os.close(folder)


def _write_all(fd: int, data: bytes) -> None:
    """Every byte of ``data`` to ``fd`` (``os.write`` may write fewer than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class ArchiveWriter:
    """Writes records under an archive root and remembers what it wrote (for the tick manifest)."""

    def __init__(self, root: Path | str, archive: Archive | None = None, *,
                 max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES):  # fmt: skip
        self.root = Path(root)
        self.written: list[str] = []
        self.archive = archive  # when given, kept up to date with every record written
        self.max_record_bytes = max_record_bytes

    def exists(self, record: Record) -> bool:
        return os.path.lexists(self.root / path_for(record))

    def checked_bytes(self, record: Record) -> bytes:
        """The record's bytes, or an :class:`ArchiveError` when it holds a secret or is too large."""
        relative = path_for(record)
        try:
            data = record_bytes(record)
        except orjson.JSONEncodeError as exc:  # e.g. an integer beyond 64 bits: a number no reader could take
            raise ArchiveError(f"{relative}: the record cannot be written as JSON ({exc}); not written") from None
        if contains_secret(data):
            raise SecretInRecordError(f"{relative}: the record still holds a secret (an API key); not written")
        if len(data) > self.max_record_bytes:
            raise RecordTooLargeError(f"{relative}: the record is {len(data)} bytes, over the limit of "
                                      f"{self.max_record_bytes}; not written")
        return data

    def write(self, record: Record) -> str:
        """Write one record at its path; return the archive-relative path.

        A write the file system refuses (``ENOSPC``, ``EROFS``, ...) is a :class:`WriteFailedError`
        naming the path and the reason; the temporary file is removed, so no part of it is left.
        """
        relative = path_for(record)
        data = self.checked_bytes(record)
        try:
            write_new_file(self.root / relative, data, self.root)
        except OSError as exc:
            raise WriteFailedError(f"{relative}: cannot be written: {exc.strerror or exc}; not written") from None
        self._took(relative, record)
        return relative

    def register(self, record: Record, same: Callable[[Record, Record], bool] | None = None) -> tuple[str, bool]:
        """Write ``record``, or accept the record another writer put at its path first.

        Returns ``(path, written)``. The path already holding the same bytes, or a valid record
        that ``same(existing, record)`` calls equivalent (another tick registered it a moment
        earlier), is success: ``written`` is False and the existing record joins the view.
        Anything else there raises :class:`RecordExistsError` naming both.
        """
        relative = path_for(record)
        try:
            return self.write(record), True
        except RecordExistsError:
            pass
        data = read_no_follow(self.root, relative)
        if data == record_bytes(record):
            existing = record
        else:
            try:
                existing = RECORD_ADAPTER.validate_json(data)
            except ValueError:
                existing = None
            if existing is None or same is None or type(existing) is not type(record) or not same(existing, record):
                raise RecordExistsError(f"{relative}: another record is already there (a file of {len(data)} bytes that "
                                        f"differs from this {record.kind} record's {len(record_bytes(record))}); not overwritten")
        if self.archive is not None and relative not in self.archive.records:
            self.archive.add(relative, existing)
        return relative, False

    def _took(self, relative: str, record: Record) -> None:
        self.written.append(relative)
        if self.archive is not None:
            self.archive.add(relative, record)


def dead_temp_files(root: Path) -> list[Path]:
    """Temporary files under ``root`` left by writers that are gone (their owner is provably dead).

    A temporary file is named ``.{record}.{host}~{pid}~{start}~{random}.tmp``; one whose owner
    is alive, or on another host, or that cannot be parsed, is left alone.
    """
    from collector.archive.write.owner import Owner

    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for name in files:
            if not (name.startswith(".") and name.endswith(TMP_SUFFIX)):
                continue
            parts = name[: -len(TMP_SUFFIX)].rsplit("~", 3)
            if len(parts) != 4:
                continue
            owner = Owner.parse("~".join([parts[0].rsplit(".", 1)[-1], parts[1], parts[2]]))
            if owner is not None and not owner.alive():
                found.append(Path(folder) / name)
    return found


def remove_dead_temp_files(root: Path) -> int:
    """Remove :func:`dead_temp_files`; return how many were removed."""
    removed = 0
    for path in dead_temp_files(Path(root)) if Path(root).is_dir() else []:
        try:
            path.unlink()
            removed += 1
        except FileNotFoundError:
            pass
    return removed
