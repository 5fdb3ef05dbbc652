"""``verify``'s checkpoint (``collector/audit/checkpoint.py``): a HEAD verified before is answered
from ``.git/prematch``, a later HEAD reads only the commits since, and either way the report is
the one a cold ``--no-cache`` run gives, to the last byte of its JSON; a checkpoint that cannot be
read is reported and ignored."""

from __future__ import annotations

import orjson
import pytest

from collector.archive.store import STORE_FILE
from collector.archive.write.writer import ArchiveWriter
from collector.audit.checkpoint import KIND
from collector.audit import gitlog
from collector.audit.report import report_json
from collector.audit.verify import verify_repository
from collector.cli import main
from tests.cache_tampering import entry_keys, forge_entries, rewrite_entry
from tests.gitrepo import at, forecast
from tests.test_verify import ELO, build_history, codes


def as_json(report) -> bytes:
    return orjson.dumps(report_json(report))


def checkpoints(repo) -> list[str]:
    """The keys of the checkpoints in the repository's store (``.git/prematch``)."""
    return entry_keys(repo.root / ".git" / "prematch", KIND)


def assert_same_as_cold(repo, **options):
    cached = verify_repository(repo.root, **options)
    cold = verify_repository(repo.root, use_cache=False, **options)
    assert as_json(cached) == as_json(cold)
    assert [f.message for f in cached.findings] == [f.message for f in cold.findings]
    assert cached.commits == cold.commits and cached.changes == cold.changes  # positions and all
    assert cached.cache_notes == []
    return cached


@pytest.fixture
def clean(tmp_path):
    return build_history(tmp_path, with_outcome=False)


def test_a_sequence_of_ticks_with_a_violation_reports_what_a_cold_run_reports(clean, monkeypatch):
    first = assert_same_as_cold(clean)
    assert first.ok and len(checkpoints(clean)) == 1
    ranges = []
    real_git = gitlog.git
    monkeypatch.setattr(gitlog, "git", lambda repo, *args, **kw: ranges.extend(a for a in args if ".." in a)
                        or real_git(repo, *args, **kw))  # fmt: skip
    assert as_json(verify_repository(clean.root)) == as_json(first)  # answered by the checkpoint
    assert ranges == []  # no git log at all
    clean.tick(at(11, 9), forecast("base_rate", model_version="b-1", requested_at=at(11, 9)))
    assert_same_as_cold(clean)  # extended from the checkpoint's history: only the new commit read
    assert ranges == [f"{first.head}..{clean.git('rev-parse', 'HEAD').strip()}"] * 2  # rev-list, then log
    target = clean.archive / ELO
    target.write_bytes(target.read_bytes().replace(b'"elo-1"', b'"elo-2"'))
    clean.commit(at(11, 10), "tidy")  # an edit: append-only is broken
    clean.tick(at(13), forecast("late", model_version="l-1", requested_at=at(11, 11)))  # after kickoff
    later = assert_same_as_cold(clean)
    assert codes(later) == ["committed_after_kickoff", "modified"]
    assert as_json(verify_repository(clean.root)) == as_json(later)
    assert main(["verify", "--repo", str(clean.root)]) == 1


def test_a_rewritten_history_is_read_again_in_full_and_reported(clean):
    first = assert_same_as_cold(clean)
    clean.git("reset", "-q", "--hard", "HEAD~1")  # the checkpoint's commit is no longer on the chain
    clean.tick(at(11, 8), forecast("base_rate", model_version="b-1", requested_at=at(11, 8)))
    cached, cold = verify_repository(clean.root), verify_repository(clean.root, use_cache=False)
    [rewritten] = [f for f in cached.findings if f.code == "history_rewritten"]
    assert rewritten.violation and rewritten.commit == first.head and first.head in rewritten.message
    cached.findings.remove(rewritten)  # the rest is what a cold run reports
    assert as_json(cached) == as_json(cold)
    assert [f.code for f in verify_repository(clean.root).findings if f.violation] == ["history_rewritten"]


def test_a_merge_extends_the_checkpoint_along_the_first_parent(clean):
    assert_same_as_cold(clean)
    clean.git("checkout", "-q", "-b", "pr")
    ArchiveWriter(clean.archive).write(forecast("market", model_version="m-1", requested_at=at(11, 1)))
    clean.commit(at(11, 1), "a forecast by hand, on a branch")
    clean.git("checkout", "-q", "main")
    clean.tick(at(11, 2), forecast("base_rate", model_version="b-1", requested_at=at(11, 2)))
    clean.git("merge", "-q", "--no-ff", "-m", "merge", "pr", when=at(11, 3))
    assert_same_as_cold(clean)


