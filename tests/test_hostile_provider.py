"""``tick`` and ``build`` against a local OpenRouter-format server that misbehaves (issue 12).

Each test drives the real commands (``python -m collector tick``, ``python -m builder build``)
on the real 2026 World Cup fixtures against ``tests/fake_openrouter.py`` in a hostile mode.
"""

from __future__ import annotations

import base64
from collections import Counter
from pathlib import Path

import orjson
import pytest

from builder.cli import main as builder_main
from collector.archive.reader import load_archive
from collector.cli import main
from collector.records import ForecastStatus
from collector.redaction import REJECTED, contains_secret, pattern_for, redact
from tests.collection_helpers import FAKE_KEY
from tests.fake_openrouter import LEAK_ENCODINGS

NOW = "2026-06-10T12:00:00Z"  # the group stage's stage-opening window is open: 72 match forecasts
CONFIG = """
[arena]
competitions = ["worldcup-2026"]
access = ["open_book"]
strategies = ["probabilistic_forecast"]
questions = false
concurrency = 8
spending_cap_usd = 50
max_record_bytes = {max_record}
[openrouter]
max_attempts = 2
base_delay_s = 0
max_delay_s = 0
total_timeout_s = {timeout}
max_response_bytes = {max_response}
[[forecasters]]
id = "test.model"
type = "llm"
model = "test/model"
version = "test/model@1"
"""


def tick(tmp_path: Path, data_dir: Path, now: str = NOW, timeout: float = 20, max_record: int = 16_777_216,
         max_response: int = 65536) -> int:
    config = tmp_path / "arena.toml"
    config.write_text(CONFIG.format(timeout=timeout, max_record=max_record, max_response=max_response))
    return main(["tick", "--now", now, "--config", str(config), "--archive", str(tmp_path / "archive"),
                 "--data-dir", str(data_dir)])  # fmt: skip


