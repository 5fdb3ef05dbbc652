"""The conductor of ``python -m builder build``: archive -> scores -> page models -> HTML -> folder.

Each file goes to the :class:`~builder.site.sitewriter.SiteWriter` as soon as it is made (no
dict of every page's bytes): without a cache the site is written into a temporary sibling that
then replaces the previous build; with one, only the files whose bytes changed are staged and
renamed into place once every file is ready, so a failed build never leaves a half-written
site either way. A site whose inputs are all unchanged since the build that wrote it, and
which is still as that build left it, is kept whole (:mod:`builder.site.sitereuse`). The page
cache (:mod:`builder.site.pagecache`) skips building and rendering pages whose inputs did not change; the downloads are kept from the previous build when the
archive manifest and the code are unchanged (:mod:`builder.site.exportreuse`), else built one
table at a time, the unchanged chunks of the forecasts and scores tables copied from the
previous site's files (:mod:`builder.site.exportchunks`). The same archive builds to the same
bytes: nothing depends on the clock, and every list is sorted.
"""

from __future__ import annotations

import gc
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import orjson

from builder.parallel import WORKERS_ENV, Background, workers
from builder.score.memo import remembering
from builder.score.scoring import score_archive
from builder.score.slices import slices
from builder.score.slicework import SliceWork
from builder.site.analysis import analysis_page
from builder.site.anchor import latest_anchor
from builder.site.binary_events import binary_event_pages
from builder.site.bracket import bracket_pages, overlay_files
from builder.site.buildfacts import build_facts_page
from builder.site.buildreport import BuildReport, tally
from builder.site.cache import SiteReport
from builder.site.chart_page import charts_page
from builder.site.charts import PLOTLY_JS
from builder.site.exportchunks import INDEX
from builder.site.exportreuse import chunk_entry, exports_fingerprint
from builder.site.exports import archive_manifest, export_files
from builder.site.forecasters import forecaster_pages
from builder.site.layers import layers_page
from builder.site.leaderboard import leaderboard_pages
from builder.site.matches import match_pages
from builder.site.measures import measures_lookup
from builder.site.pagecache import PageCache
from builder.site.provenance import ArenaUrls, added_commits, hosted_commits
from builder.site.questions import question_pages
from builder.site.release import write_open_data
from builder.site.render import TEMPLATES_DIR
from builder.site.sitectx import SiteContext, has_demo_records, has_replay_records
from builder.site.sitereuse import archive_hashes, site_fingerprint, unhashed_problems
from builder.site.sitewriter import ArchiveCopy, Content, SiteWriter, site_intact
from builder.site.tables import iter_tables
from builder.site.teams import team_pages
from builder.site.textpages import data_page, method_pages
from collector.archive.git import git
from collector.archive.memory import paused_garbage_collector
from collector.archive.reader import load_archive
from collector.errors import ArchiveError, ConfigError, Problem

