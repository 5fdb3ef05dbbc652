"""``verify``'s checks of evidence packages.

A forecast that names an evidence package (``evidence.path``, ``evidence.sha256``) must name a
record file that

* exists in the archive's history (``evidence_missing``),
* was committed no later than the forecast: in an earlier commit or the same tick's commit
  (``evidence_committed_after``),
* hashes, as committed, to exactly the SHA-256 the forecast names (``evidence_hash``), and was
  never changed afterwards (``evidence_edited``; the append-only check reports the change too),
* is an evidence record that locked no later than the forecast's request (``evidence_lock``).

A package any of whose dated items lies after its lock (news published after ``locks_at``, a
result dated after the lock's date) is a violation of its own (``evidence_late_item``). The odds
snapshot a package's market part names must exist, committed no later than the package, with
exactly the SHA-256 the package names and never changed (``evidence_odds``).
"""

from __future__ import annotations

from collector.audit.history import FileHistory, Finding, stamp, where


def evidence(files: dict[str, FileHistory]) -> list[Finding]:
    findings: list[Finding] = []
    for entry in files.values():
        facts = entry.facts
        if facts is None or entry.added is None or facts.evidence is None:
            continue
        if facts.kind == "forecast":
            findings += _forecast(entry, files)
        elif facts.kind == "evidence" and facts.evidence:
            message = (f"{len(facts.evidence)} item(s) dated after the package's lock {stamp(facts.moment)}: "
                       + "; ".join(facts.evidence[:5]))
            findings.append(Finding("evidence_late_item", entry.path, message, entry.added.commit.sha,
                                    replay=entry.replay))
        if facts.kind == "evidence" and facts.cites:
            findings += _odds(entry, files)
    return findings


def _odds(entry: FileHistory, files: dict[str, FileHistory]) -> list[Finding]:
    """The odds snapshot a package names: in the history, committed no later, the named bytes, never edited."""
    path, sha256 = entry.facts.cites
    snapshot = files.get(path)
    if snapshot is None or snapshot.added is None:
        problem = f"its market part names the odds snapshot {path}, which is not in the archive's history"
    elif snapshot.added.commit.index > entry.added.commit.index:
        problem = f"names the odds snapshot {path}, committed in {where(snapshot.added)}, after the package"
    elif snapshot.added_sha256 != sha256:
        problem = f"names the odds snapshot {path} with SHA-256 {sha256}, but it was committed as {snapshot.added_sha256}"
    elif snapshot.later:
        problem = f"the odds snapshot it names, {path}, was changed after it was committed (in {where(snapshot.later[0])})"
    else:
        return []
    return [Finding("evidence_odds", entry.path, problem, entry.added.commit.sha, replay=entry.replay)]


def _forecast(entry: FileHistory, files: dict[str, FileHistory]) -> list[Finding]:
    path, sha256 = entry.facts.evidence
    commit = entry.added.commit

    def found(code: str, message: str) -> Finding:
        return Finding(code, entry.path, message, commit.sha, replay=entry.replay)

    package = files.get(path)
    if package is None or package.added is None:
        return [found("evidence_missing", f"names evidence package {path}, which is not in the archive's history")]
    out = []
    if package.added.commit.index > commit.index:
        out.append(found("evidence_committed_after", f"names {path}, committed in {where(package.added)}, after the "
                                                     f"forecast ({where(entry.added)})"))
    if package.added_sha256 != sha256:
        out.append(found("evidence_hash", f"names {path} with SHA-256 {sha256}, but its committed bytes hash to "
                                          f"{package.added_sha256}"))
    if package.later:
        out.append(found("evidence_edited", f"the package it used, {path}, was changed after it was committed "
                                            f"(in {where(package.later[0])})"))
    lock = package.facts.moment if package.facts is not None and package.facts.kind == "evidence" else None
    if package.facts is not None and package.facts.kind != "evidence":
        out.append(found("evidence_missing", f"names {path}, which holds a {package.facts.kind} record, not evidence"))
    requested = entry.facts.requested_at
    if lock is not None and requested is not None and requested < lock:
        out.append(found("evidence_lock", f"requested {stamp(requested)}, before the package it names locked "
                                          f"({stamp(lock)})"))
    return out
