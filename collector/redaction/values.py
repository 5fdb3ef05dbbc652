"""Secrets out of decoded values, by construction: identifiers by shape, free text by the normalising search.

* :func:`identifier`: a provider's identifier (a generation id, a model id, a provider name, a
  citation URL) is kept only when it has the strict shape of one (:data:`SHAPES`) and holds no
  :data:`~collector.redaction.forms.FRAGMENT`-character piece of a key; anything else is stored
  as ``rejected: not an identifier`` with the SHA-256 of the value received.
* :func:`sanitised_value`: every string of a parsed JSON value (keys too) redacted as free text
  (:func:`collector.redaction.core.redact_with`), never the JSON text itself, so an escape is
  never cut in half; a string that is itself a JSON object or array is sanitised as one; then
  each pair of neighbouring strings (in document order) is searched as one text, so a key
  split over two fields is found, and both are redacted.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson

from collector.redaction import forms
from collector.redaction.core import REDACTED, Known, holds_with, redact_with

REJECTED = "rejected: not an identifier"
SHAPES = {
    "generation_id": re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,199}"),
    "model": re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@~+-]{0,99}(/[A-Za-z0-9._:@~+-]{1,150})?"),
    "provider": re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._()&+-]{0,99}"),
    "url": re.compile(r"https?://[A-Za-z0-9!#$%&()*+,\-./:;=?@\[\]_~]{1,2040}"),
}
_NESTED_DEPTH = 3  # JSON inside a string inside JSON ... sanitised as JSON this many levels deep


def rejected(value: str) -> str:
    """The stored form of a string that is not an identifier: the mark and the SHA-256 of what came."""
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{REJECTED} (SHA-256 {digest})"


def identifier(known: Known | None, value: Any, shape: str) -> str | None:
    """``value`` when it is an identifier of ``shape`` holding no piece of a secret; None when absent or
    not a string (a value of the wrong type is dropped, never guessed); else :func:`rejected`."""
    if not isinstance(value, str):
        return None
    if not SHAPES[shape].fullmatch(value):
        return rejected(value)
    if known is not None and (forms.holds_fragment(value, known.needles) or holds_with(known, value)):
        return rejected(value)
    return value


def sanitised_value(known: Known | None, value: Any, depth: int = 0) -> Any:
    """``value`` (parsed JSON) with every secret removed from its strings (see the module docstring);
    a value nested too deeply to walk becomes :data:`REDACTED` as a whole."""
    if known is None:
        return value
    try:
        clean = _walk(known, value, depth)
    except RecursionError:
        return REDACTED
    leaves: list[tuple[Any, Any]] = []  # (container, key or index) of each string, in document order
    _strings(clean, leaves)
    width = known.needles.window
    for (box_a, at_a), (box_b, at_b) in zip(leaves, leaves[1:], strict=False):
        a, b = box_a[at_a], box_b[at_b]
        if a == REDACTED and b == REDACTED:
            continue
        if forms.holds(a[-width:] + b[:width], known.needles):
            box_a[at_a] = REDACTED
            box_b[at_b] = REDACTED
    return clean


def sanitised_text(known: Known | None, text: str | None, depth: int = 0) -> str | None:
    """Free text without secrets; a string that parses as a JSON object or array is sanitised as one."""
    if not text or known is None:
        return text
    stripped = text.lstrip()
    if depth < _NESTED_DEPTH and stripped[:1] in ("{", "["):
        try:
            parsed = orjson.loads(text)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict | list):
            clean = sanitised_value(known, parsed, depth + 1)
            if clean == parsed and not holds_with(known, text):
                return text
            return orjson.dumps(clean).decode()
    return redact_with(known, text)


def _walk(known: Known, value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return sanitised_text(known, value, depth)
    if isinstance(value, list):
        return [_walk(known, v, depth) for v in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = redact_with(known, key) if isinstance(key, str) else key
            while name in out:
                name += "'"
            out[name] = _walk(known, item, depth)
        return out
    return value


def _strings(value: Any, out: list[tuple[Any, Any]]) -> None:
    if isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, str):
                out.append((value, i))
            else:
                _strings(item, out)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                out.append((value, key))
            else:
                _strings(item, out)
