"""RFC 3161 time-stamps end to end: the tick asks local authorities, ``verify`` checks the tokens offline.

The authorities are ``tests/tsa_authority.py``: a CA and TSA certificate made here with
``cryptography``, tokens built to RFC 3161 by its own DER code, served over HTTP on
127.0.0.1. Each test chooses the time an authority stamps, since that clock is what a
token is trusted for.
"""

from __future__ import annotations

import base64
import hashlib
import json
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from collector.archive.tokens import token_path, token_time
from collector.archive.write.manifest import latest_manifest_path
from collector.archive.write.writer import write_new_file
from collector.audit.timestamps import TokenCache
from collector.audit.verify import verify_repository
from collector.cli import main
from collector.config import parse_config
from collector.records import Clock
from collector.schedule.tick import run_tick
from tests.cache_tampering import entry_keys
from tests.gitrepo import KICKOFF, GitRepo, at, event, forecast, outcome
from tests.tsa_authority import (
    YEAR,
    Authority,
    TsaServer,
    make_chain,
    rejection,
    token_response,
)

ELO = "worldcup-2026/events/mex-v-rsa/forecasts/elo/closed_book.probabilistic_forecast.t_minus_24h.s0.json"
EARLY = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def chains():
    """Two independent authorities valid through 2026, and one whose certificate expired in 2025."""
    return {
        "alpha": make_chain("Alpha", EARLY, EARLY + 3 * YEAR),
        "beta": make_chain("Beta", EARLY, EARLY + 3 * YEAR),
        "stale": make_chain("Stale", EARLY - YEAR, EARLY + timedelta(days=30)),
    }


@pytest.fixture
def roots(tmp_path, chains) -> Path:
    """A roots folder with one file per authority: stale's tokens fail on the expired certificate, not the root."""
    folder = tmp_path / "roots"
    folder.mkdir()
    for name in ("alpha", "beta", "stale"):
        (folder / f"{name}.pem").write_bytes(chains[name].root_pem())
    return folder


# -- the tick ----------------------------------------------------------------------------------

TICK_CONFIG = """
[arena]
competitions = ["worldcup-2026"]
questions = false
[timestamps]
timeout_s = {timeout}
[[timestamps.authorities]]
id = "alpha"
url = "{alpha}"
[[timestamps.authorities]]
id = "beta"
url = "{beta}"
[[forecasters]]
id = "uniform"
type = "baseline"
"""


def tick(tmp_path: Path, data_dir: Path, now: str, alpha: TsaServer, beta: TsaServer, clock: str = "live",
         timeout: float = 5):  # fmt: skip
    """One tick with the uniform baseline: the fixtures registered first (a replay sync: the data
    holds results a live sync in the past would refuse), then a live (or replay) tick without sync."""
    archive = tmp_path / "archive"
    if not archive.exists():
        assert main(["sync", "--competition", "worldcup-2026", "--now", "2026-06-01", "--archive", str(archive),
                     "--data-dir", str(data_dir)]) == 0  # fmt: skip
    config = parse_config(tomllib.loads(TICK_CONFIG.format(alpha=alpha.url, beta=beta.url, timeout=timeout)), "arena.toml")
    moment = datetime.fromisoformat(now.replace("Z", "+00:00"))
    report = run_tick(config, archive, moment, data_dir, Clock(clock), sync=False)
    assert report.ok, report.problems  # a TSA that fails is no problem of the tick
    return report


