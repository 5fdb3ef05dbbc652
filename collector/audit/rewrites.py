"""History rewrites seen: a commit verified before, or named by an anchor, must still be in the history.

A rewritten history (a forecast inserted before its kickoff, the rest rebased and re-dated) can
look clean to every check of one history: its dates agree with each other. What it cannot do is
keep the commits someone saw before. Three ways to hold it to them:

* the clone's own past: each cached ``verify`` notes the HEAD it verified in
  ``.git/prematch/verified-heads.json`` (per archive path; apart from the checkpoints, which are
  keyed by code and options); every commit noted there must still be HEAD or one of its
  ancestors (or a descendant of HEAD: an older checkout). One that is neither, or is gone from the
  repository, is a violation (``history_rewritten``) naming it and the first of its commits
  missing from HEAD's history;
* ``verify --checkpoint COMMIT``: a commit noted elsewhere (an earlier run's HEAD, a CI log), the same way;
* ``verify --anchor SHA256@COMMIT``: a manifest hash published with the commit that held it (the
  site's Audit page shows both): the commit must be in the history and hold that manifest
  (``anchor_commit_missing`` otherwise).

The noted commits stay noted while they are missing: a clone moved to another history on purpose
is accepted by removing the file, which the message names.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

import orjson

from collector.archive.git import git, git_dir
from collector.audit.history import Finding
from collector.errors import ArchiveError

COMMIT = re.compile(r"[0-9a-f]{7,40}")
HEADS_FILE = "verified-heads.json"
KEPT = 16  # noted commits per archive path: HEAD, and any that are not its ancestors


def _present(repo: Path, commit: str) -> bool:
    try:
        git(repo, "cat-file", "-e", f"{commit}^{{commit}}")
    except ArchiveError:
        return False
    return True


def _ancestor(repo: Path, older: str, newer: str) -> bool:
    """Whether ``older`` is ``newer`` or one of its ancestors (False for a commit not in the repository)."""
    try:
        git(repo, "merge-base", "--is-ancestor", older, newer)
    except ArchiveError:
        return False
    return True


def missing_from(repo: Path, commit: str, head: str, what: str, code: str = "history_rewritten",
                 hint: str = "") -> Finding | None:  # fmt: skip
    """A violation when ``commit`` (``what`` says where it was seen) is not in HEAD's history, naming the first
    of its first-parent commits missing; None when it is there, or HEAD is one of its ancestors."""
    if _ancestor(repo, commit, head) or _ancestor(repo, head, commit):
        return None
    if not _present(repo, commit):
        message = f"commit {commit} ({what}) is no longer in this repository: the history was rewritten{hint}"
        return Finding(code, "(history)", message, commit)
    try:
        gone = git(repo, "rev-list", "--first-parent", "--reverse", f"{head}..{commit}").decode().split()
    except ArchiveError:
        gone = []
    first = f"; the first of its commits missing from HEAD's history is {gone[0]}" if gone else ""
    message = (f"commit {commit} ({what}) is no longer in the history of HEAD {head}: the history was "
               f"rewritten{first}{hint}")
    return Finding(code, "(history)", message, commit)


def _heads_path(repo: Path) -> Path:
    return git_dir(repo) / "prematch" / HEADS_FILE


def noted_heads(repo: Path, archive_path: str) -> list[str]:
    """The HEADs earlier cached runs verified for ``archive_path`` (none when the file cannot be read)."""
    try:
        data = orjson.loads(_heads_path(repo).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return []
    heads = data.get(archive_path) if isinstance(data, dict) else None
    return [h for h in heads if isinstance(h, str) and COMMIT.fullmatch(h)] if isinstance(heads, list) else []


def check_noted(repo: Path, head: str | None, noted: list[str], given: list[str]) -> tuple[list[Finding], list[str]]:
    """Each commit ``noted`` by an earlier run and each one ``given`` (``--checkpoint``), checked against
    HEAD's history: the violations, and the noted commits to keep noting (those that are not HEAD or
    one of its ancestors)."""
    if head is None:
        return [], noted
    hint = f" (if this clone was moved to another history on purpose, remove {_heads_path(repo)})"
    findings, kept = [], []
    for commit in noted:
        if commit == head or _ancestor(repo, commit, head):
            continue
        kept.append(commit)
        found = missing_from(repo, commit, head, "verified here before", hint=hint)
        findings += [found] if found else []
    for commit in given:
        found = missing_from(repo, commit, head, "given as --checkpoint")
        findings += [found] if found else []
    return findings, kept


def note_head(repo: Path, archive_path: str, head: str | None, kept: list[str]) -> None:
    """Note ``head`` as verified, with ``kept`` (the noted commits that are not its ancestors); a folder
    that cannot be written leaves the note out, never fails verify."""
    if head is None:
        return
    path = _heads_path(repo)
    try:
        data = orjson.loads(path.read_bytes()) if path.exists() else {}
    except (OSError, orjson.JSONDecodeError):
        data = {}
    data = data if isinstance(data, dict) else {}
    data[archive_path] = [head, *kept][:KEPT]
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(orjson.dumps(data))
        os.replace(tmp, path)  # a private note inside .git, not an archive file
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def anchored_commits(repo: Path, head: str | None, files: dict, anchors: list[str]) -> list[Finding]:
    """Each ``SHA256@COMMIT`` anchor's commit is in HEAD's history and holds the manifest of that hash."""
    findings: list[Finding] = []
    by_sha = {e.added_sha256: e for e in files.values() if e.kind == "manifest" and e.added is not None}
    for anchor in anchors:
        sha, _, commit = anchor.partition("@")
        if not commit or head is None:
            continue
        found = missing_from(repo, commit, head, f"named by the anchor {sha[:16]}", code="anchor_commit_missing")
        if found is not None:
            findings.append(found)
            continue
        entry = by_sha.get(sha)
        if entry is not None and not _ancestor(repo, entry.added.commit.sha, commit):
            findings.append(Finding("anchor_commit_missing", entry.path, f"the anchor names commit {commit}, but "
                                    f"this manifest (SHA-256 {sha}) was added later, in {entry.added.commit.sha}",
                                    entry.added.commit.sha))
    return findings
