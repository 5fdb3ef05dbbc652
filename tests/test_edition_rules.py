"""Rules that differ between editions, in the definition: points for a win (two before 1994), extra
time only in the final (Copa América 2024), shoot-outs; through define-competition and sync."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from collector.competitions import load_competition
from collector.competitions.loader import definitions_dir
from collector.competitions.slots import Decided, group_table, qualified_thirds
from collector.competitions.standings import MatchResult
from tournament_files import made_up_cup

# Group A where two points a win and three disagree on 2nd and 3rd: Alpha 2 (won 1, drew 1, lost 0-3)
# has 3 points and goal difference -2, Alpha 3 (three draws) 3 points and 0 with two points a win;
# with three, Alpha 2 has 4 and Alpha 3 has 3.
TWO_POINT_GROUP = [(0, 1, [3, 0]), (2, 3, [2, 2]), (0, 2, [1, 1]), (1, 3, [1, 0]), (0, 3, [2, 0]), (1, 2, [0, 0])]


def _define(tmp_path, cid, matches, *options):
    folder = tmp_path / "data" / "openfootball" / cid
    folder.mkdir(parents=True)
    (folder / "cup.json").write_bytes(orjson.dumps({"name": "Made-up Cup 2024", "matches": matches}))
    (tmp_path / "competitions").mkdir(exist_ok=True)
    (tmp_path / "arena.toml").write_text(f'[arena]\ncompetitions = ["{cid}"]\ncompetitions_dir = "competitions"\n')
    return main(["define-competition", cid, "--from", f"openfootball/{cid}/cup.json", "--data-dir",
                 str(tmp_path / "data"), "--config", str(tmp_path / "arena.toml"), *options])


def _sync(tmp_path, cid):
    return main(["sync", "--competition", cid, "--config", str(tmp_path / "arena.toml"), "--now", "2030-01-01",
                 "--archive", str(tmp_path / "archive"), "--data-dir", str(tmp_path / "data")])


def test_two_points_a_win_places_the_teams_as_the_tables_of_the_time_did(tmp_path, capsys):
    # with two points a win Alpha 3 was runner-up of A and played the winner of B
    matches = made_up_cup(TWO_POINT_GROUP, knockouts={1: {"team2": "Alpha 3"}})
    assert _define(tmp_path, "cup-two-points", matches, "--points-for-win", "2") == 0
    assert "format cup-16-third" in capsys.readouterr().out
    assert 'points_for_win = 2' in (tmp_path / "competitions" / "cup-two-points.toml").read_text()
    assert _sync(tmp_path, "cup-two-points") == 0, capsys.readouterr().err
    view = load_archive(tmp_path / "archive")
    assert len(view.events) == len(view.outcomes) == 32
    assert (view.events[("cup-two-points", "m026")].home_team, view.events[("cup-two-points", "m026")].away_team) == \
        ("bravo-1", "alpha-3")


def test_the_bracket_page_and_t5_count_the_editions_points(tmp_path, capsys):
    """The builder's group tables (bracket and team pages) and T5's real group orders use the
    competition's points for a win: with two, Alpha 3 (three draws, 3 points, goal difference 0) is
    second ahead of Alpha 2 (3 points, -2); three points a win would put Alpha 2 second with 4."""
    from builder.score.scoring import score_archive
    from builder.score.t5 import real_bracket
    from builder.site.bracket import group_tables
    from builder.site.sitectx import SiteContext

    matches = made_up_cup(TWO_POINT_GROUP, knockouts={1: {"team2": "Alpha 3"}})
    assert _define(tmp_path, "cup-two-points", matches, "--points-for-win", "2") == 0
    assert _sync(tmp_path, "cup-two-points") == 0, capsys.readouterr().err
    archive = load_archive(tmp_path / "archive")
    competition = archive.competitions["cup-two-points"]
    ctx = SiteContext(archive, score_archive(archive, inference_tests=False), "x", False)
    names = {t.id: t.name for t in competition.teams}
    (group_a, *_) = group_tables(ctx, competition, names)
    assert [(row[0], row[-1]) for row in group_a.rows] == [
        ("Alpha 1", "5"), ("Alpha 3", "3"), ("Alpha 2", "3"), ("Alpha 4", "1")]  # team, Pts
    assert group_a.qualified == (True, True, False, False)
    bracket, _ = real_bracket(competition, archive.events_of(competition.id), archive.outcomes_of(competition.id))
    assert bracket.group_orders[group_a.name] == ("alpha-1", "alpha-3", "alpha-2", "alpha-4")


def test_three_points_a_win_would_refuse_the_pairing_of_a_two_point_tournament(tmp_path, capsys):
    matches = made_up_cup(TWO_POINT_GROUP, knockouts={1: {"team2": "Alpha 3"}})
    assert _define(tmp_path, "cup-three-points", matches) == 0
    assert "check the slot rules of Quarter-finals 2024-06-20 Bravo 1 v Alpha 3" in capsys.readouterr().out
    assert _sync(tmp_path, "cup-three-points") == 1
    assert "match 26 (1B v 2A): the source names bravo-1 v alpha-3, the rules yield bravo-1 v alpha-2" in \
        capsys.readouterr().err


def test_best_thirds_are_ranked_with_the_editions_points(tmp_path):
    """Four groups, the two best thirds go through: with two points a win group A's third is Alpha 2
    (3 points), with three Alpha 3 (3 points, but Alpha 2 has 4 and is second)."""
    matches = made_up_cup(TWO_POINT_GROUP, knockouts={1: {"team2": "Alpha 3"}})
    assert _define(tmp_path, "cup-thirds", matches, "--points-for-win", "2") == 0
    with definitions_dir(tmp_path / "competitions"):
        two = load_competition("cup-thirds", datetime.now(UTC)).model_copy(update={"best_third_placed": 2})
    three = two.model_copy(update={"points_for_win": 3})
    ids = {t.name: t.id for t in two.teams}
    results = {g: [MatchResult(ids[m["team1"]], ids[m["team2"]], *m["score"]["ft"]) for m in matches
                   if m.get("group") == f"Group {g}"] for g in "ABCD"}
    thirds = {}
    for competition in (two, three):
        tables = {g: group_table(competition, g, results[g]) for g in "ABCD"}
        qualified = qualified_thirds(competition, Decided(tables, {}, 4))
        thirds[competition.points_for_win] = {tables[g][2].team for g in qualified}
    assert thirds == {2: {"alpha-2", "bravo-3"}, 3: {"alpha-3", "bravo-3"}}


def test_a_cup_with_extra_time_only_in_the_final_and_a_shoot_out_in_a_quarter_final_syncs(tmp_path, capsys):
    matches = made_up_cup(knockouts={1: {"score": {"ft": [1, 1], "p": [4, 3]}}})
    assert _define(tmp_path, "copa-2024", matches) == 0
    out = capsys.readouterr().out
    assert 'note: extra_time = "final_only": 1 knockout match(es) before the final go from 90 minutes straight ' \
           "to a shoot-out (e.g. 2024-06-20 Bravo 1 v Alpha 2)" in out
    assert 'extra_time = "final_only"' in (tmp_path / "competitions" / "copa-2024.toml").read_text()
    assert _sync(tmp_path, "copa-2024") == 0, capsys.readouterr().err
    view = load_archive(tmp_path / "archive")
    assert len(view.events) == len(view.outcomes) == 32
    quarter = view.outcomes[("copa-2024", "m026")]
    assert quarter.score_extra_time is None and quarter.advancing_team == "bravo-1"
    assert view.outcomes[("copa-2024", "m032")].score_extra_time is not None  # the final went to extra time
    _forecast_and_shown_by_the_rule(view.competitions["copa-2024"], view.events[("copa-2024", "m026")],
                                    view.events[("copa-2024", "m032")])


def _forecast_and_shown_by_the_rule(copa, quarter, final):
    """The baselines forecast a quarter-final of a final-only cup with no extra time (its full match is its
    90 minutes, a draw decided on penalties) and the final with it; the site says so before the result."""
    from builder.site.matches import decided_text
    from collector.forecasters.baselines.common import MatchView, match_payload
    from collector.forecasters.baselines.scoregrid import score_grid

    assert [copa.plays_extra_time(s) for s in ("quarter-final", "semi-final", "final")] == [False, False, True]
    view = MatchView(grid=score_grid(1.3, 1.1), rate_home=1.3, rate_away=1.1, reason="test")
    at_quarter, at_final = match_payload(view, copa, quarter), match_payload(view, copa, final)
    assert at_quarter.draw_full == pytest.approx(at_quarter.draw_90) and at_final.draw_full < at_final.draw_90
    assert decided_text(quarter, None, copa) == "knockout: a draw after 90 minutes goes straight to penalties"
    assert decided_text(final, None, copa) == "knockout: a draw after 90 minutes goes to extra time, then penalties"
    no_shootouts = copa.model_copy(update={"shootouts": False})
    assert decided_text(final, None, no_shootouts) == "knockout: a draw after 90 minutes goes to extra time"


def test_periods_against_the_editions_rules_are_problems(tmp_path, capsys):
    shoot_out = {1: {"score": {"ft": [1, 1], "p": [4, 3]}}}
    assert _define(tmp_path, "cup-always", made_up_cup(knockouts=shoot_out), "--extra-time", "always") == 0
    capsys.readouterr()
    assert _sync(tmp_path, "cup-always") == 1
    assert "Bravo 1 v Alpha 2: a shoot-out 4-3 straight after a level 90 minutes 1-1, but the competition plays " \
           "extra time first (extra_time = 'always'); the extra-time score is missing" in capsys.readouterr().err
    extra = {1: {"score": {"ft": [1, 1], "et": [2, 1]}}}
    assert _define(tmp_path / "b", "cup-final-only", made_up_cup(knockouts=extra), "--extra-time", "final_only") == 0
    capsys.readouterr()
    assert _sync(tmp_path / "b", "cup-final-only") == 1
    assert "extra time 2-1 in a quarter-final match, but the competition plays extra time only in the final" in \
        capsys.readouterr().err


def test_round_names_outside_the_synonyms_table_are_named_and_a_definition_extends_it(tmp_path, capsys):
    matches = made_up_cup(knockouts={6: {"round": "Spiel um Platz 3"}})
    assert _define(tmp_path, "cup-rounds", matches) == 1
    err = capsys.readouterr().err
    assert "round(s) ['Spiel um Platz 3'] map to no stage" in err and "--round 'LABEL=STAGE'" in err
    assert list((tmp_path / "competitions").iterdir()) == []
    assert _define(tmp_path / "b", "cup-rounds", matches, "--round", "Spiel um Platz 3=third-place") == 0
    assert 'source_rounds = ["Spiel um Platz 3"]' in (tmp_path / "b" / "competitions" / "cup-rounds.toml").read_text()
    capsys.readouterr()
    assert _sync(tmp_path / "b", "cup-rounds") == 0, capsys.readouterr().err
    assert load_archive(tmp_path / "b" / "archive").events[("cup-rounds", "m031")].stage == "third-place"
    assert main(["define-competition", "x", "--from", "y.json", "--round", "Finale=finals"]) == 2
    assert "--round 'Finale=finals': expected LABEL=STAGE with a stage among" in capsys.readouterr().err


def test_questions_that_could_have_been_asked_but_were_not_are_a_problem_line(tmp_path, capsys):
    """Events known before the first kickoff and no question after it: a problem; an arena that first reads the
    events after the first kickoff gets a note (it joined mid-competition)."""
    assert _define(tmp_path, "cup-questions", made_up_cup()) == 0
    arena = ["--config", str(tmp_path / "arena.toml"), "--archive", str(tmp_path / "archive"),
             "--data-dir", str(tmp_path / "data")]
    assert main(["sync", "--competition", "cup-questions", "--now", "2024-05-01", *arena]) == 0
    capsys.readouterr()
    assert main(["tick", "--now", "2024-06-02T12:00:00Z", *arena]) == 1
    assert "questions = true, but none was registered for cup-questions, whose events were known at " \
           "2024-05-01T00:00:00+00:00, before its questions closed at its first kickoff 2024-06-01T18:00:00+00:00" \
           in capsys.readouterr().err
    late = ["--config", str(tmp_path / "arena.toml"), "--archive", str(tmp_path / "late"),
            "--data-dir", str(tmp_path / "data")]
    assert main(["tick", "--now", "2024-06-02T12:00:00Z", *late]) == 0
    assert "which had passed when its events were first read" in capsys.readouterr().out


def test_a_source_without_groups_is_told_what_it_lacks(tmp_path, capsys):
    matches = [{k: v for k, v in m.items() if k != "group"} for m in made_up_cup()]
    assert _define(tmp_path, "cup-no-groups", matches) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'data' / 'openfootball' / 'cup-no-groups' / 'cup.json'}: 0 group(s)" in err
    assert "the source names no group of its group-stage matches (a 'group' field, or rounds named 'Group A')" in err
    assert "cup-no-groups.toml" not in err and list((tmp_path / "competitions").iterdir()) == []
