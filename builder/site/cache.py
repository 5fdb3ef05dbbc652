"""The builder's one cache module: its entries in the one store (:mod:`collector.archive.store`).

No other module of the builder reads or writes the store (an import-linter contract). Kinds of
entries:

* ``page``: a page's HTML under the fingerprint of its inputs (:mod:`builder.site.pagecache`);
* ``site``: one entry, the latest build's site: the folder it was written to, its fingerprint,
  what it reported of the archive (:class:`SiteReport`), and the state of every file it wrote
  (:class:`builder.site.sitewriter.FileState`);
* ``exports``: one entry, the latest build's downloads, their inputs' fingerprint and the chunk
  index of the keyed tables (:mod:`builder.site.exportreuse`);
* ``bootstrap``: the bootstrap results the latest build used, by inputs key
  (:mod:`builder.score.memo`), as plain arrays.

Every entry is authenticated by the store; one that fails is rejected, named in the build's
progress lines, and the build makes what it stood for again, exactly as without a cache.
Pages rendered during a build are written into the store's open transaction, kept only once
the site is in place (:meth:`CacheDB.save`), so a failed build leaves the previous cache as it was.
"""

from __future__ import annotations

import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson

from builder.score.memo import BootstrapMemo
from builder.site.sitewriter import FileState
from collector.archive.store import STORE_FILE, Store, pack_arrays, unpack_arrays

CACHE_FILE = STORE_FILE
SITE, EXPORTS, PAGE, BOOTSTRAP = "site", "exports", "page", "bootstrap"


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
        """The report of a ``site`` entry's ``report`` value; None when absent or not of that form."""
        if not isinstance(entry, dict):
            return None
        commit, records, problems, replay = (entry.get(k) for k in ("commit", "records", "problems", "replay"))
        if not (isinstance(commit, str) and type(records) is int and records >= 0 and type(replay) is bool
                and isinstance(problems, list)
                and all(isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in problems)):
            return None
        return cls(commit, records, tuple((path, message) for path, message in problems), replay)