@pytest.mark.slow
def test_tick_writes_one_token_per_authority_and_retries_a_failed_one_next_tick(tmp_path, data_dir, chains, capsys):
    archive = tmp_path / "archive"
    stamped = datetime(2026, 6, 10, 12, 0, 5, tzinfo=UTC)
    with TsaServer(Authority(chains["alpha"], at=stamped)) as alpha, \
            TsaServer(Authority(chains["beta"], at=stamped, fail=True)) as beta:  # fmt: skip
        report = tick(tmp_path, data_dir, "2026-06-10T12:00Z", alpha, beta)  # a TSA down fails nothing
        first = latest_manifest_path(archive)
        assert report.manifest == first and report.produced == 73  # 72 group matches and the full tournament
        out = "\n".join(report.summary_lines())
        assert token_path(first, "alpha") in report.written  # committed with the tick
        assert (archive / token_path(first, "alpha")).is_file()
        assert not (archive / token_path(first, "beta")).exists()
        assert "timestamps: 1 token(s) written, 1 pending, asked again next tick" in out and "HTTP 503" in out
        manifest_bytes = (archive / first).read_bytes()
        token = (archive / token_path(first, "alpha")).read_bytes()
        assert token_time(token) == stamped
        assert hashlib.sha256(manifest_bytes).digest() in token

        beta.authority.fail = False
        tick(tmp_path, data_dir, "2026-06-10T19:15Z", alpha, beta)
        second = latest_manifest_path(archive)
        assert second != first
        for manifest in (first, second):  # the earlier manifest got beta's token at the next tick
            assert {a for a in ("alpha", "beta") if (archive / token_path(manifest, a)).is_file()} == {"alpha", "beta"}
        assert alpha.authority.seen == 2 and beta.authority.seen == 3


@pytest.mark.slow
def test_a_live_tick_without_authorities_says_its_manifest_gets_no_token(tmp_path, data_dir):
    archive = tmp_path / "archive"
    assert main(["sync", "--competition", "worldcup-2026", "--now", "2026-06-01", "--archive", str(archive),
                 "--data-dir", str(data_dir)]) == 0  # fmt: skip
    unstamped = TICK_CONFIG.split("[timestamps]")[0] + TICK_CONFIG.split('url = "{beta}"')[1]
    config = parse_config(tomllib.loads(unstamped), "arena.toml")
    live = run_tick(config, archive, datetime(2026, 6, 10, 12, tzinfo=UTC), data_dir, Clock.LIVE, sync=False)
    assert live.ok and live.manifest and not list(archive.rglob("*.tsr"))
    assert "  note: no time-stamping authority is configured ([timestamps] authorities in prematch.toml): this " \
           "manifest gets no RFC 3161 token, its time rests on git alone" in live.summary_lines()
    replay = run_tick(config, archive, datetime(2026, 6, 10, 19, 15, tzinfo=UTC), data_dir, Clock.REPLAY, sync=False)
    assert not any("time-stamping" in line for line in replay.summary_lines())  # a replay is never stamped anyway


@pytest.mark.slow
def test_a_replay_tick_is_never_stamped(tmp_path, data_dir, chains):
    with TsaServer(Authority(chains["alpha"])) as alpha, TsaServer(Authority(chains["beta"])) as beta:
        tick(tmp_path, data_dir, "2026-06-10T12:00Z", alpha, beta, clock="replay")
        assert alpha.authority.seen == beta.authority.seen == 0
    assert not list((tmp_path / "archive").rglob("*.tsr"))


@pytest.mark.slow
def test_a_refused_or_wrong_answer_is_not_written(tmp_path, data_dir, chains, capsys, monkeypatch):
    """A rejection, or a token over other bytes, is reported and asked for again; nothing is written."""
    with TsaServer(Authority(chains["alpha"])) as alpha, TsaServer(Authority(chains["beta"])) as beta:
        monkeypatch.setattr(alpha.authority, "stamp", lambda request: rejection())
        monkeypatch.setattr(beta.authority, "stamp", lambda request: token_response(
            chains["beta"], hashlib.sha256(b"other bytes").digest(), datetime.now(UTC)))
        out = "\n".join(tick(tmp_path, data_dir, "2026-06-10T12:00Z", alpha, beta).summary_lines())
    assert "0 token(s) written, 2 pending" in out and "status 2" in out and "not the manifest's SHA-256" in out
    assert not list((tmp_path / "archive").rglob("*.tsr"))


# -- verify ------------------------------------------------------------------------------------


def stamp(repo: GitRepo, authority: str, chain, when: datetime, manifest: str | None = None,
          data: bytes | None = None) -> str:  # fmt: skip
    """Write a token over ``manifest`` (default: the latest) as that authority would, stamped ``when``."""
    manifest = manifest or latest_manifest_path(repo.archive)
    digest = hashlib.sha256(data if data is not None else (repo.archive / manifest).read_bytes()).digest()
    path = token_path(manifest, authority)
    write_new_file(repo.archive / path, token_response(chain, digest, when))
    return path


