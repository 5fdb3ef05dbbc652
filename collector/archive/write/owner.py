"""Who holds a lock or a temporary file: host, process id and process start time.

A process id alone is reused after the process dies; the start time (``/proc/<pid>/stat``
field 22, clock ticks since boot) tells a new process with the same id from the old one. An
owner on another host cannot be checked from here, so it counts as alive (its lock is
respected until it goes stale by age).
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from functools import cache


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot, or None when it is gone (or unknowable)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()  # the command name may hold spaces and brackets
    return fields[19] if len(fields) > 19 else None


@dataclass(frozen=True)
class Owner:
    host: str
    pid: int
    started: str  # "" where /proc is unavailable

    def token(self) -> str:
        """The one-line form written into lock files and temporary file names (no '/', no '.')."""
        return f"{self.host.replace('.', '_').replace('/', '_')}~{self.pid}~{self.started or '0'}"

    @classmethod
    def parse(cls, token: str) -> Owner | None:
        parts = token.strip().split("~")
        if len(parts) != 3 or not parts[1].isdigit():
            return None
        return cls(parts[0], int(parts[1]), "" if parts[2] == "0" else parts[2])

    def alive(self) -> bool:
        """False only when the owner is provably gone: same host, and no process with its id and start time."""
        if self.host != current().host:
            return True
        if self.pid == os.getpid():
            return True
        started = _start_time(self.pid)
        if started is None:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                return True
            return not os.path.exists("/proc/self/stat")  # /proc exists but not this pid: gone
        return not self.started or started == self.started


@cache
def current() -> Owner:
    """This process as an owner."""
    host = socket.gethostname().replace("~", "_") or "localhost"
    return Owner(host.replace(".", "_").replace("/", "_"), os.getpid(), _start_time(os.getpid()) or "")


def owner_now() -> Owner:
    """This process (recomputed after a fork, whose pid differs)."""
    me = current()
    if me.pid != os.getpid():
        current.cache_clear()
        me = current()
    return me
