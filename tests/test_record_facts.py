"""Record facts: a cold load, a cached load and ``load_archive`` agree on every problem and every
effective record, on real replays and on hand-damaged archives."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from collector.archive.cache import DEFAULT
from collector.archive.facts import load_facts
from collector.archive.facts_columns import TEXT
from collector.archive.layout import path_for
from collector.archive.reader import load_archive
from collector.records import ForecastStatus, Horizon
from tests.factories import (
    make_competition,
    make_event,
    make_forecast,
    make_outcome,
    synthetic_records,
    write_records,
)


def _same_as_reader(root: Path, cache: Path | None):
    """Cold (no cache), cold filling ``cache``, then cached: each equal to ``load_archive``."""
    archive = load_archive(root)
    loads = [load_facts(root, cache=None), load_facts(root, cache=cache), load_facts(root, cache=cache)]
    for facts in loads:
        assert [(p.path, p.message) for p in facts.problems] == [(p.path, p.message) for p in archive.problems]
        assert facts.effective_paths() == archive.effective_paths
        assert facts.sha256() == archive.sha256
        assert sorted(facts.paths[i] for i in facts.ok.nonzero()[0]) == sorted(archive.records)
        superseded = {facts.paths[i] for i in facts.superseded.nonzero()[0]}
        assert superseded == {path_for(f) for f in archive.superseded}
    assert loads[1].validated == len(set(loads[1].digests)) and loads[2].validated == 0
    return archive, loads


@pytest.mark.slow
def test_a_synthetic_archive_loads_the_same_cold_and_cached(tmp_path):
    root = tmp_path / "archive"
    write_records(root, synthetic_records(n_events=12, n_models=2, seed=3, knockout_from=6, failure_rate=0.1))
    _same_as_reader(root, tmp_path / "cache")


def _damaged_archive(root: Path) -> None:
    """Every kind of damage the reader reports: edits, bad JSON, a moved file, broken chains, a link."""
    event = make_event()
    failed = make_forecast(event, status=ForecastStatus.API_ERROR)
    retry = make_forecast(event, revision=1, supersedes=path_for(failed))
    valid = make_forecast(event, horizon=Horizon.T_MINUS_2H)
    bad_retry = make_forecast(event, horizon=valid.horizon, revision=1, supersedes=path_for(valid))
    moved = event.model_copy(update={"revision": 1, "supersedes": "elsewhere.json", "change_reason": "x"})
    gap = event.model_copy(update={"revision": 3, "supersedes": path_for(event)})
    orphan = make_event("esp", "usa").model_copy(update={"revision": 1, "supersedes": "x.json"})
    write_records(root, [make_competition(), event, make_outcome(event, 1, 1), failed, retry, valid, bad_retry,
                         moved, gap, orphan])
    edited = root / path_for(make_outcome(event, 1, 1))
    data = orjson.loads(edited.read_bytes())
    data["score_90"]["home"] = -3
    edited.write_bytes(orjson.dumps(data))
    (root / "worldcup-2026/events/mex-v-rsa/match_report.r000.json").write_text("{not json")
    wrong = root / "worldcup-2026/events/esp-v-uru/event.r000.json"
    wrong.parent.mkdir(parents=True)
    wrong.write_bytes((root / path_for(event)).read_bytes())
    os.symlink(root / path_for(event), root / "worldcup-2026/events/mex-v-rsa/event.r009.json")


def test_a_hand_damaged_archive_gives_the_readers_problems_cold_and_cached(tmp_path):
    root = tmp_path / "archive"
    _damaged_archive(root)
    archive, _ = _same_as_reader(root, tmp_path / "cache")
    messages = " | ".join(p.message for p in archive.problems)
    for words in ("symlink", "score_90.home", "Invalid JSON", "belongs at", "expected", "follows a gap",
                  "no revision 0", "only transport failures"):
        assert words in messages, words
    assert archive.superseded  # the retried transport failure


def test_an_unreadable_file_is_reported_in_its_place(tmp_path, monkeypatch):
    from collector.archive import reader

    root = tmp_path / "archive"
    _damaged_archive(root)
    victim = path_for(make_forecast(make_event(), status=ForecastStatus.API_ERROR))
    real = reader._read_file

    def failing(path):  # the one read both loads make of each file
        if path.endswith(victim):
            raise OSError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(reader, "_read_file", failing)
    archive, _ = _same_as_reader(root, tmp_path / "cache")
    assert any(p.path == victim and "cannot read" in p.message for p in archive.problems)


def test_the_fingerprint_follows_the_installed_code(monkeypatch):
    from collector.archive import codeversion, facts_cache

    before = facts_cache.fingerprint()
    assert before == facts_cache.fingerprint() and len(before) == 64
    monkeypatch.setattr(codeversion, "code_version", lambda: "other code")
    monkeypatch.setattr(facts_cache, "code_version", codeversion.code_version)
    assert facts_cache.fingerprint() != before


def test_a_file_moved_or_edited_after_caching_is_judged_anew(tmp_path):
    root, cache = tmp_path / "archive", tmp_path / "cache"
    event = make_event()
    write_records(root, [make_competition(), event, make_forecast(event)])
    assert not load_facts(root, cache=cache).problems
    moved = root / "worldcup-2026/events/esp-v-uru/event.r000.json"
    moved.parent.mkdir(parents=True)
    os.replace(root / path_for(event), moved)  # same bytes, so a cached row, at another path
    facts = load_facts(root, cache=cache)
    assert facts.validated == 0 and [p.path for p in facts.problems] == [str(moved.relative_to(root))]
    assert "belongs at" in facts.problems[0].message
    changed = event.model_copy(update={"venue": "Azteca"})
    os.replace(moved, root / path_for(event))
    (root / path_for(event)).write_bytes(orjson.dumps(changed.model_dump(mode="json")))
    facts = load_facts(root, cache=cache)
    assert facts.validated == 1 and not facts.problems


@pytest.mark.parametrize("damage", ["truncated", "forged", "garbage", "empty", "other_code", "store_file_cut",
                                    "codes_out_of_range", "valid_row_without_key", "unknown_status"])
def test_a_corrupt_cache_is_reported_and_ignored(tmp_path, damage, monkeypatch, caplog):
    """Forged bytes (the digest updated, the tag not), a cut store file, or an entry of its owner's
    key that is not a consistent table: each is reported, every file validated, the load the same."""
    import numpy as np
    from cache_tampering import entry_keys, forge_entries, rewrite_entry

    from collector.archive import facts as facts_module
    from collector.archive import facts_cache
    from collector.archive.store import STORE_FILE, pack_arrays, unpack_arrays

    root, cache = tmp_path / "archive", tmp_path / "cache"
    write_records(root, synthetic_records(n_events=3, n_models=1, seed=2, failure_rate=0.2))
    cold = load_facts(root, cache=cache)
    [key] = entry_keys(cache, facts_cache.KIND)
    store = cache / STORE_FILE
    if damage == "forged":  # one more digest's row, as someone without the key would add it
        assert forge_entries(store, facts_cache.KIND, lambda value: value + b"\0") == 1
    elif damage == "store_file_cut":
        store.write_bytes(store.read_bytes()[: store.stat().st_size // 3])
    elif damage == "other_code":
        monkeypatch.setattr(facts_module, "fingerprint", lambda: "0" * 64)
    else:
        def change(value: bytes) -> bytes:
            if damage == "truncated":
                return value[: len(value) // 2]
            if damage == "garbage":
                return os.urandom(4096)
            if damage == "empty":
                return b""
            arrays = dict(zip(facts_cache.PARTS, unpack_arrays(value), strict=True))
            if damage == "codes_out_of_range":
                arrays["status"] = arrays["status"] + 10**6
            elif damage == "valid_row_without_key":
                arrays["key"][arrays["valid"].nonzero()[0][0]] = -1
            else:  # a forecast's status code pointed at another string of the table
                forecast = orjson.loads(arrays["strings"].tobytes()).index("forecast")
                arrays["status"][(arrays["kind"] == forecast).nonzero()[0][0]] = arrays["kind"][0]
            return pack_arrays(arrays[name] for name in facts_cache.PARTS)

        rewrite_entry(cache, facts_cache.KIND, key, change)
    again = load_facts(root, cache=cache)
    assert again.cache_note and str(store) in again.cache_note and again.validated == len(again)
    if damage == "forged":
        assert "rejected" in again.cache_note and "authentication failed" in again.cache_note
    if damage not in ("other_code",):
        assert any(str(store) in r.getMessage() for r in caplog.records)  # reported, not silent
    assert again.problems == cold.problems and again.effective_paths() == cold.effective_paths()
    for name, column in cold.columns.items():
        if name in TEXT:
            assert again.text(name).tolist() == cold.text(name).tolist(), name
        else:
            assert np.array_equal(again.columns[name], column, equal_nan=column.dtype.kind == "f"), name
    healed = load_facts(root, cache=cache)  # the rewritten entry serves the next load
    assert healed.validated == 0 and healed.cache_note is None
    assert len(entry_keys(cache, facts_cache.KIND)) == 1  # one entry: the other code's is not kept beside it


def test_the_default_cache_lives_in_the_repositorys_git_folder(tmp_path):
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    root = tmp_path / "archive"
    write_records(root, [make_competition()])
    assert load_facts(root, cache=DEFAULT).validated == 1
    assert (tmp_path / ".git" / "prematch" / "store.sqlite").is_file()
    assert load_facts(root).validated == 0
    assert not any(p.name.startswith("store.") for p in root.rglob("*"))  # never in the archive


def test_a_missing_archive_and_no_cache_folder_outside_git(tmp_path):
    assert len(load_facts(tmp_path / "nowhere")) == 0
    root = tmp_path / "archive"
    write_records(root, [make_competition()])
    facts = load_facts(root)  # not in a git repository: no cache, every file validated
    assert facts.validated == 1 and facts.cache_note is None and not list(tmp_path.rglob("store.*"))


def test_a_store_mostly_of_other_contents_is_cut_to_this_archives(tmp_path, monkeypatch):
    from collector.archive import facts as facts_module

    monkeypatch.setattr(facts_module, "STALE_ROWS_KEPT", 0)
    big, small, cache = tmp_path / "big", tmp_path / "small", tmp_path / "cache"
    write_records(big, synthetic_records(n_events=3, n_models=1, seed=2))
    write_records(small, [make_competition(), make_event()])
    load_facts(big, cache=cache)
    assert load_facts(small, cache=cache).validated == 2  # written with the big archive's rows, then cut
    facts = load_facts(small, cache=cache)
    assert facts.validated == 0 and facts.problems == load_archive(small).problems
    assert load_facts(big, cache=cache).validated == len(load_archive(big).records)  # its rows were dropped


def test_effective_forecasts_sorted_by_key_like_the_scorer(tmp_path):
    from collector.records import Forecast

    root = tmp_path / "archive"
    write_records(root, synthetic_records(n_events=4, n_models=2, seed=5))
    archive, facts = load_archive(root), load_facts(root, cache=None)
    rows = facts.effective_forecast_rows()
    assert [facts.paths[i] for i in rows] == [path_for(f) for f in sorted(archive.forecasts, key=Forecast.key)]
