"""Write the site's files into the output folder, rewriting only the files whose bytes changed.

Each output file is handed over as it is made (:meth:`SiteWriter.put`), as ``bytes``, a
:class:`pathlib.Path` to a finished temporary file (streamed exports), an :class:`ArchiveCopy`
(a record's raw JSON, copied from the archive only when its copy is missing or stale) or a
:class:`Cached` page (its SHA-256 known, its bytes loaded from the page cache only if they must
be written). Nothing keeps every file's bytes in memory: the writer holds one
:class:`FileState` per name.

Two modes, one guarantee (a failed build leaves the previous site as it was, every file whole):

* **fresh** (no previous site, or no cache to compare with): every file is written into a new
  folder beside ``out_dir``, which then replaces it (the cold path).
* **incremental** (a previous site and the cache's record of it): the files whose bytes differ
  from the site's are written into a staging folder beside ``out_dir``; nothing in the site is
  touched until every file is staged. Then files that vanished (and links or special files an
  editor left) are removed and each staged file is renamed into place. Interrupted in that
  last step, the site holds only whole files (old or new); the next build finds the stale ones
  by their state and rewrites them.

A file is "unchanged" when the cache's :class:`FileState` for it (SHA-256, size, mtime, ctime,
inode, taken after the previous build) matches the file on disk, as git's index trusts a stat
(an edit changes the ctime, which no one can set back). A state taken within ``RACY_NS`` of the
file's ctime is not trusted (an edit in the same clock tick would keep it); such a file, and any
file without a matching state, is read and hashed before it is kept.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from collector.errors import ArchiveError

RACY_NS = 50_000_000  # 50 ms: more than a coarse file-system clock tick
CHUNK = 1 << 20
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True, slots=True)
class FileState:
    """One output file as the previous build left it: its content hash and the stat that vouches for it."""

    sha256: str
    size: int
    mtime_ns: int = -1
    ctime_ns: int = -1
    ino: int = -1

    def matches(self, st: os.stat_result) -> bool:
        return (self.size, self.mtime_ns, self.ctime_ns, self.ino) == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


@dataclass(frozen=True, slots=True)
class ArchiveCopy:
    """A record file to copy from the archive; ``sha256`` is the hash of the bytes the load validated."""

    source: Path
    sha256: str


@dataclass(frozen=True, slots=True)
class Cached:
    """A page whose bytes are in the page cache: ``load`` fetches them only when they must be written."""

    sha256: str
    size: int
    load: Callable[[], bytes]


Content = bytes | Path | ArchiveCopy | Cached


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def site_file_sha256(path: Path) -> str:
    """SHA-256 of a site file's bytes ("" if it cannot be read or has become a link: it is then rewritten)."""
    digest = hashlib.sha256()
    try:
        with open(os.open(path, _READ_FLAGS), "rb") as handle:
            while chunk := handle.read(CHUNK):
                digest.update(chunk)
    except OSError:
        return ""
    return digest.hexdigest()


def walk_site(root: Path) -> Iterator[tuple[str, os.DirEntry]]:
    """Every entry under ``root`` (relative POSIX name, entry), never following a link."""
    stack = [""]
    while stack:
        prefix = stack.pop()
        with os.scandir(root / prefix if prefix else root) as entries:
            for entry in entries:
                name = f"{prefix}{entry.name}"
                yield name, entry
                if entry.is_dir(follow_symlinks=False):
                    stack.append(name + "/")


