"""Every page's footer frames build.html, which carries the latest manifest's SHA-256 and token times; the Audit page names the arena's URLs."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import pytest

from builder.site.build import build_site
from builder.site.provenance import arena_urls
from collector.archive.tokens import token_path
from collector.archive.write.manifest import write_tick_manifest
from collector.archive.write.writer import ArchiveWriter, write_new_file
from tests.site_archive import write_site_archive
from tests.tsa_authority import YEAR, make_chain, token_response

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

STAMPED = datetime(2026, 6, 10, 12, 0, 7, tzinfo=UTC)


def test_footer_anchor_and_audit_urls(tmp_path):
    root = tmp_path / "repo"
    archive = write_site_archive(root / "archive")
    writer = ArchiveWriter(archive)
    writer.written = [p.relative_to(archive).as_posix() for p in archive.rglob("*.json")]  # list them all once
    manifest = write_tick_manifest(writer, STAMPED)
    digest = hashlib.sha256((archive / manifest).read_bytes())
    chain = make_chain("Footer", STAMPED - YEAR, STAMPED + YEAR)
    write_new_file(archive / token_path(manifest, "alpha"), token_response(chain, digest.digest(), STAMPED))
    (root / "prematch.toml").write_text('[arena]\ncompetitions = ["worldcup-2026"]\n'
                                        'repository_url = "https://github.com/example-org/arena"\n'
                                        'site_url = "https://example-org.github.io/arena/"\n')
    build_site(archive, tmp_path / "site", commit="abc123", progress=lambda _: None,
               urls=arena_urls(root / "prematch.toml"))  # as `builder build --config` does
    site = tmp_path / "site"
    facts = (site / "build.html").read_text()  # the per-build facts live in one page ...
    assert digest.hexdigest() in facts and "2026-06-10 12:00:07 UTC by alpha" in facts and "abc123" in facts
    pages = [p for p in site.rglob("*.html") if p.name != "build.html"]
    for page in pages:  # ... which every other page's footer frames, so a copy of any page shows the anchor
        text = page.read_text()
        root = "../" * (len(page.relative_to(site).parts) - 1)
        assert f'<iframe class="build-facts" src="{root}build.html"' in text, page
        assert "Built from archive commit" not in text, page
        assert (digest.hexdigest() in text) == (page.parent.name == "audit"), page  # the Audit page names it too
    assert len(pages) > 10
    audit = (tmp_path / "site/audit/index.html").read_text()
    assert f"--anchor {digest.hexdigest()}\n" in audit  # outside git: no commit to pair it with
    assert "https://github.com/example-org/arena" in audit and "git clone https://github.com/example-org/arena.git" in audit
    assert "https://example-org.github.io/arena/data/manifest.json" in audit and "<REPOSITORY_URL>" not in audit
    assert "What it does not prove" in audit
    assert "This archive holds 1 time-stamp token: 1 from <code>alpha</code>." in audit  # what it holds, not a promise


def test_without_configuration_the_audit_page_says_so_and_the_footer_waits_for_a_token(tmp_path):
    archive = write_site_archive(tmp_path / "repo" / "archive")
    writer = ArchiveWriter(archive)
    writer.written = [p.relative_to(archive).as_posix() for p in archive.rglob("*.json")]
    write_tick_manifest(writer, STAMPED)
    build_site(archive, tmp_path / "site", commit="abc123", progress=lambda _: None)
    facts = (tmp_path / "site/build.html").read_text()
    assert "no time-stamp token yet" in facts and "verify --anchor" in facts
    audit = (tmp_path / "site/audit/index.html").read_text()
    assert "not configured: [arena] repository_url in prematch.toml" in audit
    assert "<strong>This archive holds no time-stamp token</strong>" in audit and "git history alone" in audit
    assert "DigiCert and Sectigo by default" not in audit
