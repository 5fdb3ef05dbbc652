"""The key in the forms no regular expression of its characters finds: a normalising search.

A hostile body can hide a key from :mod:`collector.redaction.patterns` by case (``SK-OR-...``),
spacing (a space or zero-width characters between its letters), compatibility characters
(full-width ``ｓｋ``), order (reversed), or another encoding: hex, base64 of its UTF-16 form,
HTML entities, percent-encoding applied twice, base64 wrapped in lines. The search here works
on a *normalised* copy of the text (NFKC; whitespace, format, combining and control characters
removed), in each of its *decoded* forms (HTML entities, percent-encoding and backslash escapes
undone, up to :data:`DEPTH` layers deep), and looks for :class:`Needles`: the key and its reversed
and hex forms case-folded, its base64 forms as they are.

The copy is only searched, never kept: :func:`spans` maps what it finds back to the original
text where it can, so that only the key's characters are cut out.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from collector.redaction.patterns import MIN_SECRET, base64_cores

FRAGMENT = 12  # characters of a key that name it: a field holding this many of them is refused (identifiers)
DEPTH = 4  # layers of encoding undone (double percent-encoding inside HTML entities is three)
_MAX_VARIANTS = 24

# Characters a reader does not see, or that only space letters apart: removed before searching.
_IGNORED = (
    "\\s\x00-\x1f\x7f-\x9f\u00ad\u034f\u061c\u0600-\u0605\u06dd\u070f\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufe20-\ufe2f\ufeff\uffa0\ufff0-\ufffb\U000110bd\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff"
)
_SQUEEZE = re.compile(f"[{_IGNORED}]+")
_ASCII_DROPPED = dict.fromkeys([*range(0x21), 0x7F])  # for ASCII text: controls and space
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\(/)|\\[nrtbf]")


@dataclass(frozen=True)
class Needles:
    """What the normalised copy of a text is searched for, for one set of secrets."""

    exact: tuple[str, ...]  # base64 forms (case matters)
    folded: tuple[str, ...]  # case-folded: each key, reversed, and its hex forms
    fragments: tuple[str, ...]  # case-folded pieces of FRAGMENT characters of each key (and reversed)
    window: int  # characters each side of a join of two fields that can hold a split key in any form


def needles_for(secrets: Iterable[str]) -> Needles | None:
    keys = sorted({s for s in secrets if len(s) >= MIN_SECRET})
    if not keys:
        return None
    exact: set[str] = set()
    folded: set[str] = set()
    fragments: set[str] = set()
    for key in keys:
        for raw in (key.encode(), f"Bearer {key}".encode(), key.encode("utf-16-le"), key.encode("utf-16-be"),
                    f"Bearer {key}".encode("utf-16-le")):  # fmt: skip
            exact.update(base64_cores(raw))
        plain = squeeze(key).casefold()
        folded.update({plain, plain[::-1], key.encode().hex(), key.encode("utf-16-le").hex()})
        size = min(FRAGMENT, len(plain))
        for text in (plain, plain[::-1]):
            fragments.update(text[i : i + size] for i in range(len(text) - size + 1))
    window = 12 * max(len(k) for k in keys) + 16  # the longest form: a key percent-encoded twice, in entities
    return Needles(tuple(sorted(exact)), tuple(sorted(folded)), tuple(sorted(fragments)), window)


def squeeze(text: str) -> str:
    """``text`` in NFKC with every ignored character removed (the copy that is searched)."""
    if text.isascii():  # most text: NFKC changes nothing, and a table drops characters faster than the expression
        return text.translate(_ASCII_DROPPED)
    return _SQUEEZE.sub("", unicodedata.normalize("NFKC", text))


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text

    def one(match: re.Match) -> str:
        code = match[1] or match[2]
        if code:
            return chr(int(code, 16))
        return match[3] or ""

    return _ESCAPE.sub(one, text)


def _unquote(text: str) -> str:
    return unquote(text, errors="replace") if "%" in text else text


def _unentity(text: str) -> str:
    return html.unescape(text) if "&" in text else text


def decodings(text: str) -> list[str]:
    """The normalised copy of ``text`` and of each form it decodes to (entities, percent, escapes)."""
    first = squeeze(text)
    seen, frontier = {first: None}, [first]
    for _ in range(DEPTH):
        found = []
        for variant in frontier:
            for decode in (_unentity, _unquote, _unescape):
                decoded = decode(variant)
                if decoded is not variant and decoded != variant:
                    decoded = squeeze(decoded)
                    if decoded not in seen and len(seen) < _MAX_VARIANTS:
                        seen[decoded] = None
                        found.append(decoded)
        frontier = found
        if not frontier:
            break
    return list(seen)


def holds(text: str, needles: Needles) -> bool:
    """Whether any decoded, normalised form of ``text`` holds a key in any of its forms."""
    for variant in decodings(text):
        if any(n in variant for n in needles.exact):
            return True
        folded = variant.casefold()
        if any(n in folded for n in needles.folded):
            return True
    return False


def holds_fragment(text: str, needles: Needles) -> bool:
    """Whether any decoded, normalised form of ``text`` holds :data:`FRAGMENT` characters of a key."""
    return any(f in variant.casefold() for variant in decodings(text) for f in needles.fragments)


def spans(text: str, needles: Needles) -> list[tuple[int, int]]:
    """Where in ``text`` (start, end) a key shows in its normalised copy, undecoded; merged, in order.

    Each character of the copy remembers the character of ``text`` it came from, so a key spaced
    out, in another case, full-width or reversed is cut out whole; a key found only in a decoded
    form is not located (an empty list).
    """
    chars: list[str] = []
    origin: list[int] = []
    for i, c in enumerate(text):
        for piece in squeeze(c):
            chars.append(piece)
            origin.append(i)
    found = _occurrences("".join(chars), needles.exact, origin)
    folded, folded_origin = [], []
    for piece, i in zip(chars, origin, strict=True):
        for f in piece.casefold():
            folded.append(f)
            folded_origin.append(i)
    found += _occurrences("".join(folded), needles.folded, folded_origin)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _occurrences(copy: str, wanted: tuple[str, ...], origin: list[int]) -> list[tuple[int, int]]:
    out = []
    for needle in wanted:
        at = copy.find(needle)
        while at != -1:
            out.append((origin[at], origin[at + len(needle) - 1] + 1))
            at = copy.find(needle, at + 1)
    return out
