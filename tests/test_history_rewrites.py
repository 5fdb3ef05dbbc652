"""History rewrites seen (issue 53): a forecast inserted before kickoff and the rest rebased, with its dates.

The original history is time-stamped (``tests/tsa_authority.py``) and verified once; then a live
forecast is committed back-dated before the kickoff and the later commits are rebased onto it
with their own dates, so every commit date still agrees with every other. ``verify`` fails it:
given the clone's own checkpoint, ``--checkpoint`` with the original HEAD, or ``--anchor`` with
the manifest hash and commit the site published, each naming the missing commit; and even
without them, for the forecast no manifest lists and no token covers while later ones do.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from collector.archive.write.manifest import latest_manifest_path, sha256_file
from collector.archive.write.writer import ArchiveWriter
from collector.cli import main
from tests.gitrepo import KICKOFF, GitRepo, at, event, forecast, outcome
from tests.test_timestamps import EARLY, YEAR, make_chain, stamp

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

INSERTED = "worldcup-2026/events/mex-v-rsa/forecasts/hindsight/closed_book.probabilistic_forecast.t_minus_24h.s0.json"


@pytest.fixture(scope="module")
def alpha():
    return make_chain("Alpha", EARLY, EARLY + 3 * YEAR)


@pytest.fixture
def original(tmp_path, alpha):
    """Event, a forecast the day before, the outcome: each tick's manifest stamped by ``alpha``."""
    (tmp_path / "roots").mkdir()
    (tmp_path / "roots" / "alpha.pem").write_bytes(alpha.root_pem())  # one file per authority
    repo = GitRepo(tmp_path / "repo")
    for when, records in ((at(1), [event()]), (at(10, 19), [forecast("elo")]), (at(12, 1), [outcome()])):
        repo.tick(when, *records)
        stamp(repo, "alpha", alpha, when + timedelta(minutes=1))
        repo.commit(when + timedelta(minutes=2), "token")
    return repo


def verify(repo: GitRepo, *options: str) -> int:
    return main(["verify", "--repo", str(repo.root), "--tsa-roots", str(repo.root.parent / "roots"), *options])


def rebase_with_a_backdated_forecast(repo: GitRepo) -> str:
    """Insert a live forecast committed before kickoff after the forecast tick; rebase the rest, dates kept.
    Returns the first original commit the new history no longer holds (the outcome's tick)."""
    log = repo.git("log", "--format=%H", "--reverse").split()
    kept, later = log[3], log[4]  # the forecast tick's token commit; the outcome's tick
    repo.git("checkout", "-q", "-b", "rewrite", kept)
    ArchiveWriter(repo.archive).write(forecast("hindsight", model_version="h-1", requested_at=KICKOFF - timedelta(hours=3)))
    repo.commit(KICKOFF - timedelta(hours=2), "a forecast, back-dated")
    repo.git("rebase", "-q", "--committer-date-is-author-date", "--onto", "rewrite", kept, "main")
    return later


def test_the_rebased_backdated_history_fails_verify_naming_the_missing_commit(original, capsys):
    assert verify(original) == 0  # the clone notes the HEAD it verified
    head = original.git("rev-parse", "HEAD").strip()
    manifest = latest_manifest_path(original.archive)
    anchor = f"{sha256_file(original.archive / manifest)}@{head}"  # what the site's Audit page shows
    first_missing = rebase_with_a_backdated_forecast(original)
    assert original.git("log", "-1", "--format=%cI").strip() == "2026-06-12T01:02:00+00:00"  # the dates kept
    capsys.readouterr()

    assert verify(original) == 1  # the clone's own note of what it verified
    err = capsys.readouterr().err
    assert (f"problem: (history): history_rewritten: commit {head} (verified here before) is no longer in the "
            f"history of HEAD") in err
    assert f"the first of its commits missing from HEAD's history is {first_missing}" in err

    assert verify(original, "--no-cache", "--checkpoint", head[:12]) == 1  # a commit noted anywhere
    assert f"history_rewritten: commit {head[:12]} (given as --checkpoint) is no longer" in capsys.readouterr().err

    assert verify(original, "--no-cache", "--anchor", anchor) == 1  # the published anchor
    err = capsys.readouterr().err
    assert f"anchor_commit_missing: commit {head} (named by the anchor {anchor[:16]}) is no longer" in err

    assert verify(original, "--no-cache") == 1  # and with neither: the forecast outside the manifests and tokens
    err = capsys.readouterr().err
    assert f"problem: {INSERTED}: not_in_manifest: commit " in err and "would have adopted them" in err
    assert f"problem: {INSERTED}: no_token: no manifest lists it, so no valid time-stamp token covers it, while a " \
           "later manifest (commit " in err


def test_the_audit_page_shows_the_anchor_that_holds_the_repository_to_its_history(original, tmp_path, capsys):
    import re

    from builder.cli import main as builder_main

    assert builder_main(["build", "--archive", str(original.archive), "--out", str(tmp_path / "site"), "--quiet"]) == 0
    page = (tmp_path / "site" / "audit" / "index.html").read_text()
    manifest = latest_manifest_path(original.archive)
    added = original.git("log", "--format=%H", "--diff-filter=A", "--", f"archive/{manifest}").strip()
    anchor = f"{sha256_file(original.archive / manifest)}@{added}"
    assert f"--anchor {anchor}" in page and manifest in page and "by alpha" in page
    assert re.findall(r"--anchor ([0-9a-f]{64}@[0-9a-f]{40})", page) == [anchor]
    assert verify(original, "--no-cache", "--anchor", anchor) == 0
    rebase_with_a_backdated_forecast(original)
    assert verify(original, "--no-cache", "--anchor", anchor) == 1
    assert f"anchor_commit_missing: commit {added}" in capsys.readouterr().err


def test_an_anchor_whose_commit_is_in_the_history_passes_and_an_older_checkout_is_no_rewrite(original, capsys):
    head = original.git("rev-parse", "HEAD").strip()
    anchor = f"{sha256_file(original.archive / latest_manifest_path(original.archive))}@{head}"
    assert verify(original, "--anchor", anchor, "--checkpoint", head) == 0
    original.git("checkout", "-q", "HEAD~2")  # an older state of the same history (e.g. to compare a site)
    assert verify(original) == 0
    original.git("checkout", "-q", "main")
    assert verify(original) == 0
