"""Limits on what a provider can make Prematch store, and whether it served the model asked for.

* :func:`sanitised_text`: a provider's text as it may be kept: every secret removed
  (:func:`collector.redaction.sanitised_text`: text that is itself JSON, such as an answer,
  is sanitised as its decoded value, never as JSON text).
* :func:`same_model`: the served model id equals the requested one up to the provider's
  version suffix: ``openai/gpt-4o`` served as ``openai/gpt-4o-2024-08-06`` is the same model,
  ``openai/gpt-4o`` served as ``openai/gpt-4o-mini`` is not. A routing variant of the request
  (``:free``, ``:nitro``) and the vendor prefix missing from the answer are ignored.
"""

from __future__ import annotations

import re

from collector.redaction import sanitised_text as _sanitised

_VERSION_SUFFIX = re.compile(r"^[-@:.]?(\d[\w.-]*|latest|preview(?:[-.]?[\w.-]*)?)$")


def sanitised_text(text: str | None) -> str | None:
    return _sanitised(text)


def _base(model: str) -> str:
    return model.strip().lower().split(":", 1)[0]


def same_model(requested: str | None, served: str | None) -> bool:
    """Whether ``served`` names ``requested`` (see the module docstring); unknown counts as the same."""
    if not requested or not served:
        return True
    want, got = _base(requested), _base(served)
    if got == want:
        return True
    if "/" not in got and "/" in want:
        want = want.split("/", 1)[1]
    if got == want:
        return True
    return got.startswith(want) and bool(_VERSION_SUFFIX.match(got[len(want):]))