def history(tmp_path, chains, forecast_stamp: datetime | None = None, beta_on_forecast: bool = True) -> GitRepo:
    """Event, forecasts the day before kickoff (stamped by alpha and beta), outcome after the match."""
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event())
    stamp(repo, "alpha", chains["alpha"], at(1, 12, 1))
    repo.commit(at(1, 12, 2), "tokens")
    repo.tick(at(10, 19), forecast("elo"), forecast("uniform", model_version="uniform-1"))
    if forecast_stamp is not None:
        stamp(repo, "alpha", chains["alpha"], forecast_stamp)
        if beta_on_forecast:
            stamp(repo, "beta", chains["beta"], forecast_stamp + timedelta(seconds=3))
        repo.commit(forecast_stamp, "tokens")
    repo.tick(at(12, 1), outcome())
    return repo


def verify(repo: GitRepo, roots: Path | None, *anchors: str):
    return verify_repository(repo.root, use_cache=False, tsa_roots=[roots] if roots else [], anchors=list(anchors))


def codes(report, violation=True):
    return sorted({f.code for f in report.findings if f.violation is violation})


@pytest.mark.slow
def test_verify_accepts_valid_tokens_and_says_each_forecast_is_proven_by_one(tmp_path, chains, roots):
    repo = history(tmp_path, chains, forecast_stamp=at(10, 19, 1))
    report = verify(repo, roots)
    assert report.ok, [f.as_problem() for f in report.violations]
    proof = report.proofs.proofs[ELO]
    assert proof.kind == "token" and proof.stamped_at == at(10, 19, 1) and proof.token.endswith(".alpha.tsr")
    assert report.proofs.roots == 3 and sum(len(v) for v in report.proofs.valid.values()) == 3
    lines = "\n".join(report.summary_lines())
    assert "proof of time: 2 forecast(s) by RFC 3161 token, 0 by git date only; 3 token file(s), 3 valid" in lines


@pytest.mark.slow
def test_verify_cli_reports_per_forecast_proof_in_json(tmp_path, chains, roots, capsys):
    repo = history(tmp_path, chains, forecast_stamp=at(10, 19, 1))
    assert main(["verify", "--repo", str(repo.root), "--tsa-roots", str(roots), "--json", "--no-cache"]) == 0
    data = orjson.loads(capsys.readouterr().out)
    entry = next(r for r in data["records"] if r["path"] == ELO)
    assert entry["proof"] == "token" and entry["stamped_at"] == "2026-06-10T19:01:00Z"
    assert data["summary"]["forecast_proofs"] == {"token": 2} and data["summary"]["tokens_valid"] == 3


@pytest.mark.slow
def test_a_token_over_other_bytes_is_a_violation(tmp_path, chains, roots):
    repo = history(tmp_path, chains)
    manifest = latest_manifest_path(repo.archive)
    path = stamp(repo, "alpha", chains["alpha"], at(12, 1, 1), manifest, data=b"a different manifest")
    repo.commit(at(12, 2), "token over other bytes")
    report = verify(repo, roots)
    found = [f for f in report.violations if f.code == "token_mismatch"]
    assert [f.path for f in found] == [path] and "not the committed bytes of" in found[0].message


@pytest.mark.slow
def test_an_expired_or_foreign_certificate_is_a_violation(tmp_path, chains, roots):
    repo = history(tmp_path, chains)
    expired = stamp(repo, "stale", chains["stale"], at(12, 1, 1))  # its certificate ended in January 2025
    foreign = stamp(repo, "rogue", make_chain("Rogue", EARLY, EARLY + 3 * YEAR), at(12, 1, 2))  # root not trusted
    repo.commit(at(12, 2), "bad tokens")
    report = verify(repo, roots)
    bad = {f.path: f.message for f in report.violations if f.code == "token_invalid"}
    assert set(bad) == {expired, foreign}
    assert "certificate has expired" in bad[expired]
    assert "no trusted roots for authority 'rogue' (roots are configured for alpha, beta, stale)" in bad[foreign]
    assert report.proofs.proofs[ELO].kind == "git_date"  # neither counts as a proof


