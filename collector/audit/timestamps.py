"""``verify``'s proof of time that does not rest on the committer's clock: RFC 3161 tokens, offline.

Each live tick manifest has tokens beside it (``manifests/{YYYY}/{tick}.{authority}.tsr``,
see :mod:`collector.archive.tokens`). For every token committed, ``verify`` checks with
``rfc3161-client`` and no network:

* the signature, and the TSA certificate's chain to a trusted root *of the authority the token is
  filed under* (``….{authority}.tsr``) *at the stamped time* (``genTime``), with the time-stamping
  extended key usage (RFC 3161 section 2.3). Roots are kept per authority (:func:`load_roots`): a
  token another authority signed, filed under this one's name, does not chain and is a violation;
* that the token's message imprint is the SHA-256 of the manifest's bytes *as committed*.

A token that fails either check is a violation (``token_invalid``, ``token_mismatch``); so
is a token changed or removed after it was committed, and a token for a manifest that is not
in the history. Each manifest names its predecessor's SHA-256, so a valid token over one
manifest also proves that every earlier manifest of an unbroken chain existed at its time:
the proof time of a manifest is the earliest valid token time of it or of any later
manifest linked to it. For every forecast, the proof time of the manifest that lists it must
be before the kickoff (``stamped_after_kickoff`` otherwise); a live forecast with no such
token gets a note (``no_token``) and its proof is the git commit date only, and is a violation
once a manifest committed after it has a valid token (every tick's manifest is stamped, and a
token covers the chain before it: a forecast outside it was added around the chain).

Without trusted roots (``--tsa-roots``) tokens cannot be checked: one note says so and every
forecast's proof is the git date. With roots, a token filed under an authority that has none is a
violation (``token_invalid``): add that authority's file (collector/audit/tsa_roots/README.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
from datetime import UTC, datetime
from pathlib import Path

import orjson
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from rfc3161_client import VerificationError, VerifierBuilder, decode_timestamp_response

from collector.archive.store import read_entry, write_entry
from collector.archive.tokens import token_target
from collector.audit import checks
from collector.audit.gitlog import NULL_BLOB, History, read_blobs
from collector.audit.history import FileHistory, Finding, file_histories
from collector.audit.proofs import (
    SHIPPED_ROOTS as SHIPPED_ROOTS,  # the default roots' home, named here too
)
from collector.audit.proofs import Proof, ProofCheck, linked, manifest_order
from collector.errors import UsageError

Roots = dict[str, list[x509.Certificate]]  # authority id -> its trusted certificates


def load_roots(paths: list[Path]) -> Roots:
    """The certificates of each authority: a PEM file ``AUTHORITY.pem`` (named, or among the ``*.pem``
    of a folder named) holds that authority's roots, and the intermediates its tokens do not embed."""
    found: Roots = {}
    for path in paths:
        files = sorted(path.glob("*.pem")) if path.is_dir() else [path]
        for pem in files:
            try:
                certs = x509.load_pem_x509_certificates(pem.read_bytes())
            except (OSError, ValueError) as exc:
                raise UsageError(f"{pem}: not a readable PEM file of certificates ({exc})") from None
            mine = found.setdefault(pem.stem, [])
            mine += [cert for cert in certs if cert not in mine]
    return found


def root_count(roots: Roots) -> int:
    return sum(len(certs) for certs in roots.values())


def proof_histories(history: History) -> dict[str, FileHistory]:
    """The life in git of every token file, grouped by path like the record files."""
    return file_histories(history, keep=lambda path: token_target(path) is not None)


def check_tokens(repo: Path, history: History, files: dict[str, FileHistory], roots: Roots,
                 cache_folder: Path | None = None, timeline: checks.Timeline | None = None) -> ProofCheck:  # fmt: skip
    """Check every committed token, then give each forecast its proof (see the module docstring).

    ``cache_folder``: results per (token blob, manifest SHA-256, trusted roots) are kept in its
    store, like the record facts (:class:`TokenCache`). ``timeline``: the files' (``checks.build_timeline``), built once.
    """
    result = ProofCheck(tokens=proof_histories(history), roots=root_count(roots))
    result.findings += checks.append_only(result.tokens)
    # by path, not by blob: the same bytes filed under two authorities' names are two different claims
    added = {e.path: e for e in result.tokens.values() if e.added and e.added.new_blob != NULL_BLOB}
    verifiers = {authority: _verifier(certs) for authority, certs in roots.items()}
    if result.tokens and not root_count(roots):
        result.findings.append(Finding("token_unchecked", "manifests", f"{len(result.tokens)} token file(s) not "
                                       "checked: no trusted TSA roots (see --tsa-roots)", violation=False))
    cache = TokenCache(cache_folder, roots)
    keys = {path: f"{e.added.new_blob}:{token_target(path)[1]}:{_manifest_sha(files, e)}" for path, e in added.items()}
    todo: dict[str, list[FileHistory]] = {}
    for path, entry in added.items():
        if cache.get(keys[path]) is None:
            todo.setdefault(entry.added.new_blob, []).append(entry)
    for blob, data in read_blobs(repo, list(todo)):
        for entry in todo[blob]:
            manifest, authority = token_target(entry.path)
            checked = _check_one(entry, data, files.get(manifest), _for_authority(verifiers, authority))
            cache.put(keys[entry.path], checked)
    for path, entry in added.items():
        code, message, stamped = cache.get(keys[path])
        if code is not None:
            result.findings.append(Finding(code, entry.path, message, entry.added.commit.sha))
        elif stamped is not None:
            result.valid.setdefault(token_target(entry.path)[0], []).append((stamped, entry.path))
    cache.save()
    result.cache_notes = cache.notes
    _forecast_proofs(files, result, checks.build_timeline(files) if timeline is None else timeline)
    return result


