"""What the forecast path's cheaper steps still guarantee (issue 21): a claim is released once, by
whichever thread asks first, and the writer's folders are made when missing and never followed
through a link. Speed itself is measured by benchmarks/collector_throughput.py, never here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from collector.archive.write.writer import open_folder, write_new_file
from collector.errors import ArchiveError, RecordExistsError
from collector.schedule.claims import Claim
from collector.schedule.scheduler import KeyLocks


class Slot:
    path = "wc/events/a/forecasts/m/closed_book.direct_score.t_minus_24h.s0.json"


def test_a_second_release_leaves_another_ticks_newer_claim_alone(tmp_path):
    ours, theirs = KeyLocks(tmp_path / "locks"), KeyLocks(tmp_path / "locks")
    lock = tmp_path / "locks" / (Slot.path + ".lock")
    assert ours.claim(Slot)
    release = Claim(ours, Slot)
    release()  # the writer thread, right after the record was written
    assert not lock.exists()
    assert theirs.claim(Slot)  # another tick takes the key (it will find the record and skip it)
    release()  # ``_produce`` on its way out
    assert lock.exists()


def test_a_release_that_never_reached_the_writer_still_frees_the_key(tmp_path):
    locks = KeyLocks(tmp_path / "locks")
    assert locks.claim(Slot)
    Claim(locks, Slot)()  # deferred, failed or cancelled before the write: released on the way out
    assert not (tmp_path / "locks" / (Slot.path + ".lock")).exists()
    assert locks.claim(Slot)


def test_the_writer_makes_a_missing_root_and_folders_and_keeps_the_bytes(tmp_path):
    root = tmp_path / "new" / "archive"
    target = root / "wc" / "events" / "a" / "event.r000.json"
    write_new_file(target, b'{"a": 1}\n', root)
    assert target.read_bytes() == b'{"a": 1}\n'
    write_new_file(target.with_name("outcome.r000.json"), b"{}\n", root)  # the folders exist now
    assert sorted(p.name for p in target.parent.iterdir()) == ["event.r000.json", "outcome.r000.json"]
    with pytest.raises(RecordExistsError):
        write_new_file(target, b"other\n", root)
    assert target.read_bytes() == b'{"a": 1}\n'


def test_a_linked_or_file_part_is_refused_by_name_and_nothing_is_written_through_it(tmp_path):
    root, outside = tmp_path / "archive", tmp_path / "outside"
    (root / "wc").mkdir(parents=True)
    outside.mkdir()
    (root / "wc" / "events").symlink_to(outside)
    with pytest.raises(ArchiveError, match="wc/events: is a symlink or not a folder"):
        write_new_file(root / "wc" / "events" / "a" / "event.r000.json", b"{}\n", root)
    assert list(outside.iterdir()) == []
    (root / "xy").write_text("a file")
    with pytest.raises(ArchiveError, match="xy: is a symlink or not a folder"):
        open_folder(root, ["xy", "a"], create=True)
    with pytest.raises(FileNotFoundError):
        open_folder(root, ["missing"], create=False)
    with pytest.raises(FileNotFoundError):
        open_folder(tmp_path / "no-root", [], create=False)
    fd = open_folder(root, ["wc", "made", "here"], create=True)
    os.close(fd)
    assert Path(root / "wc" / "made" / "here").is_dir()
