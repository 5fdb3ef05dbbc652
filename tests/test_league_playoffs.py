"""A league with play-offs (format league-playoffs-4) from a small openfootball-shaped file.

Six clubs play each other once (15 matches), then 1st v 4th and 2nd v 3rd in semi-finals and a
final. The file is written here; ``define-competition`` guesses the format, and the slot rules
``P1``..``P4`` (places in the league table) fail closed: the semi-finals are registered only
once every league match has finished and the source's teams are the table's; a source that
leaves a league fixture out never has a final table, so nothing is registered after it.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import orjson
import pytest

from collector.archive.reader import load_archive
from collector.audit.verify import verify_repository
from collector.cli import main
from collector.competitions import load_competition
from collector.competitions.loader import definitions_dir
from collector.competitions.slots import complete_round_robin
from collector.records import Competition

TEAMS = ["Alpha FC", "Beta FC", "Gamma FC", "Delta FC", "Epsilon FC", "Zeta FC"]
FILE = "openfootball/lp/league.json"
LAST_LEAGUE_KICKOFF = datetime(2025, 8, 30, 16, 0, tzinfo=UTC)  # matchday 5, third match, 17:00 UTC+1


def _league_matches() -> list[dict]:
    """A single round robin (circle method); the team listed first in TEAMS always wins: A 15, B 12, C 9, D 6 points."""
    order, rounds = list(range(6)), []
    for _ in range(5):
        rounds.append([(order[i], order[5 - i]) for i in range(3)])
        order = [order[0], order[-1], *order[1:-1]]
    out = []
    for r, pairs in enumerate(rounds):
        for k, (i, j) in enumerate(pairs):
            home, away = (i, j) if r % 2 == 0 else (j, i)
            out.append({"round": f"Matchday {r + 1}", "date": str(date(2025, 8, 2) + timedelta(days=7 * r)),
                        "time": f"{15 + k}:00 UTC+1", "team1": TEAMS[home], "team2": TEAMS[away],
                        "score": {"ft": [2, 0] if home < away else [0, 1]}})
    return [_with_goals(m) for m in out]


def _with_goals(match: dict) -> dict:
    """Scorers for every goal (a striker of each club, in minutes 10, 20, ...) so that goals add up."""
    score = match["score"].get("et") or match["score"]["ft"]
    return {**match, **{f"goals{side + 1}": [{"name": f"{match[f'team{side + 1}'].split()[0]} Striker",
                                               "minute": 10 * (n + 1)} for n in range(score[side])]
                        for side in (0, 1)}}


PLAYOFFS = [
    {"round": "Semi-finals", "date": "2025-09-13", "time": "15:00 UTC+1", "team1": "Alpha FC", "team2": "Delta FC",
     "score": {"ft": [2, 0]}},
    {"round": "Semi-finals", "date": "2025-09-13", "time": "18:00 UTC+1", "team1": "Beta FC", "team2": "Gamma FC",
     "score": {"ft": [1, 1], "et": [1, 1], "p": [4, 3]}},
    {"round": "Final", "date": "2025-09-20", "time": "16:00 UTC+1", "team1": "Alpha FC", "team2": "Beta FC",
     "score": {"ft": [1, 0]}},
]
PLAYOFFS = [_with_goals(m) for m in PLAYOFFS]


def _arena(root, matches, shared=None) -> tuple:
    data = root / "data"
    (data / "openfootball/lp").mkdir(parents=True)
    if shared is not None:  # the baselines read the international results (a replay needs them)
        (data / "international-results").symlink_to(shared / "international-results")
    (data / FILE).write_bytes(orjson.dumps({"name": "Test League 2025", "matches": matches}))
    (root / "c").mkdir()
    (root / "arena.toml").write_text('[arena]\ncompetitions = ["lp-2025"]\ncompetitions_dir = "c"\n'
                                     '[[forecasters]]\nid = "uniform"\ntype = "baseline"\n')
    return root / "arena.toml", data


@pytest.fixture(scope="module")
def league(tmp_path_factory, data_dir):
    config, data = _arena(tmp_path_factory.mktemp("lp"), _league_matches() + PLAYOFFS, data_dir)
    assert main(["define-competition", "lp-2025", "--from", FILE, "--config", str(config),
                 "--data-dir", str(data)]) == 0
    return config, data


def _sync(config, data, archive, now, capsys=None) -> tuple[int, str]:
    code = main(["sync", "--competition", "lp-2025", "--config", str(config), "--data-dir", str(data),
                 "--now", now, "--archive", str(archive)])
    return code, capsys.readouterr().err if capsys else ""


def _events(archive) -> dict[str, tuple[str, str]]:
    return {e.stage + ":" + e.id: (e.home_team, e.away_team) for e in load_archive(archive).events.values()}


@pytest.mark.slow
def test_the_format_is_guessed_and_its_rules_are_places_in_the_table(league):
    config, _ = league
    with definitions_dir(config.parent / "c"):
        competition = load_competition("lp-2025", datetime.now(UTC))
    assert "format league-playoffs-4" in competition.source and competition.groups == ()
    assert [(s.match_number, s.home_rule, s.away_rule) for s in competition.knockout_slots] == [
        (1, "P1", "P4"), (2, "P2", "P3"), (3, "W1", "W2")]


@pytest.mark.slow
def test_semi_finals_wait_for_the_last_league_match_then_the_final_for_them(league, tmp_path):
    config, data = league
    archive = tmp_path / "a"
    before = (LAST_LEAGUE_KICKOFF + timedelta(hours=1, minutes=59)).isoformat()  # still being played (2 h allowance)
    assert _sync(config, data, archive, before)[0] == 0
    assert not [k for k in _events(archive) if not k.startswith("group:")]
    assert _sync(config, data, archive, (LAST_LEAGUE_KICKOFF + timedelta(hours=2)).isoformat())[0] == 0
    knockouts = {k: v for k, v in _events(archive).items() if not k.startswith("group:")}
    assert sorted(knockouts.values()) == [("alpha-fc", "delta-fc"), ("beta-fc", "gamma-fc")]
    assert _sync(config, data, archive, "2025-09-14")[0] == 0  # both semi-finals finished (the second on penalties)
    view = load_archive(archive)
    final = [e for e in view.events.values() if e.stage == "final"]
    assert [(e.home_team, e.away_team) for e in final] == [("alpha-fc", "beta-fc")]
    semi = next(e for e in view.events.values() if e.home_team == "beta-fc" and e.stage == "semi-final")
    assert view.outcomes[("lp-2025", semi.id)].advancing_team == "beta-fc"


@pytest.mark.slow
def test_a_semi_final_naming_other_teams_than_the_table_is_a_problem(league, tmp_path, capsys):
    config, _ = league
    wrong = [dict(PLAYOFFS[0], team2="Gamma FC"), dict(PLAYOFFS[1], team2="Delta FC"), PLAYOFFS[2]]
    _, data = _arena(tmp_path / "w", _league_matches() + wrong)
    code, err = _sync(config, data, tmp_path / "a", "2025-09-01", capsys)
    assert code == 1
    assert "match 1 (P1 v P4): the source names alpha-fc v gamma-fc, the rules yield alpha-fc v delta-fc" in err
    assert not [k for k in _events(tmp_path / "a") if not k.startswith("group:")]


@pytest.mark.slow
def test_a_league_with_a_fixture_missing_never_registers_its_play_offs(league, tmp_path):
    config, _ = league
    matches = _league_matches()
    _, data = _arena(tmp_path / "m", matches[:7] + matches[8:] + PLAYOFFS)  # one league match not in the source
    _sync(config, data, tmp_path / "a", "2025-12-31")
    assert not [k for k in _events(tmp_path / "a") if not k.startswith("group:")]


@pytest.mark.slow
def test_a_replay_forecasts_play_offs_only_after_the_league_table_was_final(league, tmp_path):
    config, data = league
    repo = tmp_path / "r"
    assert main(["replay", "lp-2025", "--out", str(repo), "--config", str(config), "--data-dir", str(data)]) == 0
    view = load_archive(repo / "archive")
    league_done = max(o.recorded_at for (c, eid), o in view.outcomes.items()
                      if not view.events[(c, eid)].knockout)
    knockout = {eid for (_, eid), e in view.events.items() if e.knockout}
    asked = [f for f in view.forecasts if f.target_kind == "match" and f.target_id in knockout
             and f.requested_at is not None]
    assert asked and all(f.requested_at >= league_done for f in asked)
    assert verify_repository(repo).ok


def test_a_complete_round_robin_by_hand():
    assert complete_round_robin([("a", "b"), ("b", "c"), ("c", "a")], "abc")
    assert complete_round_robin([("a", "b"), ("b", "a"), ("b", "c"), ("c", "b"), ("a", "c"), ("c", "a")], "abc")
    assert not complete_round_robin([("a", "b"), ("b", "c")], "abc")  # a v c missing
    assert not complete_round_robin([("a", "b"), ("b", "a"), ("b", "c"), ("a", "c")], "abc")  # uneven
    assert not complete_round_robin([], "")


@pytest.mark.slow
def test_a_place_rule_needs_a_league_and_a_place_that_exists(league):
    config, _ = league
    with definitions_dir(config.parent / "c"):
        competition = load_competition("lp-2025", datetime.now(UTC))
    data = competition.model_dump()
    data["knockout_slots"][0]["away_rule"] = "P7"
    with pytest.raises(ValueError, match="rule P7 reads a league table: a competition without groups, positions 1-6"):
        Competition.model_validate(data)
