"""Read the git history of ``archive/`` in one ``git log`` pass, and blobs in one ``cat-file`` pass.

``read_history`` runs ``git log --reverse --first-parent --raw -z -- archive/`` once and
returns every commit that touched the archive, oldest first, with each file change (added,
modified, deleted, type-changed) and the blob ids before and after. Renames are reported
as a deletion plus an addition (``--no-renames``) so a moved record can never hide.

``read_blobs`` streams blob contents through a single ``git cat-file --batch`` process.
Paths returned are relative to the archive folder (``archive/`` stripped).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from collector.archive.git import git, head_commit
from collector.errors import ArchiveError, UsageError

NULL_BLOB = "0" * 40


class Commit(NamedTuple):
    """A commit that touched the archive: its position in first-parent order and its dates."""

    index: int
    sha: str
    committed_at: datetime  # committer date: set by whoever made the commit
    authored_at: datetime


class Change(NamedTuple):
    """One file changed by one commit. ``status`` is git's letter: A, M, D or T."""

    commit: Commit
    status: str
    path: str
    old_blob: str
    new_blob: str
    new_mode: str = "100644"  # git's file mode after the change: 120000 a symlink, 160000 a submodule


@dataclass(frozen=True)
class History:
    commits: list[Commit]
    changes: list[Change]
    head: str | None


LOG_ARGS = (
    "-c", "core.quotePath=false", "log", "--reverse", "--first-parent", "--diff-merges=first-parent",
    "--no-renames", "--raw", "--no-abbrev", "-z", "--format=%x1e%H%x00%ct%x00%at",
)


def read_history(repo: Path, archive_path: str = "archive", meanwhile: Callable[[], None] | None = None,
                 since: History | None = None) -> History:  # fmt: skip
    """Every commit that touched ``archive_path``, oldest first, with its file changes.

    ``meanwhile`` runs while git walks the history (the caller's own loading overlaps it).
    ``since``: a history read before (by this function, at an earlier HEAD); when its head is on
    HEAD's first-parent chain, only the commits after it are read and appended to it (the
    first-parent walk of ``since.head..HEAD`` is exactly the tail of the whole walk).
    """
    repo = Path(repo)
    shallow = git(repo, "rev-parse", "--is-shallow-repository").strip()  # raises when not a repository
    if shallow == b"true":
        raise ArchiveError(
            f"{repo} is a shallow clone: its oldest commit would seem to add every file. "
            "Fetch the whole history first: git fetch --unshallow"
        )
    head = head_commit(repo)
    if head is None:
        if meanwhile is not None:
            meanwhile()
        return History([], [], None)
    prefix = archive_path.strip("/") + "/"
    if since is not None and since.head == head:
        if meanwhile is not None:
            meanwhile()
        return since
    if since is not None and _on_first_parent_chain(repo, since.head, head):
        raw = git(repo, *LOG_ARGS, f"{since.head}..{head}", "--", prefix, meanwhile=meanwhile)
        tail = _parse_log(raw.decode("utf-8", "surrogateescape"), prefix, head, first_index=len(since.commits))
        return History(since.commits + tail.commits, since.changes + tail.changes, head)
    raw = git(repo, *LOG_ARGS, "--", prefix, meanwhile=meanwhile)
    return _parse_log(raw.decode("utf-8", "surrogateescape"), prefix, head)


def _on_first_parent_chain(repo: Path, ancestor: str | None, head: str) -> bool:
    """Whether ``ancestor`` is a commit on ``head``'s first-parent chain (and not ``head`` itself)."""
    if ancestor is None:
        return False
    try:
        lines = git(repo, "rev-list", "--first-parent", "--parents", f"{ancestor}..{head}").split(b"\n")
    except ArchiveError:  # e.g. the commit is gone (a rewritten history, collected)
        return False
    oldest = [line for line in lines if line.strip()][-1:]
    return bool(oldest) and oldest[0].split()[1:2] == [ancestor.encode()]