@pytest.mark.slow
def test_a_token_dated_after_kickoff_is_a_violation(tmp_path, chains, roots):
    repo = history(tmp_path, chains, forecast_stamp=KICKOFF + timedelta(minutes=5), beta_on_forecast=False)
    report = verify(repo, roots)
    late = [f for f in report.violations if f.code == "stamped_after_kickoff"]
    assert {f.path for f in late} == {ELO, ELO.replace("/elo/", "/uniform/")}
    assert "dated 2026-06-11T19:05:00Z, at or after the kickoff 2026-06-11T19:00:00Z" in late[0].message
    assert report.proofs.proofs[ELO].kind == "token_after_kickoff"


@pytest.mark.slow
def test_a_forecast_without_a_token_gets_a_note_and_git_date_proof(tmp_path, chains, roots):
    repo = history(tmp_path, chains)  # only the first manifest (the event) is stamped
    report = verify(repo, roots)
    assert report.ok and "no_token" in codes(report, violation=False)
    assert report.proofs.proofs[ELO].kind == "git_date"
    assert "0 forecast(s) by RFC 3161 token, 2 by git date only" in "\n".join(report.summary_lines())


@pytest.mark.slow
def test_a_token_on_a_later_manifest_covers_the_earlier_ones_through_the_chain(tmp_path, chains, roots):
    repo = history(tmp_path, chains)
    stamp(repo, "beta", chains["beta"], at(10, 20))  # the newest manifest at this point is the outcome's
    repo.commit(at(10, 20, 1), "token")
    # stamped on 10 June (the outcome's manifest did not exist then: this test only exercises the
    # chain rule; dates of tokens against commits are not what is checked)
    report = verify(repo, roots)
    assert report.proofs.proofs[ELO].kind == "token" and report.proofs.proofs[ELO].stamped_at == at(10, 20)


@pytest.mark.slow
def test_without_trusted_roots_tokens_are_unchecked_not_trusted(tmp_path, chains):
    repo = history(tmp_path, chains, forecast_stamp=at(10, 19, 1))
    report = verify(repo, None)
    assert report.ok and "token_unchecked" in codes(report, violation=False)
    assert report.proofs.proofs[ELO].kind == "git_date"


@pytest.mark.slow
def test_a_changed_or_orphan_token_is_a_violation(tmp_path, chains, roots):
    repo = history(tmp_path, chains, forecast_stamp=at(10, 19, 1))
    token = next(repo.archive.rglob("*.beta.tsr"))
    token.write_bytes(token.read_bytes() + b"\0")
    write_new_file(repo.archive / "manifests/2026/20260101T000000000000Z.alpha.tsr",
                   token_response(chains["alpha"], b"\0" * 32, at(12)))
    repo.commit(at(12, 3), "edit a token, add an orphan")
    report = verify(repo, roots)
    assert {"modified", "token_invalid"} <= set(codes(report))


@pytest.mark.slow
def test_anchor_finds_and_pins_a_manifest_hash(tmp_path, chains, roots, capsys):
    repo = history(tmp_path, chains, forecast_stamp=at(10, 19, 1))
    manifests = sorted(p for p in (repo.archive / "manifests").rglob("*.json"))
    forecast_manifest = manifests[1]
    digest = hashlib.sha256(forecast_manifest.read_bytes()).hexdigest()
    assert main(["verify", "--repo", str(repo.root), "--tsa-roots", str(roots), "--anchor", digest.upper()]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith(f"anchor {digest[:16]}"))
    assert forecast_manifest.relative_to(repo.archive).as_posix() in line
    assert "pins 2 manifest(s), 3 file(s), 2 forecast(s)" in line and "2026-06-10T19:01:00Z (alpha)" in line

    unknown = hashlib.sha256(b"never published").hexdigest()
    assert main(["verify", "--repo", str(repo.root), "--anchor", digest, "--anchor", unknown]) == 1
    captured = capsys.readouterr()
    assert f"anchor_missing: anchor {unknown}" in captured.err
    with pytest.raises(SystemExit) as wrong:
        main(["verify", "--repo", str(repo.root), "--anchor", "abc"])
    assert wrong.value.code == 2 and "'abc' is not a SHA-256" in capsys.readouterr().err


# -- attestation bundles -----------------------------------------------------------------------


