"""Ask RFC 3161 time-stamping authorities for tokens over tick manifests, and keep them in the archive.

RFC 3161 section 3.4 (time-stamp protocol via HTTP): POST a DER ``TimeStampReq`` with
content type ``application/timestamp-query``; the answer is a DER ``TimeStampResp``
(``application/timestamp-reply``). The request carries the SHA-256 of the manifest's bytes
(``messageImprint``), a random nonce and ``certReq = true`` (the token then embeds the
TSA's certificate, which ``verify`` needs offline).

Before a token is written the client checks what it can without trusting anyone: status
granted (0 only: a ``grantedWithMods`` token is refused, since ``rfc3161-client`` rejects it and
once written to the append-only archive it would stay a violation), the imprint is the manifest's
SHA-256, the nonce is the one sent. The signature
and the certificate chain are checked by ``verify`` (``collector.audit.timestamps``)
against the shipped roots. A token is written once (``…/{tick}.{authority}.tsr``, atomic,
never replaced); a failure is reported and the manifest is asked for again at the next tick.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from rfc3161_client import (
    HashAlgorithm,
    TimestampRequestBuilder,
    decode_timestamp_response,
)

from collector.archive.tokens import manifest_paths, token_path
from collector.archive.write.writer import write_new_file
from collector.config_sections import TimestampAuthority, TimestampSettings
from collector.errors import RecordExistsError
from collector.http import RetryPolicy, ServiceCallFailed, ServiceClient

QUERY_TYPE = "application/timestamp-query"
MAX_TOKEN_BYTES = 64 * 1024  # real tokens with their certificates are a few kilobytes


class TokenRefused(Exception):
    """An authority answered, but not with a usable token for what was asked."""


@dataclass
class StampReport:
    """What one stamping pass did: tokens written, and why the others are still pending."""

    written: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # token path -> why

    def summary_line(self) -> str | None:
        if not self.written and not self.failed:
            return None
        line = f"  timestamps: {len(self.written)} token(s) written"
        if self.failed:
            reasons = "; ".join(f"{path.rsplit('/', 1)[-1]}: {why}" for path, why in sorted(self.failed.items())[:4])
            line += f", {len(self.failed)} pending, asked again next tick ({reasons})"
        return line


def request_for(manifest_bytes: bytes):
    """A ``TimeStampReq`` over the SHA-256 of ``manifest_bytes``, with a nonce and ``certReq``."""
    return TimestampRequestBuilder().data(manifest_bytes).hash_algorithm(HashAlgorithm.SHA256).build()


def check_response(answer: bytes, manifest_bytes: bytes, nonce: int | None) -> None:
    """Raise :class:`TokenRefused` unless ``answer`` is a granted token over these bytes, for this nonce."""
    if len(answer) > MAX_TOKEN_BYTES:
        raise TokenRefused(f"an answer of {len(answer)} bytes is not a time-stamp token (limit {MAX_TOKEN_BYTES})")
    try:
        response = decode_timestamp_response(answer)
    except Exception as exc:  # noqa: BLE001 - the DER decoder raises several types
        raise TokenRefused(f"not a TimeStampResp ({type(exc).__name__}: {exc})") from None
    if response.status == 1:  # grantedWithMods: rfc3161-client refuses it, so written it would be invalid forever
        raise TokenRefused("status 1 (granted with modifications) refused: only a plain granted token (status 0) "
                           "is written, since verify cannot accept this one and the archive never drops a file")
    if response.status != 0:
        raise TokenRefused(f"status {response.status} {' '.join(response.status_string)}".strip())
    imprint = response.tst_info.message_imprint.message
    if imprint != hashlib.sha256(manifest_bytes).digest():
        raise TokenRefused(f"the token covers {imprint.hex()}, not the manifest's SHA-256")
    if nonce is not None and response.tst_info.nonce != nonce:
        raise TokenRefused("the token's nonce is not the one sent")


def pending(root: Path, authorities: tuple[TimestampAuthority, ...], limit: int) -> list[tuple[str, str]]:
    """(manifest, authority id) pairs without a token yet, among the newest ``limit`` manifests.

    Older manifests are not asked again: a token over a later manifest covers them through the
    hash chain, and a history from before the authorities were configured is not backfilled.
    """
    recent = manifest_paths(root)[-limit:][::-1]
    return [(m, a.id) for a in authorities for m in recent if not (root / token_path(m, a.id)).exists()]


async def stamp_manifests(
    root: Path, settings: TimestampSettings, transport: httpx.AsyncBaseTransport | None = None
) -> StampReport:
    """Ask every authority for the manifests it has not stamped yet; all within ``settings.timeout_s``."""
    report = StampReport()
    todo = pending(root, settings.authorities, settings.retry_manifests)
    if not todo:
        return report
    by_id = {a.id: a for a in settings.authorities}
    clients = {
        a.id: ServiceClient(f"tsa {a.id}", "", connect_timeout=min(5.0, settings.timeout_s),
                            total_timeout=settings.timeout_s, retry=RetryPolicy(max_attempts=1), transport=transport)
        for a in settings.authorities if any(aid == a.id for _, aid in todo)
    }  # fmt: skip
    try:
        jobs = [_stamp_one(root, manifest, by_id[aid], clients[aid], report) for manifest, aid in todo]
        try:
            async with asyncio.timeout(settings.timeout_s):
                await asyncio.gather(*jobs)
        except TimeoutError:
            pass
    finally:
        await asyncio.gather(*(c.aclose() for c in clients.values()))
    for manifest, aid in todo:
        path = token_path(manifest, aid)
        if path in report.written or path in report.failed:
            continue
        if (root / path).exists():  # its write finished in its thread after the time was up
            report.written.append(path)
        else:
            report.failed[path] = f"no answer within {settings.timeout_s:g}s"
    return report


async def _stamp_one(root: Path, manifest: str, authority: TimestampAuthority, client: ServiceClient,
                     report: StampReport) -> None:  # fmt: skip
    path = token_path(manifest, authority.id)
    try:
        data = (root / manifest).read_bytes()
        request = request_for(data)
        response, _ = await client.request("POST", authority.url, content=request.as_bytes(), content_type=QUERY_TYPE)
        check_response(response.content, data, request.nonce)
        await asyncio.to_thread(write_new_file, root / path, response.content)
    except RecordExistsError:
        return  # another tick stamped it meanwhile
    except (ServiceCallFailed, TokenRefused, OSError) as exc:
        report.failed[path] = str(exc)
        return
    report.written.append(path)
