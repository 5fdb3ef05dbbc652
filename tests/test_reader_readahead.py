"""load_archive reads files ahead in batches on a helper thread: same records, same order, same problems."""

from __future__ import annotations

from collector.archive import reader
from collector.archive.reader import load_archive
from tests.factories import synthetic_records, write_records


def test_batched_read_ahead_loads_the_same_archive_as_one_batch(archive_dir, monkeypatch):
    write_records(archive_dir, synthetic_records(n_events=3, n_models=2, seed=7))
    (archive_dir / "wc" / "broken.json").parent.mkdir(parents=True, exist_ok=True)
    (archive_dir / "wc" / "broken.json").write_bytes(b"{not json")
    (archive_dir / "wc" / "gone.json").symlink_to(archive_dir / "nowhere.json")
    whole = load_archive(archive_dir)
    monkeypatch.setattr(reader, "READ_BATCH", 3)
    batched = load_archive(archive_dir)
    assert len(whole.records) > 3 * 3
    assert list(batched.records) == list(whole.records)
    assert list(batched.records.values()) == list(whole.records.values())
    assert [str(p) for p in batched.problems] == [str(p) for p in whole.problems]
    messages = {p.path: p.message for p in batched.problems}
    assert messages["wc/gone.json"].startswith("is a symlink")  # never followed, dangling or not
    assert "wc/broken.json" in messages