def _manifest_sha(files: dict[str, FileHistory], entry: FileHistory) -> str | None:
    manifest = files.get(token_target(entry.path)[0])
    return manifest.added_sha256 if manifest is not None else None


class TokenCache:
    """Token results by ``blob:manifest sha256``, valid for one set of trusted roots and one library version.

    One entry of the store in ``<git dir>/prematch/`` (:mod:`collector.archive.store`, kind
    ``verify-tokens``, keyed by that fingerprint); only a speed-up (``--no-cache`` skips it).
    """

    KIND = "verify-tokens"

    def __init__(self, folder: Path | None, roots: Roots):
        digest = hashlib.sha256(f"rfc3161-client {_library_version()} v2".encode())
        for authority in sorted(roots):
            digest.update(f"\0{authority}\0".encode())
            for cert in roots[authority]:
                digest.update(cert.fingerprint(hashes.SHA256()))
        self.fingerprint, self.folder, self.dirty = digest.hexdigest(), folder, False
        self.entries: dict[str, tuple[str | None, str | None, datetime | None]] = {}
        self.notes: list[str] = []
        if folder is not None:
            value, self.notes = read_entry(folder, self.KIND, self.fingerprint)
            with contextlib.suppress(ValueError, TypeError, AttributeError, orjson.JSONDecodeError):
                self.entries = {k: (c, m, datetime.fromisoformat(t) if t else None)
                                for k, (c, m, t) in orjson.loads(value or b"{}").items()}  # fmt: skip

    def get(self, key: str):
        return self.entries.get(key)

    def put(self, key: str, checked) -> None:
        self.entries[key] = checked
        self.dirty = True

    def save(self) -> None:
        if self.folder is None or not self.dirty:
            return
        entries = {k: [c, m, t.isoformat() if t else None] for k, (c, m, t) in self.entries.items()}
        note = write_entry(self.folder, self.KIND, self.fingerprint, orjson.dumps(entries))
        self.notes += [note] if note else []


def _library_version() -> str:
    try:
        return importlib.metadata.version("rfc3161-client")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _verifier(certs: list[x509.Certificate]):
    """One authority's verifier: its self-signed certificates are the roots, the others intermediates (a
    chain its tokens do not carry whole, such as a cross-certificate); None without a root."""
    roots = [c for c in certs if c.issuer == c.subject]
    if not roots:
        return None
    builder = VerifierBuilder()
    for cert in roots:
        builder = builder.add_root_certificate(cert)
    for cert in certs:
        if cert.issuer != cert.subject:
            builder = builder.add_intermediate_certificate(cert)
    return builder.build()


class _NoRoots:
    """The verifier of an authority without trusted roots: every token filed under its name fails."""

    def __init__(self, authority: str, known: list[str]):
        self.message = (f"no trusted roots for authority {authority!r} (roots are configured for "
                        f"{', '.join(known) or 'none'}); add {authority}.pem (collector/audit/tsa_roots/README.md)")

    def verify(self, response, digest) -> None:
        raise VerificationError(self.message)


def _for_authority(verifiers: dict, authority: str):
    """The verifier of ``authority``'s roots; None when no roots at all are configured (tokens unchecked)."""
    if not verifiers:
        return None
    found = verifiers.get(authority)
    return found if found is not None else _NoRoots(authority, sorted(a for a, v in verifiers.items() if v))


