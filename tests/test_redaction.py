"""The one sanitiser (collector/redaction.py): the key in any encoding a body can carry, and nothing else."""

from __future__ import annotations

import base64
import string

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from collector.redaction import REDACTED, pattern_for

KEYS = st.text(alphabet=string.ascii_letters + string.digits + "-_/.", min_size=12, max_size=60)
AROUND = st.text(alphabet=string.printable, max_size=40)


def encode_each(key: str, choices: list[int]) -> str:
    """Each character plain, JSON \\u-escaped (either hex case) or %-encoded, as ``choices`` say."""
    forms = []
    for c, pick in zip(key, choices, strict=False):
        forms.append([c, f"\\u{ord(c):04x}", f"\\u{ord(c):04X}", f"%{ord(c):02X}", f"%{ord(c):02x}"][pick % 5])
    return "".join(forms) + key[len(choices):]


@settings(max_examples=200, deadline=None)
@given(KEYS, AROUND, AROUND, st.lists(st.integers(0, 4), max_size=60))
def test_any_mix_of_escapes_is_found_and_removed(key, before, after, choices):
    pattern = pattern_for([key])
    text = before + encode_each(key, choices) + after
    assert pattern.search(text)
    cleaned = pattern.sub(REDACTED, text)
    assert not pattern.search(cleaned) and REDACTED in cleaned


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(KEYS, st.binary(max_size=5), st.binary(max_size=5), st.booleans(), st.booleans())
def test_base64_at_any_offset_is_found(key, before, after, bearer, urlsafe):
    raw = before + (f"Bearer {key}" if bearer else key).encode() + after
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    assert pattern_for([key]).search(encode(raw).decode())


@settings(max_examples=200, deadline=None)
@given(KEYS, st.text(alphabet=string.printable, max_size=200))
def test_text_without_the_key_is_left_alone(key, text):
    if key not in text and key[:-1] not in text:
        assert pattern_for([key]).sub(REDACTED, text) == text


KEYS_WITH_SPACE = st.text(alphabet=string.ascii_letters + string.digits + "-_/. ", min_size=12, max_size=40).filter(
    lambda k: k == k.strip())


@settings(max_examples=300, deadline=None)
@given(KEYS_WITH_SPACE, st.binary(max_size=30), st.binary(max_size=30), st.lists(st.integers(0, 6), max_size=40),
       st.booleans())
def test_the_writers_check_of_bytes_agrees_with_the_pattern(key, before, after, choices, hidden):
    """``contains_secret(bytes)`` (its cheap tests first) says yes whenever the pattern finds the key in the
    decoded text: plain, any mix of escapes (``\\/``, ``+`` for a space), next to invalid UTF-8 or a stray ``+``
    (it may say yes more often: the normalising search of collector/redaction/forms.py finds more forms)."""
    from unittest.mock import patch

    from collector.redaction import contains_secret

    forms = []
    for c, pick in zip(key, choices, strict=False):
        extra = {"/": "\\/", " ": "+"}.get(c, c)
        forms.append([c, f"\\u{ord(c):04x}", f"%{ord(c):02X}", extra, c, c, c][pick])
    body = ("".join(forms) + key[len(choices):]) if hidden else key[:-1] + " + "
    data = before + body.encode() + after
    text = data.decode("utf-8", "surrogateescape")
    with patch("collector.redaction.known_secrets", return_value=frozenset({key})):
        assert contains_secret(data) or pattern_for([key]).search(text) is None
        assert contains_secret(data) or not hidden


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=string.ascii_letters + string.digits, min_size=24, max_size=48),
       st.text(alphabet=string.ascii_letters + string.digits + " .,:;-'\"()\n", max_size=300))
def test_text_without_any_form_of_a_long_key_is_not_flagged(key, text):
    """The other side of the writer's check: over-redaction. A text that holds no form of a key of 24 or
    more characters (checked by the independent decoding oracle of tests/secret_search.py) is not said
    to hold it, so ordinary answers are never withheld."""
    from unittest.mock import patch

    from collector.redaction import contains_secret
    from tests.secret_search import occurrences

    if occurrences(text, key):  # the oracle finds the key in some form: not this property's case
        return
    with patch("collector.redaction.known_secrets", return_value=frozenset({key})):
        assert not contains_secret(text) and not contains_secret(text.encode())
