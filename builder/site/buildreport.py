"""What a build reports: the site it wrote (pages, files, bytes, pages over the limit) and the archive's records and problems."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from collector.errors import Problem

PAGE_LIMIT = 500 * 1024
PAGES_SITE_LIMIT = 1024**3
"""GitHub Pages publishes no site larger than 1 GB ("Published GitHub Pages sites may be no larger
than 1 GB", GitHub Pages limits); a build over it says so."""


@dataclass
class BuildReport:
    out: Path
    pages: int = 0
    files: int = 0
    records: int = 0
    problems: list[Problem] = field(default_factory=list)
    heavy_pages: list[tuple[str, int]] = field(default_factory=list)
    site_bytes: int = 0  # every file of the site, summed
    replay: bool = False
    rendered: int = 0  # pages rendered by this build (the rest were reused from the page cache)
    reused: int = 0

    def summary_lines(self) -> list[str]:
        """What was built; the files left out are the report's problems (one ``problem:`` line each)."""
        lines = [
            f"built {self.pages} pages ({self.files} files) into {self.out}",
            f"records: {self.records} valid, {len(self.problems)} left out with problems",
        ]
        lines += [f"  warning: {path} weighs {size // 1024} KB (limit 500 KB)" for path, size in self.heavy_pages]
        if self.site_bytes > PAGES_SITE_LIMIT:
            lines.append(f"  warning: the site weighs {self.site_bytes / 1024**2:,.0f} MB, over GitHub Pages' 1 GB limit "
                         "for a published site (set the arena's repository_url so records are linked there, not copied)")
        if self.replay:
            lines.append("note: built from replay records; every page carries the replay banner")
        return lines


def tally(report: BuildReport, states: dict, rendered: int, reused: int) -> BuildReport:
    """``report`` completed from the site's file ``states`` (``rendered`` pages made by this build, ``reused`` kept)."""
    report.pages = sum(1 for name in states if name.endswith(".html"))
    report.files = len(states)
    report.site_bytes = sum(state.size for state in states.values())
    report.heavy_pages = sorted((k, s.size) for k, s in states.items() if k.endswith(".html") and s.size > PAGE_LIMIT)
    report.rendered, report.reused = rendered, reused
    return report
