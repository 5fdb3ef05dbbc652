"""``verify --anchor SHA256``: what a manifest hash noted somewhere public pins in the history.

A manifest names its predecessor's SHA-256, so a manifest hash seen (in a copy of a site
page, a post, a fork) at some moment proves that the manifest and every manifest chained
before it, and every file they list, existed by then. ``anchor_report`` finds the manifest
whose committed bytes have that SHA-256 and counts what its unbroken chain pins; a hash
that is in no manifest of the history is a violation (``anchor_missing``). An anchor published
with the commit that held it (``SHA256@COMMIT``, as the site's Audit page shows the latest) also
holds the history to that commit (:func:`collector.audit.rewrites.anchored_commits`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from collector.audit.history import FileHistory, Finding, stamp
from collector.audit.proofs import linked, manifest_order
from collector.errors import UsageError

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")


def parse_anchor(text: str) -> str:
    """A SHA-256 in hex (any case, optional ``sha256:`` prefix), lower-cased, optionally ``@COMMIT`` (the
    commit that held the manifest: it must still be in the history); UsageError otherwise."""
    value, _, commit = text.strip().lower().removeprefix("sha256:").partition("@")
    if not _SHA256.fullmatch(value):
        raise UsageError(f"{text!r} is not a SHA-256 (64 hexadecimal digits), optionally @COMMIT")
    if commit and not _COMMIT.fullmatch(commit):
        raise UsageError(f"{text!r}: {commit!r} after @ is not a commit id (7 to 40 hexadecimal digits)")
    return f"{value}@{commit}" if commit else value


@dataclass
class Anchor:
    """One anchor: the manifest it names (or None) and what its chain pins."""

    sha256: str
    manifest: str | None = None
    commit: str | None = None
    committed_at: str | None = None
    tick_at: str | None = None
    manifests: int = 0
    files: int = 0
    forecasts: int = 0
    tokens: list[tuple[str, str]] = field(default_factory=list)  # (stamped time, token path)

    def line(self) -> str:
        if self.manifest is None:
            return f"anchor {self.sha256[:16]}: in no manifest of this history"
        stamped = ", ".join(f"{t} ({p.rsplit('.', 2)[-2]})" for t, p in self.tokens) or "no valid token"
        return (f"anchor {self.sha256[:16]}: {self.manifest} (tick {self.tick_at}, commit {self.commit[:12]} "
                f"{self.committed_at}; tokens: {stamped}) pins {self.manifests} manifest(s), {self.files} "
                f"file(s), {self.forecasts} forecast(s)")


def anchor_report(files: dict[str, FileHistory], anchors: list[str], valid: dict) -> tuple[list[Anchor], list[Finding]]:
    """Each anchor resolved against the manifests in chain order; missing ones as findings."""
    order = manifest_order(files)
    by_sha = {e.added_sha256: i for i, e in enumerate(order)}
    out, findings = [], []
    for sha in (anchor.partition("@")[0] for anchor in anchors):  # a commit after @: rewrites.anchored_commits
        if sha not in by_sha:
            out.append(Anchor(sha))
            findings.append(Finding("anchor_missing", "manifests", f"anchor {sha}: no manifest in the history "
                                    "has these bytes (SHA-256)"))
            continue
        i = by_sha[sha]
        entry = order[i]
        anchor = Anchor(sha, entry.path, entry.added.commit.sha, stamp(entry.added.commit.committed_at),
                        stamp(entry.added_facts.manifest[0]))
        anchor.tokens = [(stamp(t), p) for t, p in sorted(valid.get(entry.path, []))]
        while True:
            listed = entry.added_facts.manifest[1]
            anchor.manifests += 1
            anchor.files += len(listed)
            anchor.forecasts += sum(1 for p in listed if files.get(p) is not None and files[p].kind == "forecast")
            if i == 0 or not linked(entry, order[i - 1]):
                break
            i -= 1
            entry = order[i]
        out.append(anchor)
    return out, findings
