"""The one sanitiser for secrets: every string that reaches a record, a log or the site goes through it.

Secrets (API keys) are registered once per process (:func:`register_secret`; the HTTP client
registers its credential headers) and read from the environment variables in
:data:`SECRET_ENV`; values shorter than :data:`MIN_SECRET` characters are ignored (they would
match ordinary text).

* :func:`redact`: free text with every secret cut out, in every form this package knows:
  escaped in place (:mod:`.patterns`: JSON and percent escapes, base64 at any offset) and hidden
  (:mod:`.forms`: case, spacing, zero-width and full-width characters, reversed, hex, HTML
  entities, percent-encoding applied twice, base64 of UTF-16 or wrapped in lines). Callers pass
  *decoded* strings, never raw JSON: cutting inside JSON text can break an escape.
* :func:`sanitised_value`: a parsed JSON value with every string redacted and keys split over
  two neighbouring strings found (:mod:`.values`).
* :func:`identifier`: a provider's identifier kept only in the strict shape of one.
* :func:`contains_secret`: whether text or bytes still hold a secret in any form (the archive
  writer refuses a record for which it is true, and the builder's last step scans the site).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from collector.redaction import core, values
from collector.redaction.core import REDACTED
from collector.redaction.patterns import MIN_SECRET, pattern_for
from collector.redaction.values import REJECTED, SHAPES

__all__ = [
    "MIN_SECRET", "REDACTED", "REJECTED", "SECRET_ENV", "SHAPES", "contains_secret", "files_holding_secret",
    "identifier", "known_secrets", "pattern_for", "redact", "register_secret", "sanitised_text", "sanitised_value",
]  # fmt: skip

SECRET_ENV = ("OPENROUTER_API_KEY", "FOOTBALL_DATA_TOKEN", "FOOTBALL_DATA_API_KEY", "ODDS_API_KEY",
              "API_FOOTBALL_KEY")  # fmt: skip

_lock = threading.Lock()
_registered: set[str] = set()


def register_secret(value: str | None) -> None:
    """Remember ``value`` as a secret for the rest of the process (an empty or short value is ignored)."""
    if value and len(value.strip()) >= MIN_SECRET:
        with _lock:
            _registered.add(value.strip())


def known_secrets() -> frozenset[str]:
    """The registered secrets and the secret environment variables' values."""
    from_env = {os.environ.get(name, "").strip() for name in SECRET_ENV}
    with _lock:
        return frozenset(s for s in _registered | from_env if len(s) >= MIN_SECRET)


def _known() -> core.Known | None:
    return core.known_for(known_secrets())


def redact(text: str | None) -> str | None:
    """``text`` without any known secret in any form (see the module docstring)."""
    if not text:
        return text
    known = _known()
    return text if known is None else core.redact_with(known, text)


def contains_secret(text: str | bytes) -> bool:
    """Whether ``text`` still holds a known secret in any form :func:`redact` removes."""
    known = _known()
    return known is not None and core.holds_with(known, text)


def sanitised_value(value: Any) -> Any:
    """A parsed JSON value with every secret removed from its strings, split keys included."""
    return values.sanitised_value(_known(), value)


def sanitised_text(text: str | None) -> str | None:
    """Free text without secrets; text that is itself JSON is sanitised as its decoded value."""
    return values.sanitised_text(_known(), text)


def identifier(value: Any, shape: str) -> str | None:
    """``value`` if it is an identifier of ``shape`` (a key of :data:`SHAPES`) free of secrets,
    None if absent, else ``rejected: not an identifier (SHA-256 ...)``."""
    return values.identifier(_known(), value, shape)


def files_holding_secret(folder: Path, shipped: Mapping[str, bytes] | None = None) -> list[Path]:
    """Every regular file under ``folder`` whose text holds a known secret in any form (none without secrets).

    Each file is read as UTF-8 (undecodable bytes kept as surrogates), so a text page, a data
    export or a JSON file is searched whatever its type. ``shipped``: files (by path relative to
    ``folder``) that are copies of the package's own bytes (a script library): one that still has
    exactly those bytes holds nothing of the arena's and is not searched.
    """
    known = _known()
    if known is None:
        return []
    found = []
    for path in sorted(Path(folder).rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        if shipped is not None and shipped.get(path.relative_to(folder).as_posix()) == data:
            continue
        if core.holds_with(known, data):
            found.append(path)
    return found
