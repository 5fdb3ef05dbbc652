"""The hostile-server tests' oracle: a normalising search for a key, written apart from the sanitiser.

The sanitiser (``collector/redaction/``) looks for a key's precomputed forms; this search goes
the other way and *decodes* what it reads: HTML entities, percent-encoding and backslash escapes
(four layers deep), every run of base64 or hex (at each alignment, as UTF-8 and UTF-16), then
compares after NFKC with every control, format, combining and space character dropped and the
case folded, forwards and reversed. A JSON file is also searched string by string and across
each pair of neighbouring strings (a key split over two fields), an HTML page also without its tags.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import orjson

_DROPPED = {"Cc", "Cf", "Mn", "Me", "Zs", "Zl", "Zp"}
_ESCAPES = re.compile(r"\\u([0-9a-fA-F]{4})|\\[nrt/]")
_SEPARATOR = "\x00\uffff\x00"  # forms joined never touch (for a non-ASCII key; an ASCII key's search drops it)
_OTHER = re.compile(r"[^\x21-\x7e]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def _kept(match: re.Match) -> str:
    return "".join(c for c in match[0] if unicodedata.category(c) not in _DROPPED)


def plain(text: str, ascii_key: bool = True) -> str:
    """``text`` compared as a key: NFKC, the dropped categories removed, case folded. For a key of ASCII
    characters everything outside ASCII is dropped after NFKC (none of it can be the key's)."""
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    if not text.isascii():
        text = text.encode("ascii", "ignore").decode("ascii") if ascii_key else _NON_ASCII.sub(_kept, text)
    return _CONTROL.sub("", "".join(text.split())).casefold()


def _layers(text: str) -> list[str]:
    seen, frontier = [text], [text]
    for _ in range(4):
        found = []
        for layer in frontier:
            for decoded in (html.unescape(layer), unquote(layer),
                            _ESCAPES.sub(lambda m: chr(int(m[1], 16)) if m[1] else "", layer)):  # fmt: skip
                if decoded not in seen:
                    seen.append(decoded)
                    found.append(decoded)
        frontier = found
    return seen


def _texts_of(data: bytes) -> list[str]:
    out = [data.decode("utf-8", "ignore")]
    for start in (0, 1):
        out.append(data[start:].decode("utf-16-le", "ignore"))
    return out


def _binary(text: str, size: int) -> list[str]:
    """Each run of base64 or hex long enough to hold ``size`` bytes, decoded at each alignment."""
    squeezed = re.sub(r"\s+", "", text)
    out = []
    for run in set(re.findall(f"[A-Za-z0-9+/=_-]{{{4 * size // 3},}}", squeezed)):
        for offset in range(4):
            chunk = run[offset:].replace("-", "+").replace("_", "/").rstrip("=")
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            try:
                out += _texts_of(base64.b64decode(chunk))
            except (binascii.Error, ValueError):
                pass
    for run in set(re.findall(f"[0-9a-fA-F]{{{2 * size},}}", squeezed)):
        for offset in (0, 1):
            chunk = run[offset:]
            out += _texts_of(bytes.fromhex(chunk[: len(chunk) - len(chunk) % 2]))
    return out


def occurrences(text: str, key: str) -> int:
    """How often ``key`` shows in ``text`` in any form this module decodes (see the module docstring).

    What base64 or hex decodes to is compared on its printable ASCII characters alone (random
    bytes decode to many other characters, and a key of printable ASCII loses none).
    """
    target = plain(key, key.isascii())
    layers = _layers(text)
    found = plain(_SEPARATOR.join(layers), key.isascii())
    decoded = _OTHER.sub("", _SEPARATOR.join(form for layer in layers for form in _binary(layer, len(target))))
    return sum(t.count(target) + t.count(target[::-1]) for t in (found, decoded.casefold()))


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]  # keys are in the file's text
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def file_occurrences(path: Path, key: str) -> int:
    """:func:`occurrences` in a file's text; in a JSON file's strings joined in document order (a key split
    over two neighbouring strings shows there whole); in an HTML page without its tags."""
    text = path.read_bytes().decode("utf-8", "replace")
    count = occurrences(text, key)
    if path.suffix == ".json":
        try:
            count += occurrences("".join(_strings(orjson.loads(text))), key)
        except orjson.JSONDecodeError:
            pass
    if path.suffix == ".html":
        count += occurrences(re.sub(r"<[^>]*>", "", text), key)
    return count


def folder_occurrences(folder: Path, key: str, shipped: dict[str, bytes] | None = None) -> dict[str, int]:
    """Every file under ``folder`` that holds ``key``, with its count; a file byte-identical to the one of
    ``shipped`` at its path (a script library the site copies from the package) is left out."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            name = str(path.relative_to(folder))
            if shipped is not None and shipped.get(name) == path.read_bytes():
                continue
            n = file_occurrences(path, key)
            if n:
                found[name] = n
    return found
