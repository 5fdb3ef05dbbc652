"""``verify``'s checkpoint: its last report, stored in ``.git/prematch/`` and keyed by the commit it verified.

A commit id is a hash of its tree and of its parents' ids, so HEAD's id names the whole
history ``verify`` reads. The same HEAD read by the same code (:func:`collector.archive.codeversion.code_version`), with
the same options (archive path, the trusted roots' bytes, the anchors) and the same grafts
(``info/grafts`` changes what ``git log`` walks; so do replaced objects, ``refs/replace/``: a
clone with any is never checkpointed), gives the same report, so the checkpoint answers it
without running ``git log`` or any check. A later HEAD whose first-parent chain passes through
the checkpoint's commit reuses the stored history and reads only the commits since
(:func:`collector.audit.gitlog.read_history`'s ``since``), and the stored facts of every file
stand in for the per-blob cache (only new blobs are validated); every check then runs again
over the whole history, so its findings are those of a cold run.

It is an entry of the one authenticated store (:mod:`collector.archive.store`, kind
``verify-checkpoint``): one edited, swapped or written without the key is rejected. It is only a
speed-up: ``--no-cache`` never reads or writes it, and one that cannot be read, or does not have
the shape written here, is reported (:attr:`Checkpoint.note`) and ignored. It is
kept apart from the checks so that a hit imports no record model and no cryptography library.
"""

from __future__ import annotations

import hashlib
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from collector.archive.codeversion import code_version
from collector.archive.git import git
from collector.archive.store import read_entry, write_entry
from collector.audit.anchors import Anchor
from collector.audit.facts_form import facts_from_list, facts_to_list
from collector.audit.gitlog import Change, Commit, History
from collector.audit.history import Finding, file_histories
from collector.audit.proofs import SHIPPED_ROOTS, Proof, ProofCheck
from collector.audit.report import Report
from collector.errors import ArchiveError

FORMAT = 2
KIND = "verify-checkpoint"
KEPT = 3  # checkpoints kept per clone (one per set of options): the newest
_UNREADABLE = (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError, orjson.JSONDecodeError)


def _roots_bytes(tsa_roots: list[Path] | None) -> bytes | None:
    """The trusted roots' files, in the order :func:`collector.audit.timestamps.load_roots` reads them;
    None when one cannot be read (the full path then says why)."""
    out = bytearray()
    try:
        for path in [SHIPPED_ROOTS] if tsa_roots is None else tsa_roots:
            for pem in sorted(path.glob("*.pem")) if path.is_dir() else [path]:
                data = pem.read_bytes()  # the file's name is the authority its roots are trusted for
                out += f"{pem.stem}\0{len(data)}\0".encode() + data
    except OSError:
        return None
    return bytes(out)


class Checkpoint:
    """The checkpoint of one clone for one set of options: where it lives, its key, what it holds."""

    def __init__(self, folder: Path, key: str, head: str):
        self.folder, self.key, self.head = folder, key, head
        self.note: str | None = None  # why a stored checkpoint was ignored
        self._data: dict[str, Any] | None = None

    @classmethod
    def open(cls, repo: Path, archive_path: str, tsa_roots: list[Path] | None, anchors: list[str]) -> Checkpoint | None:
        """The checkpoint for this repository state and these options, from one ``git rev-parse``; None
        when there can be none: not a repository, no commits, a shallow clone or unreadable roots (the
        full path reports those), or replaced objects (``refs/replace/``: then every run reads git)."""
        try:
            lines = git(repo, "rev-parse", "--git-dir", "--git-common-dir", "--is-shallow-repository", "HEAD",
                        "--glob=refs/replace/*", "--").decode().split("\n")  # fmt: skip
        except ArchiveError:
            return None
        roots = _roots_bytes(tsa_roots)
        replaced = len(lines) != 6 or lines[4:] != ["--", ""] or "GIT_REPLACE_REF_BASE" in os.environ
        if replaced or lines[2] != "false" or roots is None:
            return None
        git_dir, common = (Path(p) if Path(p).is_absolute() else repo / p for p in lines[:2])
        grafts = common / "info" / "grafts"
        try:
            grafted = grafts.read_bytes() if grafts.exists() else b""
        except OSError:
            return None
        digest = hashlib.sha256(f"checkpoint {FORMAT}\0{code_version()}".encode())
        for part in (archive_path.encode(), roots, orjson.dumps(list(anchors)), grafted):
            digest.update(f"{len(part)}\0".encode() + part)
        return cls(git_dir / "prematch", digest.hexdigest(), lines[3])

    def _stored(self) -> dict[str, Any] | None:
        if self._data is None and self.note is None:
            value, notes = read_entry(self.folder, KIND, self.key)
            self.note = "; ".join(notes) or None
            try:
                data = orjson.loads(value) if value is not None else None
                if data is not None and (not isinstance(data, dict) or data.get("format") != FORMAT
                                         or data.get("key") != self.key):
                    raise ValueError("not a checkpoint of this format and key")
                self._data = data
            except _UNREADABLE as exc:
                self._ignore(exc)
        return self._data

    def _ignore(self, exc: Exception) -> None:
        self.note = f"the verify checkpoint {self.key[:12]} in {self.folder} cannot be read ({type(exc).__name__}: {exc}); ignored"
        self._data = None

    def stored_report(self, repo: Path, archive_path: str) -> Report | None:
        """The report stored, at whatever HEAD it was made (its ``head`` says which); None when there is
        none, or it cannot be read."""
        data = self._stored()
        if data is None:
            return None
        try:
            return _report(data, repo, archive_path)
        except _UNREADABLE as exc:
            self._ignore(exc)
            return None
        finally:
            self._data = None  # the stored form is not needed again

    def save(self, report: Report) -> None:
        """Store ``report`` as this checkpoint; the oldest beyond :data:`KEPT` are dropped. A folder
        that cannot be written leaves verify uncached, never failed (the reason is a note)."""
        note = write_entry(self.folder, KIND, self.key, orjson.dumps(_stored_form(report, self.key)), keep=KEPT)
        self.note = self.note or note or None


