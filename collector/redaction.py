"""The one sanitiser for secrets: every string that reaches a record, a log or the site goes through it.

A secret (an API key from the environment) can come back inside a provider's body in more
forms than its plain text: JSON-escaped (``\\u0073k-or-...``, ``\\/``), URL-encoded
(``%73k-or-...``), any mix of the two, or base64 (of the key, or of ``Bearer <key>`` as an
``Authorization`` header is encoded), at any byte offset of a base64 stream. :func:`pattern_for`
builds one regular expression per secret that matches every such form; :func:`redact` replaces
each match with ``[redacted]`` and :func:`contains_secret` tells whether any remains (the
archive writer refuses a record for which it is true).

Secrets are registered once per process (:func:`register_secret`; the HTTP client registers
its credential headers) and read from the environment variables in :data:`SECRET_ENV`.
Values shorter than :data:`MIN_SECRET` characters are ignored (they would match ordinary text).
"""

from __future__ import annotations

import base64
import os
import re
import threading
from collections.abc import Iterable

REDACTED = "[redacted]"
MIN_SECRET = 8
SECRET_ENV = ("OPENROUTER_API_KEY", "FOOTBALL_DATA_TOKEN", "FOOTBALL_DATA_API_KEY", "ODDS_API_KEY")

_lock = threading.Lock()
_registered: set[str] = set()
_compiled: dict[frozenset[str], tuple[re.Pattern[str] | None, tuple[str, ...], tuple[bytes, ...]]] = {}


def _char(c: str) -> str:
    """One character of a secret: itself, its JSON ``\\uXXXX`` escape (any hex case) or its ``%XX`` form."""
    return "(?:" + "|".join(_forms(c)) + ")"


def _forms(c: str) -> list[str]:
    """The regular expressions of :func:`_char`'s alternatives, each starting with a literal character."""
    code = ord(c)
    forms = [re.escape(c)]
    if code < 0x10000:
        forms.append(r"\\u" + "".join(f"[{h.lower()}{h.upper()}]" if h.isalpha() else h for h in f"{code:04x}"))
    if code < 0x80:
        forms.append("%" + "".join(f"[{h.lower()}{h.upper()}]" if h.isalpha() else h for h in f"{code:02x}"))
    if c == "/":
        forms.append(r"\\/")
    if c == " ":
        forms.append(r"\+")
    return forms


def _base64_forms(secret: str) -> list[str]:
    """The base64 (standard and URL-safe) text that any stream holding ``secret`` must contain.

    A secret at byte offset 0, 1 or 2 of a 3-byte group encodes differently; for each offset
    the characters touched by the neighbouring bytes are dropped from both ends.
    """
    forms = []
    for raw in (secret.encode(), f"Bearer {secret}".encode()):
        for offset in range(3):
            encoded = base64.b64encode(b"\0" * offset + raw).decode()
            start, end = -(-8 * offset // 6), 8 * (offset + len(raw)) // 6  # characters of ``raw`` bits only
            core = encoded[start:end]
            if len(core) >= MIN_SECRET:
                forms.append(core)
                forms.append(core.replace("+", "-").replace("/", "_"))
    return forms


def pattern_for(secrets: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern matching every secret in every encoding (None when there is none to match)."""
    values = sorted({s for s in secrets if s and len(s) >= MIN_SECRET}, key=len, reverse=True)
    if not values:
        return None
    # Each alternative starts with a literal character (the first character's forms are spelled out,
    # which matches exactly what ``(?:forms)rest`` matches, in the same order), so the regex engine
    # skips every position that no alternative can start at instead of trying each one there.
    parts = [form + "".join(_char(c) for c in value[1:]) for value in values for form in _forms(value[0])]
    parts += [re.escape(form) for value in values for form in _base64_forms(value)]
    return re.compile("|".join(parts))


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


def _fragments(secrets: frozenset[str]) -> tuple[str, ...]:
    """Substrings at least one of which every match of :func:`pattern_for` contains (a cheap first test).

    A match of a secret's character forms either escapes some character (so holds ``\\u`` or
    ``%``, or ``\\/`` for a ``/`` and ``+`` for a space of the secret) or is the plain secret;
    a base64 match is one of the literal base64 forms. ``\\/`` and ``+`` are needed only when a
    secret has that character: ``+`` is in most records (a forecast's prompt), so asking for it
    always sent nearly every record through the whole regex.
    """
    plain = {s for s in secrets if len(s) >= MIN_SECRET}
    if not plain:
        return ()
    escapes = {"\\u", "%"} | ({"\\/"} if any("/" in s for s in plain) else set())
    escapes |= {"+"} if any(" " in s for s in plain) else set()
    return tuple(sorted(plain | {f for s in plain for f in _base64_forms(s)} | escapes))


def _pattern() -> tuple[re.Pattern[str] | None, tuple[str, ...], tuple[bytes, ...]]:
    """The pattern of the known secrets, its :func:`_fragments`, and those fragments as UTF-8 bytes."""
    secrets = known_secrets()
    with _lock:
        if secrets not in _compiled:
            fragments = _fragments(secrets)
            raw = tuple(f.encode("utf-8", "surrogateescape") for f in fragments)
            _compiled[secrets] = (pattern_for(secrets), fragments, raw)
        return _compiled[secrets]


def _may_hold(text: str | bytes, fragments: tuple[str, ...] | tuple[bytes, ...]) -> bool:
    return any(fragment in text for fragment in fragments)  # substring tests run in C, far faster than the regex


def redact(text: str | None) -> str | None:
    """``text`` with every known secret, in every encoding, replaced by ``[redacted]``."""
    if not text:
        return text
    pattern, fragments, _ = _pattern()
    if pattern is None or not _may_hold(text, fragments):
        return text
    return pattern.sub(REDACTED, text)


def contains_secret(text: str | bytes) -> bool:
    """Whether ``text`` still holds a known secret in any encoding :func:`redact` removes."""
    pattern, fragments, raw = _pattern()
    if pattern is None:
        return False
    if isinstance(text, bytes):
        # every character of the decoded text comes from its own bytes, so a fragment found in the
        # text is found, encoded, in the bytes: bytes without any is free of secrets, undecoded
        if not _may_hold(text, raw):
            return False
        text = text.decode("utf-8", "surrogateescape")
    return _may_hold(text, fragments) and pattern.search(text) is not None
