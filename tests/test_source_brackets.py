"""The bracket read from the source: World Cups 1986, 1994, 1998 and 2002 (made from the shared
results) and a pre-tournament file whose knockout teams are placeholder labels, defined, synced and
replayed by the real commands with no hand edits.

The formats' fixed brackets are those of 1990 and 2006-2022 (the others paired their rounds
otherwise): each knockout slot must come from where the source's teams came from, or its labels.
"""

from __future__ import annotations

import tomllib

import orjson
import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from tournament_files import with_labels, world_cup_matches

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

# FIFA's bracket of 2018 in the order of openfootball's file (match numbers 49-64)
LABELS_2018 = {
    49: ("1C", "2D"), 50: ("1A", "2B"), 51: ("1B", "2A"), 52: ("1D", "2C"), 53: ("1E", "2F"), 54: ("1G", "2H"),
    55: ("1F", "2E"), 56: ("1H", "2G"), 57: ("W50", "W49"), 58: ("W53", "W54"), 59: ("W55", "W56"),
    60: ("W51", "W52"), 61: ("W57", "W58"), 62: ("W60", "W59"), 63: ("L61", "L62"), 64: ("W61", "W62"),
}


def _file(folder, name, matches, title):
    path = folder / "openfootball" / name / "worldcup.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps({"name": title, "matches": matches}))
    return f"openfootball/{name}/worldcup.json"


@pytest.fixture(scope="module")
def fork(tmp_path_factory, data_dir):
    """A data folder (the shared results linked, the made files written) and a fork with its arena file."""
    root = tmp_path_factory.mktemp("brackets")
    data = root / "data"
    data.mkdir()
    (data / "international-results").symlink_to(data_dir / "international-results")
    files = {f"worldcup-{year}": _file(data, f"wc{year}", world_cup_matches(data_dir, year), f"World Cup {year}")
             for year in (1986, 1994, 1998, 2002)}
    real_2018 = orjson.loads((data_dir / "openfootball/worldcup-2018/worldcup.json").read_bytes())["matches"]
    files["worldcup-2018-draw"] = _file(data, "wc2018-draw", with_labels(real_2018, LABELS_2018, 49), "World Cup 2018")
    (root / "competitions").mkdir()
    (root / "arena.toml").write_text('[arena]\ncompetitions = ["worldcup-1998"]\ncompetitions_dir = "competitions"\n')
    return root, data, files, real_2018


def _define(fork, cid, *extra):
    root, data, files, _ = fork
    return main(["define-competition", cid, "--from", files[cid], "--data-dir", str(data), "--config",
                 str(root / "arena.toml"), "--time-zone", "Europe/Paris", *extra])


def _sync(fork, cid, archive):
    root, data, _, _ = fork
    return main(["sync", "--competition", cid, "--config", str(root / "arena.toml"), "--now", "2030-01-01",
                 "--archive", str(archive), "--data-dir", str(data)])


@pytest.mark.parametrize(("year", "options"), [(1986, ["--points-for-win", "2"]), (1994, []), (1998, []), (2002, [])])
def test_a_world_cup_with_its_own_bracket_is_defined_and_every_knockout_is_right(fork, data_dir, year, options,
                                                                                 tmp_path, capsys):
    """1986 (two points a win, four best thirds) and 1994 (best thirds): 52 matches; 1998 and 2002: 64."""
    cid = f"worldcup-{year}"
    assert _define(fork, cid, *options) == 0
    assert "16 knockout slots" in capsys.readouterr().out
    assert _sync(fork, cid, tmp_path / "archive") == 0, capsys.readouterr().err
    view = load_archive(tmp_path / "archive")
    events = [e for (c, _), e in view.events.items() if c == cid]
    assert len(events) == (52 if year < 1998 else 64)
    truth = {(m["date"], m["team1"], m["team2"]): m for m in world_cup_matches(data_dir, year)}
    competition = view.competitions[cid]
    names = {t.id: t.name for t in competition.teams}
    knockouts = [e for e in events if e.knockout]
    assert len(knockouts) == 16
    for event in knockouts:
        m = truth[(event.kickoff_date.isoformat(), names[event.home_team], names[event.away_team])]
        outcome = view.outcomes[(cid, event.id)]
        final = m["score"].get("p") or m["score"].get("et") or m["score"]["ft"]
        assert outcome.advancing_team == (event.home_team if final[0] > final[1] else event.away_team)
    slots = {s.match_number: (s.home_rule, s.away_rule) for s in competition.knockout_slots}
    if year == 1998:  # Brazil (1A v 2B) met the winner of 1D v 2C in the quarter-finals, not of 1C v 2D as in 2014
        assert slots[49] == ("1A", "2B") and slots[52] == ("1D", "2C") and slots[57] == ("W49", "W52")


