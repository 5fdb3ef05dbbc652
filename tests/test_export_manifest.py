"""The archive manifest export takes the hashes of the bytes the reader loaded; it reads only the rest."""

from __future__ import annotations

import hashlib

import orjson

from builder.site.exports import archive_manifest
from collector.archive.reader import load_archive
from tests.site_archive import write_site_archive


def test_manifest_from_load_hashes_equals_a_manifest_that_rereads_everything(tmp_path):
    root = write_site_archive(tmp_path / "archive")
    (root / "manifests").mkdir(exist_ok=True)
    (root / "manifests" / "note.tsr").write_bytes(b"not a record: hashed by the export itself")
    event = next(root.glob("*/events/*/event.r000.json"))
    broken = event.parent.parent / "broken" / "event.r000.json"
    broken.parent.mkdir()
    broken.write_bytes(b'{"kind": "event", "id": 7}')
    archive = load_archive(root)
    assert [p.path for p in archive.problems] == [broken.relative_to(root).as_posix()]
    assert broken.relative_to(root).as_posix() in archive.sha256  # a file left out is hashed all the same
    assert archive_manifest(root, "c", archive.sha256) == archive_manifest(root, "c")
    listed = orjson.loads(archive_manifest(root, "c", archive.sha256))["files"]
    assert listed["manifests/note.tsr"] == hashlib.sha256((root / "manifests/note.tsr").read_bytes()).hexdigest()
    assert len(listed) == sum(1 for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def test_manifest_names_the_bytes_the_site_was_built_from(tmp_path):
    root = write_site_archive(tmp_path / "archive")
    archive = load_archive(root)
    path = next(iter(archive.records))
    loaded = hashlib.sha256((root / path).read_bytes()).hexdigest()
    (root / path).write_bytes(b'{"edited": "after the load"}')
    assert orjson.loads(archive_manifest(root, "c", archive.sha256))["files"][path] == loaded
