"""What every page builder shares: the loaded archive, its scores and slices, the commit and the replay flag."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from builder.score.types import Scores, Slice
from builder.site.links import kickoff, root_for
from builder.site.market_chart import snapshots_by_event
from builder.site.models import Kickoff, Meta
from builder.site.provenance import ArenaUrls, raw_link
from collector.archive.layout import path_for
from collector.archive.reader import Archive
from collector.records import Clock, is_demo


@dataclass(frozen=True)
class SiteContext:
    """The inputs of every page model: records, the scores computed before any page, and labels."""

    archive: Archive
    scores: Scores  # the whole archive's scores (builder.score.scoring.score_archive)
    commit: str
    replay: bool
    slices: Mapping[Slice, Scores] = field(default_factory=dict)
    """Every leaderboard slice's scores, computed by the scoring stage before page models (in slice order)."""
    anchor: Any = None  # builder.site.anchor.AnchorView, shown in every footer
    urls: ArenaUrls = ArenaUrls()
    """The arena's public addresses (``provenance.arena_urls``): record links and the Audit page."""
    added: Mapping[str, str] = field(default_factory=dict)
    """Record path (relative to the archive) -> the commit that added it (``provenance.added_commits``)."""
    hosted: Mapping[str, str] = field(default_factory=dict)
    """The records the repository host serves as they are, at their adding commit (``provenance.hosted_commits``)."""
    demo: bool = False
    """The demo's synthetic LLMs (``collector.records.is_demo``) are in the archive: every page says so."""
    paper: tuple | None = None
    """The analysis page's paper tables (``builder.score.paper_tables``) when the scoring stage made
    them beside the slices (:mod:`builder.score.slicework`); None: the analysis page makes them."""
    _team_names: dict[str, dict[str, str]] = field(default_factory=dict, init=False, repr=False, compare=False)
    _odds: dict[str, dict] = field(default_factory=dict, init=False, repr=False, compare=False)
    _match_forecasts: dict[tuple[str, str], list] = field(default_factory=dict, init=False, repr=False, compare=False)
    _consensus: dict[tuple[str, str], Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    _paths: dict[int, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def repository_url(self) -> str | None:
        """The arena's repository on its host; record links are built from it (None: no host links)."""
        return self.urls.repository

    def host_link(self, path: str) -> str:
        """The one home of "is this record served by the host": the host's raw file of the record at
        archive ``path``, at the commit that added it, when the repository is known and the bytes
        have not moved since; '' otherwise (the site then carries a copy:
        :func:`builder.site.build.record_files`)."""
        return raw_link(self.repository_url, self.hosted.get(path), path)

    def record_href(self, path: str, root: str) -> str:
        """Where a page links the raw JSON of the record at archive ``path``: :meth:`host_link`, else
        the copy beside the site, ``records/{path}`` under ``root``."""
        return self.host_link(path) or f"{root}records/{path}"

    def team_names(self, competition_id: str) -> dict[str, str]:
        """Team id -> display name in one of the archive's competitions (built once per context;
        callers must not modify it)."""
        found = self._team_names.get(competition_id)
        if found is None:
            teams = self.archive.competitions[competition_id].teams
            found = self._team_names[competition_id] = {team.id: team.name for team in teams}
        return found

    def odds_snapshots(self, competition_id: str, event_id: str) -> list:
        """Every odds snapshot of one event (all sources and horizons), grouped once per context."""
        if "by_event" not in self._odds:
            self._odds["by_event"] = snapshots_by_event(self.archive.records)
        return self._odds["by_event"].get((competition_id, event_id), [])

    def match_forecasts(self, competition_id: str, event_id: str) -> list:
        """The effective forecasts of one match, in archive order (grouped once per context; callers must not modify it)."""
        if not self._match_forecasts and self.archive.forecasts:
            grouped = self._match_forecasts
            for forecast in self.archive.forecasts:
                if forecast.target_kind == "match":
                    grouped.setdefault((forecast.competition_id, forecast.target_id), []).append(forecast)
        return self._match_forecasts.get((competition_id, event_id), [])

    def record_path(self, record) -> str:
        """The archive path of a loaded record (found by the object, indexed once per context; else
        the path its key names, where the reader checked it sits)."""
        if not self._paths and self.archive.records:
            self._paths.update({id(r): p for p, r in self.archive.records.items()})
        found = self._paths.get(id(record))
        return found if found is not None else path_for(record)

    def memo_consensus(self, key: tuple[str, str], make) -> Any:
        """The display consensus of a match (``make()``, :func:`builder.site.matches.consensus`), computed once per context:
        the match page, its competition's list and both teams' pages show it."""
        if key not in self._consensus:
            self._consensus[key] = make()
        return self._consensus[key]

    def updated(self) -> Kickoff | None:
        """The latest tick time of the archive (its newest manifest), shown as "last updated" on every page."""
        if not self.archive.manifests:
            return None
        moment = self.archive.manifests[-1].tick_at
        return kickoff(moment, moment.strftime("%Y-%m-%d %H:%M UTC"))

    def meta(self, title: str, path: str, section: str, charts: bool = False) -> Meta:
        return Meta(
            title=title,
            root=root_for(path),
            section=section,
            replay=self.replay,
            demo=self.demo,
            charts=charts,
        )  # the commit, anchor and last update are per-build facts: builder.site.buildfacts


def has_demo_records(archive: Archive) -> bool:
    """True when any forecast is by one of the demo's synthetic LLMs."""
    return any(is_demo(f.forecaster) for f in archive.forecasts)


def has_replay_records(archive: Archive) -> bool:
    """True when any record the site shows was produced by a replay (simulated clock)."""
    return any(record.clock is Clock.REPLAY for record in archive.records.values())
