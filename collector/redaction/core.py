"""Redaction for one set of secrets: the escaped forms cut in place, the hidden forms found and cut.

:class:`Known` holds, for one set of secrets, the regular expression of their escaped forms
(:mod:`collector.redaction.patterns`) and the needles of the normalising search
(:mod:`collector.redaction.forms`); it is made once per set and cached.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from collector.redaction import forms
from collector.redaction.patterns import cheap_fragments, pattern_for

REDACTED = "[redacted]"

_lock = threading.Lock()
_cache: dict[frozenset[str], Known | None] = {}


@dataclass(frozen=True)
class Known:
    pattern: object  # re.Pattern[str]
    fragments: tuple[str, ...]  # cheap substrings, one of which every match of ``pattern`` holds
    raw: tuple[bytes, ...]  # the same as UTF-8
    needles: forms.Needles


def known_for(secrets: frozenset[str]) -> Known | None:
    """The compiled forms of ``secrets`` (None when there is none long enough to look for)."""
    with _lock:
        if secrets not in _cache:
            needles = forms.needles_for(secrets)
            if needles is None:
                _cache[secrets] = None
            else:
                fragments = cheap_fragments(secrets)
                raw = tuple(f.encode("utf-8", "surrogateescape") for f in fragments)
                _cache[secrets] = Known(pattern_for(secrets), fragments, raw, needles)
        return _cache[secrets]


def _may_hold(text: str | bytes, fragments) -> bool:
    return any(fragment in text for fragment in fragments)  # substring tests run in C, far faster than the regex


def redact_with(known: Known, text: str) -> str:
    """``text`` with every form of the secrets cut out: in place where they can be located, else the
    whole text replaced by :data:`REDACTED`."""
    if _may_hold(text, known.fragments):
        text = known.pattern.sub(REDACTED, text)
    if not forms.holds(text, known.needles):
        return text
    located = forms.spans(text, known.needles)
    for start, end in reversed(located):
        text = text[:start] + REDACTED + text[end:]
    if located and not forms.holds(text, known.needles):
        return text
    return REDACTED


def holds_with(known: Known, text: str | bytes) -> bool:
    """Whether ``text`` holds a secret in any form, escaped or hidden."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "surrogateescape")
    if _may_hold(text, known.fragments) and known.pattern.search(text) is not None:
        return True
    return forms.holds(text, known.needles)