def _stored_form(report: Report, key: str) -> dict[str, Any]:
    """The report as JSON-ready lists, each path named once (``paths``) and elsewhere by its position;
    :func:`_report` is the way back."""
    paths: dict[str, int] = {}
    for change in report.changes:
        paths.setdefault(change.path, len(paths))
    position = {id(f): i for i, f in enumerate(report.findings)}
    proofs = report.proofs
    return {
        "format": FORMAT,
        "key": key,
        "head": report.head,
        "commits": [[c.sha, int(c.committed_at.timestamp()), int(c.authored_at.timestamp())] for c in report.commits],
        "paths": list(paths),
        "changes": [[c.commit.index, c.status, paths[c.path], c.old_blob, c.new_blob, c.new_mode]
                    for c in report.changes],  # fmt: skip
        "records": [paths[p] for p in report.files],
        "facts": [[e.added_sha256, facts_to_list(e.added_facts) if e.added_facts is not None else None,
                   facts_to_list(e.head_facts) if e.head_facts is not None else None]
                  for e in report.files.values()],  # fmt: skip
        "findings": [[f.code, f.path, f.message, f.commit, f.violation, f.replay] for f in report.findings],
        "proofs": None if proofs is None else {
            "findings": [position[id(f)] for f in proofs.findings],
            "tokens": [paths[p] for p in proofs.tokens],
            "valid": [[paths[m], [[t.isoformat(), paths[p]] for t, p in times]] for m, times in proofs.valid.items()],
            "proofs": [[paths[path], p.kind, p.stamped_at.isoformat() if p.stamped_at else None,
                        None if p.token is None else paths[p.token], None if p.manifest is None else paths[p.manifest]]
                       for path, p in proofs.proofs.items()],  # fmt: skip
            "roots": proofs.roots,
            "attestations": proofs.attestations,
        },
        "anchors": [[a.sha256, a.manifest, a.commit, a.committed_at, a.tick_at, a.manifests, a.files, a.forecasts,
                     a.tokens] for a in report.anchors],  # fmt: skip
    }


def _history(data: dict[str, Any]) -> History:
    commits = [Commit(i, sha, datetime.fromtimestamp(ct, UTC), datetime.fromtimestamp(at, UTC))
               for i, (sha, ct, at) in enumerate(data["commits"])]  # fmt: skip
    paths = data["paths"]
    changes = [Change(commits[i], status, paths[path], old, new, mode)
               for i, status, path, old, new, mode in data["changes"]]  # fmt: skip
    if not all(isinstance(c.sha, str) for c in commits) or not isinstance(data["head"], str):
        raise ValueError("a commit id is not a string")
    if not all(isinstance(p, str) for p in paths):
        raise ValueError("a path is not a string")
    return History(commits, changes, data["head"])


def _groups(history: History, paths: list[str], records: list[int], tokens: list[int]):
    """The record files' and the token files' histories, from one pass over the changes."""
    wanted = dict.fromkeys(paths[i] for i in records)
    if len(wanted) != len(records):
        raise ValueError("a record file is named twice")
    files = file_histories(history, keep=wanted.__contains__)
    if list(files) != list(wanted):
        raise ValueError("its record files are not those of its history")
    return files, file_histories(history, keep={paths[i] for i in tokens}.__contains__)


def _report(data: dict[str, Any], repo: Path, archive_path: str) -> Report:
    """The report :func:`_stored_form` stored, rebuilt: the same objects a full run makes."""
    history = _history(data)
    paths, stored = data["paths"], data["proofs"]
    files, tokens = _groups(history, paths, data["records"], stored["tokens"] if stored else [])
    for entry, (sha256, added, head) in zip(files.values(), data["facts"], strict=True):
        entry.added_sha256 = sha256
        entry.added_facts = facts_from_list(added) if added is not None else None
        entry.head_facts = facts_from_list(head) if head is not None else None
    report = Report(repo, archive_path, history.head, history.commits, files, changes=history.changes)
    report.findings = [Finding(code, path, message, commit, bool(violation), bool(replay))
                       for code, path, message, commit, violation, replay in data["findings"]]  # fmt: skip
    if stored is not None:
        report.proofs = ProofCheck(
            findings=[report.findings[i] for i in stored["findings"]],
            tokens=tokens,
            valid={paths[m]: [(datetime.fromisoformat(t), paths[p]) for t, p in times] for m, times in stored["valid"]},
            proofs={paths[path]: Proof(kind, datetime.fromisoformat(t) if t else None,
                                       None if token is None else paths[token],
                                       None if manifest is None else paths[manifest])
                    for path, kind, t, token, manifest in stored["proofs"]},  # fmt: skip
            roots=int(stored["roots"]),
            attestations=int(stored["attestations"]),
        )
    report.anchors = [Anchor(*row[:8], tokens=[tuple(t) for t in row[8]]) for row in data["anchors"]]
    return report
