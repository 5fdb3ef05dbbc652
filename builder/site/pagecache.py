"""Incremental rendering: each page's HTML kept under the fingerprint of everything it is made of.

A page is a pure function of its declared page model and the templates, so its fingerprint is
the SHA-256 of the templates and the site code (:func:`templates_fingerprint`), the model's
type and a canonical walk of the model's values (:func:`model_fingerprint`). A build with the previous build's cache renders only the
pages whose fingerprint is new and takes the others' bytes from the cache; the site is
byte-identical to a build without a cache. Per-build facts (commit, anchor, last update) are
kept out of the models (:mod:`builder.site.buildfacts`), so an unchanged page keeps its
fingerprint from build to build.

The cache is one SQLite file (``pages.sqlite``) in a cache folder: ``.git/prematch/`` of the
archive's repository by default, or a folder the Pages workflow keeps with the Actions cache.
It holds the pages of the latest build only. A cache that cannot be read is reported and the
build renders everything; it never changes what a page says, only how fast it is built.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import hashlib
import sqlite3
from collections.abc import Callable, Iterable
from contextlib import closing
from decimal import Decimal
from importlib.metadata import version
from pathlib import Path

import numpy as np

from builder.site.render import render_page
from site_templates import TEMPLATES_DIR

CACHE_FILE = "pages.sqlite"
SITE_CODE = Path(__file__).resolve().parent  # builder/site
_ATOMS = (type(None), bool, int, float, str, enum.Enum, dt.datetime, dt.date, dt.time, Decimal, np.generic)


class Unfingerprintable(TypeError):
    """A page model holds a value the fingerprint cannot vouch for; the page is always rendered."""


def templates_fingerprint(folders: tuple[Path, ...] = (TEMPLATES_DIR, SITE_CODE)) -> str:
    """SHA-256 over what turns a page model into HTML: every template, the site's Python code
    (filters, properties of page models) and the versions of jinja2 and markupsafe. A change to
    any of them re-renders every page."""
    digest = hashlib.sha256(f"jinja2 {version('jinja2')} markupsafe {version('markupsafe')}".encode())
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".html", ".md", ".py")):
            digest.update(f"{folder.name}/{path.relative_to(folder).as_posix()}".encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def model_fingerprint(model, templates: str) -> str:
    """SHA-256 of the templates' fingerprint, the model's type and every value it holds.

    Atoms enter by ``repr`` (which tells ``Markup`` from ``str``, ``nan`` from ``None`` and
    keeps a datetime's zone); tuples, lists and dicts in their order; dataclasses by type and
    field. Anything else raises :class:`Unfingerprintable` (never a guess that could reuse a
    stale page).
    """
    parts: list[str] = [templates]
    _walk(model, parts.append)
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


@dataclasses.dataclass
class PageCache:
    """The previous build's pages by fingerprint, and what this build rendered or reused."""

    folder: Path | None
    templates: str
    previous: dict[str, bytes] = dataclasses.field(default_factory=dict)
    current: dict[str, bytes] = dataclasses.field(default_factory=dict)
    rendered: int = 0
    reused: int = 0
    note: str = ""

    @classmethod
    def open(cls, folder: Path | None) -> PageCache:
        """Read the cache in ``folder`` (None: no cache, every page is rendered)."""
        cache = cls(folder, templates_fingerprint())
        if folder is None or not (folder / CACHE_FILE).exists():
            return cache
        try:
            with closing(sqlite3.connect(folder / CACHE_FILE)) as db:
                cache.previous = {str(key): bytes(html) for key, html in db.execute("SELECT fingerprint, html FROM pages")}
        except sqlite3.Error as exc:
            cache.note = f"page cache {folder / CACHE_FILE} unreadable ({exc}); rendering every page"
        return cache

    def render(self, models: Iterable) -> dict[str, bytes]:
        """Each model's page (path -> HTML), reused from the previous build where the fingerprint matches."""
        pages: dict[str, bytes] = {}
        for model in models:
            try:
                key = model_fingerprint(model, self.templates)
            except Unfingerprintable:
                key = None
            html = self.previous.get(key) if key is not None else None
            if html is None:
                html = render_page(model)
                self.rendered += 1
            else:
                self.reused += 1
            if key is not None:
                self.current[key] = html
            pages[model.path] = html
        return pages

    def save(self) -> str:
        """Replace the cache's contents with this build's pages (written after the site is in place).

        Returns "" or why the cache could not be written (the site is built all the same).
        """
        if self.folder is None:
            return ""
        target = self.folder / CACHE_FILE
        staging = target.with_name(f".{CACHE_FILE}.new")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            staging.unlink(missing_ok=True)
            with closing(sqlite3.connect(staging)) as db, db:
                db.execute("CREATE TABLE pages (fingerprint TEXT PRIMARY KEY, html BLOB NOT NULL)")
                db.executemany("INSERT INTO pages VALUES (?, ?)", sorted(self.current.items()))
            staging.replace(target)  # a private cache, not an archive file: replacing is fine
        except (OSError, sqlite3.Error) as exc:
            return f"page cache {target} not written ({exc}); the next build renders every page"
        return ""

    def summary(self) -> str:
        return f"pages rendered {self.rendered}, reused from the cache {self.reused}"

