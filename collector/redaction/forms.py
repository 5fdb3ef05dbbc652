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
_URL_SAFE = str.maketrans("-_", "+/")
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})")
_SIMPLE_ESCAPE = re.compile(r"\\[nrtbf]")


@dataclass(frozen=True)
class Needles:
    """What the normalised copy of a text is searched for, for one set of secrets."""

    exact: tuple[str, ...]  # base64 forms in the standard alphabet (case matters)
    folded: tuple[str, ...]  # case-folded: each key, reversed, and its hex forms
    fragments: tuple[str, ...]  # case-folded pieces of FRAGMENT characters of each key (and reversed)
    window: int  # characters each side of a join of two fields that can hold a split key in any form
    ascii: bool  # every key is ASCII (HTTP headers are): a character outside ASCII after NFKC is never one of theirs


def needles_for(secrets: Iterable[str]) -> Needles | None:
    keys = sorted({s for s in secrets if len(s) >= MIN_SECRET})
    if not keys:
        return None
    exact: set[str] = set()
    folded: set[str] = set()
    fragments: set[str] = set()
    for key in keys:
        for raw in (key.encode(), f"Bearer {key}".encode(), key.encode("utf-16-le")):
            exact.update(core for core in base64_cores(raw) if "-" not in core and "_" not in core)  # standard alphabet
        plain = squeeze(key).casefold()
        folded.update({plain, plain[::-1], key.encode().hex(), key.encode("utf-16-le").hex()})
        size = min(FRAGMENT, len(plain))
        for text in (plain, plain[::-1]):
            fragments.update(text[i : i + size] for i in range(len(text) - size + 1))
    window = 12 * max(len(k) for k in keys) + 16  # the longest form: a key percent-encoded twice, in entities
    ascii_keys = all(k.isascii() for k in keys)
    return Needles(tuple(sorted(exact)), tuple(sorted(folded)), tuple(sorted(fragments)), window, ascii_keys)


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _nfkc(run: re.Match) -> str:
    return unicodedata.normalize("NFKC", run[0])


def squeeze(text: str, ascii_keys: bool = False) -> str:
    """``text`` in NFKC with every ignored character removed (the copy that is searched). With
    ``ascii_keys`` every character outside ASCII is dropped after NFKC as well: none is a key's, and
    dropping them all runs in C, where the expression of the ignored ones runs per character."""
    if not text.isascii():
        if ascii_keys:  # each run of other characters in NFKC alone (a key's letters never combine with it)
            if not unicodedata.is_normalized("NFKC", text):  # the quick check: most text needs no run normalised
                text = _NON_ASCII.sub(_nfkc, text)
            text = text.encode("ascii", "ignore").decode("ascii")
        else:
            return _SQUEEZE.sub("", unicodedata.normalize("NFKC", text))
    return text.translate(_ASCII_DROPPED)  # ASCII: a table drops characters faster than the expression


def _unescape(text: str) -> str:
    """Backslash escapes undone: ``\\n`` and its kind removed, ``\\/`` made ``/`` (one pass each, in C),
    ``\\uXXXX`` and ``\\xXX`` decoded."""
    if "\\" not in text:
        return text
    text = _SIMPLE_ESCAPE.sub("", text).replace("\\/", "/")
    if "\\u" not in text and "\\x" not in text:
        return text
    return _ESCAPE.sub(lambda match: chr(int(match[1] or match[2], 16)), text)


def _unquote(text: str) -> str:
    return unquote(text, errors="replace") if "%" in text else text


_COMMON_ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&#39;", "'"), ("&amp;", "&"))


def _unentity(text: str) -> str:
    """HTML entities decoded; the five every escaped page is full of first, in C (decoding ``&amp;`` last
    may decode a second layer early: that only finds more)."""
    if "&" not in text:
        return text
    for entity, char in _COMMON_ENTITIES:
        text = text.replace(entity, char)
    return html.unescape(text) if "&" in text else text


def decodings(text: str, ascii_keys: bool = False) -> list[str]:
    """The normalised copy of ``text`` and of each form it decodes to (entities, percent, escapes)."""
    first = squeeze(text, ascii_keys)
    seen, frontier = {first: None}, [first]
    for _ in range(DEPTH):
        found = []
        for variant in frontier:
            for decode in (_unentity, _unquote, _unescape):
                decoded = decode(variant)
                if decoded is not variant and decoded != variant:
                    decoded = squeeze(decoded, ascii_keys)
                    if decoded not in seen and len(seen) < _MAX_VARIANTS:
                        seen[decoded] = None
                        found.append(decoded)
        frontier = found
        if not frontier:
            break
    return list(seen)


def holds(text: str, needles: Needles) -> bool:
    """Whether any decoded, normalised form of ``text`` holds a key in any of its forms."""
    for variant in decodings(text, needles.ascii):
        standard = variant.replace("-", "+").replace("_", "/")  # in C, faster than a table
        if any(n in standard for n in needles.exact):  # base64 in either alphabet, searched in the standard one
            return True
        folded = variant.casefold()
        if any(n in folded for n in needles.folded):
            return True
    return False


def holds_fragment(text: str, needles: Needles) -> bool:
    """Whether any decoded, normalised form of ``text`` holds :data:`FRAGMENT` characters of a key."""
    return any(f in variant.casefold() for variant in decodings(text, needles.ascii) for f in needles.fragments)


def spans(text: str, needles: Needles) -> list[tuple[int, int]]:
    """Where in ``text`` (start, end) a key shows in its normalised copy, undecoded; merged, in order.

    Each character of the copy remembers the character of ``text`` it came from, so a key spaced
    out, in another case, full-width or reversed is cut out whole; a key found only in a decoded
    form is not located (an empty list).
    """
    chars: list[str] = []
    origin: list[int] = []
    for i, c in enumerate(text):
        for piece in squeeze(c, needles.ascii):
            chars.append(piece)
            origin.append(i)
    found = _occurrences("".join(chars).translate(_URL_SAFE), needles.exact, origin)
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
