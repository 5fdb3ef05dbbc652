"""A fork's competitions: definitions in the folder of ``[arena] competitions_dir``, one-line errors.

Also the ways a source can be wrong that the fail-closed registration must catch (a file whose
results sit in a ``score`` object, a file without match numbers, swapped knockout teams).
"""

from __future__ import annotations

import copy
import shutil
from datetime import UTC, datetime

import orjson
import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from collector.competitions import list_competitions, load_competition, load_definition
from collector.competitions.loader import definitions_dir
from collector.errors import ConfigError
from collector.fixtures.sync import sync_competition
from collector.records import Clock

SHIPPED = "collector/competitions/en-1-2025-26.toml"
EURO = "openfootball/euro-2020/euro.json"
KNOWN = "Quarter-finals 2021-07-03 Ukraine v England: 4 goal(s) listed"  # a real error of the source


def _new(problems):
    """Problems other than the source's own known one."""
    return [p for p in problems if KNOWN not in p.path + ": " + p.message]


def _fork_copy(tmp_path, new_id="my-league-2025-26", edit=lambda text: text):
    folder = tmp_path / "competitions"
    folder.mkdir(exist_ok=True)
    text = open(SHIPPED, encoding="utf-8").read().replace('id = "en-1-2025-26"', f'id = "{new_id}"')
    (folder / f"{new_id}.toml").write_text(edit(text), encoding="utf-8")
    return folder


def test_a_forks_folder_adds_a_competition_next_to_the_shipped_ones(tmp_path):
    folder = _fork_copy(tmp_path)
    before = list_competitions()
    with definitions_dir(folder):
        assert set(list_competitions()) == {*before, "my-league-2025-26"}
        assert load_competition("my-league-2025-26", datetime.now(UTC)).id == "my-league-2025-26"
    assert list_competitions() == before


@pytest.mark.parametrize(("edit", "key"), [
    (lambda t: t.replace('time_zone = "Europe/London"', 'time_zone = "Europe/Londn"'), "key time_zone: unknown IANA"),
    (lambda t: t.replace('id = "my-league-2025-26"', 'id = "other-id"'), "key id: 'other-id' differs from the file name"),
    (lambda t: t.replace('time_zone = "Europe/London"\n', ""), "key time_zone: missing"),
    (lambda t: t.replace('stage_opening_by = "matchday"', 'stage_opening_by = "weekly"'), "key stage_opening_by:"),
])
def test_an_error_in_a_definition_is_one_line_naming_file_and_key(tmp_path, edit, key):
    folder = _fork_copy(tmp_path, edit=edit)
    with definitions_dir(folder), pytest.raises(ConfigError) as caught:
        load_definition("my-league-2025-26")
    message = str(caught.value)
    assert "\n" not in message and str(folder / "my-league-2025-26.toml") in message and key in message


def test_a_bad_slot_rule_names_the_key(tmp_path):
    text = open("collector/competitions/worldcup-2026.toml", encoding="utf-8").read()
    folder = tmp_path / "competitions"
    folder.mkdir()
    bad = text.replace('id = "worldcup-2026"', 'id = "cup-x"').replace('home_rule = "2A"', 'home_rule = "9Z"', 1)
    (folder / "cup-x.toml").write_text(bad)
    with definitions_dir(folder), pytest.raises(ConfigError) as caught:
        load_definition("cup-x")
    assert "\n" not in str(caught.value) and "key knockout_slots[0].home_rule" in str(caught.value)
    assert "'9Z'" in str(caught.value)


@pytest.mark.slow
def test_sync_takes_config_and_refuses_an_unknown_id_in_one_line(tmp_path, data_dir, capsys):
    folder = _fork_copy(tmp_path)
    (tmp_path / "arena.toml").write_text('[arena]\ncompetitions = ["my-league-2025-26"]\ncompetitions_dir = "competitions"\n')
    args = ["--now", "2025-08-20", "--archive", str(tmp_path / "archive"), "--data-dir", str(data_dir)]
    assert main(["sync", "--competition", "my-league-2025-26", "--config", str(tmp_path / "arena.toml"), *args]) == 0
    assert "my-league-2025-26 @ 2025-08-20" in capsys.readouterr().out
    assert main(["sync", "--competition", "my-league-2025-26", *args]) == 2  # without the fork's config
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown competition(s) my-league-2025-26" in err
    assert folder.is_dir()


@pytest.fixture()
def euro_fork(tmp_path, data_dir):
    """A data folder with a copy of Euro 2020 to corrupt, and its definition made by the command."""
    data = tmp_path / "data"
    (data / "openfootball/euro-2020").mkdir(parents=True)
    shutil.copy(data_dir / EURO, data / EURO)
    (tmp_path / "competitions").mkdir()
    (tmp_path / "arena.toml").write_text('[arena]\ncompetitions = ["euro"]\ncompetitions_dir = "competitions"\n')
    return tmp_path, data