MARKER = ".prematch-site"
CHILD_RECORDS = 80_000
"""The largest archive whose downloads (and slices: :mod:`builder.score.slicework`) a build
without an earlier one in its cache makes in a child process (unless ``PREMATCH_BUILD_WORKERS``
says otherwise). The slices' child adds its copied pages and its own arrays to the scoring's. The
downloads' child and the parent both touch the records and the scored rows while the downloads
are made, so each page of them they write is copied (copy-on-write): the build's memory grows
with every record, and past this size a cold build would go over its 1 GB aim. A build whose
page cache holds an earlier build's pages (a tick's, on the runner or locally) makes them in the
child whatever the archive's size: its downloads are then a large part of its time, hidden behind
the pages, for some more memory. The measurements are in docs/performance.md
(``benchmarks/build_site.py``)."""
STATIC = ("site.css", "site.js", "bracket.css", "bracket.js")


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
    to its file at the commit that added it there, and its raw JSON is linked there too when its
    bytes have not moved since; the others' raw JSON is copied to ``records/`` beside the site.
    ``cache``: a folder holding the previous build's pages (:mod:`builder.site.pagecache`); only
    pages whose inputs changed are rendered, and the site is the same bytes as without it.
    """
    if not Path(archive_dir).is_dir():
        raise ArchiveError(f"{archive_dir}: no such archive folder")
    check_out_dir(out_dir)
    progress(f"loading archive {archive_dir}")
    urls = urls or ArenaUrls()
    commit = commit or archive_commit(Path(archive_dir))
    pages = PageCache.open(cache)
    try:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="prematch-history") as pool:
            asked = pool.submit(history, Path(archive_dir), commit, urls)  # git works while the archive loads
            kept = _unchanged(Path(archive_dir), out_dir, commit, urls, asked.result, pages, progress)
            if kept is not None:
                return kept
            archive = load_archive(archive_dir)
            found = asked.result()
    except BaseException:
        pages.close()
        raise
    # The records live for the whole build: freezing them keeps the garbage collector from
    # rescanning hundreds of thousands of objects at every collection, and the cyclic collector
    # is paused while scores, page models and pages pile up (they are acyclic; its full passes
    # over the growing heap made big builds slower than linear). Unfrozen at the end so a
    # long-lived caller gets them back.
    gc.freeze()
    try:
        with paused_garbage_collector():
            return _build(archive, archive_dir, out_dir, found, progress, urls, pages)
    finally:
        gc.unfreeze()


def _unchanged(archive_dir: Path, out_dir: Path, commit: str, urls: ArenaUrls,
               found: Callable[[], tuple[str, dict, dict]], pages: PageCache,
               progress: Callable[[str], None]) -> BuildReport | None:
    """The report of the site kept in ``out_dir`` when the cache's site was built at ``commit``
    and the archive's files, read and hashed without being parsed, give its fingerprint
    (:mod:`builder.site.sitereuse`); None otherwise (the build loads the archive)."""
    stored = pages.kept_report(commit, out_dir)
    hashed = archive_hashes(archive_dir) if stored is not None else None
    if hashed is None:
        return None
    hashes, listed = hashed
    _, added, hosted = found()
    fingerprint = site_fingerprint(archive_manifest(archive_dir, commit, hashes), archive_dir, urls, added,
                                   pages.templates, hosted, unhashed_problems(listed, hashes))
    kept = pages.kept_site(fingerprint, out_dir)
    if kept is None or not site_intact(out_dir, kept):
        return None
    report = BuildReport(out=out_dir, records=stored.records, replay=stored.replay,
                         problems=[Problem(path, message) for path, message in stored.problems])
    _loaded(report, progress)
    return _kept(report, kept, pages, progress, "the archive's files hashed, none validated; ")


def _loaded(report: BuildReport, progress: Callable[[str], None]) -> None:
    """The progress lines of the archive's records and the files left out."""
    progress(f"  {report.records} valid records, {len(report.problems)} problems")
    for problem in report.problems:
        progress(f"  left out: {problem}")


def _kept(report: BuildReport, kept: dict, pages: PageCache, progress: Callable[[str], None], how: str = "") -> BuildReport:
    """``report`` of the site kept whole (its file states ``kept``); the cache left as it was."""
    pages.close()
    progress(f"  nothing changed since the last build (archive, commit, history, addresses, code): "
             f"{how}its {len(kept)} files kept as they are")
    for line in pages.notes():
        progress(f"  {line}")
    return tally(report, kept, rendered=0, reused=sum(1 for name in kept if name.endswith(".html")))


def history(archive_dir: Path, commit: str | None, urls: ArenaUrls) -> tuple[str, dict[str, str], dict[str, str]]:
    """What git says of the archive: the commit built (``commit`` if given), each record's adding
    commit (:func:`added_commits`) and, with a repository address, the records the host serves
    as they are (:func:`hosted_commits`). Only git subprocesses and their output: it runs in a
    thread while the archive loads."""
    commit = commit or archive_commit(archive_dir)
    added = added_commits(archive_dir)
    return commit, added, hosted_commits(archive_dir, added) if urls.repository else {}


