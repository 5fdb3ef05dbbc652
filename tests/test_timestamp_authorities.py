"""Roots per time-stamping authority, chains completed from an authority's file, and only granted tokens.

A token is filed as ``TICK.AUTHORITY.tsr``; ``verify`` checks it against that authority's roots
alone (``AUTHORITY.pem``), so another authority's token under its name is a violation. The
authorities are ``tests/tsa_authority.py``'s, made here with ``cryptography``.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import pytest

from collector.archive.tokens import token_path
from collector.archive.write.manifest import latest_manifest_path
from collector.archive.write.writer import write_new_file
from collector.audit.verify import verify_repository
from tests.gitrepo import at
from tests.test_timestamps import (  # noqa: F401 - chains and roots are fixtures
    EARLY,
    chains,
    codes,
    history,
    roots,
    stamp,
    tick,
)
from tests.tsa_authority import (
    YEAR,
    Authority,
    TsaServer,
    make_chain,
    token_response,
    with_status,
)


def test_a_token_signed_by_one_authority_filed_under_anothers_name_is_a_violation(tmp_path, chains, roots):
    repo = history(tmp_path, chains)
    manifest = latest_manifest_path(repo.archive)
    digest = hashlib.sha256((repo.archive / manifest).read_bytes()).digest()
    token = token_response(chains["beta"], digest, at(12, 1, 1))  # beta signed it
    write_new_file(repo.archive / token_path(manifest, "alpha"), token)  # ... filed as alpha's
    write_new_file(repo.archive / token_path(manifest, "beta"), token)  # and, the same bytes, as beta's
    repo.commit(at(12, 2), "tokens")
    report = verify_repository(repo.root, use_cache=False, tsa_roots=[roots])
    bad = {f.path: f.message for f in report.violations if f.code == "token_invalid"}
    assert set(bad) == {token_path(manifest, "alpha")}
    assert "does not verify against the trusted roots of its authority" in bad[token_path(manifest, "alpha")]
    assert [t for _, t in report.proofs.valid[manifest]] == [token_path(manifest, "beta")]


def test_pooled_roots_would_have_let_it_pass(tmp_path, chains):
    """The same two tokens against one pool of both roots (the behaviour before roots per authority)."""
    repo = history(tmp_path, chains)
    manifest = latest_manifest_path(repo.archive)
    digest = hashlib.sha256((repo.archive / manifest).read_bytes()).digest()
    write_new_file(repo.archive / token_path(manifest, "alpha"), token_response(chains["beta"], digest, at(12, 1)))
    repo.commit(at(12, 2), "token")
    pooled = tmp_path / "alpha.pem"  # both roots trusted for alpha: the file's name is the authority
    pooled.write_bytes(chains["alpha"].root_pem() + chains["beta"].root_pem())
    assert "token_invalid" not in codes(verify_repository(repo.root, use_cache=False, tsa_roots=[pooled]))


def test_an_intermediate_the_tokens_do_not_carry_is_taken_from_the_authoritys_file(tmp_path, chains):
    gamma = make_chain("Gamma", EARLY, EARLY + 3 * YEAR, intermediate=True)  # root -> CA -> TSA
    repo = history(tmp_path, chains)
    path = stamp(repo, "gamma", gamma, at(12, 1, 1))  # the token embeds the TSA certificate only
    repo.commit(at(12, 2), "token")
    folder = tmp_path / "gamma-roots"
    folder.mkdir()
    (folder / "gamma.pem").write_bytes(gamma.root_pem())
    incomplete = verify_repository(repo.root, use_cache=False, tsa_roots=[folder])
    assert [f.path for f in incomplete.violations if f.code == "token_invalid" and "gamma" in f.path] == [path]
    (folder / "gamma.pem").write_bytes(gamma.root_pem() + gamma.intermediate_pem())  # the chain completed
    complete = verify_repository(repo.root, use_cache=False, tsa_roots=[folder])
    assert not [f for f in complete.violations if f.code == "token_invalid" and "gamma" in f.path]
    assert any(token.endswith(".gamma.tsr") for stamps in complete.proofs.valid.values() for _, token in stamps)


@pytest.mark.slow
def test_a_granted_with_modifications_token_is_refused_and_never_written(tmp_path, data_dir, chains):
    with TsaServer(Authority(chains["alpha"], at=datetime(2026, 6, 10, 12, tzinfo=UTC))) as alpha, \
            TsaServer(Authority(chains["beta"])) as beta:  # fmt: skip
        granted = alpha.authority.stamp
        alpha.authority.stamp = lambda request: with_status(granted(request), 1)
        report = tick(tmp_path, data_dir, "2026-06-10T12:00Z", alpha, beta)
    manifest = latest_manifest_path(tmp_path / "archive")
    assert report.stamps.written == [token_path(manifest, "beta")]
    why = report.stamps.failed[token_path(manifest, "alpha")]
    assert why.startswith("status 1 (granted with modifications) refused: only a plain granted token (status 0)")
    assert not (tmp_path / "archive" / token_path(manifest, "alpha")).exists()  # asked again next tick
    # the tick's forecasts are written and listed in the manifest whatever the authorities answer
    forecasts = list((tmp_path / "archive").rglob("forecasts/uniform/*.json"))
    assert forecasts and report.produced == len(forecasts)
