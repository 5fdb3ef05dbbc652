"""Work run in a forked child process while the parent goes on: the build's second core.

``Background([(name, task), ...])`` forks one child (``os.fork``: copy-on-write, the inputs are
never pickled) that runs the tasks in order and sends each result back pickled through a
pipe; ``result(name)`` waits for that task's result. A reader thread drains the pipe as the
results arrive, so a large early result never blocks the child's later tasks.

The serial fallback runs the same tasks in the parent, each when its result is first asked
for, and passes every result through the same pickling, so what the caller gets does not
depend on where a task ran. It is used when the platform has no ``os.fork``, when the machine
has one core, or when ``PREMATCH_BUILD_WORKERS=1``.

Failures are errors, never partial results: an exception in the child reaches the parent as a
:class:`BackgroundError` naming the task and the child's exception type, message and
traceback; a child that dies (killed, crashed, ``os._exit``) before sending a result is a
:class:`BackgroundError` too. ``close()`` (also on leaving a ``with`` block, whatever happened)
kills a child still running and reaps it: no zombie is left behind.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import threading
import time
import traceback
from collections.abc import Callable, Sequence

WORKERS_ENV = "PREMATCH_BUILD_WORKERS"
"""The number of processes a build may use; ``1`` runs all of its work in the one process."""

READER_JOIN_S = 10.0
"""How long ``close`` waits for the reader thread once the child is reaped (it ends at the pipe's
end, which the child's exit closes; the bound only guards against a descendant holding it)."""
_HEADER = struct.Struct("<Q")  # each frame: its length, then the pickled (kind, name, value, seconds)


class BackgroundError(RuntimeError):
    """A task run in the child failed, or the child died before sending its result."""


def workers() -> int:
    """How many processes the build may use: ``PREMATCH_BUILD_WORKERS`` if set (at least 1),
    else 2 on a machine with more than one core, and always 1 without ``os.fork``."""
    if not hasattr(os, "fork"):
        return 1
    setting = os.environ.get(WORKERS_ENV, "").strip()
    if setting:
        try:
            return max(1, int(setting))
        except ValueError:
            raise ValueError(f"{WORKERS_ENV}={setting!r}: expected a whole number of processes, such as 1 or 2") from None
    return 2 if (os.cpu_count() or 1) > 1 else 1


def _frame(kind: str, name: str, value, seconds: float = 0.0) -> bytes:
    body = pickle.dumps((kind, name, value, seconds), protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(body)) + body


def _read_frame(pipe) -> bytes | None:
    """The next whole frame's pickled body, or None at the end of the stream or at a cut frame
    (a child killed while writing: what it sent of that frame is dropped, never unpickled)."""
    header = pipe.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    size = _HEADER.unpack(header)[0]
    body = pipe.read(size)
    return body if len(body) == size else None


def _failure(name: str, error: BaseException) -> tuple[str, str, str]:
    """What the parent is told about a task's exception: its type, message and traceback text."""
    kind = type(error)
    return (f"{kind.__module__}.{kind.__qualname__}", str(error),
            "".join(traceback.format_exception(kind, error, error.__traceback__)))


def _run_child(write_fd: int, tasks: Sequence[tuple[str, Callable[[], object]]]) -> None:
    """The child's whole life: run each task, send its result (or its failure, then stop), exit.

    It never returns into the parent's code (``os._exit``, no ``atexit`` or ``finally`` of the
    parent's stack runs twice), and it dies with the default action of SIGINT and SIGTERM."""
    code = 1
    try:
        _die_with_parent()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with os.fdopen(write_fd, "wb") as pipe:
            for name, task in tasks:
                start = time.perf_counter()
                try:
                    frame = _frame("ok", name, task(), time.perf_counter() - start)
                except BaseException as error:  # noqa: BLE001 - every failure goes to the parent
                    pipe.write(_frame("error", name, _failure(name, error)))
                    break
                pipe.write(frame)
                pipe.flush()
            else:
                code = 0
    finally:
        os._exit(code)


def _die_with_parent() -> None:
    """On Linux, have the kernel kill the child if the parent dies (even by SIGKILL), so no
    orphan goes on writing; elsewhere the parent's ``close`` is the only guard."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _describe(status: int) -> str:
    """A child's wait status in words (``os.waitstatus_to_exitcode``: negative is a signal)."""
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        return f"was killed by signal {-code} ({signal.Signals(-code).name})"
    return f"exited with code {code}"


class Background:
    """Named tasks run in one forked child (``parallel``) or in the parent when asked for."""

    def __init__(self, tasks: Sequence[tuple[str, Callable[[], object]]], parallel: bool | None = None):
        self.tasks = dict(tasks)
        if len(self.tasks) != len(tasks):
            raise ValueError("each background task needs its own name")
        self.parallel = workers() > 1 if parallel is None else parallel
        self._results: dict[str, tuple[str, object]] = {}
        self.seconds: dict[str, float] = {}
        """Each finished task's own time (in the child, or here for serial work)."""
        self._pid: int | None = None
        self._status: int | None = None
        self._done = threading.Condition()
        self._ended = False
        self._reader: threading.Thread | None = None
        if self.parallel:
            self._start(list(tasks))

    def _start(self, tasks: list) -> None:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            os.close(read_fd)
            _run_child(write_fd, tasks)
        os.close(write_fd)
        self._pid = pid
        self._reader = threading.Thread(target=self._drain, args=(read_fd,), name="prematch-background", daemon=True)
        self._reader.start()

    def _drain(self, read_fd: int) -> None:
        """Read every frame the child sends until it closes the pipe (the reader thread)."""
        try:
            with os.fdopen(read_fd, "rb") as pipe:
                while (frame := _read_frame(pipe)) is not None:
                    kind, name, value, seconds = pickle.loads(frame)
                    with self._done:
                        self._results[name] = (kind, value)
                        self.seconds[name] = seconds
                        self._done.notify_all()
        finally:  # whatever ended the stream (the child's exit, a cut frame): no one waits forever
            with self._done:
                self._ended = True
                self._done.notify_all()

    def result(self, name: str):
        """The result of task ``name``: waited for (parallel) or computed now (serial)."""
        if name not in self.tasks:
            raise KeyError(name)
        if not self.parallel:
            start = time.perf_counter()
            value = pickle.loads(pickle.dumps(self.tasks[name](), protocol=pickle.HIGHEST_PROTOCOL))
            self.seconds[name] = time.perf_counter() - start
            return value
        with self._done:
            self._done.wait_for(lambda: name in self._results or self._ended)
            found = self._results.get(name)
        if found is None:  # the stream ended: the child has closed its end, so it is exiting (reaped here)
            raise BackgroundError(f"background task {name!r}: the child process {self._why_ended()} "
                                  "before sending its result")
        kind, value = found
        if kind == "error":
            self.close()
            error_type, message, trace = value
            raise BackgroundError(f"background task {name!r} failed in the child process: {error_type}: {message}\n"
                                  f"child's traceback:\n{trace}")
        return value

    def _why_ended(self) -> str:
        self._reap(block=True)
        return _describe(self._status) if self._status is not None else "ended"

    def _reap(self, block: bool) -> None:
        if self._pid is None or self._status is not None:
            return
        pid, status = os.waitpid(self._pid, 0 if block else os.WNOHANG)
        if pid:
            self._status = status

    def close(self) -> None:
        """Kill the child if it still runs, reap it and wait for the reader thread to end, so that
        a later fork finds no thread of this one running (idempotent; a no-op for serial work)."""
        if self._pid is not None and self._status is None:
            self._reap(block=False)
            if self._status is None:
                try:
                    os.kill(self._pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self._reap(block=True)
        if self._reader is not None:  # the child is gone, its end of the pipe closed: the reader is at its end
            self._reader.join(timeout=READER_JOIN_S)

    def __enter__(self) -> Background:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