def _build(archive, archive_dir: Path, out_dir: Path, found: tuple[str, dict, dict], progress: Callable[[str], None],
           urls: ArenaUrls, pages: PageCache) -> BuildReport:
    """The build after the load; ``found``: the archive's :func:`history`; ``pages``: the open page cache."""
    report = BuildReport(out=out_dir)
    report.records, report.problems = len(archive.records), list(archive.problems)
    _loaded(report, progress)
    commit, added, hosted = found
    report.replay = has_replay_records(archive)
    manifest = archive_manifest(archive_dir, commit, archive.sha256)
    fingerprint = site_fingerprint(manifest, archive.root, urls, added, pages.templates, hosted,
                                   unhashed_problems(archive.problems, archive.sha256))
    kept = pages.kept_site(fingerprint, out_dir)
    if kept is not None and site_intact(out_dir, kept):  # :mod:`builder.site.sitereuse`
        return _kept(report, kept, pages, progress)
    memo = pages.bootstrap_memo()  # the bootstrap results of the latest build, by inputs
    try:
        with remembering(memo):
            states = _build_all(archive, archive_dir, out_dir, commit, urls, (added, hosted), manifest, pages, progress)
    except BaseException:
        pages.close()
        raise
    facts = SiteReport(commit, report.records, tuple((p.path, p.message) for p in report.problems), report.replay)
    pages.keep_bootstrap(memo)
    unsaved = pages.save(out_dir, states, fingerprint, facts)
    progress(f"  {pages.summary()}" + (f"; {unsaved}" if unsaved else ""))
    if pages.folder is not None:
        progress(f"  {memo.summary()}" + (f"; {memo.note}" if memo.note else ""))
    for line in pages.notes():  # why the cache was not used, and every entry it rejected
        progress(f"  {line}")
    return tally(report, states, rendered=pages.rendered, reused=pages.reused)


def _build_all(archive, archive_dir: Path, out_dir: Path, commit: str, urls: ArenaUrls, history: tuple[dict, dict],
               manifest: bytes, pages: PageCache, progress: Callable[[str], None]) -> dict:
    """Score, render and write the site (the pages and downloads whose inputs changed); return its files' states.

    ``history``: each record's adding commit, and the records the repository host serves as they
    are (:func:`builder.site.provenance.hosted_commits`)."""
    progress("scoring")
    parts = slices(archive)
    with SliceWork(archive, parts, in_child(len(archive.records), pages.follows_a_build), progress) as beside:
        scores = score_archive(archive, rows_scored=beside.start)  # the slices and paper tables start once rows exist
        if len(parts) > 1:
            progress(f"scoring {len(parts) - 1} leaderboard slices (per competition and stage)")
        scored, paper = beside.finish(scores)
    ctx = SiteContext(archive, scores, commit, has_replay_records(archive), scored, latest_anchor(Path(archive_dir)),
                      urls, added=history[0], hosted=history[1], paper=paper, demo=has_demo_records(archive))
    beside = Path(out_dir).resolve().parent  # the scratch folder for the downloads, beside the site
    beside.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".exports.", dir=beside) as scratch:
        with _background(archive, archive_dir, scores, commit, urls.site, manifest, pages, out_dir, Path(scratch),
                         progress) as work:
            return _write_site(ctx, archive, archive_dir, pages, out_dir, work, progress)


@dataclass
class _Work:
    """The build's background work (:mod:`builder.parallel`): the downloads (``exports`` is the
    previous build's when they are kept, else made by the task, maybe in a child process)."""

    background: Background
    exports: dict | None
    fingerprint: str
    progress: Callable[[str], None]
    index: Path | None = None  # where the task writes the keyed tables' chunk index (:mod:`builder.site.exportchunks`)

    def chunks(self, states: dict) -> dict | None:
        """The chunk index the downloads were written with, for the cache (None when they were kept)."""
        if self.exports is not None or self.index is None or not self.index.is_file():
            return None
        return chunk_entry(orjson.loads(self.index.read_bytes()), states)

    def downloads(self) -> dict:
        """The downloads: kept, or the task's (waited for, with a progress line giving its time)."""
        if self.exports is not None:
            return self.exports
        start = time.perf_counter()
        value = self.background.result("exports")
        if self.background.parallel:
            self.progress(f"  the downloads were made in the background process in "
                          f"{self.background.seconds['exports']:.1f}s (waited {time.perf_counter() - start:.1f}s)")
        return value

    def __enter__(self) -> _Work:
        return self

    def __exit__(self, *exc) -> None:
        self.background.close()


