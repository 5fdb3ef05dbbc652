"""The format catalogue and best-third tables are data, checked by the contract and used by the simulator."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from itertools import combinations

import pytest
from pydantic import ValidationError

from collector.cli import main
from collector.competitions import load_competition
from collector.competitions.formats import list_formats, load_format
from collector.competitions.loader import definitions_dir
from collector.forecasters.baselines.simulate import assign_thirds, table_thirds
from collector.records import Clock, Competition

NOW = datetime(2021, 6, 1, tzinfo=UTC)


def _competition_of(fmt) -> Competition:
    """A competition with the format's groups, slots and table (the contract validates them)."""
    letters = "ABCDEFGHIJKL"[: fmt.groups]
    teams = [{"id": f"t{g.lower()}{i}", "name": f"{g}{i}"} for g in letters for i in range(fmt.group_size)]
    if not letters:  # a league with play-offs: six clubs, no groups
        teams = [{"id": f"club{i}", "name": f"Club {i}"} for i in range(6)]
    stages = [{"id": "group", "name": "Groups"}] + [{"id": s, "name": s, "knockout": True, "order": i + 1}
                                                    for i, s in enumerate(fmt.stages())]
    return Competition.model_validate({
        "recorded_at": NOW, "clock": Clock.REPLAY, "id": "x", "name": "x", "edition": "x", "format": "tournament",
        "time_zone": "UTC", "teams": teams, "stages": stages, "source": "test",
        "groups": [{"name": g, "teams": [t["id"] for t in teams if t["name"][0] == g]} for g in letters],
        "knockout_slots": fmt.slot_dicts(), "best_third_placed": fmt.best_third_placed,
        "best_third_table": list(fmt.best_third_table)}, strict=False)


@pytest.mark.parametrize("format_id", [f for f in list_formats() if f != "league"])
def test_every_format_is_a_valid_bracket(format_id):
    fmt = load_format(format_id)
    competition = _competition_of(fmt)
    assert len(competition.knockout_slots) == len(fmt.slots)
    if fmt.best_third_table:  # one row per set of qualified groups
        groups = "ABCDEFGHIJKL"[: fmt.groups]
        assert {r.groups for r in competition.best_third_table} == {
            "".join(c) for c in combinations(groups, fmt.best_third_placed)}


def test_a_table_row_that_breaks_a_slot_rule_is_refused():
    fmt = load_format("cup-24-euro")
    rows = [dict(r) for r in fmt.best_third_table]
    rows[0] = {"groups": "ABCD", "assignments": [{"match_number": 40, "group": "A"},  # 1C plays 3D/E/F only
                                                 {"match_number": 39, "group": "D"},
                                                 {"match_number": 43, "group": "B"},
                                                 {"match_number": 41, "group": "C"}]}
    with pytest.raises(ValidationError, match="group A cannot play match 40"):
        _competition_of(type(fmt)(**{**fmt.__dict__, "best_third_table": tuple(rows)}))


def test_the_official_euro_table_is_used_and_differs_from_the_first_valid_assignment(tmp_path, data_dir):
    (tmp_path / "c").mkdir()
    (tmp_path / "arena.toml").write_text('[arena]\ncompetitions = ["e"]\ncompetitions_dir = "c"\n')
    assert main(["define-competition", "euro-2020", "--from", "openfootball/euro-2020/euro.json", "--data-dir",
                 str(data_dir), "--config", str(tmp_path / "arena.toml"), "--time-zone", "Europe/Berlin"]) == 0
    text = (tmp_path / "c" / "euro-2020.toml").read_text()
    written = tomllib.loads(text)  # the definition names UEFA's table; loading binds it to its slots
    assert written["best_third_allocation"] == "uefa-euro-24" and "best_third_table" not in written
    with definitions_dir(tmp_path / "c"):
        euro = load_competition("euro-2020", NOW)
    assert len(euro.best_third_table) == 15
    # 2021: the thirds of A, C, D, F went through; Belgium (1B) met Portugal (3F), France (1F) Switzerland (3A)
    assert euro.third_placed_in("ACDF", 39) == "F" and euro.third_placed_in("ACDF", 41) == "A"
    slots = [(s.match_number, side, set(rule[1:].split("/"))) for s in euro.knockout_slots
             for side, rule in (("home", s.home_rule), ("away", s.away_rule)) if rule[0] == "3"]
    official = {row.groups: table_thirds(euro, slots, frozenset(row.groups)) for row in euro.best_third_table}
    first_valid = {groups: assign_thirds(slots, list(groups)) for groups in official}
    assert all(official[g] for g in official)
    assert sum(official[g] != first_valid[g] for g in official) >= 3  # the table is not the naive assignment
    assert official["ACDF"][(39, "away")] == "F"


@pytest.mark.slow
def test_the_2026_source_fits_the_48_team_format_at_its_own_numbers(data_dir):
    from collector.datasource import DataSource
    from collector.sources.derive import derive_definition

    derived = derive_definition("wc26", DataSource(data_dir), "openfootball/worldcup-2026/worldcup.json")
    assert derived.format_id == "cup-48" and derived.format_guessed
    shipped = load_competition("worldcup-2026", NOW)
    pairs = {s.match_number: (s.stage, {s.home_rule, s.away_rule}) for s in shipped.knockout_slots}
    assert {s["match_number"]: (s["stage"], {s["home_rule"], s["away_rule"]})
            for s in derived.definition["knockout_slots"]} == pairs
    assert derived.definition["host_nations"] == ["can", "mex", "usa"]
    assert derived.definition["venue_countries"]["Guadalajara (Zapopan)"] == "mex"


def test_a_format_that_does_not_fit_names_the_matches_and_writes_nothing(tmp_path, data_dir, capsys):
    (tmp_path / "c").mkdir()
    (tmp_path / "arena.toml").write_text('[arena]\ncompetitions = ["e"]\ncompetitions_dir = "c"\n')
    code = main(["define-competition", "wc14", "--from", "openfootball/worldcup-2014/worldcup.json", "--format",
                 "cup-32-no-third", "--data-dir", str(data_dir), "--config", str(tmp_path / "arena.toml")])
    err = capsys.readouterr().err
    assert code == 1 and list((tmp_path / "c").iterdir()) == []
    assert "could not place (Match for third place" not in err  # labels are the source's own
    assert "Match for third place 2014-07-12 Brazil v Netherlands: stage third-place has no slots" in err
    code = main(["define-competition", "wc14", "--from", "openfootball/worldcup-2014/worldcup.json", "--format",
                 "cup-24-wc", "--data-dir", str(data_dir), "--config", str(tmp_path / "arena.toml")])
    err = capsys.readouterr().err
    assert code == 1 and list((tmp_path / "c").iterdir()) == []
    assert "8 group(s) of [4] teams do not fit format cup-24-wc (6 groups of 4)" in err


def test_an_unknown_time_zone_option_is_one_line_and_writes_nothing(tmp_path, data_dir, capsys):
    (tmp_path / "c").mkdir()
    (tmp_path / "arena.toml").write_text('[arena]\ncompetitions = ["e"]\ncompetitions_dir = "c"\n')
    assert main(["define-competition", "e20", "--from", "openfootball/euro-2020/euro.json", "--data-dir",
                 str(data_dir), "--config", str(tmp_path / "arena.toml"), "--time-zone", "Europe/Berln"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--time-zone: unknown IANA time zone 'Europe/Berln'" in err
    assert list((tmp_path / "c").iterdir()) == []
