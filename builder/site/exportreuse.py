"""Downloads kept from the previous build when nothing they are made of changed.

The downloads (:mod:`builder.site.exports`) are a pure function of the archive's files, the
commit and the code that loads, scores and exports them. The archive manifest already names the
first two (the SHA-256 of every archive file and the commit), so the downloads' fingerprint is
the SHA-256 of the manifest's bytes and of the code (:func:`code_fingerprint`). A build whose
fingerprint is the one the previous build kept in the page cache (:mod:`builder.site.cachedb`)
hands the site writer the previous site's files as :class:`~builder.site.sitewriter.Cached`
contents instead of writing the tables again; any download missing or altered in the site (its
state in the cache no longer vouches for it and its bytes differ) makes every download built
afresh. It never changes a byte of the site, only how fast it is built.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import sys
from collections.abc import Mapping
from functools import cache
from importlib.metadata import version
from pathlib import Path

from builder.site.sitewriter import Cached, FileState, site_file_sha256

ROOT = Path(__file__).resolve().parents[2]
CODE = ("builder", "collector")  # what loads, scores and exports the archive
LIBRARIES = ("numpy", "orjson", "pydantic", "pydantic-core")


@cache
def code_fingerprint(root: Path = ROOT, folders: tuple[str, ...] = CODE) -> str:
    """SHA-256 over every file of the loading, scoring and export code and the versions of what
    formats the bytes (Python, SQLite, numpy, orjson, pydantic): a change to any of them rebuilds
    the downloads. Computed once per process."""
    versions = [sys.version, sqlite3.sqlite_version] + [f"{name} {version(name)}" for name in LIBRARIES]
    digest = hashlib.sha256("\n".join(versions).encode())
    for folder in folders:
        base = root / folder
        for path in sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(f"{path.relative_to(root).as_posix()}".encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def exports_fingerprint(manifest: bytes) -> str:
    """The downloads' fingerprint: the archive manifest's bytes (every archive file and the commit) and the code."""
    return hashlib.sha256(code_fingerprint().encode() + b"\0" + manifest).hexdigest()


def _vouched(path: Path, state: FileState) -> bool:
    """True when the site file at ``path`` still holds the bytes ``state`` names (by its stat, else by hashing it)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_size != state.size:
        return False
    return state.matches(st) or site_file_sha256(path) == state.sha256


def kept_exports(names: list[str], states: Mapping[str, FileState], out_dir: Path) -> dict[str, Cached] | None:
    """Each download of the previous build as a :class:`Cached` content read from the site, or None
    when any of them is not in the site as that build left it (then every download is built)."""
    kept: dict[str, Cached] = {}
    for name in names:
        state, path = states.get(name), Path(out_dir) / name
        if state is None or not _vouched(path, state):
            return None
        kept[name] = Cached(state.sha256, state.size, path.read_bytes)
    return kept