class SiteWriter:
    """Writes one build's files into ``out_dir`` (see the module docstring for the two modes)."""

    def __init__(self, out_dir: Path, previous: Mapping[str, FileState] | None) -> None:
        self.out = Path(out_dir).resolve()
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.previous = previous or {}
        self.states: dict[str, FileState] = {}
        self.staged: list[str] = []
        self.existing: set[str] = set()  # the previous site's files (each stat'ed when its name is put)
        self.dirs: set[str] = set()
        self.obstacles: list[str] = []  # links and special files in the previous site
        self.fresh = previous is None or not self.out.is_dir() or not any(self.out.iterdir())
        if not self.fresh:
            self._scan()
        self.staging = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.", dir=self.out.parent))
        self.staging.chmod(0o777 & ~_umask())  # mkdtemp makes it 0700; the site gets any folder's modes

    def _scan(self) -> None:
        for name, entry in walk_site(self.out):
            if entry.is_dir(follow_symlinks=False):
                self.dirs.add(name)
            elif entry.is_file(follow_symlinks=False):
                self.existing.add(name)
            else:
                self.obstacles.append(name)

    @property
    def written(self) -> int:
        """Files staged so far (the rest were found unchanged in the site)."""
        return len(self.staged)

    def put(self, name: str, content: Content) -> FileState:
        """Hand over one output file; returns its state (its SHA-256 and size are what pages cite)."""
        if name in self.states:
            raise ValueError(f"{name}: two output files with one name")
        sha, size = _identify(content)
        if not self.fresh and self._unchanged(name, sha, size):
            return self.states[name]
        target = self.staging / name
        target.parent.mkdir(parents=True, exist_ok=True)
        _materialise(content, sha, target)
        self.staged.append(name)
        self.states[name] = state = FileState(sha, size)
        return state

    def _unchanged(self, name: str, sha: str, size: int) -> bool:
        if name not in self.existing:
            return False
        try:  # stat'ed now, not kept from the scan: 300,000 stat results are a few hundred megabytes
            st = os.stat(f"{self.out}/{name}", follow_symlinks=False)
        except OSError:
            return False
        if not stat.S_ISREG(st.st_mode):  # became a link or a folder since the scan: written again
            return False
        before = self.previous.get(name)
        if before is not None and before.sha256 == sha and before.matches(st):
            self.states[name] = before
            return True
        if size >= 0 and size != st.st_size:
            return False
        if site_file_sha256(self.out / name) == sha:  # the same bytes under an unknown or untrusted state
            self.states[name] = FileState(sha, st.st_size)
            return True
        return False

    def commit(self) -> dict[str, FileState]:
        """Put the staged files in place, remove what vanished; return every file's state for the cache."""
        try:
            if self.fresh:
                if self.out.exists():
                    shutil.rmtree(self.out)
                self.staging.rename(self.out)
            else:
                self._replace()
        finally:
            self.discard()
        return self._stat_written()

    def _replace(self) -> None:
        wanted_dirs = folders_of(self.states)
        for name in self.obstacles + [n for n in self.existing if n not in self.states]:
            (self.out / name).unlink(missing_ok=True)
        for name in sorted((d for d in self.dirs if d not in wanted_dirs), key=len):
            shutil.rmtree(self.out / name, ignore_errors=True)
        for name in self.staged:
            target = self.out / name
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.staging / name, target)

    def _stat_written(self) -> dict[str, FileState]:
        """The states of this build's files; a state taken within ``RACY_NS`` of the file's ctime is left untrusted."""
        fresh = [n for n, s in self.states.items() if s.ino < 0]
        now = time.time_ns()
        for name in fresh:
            state = self.states[name]
            st = os.stat(self.out / name, follow_symlinks=False)
            if now - st.st_ctime_ns > RACY_NS:
                self.states[name] = FileState(state.sha256, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            else:
                self.states[name] = FileState(state.sha256, st.st_size)
        return dict(self.states)

    def discard(self) -> None:
        """Remove the staging folder (after a failure: the site stays as the previous build left it)."""
        if self.staging.exists():
            shutil.rmtree(self.staging)


def vouched(path: Path, state: FileState) -> bool:
    """True when the site file at ``path`` (a regular file, never a link) still holds the bytes
    ``state`` names: by its stat, else by hashing it."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_size != state.size:
        return False
    return state.matches(st) or site_file_sha256(path) == state.sha256


def site_intact(out_dir: Path, states: Mapping[str, FileState]) -> bool:
    """Whether ``out_dir`` holds exactly the files ``states`` names, as the build that took them
    left them: the same regular files (each vouched for by its stat, else by its bytes' SHA-256)
    in the same folders, and nothing else (no stray file, folder, link or special file, which a
    build would remove). False for no states, or a folder that cannot be read."""
    if not states:
        return False
    out, folders, seen = Path(out_dir), folders_of(states), 0
    try:
        for name, entry in walk_site(out):
            if entry.is_dir(follow_symlinks=False):
                if name not in folders:
                    return False
                continue
            state = states.get(name)
            if state is None or not vouched(out / name, state):
                return False
            seen += 1
    except OSError:
        return False
    return seen == len(states)


def folders_of(names) -> set[str]:
    """Every folder (and parent folder) the file ``names`` lie in, as relative names without a trailing "/".

    Each name's parents are walked up only until one already found (its parents are found too)."""
    folders: set[str] = set()
    for name in names:
        cut = name.rfind("/")
        while cut >= 0 and (folder := name[:cut]) not in folders:
            folders.add(folder)
            cut = name.rfind("/", 0, cut)
    return folders


def _identify(content: Content) -> tuple[str, int]:
    if isinstance(content, bytes):
        return hashlib.sha256(content).hexdigest(), len(content)
    if isinstance(content, Path):
        with open(content, "rb") as handle:  # a finished export: an unreadable one is an error, not a change
            return hashlib.file_digest(handle, "sha256").hexdigest(), os.fstat(handle.fileno()).st_size
    if isinstance(content, ArchiveCopy):
        return content.sha256, -1  # the size is known once copied (never needed before)
    if isinstance(content, Cached):
        return content.sha256, content.size
    raise TypeError(f"{type(content).__name__}: not an output file's content")


def _materialise(content: Content, sha: str, target: Path) -> None:
    if isinstance(content, bytes):
        target.write_bytes(content)
    elif isinstance(content, Path):  # a finished temporary file: moved when it can be, else copied
        try:
            os.replace(content, target)
        except OSError:
            shutil.copyfile(content, target)
    elif isinstance(content, ArchiveCopy):
        data = content.source.read_bytes()
        if hashlib.sha256(data).hexdigest() != sha:
            raise ArchiveError(f"{content.source}: changed while the site was being built; build again")
        target.write_bytes(data)
    else:
        data = content.load()
        if hashlib.sha256(data).hexdigest() != sha:
            raise ValueError(f"page cache: the bytes kept for {target.name} do not match their hash")
        target.write_bytes(data)
