"""Reading record files: the one read every loader makes of a file, and a worker process that reads
and hashes a list of them beside the process that validates them.

Validation holds the GIL, so a reading *thread* waits for it after every system call and the
reads end up taking turns with validation (docs/performance.md, archive I/O). The worker is
a second interpreter running this file as a script (``python -I -S``: no site, no environment,
no Prematch import; the standard library only): it opens each file as the reader does (never
following a link), reads it, hashes it, and streams the bytes and the SHA-256 back through a
pipe, in order. The loading process still validates every byte it is sent. The pipe holds a
bounded amount, so the worker is never more than about a megabyte ahead.

Frames on the worker's stdout, one per path asked for, in order: ``FRAME`` (status, a, b) then,
for status ``READ``, 32 digest bytes and ``a`` bytes of the file; for status ``FAILED``, nothing
more: ``a`` is the errno and ``b`` tells what the error named (``NAMED_PATH``, ``NAMED_NOTHING``, or
a descriptor number), so the loader rebuilds the very message a read in its own process gives.
"""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
import sys
from collections.abc import Iterator

READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
READ_CHUNK = 1 << 16  # bytes asked of each read: one call holds a typical record file whole
FRAME = struct.Struct("<Bqq")
READ, FAILED = 0, 1
NAMED_PATH, NAMED_NOTHING = -1, -2
DIGEST_BYTES = 32
PIPE_BUFFER = 1 << 20  # what the pipe from the worker holds (kernel memory)
STREAM_BUFFER = 1 << 16  # each end's buffer in this process, and at most this much per write of names:
NAMES_PER_WRITE = 512  # below malloc's mmap threshold, whose raising by one large free left later
                       # dict resizes to fragment the heap


def read_file(path: str | bytes) -> bytes:
    """All of one file's bytes, refusing a link swapped in since the scan (``O_NOFOLLOW``).

    Plain ``os.read`` calls (no file object per file: a third of the read time). A folder found
    here instead of a file is refused as ``open`` refused it, naming the descriptor."""
    fd = os.open(path, READ_FLAGS)
    try:
        chunks = []
        while chunk := os.read(fd, READ_CHUNK):
            chunks.append(chunk)
    except IsADirectoryError as exc:
        raise IsADirectoryError(exc.errno, exc.strerror, fd) from None
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def serve(root: bytes, names: list[bytes], out) -> None:
    """The worker's loop: one frame per name, in order (paths stay bytes: no decoding here)."""
    for name in names:
        try:
            data = read_file(os.path.join(root, name))
        except OSError as exc:
            named = exc.filename
            code = named if isinstance(named, int) else NAMED_NOTHING if named is None else NAMED_PATH
            out.write(FRAME.pack(FAILED, exc.errno or 0, code))
        else:
            out.write(FRAME.pack(READ, len(data), 0))
            out.write(hashlib.sha256(data).digest())
            out.write(data)
    out.flush()


def worker_reads(root: str, paths: list[str]) -> Iterator[tuple[str, bytes | OSError, str | None]]:
    """Each path with its bytes and SHA-256 (hex), or with the error reading it and None, as read
    by a worker process, in order. Stops early (without raising) if the worker cannot be started
    or ends before its last frame: the caller reads whatever is left itself."""
    try:
        worker = subprocess.Popen(worker_command(), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=STREAM_BUFFER)
    except (OSError, ValueError, TypeError):  # no interpreter to run (sys.executable can be "" or None)
        return
    _widen(worker.stdout.fileno())
    try:
        try:
            worker.stdin.write(os.fsencode(root))
            for start in range(0, len(paths), NAMES_PER_WRITE):
                worker.stdin.write(os.fsencode("".join(f"\0{p}" for p in paths[start : start + NAMES_PER_WRITE])))
            worker.stdin.close()
        except OSError:  # the worker ended before taking the list
            return
        yield from _frames(worker.stdout, root, paths)
    finally:
        worker.kill()
        worker.wait()
        worker.stdout.close()
        try:
            worker.stdin.close()  # already closed, unless the worker ended before taking the list
        except OSError:
            pass


def _widen(pipe: int) -> None:
    """Let the pipe hold :data:`PIPE_BUFFER` bytes (Linux; 64 KB otherwise), so the worker runs a
    few hundred files ahead instead of waking up every few dozen."""
    try:
        import fcntl

        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, PIPE_BUFFER)
    except (ImportError, AttributeError, OSError):
        pass


def worker_command() -> list[str]:
    """This file run as a script by this interpreter, isolated: no site, no environment variables."""
    return [sys.executable, "-I", "-S", __file__]


def _frames(stream, root: str, paths: list[str]) -> Iterator[tuple[str, bytes | OSError, str | None]]:
    """Decode the worker's frames, one per path; stop at the first missing or malformed one."""
    for relative in paths:
        head = stream.read(FRAME.size)
        if len(head) != FRAME.size:
            return
        status, a, b = FRAME.unpack(head)
        if status == READ and a >= 0:
            digest, data = stream.read(DIGEST_BYTES), stream.read(a)
            if len(digest) != DIGEST_BYTES or len(data) != a:
                return
            yield relative, data, digest.hex()
        elif status == FAILED:
            named = os.path.join(root, relative) if b == NAMED_PATH else None if b == NAMED_NOTHING else b
            yield relative, OSError(a, os.strerror(a), named), None
        else:
            return


def _main() -> None:
    root, *names = sys.stdin.buffer.read().split(b"\0")
    serve(root, names, open(sys.stdout.fileno(), "wb", buffering=PIPE_BUFFER))


if __name__ == "__main__":
    _main()
