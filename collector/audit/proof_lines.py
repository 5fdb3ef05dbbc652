"""How ``verify``'s report shows the proofs of time: per forecast, in counts, in lines, and the limits."""

from __future__ import annotations

from collections import Counter
from typing import Any

from collector.audit.history import FileHistory, stamp

PROOF_LIMITS = (
    "What the time-stamp tokens prove: an RFC 3161 authority, independent of the committer, signed "
    "the SHA-256 of a tick manifest at the time in its token; because each manifest names its "
    "predecessor's SHA-256, the token proves that manifest, every manifest chained before it and "
    "every file they list existed by then, whatever the commit dates say. A forecast whose proof is "
    "'token' existed before its kickoff on the word of that authority. What they do not prove: that "
    "nothing else was forecast and left out (the archive could have been built from many drafts, "
    "and only one published), or anything at all about a forecast whose proof is 'git date only'. "
    "A manifest hash noted publicly before a match (the site's footer carries the latest) is a "
    "second, independent anchor: verify --anchor SHA256 shows what it pins."
)


def proof_entry(entry: FileHistory, proofs: Any) -> dict[str, Any]:
    """The proof fields of one record's JSON entry (forecasts only)."""
    if proofs is None or entry.kind != "forecast":
        return {}
    proof = proofs.proofs.get(entry.path)
    if proof is None:  # a missed-window record: no forecast to prove
        return {"proof": None}
    return {
        "proof": proof.kind,
        "stamped_at": stamp(proof.stamped_at) if proof.stamped_at else None,
        "token": proof.token,
        "manifest": proof.manifest,
    }


def proof_counts(proofs: Any) -> dict[str, Any]:
    if proofs is None:
        return {}
    kinds = Counter(p.kind for p in proofs.proofs.values())
    return {
        "tokens": len(proofs.tokens),
        "tokens_valid": sum(len(v) for v in proofs.valid.values()),
        "trusted_tsa_roots": proofs.roots,
        "attestations": proofs.attestations,
        "forecast_proofs": dict(sorted(kinds.items())),
    }


def proof_lines(report: Any) -> list[str]:
    """One line on the proofs of time, then one per ``--anchor``."""
    proofs = report.proofs
    lines = []
    if proofs is not None:
        c = proof_counts(proofs)
        kinds = c["forecast_proofs"]
        line = (f"  proof of time: {kinds.get('token', 0)} forecast(s) by RFC 3161 token, "
                f"{kinds.get('git_date', 0)} by git date only")
        if kinds.get("token_after_kickoff"):
            line += f", {kinds['token_after_kickoff']} stamped after kickoff"
        line += f"; {c['tokens']} token file(s), {c['tokens_valid']} valid"
        line += f" ({c['trusted_tsa_roots']} trusted TSA root(s))" if proofs.roots else " (no trusted TSA roots: unchecked)"
        if proofs.attestations:
            line += f"; {proofs.attestations} attestation bundle(s) match their manifest"
        lines.append(line)
    lines += ["  " + a.line() for a in report.anchors]
    return lines


def anchor_json(anchor: Any) -> dict[str, Any]:
    return {
        "sha256": anchor.sha256,
        "found": anchor.manifest is not None,
        "manifest": anchor.manifest,
        "commit": anchor.commit,
        "committed_at": anchor.committed_at,
        "tick_at": anchor.tick_at,
        "pins": {"manifests": anchor.manifests, "files": anchor.files, "forecasts": anchor.forecasts},
        "tokens": [{"stamped_at": t, "token": p} for t, p in anchor.tokens],
    }