def test_labels_of_a_pre_tournament_file_are_the_slot_rules_and_the_filled_file_syncs(fork, tmp_path, capsys):
    root, data, files, real_2018 = fork
    assert _define(fork, "worldcup-2018-draw") == 0
    capsys.readouterr()
    written = tomllib.loads((root / "competitions" / "worldcup-2018-draw.toml").read_text())
    assert {s["match_number"]: (s["home_rule"], s["away_rule"]) for s in written["knockout_slots"]} == LABELS_2018
    # the tournament is played: the same file, now with the teams and results (and its match numbers)
    filled = [dict(m, num=49 + k - 48) if k >= 48 else m for k, m in enumerate(real_2018)]
    (data / files["worldcup-2018-draw"]).write_bytes(orjson.dumps({"name": "World Cup 2018", "matches": filled}))
    try:
        assert _sync(fork, "worldcup-2018-draw", tmp_path / "archive") == 0, capsys.readouterr().err
    finally:
        _file(data, "wc2018-draw", with_labels(real_2018, LABELS_2018, 49), "World Cup 2018")
    view = load_archive(tmp_path / "archive")
    knockouts = {e.match_number: e for (c, _), e in view.events.items() if c == "worldcup-2018-draw" and e.knockout}
    assert sorted(knockouts) == list(range(49, 65))
    assert (knockouts[49].home_team, knockouts[49].away_team) == ("france", "argentina")
    assert view.outcomes[("worldcup-2018-draw", "m064")].advancing_team == "france"


def test_a_label_the_results_contradict_is_a_problem_naming_both(fork, tmp_path, capsys):
    """The source's label says 1C v 2D where its results later show the winner of B v the runner-up of A."""
    root, data, files, real_2018 = fork
    wrong = {**LABELS_2018, 51: ("1C", "2D"), 49: ("1B", "2A")}
    relative = _file(data, "wc2018-wrong", with_labels(real_2018, wrong, 49), "World Cup 2018")
    assert main(["define-competition", "worldcup-2018-wrong", "--from", relative, "--data-dir", str(data),
                 "--config", str(root / "arena.toml")]) == 0
    filled = [dict(m, num=49 + k - 48) if k >= 48 else m for k, m in enumerate(real_2018)]
    (data / relative).write_bytes(orjson.dumps({"name": "World Cup 2018", "matches": filled}))
    capsys.readouterr()
    assert _sync(fork, "worldcup-2018-wrong", tmp_path / "archive") == 1
    err = capsys.readouterr().err
    assert "match 51 (1C v 2D): the source names spain v russia, the rules yield france v argentina" in err
    assert "match 49 (1B v 2A): the source names france v argentina, the rules yield spain v russia" in err


def test_the_made_world_cups_and_the_labelled_file_replay_with_every_outcome_and_no_problem(fork, tmp_path):
    root, data, files, real_2018 = fork
    filled = [dict(m, num=49 + k - 48) if k >= 48 else m for k, m in enumerate(real_2018)]
    for cid in ("worldcup-1998", "worldcup-2002", "worldcup-2018-draw"):
        if not (root / "competitions" / f"{cid}.toml").exists():
            assert _define(fork, cid) == 0
        if cid == "worldcup-2018-draw":  # played: the file now names the teams
            (data / files[cid]).write_bytes(orjson.dumps({"name": "World Cup 2018", "matches": filled}))
        out = tmp_path / cid
        code = main(["replay", cid, "--out", str(out), "--config", str(root / "arena.toml"), "--data-dir", str(data)])
        view = load_archive(out / "archive")
        assert code == 0
        assert sum(1 for (c, _) in view.outcomes if c == cid) == 64
        assert sum(1 for (c, _), e in view.events.items() if c == cid and e.knockout) == 16


def test_without_the_data_folder_the_error_names_the_file_as_defined_and_no_made_up_url(fork, monkeypatch, tmp_path,
                                                                                        capsys):
    root, data, files, _ = fork
    if not (root / "competitions" / "worldcup-1998.toml").exists():
        assert _define(fork, "worldcup-1998") == 0
    monkeypatch.delenv("PREMATCH_DATA_DIR", raising=False)
    capsys.readouterr()
    assert main(["sync", "--competition", "worldcup-1998", "--config", str(root / "arena.toml"), "--now",
                 "2030-01-01", "--archive", str(tmp_path / "archive")]) == 1
    err = capsys.readouterr().err
    assert f"problem: {files['worldcup-1998']}: no public URL is known for this file; use --data-dir" in err
    assert "https://" not in err


def test_labels_of_a_file_without_match_numbers_read_the_kickoff_order(fork, capsys):
    """W49 is the winner of the first knockout match by kickoff (France v Argentina, 17:00 in Kazan), whatever
    slot of the format its labels 1C v 2D would fit."""
    root, data, _, real_2018 = fork
    unnumbered = [{k: v for k, v in m.items() if k != "num"} for m in with_labels(real_2018, LABELS_2018, 49)]
    relative = _file(data, "wc2018-unnumbered", unnumbered, "World Cup 2018")
    assert main(["define-competition", "worldcup-2018-unnumbered", "--from", relative, "--data-dir", str(data),
                 "--config", str(root / "arena.toml")]) == 0
    written = tomllib.loads((root / "competitions" / "worldcup-2018-unnumbered.toml").read_text())
    assert {s["match_number"]: (s["home_rule"], s["away_rule"]) for s in written["knockout_slots"]} == LABELS_2018
    assert next(s for s in written["knockout_slots"] if s["match_number"] == 49)["source_date"] == "2018-06-30"
