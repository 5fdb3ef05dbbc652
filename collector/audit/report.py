"""What a ``verify`` report holds, and how it reads: a short summary for people, the full list as JSON for tools."""

from __future__ import annotations

import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collector.audit.gitlog import Change, Commit
from collector.audit.history import FileHistory, Finding, stamp
from collector.audit.proof_lines import (
    PROOF_LIMITS,
    anchor_json,
    proof_counts,
    proof_entry,
    proof_lines,
)
from collector.errors import Problem


@dataclass
class Report:
    """The result of ``verify``: the history read, and every finding (violations and notes)."""

    repo: Path
    archive_path: str
    head: str | None
    commits: list[Commit]
    files: dict[str, FileHistory]
    findings: list[Finding] = field(default_factory=list)
    proofs: Any = None  # collector.audit.timestamps.ProofCheck: the token checks and each forecast's proof
    anchors: list[Any] = field(default_factory=list)  # collector.audit.anchors.Anchor, one per --anchor
    changes: list[Change] = field(default_factory=list)  # every change read from git log, oldest first
    cache_notes: list[str] = field(default_factory=list)  # caches that could not be read, and were ignored

    @property
    def violations(self) -> list[Finding]:
        return [f for f in self.findings if f.violation]

    @property
    def ok(self) -> bool:
        return not self.violations

    @property
    def problems(self) -> list[Problem]:
        """Every violation, as a problem naming its path and code (notes stay in the summary)."""
        return [f.as_problem() for f in self.violations]

    def summary_lines(self) -> list[str]:
        return summary_lines(self)


LIMITS = (
    "What this proves: the archive's git history, as you cloned it, only ever added record files; "
    "each forecast's adding commit is dated before its match's kickoff and before the commit that "
    "added the match's outcome; and the per-tick manifests chain every file's SHA-256 to the one "
    "before. What it cannot prove: git commit dates are set by whoever makes the commit, and a "
    "history can be rewritten and re-dated before anyone copies it. Evidence that does not rely on "
    "the committer's clock: the RFC 3161 time-stamp tokens beside the manifests (below), a copy of "
    "the history (or just a manifest's SHA-256) held by a third party, GitHub's record of when each "
    "push arrived, and the Pages deployment that published the site. Replay records are dated on a "
    "simulated clock: they show the pipeline works, never that anything was forecast before a match."
)


def record_entry(entry: FileHistory, codes: list[str], proofs: Any = None) -> dict[str, Any]:
    added = entry.added
    return {
        "path": entry.path,
        "kind": entry.kind,
        "clock": ("replay" if entry.replay else "live") if entry.facts is not None else None,
        "added_commit": added.commit.sha if added else None,
        "added_at": stamp(added.commit.committed_at) if added else None,
        "sha256": entry.added_sha256,
        "later_changes": [
            {"status": c.status, "commit": c.commit.sha, "at": stamp(c.commit.committed_at)} for c in entry.later
        ],
        "deleted": entry.current_blob is None,
        "findings": codes,
        **proof_entry(entry, proofs),
    }


def counts(report: Report) -> dict[str, Any]:
    kinds = Counter(e.kind or "invalid" for e in report.files.values())
    forecasts = [e for e in report.files.values() if e.kind == "forecast"]
    return {
        "commits": len(report.commits),
        "records": len(report.files),
        "by_kind": dict(sorted(kinds.items())),
        "forecasts_live": sum(1 for e in forecasts if not e.replay),
        "forecasts_replay": sum(1 for e in forecasts if e.replay),
        "violations": dict(sorted(Counter(f.code for f in report.violations).items())),
        "notes": dict(sorted(Counter(f.code for f in report.findings if not f.violation).items())),
        **proof_counts(report.proofs),
    }


def report_json(report: Report) -> dict[str, Any]:
    """The whole report: every record with its adding commit, every finding, and the limits."""
    codes: dict[str, list[str]] = {}
    for finding in report.findings:
        codes.setdefault(finding.path, []).append(finding.code)
    return {
        "ok": report.ok,
        "repository": str(report.repo),
        "archive_path": report.archive_path,
        "head": report.head,
        "summary": counts(report),
        "findings": [
            {
                "code": f.code,
                "severity": "violation" if f.violation else "note",
                "path": f.path,
                "commit": f.commit,
                "replay": f.replay,
                "message": f.message,
            }
            for f in report.findings
        ],
        "records": [record_entry(e, codes.get(e.path, []), report.proofs) for e in report.files.values()],
        "anchors": [anchor_json(a) for a in report.anchors],
        "what_git_can_prove": LIMITS,
        "what_the_tokens_prove": PROOF_LIMITS,
    }


def summary_lines(report: Report) -> list[str]:
    """A readable summary: counts, violations and notes by kind, and what git proves.

    The violations themselves are the report's problems (one ``problem:`` line each on stderr).
    """
    c = counts(report)
    head = report.head[:12] if report.head else "(no commits)"
    lines = [
        f"verify {report.repo} ({report.archive_path}/ at {head}): {c['commits']} commit(s), "
        f"{c['records']} record file(s)",
        "  " + (", ".join(f"{n} {kind}" for kind, n in c["by_kind"].items()) or "no record files yet"),
        f"  forecasts: {c['forecasts_live']} live (prospective), {c['forecasts_replay']} replay (simulated clock)",
    ]
    if c["forecasts_replay"]:
        lines.append("  replay records are dated on a simulated clock and are not prospective evidence")
    lines += proof_lines(report)
    if report.violations:
        lines.append(f"VIOLATIONS: {len(report.violations)} ("
                     + ", ".join(f"{k} {n}" for k, n in c["violations"].items()) + "), one problem: line each on stderr")
    else:
        lines.append("OK: no violations")
    if c["notes"]:
        lines.append("notes: " + ", ".join(f"{k} {n}" for k, n in c["notes"].items()) + " (details with --json)")
    lines.append("")
    lines += textwrap.wrap(LIMITS, width=92)
    lines.append("")
    lines += textwrap.wrap(PROOF_LIMITS, width=92)
    return lines
