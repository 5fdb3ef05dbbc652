"""The key in every form a hostile provider can hide it in, through the real ``tick`` and ``build`` (issue 53).

The fake server (``tests/fake_openrouter.py``, mode ``leak:all``) answers each call with the key
in the next of :data:`ALL_LEAKS`: plain, JSON-escaped, URL-encoded, base64, base64 at an offset,
base64 wrapped in lines, base64 of UTF-16LE, HTML numeric entities, hex, upper case, zero-width
characters between its letters, a space inserted, reversed, full-width, percent-encoded twice,
an escaped backslash before a ``\\u`` escape (which breaks JSON text cut by a pattern), split
over ``id`` and ``model``, and as the ``X-Generation-Id`` header of a body without ``id``. The
oracle (``tests/secret_search.py``) decodes what it reads, apart from the sanitiser.
"""

from __future__ import annotations

from collections import Counter

import orjson
import pytest

from builder.cli import main as builder_main
from builder.site.build import static_files
from collector.archive.reader import load_archive
from collector.records import ForecastStatus, Horizon
from collector.redaction import (
    REJECTED,
    SHAPES,
    contains_secret,
    redact,
    sanitised_value,
)
from tests.collection_helpers import FAKE_KEY
from tests.fake_openrouter import (
    ALL_LEAKS,
    HIDDEN_ENCODINGS,
    LEAK_ENCODINGS,
    encoded_key,
)
from tests.secret_search import file_occurrences, folder_occurrences, occurrences
from tests.test_hostile_provider import tick

OPENER = "mex-v-rsa"  # kicks off 2026-06-11 19:00Z


def _decoded(encoding: str) -> str:
    """The key as a JSON string's value carries it (``encoded_key`` writes JSON text)."""
    import json

    return json.loads(f'"{encoded_key(FAKE_KEY, encoding)}"')


@pytest.fixture
def only_the_key(monkeypatch):
    """The fake key as the process's one secret (other tests register theirs: ``test-key`` would match
    ``TEST-KEY``, case folded)."""
    monkeypatch.setattr("collector.redaction.known_secrets", lambda: frozenset({FAKE_KEY}))


@pytest.mark.parametrize("encoding", [*LEAK_ENCODINGS, *HIDDEN_ENCODINGS])
def test_the_sanitiser_removes_every_form_and_keeps_the_text_around_it(encoding, only_the_key):
    text = f"Home side stronger. {_decoded(encoding)} End."
    assert occurrences(text, FAKE_KEY) and contains_secret(text)
    cleaned = redact(text)
    assert occurrences(cleaned, FAKE_KEY) == 0 and not contains_secret(cleaned)
    assert "[redacted]" in cleaned


def test_a_key_split_over_two_neighbouring_fields_is_redacted_in_both(only_the_key, tmp_path):
    half = len(FAKE_KEY) // 2
    value = {"id": f"gen-{FAKE_KEY[:half]}", "model": f"{FAKE_KEY[half:]}/x", "note": "kept"}
    assert not contains_secret(value["id"]) and not contains_secret(value["model"])
    (tmp_path / "split.json").write_bytes(orjson.dumps(value))
    assert file_occurrences(tmp_path / "split.json", FAKE_KEY) == 1  # the oracle sees it
    assert sanitised_value(value) == {"id": "[redacted]", "model": "[redacted]", "note": "kept"}


