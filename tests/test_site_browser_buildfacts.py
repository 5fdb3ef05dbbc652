"""In a real browser, every page's footer shows this build's facts from build.html (JavaScript on or off),
whole, at desktop and phone widths."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import pytest

from builder.site.build import build_site
from collector.archive.write.manifest import write_tick_manifest
from collector.archive.write.writer import ArchiveWriter
from tests.browser_helpers import launched_chromium, require_chromium, serve
from tests.site_archive import write_site_archive

pytestmark = pytest.mark.browser
PAGES = ["index.html", "matches/worldcup-2026/mex-v-rsa.html", "methodology/index.html"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    require_chromium()
    root = tmp_path_factory.mktemp("facts")
    archive = write_site_archive(root / "archive")
    writer = ArchiveWriter(archive)
    writer.written = [p.relative_to(archive).as_posix() for p in archive.rglob("*.json")]
    manifest = write_tick_manifest(writer, datetime(2026, 6, 10, 12, 0, tzinfo=UTC))
    digest = hashlib.sha256((archive / manifest).read_bytes()).hexdigest()
    build_site(archive, root / "site", commit="f00dcafe", progress=lambda _l: None)
    server, base = serve(root / "site")
    try:
        yield base, digest, root
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("javascript", [True, False])
def test_the_footer_shows_the_build_facts_whole(site, width, javascript):
    base, digest, root = site
    with launched_chromium() as chromium:
        context = chromium.new_context(viewport={"width": width, "height": 900}, java_script_enabled=javascript)
        tab = context.new_page()
        for name in PAGES:
            tab.goto(base + name)
            frame_element = tab.locator("footer iframe.build-facts")
            frame_element.scroll_into_view_if_needed()
            frame = frame_element.content_frame
            text = frame.locator("body").inner_text()
            assert "Built from archive commit f00dcafe" in text and digest in text, name
            assert "last updated" in text
            inner = frame.locator("body").evaluate("b => [b.scrollHeight, document.documentElement.clientHeight]")
            assert inner[0] <= inner[1], f"{name} at {width}px: the facts are cut off ({inner})"
        tab.screenshot(path=str(root / f"footer-{width}-{'js' if javascript else 'nojs'}.png"), full_page=False)
        context.close()
