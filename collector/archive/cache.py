"""Where Prematch keeps what it can recompute: ``.git/prematch/`` of the archive's repository.

Caches live beside the repository's objects, never in the work tree (so nothing cached is
ever committed) and never in the archive. A build outside a git checkout, or one asked not to
use a cache, passes ``None`` and recomputes everything. The Pages workflow points the builder
at a folder it keeps with the Actions cache instead (``--cache``).
"""

from __future__ import annotations

from pathlib import Path

from collector.archive.git import git
from collector.errors import ArchiveError

CACHE_SUBFOLDER = "prematch"


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT = _Default()  # pass as ``cache``: the repository's ``.git/prematch/`` (none outside git)


def default_cache_folder(archive_dir: Path | str) -> Path | None:
    """``<git common dir>/prematch`` of the repository holding ``archive_dir``; None outside git."""
    try:
        found = git(archive_dir, "rev-parse", "--path-format=absolute", "--git-common-dir", timeout=20)
    except ArchiveError:
        return None
    text = found.decode(errors="replace").strip()
    return Path(text) / CACHE_SUBFOLDER if text else None


def cache_folder(archive_dir: Path | str, cache: Path | str | _Default | None) -> Path | None:
    """The one rule for a ``cache`` argument: :data:`DEFAULT` (the repository's folder, see
    :func:`default_cache_folder`), a folder given by the caller, or None (no cache)."""
    if cache is None:
        return None
    if cache is DEFAULT:
        return default_cache_folder(archive_dir)
    return Path(cache)

