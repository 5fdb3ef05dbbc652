"""Where each record can be checked: the commit that added it, its link on the repository host, the latest tick.

* ``added_commits(archive_dir)``: record path (relative to the archive) -> the commit that first
  added it, from one ``git log --diff-filter=A`` pass (first parent, oldest addition wins);
  empty outside a git checkout.
* ``arena_urls(config)``: the configured ``[arena] repository_url`` and ``site_url`` of the
  arena's ``prematch.toml`` (read and validated by :func:`collector.config.load_config`, the
  one home of the configuration); the repository falls back to GitHub Actions'
  ``GITHUB_SERVER_URL``/``GITHUB_REPOSITORY``; None where neither says (no host links).
* ``hosted_commits(archive_dir, added)``: the records whose bytes the repository host serves as
  they are now, at the commit that added them: ``added`` without any path a later commit
  modified or deleted, or that the working tree changed since ``HEAD`` (empty when git cannot say).
* ``record_link(url, commit, path)``: ``{url}/blob/{commit}/archive/{path}`` (GitHub, Gitea and
  Forgejo all serve a file at a commit under that path); ``raw_link``: the file's bytes at the
  commit, ``{url}/raw/{commit}/archive/{path}`` (GitHub's address, which redirects to
  ``raw.githubusercontent.com``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
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


def hosted_commits(archive_dir: Path, added: Mapping[str, str]) -> dict[str, str]:
    """Record path -> the commit at which the repository host serves the file's current bytes.

    A record is there only when its bytes cannot have moved since ``added`` says it was added:
    no later first-parent commit modified, retyped or deleted it (``git log --diff-filter=DMT``),
    and the working tree does not differ from ``HEAD`` (``git diff HEAD``). Fail closed: when git
    cannot answer (no repository, no commit), nothing is hosted and every record is copied
    beside the site (:func:`builder.site.build.record_files`)."""
    if not added:
        return {}
    try:
        later = git(Path(archive_dir), "log", "--first-parent", "--diff-filter=DMT", "--no-renames", "--relative",
                    "--name-only", "--format=", "--", ".", timeout=120)
        dirty = git(Path(archive_dir), "diff", "--no-renames", "--relative", "--name-only", "HEAD", "--", ".",
                    timeout=120)
    except ArchiveError:
        return {}
    moved = set((later + b"\n" + dirty).decode("utf-8", "replace").splitlines())
    return {path: commit for path, commit in added.items() if path not in moved}


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


def raw_link(url: str | None, commit: str | None, path: str) -> str:
    """The record file's bytes at ``commit`` on the repository host ("" without both): where a
    page links a record's raw JSON when the site carries no copy of it."""
    if not url or not commit:
        return ""
    return f"{url}/raw/{commit}/archive/{path}"
