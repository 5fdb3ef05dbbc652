"""The checks ``verify`` runs over the archive's file histories; each returns a list of findings.

Commit times are git committer dates (the ``%ct`` field): whoever makes a commit sets them,
so these checks prove consistency of the history as published, not the wall clock.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

import orjson

from collector.archive.git import git
from collector.audit.facts import Facts
from collector.audit.gitlog import Change, Commit
from collector.audit.history import FileHistory, Finding, stamp, where
from collector.audit.proofs import manifest_order
from collector.errors import ArchiveError, Problem
from collector.records import TRANSPORT_FAILURES

TargetKey = tuple[str, str, str]  # (competition, "match" | "question", event or question id)

_CHANGE_WORDS = {"M": "modified", "T": "changed type", "D": "deleted", "A": "re-added after deletion"}
_CHANGE_CODES = {"M": "modified", "T": "modified", "D": "deleted", "A": "readded"}


LINK_MODES = {"120000": "a symlink", "160000": "a submodule link"}


def not_a_file(mode: str) -> str | None:
    """What a git tree entry of ``mode`` is when it is not a regular file (None: a regular file)."""
    return LINK_MODES.get(mode)


def links(changes: list[Change]) -> list[Finding]:
    """Every symlink or submodule committed anywhere under the archive is a violation (record file or not).

    A link in the archive would make a reader, the site build or a tick follow it out of the
    archive: whatever it points at on the machine that checks out the repository.
    """
    findings = []
    for change in changes:
        what = not_a_file(change.new_mode)
        if what is not None and change.status != "D":
            message = f"{what} committed in {where(change)}; the archive holds regular files only"
            findings.append(Finding("link", change.path, message, change.commit.sha))
    return findings


def retry_problems(repo, retries: dict[str, str], head: str = "HEAD") -> list[Problem]:
    """The guard's form of :func:`forecast_retries`: each added retry (path -> the path it supersedes,
    repository-relative) must supersede a transport failure as it stands at ``head``."""
    problems = []
    for path, old in sorted(retries.items()):
        try:
            status = orjson.loads(git(repo, "cat-file", "blob", f"{head}:{old}")).get("status")
        except (ArchiveError, orjson.JSONDecodeError, AttributeError):
            status = None
        if status not in TRANSPORT_FAILURES:
            problems.append(Problem(path, f"supersedes {old} ({status or 'not a forecast at HEAD'}); only a transport "
                                          "failure (api_error, timeout) may be retried"))
    return problems


def append_only(files: dict[str, FileHistory]) -> list[Finding]:
    """Every change after a file's first addition is a violation of the append-only rule."""
    findings = []
    for entry in files.values():
        for change in entry.later:
            message = (
                f"{_CHANGE_WORDS.get(change.status, change.status)} in {where(change)}, "
                f"after it was added in {where(entry.added)}; the archive is append-only"
            )
            code = _CHANGE_CODES.get(change.status, "modified")
            findings.append(Finding(code, entry.path, message, change.commit.sha, replay=entry.replay))
    return findings


@dataclass
class Timeline:
    """When each event's kickoff (or question's close) was known, and when each was settled."""

    kickoffs: dict[TargetKey, list[tuple[int, int, datetime | None]]] = field(
        default_factory=lambda: defaultdict(list)
    )  # key -> [(commit index, revision, kickoff)]
    settled: dict[TargetKey, tuple[Commit, str]] = field(default_factory=dict)
    answers: dict[tuple[TargetKey, int], tuple[datetime | None, str]] = field(default_factory=dict, repr=False)

    def kickoff(self, key: TargetKey, commit_index: int) -> tuple[datetime | None, str]:
        """The earliest of: the kickoff in effect at that commit, and the latest revision's (each
        answer kept: a tick's forecasts of one match, and the token proofs, ask the same question)."""
        known = self.answers.get((key, commit_index))
        if known is None:
            known = self.answers[(key, commit_index)] = self._kickoff(key, commit_index)
        return known

    def _kickoff(self, key: TargetKey, commit_index: int) -> tuple[datetime | None, str]:
        revisions = self.kickoffs.get(key)  # sorted by revision in build_timeline
        if not revisions:
            return None, ""
        known = [r for r in revisions if r[0] <= commit_index]
        candidates = [(revisions[-1][2], f"revision {revisions[-1][1]}")]
        if known:
            candidates.append((known[-1][2], f"revision {known[-1][1]} (in effect then)"))
        candidates = [c for c in candidates if c[0] is not None]
        return min(candidates, key=lambda c: c[0]) if candidates else (None, "")


def build_timeline(files: dict[str, FileHistory]) -> Timeline:
    timeline = Timeline()
    for entry in files.values():
        facts = entry.facts
        if entry.added is None or facts is None or facts.target is None:
            continue
        commit = entry.added.commit
        if facts.kind in ("event", "question", "binary_event"):
            timeline.kickoffs[facts.target].append((commit.index, facts.revision or 0, facts.moment))
        elif facts.settles:
            _settle(timeline, facts.target, commit, entry.path)
    for revisions in timeline.kickoffs.values():
        revisions.sort(key=lambda r: r[1])
    return timeline


