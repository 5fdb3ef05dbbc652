"""Issue 17 end to end: a tick on the real 2026 World Cup fixtures writes one evidence package per
event and horizon before the ``evidence_package`` forecasts, and every prompt holds its package."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime

import pytest

from collector.archive.layout import evidence_path
from collector.archive.reader import load_archive
from collector.config import parse_config
from collector.records import Access, Clock, Evidence
from collector.schedule.tick import run_tick

NOW = datetime(2026, 6, 10, 19, 30, tzinfo=UTC)  # stage opening of the group stage, and T-24h of the opener


def arena(gatherer: bool = True):
    data = {
        "arena": {"competitions": ["worldcup-2026"], "access": ["closed_book", "evidence_package"],
                  "strategies": ["probabilistic_forecast"], "questions": False, "spending_cap_usd": 50},
        "openrouter": {"max_attempts": 2, "base_delay_s": 0},
        "forecasters": [{"id": "test.model", "type": "llm", "model": "test/model", "version": "test/model@1"}],
    }  # fmt: skip
    if gatherer:
        data["evidence"] = {"gatherer": {"model": "test/gatherer", "items": 3}}
    return parse_config(data, "test")


@pytest.mark.slow
def test_packages_are_written_first_and_every_evidence_prompt_holds_its_own(tmp_path, data_dir, server):
    report = run_tick(arena(), tmp_path / "archive", now=NOW, data_dir=data_dir, clock=Clock.REPLAY)
    assert report.ok, report.problems
    archive = load_archive(tmp_path / "archive")
    packages = [r for r in archive.records.values() if isinstance(r, Evidence)]
    opener = ("mex-v-rsa", "t_minus_24h")
    assert len(packages) == 72 + 1 == report.evidence  # 72 group matches at stage opening, the opener at T-24h
    assert opener in {(p.event_id, p.horizon.value) for p in packages}
    under = [f for f in archive.forecasts if f.access is Access.EVIDENCE_PACKAGE]
    assert len(under) == 73 and all(f.scorable for f in under)
    # the written order: each package precedes every forecast that uses it
    order = {path: i for i, path in enumerate(report.written)}
    for forecast in under:
        ref = forecast.evidence
        data = (tmp_path / "archive" / ref.path).read_bytes()
        assert ref.path == evidence_path("worldcup-2026", forecast.target_id, forecast.horizon.value)
        assert ref.sha256 == hashlib.sha256(data).hexdigest()
        assert order[ref.path] < order[next(p for p in report.written if p.endswith(
            f"{forecast.target_id}/forecasts/test.model/evidence_package.probabilistic_forecast."
            f"{forecast.horizon.value}.s0.json"))]
        assert ref.sha256 in forecast.prompt.text and "Access condition: EVIDENCE_PACKAGE." in forecast.prompt.text
        assert forecast.requested_at >= archive.records[ref.path].locks_at
    closed = [f for f in archive.forecasts if f.access is Access.CLOSED_BOOK]
    assert closed and all(f.evidence is None and "Evidence package" not in f.prompt.text for f in closed)
    # what the server saw: forecast prompts with the package and no tools; gatherer calls with web search
    bodies = [s["body"] for s in server.seen]
    gatherer = [b for b in bodies if b["model"] == "test/gatherer"]
    assert len(gatherer) == 73 and all(b["tools"][0]["type"] == "openrouter:web_search" for b in gatherer)
    evidence_prompts = [b for b in bodies if "EVIDENCE_PACKAGE" in b["messages"][-1]["content"]]
    assert len(evidence_prompts) == 73 and not any("tools" in b for b in evidence_prompts)


@pytest.mark.slow
def test_the_package_holds_form_table_rest_and_dated_news_known_at_the_lock(tmp_path, data_dir, server):
    run_tick(arena(), tmp_path / "archive", now=NOW, data_dir=data_dir, clock=Clock.REPLAY)
    archive = load_archive(tmp_path / "archive")
    package = archive.records[evidence_path("worldcup-2026", "mex-v-rsa", "t_minus_24h")]
    assert NOW <= package.locks_at <= package.recorded_at  # locked when the evidence step starts
    mexico, south_africa = package.form
    assert (mexico.team_id, south_africa.team_id) == ("mex", "rsa")
    assert len(mexico.matches) == 5 and all(m.date < NOW.date() for m in mexico.matches)
    assert mexico.form == "".join(m.result for m in mexico.matches)
    assert [m.date for m in mexico.matches] == sorted((m.date for m in mexico.matches), reverse=True)
    assert package.standings.table == "Group A" and package.standings.results_counted == 0
    assert len(package.standings.rows) == 4 and {"mex", "rsa"} <= {r.team_id for r in package.standings.rows}
    assert all(r.rest_days is not None and r.rest_days >= 1 for r in package.rest)
    news = package.news
    assert news.status == "ok" and len(news.items) == 3 and news.attempts
    assert all(i.published_at < NOW and i.retrieved_at >= NOW for i in news.items)
    assert news.attempts[0].usage.cost_usd is not None and news.attempts[0].tool_trace.citations
    assert package.odds.snapshot_path is None and "no market source" in package.odds.note


@pytest.mark.slow
def test_without_a_gatherer_the_package_holds_only_the_structured_parts(tmp_path, data_dir, server):
    report = run_tick(arena(gatherer=False), tmp_path / "archive", now=NOW, data_dir=data_dir, clock=Clock.REPLAY)
    assert report.ok, report.problems
    archive = load_archive(tmp_path / "archive")
    package = archive.records[evidence_path("worldcup-2026", "mex-v-rsa", "t_minus_24h")]
    assert package.news is None and any("no gatherer" in n for n in package.notes)
    assert all(s["body"]["model"] == "test/model" for s in server.seen)


@pytest.mark.slow
def test_a_second_tick_in_the_window_reuses_the_package(tmp_path, data_dir, server):
    run_tick(arena(), tmp_path / "archive", now=NOW, data_dir=data_dir, clock=Clock.REPLAY)
    first = (tmp_path / "archive" / evidence_path("worldcup-2026", "mex-v-rsa", "t_minus_24h")).read_bytes()
    calls = len(server.seen)
    report = run_tick(arena(), tmp_path / "archive", now=NOW.replace(minute=45), data_dir=data_dir,
                      clock=Clock.REPLAY)
    assert report.evidence == 0 and len(server.seen) == calls  # nothing due, nothing gathered again
    assert (tmp_path / "archive" / evidence_path("worldcup-2026", "mex-v-rsa", "t_minus_24h")).read_bytes() == first


@pytest.mark.slow
def test_verify_finds_the_tick_s_packages_sound(tmp_path, data_dir, server):
    from collector.audit.verify import verify_repository
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    report = run_tick(arena(), repo.archive, now=NOW, data_dir=data_dir, clock=Clock.REPLAY)
    assert report.ok, report.problems
    repo.commit(NOW)
    found = verify_repository(repo.root, use_cache=False).findings
    assert not [f for f in found if f.code.startswith("evidence")]
    # and the same check fails once a package is edited in a later commit
    target = next(repo.archive.rglob("evidence/t_minus_24h.json"))
    target.write_bytes(target.read_bytes().replace(b'"form": "', b'"form": "W', 1))
    repo.commit(NOW.replace(hour=20))
    codes = {f.code for f in verify_repository(repo.root, use_cache=False).findings}
    assert {"evidence_edited", "modified"} <= codes


@pytest.mark.slow
def test_no_package_no_evidence_forecast(tmp_path, data_dir, server, monkeypatch):
    """Fail closed: when the package cannot be built, its forecasts are not requested (closed book still is)."""
    from collector.errors import SourceError
    from collector.evidence import structured

    def unreadable(_data_dir):
        raise SourceError("international-results/results.csv line 7: cannot read row")

    monkeypatch.setattr(structured, "rows_by_team", unreadable)
    report = run_tick(arena(gatherer=False), tmp_path / "archive", now=NOW, data_dir=data_dir, clock=Clock.REPLAY)
    problems = [p for p in report.problems if "/evidence/" in p.path]
    assert len(problems) == 73 and "results.csv line 7" in problems[0].message
    archive = load_archive(tmp_path / "archive")
    assert not [r for r in archive.records.values() if isinstance(r, Evidence)]
    assert {f.access for f in archive.forecasts} == {Access.CLOSED_BOOK} and report.deferred == 73
    prompts = [s["body"]["messages"][-1]["content"] for s in server.seen]
    assert prompts and not any("EVIDENCE_PACKAGE" in p for p in prompts)


def test_squads_are_packaged_by_live_ticks_only(data_dir):
    from collector.competitions import load_competition
    from collector.evidence.structured import squads
    from tests.collection_helpers import make_event

    competition = load_competition("worldcup-2026", NOW)
    live, note = squads(competition, make_event(), data_dir, Clock.LIVE, NOW)
    assert note is None and [s.team_id for s in live] == ["mex", "rsa"]
    assert all(len(s.players) >= 23 and s.provenance.retrieved_at == NOW for s in live)
    assert "worldcup.squads.json" in live[0].provenance.source
    replay, note = squads(competition, make_event(), data_dir, Clock.REPLAY, NOW)
    assert replay == [] and "left out of replays" in note


@pytest.mark.slow
def test_the_table_counts_the_results_recorded_before_the_lock(tmp_path, data_dir, server):
    first = datetime(2026, 6, 13, 12, tzinfo=UTC)  # this tick records the results of 11 June
    lock = datetime(2026, 6, 18, 1, 10, tzinfo=UTC)  # T-24h of Mexico v South Korea (19 June 01:00 UTC)
    run_tick(arena(gatherer=False), tmp_path / "archive", now=first, data_dir=data_dir, clock=Clock.REPLAY)
    report = run_tick(arena(gatherer=False), tmp_path / "archive", now=lock, data_dir=data_dir, clock=Clock.REPLAY)
    assert report.ok, report.problems
    archive = load_archive(tmp_path / "archive")
    package = archive.records[evidence_path("worldcup-2026", "mex-v-kor", "t_minus_24h")]
    table = package.standings
    assert table.table == "Group A" and table.results_counted == 2  # mex 2-0 rsa, kor 2-1 cze (11 June)
    rows = {r.team_id: r for r in table.rows}
    assert (rows["mex"].points, rows["mex"].goals_for, rows["kor"].points, rows["rsa"].points) == (3, 2, 3, 0)
    assert [r.team_id for r in table.rows][:2] == ["mex", "kor"]  # goal difference +2 before +1
    # results.csv: the opener counts for Mexico's form (dated 11 June, more than 39 hours before the lock)
    assert package.form[0].matches[0].date == date(2026, 6, 11) and package.form[0].form[0] == "W"
    assert package.rest[0].rest_days == 7 and package.rest[0].last_city == "Mexico City"
