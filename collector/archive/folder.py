"""The one rule for a folder given as ``--archive``: what an archive folder may hold.

Every command that takes ``--archive`` calls :func:`check_archive_dir` before it reads or
writes, so a repository, a project folder or a folder inside an archive is refused with a
usage error (exit 2) that points at the folder meant.
"""

from __future__ import annotations

import os
from pathlib import Path

from collector.archive.layout import MANIFEST_DIR, SCHEMA_DIR
from collector.errors import UsageError

PROJECT_MARKERS = (".git", "pyproject.toml", "archive")
COMPETITION_MARKERS = ("events", "questions")


def check_archive_dir(path: Path | str, *, may_be_missing: bool = False) -> None:
    """The one rule for a folder given as ``--archive``; a :class:`UsageError` (exit 2) says why not.

    An archive folder exists (a command that writes may create it: ``may_be_missing``), is a
    folder, and its top holds nothing but ``schema/``, ``manifests/`` and competition folders
    (each holding a ``competition.rNNN.json``, ``events/`` or ``questions/``; an empty folder is
    harmless); hidden entries are ignored. So an empty folder is an (empty) archive. A
    repository or project folder (with ``.git``, ``pyproject.toml`` or an ``archive/`` inside)
    is refused, pointing at its ``archive/``; a folder inside an archive (a competition folder,
    ``schema/``), pointing at the archive.
    """
    root = Path(path)
    if not root.exists():
        if may_be_missing:
            return
        raise UsageError(f"{root}: no such archive folder")
    if not root.is_dir():
        raise UsageError(f"{root}: not a folder, so not an archive")
    markers = [name for name in PROJECT_MARKERS if (root / name).exists()]
    if markers:
        inner = root / "archive"
        hint = f"; did you mean --archive {inner}?" if inner.is_dir() and _archive_problem(inner) is None else ""
        raise UsageError(f"{root}: not an archive: it holds {', '.join(markers)}, like a repository or project "
                         f"folder{hint}")
    problem = _archive_problem(root)
    if problem is not None:
        parent = root.parent if root.name not in ("", "..") and root.parent != root else root.resolve().parent
        hint = f"; did you mean --archive {parent}?" if _archive_problem(parent) is None else ""
        raise UsageError(f"{root}: not an archive: {problem}{hint}")


def _archive_problem(root: Path) -> str | None:
    """Why ``root``'s top level is not an archive's (None: it is one, or is empty)."""
    files, strangers = [], []
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if not entry.is_dir():
                files.append(entry.name)
            elif entry.name not in (SCHEMA_DIR, MANIFEST_DIR) and not _is_competition_folder(Path(entry.path)):
                strangers.append(f"{entry.name}/")
    if files:
        return f"it holds the file(s) {_some(files)} (an archive's top holds only folders)"
    if strangers:
        return (f"{_some(strangers)} {'is not a competition folder' if len(strangers) == 1 else 'are not competition folders'}"
                " (an archive holds schema/, manifests/ and competition folders)")
    return None


def _is_competition_folder(folder: Path) -> bool:
    """A folder with a competition record, ``events/`` or ``questions/``, or one holding nothing but
    hidden entries (empty, or a writer's temporary file whose record another tick is linking in
    right now: two ticks on a fresh archive)."""
    return (any((folder / name).is_dir() for name in COMPETITION_MARKERS)
            or any(folder.glob("competition.r*.json")) or all(p.name.startswith(".") for p in folder.iterdir()))


def _some(names: list[str]) -> str:
    names = sorted(names)
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
