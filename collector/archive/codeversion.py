"""The one version of the installed code that every cache key includes (no cache keeps a list of files)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
from functools import cache
from importlib.util import find_spec
from pathlib import Path

CODE_PACKAGES = ("collector", "builder", "site_templates")
FORMAT = "prematch-code-version-1"


@cache
def code_version() -> str:
    """SHA-256 of the installed code (:func:`code_digest` of the packages ``collector``, ``builder``
    and ``site_templates`` as imported). Computed once per process; every cache key includes it,
    so no cache keeps a hand-made list of files."""
    return code_digest({package: Path(find_spec(package).origin).parent for package in CODE_PACKAGES})


def installed_distributions() -> list[str]:
    """The ``name-version.dist-info`` folder names on the import path, sorted:
    every installed distribution and its version, read from the folder listing (much cheaper
    than ``importlib.metadata``, which a cached ``verify`` cannot afford)."""
    names: set[str] = set()
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as found:
                names.update(e.name for e in found if e.name.endswith(".dist-info"))
        except OSError:
            continue
    return sorted(names)


def code_digest(packages: dict[str, Path]) -> str:
    """SHA-256 over every file of each package folder (sources, templates, static files, shipped
    data; ``__pycache__`` left out), the Python and SQLite versions and the name and version of
    every installed distribution."""
    digest = hashlib.sha256(f"{FORMAT}\0{sys.version}\0sqlite {sqlite3.sqlite_version}\0".encode())
    digest.update("\n".join(installed_distributions()).encode() + b"\0")
    for package, root in sorted(packages.items()):
        for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(f"{package}/{path.relative_to(root).as_posix()}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
