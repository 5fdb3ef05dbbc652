"""``verify``: check, with git alone, that the archive was appended to and never rewritten.

One ``git log`` pass lists every change to ``archive/``; one ``git cat-file`` pass reads the
blobs. Each record file is then checked:

* append-only: a file is added once and never modified, deleted or re-added;
* it validates against the contract (as committed, and as it stands at HEAD);
* a forecast was committed before its event's kickoff and before the commit adding the
  event's outcome; its request time is before kickoff;
* supersession chains resolve, and a revision is not committed before the one it supersedes;
* the per-tick manifests form a hash chain and their SHA-256 match the committed bytes;
* the RFC 3161 tokens beside the manifests verify offline, and each forecast's earliest
  token time precedes its kickoff (:mod:`collector.audit.timestamps`); ``anchors`` (manifest
  hashes noted elsewhere) are found in the chain (:mod:`collector.audit.anchors`).

Replay records (``clock = replay``) are checked the same way but reported as replays: their
dates are simulated, so they say nothing about what was known before a match.
"""

from __future__ import annotations

from pathlib import Path

from collector.archive.memory import (
    paused_garbage_collector,
    promote_to_oldest_generation,
)
from collector.audit import rewrites
from collector.audit.checkpoint import Checkpoint
from collector.audit.report import Report


def verify_repository(repo: Path | str, archive_path: str = "archive", use_cache: bool = True,
                      tsa_roots: list[Path] | None = None, anchors: list[str] = (),
                      checkpoints: list[str] = ()) -> Report:  # fmt: skip
    """Read the history of ``archive_path`` in ``repo`` and run every check on it.

    ``tsa_roots``: PEM files or folders of trusted time-stamping roots (default: the shipped
    ones, :data:`collector.audit.proofs.SHIPPED_ROOTS`). With ``use_cache`` the report of a HEAD
    verified before comes from its checkpoint (:mod:`collector.audit.checkpoint`), a later HEAD
    reads only the commits since, and each blob is checked once in its life; every commit verified
    here before must still be in the history (:mod:`collector.audit.rewrites`); without it, every
    blob and token is checked again and nothing is read from, or written to, ``.git/prematch``.
    ``checkpoints``: commits noted elsewhere that must still be in the history.
    """
    repo, anchors = Path(repo), list(anchors)
    with paused_garbage_collector():  # the history becomes tens of thousands of small acyclic objects
        point = Checkpoint.open(repo, archive_path, tsa_roots, anchors) if use_cache else None
        report = point.stored_report(repo, archive_path) if point is not None else None
        if report is None or report.head != point.head:
            report = _checked(repo, archive_path, use_cache, tsa_roots, anchors, point, report)
        promote_to_oldest_generation()  # or the collector's first pass after the pause would scan the whole report
    noted = rewrites.noted_heads(repo, archive_path) if use_cache else []
    findings, kept = rewrites.check_noted(repo, report.head, noted, list(checkpoints))
    report.findings += findings  # never stored in a checkpoint: they depend on what was verified before
    if use_cache:
        rewrites.note_head(repo, archive_path, report.head, kept)
    return report


def _checked(repo: Path, archive_path: str, use_cache: bool, tsa_roots, anchors, point: Checkpoint | None,
             earlier: Report | None) -> Report:  # fmt: skip
    """Every check run (extending ``earlier``, the checkpoint's report of an earlier HEAD, when there
    is one); the new checkpoint saved."""
    # imported here: it brings the record models and cryptography, which only checking needs
    from collector.audit.checking import run_checks

    report = run_checks(repo, archive_path, use_cache, tsa_roots, anchors, earlier)
    if point is not None:
        point.save(report)
        report.cache_notes += [point.note] if point.note else []
    return report