def bundle(digest: str) -> bytes:
    """A Sigstore bundle's shape as actions/attest writes it: a DSSE envelope around an in-toto statement."""
    statement = {"_type": "https://in-toto.io/Statement/v1", "predicateType": "https://slsa.dev/provenance/v1",
                 "subject": [{"name": "manifest.json", "digest": {"sha256": digest}}], "predicate": {}}
    payload = base64.b64encode(json.dumps(statement).encode()).decode()
    envelope = {"payload": payload, "payloadType": "application/vnd.in-toto+json", "signatures": [{"sig": "AA=="}]}
    return json.dumps({"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json", "dsseEnvelope": envelope,
                       "verificationMaterial": {}}).encode() + b"\n"  # fmt: skip


@pytest.mark.slow
def test_attestation_bundles_are_checked_against_the_committed_manifest_when_present(tmp_path, chains, roots):
    repo = history(tmp_path, chains, forecast_stamp=at(10, 19, 1))
    manifests = sorted(p for p in (repo.archive / "manifests").rglob("*.json"))
    good, other = manifests[1], manifests[2]
    write_new_file(good.with_name(good.stem + ".attestation.jsonl"), bundle(hashlib.sha256(good.read_bytes()).hexdigest()))
    write_new_file(other.with_name(other.stem + ".attestation.jsonl"), bundle("ab" * 32))
    write_new_file(manifests[0].with_name(manifests[0].stem + ".attestation.jsonl"), b"not json\n")
    repo.commit(at(12, 3), "attestations")
    report = verify(repo, roots)
    bad = {f.code: f.path for f in report.violations}
    assert set(bad) == {"attestation_mismatch", "attestation_invalid"}
    assert bad["attestation_mismatch"].endswith(other.stem + ".attestation.jsonl")
    assert report.proofs.attestations == 1 and "attestation_signature_unchecked" in codes(report, violation=False)
    assert "1 attestation bundle(s) match their manifest" in "\n".join(report.summary_lines())


@pytest.mark.slow
def test_cached_token_results_match_a_fresh_check_and_lapse_with_other_roots(tmp_path, chains, roots):
    repo = history(tmp_path, chains, forecast_stamp=at(10, 19, 1))
    stamp(repo, "stale", chains["stale"], at(12, 1, 1))
    repo.commit(at(12, 2), "an expired token")
    fresh = verify_repository(repo.root, use_cache=False, tsa_roots=[roots])
    first = verify_repository(repo.root, tsa_roots=[roots])  # fills the token entry of .git/prematch's store
    again = verify_repository(repo.root, tsa_roots=[roots])  # answered from it
    assert entry_keys(repo.root / ".git/prematch", TokenCache.KIND)
    for report in (first, again):
        assert [f.as_problem() for f in report.findings] == [f.as_problem() for f in fresh.findings]
        assert report.proofs.proofs == fresh.proofs.proofs
    alpha_only = tmp_path / "alpha.pem"
    alpha_only.write_bytes(chains["alpha"].root_pem())
    other = verify_repository(repo.root, tsa_roots=[alpha_only])  # beta's tokens now foreign: not from the cache
    assert sum(1 for f in other.violations if f.code == "token_invalid") == 2  # beta's and stale's


@pytest.mark.slow
def test_only_the_newest_manifests_are_asked_again_and_an_oversized_answer_is_refused(tmp_path, chains):
    from collector.archive.write.manifest import write_tick_manifest
    from collector.archive.write.writer import ArchiveWriter
    from collector.audit.tsa_client import (
        MAX_TOKEN_BYTES,
        TokenRefused,
        check_response,
        pending,
    )
    from collector.config_sections import TimestampAuthority

    writer = ArchiveWriter(tmp_path)
    names = []
    for day in (1, 2, 3):
        writer.write(event(id=f"e{day}-v-x", kickoff_utc=KICKOFF + timedelta(days=day)))
        names.append(write_tick_manifest(writer, at(day)))
        writer.written.clear()
    authorities = (TimestampAuthority(id="alpha", url="http://127.0.0.1:9/"),)
    write_new_file(tmp_path / token_path(names[2], "alpha"), b"stamped")
    assert pending(tmp_path, authorities, 2) == [(names[1], "alpha")]  # the oldest is left to the chain
    with pytest.raises(TokenRefused, match="bytes is not a time-stamp token"):
        check_response(b"\0" * (MAX_TOKEN_BYTES + 1), b"manifest", None)


