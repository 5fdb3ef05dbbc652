"""Match reports from openfootball on the WC 2026 replay: every match, squad names, own-goal sides."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from builder.score.fine_grained import checked_goals
from collector.archive.reader import load_archive
from collector.competitions.players import PlayerIndex
from collector.fixtures.match_reports import build_match_report
from collector.fixtures.sync import sync_competition
from collector.records import Clock, Goal
from collector.sources.base import MatchStatus, SourceMatch

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

AFTER_FINAL = datetime(2026, 8, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def wc(data_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("wc-reports") / "archive"
    first = sync_competition(root, "worldcup-2026", now=AFTER_FINAL, data_dir=data_dir, clock=Clock.REPLAY)
    again = sync_competition(root, "worldcup-2026", now=AFTER_FINAL, data_dir=data_dir, clock=Clock.REPLAY)
    return first, again, load_archive(root)


def test_every_world_cup_match_has_a_report_of_its_goals(wc):
    first, again, archive = wc
    reports = archive.match_reports_of("worldcup-2026")
    assert len(reports) == 104 == first.counts["match_reports_new"]
    assert first.problems == [] and again.written == []  # idempotent
    for event_id, outcome in archive.outcomes_of("worldcup-2026").items():
        report = reports[event_id]
        final = outcome.score_extra_time or outcome.score_90
        assert len(report.goals) == final.home + final.away, event_id
        assert report.sources["goals"].source.startswith("openfootball:")
        # openfootball has no lineups, cards, statistics: no data, never "nothing happened"
        assert report.cards is None and report.home_lineup is None and report.statistics is None
        assert report.penalties is None  # only the scored penalties are listed


def test_goalless_match_is_nothing_happened_and_own_goals_name_the_conceding_side(wc):
    _, _, archive = wc
    reports = archive.match_reports_of("worldcup-2026")
    goalless = [e for e, o in archive.outcomes_of("worldcup-2026").items()
                if (o.score_extra_time or o.score_90).as_tuple() == (0, 0)]
    assert goalless and all(reports[e].goals == () and reports[e].available("goals") for e in goalless)
    own = [g for g in reports["aut-v-jor"].goals if g.own_goal]
    assert [(g.side, g.player, g.minute) for g in own] == [("away", "Yazan Al-Arab", 76)]  # a Jordan player
    penalty = [g for g in reports["aut-v-jor"].goals if g.penalty]
    assert [(g.player, g.minute, g.stoppage, g.at) for g in penalty] == [("Marko Arnautović", 90, 12, 102.0)]


def test_scorers_take_the_squad_spelling_and_an_unknown_scorer_is_kept_but_marked(wc):
    first, _, archive = wc
    reports = archive.match_reports_of("worldcup-2026")
    names = [g.player for g in reports["aut-v-jor"].goals]
    assert "Marko Arnautović" in names  # openfootball's match file spells him "Marko Arnautovic"
    unknown = [(e, g.player) for e, r in reports.items() for g in r.goals if g.in_squad is False]
    assert ("uru-v-cpv", "Maxi Araújo") in unknown  # the squad lists "Maximiliano Araújo": never guessed
    assert first.counts["scorers_not_in_squad (kept, not scored)"] == len(unknown)
    assert all(g.in_squad for r in reports.values() for g in r.goals if (r.event_id, g.player) not in unknown)


def test_a_goal_without_scorer_is_kept_with_no_name_and_left_out_of_scoring(wc):
    _, _, archive = wc
    competition = archive.competitions["worldcup-2026"]
    event = archive.events[("worldcup-2026", "aut-v-jor")]
    match = SourceMatch(label="t", stage="group", round_name="Matchday 1", kickoff_date=AFTER_FINAL.date(),
                        kickoff_source="x", kickoff_utc=None, home_team="aut", away_team="jor",
                        status=MatchStatus.FINISHED, payload={"goals1": [{"name": None}]}, goals=(Goal(team="aut"),))
    report, notes = build_match_report(event, match, source="t", retrieved_at=AFTER_FINAL, now=AFTER_FINAL,
                                       clock=Clock.REPLAY, index=PlayerIndex(competition), squads={"aut": []})
    assert notes == [] and report.goals[0].player is None and report.goals[0].in_squad is None
    assert report.source_payloads == {"t": {"goals1": [{"name": None}]}}
    assert checked_goals(report, goal_total=1) is None  # no scorer: the goal tasks get no data
    scheduled = SourceMatch(**{**match.__dict__, "status": MatchStatus.SCHEDULED})
    assert build_match_report(event, scheduled, source="t", retrieved_at=AFTER_FINAL, now=AFTER_FINAL,
                              clock=Clock.REPLAY) == (None, [])


def test_another_sources_names_take_the_squad_spelling_and_unknown_scorers_are_marked(wc, data_dir):
    from collector.datasource import DataSource
    from collector.fixtures.report_names import squad_spelling
    from collector.records.match_report import (
        ReportedCard,
        ReportedGoal,
        ReportedLineup,
        ReportedPlayer,
    )
    from collector.sources.openfootball import read_squads

    _, _, archive = wc
    competition, event = archive.competitions["worldcup-2026"], archive.events[("worldcup-2026", "mex-v-rsa")]
    from collector.competitions import load_definition

    squads, _ = read_squads(load_definition("worldcup-2026"), DataSource(data_dir), competition)
    fields = {"goals": (ReportedGoal(side="home", player="R. Jiménez", minute=67),
                        ReportedGoal(side="away", player="Nobody Here", minute=80)),
              "home_lineup": ReportedLineup(starting=(ReportedPlayer(name="J. Quiñones", source_id="110"),)),
              "cards": (ReportedCard(side="away", player="T. Mokoena", minute=34, colour="yellow"),)}
    out = squad_spelling(event, fields, PlayerIndex(competition, squads), squads)
    assert [(g.player, g.in_squad) for g in out["goals"]] == [("Raúl Jiménez", True), ("Nobody Here", False)]
    assert out["home_lineup"].starting[0].name == "Julián Quiñones" and out["home_lineup"].starting[0].source_id == "110"
    assert out["cards"][0].player == "Teboho Mokoena"
    assert squad_spelling(event, fields, None, None) == fields