def in_child(records: int, incremental: bool = False) -> bool:
    """Whether the slices and paper tables (:mod:`builder.score.slicework`) and the downloads are
    made in forked children: when the build may use two processes
    (:func:`builder.parallel.workers`) and either ``PREMATCH_BUILD_WORKERS`` asks for two, the
    archive has at most :data:`CHILD_RECORDS` records, or the build is ``incremental`` (its page
    cache holds an earlier build's pages: :attr:`PageCache.follows_a_build`)."""
    asked = os.environ.get(WORKERS_ENV, "").strip() != ""
    return workers() > 1 and (asked or incremental or records <= CHILD_RECORDS)


def _downloads(archive, archive_dir: Path, scores, commit: str, site: str | None, manifest: bytes, scratch: Path,
               previous) -> dict[str, Path]:
    """Every download, written under ``scratch``: the tables as CSV, JSON and SQLite with the
    schemas and manifest (:func:`export_files`), and the open-data files (Parquet, feed, JSON API:
    :mod:`builder.site.release`); site path -> file."""
    from builder.site.dataset import Release  # pyarrow: imported when a build writes, not by every command

    release = Release(commit)  # the tables are built once: each is written as Parquet, then as the downloads
    files = export_files(release.passing(iter_tables(archive, scores)), archive_dir, commit, archive.sha256,
                         workdir=scratch, manifest=manifest, previous=previous)
    return files | write_open_data(scratch / "open", archive, scores, release, site)


def _background(archive, archive_dir: Path, scores, commit: str, site: str | None, manifest: bytes, pages: PageCache,
                out_dir: Path, scratch: Path, progress: Callable[[str], None]) -> _Work:
    """Start the downloads (single-threaded, their result is files) in a forked child when
    :func:`in_child` says so, else have them made in this process when asked for; kept ones
    need no work. Everything they are made of (the records, the scores) is complete before
    the fork; the child writes only into ``scratch`` and sends back the files' paths."""
    fingerprint = exports_fingerprint(manifest + f"\0site {site or ''}".encode())  # the feed names the site
    exports = pages.kept_exports(fingerprint, Path(out_dir).resolve())
    tasks = [] if exports is not None else [
        ("exports", partial(_downloads, archive, archive_dir, scores, commit, site, manifest, scratch,
                            pages.previous_exports(Path(out_dir).resolve())))]
    background = Background(tasks, parallel=bool(tasks) and in_child(len(archive.records), pages.follows_a_build))
    if background.parallel:
        progress("  in a background process meanwhile: the downloads (CSV, JSON, SQLite)")
    return _Work(background, exports, fingerprint, progress, scratch / INDEX)


def _write_site(ctx: SiteContext, archive, archive_dir: Path, pages: PageCache, out_dir: Path, work: _Work,
                progress: Callable[[str], None]) -> dict:
    """Write every file through a :class:`SiteWriter`; a failure leaves the previous site as it was."""
    writer = SiteWriter(out_dir, pages.site_states(out_dir))
    try:
        return _write_files(ctx, archive, archive_dir, pages, writer, work, progress)
    except BaseException:
        writer.discard()
        raise