def _parse_log(text: str, prefix: str, head: str, first_index: int = 0) -> History:
    commits: list[Commit] = []
    changes: list[Change] = []
    for chunk in text.split("\x1e"):
        if not chunk.strip():
            continue
        tokens = chunk.split("\0")
        sha, committed, authored = tokens[0], tokens[1], tokens[2]
        commit = Commit(
            index=first_index + len(commits),
            sha=sha,
            committed_at=datetime.fromtimestamp(int(committed), UTC),
            authored_at=datetime.fromtimestamp(int(authored), UTC),
        )
        commits.append(commit)
        rest = tokens[3:]
        for meta, path in zip(rest[0::2], rest[1::2], strict=False):
            meta = meta.lstrip("\n")
            if not meta.startswith(":") or not path.startswith(prefix):
                continue
            fields = meta[1:].split(" ")
            changes.append(Change(commit, fields[4][0], path[len(prefix) :], fields[2], fields[3], fields[1]))
    return History(commits, changes, head)


def read_blobs(repo: Path, blob_ids: Iterable[str]) -> Iterator[tuple[str, bytes]]:
    """Yield ``(blob id, bytes)`` for each id, from one ``git cat-file --batch`` run."""
    ids = list(blob_ids)
    if not ids:
        return
    out = memoryview(git(repo, "cat-file", "--batch", input_bytes="".join(f"{b}\n" for b in ids).encode()))
    pos = 0
    for blob in ids:
        end = out.obj.index(b"\n", pos)
        header = bytes(out[pos:end]).split()
        if len(header) < 3 or header[1] == b"missing":
            raise ArchiveError(f"git cat-file: blob {blob} is missing from the repository")
        size = int(header[2])
        yield blob, bytes(out[end + 1 : end + 1 + size])
        pos = end + 2 + size  # the object, then a newline


def check_repository(repo: Path, archive_path: str = "archive") -> None:
    """The rule for ``--repo`` and ``--archive-path`` (verify, guard); a :class:`UsageError` says why not.

    ``repo`` is the top folder of a git repository with its whole history (not a shallow
    clone), and ``archive_path`` is in its working tree or in its history (a deleted archive
    is still checked: its deletion is what gets reported).
    """
    repo = Path(repo)
    if not repo.is_dir():
        raise UsageError(f"{repo}: no such folder")
    shallow, top = _shallow_and_top(repo)
    if top is not None and top.resolve() != repo.resolve():
        raise UsageError(f"{repo}: inside the git repository {top}, not its top folder; did you mean --repo {top}?")
    if shallow == "true":
        raise UsageError(f"{repo} is a shallow clone: its oldest commit would seem to add every file. "
                         "Fetch the whole history first: git fetch --unshallow")
    prefix = archive_path.strip("/")
    if not (repo / prefix).is_dir():
        try:  # fails in a repository without commits: nothing in its history either
            in_history = git(repo, "log", "-1", "--format=%H", "--", prefix + "/").strip()
        except ArchiveError:
            in_history = b""
        if not in_history:
            raise UsageError(f"{repo}: no folder {prefix}/ in its working tree or its history (see --archive-path)")


def _shallow_and_top(repo: Path) -> tuple[str, Path | None]:
    """Whether ``repo`` is shallow, and its working tree's top folder (None when bare), from one
    ``git rev-parse`` when all is well; :class:`UsageError` naming what it is not otherwise."""
    with contextlib.suppress(ArchiveError, ValueError):
        _, shallow, top = git(repo, "rev-parse", "--is-bare-repository", "--is-shallow-repository",
                              "--show-toplevel").decode().strip().split("\n")  # fmt: skip
        return shallow, Path(top)
    try:  # --show-toplevel fails in a bare repository and inside a .git folder: which is it?
        bare, shallow = git(repo, "rev-parse", "--is-bare-repository", "--is-shallow-repository").decode().split()
    except (ArchiveError, ValueError):
        raise UsageError(f"{repo}: not a git repository") from None
    if bare != "true":  # e.g. the .git folder itself
        raise UsageError(f"{repo}: not the working tree of a git repository")
    return shallow, None