def _settle(timeline: Timeline, key: TargetKey, commit: Commit, path: str) -> None:
    known = timeline.settled.get(key)
    if known is None or commit.index < known[0].index:
        timeline.settled[key] = (commit, path)


def forecast_timing(files: dict[str, FileHistory], timeline: Timeline | None = None) -> list[Finding]:
    """Forecasts committed at/after kickoff or after the outcome; requests at/after kickoff;
    results committed before their match could have started (``timeline``: the files', built once)."""
    timeline = build_timeline(files) if timeline is None else timeline
    findings: list[Finding] = []
    for entry in files.values():
        if entry.kind in ("forecast", "odds_snapshot", "binary_forecast") and entry.added is not None:
            findings += _forecast_findings(entry, entry.facts, timeline)
    for key, (commit, path) in timeline.settled.items():
        kickoff, source = timeline.kickoff(key, commit.index)
        if kickoff is not None and commit.committed_at < kickoff:
            message = (f"the result was committed {stamp(commit.committed_at)} in {commit.sha[:12]}, before the "
                       f"match could start ({stamp(kickoff)}, {source}): the commit dates cannot be right")
            findings.append(Finding("settled_before_kickoff", path, message, commit.sha, replay=files[path].replay))
    return findings


def _forecast_findings(entry: FileHistory, forecast: Facts, timeline: Timeline) -> list[Finding]:
    commit = entry.added.commit
    key = forecast.target
    kickoff, source = timeline.kickoff(key, commit.index)
    label = {"match": "kickoff", "question": "question close"}.get(key[1], "deadline (first kickoff)")
    if kickoff is None or forecast.moment < kickoff:
        kickoff, source = forecast.moment, "the forecast's own kickoff_utc"

    def found(code: str, message: str, violation: bool = True) -> Finding:
        return Finding(code, entry.path, message, commit.sha, violation, entry.replay)

    out = []
    # a full-tournament forecast has no target record: its deadline is its own kickoff_utc (the first kickoff)
    if key not in timeline.kickoffs and key[1] != "tournament":
        out.append(found("no_target", f"no {key[1]} record {key[2]!r} in the history", False))
    if forecast.status == "missed":
        return out  # a record of a missed window carries no forecast to leak
    if commit.committed_at >= kickoff:
        out.append(found("committed_after_kickoff", f"committed {stamp(commit.committed_at)} in "
                         f"{commit.sha[:12]}, at or after the {label} {stamp(kickoff)} ({source})"))
    settled = timeline.settled.get(key)
    if settled and (commit.index > settled[0].index or commit.committed_at > settled[0].committed_at):
        out.append(found("committed_after_outcome", f"committed in {commit.sha[:12]} "
                         f"({stamp(commit.committed_at)}), after {settled[1]} was committed in "
                         f"{settled[0].sha[:12]} ({stamp(settled[0].committed_at)})"))
    requested = forecast.requested_at
    if requested is not None and requested >= kickoff:
        out.append(found("requested_after_kickoff", f"requested_at {stamp(requested)} is at or after "
                         f"the {label} {stamp(kickoff)} ({source})"))
    if requested is not None and requested > commit.committed_at:
        out.append(found("requested_after_commit", f"requested_at {stamp(requested)} is later than the "
                         f"commit that added it ({stamp(commit.committed_at)}): clocks disagree", False))
    return out


def supersession(files: dict[str, FileHistory]) -> list[Finding]:
    """Chains at HEAD resolve, and no revision was committed before the one it supersedes."""
    chains: dict[tuple[str, ...], dict[int, tuple[str, Facts]]] = defaultdict(dict)
    for entry in files.values():
        facts = entry.head_facts or entry.added_facts
        if entry.current_blob is not None and facts is not None and facts.identity is not None:
            chains[facts.identity][facts.revision] = (entry.path, facts)
    findings = [f for revisions in chains.values() for f in _walk_chain(revisions)]
    for entry in files.values():
        facts = entry.facts
        if facts is None or facts.supersedes is None or entry.added is None:
            continue
        target = files.get(facts.supersedes)
        if target is None or target.added is None:
            message = f"supersedes {facts.supersedes!r}, which is not in the archive's history"
            findings.append(Finding("chain", entry.path, message, entry.added.commit.sha))
        elif target.added.commit.index > entry.added.commit.index:
            message = f"committed in {where(entry.added)}, before {facts.supersedes} ({where(target.added)})"
            findings.append(Finding("chain", entry.path, message, entry.added.commit.sha))
    return findings


def forecast_retries(files: dict[str, FileHistory]) -> list[Finding]:
    """A forecast may supersede only a transport failure (api_error, timeout) of its own key.

    A valid, normalised, repaired or invalid answer is part of what is measured; a record that
    replaces one is cherry-picking, whoever committed it.
    """
    findings = []
    for entry in files.values():
        facts = entry.facts
        if facts is None or facts.kind != "forecast" or facts.supersedes is None:
            continue
        target = files.get(facts.supersedes)
        old = target.facts if target is not None else None
        if old is not None and (old.kind != "forecast" or old.status not in TRANSPORT_FAILURES):
            message = (f"supersedes {facts.supersedes} ({old.kind} {old.status or ''}); only a transport failure "
                       "(api_error, timeout) may be retried")
            sha = entry.added.commit.sha if entry.added else None
            findings.append(Finding("supersession", entry.path, message, sha, replay=entry.replay))
    return findings