def _check_one(entry: FileHistory, data: bytes, manifest: FileHistory | None, verifier):
    """(violation code, message, None) for a bad token, (None, None, stamped time) for a good one,
    (None, None, None) when there is nothing to check it against."""

    def bad(code: str, message: str):
        return code, message, None

    if manifest is None or manifest.added is None or manifest.added_sha256 is None or manifest.kind != "manifest":
        return bad("token_invalid", "a token for a manifest that is not in the archive's history")
    if verifier is None:
        return None, None, None
    try:
        response = decode_timestamp_response(data)
    except Exception as exc:  # noqa: BLE001 - the DER decoder raises several types
        return bad("token_invalid", f"not an RFC 3161 TimeStampResp: {type(exc).__name__}: {exc}")
    digest = bytes.fromhex(manifest.added_sha256)
    if response.status in (0, 1) and response.tst_info.message_imprint.message != digest:
        covered = response.tst_info.message_imprint.message.hex()
        return bad("token_mismatch", f"covers SHA-256 {covered}, not the committed bytes of "
                   f"{manifest.path} ({manifest.added_sha256})")
    try:
        verifier.verify(response, digest)
    except (VerificationError, ValueError) as exc:
        return bad("token_invalid", f"does not verify against the trusted roots of its authority at its stamped "
                   f"time: {exc}")
    stamped = response.tst_info.gen_time
    return None, None, stamped if stamped.tzinfo else stamped.replace(tzinfo=UTC)


def chain_proof_times(files: dict[str, FileHistory], valid: dict[str, list[tuple[datetime, str]]]):
    """Manifest path -> (earliest valid token time, token) of it or of a later manifest chained to it."""
    order = manifest_order(files)
    best: dict[str, tuple[datetime, str]] = {}
    carry: tuple[datetime, str] | None = None
    for i in range(len(order) - 1, -1, -1):
        entry = order[i]
        own = min(valid.get(entry.path, []), default=None)
        if own is not None and (carry is None or own < carry):
            carry = own
        if carry is not None:
            best[entry.path] = carry
        if not linked(entry, order[i - 1] if i else None):
            carry = None  # a broken link: later tokens prove nothing about what came before it
    return best


def _no_token(entry: FileHistory, manifest: str | None, last_stamped) -> Finding:
    """A live forecast without a token: a note while no later manifest has one (its tick's token may come
    at the next tick), a violation once one does (every tick's manifest is stamped, and a token covers
    every manifest chained before it: a forecast left out of that was added around the chain)."""
    later = last_stamped is not None and last_stamped.index > entry.added.commit.index
    where = (f"no valid time-stamp token covers the manifest listing it ({manifest})" if manifest
             else "no manifest lists it, so no valid time-stamp token covers it")
    if later:
        message = (f"{where}, while a later manifest (commit {last_stamped.sha[:12]}) has one: its proof of "
                   "time is the git date only")
    else:
        message = ("no valid time-stamp token covers the manifest listing it yet: its proof of time is the "
                   "git date only")
    return Finding("no_token", entry.path, message, entry.added.commit.sha, violation=later)


def _forecast_proofs(files: dict[str, FileHistory], result: ProofCheck, timeline: checks.Timeline) -> None:
    listed_in: dict[str, str] = {}
    for entry in manifest_order(files):
        for path in entry.added_facts.manifest[1]:
            listed_in.setdefault(path, entry.path)
    best = chain_proof_times(files, result.valid)
    stamped = [files[m].added.commit for m in result.valid if m in files and files[m].added is not None]
    last_stamped = max(stamped, key=lambda c: c.index, default=None)
    for entry in files.values():
        facts = entry.facts
        if entry.kind != "forecast" or entry.added is None or facts.status == "missed":
            continue
        manifest = listed_in.get(entry.path)
        proof = best.get(manifest) if manifest else None
        if proof is None:
            result.proofs[entry.path] = Proof("git_date", manifest=manifest)
            if not entry.replay and result.roots:
                result.findings.append(_no_token(entry, manifest, last_stamped))
            continue
        kickoff, source = timeline.kickoff(facts.target, entry.added.commit.index)
        if kickoff is None or (facts.moment is not None and facts.moment < kickoff):
            kickoff, source = facts.moment, "the forecast's own kickoff_utc"
        stamped, token = proof
        if kickoff is not None and stamped >= kickoff:
            message = (f"the earliest time-stamp token covering it ({token}, via {manifest}) is dated "
                       f"{checks.stamp(stamped)}, at or after the kickoff {checks.stamp(kickoff)} ({source})")
            result.findings.append(Finding("stamped_after_kickoff", entry.path, message, entry.added.commit.sha,
                                           replay=entry.replay))
            result.proofs[entry.path] = Proof("token_after_kickoff", stamped, token, manifest)
        else:
            result.proofs[entry.path] = Proof("token", stamped, token, manifest)
