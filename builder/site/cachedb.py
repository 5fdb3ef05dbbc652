"""The page cache's file: ``pages.sqlite`` in the cache folder (one SQLite database, private to builds).

It holds the latest build's pages (fingerprint -> SHA-256, size, HTML; :mod:`builder.site.pagecache`)
and the state of every file of the site that build wrote (:class:`builder.site.sitewriter.FileState`).
Pages rendered during a build are inserted in one open transaction, committed only once the
site is in place (:meth:`CacheDB.save`), so a failed build leaves the previous cache as it was.
Only the fingerprints are read at the start; a reused page's HTML is read when it must be written.
The ``meta`` row ``exports`` names the downloads of the latest build and their inputs'
fingerprint (:mod:`builder.site.exportreuse`); the row ``site`` the whole site's fingerprint, the
folder it was written to and what that build reported of the archive (:class:`SiteReport`: its
commit, valid records, problems and replay flag), which an unchanged rebuild at the same commit
reports without loading the archive again (:mod:`builder.site.sitereuse`).

A file that is not such a database (or of another format) is reported, removed and started
afresh: the build then renders every page, exactly as without a cache.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson

from builder.site.sitewriter import FileState

CACHE_FILE = "pages.sqlite"
FORMAT = "pages-2"
SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE pages (key TEXT PRIMARY KEY, sha256 TEXT NOT NULL, size INTEGER NOT NULL, html BLOB NOT NULL)",
    "CREATE TABLE site (name TEXT PRIMARY KEY, sha256 TEXT NOT NULL, size INTEGER NOT NULL,"
    " mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, ino INTEGER NOT NULL)",
)

_SITE_TYPES = " AND ".join(f"typeof({column}) = '{kind}'" for column, kind in (
    ("name", "text"), ("sha256", "text"), ("size", "integer"), ("mtime_ns", "integer"), ("ctime_ns", "integer"),
    ("ino", "integer")))
"""A site row of the types the build wrote (text, text, integers)."""


@dataclass(frozen=True)
class SiteReport:
    """What the build that wrote the kept site reported of its archive: a pure function of the
    archive's files and the code, like the site (:mod:`builder.site.sitereuse`)."""

    commit: str
    records: int
    problems: tuple[tuple[str, str], ...]  # (path, message) of each file left out, in the report's order
    replay: bool

    @classmethod
    def parse(cls, entry) -> SiteReport | None:
        """The report of a ``site`` meta row's ``report`` value; None when absent or not of that form."""
        if not isinstance(entry, dict):
            return None
        commit, records, problems, replay = (entry.get(k) for k in ("commit", "records", "problems", "replay"))
        if not (isinstance(commit, str) and type(records) is int and records >= 0 and type(replay) is bool
                and isinstance(problems, list)
                and all(isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in problems)):
            return None
        return cls(commit, records, tuple((path, message) for path, message in problems), replay)


