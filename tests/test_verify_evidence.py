"""``verify`` on evidence packages: a clean history passes, and each way of tampering is reported."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest

from collector.archive.layout import path_for
from collector.audit.verify import verify_repository
from collector.records import (
    Access,
    BookQuote,
    Evidence,
    EvidenceRef,
    Horizon,
    NewsDigest,
    NewsItem,
    OddsPart,
    OddsSnapshot,
    OutcomePrice,
)
from collector.records.byteform import record_bytes
from tests.gitrepo import KICKOFF, GitRepo, at, event, forecast, outcome

LOCK = KICKOFF - timedelta(hours=24)
EVIDENCE_CODES = {"evidence_missing", "evidence_committed_after", "evidence_hash", "evidence_edited",
                  "evidence_lock", "evidence_late_item"}


def package(published=None) -> Evidence:
    news = NewsDigest(gatherer="news-gatherer", model="test/gatherer", requested_items=1, status="ok", items=(
        NewsItem(url="https://news.example.org/1", title="Team news", published_at=published or LOCK - timedelta(hours=5),
                 summary="Squad update", retrieved_at=LOCK),))  # fmt: skip
    return Evidence(recorded_at=LOCK, competition_id="worldcup-2026", event_id="mex-v-rsa",
                    horizon=Horizon.T_MINUS_24H, kickoff_utc=KICKOFF, locks_at=LOCK, home_team="mex",
                    away_team="rsa", news=news)  # fmt: skip


def ref(record: Evidence, sha256: str | None = None) -> EvidenceRef:
    return EvidenceRef(path=path_for(record), sha256=sha256 or hashlib.sha256(record_bytes(record)).hexdigest())


def used(record: Evidence, **changes):
    requested = changes.pop("requested_at", LOCK + timedelta(minutes=1))
    return forecast("test.model", access=Access.EVIDENCE_PACKAGE, requested_at=requested,
                    evidence=changes.pop("evidence", ref(record)), **changes)


def history(tmp_path, *, late_commit=False, sha256=None, published=None, edit=False) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event())
    record = package(published)
    the_forecast = used(record, evidence=ref(record, sha256))
    if late_commit:
        repo.tick(LOCK + timedelta(minutes=2), the_forecast)
        repo.tick(LOCK + timedelta(minutes=3), record)
    else:
        repo.tick(LOCK + timedelta(minutes=2), record, the_forecast)
    if edit:
        target = repo.archive / path_for(record)
        target.write_bytes(target.read_bytes().replace(b"Squad update", b"Star striker injured"))
        repo.commit(LOCK + timedelta(hours=1), "edit the package")
    repo.tick(at(12, 1), outcome())
    return repo


def evidence_findings(repo):
    report = verify_repository(repo.root, use_cache=False)
    return {f.code: f for f in report.findings if f.code in EVIDENCE_CODES}


def test_a_clean_history_has_no_evidence_finding(tmp_path):
    assert evidence_findings(history(tmp_path)) == {}


def test_an_edited_package_is_reported_on_the_forecast_and_as_a_modified_file(tmp_path):
    repo = history(tmp_path, edit=True)
    found = evidence_findings(repo)
    assert set(found) == {"evidence_edited"}
    assert found["evidence_edited"].path.endswith("evidence_package.probabilistic_forecast.t_minus_24h.s0.json")
    report = verify_repository(repo.root, use_cache=False)
    assert any(f.code == "modified" and "/evidence/" in f.path for f in report.findings)


def test_a_package_committed_after_the_forecast_is_reported(tmp_path):
    found = evidence_findings(history(tmp_path, late_commit=True))
    assert set(found) == {"evidence_committed_after"}
    assert "after the forecast" in found["evidence_committed_after"].message


@pytest.mark.slow
def test_a_hash_that_is_not_the_package_files_is_reported(tmp_path):
    found = evidence_findings(history(tmp_path, sha256="0" * 64))
    assert set(found) == {"evidence_hash"} and "0" * 64 in found["evidence_hash"].message


def test_a_news_item_published_after_the_lock_is_reported(tmp_path):
    found = evidence_findings(history(tmp_path, published=LOCK + timedelta(minutes=1)))
    assert set(found) == {"evidence_late_item"}
    assert found["evidence_late_item"].path.endswith("/evidence/t_minus_24h.json")
    assert "https://news.example.org/1" in found["evidence_late_item"].message


def test_a_forecast_naming_a_package_that_is_not_there_is_reported(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event())
    repo.tick(LOCK + timedelta(minutes=2), used(package()))
    found = evidence_findings(repo)
    assert set(found) == {"evidence_missing"}


def test_a_request_before_the_package_locked_is_reported(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event())
    record = package()
    repo.tick(LOCK + timedelta(minutes=2), record, used(record, requested_at=LOCK - timedelta(minutes=5)))
    assert set(evidence_findings(repo)) == {"evidence_lock"}


def odds_snapshot() -> OddsSnapshot:
    prices = tuple(OutcomePrice(outcome=o, odds=x) for o, x in (("home", 2.1), ("draw", 3.4), ("away", 3.9)))
    return OddsSnapshot(recorded_at=LOCK - timedelta(minutes=1), competition_id="worldcup-2026", event_id="mex-v-rsa",
                        horizon=Horizon.T_MINUS_24H, source="the-odds-api", endpoint="/v4/sports/x/odds",
                        retrieved_at=LOCK - timedelta(minutes=1), kickoff_utc=KICKOFF,
                        quotes=(BookQuote(bookmaker="pinnacle", prices=prices),))  # fmt: skip


def with_odds(snapshot: OddsSnapshot, sha256: str | None = None) -> Evidence:
    digest = sha256 or hashlib.sha256(record_bytes(snapshot)).hexdigest()
    part = OddsPart(snapshot_path=path_for(snapshot), snapshot_sha256=digest, source=snapshot.source,
                    retrieved_at=snapshot.retrieved_at, books=1, probabilities=(0.46, 0.29, 0.25))
    return package().model_copy(update={"odds": part})


def odds_history(tmp_path, *, sha256=None, late=False, edit=False, missing=False) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event())
    snapshot = odds_snapshot()
    record = with_odds(snapshot, sha256)
    if not (late or missing):
        repo.tick(LOCK - timedelta(minutes=1), snapshot)
    repo.tick(LOCK + timedelta(minutes=2), record, used(record))
    if late:
        repo.tick(LOCK + timedelta(minutes=3), snapshot)
    if edit:
        target = repo.archive / path_for(snapshot)
        target.write_bytes(target.read_bytes().replace(b"pinnacle", b"bet365__"))
        repo.commit(LOCK + timedelta(hours=1), "edit the snapshot")
    repo.tick(at(12, 1), outcome())
    return repo


def odds_findings(repo) -> list[str]:
    report = verify_repository(repo.root, use_cache=False)
    return [f.message for f in report.findings if f.code == "evidence_odds"]


@pytest.mark.slow
def test_the_odds_snapshot_a_package_names_is_checked_like_the_package(tmp_path):
    assert odds_findings(odds_history(tmp_path / "clean")) == []
    assert "not in the archive's history" in odds_findings(odds_history(tmp_path / "missing", missing=True))[0]
    assert "after the package" in odds_findings(odds_history(tmp_path / "late", late=True))[0]
    assert "0" * 64 in odds_findings(odds_history(tmp_path / "hash", sha256="0" * 64))[0]
    assert "changed after it was committed" in odds_findings(odds_history(tmp_path / "edit", edit=True))[0]