def test_other_options_get_their_own_checkpoint(clean):
    plain = assert_same_as_cold(clean)
    manifest = next(e for e in plain.files.values() if e.kind == "manifest")
    anchored = assert_same_as_cold(clean, anchors=[manifest.added_sha256, "0" * 64])
    assert codes(anchored) == ["anchor_missing"] and len(anchored.anchors) == 2
    assert as_json(verify_repository(clean.root, anchors=[manifest.added_sha256, "0" * 64])) == as_json(anchored)
    assert as_json(verify_repository(clean.root)) == as_json(plain)
    assert len(checkpoints(clean)) == 2


def test_no_cache_neither_reads_nor_writes_a_checkpoint(clean):
    verify_repository(clean.root, use_cache=False)
    assert checkpoints(clean) == []


@pytest.mark.parametrize("damage", [
    b"{not json",
    b"[]",
    b'{"format": 2}',
    None,  # the right format and key, the wrong shape
], ids=["not-json", "a-list", "no-key", "bad-shape"])  # fmt: skip
def test_a_damaged_checkpoint_is_reported_and_ignored(clean, damage, capsys):
    """Written by the store's owner (another version of the code, say) but not of this form."""
    good = assert_same_as_cold(clean)
    folder = clean.root / ".git" / "prematch"
    [stored] = checkpoints(clean)
    if damage is None:
        def damage_of(value: bytes) -> bytes:
            data = orjson.loads(value)
            data["facts"] = data["facts"][:-1]
            return orjson.dumps(data)
    else:
        def damage_of(_value: bytes) -> bytes:
            return damage
    rewrite_entry(folder, KIND, stored, damage_of)
    again = verify_repository(clean.root)
    assert as_json(again) == as_json(good)
    [note] = again.cache_notes
    assert stored[:12] in note and "ignored" in note
    assert as_json(verify_repository(clean.root)) == as_json(good)  # rewritten whole
    assert verify_repository(clean.root).cache_notes == []
    rewrite_entry(folder, KIND, stored, lambda _value: b"{not json")
    assert main(["verify", "--repo", str(clean.root)]) == 0
    assert f"note: the verify checkpoint {stored[:12]} in {folder} cannot be read" in capsys.readouterr().err


def test_a_checkpoint_of_another_key_is_never_used(clean):
    assert_same_as_cold(clean)
    [stored] = checkpoints(clean)

    def planted(value: bytes) -> bytes:
        data = orjson.loads(value)
        data["findings"] = [["modified", ELO, "planted", None, True, False]]
        data["key"] = "0" * 64  # as if another version of the code had written it
        return orjson.dumps(data)

    rewrite_entry(clean.root / ".git" / "prematch", KIND, stored, planted)
    assert verify_repository(clean.root).ok


def test_a_forged_checkpoint_is_rejected(clean):
    """One edited without the store's key (a clean report planted over findings) is never used."""
    folder = clean.root / ".git" / "prematch"
    target = clean.archive / ELO
    target.write_bytes(target.read_bytes().replace(b'"elo-1"', b'"elo-2"'))
    clean.commit(at(12, 5), "hand edit")
    bad = verify_repository(clean.root)
    assert not bad.ok

    def clean_report(value: bytes) -> bytes:
        data = orjson.loads(value)
        data["findings"] = []
        return orjson.dumps(data)

    assert forge_entries(folder / STORE_FILE, KIND, clean_report) == 1
    again = verify_repository(clean.root)
    assert as_json(again) == as_json(bad) and not again.ok
    assert any("rejected" in note for note in again.cache_notes)


def test_facts_come_back_from_their_stored_form_unchanged():
    from datetime import UTC, datetime

    from collector.audit.facts_form import Facts, facts_from_list, facts_to_list

    when = datetime(2026, 6, 11, 20, tzinfo=UTC)
    full = Facts("evidence", True, ("c", "match", "e"), ("c", "e", "x"), 2, "a/b.json", when, when, "valid", True,
                 (when, {"a.json": "0" * 64}, "m/p.json", "1" * 64), ("late item",), ("odds.json", "2" * 64))
    for facts in (full, Facts("forecast", False)):
        assert facts_from_list(orjson.loads(orjson.dumps(facts_to_list(facts)))) == facts


def test_a_clone_with_replaced_objects_is_never_checkpointed(clean):
    clean.git("replace", clean.git("rev-parse", "HEAD~1").strip(), clean.git("rev-parse", "HEAD~2").strip())
    assert_same_as_cold(clean)
    assert checkpoints(clean) == []


def test_a_bare_clone_is_verified_and_a_git_folder_refused(clean, tmp_path, capsys):
    bare = tmp_path / "bare.git"
    clean.git("clone", "-q", "--bare", str(clean.root), str(bare))
    assert main(["verify", "--repo", str(bare)]) == main(["verify", "--repo", str(clean.root)]) == 0
    assert main(["verify", "--repo", str(bare)]) == 0  # answered by its checkpoint
    capsys.readouterr()
    assert main(["verify", "--repo", str(clean.root / ".git")]) == 2
    assert capsys.readouterr().err == f"prematch verify: {clean.root / '.git'}: not the working tree of a git repository\n"
