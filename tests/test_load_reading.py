"""How load_archive reads files (a worker process, or the read-ahead thread) changes nothing it reports:
the same records in the same order, the same problems, and hashes of the very bytes on disk."""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

import pytest

from collector.archive import fileread, reader
from collector.archive.reader import load_archive
from tests.factories import synthetic_records, write_records

VANISHED = "wc/vanished.json"  # listed by the scan, gone when read
FOLDER = "wc/folder.json"  # a folder where the scan saw a file


def _damaged(root: Path) -> None:
    """Valid records, bad JSON, a record at another key's path, a link; a vanished file and a folder are
    slipped into the scan's list below (a file that changed between the scan and the read)."""
    written = write_records(root, synthetic_records(n_events=2, n_models=2, seed=3))
    (root / "wc").mkdir()
    (root / "wc" / "broken.json").write_bytes(b"{not json")
    (root / "wc" / "moved.json").write_bytes((root / written[-1]).read_bytes())
    (root / "wc" / "link.json").symlink_to(root / "wc" / "broken.json")
    (root / FOLDER).mkdir()


@pytest.fixture
def damaged(archive_dir, monkeypatch) -> Path:
    _damaged(archive_dir)
    scan = reader.scan_record_files

    def with_races(root):
        paths, problems = scan(root)
        return sorted(paths + [VANISHED, FOLDER]), problems

    monkeypatch.setattr(reader, "scan_record_files", with_races)
    return archive_dir


def _load(root: Path, monkeypatch, worker: bool):
    monkeypatch.setattr(reader, "WORKER_FILES", 1 if worker else 10**9)
    monkeypatch.setattr(reader, "READ_BATCH", 3)  # the thread reads ahead in several batches
    return load_archive(root)


def _messages(archive) -> list[tuple[str, str]]:
    """Problems as (path, message), the folder's descriptor number left out (it is any free one)."""
    return [(p.path, re.sub(r"Is a directory: \d+$", "Is a directory: N", p.message)) for p in archive.problems]


def test_the_worker_and_the_thread_load_the_same_records_problems_and_hashes(damaged, monkeypatch):
    by_worker = _load(damaged, monkeypatch, worker=True)
    by_thread = _load(damaged, monkeypatch, worker=False)
    assert len(by_worker.records) > 10
    assert list(by_worker.records) == list(by_thread.records)
    assert list(by_worker.records.values()) == list(by_thread.records.values())
    assert _messages(by_worker) == _messages(by_thread)
    assert by_worker.sha256 == by_thread.sha256
    messages = dict(_messages(by_worker))
    assert messages[VANISHED] == f"cannot read: [Errno 2] No such file or directory: '{damaged / VANISHED}'"
    assert messages[FOLDER] == "cannot read: [Errno 21] Is a directory: N"
    assert messages["wc/link.json"].startswith("is a symlink")
    assert messages["wc/broken.json"].startswith("field (record): Invalid JSON")
    assert messages["wc/moved.json"].startswith("record belongs at ")


@pytest.mark.slow
def test_every_hash_is_the_sha256_of_the_bytes_on_disk_valid_or_not(damaged, monkeypatch):
    for worker in (True, False):
        archive = _load(damaged, monkeypatch, worker)
        on_disk = {p: hashlib.sha256((damaged / p).read_bytes()).hexdigest() for p in archive.sha256}
        assert archive.sha256 == on_disk
        assert "wc/broken.json" in archive.sha256  # read, so hashed, though invalid
        assert VANISHED not in archive.sha256 and FOLDER not in archive.sha256  # never read


def test_the_worker_itself_delivers_every_file_in_order(archive_dir):
    write_records(archive_dir, synthetic_records(n_events=1, n_models=1, seed=5))
    paths = reader.iter_record_files(archive_dir)
    delivered = list(fileread.worker_reads(str(archive_dir), paths))
    assert [relative for relative, _, _ in delivered] == paths
    for relative, data, digest in delivered:
        assert data == (archive_dir / relative).read_bytes()
        assert digest == hashlib.sha256(data).hexdigest()


def test_a_worker_that_cannot_start_leaves_every_file_to_the_thread(damaged, monkeypatch):
    expected = _load(damaged, monkeypatch, worker=False)
    monkeypatch.setattr(sys, "executable", str(damaged / "no-such-python"))
    assert list(fileread.worker_reads(str(damaged), ["a.json"])) == []
    archive = _load(damaged, monkeypatch, worker=True)
    assert list(archive.records) == list(expected.records) and archive.sha256 == expected.sha256
    assert _messages(archive) == _messages(expected)


def test_a_worker_that_stops_halfway_leaves_the_rest_to_the_thread(damaged, monkeypatch, tmp_path):
    expected = _load(damaged, monkeypatch, worker=False)
    script = tmp_path / "half_worker.py"  # serves the first four files, then exits
    script.write_text(f"import sys\nsys.path.insert(0, {str(Path(fileread.__file__).parents[2])!r})\n"
                      "from collector.archive.fileread import serve\n"
                      "root, *names = sys.stdin.buffer.read().split(b'\\0')\n"
                      "serve(root, names[:4], open(sys.stdout.fileno(), 'wb'))\n")
    monkeypatch.setattr(fileread, "worker_command", lambda: [sys.executable, str(script)])
    paths = reader.scan_record_files(damaged)[0]
    assert len(list(fileread.worker_reads(str(damaged), paths))) == 4
    archive = _load(damaged, monkeypatch, worker=True)
    assert list(archive.records) == list(expected.records) and archive.sha256 == expected.sha256
    assert _messages(archive) == _messages(expected)
