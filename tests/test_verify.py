"""``verify`` on real git repositories whose commits are dated on purpose.

Each test builds a clean history (event registered, forecasts a day before kickoff, outcome
after the match, one manifest per tick), then damages it the way a careless or dishonest
maintainer could, and checks that ``verify`` names the file, the commit and the rule.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

import orjson
import pytest

from collector.archive.layout import path_for
from collector.archive.store import STORE_FILE
from collector.archive.write.manifest import write_tick_manifest
from collector.archive.write.revise import next_revision
from collector.archive.write.writer import ArchiveWriter
from collector.audit.checkpoint import KIND as CHECKPOINT
from collector.audit.facts import FactsCache, contract_fingerprint
from collector.audit.verify import verify_repository
from collector.cli import main
from collector.records import Clock, Manifest
from collector.records.byteform import record_bytes
from tests.cache_tampering import entry_keys, forge_entries, rewrite_entry
from tests.gitrepo import KICKOFF, GitRepo, at, event, forecast, outcome

ELO = "worldcup-2026/events/mex-v-rsa/forecasts/elo/closed_book.probabilistic_forecast.t_minus_24h.s0.json"


# These histories carry no RFC 3161 tokens: with the shipped roots, each live forecast gets a
# ``no_token`` note (tests/test_timestamps.py covers tokens); the checks here are git's.
TOKEN_NOTES = {"no_token"}


def codes(report, violation=True):
    return sorted({f.code for f in report.findings if f.violation is violation} - TOKEN_NOTES)


def findings_for(report, code):
    return [f for f in report.findings if f.code == code]


def build_history(tmp_path, with_outcome: bool = True) -> GitRepo:
    """Register, forecast the day before, reschedule by an hour, then record the outcome."""
    repo = GitRepo(tmp_path / "repo")
    first = event()
    repo.tick(at(1), first)
    repo.tick(at(10, 19), forecast("elo"), forecast("uniform", model_version="uniform-1"))
    later = next_revision(
        first, event(kickoff_utc=KICKOFF + timedelta(hours=1)), reason="kickoff moved", recorded_at=at(11, 8)
    )
    repo.tick(at(11, 8), later)
    if with_outcome:
        repo.tick(at(12, 1), outcome())
    return repo


@pytest.fixture
def clean(tmp_path) -> GitRepo:
    return build_history(tmp_path)


@pytest.fixture
def before_match(tmp_path) -> GitRepo:
    return build_history(tmp_path, with_outcome=False)


def test_clean_history_passes_and_reports_each_records_commit(clean, capsys):
    report = verify_repository(clean.root)
    assert report.ok, [str(f) for f in report.violations]
    assert codes(report, violation=False) == []
    assert sorted(f.path for f in findings_for(report, "no_token")) == sorted(
        path for path, entry in report.files.items() if entry.kind == "forecast")
    assert len(report.commits) == 4
    entry = report.files[ELO]
    assert entry.added.commit.committed_at == at(10, 19)
    assert entry.kind == "forecast" and not entry.replay
    assert main(["verify", "--repo", str(clean.root)]) == 0
    out = capsys.readouterr().out
    assert "OK: no violations" in out and "2 live (prospective)" in out
    assert "set by whoever makes the commit" in out


def test_json_lists_every_record_with_its_adding_commit(clean, capsys):
    assert main(["verify", "--repo", str(clean.root), "--json"]) == 0
    data = orjson.loads(capsys.readouterr().out)
    assert data["ok"] is True and {f["code"] for f in data["findings"]} == TOKEN_NOTES
    by_path = {r["path"]: r for r in data["records"]}
    assert by_path[ELO]["added_at"] == "2026-06-10T19:00:00Z"
    assert by_path[ELO]["clock"] == "live" and by_path[ELO]["later_changes"] == []
    assert data["summary"]["by_kind"] == {"event": 2, "forecast": 2, "manifest": 4, "outcome": 1}
    assert "committer" in data["what_git_can_prove"]


def test_forecast_edited_after_commit_is_caught(clean, capsys):
    target = clean.archive / ELO
    target.write_bytes(target.read_bytes().replace(b'"elo-1"', b'"elo-2"'))
    sha = clean.commit(at(12, 2), "tidy")
    report = verify_repository(clean.root)
    [finding] = findings_for(report, "modified")
    assert finding.path == ELO and finding.commit == sha
    assert "append-only" in finding.message and "2026-06-12T02:00:00Z" in finding.message
    assert main(["verify", "--repo", str(clean.root)]) == 1
    captured = capsys.readouterr()
    assert "VIOLATIONS: 1 (modified 1)" in captured.out and ELO not in captured.out
    assert captured.err.startswith(f"problem: {ELO}: modified: modified in commit {sha[:12]}")
    assert captured.err.count("\n") == 1
    assert main(["verify", "--repo", str(clean.root), "--json"]) == 1  # the JSON lists it too
    captured = capsys.readouterr()
    assert [f["code"] for f in orjson.loads(captured.out)["findings"] if f["code"] not in TOKEN_NOTES] == ["modified"]
    assert captured.err.startswith(f"problem: {ELO}: modified: ")


def test_deleted_forecast_is_caught(clean):
    (clean.archive / ELO).unlink()
    clean.commit(at(12, 3), "remove a bad forecast")
    report = verify_repository(clean.root)
    assert codes(report) == ["deleted"]
    assert findings_for(report, "deleted")[0].path == ELO


def test_rename_is_a_deletion_and_a_readdition(clean):
    moved = clean.archive / ELO.replace("/elo/", "/elo2/")
    moved.parent.mkdir(parents=True)
    (clean.archive / ELO).rename(moved)
    clean.commit(at(12, 3), "move")
    report = verify_repository(clean.root)
    assert "deleted" in codes(report) and "invalid" in codes(report)  # its key no longer matches its path


def test_forecast_committed_after_kickoff_is_caught(before_match):
    clean = before_match
    late = forecast(
        "dixon_coles", model_version="dc-1", requested_at=KICKOFF, kickoff_utc=KICKOFF + timedelta(hours=1)
    )
    clean.tick(KICKOFF + timedelta(hours=1, minutes=5), late)  # the rescheduled kickoff was 20:00
    report = verify_repository(clean.root)
    [finding] = findings_for(report, "committed_after_kickoff")
    assert finding.path == path_for(late)
    assert "2026-06-11T20:00:00Z" in finding.message and "revision 1" in finding.message
    assert codes(report) == ["committed_after_kickoff"]


def test_forecast_committed_after_its_outcome_is_caught_even_when_backdated(clean):
    sneaky = forecast("ensemble", model_version="ens-1", requested_at=at(10, 20))
    clean.tick(at(10, 21), sneaky)  # dated before kickoff, but committed after the outcome
    report = verify_repository(clean.root)
    [finding] = findings_for(report, "committed_after_outcome")
    assert finding.path == path_for(sneaky) and "outcome.r000.json" in finding.message
    assert "committed_after_kickoff" not in codes(report)
    assert codes(report, violation=False) == ["commit_dates"]


def test_request_after_the_rescheduled_earlier_kickoff_is_caught(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    first = event()
    repo.tick(at(1), first)
    earlier = next_revision(first, event(kickoff_utc=at(10, 12)), reason="moved earlier", recorded_at=at(9))
    repo.tick(at(9), earlier)
    repo.tick(at(10, 13), forecast(requested_at=at(10, 12, 30)))  # built against the stale kickoff
    report = verify_repository(repo.root)
    assert codes(report) == ["committed_after_kickoff", "requested_after_kickoff"]


def test_broken_manifest_chain_is_caught(before_match):
    clean = before_match
    writer = ArchiveWriter(clean.archive)
    written = writer.write(forecast("market", model_version="m-1", requested_at=at(11, 10)))
    digest = hashlib.sha256((clean.archive / written).read_bytes()).hexdigest()
    previous = sorted((clean.archive / "manifests").glob("*/*.json"))[-1]
    forged = Manifest(
        recorded_at=at(11, 11),
        tick_at=at(11, 11),
        files={written: digest},
        previous=previous.relative_to(clean.archive).as_posix(),
        previous_sha256="0" * 64,
    )
    writer.write(forged)
    clean.commit(at(11, 11))
    report = verify_repository(clean.root)
    assert codes(report) == ["manifest_chain"]
    [finding] = findings_for(report, "manifest_chain")
    assert finding.path == path_for(forged) and "chain is broken" in finding.message


def test_manifest_hash_that_does_not_match_the_committed_bytes_is_caught(before_match):
    clean = before_match
    writer = ArchiveWriter(clean.archive)
    written = writer.write(forecast("market", model_version="m-1", requested_at=at(11, 10)))
    (clean.archive / written).write_bytes(record_bytes(forecast("market", model_version="m-2", requested_at=at(11, 10))))
    write_tick_manifest(writer, at(11, 11))  # hashes the file as it is now...
    (clean.archive / written).write_bytes(record_bytes(forecast("market", model_version="m-1", requested_at=at(11, 10))))
    clean.commit(at(11, 11))  # ...but different bytes are committed
    report = verify_repository(clean.root)
    assert codes(report) == ["manifest_hash"]


def test_record_that_no_longer_validates_is_caught(clean):
    target = clean.archive / ELO
    data = orjson.loads(target.read_bytes())
    data["payload"]["draw_90"] = 0.9  # probabilities no longer sum to 1
    target.write_bytes(orjson.dumps(data))
    clean.commit(at(12, 5), "hand edit")
    report = verify_repository(clean.root)
    assert codes(report) == ["invalid", "modified"]
    [invalid] = findings_for(report, "invalid")
    assert invalid.path == ELO and "at HEAD" in invalid.message and "sum to" in invalid.message


def test_invalid_file_committed_by_hand_is_caught(clean):
    bad = clean.archive / "worldcup-2026/events/x-v-y/event.r000.json"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"kind": "event", "schema_version": 1}')
    clean.commit(at(12, 6), "hand-added")
    report = verify_repository(clean.root)
    assert codes(report) == ["invalid"]
    assert codes(report, violation=False) == ["not_in_manifest"]


def test_broken_supersession_chain_is_caught(before_match):
    clean = before_match
    stray = event(kickoff_utc=KICKOFF + timedelta(hours=2)).model_copy(
        update={"revision": 3, "supersedes": "worldcup-2026/events/mex-v-rsa/event.r001.json", "change_reason": "?"}
    )
    clean.tick(at(11, 9), stray)
    report = verify_repository(clean.root)
    assert codes(report) == ["chain"]
    [finding] = findings_for(report, "chain")
    assert "revision 3" in finding.message and finding.path.endswith("event.r003.json")


def test_replay_records_are_labelled_and_never_counted_as_prospective(tmp_path, capsys):
    repo = GitRepo(tmp_path / "repo")
    replayed = {"clock": Clock.REPLAY}
    repo.tick(at(1), event(**replayed), clock=Clock.REPLAY)
    repo.tick(at(10, 19), forecast(**replayed), clock=Clock.REPLAY)
    repo.tick(KICKOFF + timedelta(hours=1), forecast("uniform", model_version="u", **replayed), clock=Clock.REPLAY)
    report = verify_repository(repo.root)
    assert report.files[ELO].replay
    [late] = report.violations
    assert late.code == "committed_after_kickoff" and late.replay
    assert main(["verify", "--repo", str(repo.root)]) == 1
    captured = capsys.readouterr()
    assert "0 live (prospective), 2 replay (simulated clock)" in captured.out
    assert ": committed_after_kickoff [replay]: " in captured.err


def test_not_a_repository_is_a_clear_error(tmp_path, capsys):
    assert main(["verify", "--repo", str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err


def test_cached_results_never_hide_a_later_edit(clean):
    assert verify_repository(clean.root).ok  # fills the cache in .git/prematch
    assert entry_keys(clean.root / ".git/prematch", FactsCache.KIND)
    target = clean.archive / ELO
    data = orjson.loads(target.read_bytes())
    data["payload"]["draw_90"] = 0.9
    target.write_bytes(orjson.dumps(data))
    clean.commit(at(12, 5), "hand edit")
    cached, fresh = verify_repository(clean.root), verify_repository(clean.root, use_cache=False)
    assert codes(cached) == codes(fresh) == ["invalid", "modified"]
    assert [f.message for f in cached.findings] == [f.message for f in fresh.findings]


def test_a_damaged_cache_is_rebuilt(clean):
    verify_repository(clean.root)
    folder = clean.root / ".git/prematch"
    forge_entries(folder / STORE_FILE, CHECKPOINT, lambda _value: b"{}")  # so the per-blob cache is read
    rewrite_entry(folder, FactsCache.KIND, contract_fingerprint(), lambda _value: b"{not json")
    assert verify_repository(clean.root).ok
    forge_entries(folder / STORE_FILE, CHECKPOINT, lambda _value: b"{}")
    planted = b'{"x": ["' + b"0" * 64 + b'", "planted problem", null]}'
    assert forge_entries(folder / STORE_FILE, FactsCache.KIND, lambda _value: planted) == 1
    again = verify_repository(clean.root)
    assert again.ok and any(f"{FactsCache.KIND} {contract_fingerprint()[:12]}: authentication failed" in note
                            for note in again.cache_notes), again.cache_notes


def test_a_merged_pull_request_counts_from_its_merge_into_main(before_match):
    repo = before_match
    repo.git("checkout", "-q", "-b", "pr")
    repo.tick(at(9), forecast("market", model_version="m-1", requested_at=at(9)))  # written early on a branch
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "merge", "pr", when=KICKOFF + timedelta(hours=3))
    report = verify_repository(repo.root)
    [late] = findings_for(report, "committed_after_kickoff")  # it reached main after kickoff
    assert "market" in late.path and "2026-06-11T22:00:00Z" in late.message


def test_a_shallow_clone_is_refused_with_a_clear_message(clean, tmp_path, capsys):
    shallow = tmp_path / "shallow"
    clean.git("clone", "-q", "--depth", "1", f"file://{clean.root}", str(shallow))
    assert main(["verify", "--repo", str(shallow)]) == 2
    assert "git fetch --unshallow" in capsys.readouterr().err


def test_a_result_dated_before_its_kickoff_is_caught(before_match):
    before_match.tick(at(11, 9), outcome())  # committed ten hours before the match began
    report = verify_repository(before_match.root)
    assert codes(report) == ["settled_before_kickoff"]
    assert findings_for(report, "settled_before_kickoff")[0].path.endswith("outcome.r000.json")


def test_an_unwritable_cache_location_does_not_stop_verify(clean):
    (clean.root / ".git" / "prematch").write_text("a file where the cache folder would go\n")
    assert verify_repository(clean.root).ok
    assert (clean.root / ".git" / "prematch").is_file()
