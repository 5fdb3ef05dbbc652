"""Where each record can be checked: the commit that added it, its link on the repository host, the latest tick.

* ``added_commits(archive_dir)``: record path (relative to the archive) -> the commit that first
  added it, from one ``git log --diff-filter=A`` pass (first parent, oldest addition wins);
  empty outside a git checkout.
* ``repository_url(config)``: the configured ``[arena] repository_url`` of the arena's TOML file
  (read here with ``tomllib``: the builder never imports the collector's config stage), else
  GitHub Actions' ``GITHUB_SERVER_URL``/``GITHUB_REPOSITORY``, else None (no host links).
* ``record_link(url, commit, path)``: ``{url}/blob/{commit}/archive/{path}`` (GitHub, Gitea and
  Forgejo all serve a file at a commit under that path).
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

from collector.archive.git import git
from collector.errors import ArchiveError, ConfigError

URL = re.compile(r"^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~-]+)+/?$")


def added_commits(archive_dir: Path) -> dict[str, str]:
    """Path relative to ``archive_dir`` -> full id of the commit that added it (first-parent history)."""
    try:
        raw = git(Path(archive_dir), "log", "--first-parent", "--diff-filter=A", "--no-renames", "--relative",
                  "--name-only", "--format=%x00%H", "--", ".", timeout=120)
    except ArchiveError:
        return {}
    added: dict[str, str] = {}
    commit = ""
    for line in raw.decode("utf-8", "replace").splitlines():
        if line.startswith("\x00"):
            commit = line[1:].strip()
        elif line and commit:
            added[line] = commit  # the log runs newest first: the oldest addition is written last
    return added


def repository_url(config: Path | None) -> str | None:
    """The arena's public repository (``https://host/owner/name``), or None when none is configured."""
    url = None
    if config is not None and config.is_file():
        try:
            arena = tomllib.loads(config.read_text(encoding="utf-8")).get("arena", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{config}: not valid TOML: {exc}") from None
        url = arena.get("repository_url") if isinstance(arena, dict) else None
    if url is None and os.environ.get("GITHUB_REPOSITORY"):
        url = f"{os.environ.get('GITHUB_SERVER_URL', 'https://github.com')}/{os.environ['GITHUB_REPOSITORY']}"
    if url is None:
        return None
    if not isinstance(url, str) or not URL.match(url):
        raise ConfigError(f"{config}: [arena] repository_url must be an https URL like https://github.com/owner/name, "
                          f"got {url!r}")
    return url.rstrip("/")


def record_link(url: str | None, commit: str | None, path: str) -> str:
    """The record file at the commit that added it on the repository host ("" without both)."""
    if not url or not commit:
        return ""
    return f"{url}/blob/{commit}/archive/{path}"
