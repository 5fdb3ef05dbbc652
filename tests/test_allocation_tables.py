"""The official best-third tables as data: checked row by row, and against the real tournaments.

Every shipped table is complete (one row per combination of qualified groups) and each row is
a valid matching within the slot labels the regulations print; the labels are the ones of the
2026 source's own bracket (cup_finals.txt). The real pairings are what the tables give: the
2026 round of 32 and the Euro 2020 round of 16 are registered through the table (and a
shuffled table would be a problem naming the match). The 1986-1994 World Cup table is not
shipped, and a forecast says so.
"""

from __future__ import annotations

from datetime import UTC, datetime
from math import comb

import pytest

from collector.cli import main
from collector.competitions import load_competition, load_definition
from collector.competitions.allocation import (
    allocation_inputs,
    allocation_rows,
    list_allocations,
    load_allocation,
    table_problems,
)
from collector.competitions.define import WORLD_CUP_STAGES, parse_slots
from collector.competitions.loader import definitions_dir, parse_definition_file
from collector.datasource import DataSource
from collector.errors import ConfigError
from collector.fixtures.knowable import Knowledge
from collector.forecasters.baselines.simulate import assign_thirds, table_thirds
from collector.sources.openfootball import OpenfootballSource

NOW = datetime(2030, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("table_id", list_allocations())
def test_every_shipped_table_is_complete_and_every_row_a_valid_matching(table_id):
    table = load_allocation(table_id)
    assert table_problems(table) == []
    assert len(table.rows) == comb(len(table.groups), table.qualified)
    assert len({groups for groups, _ in table.rows}) == len(table.rows)
    for groups, thirds in table.rows:
        assert sorted(thirds) == sorted(groups)
        for label, group in zip(table.eligible, thirds, strict=True):
            assert group in label[1:].split("/")


def test_hand_read_rows_of_the_tables():
    fifa = dict(load_allocation("fifa-wc-48").rows)
    # Annex C row 1: thirds of E-L qualify; 1A plays 3E, 1B 3J, 1D 3I, 1E 3F, 1G 3H, 1I 3G, 1K 3L, 1L 3K
    assert fifa["EFGHIJKL"] == "EJIFHGLK"
    assert fifa["ABCDEFGH"] == "HGBCAFDE"  # the last row: 1A v 3H, 1B v 3G, 1D v 3B, ... 1L v 3E
    uefa = dict(load_allocation("uefa-euro-24").rows)
    assert uefa["ABCD"] == "ADBC"  # the regulations' example: WB v 3A, WC v 3D, WE v 3B, WF v 3C


def _write_table(folder, rows, eligible='["3A/D/E/F", "3D/E/F", "3A/B/C/D", "3A/B/C"]'):
    body = ", ".join(f'["{g}", "{t}"]' for g, t in rows)
    (folder / "t.toml").write_text(f'description = "t"\nsource = "test"\ngroups = "ABCDEF"\nqualified = 4\n'
                                   f'columns = ["1B", "1C", "1E", "1F"]\neligible = {eligible}\nrows = [{body}]\n')


@pytest.mark.parametrize(("change", "message"), [
    (lambda rows: rows[:-1], "14 combinations, 15 expected; missing: CDEF"),
    (lambda rows: rows + [rows[0]], "row 16 (ABCD): the combination is also row 1"),
    (lambda rows: [("ABCD", "DABC")] + rows[1:], "row 1 (ABCD): the third of group A cannot play 1C (slot 3D/E/F)"),
    (lambda rows: [("ABCD", "ADBB")] + rows[1:], "row 1 (ABCD): ADBB does not place each qualified group once"),
    (lambda rows: [("DCBA", "ADBC")] + rows[1:], "row 1 (DCBA): not 4 distinct groups of ABCDEF"),
])
def test_a_faulty_table_is_refused_naming_the_row(tmp_path, change, message):
    rows = list(load_allocation("uefa-euro-24").rows)
    _write_table(tmp_path, change(rows))
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_allocation("t", folder=tmp_path)


def test_the_2026_table_fits_the_labels_of_the_source_bracket(data_dir):
    text = (data_dir / "openfootball/worldcup-2026/cup_finals.txt").read_text(encoding="utf-8")
    slots = parse_slots(text, {label: sid for sid, _, _, labels in WORLD_CUP_STAGES for label in labels})
    rows = allocation_rows(load_allocation("fifa-wc-48"), slots)  # a label that differs would refuse it
    assert {a["match_number"] for a in rows[0]["assignments"]} == {74, 77, 79, 80, 81, 82, 85, 87}
    moved = [dict(s, away_rule="3A/B/C/D/E") if s["match_number"] == 74 else s for s in slots]
    with pytest.raises(ConfigError, match="0 knockout slots read 1E v 3A/B/C/D/F"):
        allocation_rows(load_allocation("fifa-wc-48"), moved)


def _knockouts_registered(competition, definition, data_dir, stage):
    batch = OpenfootballSource(definition, DataSource(data_dir)).fetch(competition)
    knowledge = Knowledge(competition, batch.matches)
    firsts = [m for m in batch.matches if m.stage == stage]
    assert firsts
    return [(m.label, *knowledge.registrable(m, NOW)) for m in firsts]


def test_the_2026_round_of_32_is_what_the_official_table_gives(data_dir):
    wc = load_competition("worldcup-2026", NOW)
    assert len(wc.best_third_table) == 495
    results = _knockouts_registered(wc, load_definition("worldcup-2026"), data_dir, "round-of-32")
    assert [r for r in results if r[1:] != (True, None)] == []
    def moved(row):  # every third moved one match along: not the official table
        groups = [a.group for a in row.assignments]
        return row.model_copy(update={"assignments": tuple(
            a.model_copy(update={"group": g}) for a, g in zip(row.assignments, groups[1:] + groups[:1], strict=True))})

    shuffled = wc.model_copy(update={"best_third_table": tuple(moved(row) for row in wc.best_third_table)})
    problems = [p for _, ok, p in _knockouts_registered(shuffled, load_definition("worldcup-2026"), data_dir,
                                                        "round-of-32") if p]
    assert problems and all("the rules yield" in p for p in problems)


@pytest.fixture(scope="module")
def euro(tmp_path_factory, data_dir):
    root = tmp_path_factory.mktemp("euro")
    (root / "c").mkdir()
    (root / "arena.toml").write_text('[arena]\ncompetitions = ["euro-2020"]\ncompetitions_dir = "c"\n')
    assert main(["define-competition", "euro-2020", "--from", "openfootball/euro-2020/euro.json", "--data-dir",
                 str(data_dir), "--config", str(root / "arena.toml"), "--time-zone", "Europe/Berlin"]) == 0
    return root / "c"


def test_the_euro_2020_round_of_16_is_what_the_official_table_gives(euro, data_dir):
    with definitions_dir(euro):
        competition, definition = load_competition("euro-2020", NOW), load_definition("euro-2020")
    assert competition.third_placed_in("ACDF", 39) == "F"  # 2021: Belgium (1B) v Portugal (3F)
    results = _knockouts_registered(competition, definition, data_dir, "round-of-16")
    assert len(results) == 8 and [r for r in results if r[1:] != (True, None)] == []


def test_the_simulator_places_thirds_by_the_table_and_its_inputs_say_which(euro):
    wc = load_competition("worldcup-2026", NOW)
    slots = [(s.match_number, side, set(rule[1:].split("/"))) for s in wc.knockout_slots
             for side, rule in (("home", s.home_rule), ("away", s.away_rule)) if rule[0] == "3"]
    official = {row.groups: table_thirds(wc, slots, frozenset(row.groups)) for row in wc.best_third_table}
    assert all(len(placed) == 8 for placed in official.values())
    assert official["EFGHIJKL"][(79, "away")] == "E" and official["EFGHIJKL"][(74, "away")] == "F"
    differ = sum(official[g] != assign_thirds(slots, list(g)) for g in official)
    assert differ > 100  # the naive first valid assignment is not the official table
    assert allocation_inputs(wc) == {"best_third_allocation": "the official table of the definition (495 combinations)"}
    with definitions_dir(euro):
        assert "(15 combinations)" in allocation_inputs(load_competition("euro-2020", NOW))["best_third_allocation"]
    assert allocation_inputs(wc.model_copy(update={"best_third_table": ()})) == {
        "best_third_allocation": "no official table in the definition: the first valid assignment in "
                                 "match-number order (an approximation, not the official allocation)"}
    assert allocation_inputs(load_competition("en-1-2025-26", NOW)) == {}


def test_the_1990_format_has_no_table_and_its_real_pairings_fit_the_slot_labels(tmp_path, data_dir):
    (tmp_path / "c").mkdir()
    (tmp_path / "arena.toml").write_text('[arena]\ncompetitions = ["wc90"]\ncompetitions_dir = "c"\n')
    assert main(["define-competition", "wc90", "--from", "openfootball/worldcup-1990/worldcup.json", "--data-dir",
                 str(data_dir), "--config", str(tmp_path / "arena.toml"), "--time-zone", "Europe/Rome"]) == 0
    with definitions_dir(tmp_path / "c"):
        competition, definition = load_competition("wc90", NOW), load_definition("wc90")
    assert competition.best_third_table == ()
    assert "no official table" in allocation_inputs(competition)["best_third_allocation"]
    results = _knockouts_registered(competition, definition, data_dir, "round-of-16")
    assert len(results) == 8 and [r for r in results if r[1:] != (True, None)] == []


def test_a_definition_naming_an_unknown_or_a_second_table_is_one_line(tmp_path):
    shipped = load_definition("worldcup-2026").path.read_text(encoding="utf-8")
    bad = tmp_path / "worldcup-2026.toml"
    bad.write_text(shipped.replace('best_third_allocation = "fifa-wc-48"', 'best_third_allocation = "fifa-wc-64"'))
    with pytest.raises(ConfigError) as info:
        parse_definition_file(bad)
    assert str(info.value).startswith(f"{bad}: key best_third_allocation: unknown best-third allocation table "
                                      "'fifa-wc-64'") and "\n" not in str(info.value)
    bad.write_text(shipped.replace('best_third_allocation = "fifa-wc-48"',
                                   'best_third_allocation = "fifa-wc-48"\nbest_third_table = [{groups = "ABCDEFGH", '
                                   'assignments = []}]'))
    with pytest.raises(ConfigError, match="key best_third_allocation: the definition also has a best_third_table"):
        parse_definition_file(bad)