class CacheDB:
    """An open page cache: what the previous build kept, and this build's pending writes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db: sqlite3.Connection | None = None
        self.pages: dict[str, tuple[str, int]] = {}
        self.used: set[str] = set()
        self.site: dict[str, FileState] = {}
        self.site_out = ""
        self.exports: tuple[str, list[str]] | None = None  # the latest build's (fingerprint, download names)
        self.site_key: tuple[str, str] | None = None  # the latest build's (site fingerprint, site folder)
        self.site_report: SiteReport | None = None  # what the latest build reported of its archive
        self.chunks = None  # the latest build's chunk index of its keyed downloads (:mod:`builder.site.exportreuse`)
        self.note = ""  # reported once: why the previous cache could not be used
        self.broken = ""  # why this build's cache cannot be written

    @classmethod
    def open(cls, folder: Path) -> CacheDB:
        cache = cls(Path(folder) / CACHE_FILE)
        try:
            cache.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            cache.broken = f"page cache {cache.path} not written ({exc}); the next build renders every page"
            return cache
        if cache.path.exists():
            try:
                cache._read()
                return cache
            except (sqlite3.Error, ValueError) as exc:
                cache._close()
                cache.pages, cache.site = {}, {}
                cache.note = f"page cache {cache.path} unreadable ({exc}); rendering every page"
                cache.path.unlink(missing_ok=True)
        cache._create()
        return cache

    def _read(self) -> None:
        self.db = sqlite3.connect(self.path, timeout=60)
        meta = dict(self.db.execute("SELECT key, value FROM meta"))
        if meta.get("format") != FORMAT:
            raise ValueError(f"format {meta.get('format')!r}, not {FORMAT!r}")
        self.site_out = meta.get("site_out", "")
        self.exports = _exports_entry(meta.get("exports"))
        self.chunks = _json_or_none(meta.get("export_chunks"))
        self.site_key, self.site_report = _site_entry(meta.get("site"))
        for key, sha, size in self.db.execute("SELECT key, sha256, size FROM pages"):
            if not (isinstance(key, str) and isinstance(sha, str) and isinstance(size, int)):
                raise ValueError(f"page row {key!r}: not (text, text, integer)")
            self.pages[key] = (sha, size)
        bad = self.db.execute(f"SELECT name FROM site WHERE NOT ({_SITE_TYPES}) LIMIT 1").fetchone()
        if bad is not None:  # checked by SQLite, not row by row here (a site row per file: 100,000 at 100,000 records)
            raise ValueError(f"site row {bad[0]!r}: not (text, text, integers)")
        self.site = {name: FileState(sha, size, mtime, ctime, ino) for name, sha, size, mtime, ctime, ino
                     in self.db.execute("SELECT name, sha256, size, mtime_ns, ctime_ns, ino FROM site")}

    def _create(self) -> None:
        try:
            self.db = sqlite3.connect(self.path, timeout=60)
            with self.db:
                for statement in SCHEMA:
                    self.db.execute(statement)
                self.db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
        except sqlite3.Error as exc:
            self._close()
            self.broken = f"page cache {self.path} not written ({exc}); the next build renders every page"

    def _close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def known(self, key: str) -> tuple[str, int] | None:
        """(SHA-256, size) of the page the previous build kept under ``key``, or None."""
        found = self.pages.get(key)
        if found is not None:
            self.used.add(key)
        return found

    def html(self, key: str) -> bytes | None:
        """The kept bytes of a page (None if the cache cannot give them: the caller renders it)."""
        try:
            row = self.db.execute("SELECT html FROM pages WHERE key = ?", (key,)).fetchone() if self.db else None
        except sqlite3.Error:
            return None
        return bytes(row[0]) if row is not None and isinstance(row[0], bytes) else None

    def keep(self, key: str, sha256: str, html: bytes) -> None:
        """Add a page rendered by this build (committed by :meth:`save`)."""
        if self.db is None or self.broken:
            return
        try:
            self.db.execute("INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?)", (key, sha256, len(html), html))
            self.used.add(key)
        except sqlite3.Error as exc:
            self.broken = f"page cache {self.path} not written ({exc}); the next build renders every page"

    def keep_exports(self, fingerprint: str, names: list[str], chunks: dict | None = None) -> None:
        """Name this build's downloads and their fingerprint, and (when given) the chunk index of
        the keyed downloads it wrote (committed by :meth:`save`)."""
        if self.db is None or self.broken:
            return
        entry = orjson.dumps({"fingerprint": fingerprint, "files": sorted(names)}).decode()
        try:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('exports', ?)", (entry,))
            if chunks is not None:
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('export_chunks', ?)", (orjson.dumps(chunks).decode(),))
        except sqlite3.Error as exc:
            self.broken = f"page cache {self.path} not written ({exc}); the next build renders every page"

    def site_states(self, out_dir: Path) -> dict[str, FileState]:
        """The file states of the site the previous build wrote into ``out_dir`` ({} for another folder)."""
        return self.site if self.site_out == str(Path(out_dir).resolve()) else {}

    def kept_site(self, fingerprint: str, out_dir: Path) -> dict[str, FileState] | None:
        """The file states of the site the latest build wrote into ``out_dir`` when that build's
        site fingerprint is ``fingerprint`` (:mod:`builder.site.sitereuse`), else None."""
        out = str(Path(out_dir).resolve())
        return self.site if self.site_key == (fingerprint, out) and self.site_out == out else None

    def kept_report(self, commit: str, out_dir: Path) -> SiteReport | None:
        """What the latest build into ``out_dir`` reported, when it built ``commit``; else None."""
        report, out = self.site_report, str(Path(out_dir).resolve())
        same = report is not None and report.commit == commit and self.site_key is not None and self.site_key[1] == out
        return report if same and self.site_out == out else None

    def save(self, out_dir: Path, states: dict[str, FileState], fingerprint: str | None = None,
             report: SiteReport | None = None) -> str:
        """Commit this build's pages, drop the pages it did not use, record the site's file states
        and (when given) the site's fingerprint and what the build reported of the archive."""
        if self.broken or self.db is None:
            self._close()
            return self.broken
        out = str(Path(out_dir).resolve())
        before = self.site if self.site_out == out else None
        try:
            with self.db:
                self.db.execute("CREATE TEMP TABLE used (key TEXT PRIMARY KEY)")
                self.db.executemany("INSERT INTO used VALUES (?)", ((k,) for k in self.used))
                self.db.execute("DELETE FROM pages WHERE key NOT IN (SELECT key FROM used)")
                if before is None:
                    self.db.execute("DELETE FROM site")
                    before = {}
                gone = [(name,) for name in before if name not in states]
                self.db.executemany("DELETE FROM site WHERE name = ?", gone)
                self.db.executemany("INSERT OR REPLACE INTO site VALUES (?, ?, ?, ?, ?, ?)", (
                    (name, s.sha256, s.size, s.mtime_ns, s.ctime_ns, s.ino)
                    for name, s in states.items() if before.get(name) != s))
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('site_out', ?)", (out,))
                self.db.execute("DELETE FROM meta WHERE key = 'site'")
                if fingerprint is not None:
                    entry = orjson.dumps({"fingerprint": fingerprint, "out": out,
                                          "report": asdict(report) if report is not None else None}).decode()
                    self.db.execute("INSERT INTO meta VALUES ('site', ?)", (entry,))
        except sqlite3.Error as exc:
            return f"page cache {self.path} not written ({exc}); the next build renders every page"
        finally:
            self._close()
        return ""

    def close(self) -> None:
        """Leave the cache as the previous build wrote it (a failed build: pending pages are dropped)."""
        self._close()


