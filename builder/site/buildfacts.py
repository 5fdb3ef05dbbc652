"""The facts of one build in one place: ``build.html``, which every page's footer frames.

The archive commit, the latest tick's manifest hash with its time-stamp times, and the
"last updated" tick time change at every build. Printed in each page they made every page
change at every build; kept in this one small page (shown in every footer through an
``<iframe>``, no JavaScript needed) a page whose own content did not change stays
byte-identical, which is what lets an incremental build reuse it (:mod:`builder.site.pagecache`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from builder.site.models import Kickoff
from builder.site.render import declare

PATH = "build.html"


@declare
@dataclass(frozen=True)
class BuildFactsPage:
    """The per-build facts: commit, latest tick time, and the anchor (latest manifest and its tokens)."""

    TEMPLATE: ClassVar[str] = "build.html"
    path: str
    commit: str
    updated: Kickoff | None  # the newest manifest's tick time (None: no ticks yet)
    anchor: Any  # builder.site.anchor.AnchorView or None
    replay: bool


def build_facts_page(ctx) -> BuildFactsPage:
    """The one page holding what changes at every build (``ctx``: :class:`builder.site.sitectx.SiteContext`)."""
    return BuildFactsPage(path=PATH, commit=ctx.commit, updated=ctx.updated(), anchor=ctx.anchor, replay=ctx.replay)
