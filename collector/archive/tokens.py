"""Where the proofs of a tick manifest live: RFC 3161 time-stamp tokens and attestation bundles.

Beside each manifest ``manifests/{YYYY}/{tick}.json`` the collector writes one RFC 3161
time-stamp response per authority, ``manifests/{YYYY}/{tick}.{authority}.tsr`` (the DER
``TimeStampResp`` exactly as the authority sent it), and the scheduled workflow may add a
GitHub artifact attestation of the manifest, ``manifests/{YYYY}/{tick}.attestation.jsonl``
(a Sigstore bundle). Neither ends in ``.json``, so neither is a record file
(:func:`~collector.archive.layout.is_record_path`); both are append-only all the same, and
``verify`` checks them.

:func:`token_time` reads the stamped time of a token without checking it (the site's footer
shows it); checking belongs to ``collector.audit.timestamps``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from collector.archive.layout import MANIFEST_DIR

TOKEN_SUFFIX = ".tsr"
ATTESTATION_SUFFIX = ".attestation.jsonl"
_TOKEN = re.compile(rf"^({MANIFEST_DIR}/\d{{4}}/[^/.]+)\.([a-z0-9][a-z0-9-]*)\.tsr$")
_ATTESTATION = re.compile(rf"^({MANIFEST_DIR}/\d{{4}}/[^/.]+)\.attestation\.jsonl$")


def token_path(manifest: str, authority: str) -> str:
    """``manifests/2026/X.json`` + ``digicert`` -> ``manifests/2026/X.digicert.tsr``."""
    return f"{manifest.removesuffix('.json')}.{authority}{TOKEN_SUFFIX}"


def attestation_path(manifest: str) -> str:
    return f"{manifest.removesuffix('.json')}{ATTESTATION_SUFFIX}"


def token_target(relative: str) -> tuple[str, str] | None:
    """(manifest path, authority id) for a token path, or None when ``relative`` is not one."""
    found = _TOKEN.match(relative)
    return (found.group(1) + ".json", found.group(2)) if found else None


def attestation_target(relative: str) -> str | None:
    """The manifest path an attestation bundle path belongs to, or None."""
    found = _ATTESTATION.match(relative)
    return found.group(1) + ".json" if found else None


def is_proof_path(relative: str) -> bool:
    return token_target(relative) is not None or attestation_target(relative) is not None


def manifest_paths(root: Path) -> list[str]:
    """Every manifest in the archive folder, archive-relative, oldest first (names sort by time)."""
    folder = root / MANIFEST_DIR
    if not folder.is_dir():
        return []
    return sorted(p.relative_to(root).as_posix() for p in folder.glob("*/*.json") if not p.name.startswith("."))


def token_time(data: bytes) -> datetime | None:
    """The ``genTime`` a token claims (unchecked), or None when the bytes are not a granted token."""
    from rfc3161_client import (
        decode_timestamp_response,  # imported here: only stamping and audits need it
    )

    try:
        response = decode_timestamp_response(data)
        if response.status not in (0, 1):
            return None
        moment = response.tst_info.gen_time
    except Exception:  # noqa: BLE001 - the decoder raises a variety of errors on bad DER
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
