"""The pull-request guard: adding archive files passes; modifying, deleting or renaming fails."""

from __future__ import annotations

import pytest

from collector.cli import main
from tests.gitrepo import GitRepo, at, event, forecast

ELO = "archive/worldcup-2026/events/mex-v-rsa/forecasts/elo/closed_book.probabilistic_forecast.t_minus_24h.s0.json"


@pytest.fixture
def repo(tmp_path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event(), forecast("elo"))
    (repo.archive / "schema").mkdir()
    (repo.archive / "schema/event.schema.json").write_text("{}\n")
    repo.commit(at(1, 13), "schemas")
    repo.git("checkout", "-q", "-b", "pr")
    return repo


def guard(repo: GitRepo) -> int:
    return main(["guard", "--repo", str(repo.root), "--base", "main"])


def test_pull_request_that_only_adds_passes(repo, capsys):
    repo.tick(at(2), forecast("uniform", model_version="u-1"))
    (repo.archive / "schema/event.schema.json").write_text('{"regenerated": true}\n')
    repo.commit(at(2, 1), "schemas regenerated")
    assert guard(repo) == 0
    assert "2 archive file(s) added since main, none modified or deleted" in capsys.readouterr().out


def test_pull_request_that_modifies_or_deletes_fails(repo, capsys):
    target = repo.root / ELO
    target.write_bytes(target.read_bytes().replace(b"elo-1", b"elo-2"))
    (repo.archive / "worldcup-2026/events/mex-v-rsa/event.r000.json").unlink()
    repo.commit(at(2), "fix")
    assert guard(repo) == 1
    captured = capsys.readouterr()
    assert "guard: 2 problem(s) in the archive changes since main" in captured.out
    assert f"problem: {ELO}: this change modifies an existing archive file" in captured.err
    assert "event.r000.json: this change deletes an existing archive file" in captured.err
    assert all(line.startswith("problem: ") for line in captured.err.splitlines())


def test_rename_fails_and_main_moving_on_does_not_matter(repo, capsys):
    (repo.root / ELO.replace("/elo/", "/elo2/")).parent.mkdir(parents=True)
    repo.git("mv", ELO, ELO.replace("/elo/", "/elo2/"))
    repo.commit(at(2), "rename")
    repo.git("checkout", "-q", "main")
    repo.tick(at(3), forecast("market", model_version="m"))  # main advances; the PR is judged on its own diff
    repo.git("checkout", "-q", "pr")
    assert guard(repo) == 1
    err = capsys.readouterr().err
    assert "deletes" in err and "added file does not validate" in err and "belongs at" in err


def test_unknown_base_is_a_clear_error(repo, capsys):
    assert main(["guard", "--repo", str(repo.root), "--base", "no-such-branch"]) == 2
    err = capsys.readouterr().err
    assert err == f"prematch guard: --base no-such-branch: no such branch or commit in {repo.root}\n"


def test_time_stamp_tokens_may_be_added_never_changed(repo, capsys):
    """A token beside a manifest is not a record, but it is append-only like one."""
    manifest = next((repo.archive / "manifests").rglob("*.json"))
    token = manifest.with_name(manifest.stem + ".alpha.tsr")
    token.write_bytes(b"\x30\x03\x02\x01\x00")
    repo.commit(at(2), "token")
    assert guard(repo) == 0
    assert "1 archive file(s) added since main" in capsys.readouterr().out
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--ff-only", "pr")
    repo.git("checkout", "-q", "-b", "pr2")
    token.write_bytes(b"\x30\x03\x02\x01\x01")
    repo.commit(at(3), "rewrite the token")
    assert main(["guard", "--repo", str(repo.root), "--base", "main"]) == 1
    assert "modifies an existing archive file" in capsys.readouterr().err


def test_one_files_bytes_added_at_three_paths_fail_at_every_path_but_its_own(repo, capsys):
    repo.tick(at(2), forecast("uniform", model_version="u-1"))
    added = repo.root / ELO.replace("/elo/", "/uniform/")
    for other in ("copy-a", "copy-b"):
        twin = repo.root / ELO.replace("/elo/", f"/{other}/")
        twin.parent.mkdir(parents=True)
        twin.write_bytes(added.read_bytes())  # the same bytes: the same blob
    repo.commit(at(2, 1), "three identical files")
    assert guard(repo) == 1
    captured = capsys.readouterr()
    assert "guard: 2 problem(s)" in captured.out
    problems = captured.err.splitlines()
    assert [p.split(": ", 2)[1] for p in problems] == [ELO.replace("/elo/", f"/{o}/") for o in ("copy-a", "copy-b")]
    assert all("added file does not validate" in p and "belongs at" in p for p in problems)