def _walk_chain(revisions: dict[int, tuple[str, Facts]]) -> list[Finding]:
    """The reader's rule: revision 0, then each revision names its predecessor, with no gaps."""
    if 0 not in revisions:
        return [Finding("chain", path, "supersession chain has no revision 0") for path, _ in revisions.values()]
    findings = []
    current = revisions[0][0]
    if revisions[0][1].supersedes is not None:
        findings.append(Finding("chain", current, "revision 0 cannot supersede another record"))
    rev = 1
    while rev in revisions:
        path, facts = revisions[rev]
        if facts.supersedes != current:
            message = f"supersedes {facts.supersedes!r}, expected {current!r}; chain stops here"
            findings.append(Finding("chain", path, message))
            break
        current, rev = path, rev + 1
    for later in sorted(r for r in revisions if r > rev):
        findings.append(Finding("chain", revisions[later][0], f"revision {later} follows a gap or a broken chain"))
    return findings


def manifest_chain(files: dict[str, FileHistory]) -> list[Finding]:
    """Each manifest names the one before it by path and SHA-256, and lists true file hashes."""
    manifests = manifest_order(files)
    findings: list[Finding] = []
    previous: FileHistory | None = None
    covered: set[str] = set()
    for entry in manifests:
        findings += _link(entry, previous)
        findings += _listed_files(entry, files)
        covered.update(entry.added_facts.manifest[1])
        previous = entry
    return findings + _uncovered(files, covered)


def _link(entry: FileHistory, previous: FileHistory | None) -> list[Finding]:
    _, _, named, named_sha256 = entry.added_facts.manifest
    sha = entry.added.commit.sha
    expected = previous.path if previous else None
    if named != expected:
        message = f"names previous manifest {named!r}, but the one before it is {expected!r}"
        return [Finding("manifest_chain", entry.path, message, sha)]
    wanted = previous.added_sha256 if previous else None
    if named_sha256 != wanted:
        message = (
            f"previous_sha256 {named_sha256} does not match {expected} "
            f"as committed (SHA-256 {wanted}): the chain is broken"
        )
        return [Finding("manifest_chain", entry.path, message, sha)]
    return []


def _listed_files(entry: FileHistory, files: dict[str, FileHistory]) -> list[Finding]:
    findings = []
    sha = entry.added.commit.sha
    for path, digest in entry.added_facts.manifest[1].items():
        target = files.get(path)
        if target is None or target.added is None:
            findings.append(Finding("manifest_missing", entry.path, f"lists {path}, never committed", sha))
        elif target.added_sha256 != digest:
            message = f"lists {path} with SHA-256 {digest}, but the committed bytes hash to {target.added_sha256}"
            findings.append(Finding("manifest_hash", entry.path, message, sha))
        elif target.added.commit.sha != sha:
            message = f"lists {path}, which was committed in another commit ({where(target.added)})"
            findings.append(Finding("manifest_other_commit", entry.path, message, sha, violation=False))
    return findings


def _uncovered(files: dict[str, FileHistory], covered: set[str]) -> list[Finding]:
    """One finding per commit that added record files no manifest lists: a note while no later manifest
    exists (a commit by hand at the end, old history), a violation once one does (the tick that wrote
    that manifest adopts every file no manifest lists, so a file left out was added around the manifests)."""
    manifests = [e.added.commit for e in files.values() if e.kind == "manifest" and e.added is not None]
    last = max(manifests, key=lambda c: c.index, default=None)
    by_commit: dict[str, list[FileHistory]] = defaultdict(list)
    for entry in files.values():
        if entry.added is None or entry.path in covered or entry.kind == "manifest":
            continue
        by_commit[entry.added.commit.sha].append(entry)
    findings = []
    for sha, entries in by_commit.items():
        commit = entries[0].added.commit
        later = last is not None and last.index > commit.index
        what = (f"commit {sha[:12]} added {len(entries)} record file(s) that no manifest lists"
                + (f", although a later manifest (commit {last.sha[:12]}) would have adopted them" if later
                   else " (e.g. a commit by hand): git history is their only record"))  # fmt: skip
        findings.append(Finding("not_in_manifest", entries[0].path, what, sha, later, entries[0].replay))
    return findings


def commit_dates(commits: list[Commit]) -> list[Finding]:
    """Committer dates that go backwards along the history: a sign of rewritten or skewed clocks."""
    findings = []
    for before, after in zip(commits, commits[1:], strict=False):
        if after.committed_at < before.committed_at:
            message = (
                f"commit {after.sha[:12]} is dated {stamp(after.committed_at)}, before its predecessor "
                f"{before.sha[:12]} ({stamp(before.committed_at)})"
            )
            findings.append(Finding("commit_dates", "(history)", message, after.sha, violation=False))
    return findings
