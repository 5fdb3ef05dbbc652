"""Where the public football data comes from: a local folder, or the public URLs.

Every consumer reads files by the same relative name, laid out like ``../shared/data``::

    openfootball/worldcup-2026/worldcup.json
    openfootball/leagues-2025-26/en.1.json
    international-results/results.csv

``DataSource(data_dir)`` reads them from ``data_dir`` when given (or from the environment
variable ``PREMATCH_DATA_DIR``), otherwise downloads them from the public (CC0) URLs below
through :mod:`collector.http`. Downloads are cached for the life of the object.

The URLs below are those of the shipped competitions; every competition definition names the
public URL of its own files (``[source.urls]``), which :meth:`DataSource.add_urls` adds, so a
fork's new file is fetched like the shipped ones.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from collector.errors import SourceError
from collector.http import ServiceCallFailed, ServiceClient

ENV_VAR = "PREMATCH_DATA_DIR"
RAW_GITHUB = "https://raw.githubusercontent.com"

# relative name -> path under RAW_GITHUB
PUBLIC_FILES: dict[str, str] = {
    "openfootball/worldcup-2026/worldcup.json": "/openfootball/worldcup.json/master/2026/worldcup.json",
    "openfootball/worldcup-2026/worldcup.teams.json": "/openfootball/worldcup.json/master/2026/worldcup.teams.json",
    "openfootball/worldcup-2026/worldcup.groups.json": "/openfootball/worldcup.json/master/2026/worldcup.groups.json",
    "openfootball/worldcup-2026/worldcup.squads.json": "/openfootball/worldcup.json/master/2026/worldcup.squads.json",
    "openfootball/worldcup-2026/cup_finals.txt": "/openfootball/worldcup/master/2026--usa/cup_finals.txt",
    "openfootball/worldcup-2026/cup.txt": "/openfootball/worldcup/master/2026--usa/cup.txt",
    **{
        f"openfootball/leagues-2025-26/{code}.1.json": f"/openfootball/football.json/master/2025-26/{code}.1.json"
        for code in ("en", "de", "es", "it", "fr")
    },
    **{
        f"international-results/{name}": f"/martj42/international_results/master/{name}"
        for name in ("results.csv", "shootouts.csv", "goalscorers.csv", "former_names.csv")
    },
}

T = TypeVar("T")

def unreadable_data(what: str, reason: str, data_dir: Path | str | None = None) -> SourceError:
    """The one-line error of a command that cannot start without the data: what, why, how to provide it."""
    if data_dir is None and not os.environ.get(ENV_VAR):
        how = (f"connect to the internet, or download the data (docs/data.md) and pass --data-dir DIR "
               f"or set {ENV_VAR}=DIR")
    else:
        how = f"--data-dir (or {ENV_VAR}) must name a folder laid out as in docs/data.md"
    return SourceError(f"cannot read {what}: {reason}; {how}")


def run_blocking(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from synchronous code, even when an event loop is running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


class DataSource:
    """Reads data files by relative name from a local folder or from the public URLs."""

    def __init__(self, data_dir: Path | str | None = None, *, base_url: str = RAW_GITHUB, transport=None,
                 urls: dict[str, str] | None = None):
        if data_dir is None and os.environ.get(ENV_VAR):
            data_dir = os.environ[ENV_VAR]
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.base_url = base_url
        self._transport = transport
        self._cache: dict[str, bytes] = {}
        self.urls: dict[str, str] = dict(urls or {})

    def add_urls(self, urls: dict[str, str]) -> DataSource:
        """Public URLs (``https://...``) of more files by relative name, e.g. a definition's ``[source.urls]``."""
        self.urls.update(urls)
        return self

    def _url(self, relative: str) -> str | None:
        if relative in self.urls:
            return self.urls[relative]
        return self.base_url + PUBLIC_FILES[relative] if relative in PUBLIC_FILES else None

    def describe(self, relative: str) -> str:
        """Where ``relative`` is read from (a path or a URL), for error messages and records."""
        if self.data_dir is not None:
            return str(self.data_dir / relative)
        return self._url(relative) or relative  # no URL is made up for a file that has none

    def read_bytes(self, relative: str) -> bytes:
        """The bytes of one data file; :class:`SourceError` names the file when it is unavailable."""
        _check_relative(relative)
        if relative in self._cache:
            return self._cache[relative]
        data = self._read_local(relative) if self.data_dir is not None else self._download(relative)
        self._cache[relative] = data
        return data

    def _read_local(self, relative: str) -> bytes:
        assert self.data_dir is not None
        path = self.data_dir / relative
        try:
            return path.read_bytes()
        except OSError as exc:
            raise SourceError(f"{path}: cannot read data file ({exc.strerror or exc})") from None

    def _download(self, relative: str) -> bytes:
        url = self._url(relative)
        if url is None:
            raise SourceError(f"{relative}: no public URL is known for this file; use --data-dir, or name it in "
                              "the definition's [source.urls]")
        return run_blocking(self._fetch(url))

    async def _fetch(self, url: str) -> bytes:
        scheme, _, rest = url.partition("://")
        host, _, path = rest.partition("/")
        async with ServiceClient("data", f"{scheme}://{host}", transport=self._transport) as client:
            try:
                response, _ = await client.request("GET", "/" + path)
            except ServiceCallFailed as exc:
                raise SourceError(f"{url}: download failed: {exc}") from None
        return response.content


def _check_relative(relative: str) -> None:
    pure = PurePosixPath(relative)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts:
        raise SourceError(f"{relative!r}: data file names are relative paths inside the data folder")