def _define(root, data, cid="euro"):
    return main(["define-competition", cid, "--from", EURO, "--data-dir", str(data), "--config",
                 str(root / "arena.toml"), "--time-zone", "Europe/Berlin"])


def _rewrite(data, change):
    document = orjson.loads((data / EURO).read_bytes())
    change(document)
    (data / EURO).write_bytes(orjson.dumps(document))


def _knockouts(document):
    return [m for r in document["rounds"] if not r["name"].startswith("Matchday") for m in r["matches"]]


def test_kickoffs_outside_the_editions_years_are_refused_and_nothing_is_written(euro_fork, capsys):
    root, data = euro_fork

    def far(document):
        matches = [m for r in document["rounds"] for m in r["matches"]]
        matches[0]["date"], matches[-1]["date"] = "1900-01-01", "9999-12-31"

    _rewrite(data, far)
    assert _define(root, data) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert "2 match(es) dated outside 2020-01-01 .. 2022-12-31, the years of edition 2021" in line
    assert "1900-01-01 Turkey v Italy" in line and "9999-12-31 " in line
    assert not (root / "competitions" / "euro.toml").exists()


@pytest.mark.slow
def test_results_in_a_score_object_become_outcomes(euro_fork, capsys):
    root, data = euro_fork
    assert _define(root, data) == 0
    with definitions_dir(root / "competitions"):
        report = sync_competition(root / "archive", "euro", now=datetime(2021, 8, 1, tzinfo=UTC), data_dir=data,
                                  clock=Clock.REPLAY)
    assert _new(report.problems) == []
    view = load_archive(root / "archive")
    assert len(view.events) == 51 and len(view.outcomes) == 50  # Ukraine v England's is held back (KNOWN)
    final = view.outcomes[("euro", "m051")]
    assert (final.score_90.home, final.score_extra_time.home, final.score_penalties.home) == (1, 1, 3)
    assert final.advancing_team == "ita"


@pytest.mark.slow
def test_scores_in_both_forms_that_disagree_are_a_problem(euro_fork):
    root, data = euro_fork
    assert _define(root, data) == 0

    def both(document):
        first = document["rounds"][0]["matches"][0]
        first["score1"], first["score2"] = 1, 3  # the score object says 0-3
    _rewrite(data, both)
    with definitions_dir(root / "competitions"):
        report = sync_competition(root / "archive", "euro", now=datetime(2021, 8, 1, tzinfo=UTC), data_dir=data,
                                  clock=Clock.REPLAY)
    assert any("score and score1/score2 disagree" in p.message and "Turkey v Italy" in p.path for p in report.problems)


@pytest.mark.slow
def test_without_match_numbers_the_definition_ties_matches_by_date_and_still_fails_closed(euro_fork):
    root, data = euro_fork

    def strip(document):
        for m in _knockouts(document):
            del m["num"]
    _rewrite(data, strip)
    assert _define(root, data) == 0
    text = (root / "competitions" / "euro.toml").read_text()
    assert 'source_date = "2021-06-26"' in text and "source_index = 0" in text
    with definitions_dir(root / "competitions"):
        early = sync_competition(root / "archive", "euro", now=datetime(2021, 6, 23, tzinfo=UTC), data_dir=data,
                                 clock=Clock.REPLAY)
        assert _new(early.problems) == []
        view = load_archive(root / "archive")
        # groups A, B, C have finished, D, E, F have not: only 1A v 2C and 2A v 2B are decided
        assert {(e.id, e.home_team, e.away_team) for e in view.events.values() if e.knockout} == {
            ("m037", "ita", "aut"), ("m038", "wal", "den")}
        late = sync_competition(root / "archive", "euro", now=datetime(2021, 8, 1, tzinfo=UTC), data_dir=data,
                                clock=Clock.REPLAY)
    assert _new(late.problems) == []
    assert sum(e.knockout for e in load_archive(root / "archive").events.values()) == 15


def test_swapped_knockout_teams_are_a_problem_and_not_registered(euro_fork):
    root, data = euro_fork
    assert _define(root, data) == 0

    def swap(document):  # match 37 (1A v 2C, Italy v Austria) now names Wales (2A) instead of Italy
        m = next(m for m in _knockouts(document) if m["num"] == 37)
        m["team1"] = copy.deepcopy({"name": "Wales", "code": "WAL"})
    _rewrite(data, swap)
    with definitions_dir(root / "competitions"):
        report = sync_competition(root / "archive", "euro", now=datetime(2021, 6, 26, tzinfo=UTC), data_dir=data,
                                  clock=Clock.REPLAY)
    problems = [p for p in report.problems if "match 37" in p.message]
    assert len(problems) == 1
    assert "1A v 2C" in problems[0].message and "wal v aut" in problems[0].message
    assert "ita v aut" in problems[0].message
    assert ("euro", "m037") not in load_archive(root / "archive").events


