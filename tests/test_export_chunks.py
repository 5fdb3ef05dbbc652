"""After a tick (new records: the downloads' fingerprint changed), the chunks of the forecasts
table whose records did not change, and those of the scores table whose rows did not change, are
copied from the previous site's CSV, JSON and SQLite, and only the others' rows are written: the
downloads are the bytes of a build without a cache all the same."""

from __future__ import annotations

import shutil

import orjson
import pytest
from site_archive import write_site_archive

from builder.site import exportchunks
from builder.site.build import build_site
from builder.site.exportchunks import by_content, chunk_bounds
from builder.site.exports import clean_rows, export_files
from builder.site.tables import Table


def _tree(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _quiet(_line: str) -> None:
    pass


@pytest.fixture
def made(monkeypatch) -> list[int]:
    """Small chunks (many of them in a small archive), built in this process; the rows of each
    chunk made afresh (not copied) are counted."""
    monkeypatch.setattr(exportchunks, "SPAN", 3)
    monkeypatch.setenv("PREMATCH_BUILD_WORKERS", "1")
    counts: list[int] = []
    real = exportchunks.csv_bytes

    def counted(rows):
        counts.append(len(rows))
        return real(rows)

    monkeypatch.setattr(exportchunks, "csv_bytes", counted)
    return counts


@pytest.fixture
def ticked(tmp_path):
    """An archive and, kept aside, two of its forecast records (the tick brings them back)."""
    archive = write_site_archive(tmp_path / "archive")
    forecasts = sorted(p for p in (archive / "worldcup-2026").rglob("*.json") if "forecasts" in p.parts)
    aside = tmp_path / "aside"
    aside.mkdir()
    tick = [forecasts[1], forecasts[len(forecasts) // 2]]
    for i, path in enumerate(tick):
        shutil.move(path, aside / str(i))
    return archive, aside, tick


def _keyed_rows(site) -> int:
    """The rows of the tables written by chunks (forecasts, scores)."""
    return sum(len(orjson.loads((site / f"data/{name}.json").read_bytes())) for name in ("forecasts", "scores"))


@pytest.mark.slow
def test_a_tick_copies_the_unchanged_chunks_and_gives_the_bytes_of_a_full_build(ticked, tmp_path, made):
    archive, aside, tick = ticked
    site, cache, full = tmp_path / "site", tmp_path / "cache", tmp_path / "full"
    build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
    assert sum(made) == _keyed_rows(site)  # the first build made every row
    for i, path in enumerate(tick):
        shutil.move(aside / str(i), path)
    made.clear()
    build_site(archive, site, commit="c2", progress=_quiet, cache=cache)
    rows = _keyed_rows(site)
    assert 2 <= sum(made) < rows / 2  # the chunks the two records (and their scores) landed in, not the tables
    build_site(archive, full, commit="c2", progress=_quiet)
    assert _tree(site) == _tree(full)


@pytest.mark.slow
def test_an_edited_record_or_an_altered_download_is_never_copied(ticked, tmp_path, made):
    archive, _aside, _tick = ticked
    site, cache, full = tmp_path / "site", tmp_path / "cache", tmp_path / "full"
    build_site(archive, site, commit="c1", progress=_quiet, cache=cache)
    forecast = sorted(p for p in (archive / "worldcup-2026").rglob("*.json") if "forecasts" in p.parts)[0]
    forecast.write_bytes(orjson.dumps(orjson.loads(forecast.read_bytes()), option=orjson.OPT_INDENT_2))
    build_site(archive, site, commit="c2", progress=_quiet, cache=cache)
    build_site(archive, full, commit="c2", progress=_quiet)
    assert _tree(site) == _tree(full)
    csv = site / "data/forecasts.csv"
    csv.write_bytes(csv.read_bytes().replace(b",", b";"))  # same size, other bytes: not the previous build's
    made.clear()
    build_site(archive, site, commit="c3", progress=_quiet, cache=cache)
    assert sum(made) >= len(orjson.loads((site / "data/forecasts.json").read_bytes()))  # every forecast row made
    build_site(archive, full, commit="c3", progress=_quiet)
    assert _tree(site) == _tree(full)


def test_a_cut_between_chunks_depends_on_its_row_alone():
    paths = [f"worldcup-2026/forecasts/m{i:05d}.json" for i in range(20_000)]
    before = chunk_bounds(paths, 10_000)
    after = chunk_bounds(paths[:5000] + ["worldcup-2026/forecasts/m05000a.json"] + paths[5000:], 10_000)
    cuts = {paths[start] for start, _ in before}
    moved = {(paths[:5000] + ["worldcup-2026/forecasts/m05000a.json"] + paths[5000:])[start] for start, _ in after}
    assert len(cuts) > 10 and len(cuts ^ moved) <= 1
    assert max(end - start for start, end in chunk_bounds(paths, 50)) <= 50


def test_a_table_cut_by_content_keys_an_unchanged_run_of_rows_alike_and_an_odd_value_never(monkeypatch):
    monkeypatch.setattr(exportchunks, "SPAN", 4)
    rows = [(f"m{i:04d}", i % 3, 0.5 * i) for i in range(400)]

    def keys(rows) -> list[str]:
        table = Table("t", (("a", "TEXT"), ("b", "INTEGER"), ("c", "REAL")), rows, "", cut=lambda row: row[0].encode())
        return [key for key, _, _ in by_content(table, clean_rows, 50)]

    before, after = keys(rows), keys(rows[:200] + [("m0199b", 1, 0.0)] + rows[200:])
    assert len(before) > 20 and len(set(before) - set(after)) == 1
    assert keys([("m", 1.0, 1)]) != keys([("m", 1, 1.0)])
    assert keys([("m", object(), 1)]) == [""]


def _keyed(rows, columns=(("path", "TEXT"), ("n", "INTEGER"))) -> Table:
    return Table("t", columns, rows, "", keys=[(row[0], "sha-" + row[0]) for row in rows])


def _previous(folder):
    index = orjson.loads((folder / exportchunks.INDEX).read_bytes())
    return exportchunks.PreviousFiles(folder / "data/prematch.sqlite", {
        name: (folder / f"data/{name}.csv", folder / f"data/{name}.json", exportchunks.parse_chunks(entries))
        for name, entries in index.items()})


def test_keyed_tables_empty_or_of_other_columns_are_written_as_plain_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(exportchunks, "SPAN", 2)
    rows = [(f"p{i:03d}", i) for i in range(50)]
    export_files([_keyed(rows)], tmp_path / "archive", "c", workdir=tmp_path / "one")
    other = (("path", "TEXT"), ("n", "INTEGER"), ("m", "REAL"))  # the same keys, another column: nothing is copied
    for table in (_keyed([row + (0.5,) for row in rows], other), _keyed([])):
        made = export_files([table], tmp_path / "archive", "c", workdir=tmp_path / "two", previous=_previous(tmp_path / "one"))
        plain = export_files([Table("t", table.columns, table.rows, "")], tmp_path / "archive", "c")
        assert {name: path.read_bytes() for name, path in made.items()} == plain
