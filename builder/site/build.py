"""The conductor of ``python -m builder build``: archive -> scores -> page models -> HTML -> folder.

Everything is rendered in memory and the output folder is written once at the end (into a
temporary sibling that then replaces the previous build), so a failed build never leaves a
half-written site. The same archive builds to the same bytes: nothing depends on the clock,
and every list is sorted.
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from builder.score.scoring import score_archive
from builder.score.slices import score_slices, slices
from builder.site.analysis import analysis_page
from builder.site.anchor import latest_anchor
from builder.site.binary_events import binary_event_pages
from builder.site.bracket import bracket_pages, overlay_files
from builder.site.buildfacts import build_facts_page
from builder.site.chart_page import charts_page
from builder.site.charts import PLOTLY_JS
from builder.site.exports import export_files
from builder.site.forecasters import forecaster_pages
from builder.site.layers import layers_page
from builder.site.leaderboard import leaderboard_pages
from builder.site.matches import match_pages
from builder.site.measures import measures_lookup
from builder.site.pagecache import PageCache
from builder.site.provenance import ArenaUrls, added_commits
from builder.site.questions import question_pages
from builder.site.render import TEMPLATES_DIR
from builder.site.sitectx import SiteContext, has_replay_records
from builder.site.tables import all_tables
from builder.site.teams import team_pages
from builder.site.textpages import data_page, method_pages
from collector.archive.git import git
from collector.archive.memory import paused_garbage_collector
from collector.archive.reader import load_archive
from collector.errors import ArchiveError, ConfigError, Problem

MARKER = ".prematch-site"
PAGE_LIMIT = 500 * 1024
STATIC = ("site.css", "site.js", "bracket.css", "bracket.js")


@dataclass
class BuildReport:
    out: Path
    pages: int = 0
    files: int = 0
    records: int = 0
    problems: list[Problem] = field(default_factory=list)
    heavy_pages: list[tuple[str, int]] = field(default_factory=list)
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
        if self.replay:
            lines.append("note: built from replay records; every page carries the replay banner")
        return lines


def archive_commit(archive_dir: Path) -> str:
    """The git commit the archive folder is at, or 'unknown' outside a git checkout."""
    try:
        return git(archive_dir, "rev-parse", "HEAD", timeout=20).decode().strip() or "unknown"
    except ArchiveError:
        return "unknown"


def build_site(archive_dir: Path, out_dir: Path, commit: str | None = None,
               progress: Callable[[str], None] = print, urls: ArenaUrls | None = None,
               cache: Path | None = None) -> BuildReport:
    """Build the site of ``archive_dir`` into ``out_dir``; return what was built and what was left out.

    ``urls`` (:func:`builder.site.provenance.arena_urls`): with a repository, each record is linked
    to its file at the commit that added it there; every record's raw JSON is also copied to ``records/`` beside the site.
    ``cache``: a folder holding the previous build's pages (:mod:`builder.site.pagecache`); only
    pages whose inputs changed are rendered, and the site is the same bytes as without it.
    """
    if not Path(archive_dir).is_dir():
        raise ArchiveError(f"{archive_dir}: no such archive folder")
    check_out_dir(out_dir)
    progress(f"loading archive {archive_dir}")
    archive = load_archive(archive_dir)
    # The records live for the whole build: freezing them keeps the garbage collector from
    # rescanning hundreds of thousands of objects at every collection, and the cyclic collector
    # is paused while scores, page models and pages pile up (they are acyclic; its full passes
    # over the growing heap made big builds slower than linear). Unfrozen at the end so a
    # long-lived caller gets them back.
    gc.freeze()
    try:
        with paused_garbage_collector():
            return _build(archive, archive_dir, out_dir, commit, progress, urls, cache)
    finally:
        gc.unfreeze()


def _build(archive, archive_dir: Path, out_dir: Path, commit: str | None, progress: Callable[[str], None],
           urls: ArenaUrls | None = None, cache: Path | None = None) -> BuildReport:
    report = BuildReport(out=out_dir)
    report.records, report.problems = len(archive.records), list(archive.problems)
    progress(f"  {report.records} valid records, {len(report.problems)} problems")
    for problem in report.problems:
        progress(f"  left out: {problem}")
    progress("scoring")
    scores = score_archive(archive)
    commit, replay = commit or archive_commit(archive_dir), has_replay_records(archive)
    report.replay = replay
    parts = slices(archive)
    if len(parts) > 1:
        progress(f"scoring {len(parts) - 1} leaderboard slices (per competition and stage)")
    ctx = SiteContext(archive, scores, commit, replay, score_slices(archive, scores, parts),
                      latest_anchor(Path(archive_dir)), urls or ArenaUrls(), added=added_commits(archive_dir))
    progress("building page models")
    models = page_models(ctx)
    progress(f"rendering {len(models) + 1} pages")
    pages = PageCache.open(cache)
    if pages.note:
        progress(f"  {pages.note}")
    files = pages.render(models)
    files.update(overlay_files(ctx))  # each full-tournament forecast's bracket overlay, a JSON file
    progress("exporting CSV, JSON, SQLite, schemas and the archive manifest")
    files.update(export_files(all_tables(archive, scores), archive_dir, ctx.commit, archive.sha256))
    data = data_page(ctx, {k: v for k, v in files.items() if k.startswith("data/")})
    files.update(pages.render([data]))
    files.update(static_files())
    files.update(record_files(archive, archive_dir))
    report.pages = sum(1 for name in files if name.endswith(".html"))
    report.files = len(files)
    report.heavy_pages = sorted((k, len(v)) for k, v in files.items() if k.endswith(".html") and len(v) > PAGE_LIMIT)
    progress(f"writing {report.files} files")
    write_site(out_dir, files)
    unsaved = pages.save()
    progress(f"  {pages.summary()}" + (f"; {unsaved}" if unsaved else ""))
    report.rendered, report.reused = pages.rendered, pages.reused
    return report


def page_models(ctx: SiteContext) -> list:
    """Every page model of the site (the data page is added once the downloads exist)."""
    measures = measures_lookup(ctx.scores)
    models: list = []
    models += leaderboard_pages(ctx)
    models += match_pages(ctx, measures)
    models.append(layers_page(ctx))  # WorldCupArena composite, layers and the T1-T5 radar
    models += question_pages(ctx, measures)
    models += binary_event_pages(ctx)
    models += bracket_pages(ctx)
    models += team_pages(ctx)
    models += forecaster_pages(ctx)
    models.append(charts_page(ctx))
    models.append(analysis_page(ctx))
    models += method_pages(ctx)
    models.append(build_facts_page(ctx))
    return models


def static_files() -> dict[str, bytes]:
    files = {f"assets/{name}": (TEMPLATES_DIR / "static" / name).read_bytes() for name in STATIC}
    files["assets/plotly.min.js"] = PLOTLY_JS.read_bytes()
    files[".nojekyll"] = b""
    files[MARKER] = b"built by python -m builder build; this folder is replaced at every build\n"
    return files


def record_files(archive, archive_dir: Path) -> dict[str, bytes]:
    """Every valid record's raw JSON at ``records/{archive path}``, so each page can link the file it shows."""
    root = Path(archive_dir)
    return {f"records/{path}": (root / path).read_bytes() for path in sorted(archive.records)}


def check_out_dir(out_dir: Path) -> None:
    """Refuse to replace a non-empty folder that no earlier build wrote (it may hold someone's files)."""
    if out_dir.exists() and (not out_dir.is_dir() or (any(out_dir.iterdir()) and not (out_dir / MARKER).exists())):
        raise ConfigError(f"{out_dir}: exists, is not empty and is not a Prematch site; refusing to replace it")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_site(out_dir: Path, files: dict[str, bytes]) -> None:
    """Write every file into a fresh folder beside ``out_dir``, then swap it in."""
    out_dir = out_dir.resolve()
    check_out_dir(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:  # mkdtemp makes the folder 0700; the site gets the modes of any folder (0755 under umask 022)
        staging.chmod(0o777 & ~_umask())
        for name in sorted(files):
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(files[name])
        if out_dir.exists():
            shutil.rmtree(out_dir)
        staging.rename(out_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
