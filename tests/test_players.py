"""Player identity: one scorer's spellings count once, and the top-scorer question follows the definition's rule."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from collector.competitions.loader import definitions_dir
from collector.competitions.players import PlayerIndex, same_player
from collector.fixtures.question_resolution import answer_top_scorer_team
from collector.fixtures.sync import sync_competition
from collector.records import Clock, TopScorerTieBreak

EURO = "openfootball/euro-2020/euro.json"


@pytest.mark.parametrize(("a", "b", "same"), [
    ("Mbappé", "Kylian Mbappé", True),
    ("K. Mbappé", "Kylian Mbappe", True),
    ("KYLIAN MBAPPÉ", "kylian mbappe", True),
    ("van Dijk", "Virgil van Dijk", True),
    ("Eden Hazard", "Thorgan Hazard", False),
    ("E. Hazard", "T. Hazard", False),
    ("Lukaku", "Lukaku Menama", False),
    ("Schick", "Schäfer", False),
])
def test_same_player(a, b, same):
    assert same_player(a, b) is same and same_player(b, a) is same


def test_an_ambiguous_short_name_is_not_merged_by_guess(tmp_path):
    from collector.competitions import load_competition

    wc = load_competition("worldcup-2026", datetime(2026, 6, 1, tzinfo=UTC))
    seen = [("bel", "Eden Hazard"), ("bel", "Thorgan Hazard"), ("bel", "Hazard"), ("fra", "Mbappé"),
            ("fra", "Kylian Mbappé")]
    index = PlayerIndex(wc, None, seen)
    assert index.resolve("fra", "Mbappé") == index.resolve("fra", "K. Mbappe") == "Kylian Mbappé"
    assert index.resolve("bel", "Hazard") == "Hazard"  # two candidates: stays apart
    assert index.resolve("bel", "E. Hazard") == "Eden Hazard"


def test_squads_resolve_a_surname_to_the_squad_player():
    from collector.competitions import load_competition

    wc = load_competition("worldcup-2026", datetime(2026, 6, 1, tzinfo=UTC))
    index = PlayerIndex(wc, {"arg": ["Lautaro Martínez", "Lisandro Martínez", "Lionel Messi"]},
                        [("arg", "Messi"), ("arg", "L. Messi")])
    assert index.resolve("arg", "Messi") == index.resolve("arg", "L. Messi") == "Lionel Messi"
    assert index.resolve("arg", "Lautaro Martinez") == "Lautaro Martínez"
    assert index.resolve("arg", "L. Martínez") == "L. Martínez"  # Lautaro or Lisandro: not guessed


@pytest.fixture()
def euro(tmp_path, data_dir):
    data = tmp_path / "data"
    (data / "openfootball/euro-2020").mkdir(parents=True)
    document = orjson.loads((data_dir / EURO).read_bytes())
    for match in (m for r in document["rounds"] for m in r["matches"] if m.get("num") == 48):
        match["goals1"], match["goals2"] = match["goals2"], match["goals1"]  # the source lists England's under Ukraine
    (data / EURO).write_bytes(orjson.dumps(document))
    (tmp_path / "competitions").mkdir()
    (tmp_path / "arena.toml").write_text('[arena]\ncompetitions = ["euro"]\ncompetitions_dir = "competitions"\n')
    assert main(["define-competition", "euro", "--from", EURO, "--data-dir", str(data), "--config",
                 str(tmp_path / "arena.toml"), "--time-zone", "Europe/Berlin"]) == 0
    with definitions_dir(tmp_path / "competitions"):
        sync_competition(tmp_path / "archive", "euro", now=datetime(2021, 8, 1, tzinfo=UTC), data_dir=data,
                         clock=Clock.REPLAY)
    view = load_archive(tmp_path / "archive")
    return view.competitions["euro"], view.events_of("euro"), view.results_before("euro", datetime(2021, 8, 1,
                                                                                                   tzinfo=UTC))


def _respell(outcomes, spellings):
    """Each goal of a player named in ``spellings`` gets the next spelling in turn."""
    out, turn = {}, {}
    for eid, outcome in outcomes.items():
        goals = []
        for g in outcome.goals or ():
            if g.scorer in spellings:
                i = turn[g.scorer] = turn.get(g.scorer, -1) + 1
                g = g.model_copy(update={"scorer": spellings[g.scorer][i % len(spellings[g.scorer])]})
            goals.append(g)
        out[eid] = outcome.model_copy(update={"goals": tuple(goals)}) if outcome.goals is not None else outcome
    return out


@pytest.mark.slow
def test_accent_and_initial_variants_of_the_top_scorers_are_counted_once(euro):
    competition, events, outcomes = euro
    assert answer_top_scorer_team(events, outcomes, competition)[0] == ("cze", "por")  # Schick 5, Ronaldo 5
    varied = _respell(outcomes, {"Schick": ["Patrik Schick", "P. Schick", "SCHICK", "Schick", "Patrik Schíck"],
                                 "Ronaldo": ["Cristiano Ronaldo", "Ronaldo", "C. Ronaldo"]})
    assert answer_top_scorer_team(events, varied, None)[0] != ("cze", "por")  # names as strings: wrong teams
    assert answer_top_scorer_team(events, varied, competition)[0] == ("cze", "por")
    fewer = competition.model_copy(update={"top_scorer_tie_break": TopScorerTieBreak.FEWER_PENALTIES})
    assert answer_top_scorer_team(events, varied, fewer)[0] == ("cze",)  # Ronaldo's were three penalties


def test_the_alias_table_joins_what_names_alone_cannot(euro):
    competition, events, outcomes = euro
    varied = _respell(outcomes, {"Schick": ["Schick", "Schick", "Schick", "Paddy", "Paddy"]})
    assert answer_top_scorer_team(events, varied, competition)[0] == ("por",)
    aliased = competition.model_copy(update={"player_aliases": {"Paddy": "Schick"}})
    assert answer_top_scorer_team(events, varied, aliased)[0] == ("cze", "por")
