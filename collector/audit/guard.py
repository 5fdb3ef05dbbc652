"""The append-only guard for pull requests: a change may add archive files, never alter or remove one.

``check_changes`` compares ``HEAD`` with the merge base of ``base`` (``git diff base...HEAD``),
so only what the pull request itself changes is judged. Renames count as a deletion plus an
addition. Files under ``archive/schema/`` are regenerated from the models and may change.
Added record files must validate against the contract.
"""

from __future__ import annotations

from pathlib import Path

from collector.archive.git import git
from collector.archive.layout import is_record_path
from collector.archive.reader import parse_record
from collector.audit.gitlog import read_blobs
from collector.errors import Problem

_WORDS = {"M": "modifies", "D": "deletes", "T": "changes the type of"}


def check_changes(repo: Path, base: str, archive_path: str = "archive") -> tuple[list[Problem], int]:
    """Problems with the archive changes between ``base``'s merge base and HEAD, and files added."""
    prefix = archive_path.strip("/") + "/"
    raw = git(repo, "diff", "--raw", "--no-renames", "--no-abbrev", "-z", f"{base}...HEAD", "--", prefix)
    tokens = raw.decode("utf-8", "surrogateescape").split("\0")
    problems: list[Problem] = []
    added: dict[str, str] = {}
    for meta, path in zip(tokens[0::2], tokens[1::2], strict=False):
        if not meta.startswith(":"):
            continue
        fields = meta[1:].split(" ")
        status, relative = fields[4][0], path[len(prefix) :]
        if not is_record_path(relative):
            continue
        if status == "A":
            added[fields[3]] = relative
        else:
            word = _WORDS.get(status, f"changes ({status})")
            problems.append(Problem(path, f"this change {word} an existing archive file; the archive is append-only"))
    for blob, data in read_blobs(repo, added):
        _, problem = parse_record(added[blob], data)
        if problem is not None:
            problems.append(Problem(prefix + problem.path, f"added file does not validate: {problem.message}"))
    return problems, len(added)