class CacheDB:
    """The site's view of the open store: what the previous build kept, and this build's writes."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.used: set[str] = set()
        self.site: dict[str, FileState] = {}
        self.site_out = ""
        self.site_key: tuple[str, str] | None = None  # the latest build's (site fingerprint, site folder)
        self.site_report: SiteReport | None = None  # what the latest build reported of its archive
        self.exports: tuple[str, list[str]] | None = None  # the latest build's (fingerprint, download names)
        self.chunks = None  # the latest build's chunk index of its keyed downloads
        self._read_site()
        self._read_exports()

    @classmethod
    def open(cls, folder: Path) -> CacheDB:
        return cls(Store.open(folder))

    @property
    def pages(self) -> list[str]:
        """The keys of the pages the previous build kept."""
        return self.store.keys(PAGE)

    def _json(self, kind: str):
        value = self.store.get(kind, kind)
        try:
            return orjson.loads(value) if value is not None else None
        except orjson.JSONDecodeError:
            return None

    def _read_site(self) -> None:
        entry = self._json(SITE)
        if not isinstance(entry, dict):
            return
        out, fingerprint, states = entry.get("out"), entry.get("fingerprint"), entry.get("states")
        if not isinstance(out, str) or not isinstance(states, list):
            return
        try:
            self.site = {name: FileState(sha, size, mtime, ctime, ino) for name, sha, size, mtime, ctime, ino in states}
        except (TypeError, ValueError):
            return
        self.site_out = out
        if isinstance(fingerprint, str):
            self.site_key, self.site_report = (fingerprint, out), SiteReport.parse(entry.get("report"))

    def _read_exports(self) -> None:
        entry = self._json(EXPORTS)
        if not isinstance(entry, dict):
            return
        fingerprint, names = entry.get("fingerprint"), entry.get("files")
        if isinstance(fingerprint, str) and isinstance(names, list) and all(isinstance(n, str) for n in names):
            self.exports = fingerprint, names
        self.chunks = entry.get("chunks")

    def known(self, key: str) -> tuple[str, int] | None:
        """(SHA-256, size) of the page the previous build kept under ``key``, or None."""
        found = self.store.known(PAGE, key)
        if found is not None:
            self.used.add(key)
        return found

    def html(self, key: str) -> bytes | None:
        """The kept bytes of a page when they are the ones the store vouches for (else None: rendered)."""
        return self.store.get(PAGE, key)

    def keep(self, key: str, sha256: str, html: bytes) -> None:
        """Add a page rendered by this build (kept by :meth:`save`)."""
        self.store.put(PAGE, key, html, sha256)
        self.used.add(key)

    def keep_exports(self, fingerprint: str, names: list[str], chunks: dict | None = None) -> None:
        """Name this build's downloads, their fingerprint and (when given) the chunk index of the keyed
        downloads it wrote (kept by :meth:`save`)."""
        entry = {"fingerprint": fingerprint, "files": sorted(names), "chunks": chunks}
        self.store.put(EXPORTS, EXPORTS, orjson.dumps(entry, option=orjson.OPT_SORT_KEYS))

    def bootstrap_memo(self) -> BootstrapMemo:
        """A memo holding the bootstrap results the latest build kept; an entry whose arrays
        cannot be read (the store has authenticated its bytes) is left out with a note."""
        kept, bad = {}, []
        for key in self.store.keys(BOOTSTRAP):
            value = self.store.get(BOOTSTRAP, key)
            try:
                if value is not None:
                    kept[key] = unpack_arrays(value)
            except (ValueError, OSError, KeyError, zipfile.BadZipFile, EOFError):
                bad.append(key[:12])
        return BootstrapMemo(kept, f"bootstrap results {', '.join(bad)} unreadable; computed again" if bad else None)

    def keep_bootstrap(self, memo: BootstrapMemo) -> None:
        """Keep the results ``memo``'s build used, and only them (the store does not grow)."""
        for key, result in memo.fresh().items():
            self.store.put(BOOTSTRAP, key, pack_arrays(result))
        self.store.keep_only(BOOTSTRAP, memo.used)

    def site_states(self, out_dir: Path) -> dict[str, FileState]:
        """The file states of the site the previous build wrote into ``out_dir`` ({} for another folder)."""
        return self.site if self.site_out == str(Path(out_dir).resolve()) else {}

    def kept_site(self, fingerprint: str, out_dir: Path) -> dict[str, FileState] | None:
        """The file states of the site the latest build wrote into ``out_dir`` when that build's
        site fingerprint is ``fingerprint`` (:mod:`builder.site.sitereuse`), else None."""
        out = str(Path(out_dir).resolve())
        return self.site if self.site_key == (fingerprint, out) else None

    def kept_report(self, commit: str, out_dir: Path) -> SiteReport | None:
        """What the latest build into ``out_dir`` reported, when it built ``commit``; else None."""
        report, out = self.site_report, str(Path(out_dir).resolve())
        same = report is not None and report.commit == commit and self.site_key is not None and self.site_key[1] == out
        return report if same else None

    def save(self, out_dir: Path, states: dict[str, FileState], fingerprint: str | None = None,
             report: SiteReport | None = None) -> str:
        """Keep this build's pages, drop the pages it did not use, record the site's file states and
        (when given) the site's fingerprint and what the build reported of the archive."""
        self.store.keep_only(PAGE, self.used)
        entry = {"out": str(Path(out_dir).resolve()), "fingerprint": fingerprint,
                 "report": asdict(report) if report is not None else None,
                 "states": [[name, s.sha256, s.size, s.mtime_ns, s.ctime_ns, s.ino] for name, s in sorted(states.items())]}
        self.store.put(SITE, SITE, orjson.dumps(entry))
        return self.store.commit()

    def close(self) -> None:
        """Leave the cache as the previous build wrote it (a failed build: pending pages are dropped)."""
        self.store.close()
