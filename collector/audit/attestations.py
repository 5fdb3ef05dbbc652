"""``verify``'s check of the GitHub artifact attestations stored beside the tick manifests.

The scheduled workflow attests each tick's manifest with ``actions/attest`` and commits the
Sigstore bundle as ``manifests/{YYYY}/{tick}.attestation.jsonl``. Offline, ``verify`` checks
what needs no trust root: the bundle parses, its DSSE envelope holds an in-toto statement, and
one of the statement's subjects has the SHA-256 of the manifest *as committed*
(``attestation_mismatch`` / ``attestation_invalid`` otherwise); a bundle changed or removed
after its commit is an append-only violation. The Sigstore signature and transparency-log
entry need Sigstore's trust roots: ``gh attestation verify FILE --bundle BUNDLE --repo
OWNER/REPO`` checks them, and the report notes that it did not.
"""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path

from collector.archive.tokens import attestation_target
from collector.audit import checks
from collector.audit.gitlog import NULL_BLOB, History, read_blobs
from collector.audit.history import FileHistory, Finding, file_histories


def attestation_histories(history: History) -> dict[str, FileHistory]:
    """The life in git of every attestation bundle file, grouped by path like the record files."""
    return file_histories(history, keep=lambda path: attestation_target(path) is not None)


def subject_digests(data: bytes) -> list[str]:
    """The SHA-256 digests the bundle's in-toto statement names; ValueError when it is not such a bundle."""
    text = data.decode("utf-8").strip()
    bundles = [json.loads(line) for line in text.splitlines() if line.strip()] if "\n" in text else [json.loads(text)]
    digests = []
    for bundle in bundles:
        envelope = bundle.get("dsseEnvelope") if isinstance(bundle, dict) else None
        if not isinstance(envelope, dict) or not isinstance(envelope.get("payload"), str):
            raise ValueError("no dsseEnvelope with a payload (not a Sigstore bundle of an attestation)")
        try:
            statement = json.loads(base64.b64decode(envelope["payload"], validate=True))
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"the envelope's payload is not base64 JSON ({exc})") from None
        for subject in statement.get("subject", []) if isinstance(statement, dict) else []:
            digest = subject.get("digest", {}).get("sha256") if isinstance(subject, dict) else None
            if isinstance(digest, str):
                digests.append(digest.lower())
    return digests


def check_attestations(repo: Path, history: History, files: dict[str, FileHistory]) -> tuple[list[Finding], int]:
    """Findings on every committed bundle, and how many name their manifest correctly."""
    bundles = attestation_histories(history)
    findings = checks.append_only(bundles)
    added = {e.added.new_blob: e for e in bundles.values() if e.added and e.added.new_blob != NULL_BLOB}
    good = 0
    for blob, data in read_blobs(repo, list(added)):
        entry = added[blob]
        manifest = files.get(attestation_target(entry.path))
        sha = entry.added.commit.sha
        if manifest is None or manifest.added_sha256 is None:
            findings.append(Finding("attestation_invalid", entry.path, "an attestation of a manifest that is not "
                                    "in the archive's history", sha))
            continue
        try:
            digests = subject_digests(data)
        except (UnicodeDecodeError, ValueError, AttributeError) as exc:
            findings.append(Finding("attestation_invalid", entry.path, f"not a readable attestation bundle: {exc}", sha))
            continue
        if manifest.added_sha256 not in digests:
            findings.append(Finding("attestation_mismatch", entry.path, f"attests {digests or 'no subject'}, not the "
                                    f"committed bytes of {manifest.path} ({manifest.added_sha256})", sha))
            continue
        good += 1
    if good:
        findings.append(Finding("attestation_signature_unchecked", "manifests", f"{good} attestation bundle(s) "
                                "name their manifest's SHA-256; their Sigstore signatures are checked by "
                                "'gh attestation verify', not offline", violation=False))
    return findings, good