@pytest.mark.slow
def test_a_tsa_that_does_not_answer_does_not_hold_the_tick(tmp_path, data_dir, chains):
    """``timeout_s`` bounds the wait for all authorities together; the silent one is pending."""
    with TsaServer(Authority(chains["alpha"])) as alpha, TsaServer(Authority(chains["beta"], hang=True)) as beta:
        report = tick(tmp_path, data_dir, "2026-06-10T12:00Z", alpha, beta, timeout=1)
        assert beta.authority.seen == 1  # it was asked, and the tick went on without its answer
    manifest = latest_manifest_path(tmp_path / "archive")
    assert report.stamps.written == [token_path(manifest, "alpha")]
    assert report.stamps.failed == {token_path(manifest, "beta"): "no answer within 1s"}


# -- the chain rule, as an invariant ----------------------------------------------------------


@pytest.mark.slow
@given(data=st.data(), count=st.integers(1, 12))
def test_a_token_covers_exactly_the_manifests_chained_before_it(data, count):
    """Oracle: manifest i's proof is the earliest own-token time over j >= i with links i+1..j all intact."""
    from collector.audit.facts import Facts
    from collector.audit.gitlog import Change, Commit
    from collector.audit.history import FileHistory
    from collector.audit.timestamps import chain_proof_times

    broken = data.draw(st.lists(st.booleans(), min_size=count, max_size=count))  # link i -> i-1 broken
    own = data.draw(st.lists(st.one_of(st.none(), st.integers(0, 10_000)), min_size=count, max_size=count))
    files, valid = {}, {}
    for i in range(count):
        path, sha = f"manifests/2026/m{i:03d}.json", f"{i:064x}"
        previous = (f"manifests/2026/m{i - 1:03d}.json", f"{i - 1:064x}") if i else (None, None)
        if broken[i] and i:
            previous = (previous[0], "f" * 64)  # names the right path with the wrong hash
        facts = Facts("manifest", False, manifest=(at(1), {}, *previous))
        commit = Commit(i, f"{i:040x}", at(1), at(1))
        files[path] = FileHistory(path, added=Change(commit, "A", path, "0" * 40, f"{i:040x}"), added_facts=facts,
                                  added_sha256=sha)  # fmt: skip
        if own[i] is not None:
            valid[path] = [(at(1) + timedelta(seconds=own[i]), f"t{i}")]
    best = chain_proof_times(files, valid)
    for i in range(count):
        candidates = []
        for j in range(i, count):
            if j > i and broken[j]:
                break
            if own[j] is not None:
                candidates.append(own[j])
        expected = at(1) + timedelta(seconds=min(candidates)) if candidates else None
        got = best.get(f"manifests/2026/m{i:03d}.json")
        assert (got[0] if got else None) == expected


def test_the_shipped_roots_are_the_authorities_published_ones():
    from cryptography.hazmat.primitives import hashes

    from collector.audit.timestamps import SHIPPED_ROOTS, load_roots

    shipped = {authority: {c.fingerprint(hashes.SHA256()).hex().upper() for c in certs}
               for authority, certs in load_roots([SHIPPED_ROOTS]).items()}  # fmt: skip
    assert shipped == {  # one file per authority of prematch.toml, named by its id
        "digicert": {"552F7BDCF1A7AF9E6CE672017F4F12ABF77240C78E761AC203D1D9D20AC89988"},  # DigiCert Trusted Root G4
        "sectigo": {"E793C9B02FD8AA13E21C31228ACCB08119643B749C898964B1746D46C3D4CBD2"},  # USERTrust RSA CA
    }


@pytest.mark.slow
def test_a_token_from_an_unknown_authority_is_not_trusted_by_the_shipped_roots(tmp_path, chains):
    from collector.audit.timestamps import SHIPPED_ROOTS

    repo = history(tmp_path, chains, forecast_stamp=at(10, 19, 1))
    report = verify_repository(repo.root, use_cache=False, tsa_roots=[SHIPPED_ROOTS])
    assert not report.ok and "token_invalid" in codes(report, violation=True)
    assert report.proofs.proofs[ELO].kind == "git_date"
