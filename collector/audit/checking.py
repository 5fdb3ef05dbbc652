"""Every check of ``verify``, run over the archive's history: what a checkpoint cannot answer.

Reads (or extends) the history, checks each file's blobs with the per-blob caches
(:class:`collector.audit.facts.FactsCache`, :class:`collector.audit.timestamps.TokenCache`),
then runs the cross-file checks over the whole history. Imported only when needed: it brings
the record models and the cryptography library with it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from collector.archive.git import git_dir
from collector.archive.reader import parse_record
from collector.audit import checks, evidence_checks, timestamps
from collector.audit.anchors import anchor_report
from collector.audit.attestations import check_attestations
from collector.audit.facts import Checked, FactsCache, facts_of, known_facts
from collector.audit.gitlog import NULL_BLOB, History, read_blobs, read_history
from collector.audit.history import FileHistory, Finding, file_histories
from collector.audit.report import Report
from collector.audit.rewrites import anchored_commits


def run_checks(repo: Path, archive_path: str, use_cache: bool, tsa_roots: list[Path] | None, anchors: list[str],
               earlier: Report | None = None) -> Report:  # fmt: skip
    """The report of every check (see :func:`collector.audit.verify.verify_repository` for the options).

    ``earlier``: a report of an earlier HEAD (a checkpoint's): its history is extended rather than
    read again (``read_history``'s ``since``), and its facts stand in for the per-blob cache
    file, which is then neither read nor written (only blobs it does not know are validated).
    """
    roots = timestamps.load_roots([timestamps.SHIPPED_ROOTS] if tsa_roots is None else tsa_roots)
    return _verify(repo, archive_path, use_cache, roots, list(anchors), earlier)


def _verify(repo: Path, archive_path: str, use_cache: bool, roots=None, anchors=(), earlier=None) -> Report:
    caches: list[FactsCache] = []
    cache_folder = git_dir(repo) / "prematch" if use_cache else None
    if earlier is not None:
        since = History(earlier.commits, earlier.changes, earlier.head)
        history = read_history(repo, archive_path, meanwhile=lambda: caches.append(known_facts(earlier.files)),
                               since=since)  # fmt: skip
    else:
        history = read_history(repo, archive_path, meanwhile=lambda: caches.append(FactsCache(cache_folder)))
    cache = caches[0]
    files = file_histories(history)
    report = Report(repo, archive_path, history.head, history.commits, files, changes=history.changes)
    report.findings += load_facts(repo, files, cache)
    cache.save()
    report.cache_notes += cache.notes  # an unusable cache, or entries it rejected
    report.findings += checks.links(history.changes)
    report.findings += checks.append_only(files)
    timeline = checks.build_timeline(files)  # shared by the timing checks and the token proofs
    report.findings += checks.forecast_timing(files, timeline)
    report.findings += checks.supersession(files)
    report.findings += checks.forecast_retries(files)
    report.findings += checks.manifest_chain(files)
    report.findings += evidence_checks.evidence(files)
    report.findings += checks.commit_dates(history.commits)
    report.proofs = timestamps.check_tokens(repo, history, files, dict(roots or {}), cache_folder, timeline)
    report.findings += report.proofs.findings
    report.cache_notes += report.proofs.cache_notes
    found, report.proofs.attestations = check_attestations(repo, history, files)
    report.findings += found
    report.anchors, missing = anchor_report(files, list(anchors), report.proofs.valid)
    report.findings += missing + anchored_commits(repo, history.head, files, list(anchors))
    return report


def load_facts(repo: Path, files: dict[str, FileHistory], cache: FactsCache) -> list[Finding]:
    """Check each file's blob as added (and at HEAD, when different): validate, hash, keep its facts."""
    wanted: dict[str, list[tuple[FileHistory, bool]]] = {}
    for entry in files.values():
        if entry.added is not None and entry.added.new_blob != NULL_BLOB:
            wanted.setdefault(entry.added.new_blob, []).append((entry, True))
        if entry.current_blob is not None and entry.added and entry.current_blob != entry.added.new_blob:
            wanted.setdefault(entry.current_blob, []).append((entry, False))
    checked: dict[tuple[str, str], Checked] = {}
    missing = []
    for blob, users in wanted.items():
        for entry, _ in users:
            hit = cache.get(blob, entry.path)
            if hit is None:
                missing.append(blob)
                break
            checked[(blob, entry.path)] = hit
    for blob, data in read_blobs(repo, missing):
        digest = hashlib.sha256(data).hexdigest()
        for entry, _ in wanted[blob]:
            record, problem = parse_record(entry.path, data)
            result = Checked(digest, problem.message if problem else None, facts_of(record) if record else None)
            cache.put(blob, entry.path, result)
            checked[(blob, entry.path)] = result
    invalid = []
    for blob, users in wanted.items():
        for entry, as_added in users:
            result = checked[(blob, entry.path)]
            if as_added:
                entry.added_sha256, entry.added_facts = result.sha256, result.facts
            else:
                entry.head_facts = result.facts
            if result.problem is not None:
                invalid.append((entry, result.problem, as_added))
    return [_invalid(entry, problem, as_added) for entry, problem, as_added in invalid]


def _invalid(entry: FileHistory, problem: str, as_added: bool) -> Finding:
    change = entry.added if as_added else entry.later[-1]
    when = f"as committed in {change.commit.sha[:12]}" if as_added else "as it stands at HEAD"
    message = f"does not validate {when}: {problem}"
    return Finding("invalid", entry.path, message, change.commit.sha, replay=entry.replay)