def _sync_euro(root, data, now=datetime(2021, 8, 1, tzinfo=UTC)):
    with definitions_dir(root / "competitions"):
        return sync_competition(root / "archive", "euro", now=now, data_dir=data, clock=Clock.REPLAY)


def _match(document, num):
    return next(m for r in document["rounds"] for m in r["matches"] if m.get("num") == num)


@pytest.mark.slow
def test_a_goal_at_119_without_extra_time_leaves_the_match_out(euro_fork):
    root, data = euro_fork
    assert _define(root, data) == 0

    def late(document):  # Wales 0-4 Denmark: two of Denmark's goals moved to 91' and 119', no extra time
        match = _match(document, 38)
        for goal, minute in zip(match["goals2"][-2:], (91, 119), strict=True):
            goal.pop("offset", None)
            goal["minute"] = minute
    _rewrite(data, late)
    report = _sync_euro(root, data)
    problem = next(p for p in report.problems if "Wales v Denmark" in p.path)
    assert "goal(s) at 119'" in problem.message and "no extra-time score (90 minutes: 0-4)" in problem.message
    assert "91'" not in problem.message  # 91' is read as stoppage time
    view = load_archive(root / "archive")
    assert ("euro", "m038") not in view.outcomes
    assert ("euro", "m047") not in view.events  # fail closed: its winner decides the next match


@pytest.mark.slow
def test_goals_that_do_not_add_up_hold_the_outcome_back_and_are_reported(euro_fork):
    root, data = euro_fork
    assert _define(root, data) == 0
    _rewrite(data, lambda d: _match(d, 1)["goals2"].pop())  # Turkey 0-3 Italy with two goals listed
    report = _sync_euro(root, data)
    problem = next(p for p in report.problems if "Turkey v Italy" in p.path)
    assert "2 goal(s) listed (0-2) do not add up to the score 0-3" in problem.message
    assert "its outcome is held back until a correction is applied" in problem.message
    view = load_archive(root / "archive")
    assert ("euro", "tur-v-ita") in view.events and ("euro", "tur-v-ita") not in view.outcomes


@pytest.mark.slow
def test_extra_time_after_a_decided_90_minutes_is_a_problem(euro_fork):
    root, data = euro_fork
    assert _define(root, data) == 0
    _rewrite(data, lambda d: _match(d, 44)["score"].update(et=[3, 0]))  # England 2-0 Germany "after extra time"
    report = _sync_euro(root, data)
    problem = next(p for p in report.problems if "England v Germany" in p.path)
    assert "extra time 3-0 after a 90-minute score 2-0 that is not level" in problem.message
    assert ("euro", "m044") not in load_archive(root / "archive").outcomes


@pytest.mark.slow
def test_a_missing_group_match_and_a_date_outside_the_span_are_problems(euro_fork):
    root, data = euro_fork
    assert _define(root, data) == 0

    def corrupt(document):
        document["rounds"][0]["matches"].pop(0)  # Turkey v Italy (group A) is gone
        _match(document, 51)["date"] = "2021-08-11"  # the final a month after the last match day
    _rewrite(data, corrupt)
    report = _sync_euro(root, data, now=datetime(2021, 9, 1, tzinfo=UTC))
    messages = [str(p) for p in _new(report.problems)]
    assert any("group A: the source lists 5 matches, a round robin of 4 teams has 6" in m for m in messages)
    assert any("Final 2021-08-11 Italy v England: date 2021-08-11 is outside the competition's span "
               "2021-06-11 .. 2021-07-11 (match left out)" in m for m in messages)
    view = load_archive(root / "archive")
    assert ("euro", "m051") not in view.events
    assert ("euro", "m037") not in view.events  # 1A v 2C: group A can never be complete


@pytest.mark.slow
def test_tick_and_status_find_the_forks_competition_through_config(tmp_path, data_dir, capsys):
    _fork_copy(tmp_path)
    config = tmp_path / "arena.toml"
    config.write_text('[arena]\ncompetitions = ["my-league-2025-26"]\ncompetitions_dir = "competitions"\n'
                      'questions = false\n[[forecasters]]\nid = "uniform"\ntype = "baseline"\n')
    archive = tmp_path / "archive"
    assert main(["tick", "--config", str(config), "--now", "2025-08-14T12:00Z", "--archive", str(archive),
                 "--data-dir", str(data_dir)]) == 0, capsys.readouterr().err
    view = load_archive(archive)
    assert "my-league-2025-26" in view.competitions and view.events_of("my-league-2025-26")
    assert any(f.competition_id == "my-league-2025-26" for f in view.forecasts)
    capsys.readouterr()
    assert main(["status", "--archive", str(archive), "--config", str(config)]) == 0
    assert "my-league-2025-26: events total=380" in capsys.readouterr().out
    config.write_text('[arena]\ncompetitions = ["x"]\ncompetitions_dir = "nowhere"\n')
    assert main(["status", "--archive", str(archive), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "key arena.competitions_dir: no such folder" in err
