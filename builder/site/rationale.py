"""Render untrusted model text (rationales, reasoning summaries) as safe HTML.

The text is HTML-escaped *first*, so any markup a model wrote (``<script>``, ``<img
onerror=...>``) reaches the page as visible text; markdown is applied to the escaped text;
then every link whose target is not plain ``http``/``https`` is unlinked (``javascript:``,
``data:``, ``vbscript:``, relative paths) and images are replaced by their alt text, so a
rationale can neither run code nor make the visitor's browser fetch anything.

Before any of that, :func:`clean_text` drops control characters (C0 but tab and newline, DEL,
C1) and the bidi embedding, override and isolate marks (U+202A-U+202E, U+2066-U+2069, U+200E,
U+200F, U+061C), which could hide or reorder what a visitor reads. The archive keeps the raw text.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as etree

import markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from markupsafe import Markup

from collector.commandline import unshown_pattern

_ALLOWED_SCHEMES = ("http", "https")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")
_UNSHOWN = unshown_pattern(keep="\t\n")  # a rationale keeps its tabs and line breaks


def clean_text(text: str | None) -> str | None:
    """``text`` without control, separator and bidi-control characters (tab and newline kept)."""
    return _UNSHOWN.sub("", text) if text else text
MAX_CHARS = 4_000  # characters of one rationale shown on a page (the archive keeps all of it)
PAGE_RATIONALE_BYTES = 160_000  # HTML all rationales of one page may take together (pages stay < 500 KB)
_TRUNCATED = " [... truncated on this page; the full text is in the archive]"


def safe_href(href: str | None) -> str | None:
    """The link target if it is an absolute http(s) URL after decoding entities, else None."""
    if not href:
        return None
    decoded = href
    for _ in range(3):  # undo nested entity encoding such as &amp;#106;avascript:
        decoded = html.unescape(decoded)
    compact = _CONTROL.sub("", decoded).lower()
    scheme, sep, _ = compact.partition(":")
    if not sep or scheme not in _ALLOWED_SCHEMES or not compact.startswith(f"{scheme}://"):
        return None
    return decoded.strip()


class _DefangLinks(Treeprocessor):
    def run(self, root: etree.Element) -> None:
        for parent in list(root.iter()):
            for index, child in enumerate(list(parent)):
                if child.tag == "img":
                    _replace_image(parent, index, child)
                elif child.tag == "a":
                    _defang_link(child)


def _replace_image(parent: etree.Element, index: int, image: etree.Element) -> None:
    span = etree.Element("span", {"class": "dropped-image"})
    span.text = f"[image: {image.get('alt') or 'no description'}]"
    span.tail = image.tail
    parent.remove(image)
    parent.insert(index, span)


def _defang_link(link: etree.Element) -> None:
    href = safe_href(link.get("href"))
    title = link.get("title")
    link.attrib.clear()
    if href is None:
        link.tag = "span"
        link.set("class", "dropped-link")
        return
    link.set("href", href)
    link.set("rel", "nofollow noopener noreferrer")
    link.set("target", "_blank")
    if title:
        link.set("title", title)


class _DefangExtension(Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (markdown's API name)
        md.treeprocessors.register(_DefangLinks(md), "prematch_defang", 0)


def rationale_budget(count: int) -> int:
    """HTML bytes each of ``count`` rationales on one page may take, so the page stays light."""
    return max(600, PAGE_RATIONALE_BYTES // max(count, 1))


def render_rationale(text: str | None, max_bytes: int | None = None) -> Markup:
    """Untrusted markdown -> inert HTML (escaped first; unsafe links and images dropped).

    At most ``MAX_CHARS`` characters are shown; with ``max_bytes`` the text is cut further
    (halving) until its HTML fits, and the reader is told the full text is in the archive.
    """
    text = clean_text(text)
    if not text:
        return Markup("")
    limit = min(len(text), MAX_CHARS)
    while True:
        shown = text if limit >= len(text) else text[:limit] + _TRUNCATED
        html = _convert(shown)
        if max_bytes is None or len(html) <= max_bytes or limit <= 100:
            return Markup(html)
        limit //= 2


def _convert(text: str) -> str:
    md = markdown.Markdown(extensions=[_DefangExtension()], output_format="html")
    return md.convert(html.escape(text, quote=False))