def every_text(folder: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


ENCODINGS = [
    FAKE_KEY,
    "".join(f"\\u{ord(c):04x}" for c in FAKE_KEY),
    "\\u0073" + FAKE_KEY[1:],
    "".join(f"%{ord(c):02x}" for c in FAKE_KEY),
    FAKE_KEY.replace("-", "%2D"),
    base64.b64encode(f"Bearer {FAKE_KEY}".encode()).decode(),
    base64.urlsafe_b64encode(f"x{FAKE_KEY}".encode()).decode(),
    base64.b64encode(f"user:{FAKE_KEY}".encode()).decode(),
]


@pytest.mark.parametrize("form", ENCODINGS)
def test_the_sanitiser_removes_the_key_in_every_encoding(form):
    text = f'{{"note": "before {form} after"}}'
    pattern = pattern_for([FAKE_KEY])
    assert pattern.search(text)
    assert not pattern.search(pattern.sub("[redacted]", text))
    assert pattern.sub("[redacted]", text).startswith('{"note": "before ') and text.endswith(' after"}')


@pytest.mark.slow
@pytest.mark.parametrize("encoding", LEAK_ENCODINGS)
def test_a_key_in_every_parsed_field_reaches_no_record_site_or_output(tmp_path, data_dir, server, capsys, encoding):
    server.mode = f"leak:{encoding}"
    assert tick(tmp_path, data_dir) == 0
    archive = load_archive(tmp_path / "archive")
    forecasts = archive.forecasts
    assert len(forecasts) == 72 and archive.problems == []
    assert Counter(f.status for f in forecasts) == {ForecastStatus.VALID: 72}  # the answers themselves were good
    attempt = forecasts[0].attempts[0]
    # every field the client parses held the key: each identifier is refused (kept as its SHA-256),
    # each free text holds the redaction mark instead
    for value in (attempt.response_id, attempt.provider, attempt.served_model, forecasts[0].served_model):
        assert value.startswith(REJECTED) and len(value.rsplit(" ", 1)[-1]) == 65
    trace = attempt.tool_trace
    assert trace.citations[0].url.startswith(REJECTED) and "[redacted]" in trace.citations[0].title
    assert "[redacted]" in orjson.dumps(trace.search_calls).decode()
    assert "[redacted]" in orjson.dumps(trace.search_results).decode()
    assert "[redacted]" in forecasts[0].payload.reason
    assert builder_main(["build", "--archive", str(tmp_path / "archive"), "--out", str(tmp_path / "site")]) == 0
    captured = capsys.readouterr()
    for text in (every_text(tmp_path / "archive"), every_text(tmp_path / "site"), captured.out + captured.err):
        assert not pattern_for([FAKE_KEY]).search(text)


def test_the_writer_refuses_a_record_that_still_holds_the_key(tmp_path, monkeypatch):
    from collector.archive.write.writer import ArchiveWriter, SecretInRecordError
    from tests.collection_helpers import make_event

    monkeypatch.setenv("OPENROUTER_API_KEY", FAKE_KEY)
    event = make_event(venue=f"Stadium {base64.b64encode(f'Bearer {FAKE_KEY}'.encode()).decode()}")
    with pytest.raises(SecretInRecordError, match="still holds a secret"):
        ArchiveWriter(tmp_path).write(event)
    assert not list(tmp_path.rglob("*.json"))
    assert contains_secret(FAKE_KEY) and redact(f"a {FAKE_KEY} b") == "a [redacted] b"


@pytest.mark.slow
@pytest.mark.parametrize("code", [401, 402])
def test_401_and_402_stop_every_further_call_and_exit_non_zero(tmp_path, data_dir, server, code, capsys):
    server.mode = f"status:{code}"
    assert tick(tmp_path, data_dir) == 1
    archive = load_archive(tmp_path / "archive")
    assert len(server.seen) <= 8  # the calls already in flight (concurrency 8), then none: 72 were due
    assert archive.manifests, "the manifest is written before the run turns red"
    failed = [f for f in archive.forecasts if f.attempts]
    assert failed and all(f.status is ForecastStatus.API_ERROR for f in failed)
    assert all(f.attempts[-1].error_kind == ("auth" if code == 401 else "credits") for f in failed)
    assert all(len(f.attempts) == 1 for f in failed)  # never retried
    err = capsys.readouterr().err
    assert f"problem: openrouter: OpenRouter answered HTTP {code}" in err


@pytest.mark.slow
def test_a_total_outage_exits_non_zero_after_writing_records_and_manifest(tmp_path, data_dir, monkeypatch, capsys):
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("OPENROUTER_API_KEY", FAKE_KEY)
    monkeypatch.setenv("OPENROUTER_BASE_URL", f"http://127.0.0.1:{port}/api/v1")
    assert tick(tmp_path, data_dir) == 1
    archive = load_archive(tmp_path / "archive")
    # the models API did not answer: no model could be checked, so none was asked (no record claims a
    # call); the fixtures and the manifest are written all the same, and the run turns red
    assert archive.events and archive.manifests and archive.forecasts == []
    err = capsys.readouterr().err
    assert "problem: GET /api/v1/models: no answer: no LLM could be checked, so none was asked this tick" in err


@pytest.mark.slow
def test_a_moderation_block_is_not_retried_and_does_not_stop_the_tick(tmp_path, data_dir, server):
    server.mode = "status:403"
    tick(tmp_path, data_dir)
    archive = load_archive(tmp_path / "archive")
    assert len(server.seen) == 72 == len(archive.forecasts)  # one call per forecast: no retry, no stop
    assert {f.attempts[-1].error_kind for f in archive.forecasts} == {"refusal"}


@pytest.mark.slow
def test_an_oversized_response_is_cut_and_the_record_says_so(tmp_path, data_dir, server):
    server.mode = "oversized:300000"
    tick(tmp_path, data_dir)
    archive = load_archive(tmp_path / "archive")
    assert len(archive.forecasts) == 72
    attempt = archive.forecasts[0].attempts[0]
    assert attempt.response_truncated and attempt.response_bytes > 300000 and len(attempt.response_sha256) == 64
    assert len(attempt.response_text.encode()) <= 65536 and attempt.error_kind == "oversized"
    assert len(archive.forecasts[0].attempts) == 1  # not retried: the same answer would come back
    forecasts = [p for p in (tmp_path / "archive").rglob("*.json") if "/forecasts/" in p.as_posix()]
    assert len(forecasts) == 72 and max(p.stat().st_size for p in forecasts) < 200_000


@pytest.mark.slow
def test_a_record_over_the_size_limit_is_written_with_the_providers_texts_withheld(tmp_path, data_dir, server, capsys):
    server.mode = "oversized:400000"  # under a response cap of 1 MiB; the record (body and rationale) over 360 kB
    assert tick(tmp_path, data_dir, max_record=360_000, max_response=1_048_576) == 1
    archive = load_archive(tmp_path / "archive")
    assert len(archive.forecasts) == 72 and archive.problems == []  # no forecast lost (a later tick: not missed)
    assert {f.status for f in archive.forecasts} == {ForecastStatus.VALID}  # the numbers were valid, and kept
    record = archive.forecasts[0]
    assert record.payload.reason == "" and record.attempts[0].usage.cost_usd == 0.00123  # the spending kept
    assert record.attempts[0].response_text.startswith("[withheld (the record was over the size limit): ")
    assert record.validation.errors == ("the provider's texts are withheld: the record was over the size limit",)
    err = capsys.readouterr().err
    assert err.count("over the limit of 360000; written with the provider's texts withheld") == 72


@pytest.mark.slow
def test_a_served_model_other_than_the_requested_one_is_flagged_and_shown(tmp_path, data_dir, server):
    server.mode = "wrong_model"
    tick(tmp_path, data_dir)
    archive = load_archive(tmp_path / "archive")
    assert {(f.served_model, f.served_model_differs) for f in archive.forecasts} == {("other/cheaper-model", True)}
    assert builder_main(["build", "--archive", str(tmp_path / "archive"), "--out", str(tmp_path / "site")]) == 0
    page = (tmp_path / "site" / "matches" / "worldcup-2026" / "mex-v-rsa.html")
    page = page if page.exists() else next((tmp_path / "site").rglob("mex-v-rsa*.html"))
    assert "served by other/cheaper-model" in page.read_text()


@pytest.mark.slow
def test_the_requested_model_with_a_version_suffix_is_not_flagged(tmp_path, data_dir, server):
    tick(tmp_path, data_dir)
    archive = load_archive(tmp_path / "archive")
    assert {f.served_model_differs for f in archive.forecasts} == {False}


@pytest.mark.slow
def test_control_and_bidi_characters_never_reach_the_html(tmp_path, data_dir, server):
    server.mode = "control"
    tick(tmp_path, data_dir)
    archive = load_archive(tmp_path / "archive")
    raw = archive.forecasts[0].payload.reason
    assert "\x00" in raw and "\u202e" in raw and "\x1b" in raw  # the archive keeps the raw text
    assert builder_main(["build", "--archive", str(tmp_path / "archive"), "--out", str(tmp_path / "site")]) == 0
    pages = [p.read_text() for p in (tmp_path / "site").rglob("*.html")]
    assert any("AB[31mCDEF" in page for page in pages)  # the rationale is shown, without its controls
    for page in pages:
        assert not any(c in page for c in "\x00\x1b\x07\u202e\u2066")


@pytest.mark.slow
def test_the_site_is_readable_by_other_users(tmp_path, data_dir, server):
    import os
    import stat

    old = os.umask(0o022)
    try:
        tick(tmp_path, data_dir)
        assert builder_main(["build", "--archive", str(tmp_path / "archive"), "--out", str(tmp_path / "site")]) == 0
    finally:
        os.umask(old)
    site = tmp_path / "site"
    modes = {stat.S_IMODE(p.stat().st_mode) for p in [site, *site.rglob("*")] if p.is_dir()}
    assert modes == {0o755}
    assert {stat.S_IMODE(p.stat().st_mode) for p in site.rglob("*") if p.is_file()} == {0o644}