def _json_or_none(text: str | None):
    """``text`` parsed as JSON, or None when absent or not JSON."""
    try:
        return orjson.loads(text) if text else None
    except orjson.JSONDecodeError:
        return None


def _site_entry(text: str | None) -> tuple[tuple[str, str] | None, SiteReport | None]:
    """The ``site`` meta row as ((fingerprint, folder), report); (None, None) when absent or not of
    that form (then the site is built, as without it); the report alone None when it is not of
    its form (then an unchanged site is found by loading the archive, as before it was kept)."""
    entry = _json_or_none(text)
    if not isinstance(entry, dict):
        return None, None
    fingerprint, out = entry.get("fingerprint"), entry.get("out")
    if not (isinstance(fingerprint, str) and isinstance(out, str)):
        return None, None
    return (fingerprint, out), SiteReport.parse(entry.get("report"))


def _exports_entry(text: str | None) -> tuple[str, list[str]] | None:
    """The ``exports`` meta row as (fingerprint, names); None when absent or not of that form
    (the downloads are then built, as without a cache)."""
    try:
        entry = orjson.loads(text) if text else None
    except orjson.JSONDecodeError:
        return None
    if not isinstance(entry, dict):
        return None
    fingerprint, names = entry.get("fingerprint"), entry.get("files")
    if not isinstance(fingerprint, str) or not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return None
    return fingerprint, names