@pytest.mark.slow
def test_every_hidden_form_leaves_no_key_in_archive_site_or_logs_and_no_forecast_missed(
        tmp_path, data_dir, server, capsys):
    server.mode = "leak:all"
    assert tick(tmp_path, data_dir) == 0  # the stage-opening window of the group stage: 72 calls
    assert len(server.seen) == 72 >= 4 * len(ALL_LEAKS)  # each form served four times or more
    archive = load_archive(tmp_path / "archive")
    assert archive.problems == [] and len(archive.forecasts) == 72
    assert Counter(f.status for f in archive.forecasts) == {ForecastStatus.VALID: 72}  # the answers were good
    attempts = [f.attempts[0] for f in archive.forecasts]
    assert all(a.usage.cost_usd == pytest.approx(0.00123) for a in attempts)  # every call's spending counted
    for attempt in attempts:
        for value, shape in ((attempt.response_id, "generation_id"), (attempt.served_model, "model")):
            assert value.startswith(REJECTED) or SHAPES[shape].fullmatch(value)
    rejected = Counter((a.response_id.startswith(REJECTED), a.served_model.startswith(REJECTED)) for a in attempts)
    assert rejected[(True, True)] >= 4  # the split key: both halves refused as identifiers
    assert capsys.readouterr().out.count("manifest: manifests/") == 1
    # the opener's later horizons, then a tick after its kickoff writes a missed record for any window unserved
    for now in ("2026-06-10T19:05:00Z", "2026-06-11T17:05:00Z", "2026-06-11T19:30:00Z"):
        tick(tmp_path, data_dir, now=now)
    opener = {f.horizon: f for f in load_archive(tmp_path / "archive").forecasts if f.target_id == OPENER}
    assert set(opener) == {Horizon.STAGE_OPENING, Horizon.T_MINUS_24H, Horizon.T_MINUS_2H}
    assert all(f.status is not ForecastStatus.MISSED and f.attempts for f in opener.values())
    assert builder_main(["build", "--archive", str(tmp_path / "archive"), "--out", str(tmp_path / "site")]) == 0
    logs = capsys.readouterr()
    assert folder_occurrences(tmp_path / "archive", FAKE_KEY) == {}
    assert folder_occurrences(tmp_path / "site", FAKE_KEY, static_files()) == {}
    assert occurrences(logs.out + logs.err, FAKE_KEY) == 0


@pytest.mark.slow
def test_the_builds_last_step_removes_every_file_that_holds_the_key(tmp_path, monkeypatch, capsys):
    from collector.archive.layout import path_for
    from collector.records import Event
    from collector.records.byteform import record_bytes
    from tests.site_archive import site_records

    hexed = FAKE_KEY.encode().hex()  # a hand-edited archive file: written past the writer, as an editor does
    for record in site_records():
        if isinstance(record, Event) and record.id == "mex-v-rsa":
            record = record.model_copy(update={"venue": f"Stadium {hexed}"})
        path = tmp_path / "archive" / path_for(record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(record_bytes(record))
    monkeypatch.setenv("OPENROUTER_API_KEY", FAKE_KEY)
    assert builder_main(["build", "--archive", str(tmp_path / "archive"), "--out", str(tmp_path / "site")]) == 1
    removed = [line for line in capsys.readouterr().err.splitlines() if "holds a secret" in line]
    assert any("/matches/" in line for line in removed) and any("/records/" in line for line in removed)
    assert all(line.endswith("holds a secret (an API key) in some form; removed from the site") for line in removed)
    assert folder_occurrences(tmp_path / "site", FAKE_KEY, static_files()) == {}
    assert (tmp_path / "site" / "index.html").exists()  # the rest of the site is there


def test_a_key_in_a_duplicated_json_key_is_not_kept_in_the_attempts_text(only_the_key):
    """The parsed value of ``{"a": KEY, "a": "x"}`` holds no key (the last value wins), its text does: the text
    kept is the sanitised value written out again, never the body verbatim (which the writer would refuse)."""
    from collector.forecasters.llm.sanitise import kept_body

    text = orjson.dumps({"a": FAKE_KEY}).decode()[:-1] + ', "a": "x"}'
    kept, data = kept_body(text)
    assert data == {"a": "x"} and orjson.loads(kept) == {"a": "x"} and not contains_secret(kept)
    plain = '{"a": "x",  "b": [1, 2]}'
    assert kept_body(plain) == (plain, {"a": "x", "b": [1, 2]})  # a body holding no key is kept byte for byte
