"""Competition definitions: the shipped TOML files, alias resolution and the generator."""

from __future__ import annotations

import csv
from datetime import UTC, datetime

import pytest

from collector.commands.define_competition import HEADER
from collector.competitions import (
    list_competitions,
    load_competition,
    load_definition,
    resolve_team,
)
from collector.competitions.define import define_competition
from collector.competitions.toml_out import dumps
from collector.datasource import DataSource
from collector.errors import ConfigError, SourceError
from collector.records import CompetitionFormat

T0 = datetime(2026, 5, 1, tzinfo=UTC)
LEAGUES = ["de-1-2025-26", "en-1-2025-26", "es-1-2025-26", "fr-1-2025-26", "it-1-2025-26"]


def test_the_shipped_competitions_are_found_and_every_definition_loads():
    # a fork adds definitions (here or in its competitions_dir): the shipped ones must be there, others may
    assert set(list_competitions()) >= {"worldcup-2026", *LEAGUES}
    for cid in list_competitions():
        competition = load_competition(cid, T0)
        assert competition.id == cid and competition.recorded_at == T0


def test_world_cup_definition():
    wc = load_competition("worldcup-2026", T0)
    assert wc.format is CompetitionFormat.TOURNAMENT
    assert len(wc.teams) == 48 and len(wc.groups) == 12 and all(len(g.teams) == 4 for g in wc.groups)
    assert wc.best_third_placed == 8
    slots = {s.match_number: s for s in wc.knockout_slots}
    assert sorted(slots) == list(range(73, 105))
    assert (slots[74].home_rule, slots[74].away_rule, slots[74].stage) == ("1E", "3A/B/C/D/F", "round-of-32")
    assert (slots[89].home_rule, slots[89].away_rule) == ("W74", "W77")
    assert (slots[103].home_rule, slots[103].away_rule, slots[103].stage) == ("L101", "L102", "third-place")
    assert (slots[104].home_rule, slots[104].stage) == ("W101", "final")
    assert wc.team("mex").code == "MEX" and wc.team("cze").group == "A"


def test_league_definitions_use_slugs_time_zones_and_relegation():
    en = load_competition("en-1-2025-26", T0)
    assert len(en.teams) == 20 and en.time_zone == "Europe/London" and en.relegation_places == 3
    assert "liverpool-fc" in {t.id for t in en.teams}
    de = load_competition("de-1-2025-26", T0)
    assert len(de.teams) == 18 and "fc-bayern-munchen" in {t.id for t in de.teams}
    assert load_definition("de-1-2025-26").source.football_data_code == "BL1"


@pytest.mark.parametrize(
    ("name", "team_id"),
    [
        ("USA", "usa"), ("United States", "usa"), ("Czech Republic", "cze"), ("Czechia", "cze"),
        ("Bosnia & Herzegovina", "bih"), ("Bosnia-Herzegovina", "bih"), ("Bosnia and Herzegovina", "bih"),
        ("DR Congo", "cod"), ("Congo DR", "cod"), ("Cape Verde", "cpv"), ("Cape Verde Islands", "cpv"),
        ("Turkey", "tur"), ("Türkiye", "tur"), ("Ivory Coast", "civ"), ("Côte d'Ivoire", "civ"),
        ("South Korea", "kor"), ("Korea Republic", "kor"), ("Iran", "irn"), ("IR Iran", "irn"),
        ("Curaçao", "cuw"), ("Curacao", "cuw"), ("MEX", "mex"), ("mexico", "mex"),
    ],
)
def test_aliases_resolve(name, team_id):
    assert resolve_team(load_competition("worldcup-2026", T0), name) == team_id


def test_appendix_f_candidate_names_resolve():
    # seeds/000 Table 8, group by group
    table8 = (
        "Mexico; South Africa; South Korea; Czechia; Canada; Switzerland; Qatar; Bosnia-Herzegovina; "
        "Brazil; Morocco; Haiti; Scotland; United States; Paraguay; Australia; Turkey; Germany; Ecuador; "
        "Ivory Coast; Curaçao; Netherlands; Japan; Tunisia; Sweden; Belgium; Egypt; Iran; New Zealand; "
        "Spain; Uruguay; Cape Verde Islands; Saudi Arabia; France; Senegal; Iraq; Norway; Argentina; "
        "Algeria; Austria; Jordan; Portugal; Colombia; Uzbekistan; Congo DR; England; Croatia; Ghana; Panama"
    ).split("; ")
    wc = load_competition("worldcup-2026", T0)
    assert len({resolve_team(wc, name) for name in table8}) == 48


def test_international_results_names_of_all_48_teams_resolve(data_dir):
    wc = load_competition("worldcup-2026", T0)
    names = set()
    with open(data_dir / "international-results" / "results.csv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["tournament"] == "FIFA World Cup" and row["date"] >= "2026-06-11":
                names |= {row["home_team"], row["away_team"]}
    assert len(names) == 48
    assert {resolve_team(wc, n) for n in names} == {t.id for t in wc.teams}


def test_unknown_team_names_source_match_and_closest_teams():
    wc = load_competition("worldcup-2026", T0)
    with pytest.raises(SourceError) as info:
        resolve_team(wc, "Czeck Republik", source="openfootball:x.json", match="Matchday 1 Mexico v ?")
    text = str(info.value)
    assert "openfootball:x.json" in text and "Matchday 1 Mexico v ?" in text and "Czech Republic" in text


def test_unknown_competition_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown competition 'xx-1'.*worldcup-2026"):
        load_definition("xx-1")


@pytest.mark.parametrize("competition_id", ["worldcup-2026", *LEAGUES])
def test_shipped_definitions_match_the_generator(competition_id, data_dir):
    """The committed TOML is what `define-competition` derives (hand edits would show here)."""
    generated = HEADER + dumps(define_competition(competition_id, DataSource(data_dir)))
    assert load_definition(competition_id).path.read_text(encoding="utf-8") == generated
