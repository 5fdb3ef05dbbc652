"""The one way Prematch runs git: in a repository folder, output as bytes, failures as ArchiveError.

The audit reads the archive's history with it, the replay commits each simulated tick with
it (dated, by a bot identity, through ``env``) and the site builder asks it for the commit
the archive is at.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

from collector.errors import ArchiveError


def git(
    repo: Path | str,
    *args: str,
    input_bytes: bytes | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> bytes:
    """Run ``git -C repo *args`` and return its standard output.

    ``input_bytes`` is fed to its standard input; ``env`` holds variables set on top of this
    process's environment (author, committer, dates); ``timeout`` (seconds) stops a git that
    hangs; ``meanwhile`` runs in this process while git works (its output is read afterwards).
    Raises :class:`ArchiveError` naming the command when git is missing, cannot start, times
    out or exits non-zero.
    """
    name = command_name(args)
    environment = {**os.environ, **env} if env is not None else None
    try:
        proc = subprocess.Popen(
            ["git", "-C", str(repo), *args],
            stdin=subprocess.PIPE if input_bytes is not None else None,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment,
        )
    except FileNotFoundError as exc:
        raise ArchiveError(f"git is not installed (needed to run git {name} in {repo})") from exc
    except OSError as exc:
        raise ArchiveError(f"git {name} could not start in {repo}: {exc}") from exc
    try:
        if meanwhile is not None:
            meanwhile()
    finally:
        try:
            out, err = proc.communicate(input_bytes, timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise ArchiveError(f"git {name} timed out after {timeout:g} s in {repo}") from None
    if proc.returncode != 0:
        raise ArchiveError(f"git {name} failed in {repo}: {err.decode('utf-8', 'replace').strip()}")
    return out


def command_name(args: tuple[str, ...] | list[str]) -> str:
    """How errors name a git command: its first two words after any ``-c key=value`` options."""
    words = list(args)
    while len(words) >= 2 and words[0] == "-c":
        words = words[2:]
    return " ".join(words[:2])


def git_dir(repo: Path | str) -> Path:
    """The repository's own ``.git`` folder (absolute), where private caches may live."""
    found = Path(git(repo, "rev-parse", "--git-dir").decode().strip())
    return found if found.is_absolute() else Path(repo) / found


def head_commit(repo: Path | str) -> str | None:
    """The sha of HEAD, or None for a repository without commits."""
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", "HEAD").decode().strip() or None
    except ArchiveError:
        return None