def _write_files(ctx: SiteContext, archive, archive_dir: Path, pages: PageCache, writer: SiteWriter,
                 work: _Work, progress: Callable[[str], None]) -> dict:
    """Hand every file of the site to ``writer`` as it is made, then put them in place.

    ``work``: the background work (the downloads, streamed to temporary files in a scratch
    folder: a ``Path`` content is moved or copied into the site by the writer)."""
    progress("building page models and rendering the pages whose inputs changed")
    for model in page_models(ctx, progress):
        writer.put(*pages.page(model))
    for name, content in overlay_files(ctx).items():  # each full-tournament forecast's bracket overlay, a JSON file
        writer.put(name, content)
    progress("exporting CSV, JSON, SQLite, schemas and the archive manifest")  # and the open data (release.py)
    data = _put_exports(work, pages, writer, progress)
    writer.put(*pages.page(data_page(ctx, data)))
    for name, content in static_files().items():
        writer.put(name, content)
    progress("writing the files that changed")
    for name, content in record_files(archive, archive_dir, ctx):
        writer.put(name, content)
    states = writer.commit()
    progress(f"  {writer.written} of {len(states)} files written, the rest unchanged" if not writer.fresh
             else f"  {len(states)} files written")
    return states


def _put_exports(work: _Work, pages: PageCache, writer: SiteWriter, progress: Callable[[str], None]) -> dict:
    """Hand the downloads to ``writer``: the previous build's files when their inputs' fingerprint
    is unchanged (:mod:`builder.site.exportreuse`), else those the background work streamed
    afresh. Returns each download's state (for the data page)."""
    if work.exports is not None:
        progress(f"  {len(work.exports)} downloads unchanged (same archive, commit and code): kept")
    data = {name: writer.put(name, content) for name, content in work.downloads().items()}
    pages.keep_exports(work.fingerprint, list(data), work.chunks(data))
    return data


def page_models(ctx: SiteContext, progress: Callable[[str], None] = print) -> Iterator:
    """Every page model (or :class:`~builder.site.pagecache.Deferred` page) of the site, one family
    at a time so a family's models are freed once rendered (the data page comes with the downloads).

    The analysis page computes the paper tables (scoring work) when its model is built: a phase
    of its own in the progress lines."""
    measures = measures_lookup(ctx.scores)
    yield from leaderboard_pages(ctx)
    yield from match_pages(ctx, measures)
    yield layers_page(ctx)  # WorldCupArena composite, layers and the T1-T5 radar
    yield from question_pages(ctx, measures)
    yield from binary_event_pages(ctx)
    yield from bracket_pages(ctx)
    yield from team_pages(ctx)
    yield from forecaster_pages(ctx)
    yield charts_page(ctx)
    progress("analysing the paper tables (the analysis page)")
    yield analysis_page(ctx)
    progress("finishing the pages (method, audit, build facts)")
    yield from method_pages(ctx)
    yield build_facts_page(ctx)


def static_files() -> dict[str, bytes]:
    files = {f"assets/{name}": (TEMPLATES_DIR / "static" / name).read_bytes() for name in STATIC}
    files["assets/plotly.min.js"] = PLOTLY_JS.read_bytes()
    files[".nojekyll"] = b""
    files[MARKER] = b"built by python -m builder build; this folder is replaced at every build\n"
    return files


def record_files(archive, archive_dir: Path, ctx: SiteContext) -> Iterator[tuple[str, Content]]:
    """The raw JSON, at ``records/{archive path}``, of every valid record that the repository host
    does not serve as it is (:meth:`SiteContext.host_link`): all of them when the repository's
    address is unknown, else those not committed yet or changed since.

    A site that copied every record outgrows GitHub Pages' 1 GB limit for a published site with
    some 100,000 records (the copies are a third of its bytes), and each build on a fresh runner wrote them all again. Each copy is an :class:`ArchiveCopy` under the SHA-256 of
    the bytes the load validated: the writer copies it only when the site's copy is missing or
    stale, never holding them all in memory."""
    root = Path(archive_dir)
    for path in sorted(archive.records):
        if not ctx.host_link(path):
            yield f"records/{path}", ArchiveCopy(root / path, archive.sha256[path])


def check_out_dir(out_dir: Path) -> None:
    """Refuse to replace a non-empty folder that no earlier build wrote (it may hold someone's files)."""
    if out_dir.exists() and (not out_dir.is_dir() or (any(out_dir.iterdir()) and not (out_dir / MARKER).exists())):
        raise ConfigError(f"{out_dir}: exists, is not empty and is not a Prematch site; refusing to replace it")
