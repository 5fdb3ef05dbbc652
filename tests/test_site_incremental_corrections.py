"""Incremental builds after corrections: a record's new revision (an outcome, an event, a match
report, the competition) or a hand-edited or deleted file in the working tree gives the same
site as a full build, and the match's page changes wherever it shows what was corrected.

The page cache names a match page's inputs before its model is built
(``builder/site/pageinputs.py``); a record left out of those inputs would leave a stale page
in the cached build, and the comparison with a build without the cache finds it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from builder.site.build import build_site
from builder.site.provenance import ArenaUrls
from collector.archive.layout import path_for
from collector.archive.reader import Archive, load_archive
from collector.archive.write.writer import ArchiveWriter
from collector.cli import main as collector
from collector.records import Score

CID, EID = "worldcup-2026", "mex-v-rsa"
PAGE = f"matches/{CID}/{EID}.html"
URLS = ArenaUrls("https://github.com/example/arena")  # records linked on the host, as in the workflow
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}


@pytest.fixture(scope="module")
def replay_repo(data_dir, tmp_path_factory):
    repo = tmp_path_factory.mktemp("corrections") / "replay"
    code = collector(["replay", CID, "--out", str(repo), "--data-dir", str(data_dir), "--until", "2026-06-13T00:00:00Z"])
    assert code == 0
    return repo


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _commit(repo: Path, message: str) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", message], check=True, env=env)


def _revise(repo: Path, record, **changes) -> None:
    """Write the next revision of ``record`` with ``changes`` (validated as the reader would) and commit it."""
    new = record.model_copy(update={"revision": record.revision + 1, "supersedes": path_for(record),
                                    "change_reason": "a correction", **changes})
    ArchiveWriter(repo / "archive").write(type(record).model_validate_json(new.model_dump_json()))
    _commit(repo, f"{record.kind} corrected")


def _outcome(repo: Path, archive: Archive) -> None:
    _revise(repo, archive.outcomes[(CID, EID)], score_90=Score(home=4, away=0), goals=None)


def _scorer(repo: Path, archive: Archive) -> None:
    """A goal credited to another player: the score, and so every forecast's scores, unchanged."""
    outcome = archive.outcomes[(CID, EID)]
    first, *rest = outcome.goals
    _revise(repo, outcome, goals=(first.model_copy(update={"scorer": "A. Corrected"}), *rest))


def _event(repo: Path, archive: Archive) -> None:
    _revise(repo, archive.events[(CID, EID)], venue="A corrected venue")


def _match_report(repo: Path, archive: Archive) -> None:
    _revise(repo, archive.match_reports[(CID, EID)], home_formation=None, away_formation=None)


def _competition(repo: Path, archive: Archive) -> None:
    competition = archive.competitions[CID]
    teams = tuple(t.model_copy(update={"name": f"{t.name} (renamed)"}) if t.id == "mex" else t for t in competition.teams)
    _revise(repo, competition, teams=teams)


def _forecast_file(repo: Path) -> Path:
    return min((repo / "archive" / CID / "events" / EID / "forecasts" / "elo").glob("*.json"))


def _edited_in_the_working_tree(repo: Path, archive: Archive) -> None:
    path = _forecast_file(repo)
    path.write_bytes(path.read_bytes().replace(b'"clock": "replay"', b'"clock": "edited"'))  # now invalid


def _deleted_from_the_working_tree(repo: Path, archive: Archive) -> None:
    _forecast_file(repo).unlink()


CORRECTIONS: dict[str, tuple[Callable[[Path, Archive], None], bool]] = {
    # name: (the correction, whether the match page shows it: the replay's baselines make no
    # fine-grained forecasts, so the page has no fine-grained section to show the match report in)
    "outcome": (_outcome, True), "scorer": (_scorer, True), "event": (_event, True), "match report": (_match_report, False),
    "competition": (_competition, True), "edited file": (_edited_in_the_working_tree, True),
    "deleted file": (_deleted_from_the_working_tree, True),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CORRECTIONS))
def test_a_cached_build_after_a_correction_equals_a_full_build(replay_repo, tmp_path, name):
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(replay_repo), str(repo)], check=True)
    cache, quiet = tmp_path / "cache", (lambda _line: None)
    build_site(repo / "archive", tmp_path / "inc", progress=quiet, cache=cache, urls=URLS)
    before = _tree(tmp_path / "inc")
    assert (repo / "archive" / CID / "events" / EID / "outcome.r000.json").is_file()  # a played match

    correct, shown = CORRECTIONS[name]
    correct(repo, load_archive(repo / "archive"))
    cached = build_site(repo / "archive", tmp_path / "inc", progress=quiet, cache=cache, urls=URLS)
    build_site(repo / "archive", tmp_path / "full", progress=quiet, urls=URLS)

    inc, full = _tree(tmp_path / "inc"), _tree(tmp_path / "full")
    assert sorted(k for k in inc.keys() | full.keys() if inc.get(k) != full.get(k)) == []
    assert (inc[PAGE] != before[PAGE]) is shown  # the correction shows on the match's page (if it can)
    assert 0 < cached.rendered < cached.pages  # and the cache was used: not every page was rendered again
