"""What every page builder shares: the loaded archive, its scores, the commit and the replay flag."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from builder.site.links import root_for
from builder.site.models import Meta
from collector.archive.reader import Archive
from collector.records import Clock


@dataclass(frozen=True)
class SiteContext:
    archive: Archive
    scores: Any  # builder.score.scoring.Scores (or None when the archive has nothing to score)
    commit: str
    replay: bool
    anchor: Any = None  # builder.site.anchor.AnchorView, shown in every footer
    urls: Any = None  # builder.site.anchor.ArenaUrls, filled into the Audit page

    def meta(self, title: str, path: str, section: str, charts: bool = False) -> Meta:
        return Meta(
            title=title,
            root=root_for(path),
            section=section,
            replay=self.replay,
            commit=self.commit,
            charts=charts,
            anchor=self.anchor,
        )


def has_replay_records(archive: Archive) -> bool:
    """True when any record the site shows was produced by a replay (simulated clock)."""
    return any(record.clock is Clock.REPLAY for record in archive.records.values())
