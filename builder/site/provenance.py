"""Where each record can be checked: the commit that added it, its link on the repository host, the latest tick.

* ``added_commits(archive_dir)``: record path (relative to the archive) -> the commit that first
  added it, from one ``git log --diff-filter=A`` pass (first parent, oldest addition wins);
  empty outside a git checkout.
* ``arena_urls(config)``: the configured ``[arena] repository_url`` and ``site_url`` of the
  arena's ``prematch.toml`` (read and validated by :func:`collector.config.load_config`, the
  one home of the configuration); the repository falls back to GitHub Actions'
  ``GITHUB_SERVER_URL``/``GITHUB_REPOSITORY``; None where neither says (no host links).
* ``record_link(url, commit, path)``: ``{url}/blob/{commit}/archive/{path}`` (GitHub, Gitea and
  Forgejo all serve a file at a commit under that path).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from collector.archive.git import git
from collector.config import load_config
from collector.errors import ArchiveError

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


@dataclass(frozen=True)
class ArenaUrls:
    """The arena's public addresses: its repository on the host, and where its site is published."""

    repository: str | None = None
    site: str | None = None


def arena_urls(config: Path | None) -> ArenaUrls:
    """``[arena] repository_url`` / ``site_url`` of ``config`` (when the file exists), the repository
    falling back to GitHub Actions' own; an invalid configuration raises ConfigError naming the key."""
    repository = site = None
    if config is not None and Path(config).is_file():
        arena = load_config(config)
        repository, site = arena.repository_url, arena.site_url
    if repository is None and os.environ.get("GITHUB_REPOSITORY"):
        repository = f"{os.environ.get('GITHUB_SERVER_URL', 'https://github.com')}/{os.environ['GITHUB_REPOSITORY']}"
        if not URL.match(repository):
            repository = None
    return ArenaUrls(repository.rstrip("/") if repository else None, site)


def record_link(url: str | None, commit: str | None, path: str) -> str:
    """The record file at the commit that added it on the repository host ("" without both)."""
    if not url or not commit:
        return ""
    return f"{url}/blob/{commit}/archive/{path}"
