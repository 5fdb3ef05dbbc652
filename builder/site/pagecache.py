"""Incremental rendering: each page's HTML kept under the fingerprint of everything it is made of.

A page is a pure function of its declared page model and the templates, so its fingerprint is
the SHA-256 of the templates and the site code (:func:`templates_fingerprint`), the model's
type and a canonical walk of the model's values (:func:`model_fingerprint`). A page family
that can name its inputs before building its model (a match page: its records' SHA-256s, its
scores, its round; :mod:`builder.site.pageinputs`) hands over a :class:`Deferred` page instead,
keyed by the fingerprint of those inputs: when an earlier build rendered the same inputs, the
model is never built. A build with the previous build's cache renders only the pages whose
fingerprint is new and takes the others' bytes from the cache; the site is byte-identical to a
build without a cache. Per-build facts (commit, anchor, last update) are kept out of the models
(:mod:`builder.site.buildfacts`), so an unchanged page keeps its fingerprint from build to build.

The pages live in the one cache (:mod:`collector.archive.store`, entries of kind ``page``;
:mod:`builder.site.cache` holds the site's kinds): ``.git/prematch/`` of the archive's
repository by default, or a folder the Pages workflow keeps with the Actions cache. Every entry
is authenticated; one that fails is rejected, named in the build's progress lines and rendered
again. A cache never changes what a page says, only how fast it is built.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import hashlib
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import numpy as np

from builder.score.memo import BootstrapMemo
from builder.site.cache import CACHE_FILE, CacheDB, SiteReport
from builder.site.exportchunks import PreviousFiles
from builder.site.exportreuse import kept_exports, previous_files
from builder.site.render import PageModel, render_page
from builder.site.sitewriter import Cached, FileState
from collector.archive.codeversion import code_version

__all__ = ["CACHE_FILE", "Deferred", "PageCache", "Unfingerprintable", "model_fingerprint", "templates_fingerprint"]
_ATOMS = (type(None), bool, int, float, str, enum.Enum, dt.datetime, dt.date, dt.time, Decimal, np.generic)


class Unfingerprintable(TypeError):
    """A page model holds a value the fingerprint cannot vouch for; the page is always rendered."""


def templates_fingerprint() -> str:
    """What turns a page model into HTML: the installed code (:func:`collector.archive.store.code_version`:
    every template, the site's Python code, the measure registry, jinja2's and markupsafe's versions)."""
    return code_version()


def model_fingerprint(model, templates: str) -> str:
    """SHA-256 of the templates' fingerprint, the model's type and every value it holds.

    Atoms enter by ``repr`` (which tells ``Markup`` from ``str``, ``nan`` from ``None`` and
    keeps a datetime's zone); tuples, lists and dicts in their order; dataclasses by type and
    field. Anything else raises :class:`Unfingerprintable` (never a guess that could reuse a
    stale page).
    """
    return _digest([templates], model)


def inputs_fingerprint(page: Deferred, templates: str) -> str:
    """SHA-256 of the templates' fingerprint, the page's path and kind, and a walk of its inputs."""
    return _digest([templates, "inputs", page.path], page.inputs)


def _digest(parts: list[str], value) -> str:
    _walk(value, parts.append)
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _walk(value, emit: Callable[[str], None]) -> None:
    if isinstance(value, _ATOMS):
        emit(f"{type(value).__qualname__}:{value!r}")
    elif isinstance(value, tuple | list):
        emit(f"{type(value).__name__}[{len(value)}")
        for item in value:
            _walk(item, emit)
        emit("]")
    elif isinstance(value, dict):
        emit(f"dict[{len(value)}")
        for key, item in value.items():
            _walk(key, emit)
            _walk(item, emit)
        emit("]")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        emit(f"{cls.__module__}.{cls.__qualname__}{{")
        for spec in dataclasses.fields(value):
            emit(spec.name)
            _walk(getattr(value, spec.name), emit)
        emit("}")
    else:
        raise Unfingerprintable(f"{type(value).__qualname__} in a page model cannot be fingerprinted")


@dataclasses.dataclass(frozen=True)
class Deferred:
    """A page named by its inputs: ``build`` makes its model, called only when no earlier build
    rendered these inputs. ``inputs`` must hold everything the model is made of (walked like a
    model); the replay-ticks test holds it to that (incremental and full builds are the same bytes)."""

    path: str
    inputs: tuple
    build: Callable[[], PageModel]


@dataclasses.dataclass
class PageCache:
    """The previous build's pages by fingerprint, and what this build rendered or reused."""

    templates: str
    db: CacheDB | None = None
    rendered: int = 0
    reused: int = 0
    unreadable: int = 0  # reused pages whose bytes the cache could not give back (rendered again)
    folder: Path | None = None  # the cache folder (None: no cache)

    @classmethod
    def open(cls, folder: Path | None) -> PageCache:
        """Open the cache in ``folder`` (None: no cache, every page is rendered and the site written afresh)."""
        cache = cls(templates_fingerprint(), folder=None if folder is None else Path(folder))
        if folder is not None:
            cache.db = CacheDB.open(folder)
        return cache

    @property
    def follows_a_build(self) -> bool:
        """Whether the cache holds an earlier build's pages: this build is then a tick's (most
        pages reused), not a cold one."""
        return self.db is not None and bool(self.db.pages)

    def site_states(self, out_dir: Path) -> dict[str, FileState] | None:
        """The previous site's file states (None without a cache: the site is written afresh)."""
        return None if self.db is None else self.db.site_states(out_dir)

    def kept_exports(self, fingerprint: str, out_dir: Path) -> dict[str, Cached] | None:
        """The previous build's downloads, when their fingerprint is ``fingerprint`` and the site
        still holds them (:mod:`builder.site.exportreuse`); else None (build them)."""
        if self.db is None or self.db.exports is None or self.db.exports[0] != fingerprint:
            return None
        return kept_exports(self.db.exports[1], self.db.site_states(out_dir), out_dir)

    def previous_exports(self, out_dir: Path) -> PreviousFiles | None:
        """The previous build's downloads that unchanged chunks of keyed tables may be copied from
        (:func:`builder.site.exportreuse.previous_files`), or None."""
        if self.db is None:
            return None
        return previous_files(self.db.chunks, self.db.site_states(out_dir), out_dir)

    def keep_exports(self, fingerprint: str, names: list[str], chunks: dict | None = None) -> None:
        """Remember this build's downloads under their fingerprint, and their chunk index (for the next build)."""
        if self.db is not None:
            self.db.keep_exports(fingerprint, names, chunks)

    def bootstrap_memo(self) -> BootstrapMemo:
        """The bootstrap results the latest build kept (an empty memo without a cache)."""
        return BootstrapMemo() if self.db is None else self.db.bootstrap_memo()

    def keep_bootstrap(self, memo: BootstrapMemo) -> None:
        """Keep the bootstrap results this build used (written by :meth:`save`)."""
        if self.db is not None:
            self.db.keep_bootstrap(memo)

    def notes(self) -> list[str]:
        """Why the cache could not be used, and each entry it rejected (read as the build goes)."""
        return [] if self.db is None else self.db.store.report()

    def page(self, item) -> tuple[str, bytes | Cached]:
        """One page (a model or a :class:`Deferred`) as (path, content for :class:`SiteWriter`)."""
        try:
            key = inputs_fingerprint(item, self.templates) if isinstance(item, Deferred) else model_fingerprint(item, self.templates)
        except Unfingerprintable:
            key = None
        known = self.db.known(key) if self.db is not None and key is not None else None
        if known is not None:
            self.reused += 1
            return item.path, Cached(known[0], known[1], lambda: self._load(key, known[0], item))
        html = render_page(item.build() if isinstance(item, Deferred) else item)
        self.rendered += 1
        if self.db is not None and key is not None:
            self.db.keep(key, hashlib.sha256(html).hexdigest(), html)
        return item.path, html

    def _load(self, key: str, sha256: str, item) -> bytes:
        """A reused page's bytes from the cache; rendered again (and reported) if the cache cannot give
        the bytes it hashed."""
        html = self.db.html(key) if self.db is not None else None
        if html is not None and hashlib.sha256(html).hexdigest() == sha256:
            return html
        self.unreadable += 1
        html = render_page(item.build() if isinstance(item, Deferred) else item)
        if self.db is not None:
            self.db.keep(key, hashlib.sha256(html).hexdigest(), html)  # the altered entry is replaced
        return html

    def kept_site(self, fingerprint: str, out_dir: Path) -> dict[str, FileState] | None:
        """The previous site's file states when it was built into ``out_dir`` from inputs of this
        ``fingerprint`` (:mod:`builder.site.sitereuse`); None without a cache or when they differ."""
        return None if self.db is None else self.db.kept_site(fingerprint, out_dir)

    def kept_report(self, commit: str, out_dir: Path) -> SiteReport | None:
        """What the build that wrote the site kept in ``out_dir`` reported of its archive, when it
        built ``commit`` (only such a site can be kept: the commit is in its fingerprint); else None."""
        return None if self.db is None else self.db.kept_report(commit, out_dir)

    def save(self, out_dir: Path, states: dict[str, FileState], fingerprint: str | None = None,
             report: SiteReport | None = None) -> str:
        """Keep this build's pages, the site's file states, its fingerprint and ``report`` (what it
        reported of the archive) after the site is in place.

        Returns "" or why the cache could not be written (the site is built all the same).
        """
        return "" if self.db is None else self.db.save(out_dir, states, fingerprint, report)

    def close(self) -> None:
        """After a failed build: drop this build's pages, keep the previous cache."""
        if self.db is not None:
            self.db.close()

    def summary(self) -> str:
        bad = f" ({self.unreadable} unreadable in the cache, rendered again)" if self.unreadable else ""
        return f"pages rendered {self.rendered}, reused from the cache {self.reused}{bad}"
