"""The key's escaped forms one regular expression finds and replaces in place.

A secret can come back inside a provider's body JSON-escaped (``\\u0073k-or-...``, ``\\/``),
URL-encoded (``%73k-or-...``), any mix of the two, or base64 (of the key, or of ``Bearer <key>``
as an ``Authorization`` header is encoded), at any byte offset of a base64 stream.
:func:`pattern_for` builds one regular expression per set of secrets that matches every such
form; :mod:`collector.redaction.forms` finds what no expression can (case, spacing, other
encodings, a key split over two fields).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable

MIN_SECRET = 8


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


def base64_cores(raw: bytes) -> list[str]:
    """The base64 text (standard and URL-safe) that any stream holding ``raw`` must contain.

    ``raw`` at byte offset 0, 1 or 2 of a 3-byte group encodes differently; for each offset
    the characters touched by the neighbouring bytes are dropped from both ends.
    """
    forms = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode()
        start, end = -(-8 * offset // 6), 8 * (offset + len(raw)) // 6  # characters of ``raw`` bits only
        core = encoded[start:end]
        if len(core) >= MIN_SECRET:
            forms.append(core)
            forms.append(core.replace("+", "-").replace("/", "_"))
    return forms


def _base64_forms(secret: str) -> list[str]:
    return [form for raw in (secret.encode(), f"Bearer {secret}".encode()) for form in base64_cores(raw)]


def pattern_for(secrets: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern matching every secret in every escaped form (None when there is none to match)."""
    values = sorted({s for s in secrets if s and len(s) >= MIN_SECRET}, key=len, reverse=True)
    if not values:
        return None
    # Each alternative starts with a literal character (the first character's forms are spelled out,
    # which matches exactly what ``(?:forms)rest`` matches, in the same order), so the regex engine
    # skips every position that no alternative can start at instead of trying each one there.
    parts = [form + "".join(_char(c) for c in value[1:]) for value in values for form in _forms(value[0])]
    parts += [re.escape(form) for value in values for form in _base64_forms(value)]
    return re.compile("|".join(parts))


def cheap_fragments(secrets: frozenset[str]) -> tuple[str, ...]:
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
