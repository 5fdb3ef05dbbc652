"""What the proofs of time hold (:mod:`collector.audit.timestamps` finds them), and the manifests'
chain order they follow; kept apart from the token checks so that reading a stored report needs
no cryptography library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from collector.audit.history import FileHistory, Finding

SHIPPED_ROOTS = Path(__file__).with_name("tsa_roots")


@dataclass(frozen=True)
class Proof:
    """What proves when a forecast existed: ``token`` (with its time and file), ``git_date`` only, or
    ``token_after_kickoff`` (the earliest token is too late: a violation)."""

    kind: str
    stamped_at: datetime | None = None
    token: str | None = None
    manifest: str | None = None


@dataclass
class ProofCheck:
    """Everything the token checks found: findings, valid token times per manifest, proofs per forecast."""

    findings: list[Finding] = field(default_factory=list)
    tokens: dict[str, FileHistory] = field(default_factory=dict)
    valid: dict[str, list[tuple[datetime, str]]] = field(default_factory=dict)  # manifest -> [(time, token)]
    proofs: dict[str, Proof] = field(default_factory=dict)  # forecast path -> proof
    roots: int = 0
    attestations: int = 0  # attestation bundles that name their manifest (collector.audit.attestations)
    cache_notes: list[str] = field(default_factory=list)  # the token cache unusable, or entries it rejected


def manifest_order(files: dict[str, FileHistory]) -> list[FileHistory]:
    """The manifests in chain order (as ``checks.manifest_chain`` walks them)."""
    return sorted(
        (e for e in files.values() if e.added_facts is not None and e.added_facts.manifest and e.added),
        key=lambda e: (e.added.commit.index, e.added_facts.manifest[0]),
    )


def linked(entry: FileHistory, previous: FileHistory | None) -> bool:
    """Whether ``entry`` names ``previous`` by path and by its committed SHA-256."""
    _, _, named, named_sha256 = entry.added_facts.manifest
    if previous is None:
        return named is None
    return named == previous.path and named_sha256 == previous.added_sha256
