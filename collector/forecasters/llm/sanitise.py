"""What of a provider's answer an attempt keeps: the body sanitised as decoded JSON, identifiers by shape.

* :func:`kept_body`: a JSON body is parsed *first* and every string of the parsed value is
  sanitised (:func:`collector.redaction.sanitised_value`: never the JSON text, so an escape is
  never cut in half and the kept text always parses); its identifier fields are replaced by
  their checked forms (:func:`pin_identifiers`). The body's text is kept verbatim when nothing
  changed and it holds no secret, else the sanitised value is written out again. A body that is
  not JSON (malformed, or cut at the response limit) is free text, redacted.
* :func:`pin_identifiers`: ``id`` (a generation id), ``model``, ``provider`` (top level and each
  ``openrouter_metadata`` endpoint) and each ``url_citation`` URL must have the shape of one
  (:data:`collector.redaction.SHAPES`), else they are stored as ``rejected: not an identifier``
  with the SHA-256 of the value received.
"""

from __future__ import annotations

from typing import Any

import orjson

from collector.redaction import contains_secret, identifier, redact, sanitised_value

_TOP = (("id", "generation_id"), ("model", "model"), ("provider", "provider"))


def kept_body(text: str | None) -> tuple[str | None, Any]:
    """(the text an attempt keeps, the sanitised parsed value or None when the body is not JSON)."""
    if not text:
        return text, None
    try:
        raw = orjson.loads(text)
    except orjson.JSONDecodeError:
        return redact(text), None
    data = sanitised_value(raw)
    if data is raw:  # no secret is known: the value is the parsed one; a copy keeps ``raw`` as received
        data = orjson.loads(text)
    changed = pin_identifiers(raw, data) if isinstance(raw, dict) and isinstance(data, dict) else False
    # the text can hold what its parsed value does not (a duplicated key's first value, a number, the
    # whitespace between tokens): kept verbatim only when the text itself holds no secret either
    if not changed and data == raw and not contains_secret(text):
        return text, data
    return orjson.dumps(data).decode(), data


def pin_identifiers(raw: dict, data: dict) -> bool:
    """Replace the identifier fields of ``data`` by the checked forms of ``raw``'s; whether any changed."""
    pairs: list[tuple[dict, dict, str, str]] = [(raw, data, key, shape) for key, shape in _TOP]
    meta_raw, meta = _dict(raw, "openrouter_metadata"), _dict(data, "openrouter_metadata")
    for old, new in zip(_list(_dict(meta_raw, "endpoints"), "available"), _list(_dict(meta, "endpoints"), "available"),
                        strict=False):  # fmt: skip
        if isinstance(old, dict) and isinstance(new, dict):
            pairs += [(old, new, "provider", "provider"), (old, new, "model", "model")]
    for old_choice, new_choice in zip(_list(raw, "choices"), _list(data, "choices"), strict=False):
        old_notes = _list(_dict(old_choice, "message"), "annotations")
        new_notes = _list(_dict(new_choice, "message"), "annotations")
        for old, new in zip(old_notes, new_notes, strict=False):
            cited_old, cited_new = _dict(old, "url_citation"), _dict(new, "url_citation")
            if cited_old and cited_new:
                pairs.append((cited_old, cited_new, "url", "url"))
    changed = False
    for old, new, key, shape in pairs:
        if key in old and old[key] is not None:
            checked = identifier(old[key], shape)
            changed |= new.get(key) != checked
            new[key] = checked
    return changed


def _dict(parent: Any, key: str) -> dict:
    value = parent.get(key) if isinstance(parent, dict) else None
    return value if isinstance(value, dict) else {}


def _list(parent: Any, key: str) -> list:
    value = parent.get(key) if isinstance(parent, dict) else None
    return value if isinstance(value, list) else []
