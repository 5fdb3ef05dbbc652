"""A cup with two-legged knockout rounds (format cup-16-two-legs) from a constructed file.

Four groups of four (in each group the team listed first beats every other: 1st 9 points,
2nd 6, 3rd 3, 4th 0), then two-legged quarter-finals (1A v 2B, 1B v 2A, 1C v 2D, 1D v 2C; first
leg at the runner-up's), two-legged semi-finals and a single final. The file is written by the
test (tmp_path); define-competition guesses the format from the pairs met twice.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from itertools import combinations

import orjson
import pytest

from collector.archive.reader import load_archive
from collector.audit.verify import verify_repository
from collector.cli import main
from collector.competitions import load_competition
from collector.competitions.loader import definitions_dir
from tests.legs_helpers import assert_nothing_before_its_feeders
from tests.legs_helpers import feeders as legs_feeders

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

FILE = "openfootball/cl/cup.json"
CID = "cl-2025"
GROUPS = {g: [f"{name} {g}" for name in ("Lions", "Hawks", "Bears", "Foxes")] for g in "ABCD"}


def _match(round_name, day, time, home, away, group=None, **score):
    match = {"round": round_name, "date": day, "time": f"{time} UTC+1", "team1": home, "team2": away, "score": score}
    if group:
        match["group"] = f"Group {group}"
    ft, et = score["ft"], score.get("et") or score["ft"]
    return {**match, **{f"goals{side + 1}": [{"name": f"{match[f'team{side + 1}']} Striker", "minute": 10 + n}
                                             for n in range(ft[side])]
                        + [{"name": f"{match[f'team{side + 1}']} Sub", "minute": 100 + n} for n in range(et[side] - ft[side])]
                        for side in (0, 1)}}


def _groups() -> list[dict]:
    out = []
    for k, (group, teams) in enumerate(GROUPS.items()):
        for n, (i, j) in enumerate(combinations(range(4), 2)):
            day = str(date(2025, 9, 2) + timedelta(days=7 * (n // 2)))
            home, away = (teams[i], teams[j]) if n % 2 == 0 else (teams[j], teams[i])
            ft = [2, 0] if home == teams[i] else [0, 1]
            out.append(_match(f"Matchday {n // 2 + 1}", day, f"{14 + k}:00" if n % 2 else f"{18 + k}:00",
                              home, away, group, ft=ft))
    return out


def _first(g):
    return GROUPS[g][0]


def _second(g):
    return GROUPS[g][1]


QF1 = [  # first legs at the runner-up's, second legs at the winner's
    _match("Quarter-finals, 1st leg", "2025-10-07", "20:00", _second("B"), _first("A"), ft=[0, 1]),
    _match("Quarter-finals, 1st leg", "2025-10-07", "21:00", _second("A"), _first("B"), ft=[1, 1]),
    _match("Quarter-finals, 1st leg", "2025-10-08", "20:00", _second("D"), _first("C"), ft=[2, 0]),
    _match("Quarter-finals, 1st leg", "2025-10-08", "21:00", _second("C"), _first("D"), ft=[3, 1]),
]
QF2 = [
    _match("Quarter-finals, 2nd leg", "2025-10-14", "20:00", _first("A"), _second("B"), ft=[2, 2], agg=[3, 2]),
    _match("Quarter-finals, 2nd leg", "2025-10-14", "21:00", _first("B"), _second("A"), ft=[0, 0], et=[1, 0]),
    _match("Quarter-finals, 2nd leg", "2025-10-15", "20:00", _first("C"), _second("D"), ft=[3, 0]),  # 3-2 agg
    _match("Quarter-finals, 2nd leg", "2025-10-15", "21:00", _first("D"), _second("C"), ft=[2, 0], et=[2, 0],
           p=[3, 5]),  # 3-3 on aggregate after extra time, the runner-up of C through on penalties
]
SF = [  # W30 v W26 and W32 v W28 first
    _match("Semi-finals, 1st leg", "2025-10-28", "21:00", _first("C"), _first("A"), ft=[1, 0]),
    _match("Semi-finals, 1st leg", "2025-10-29", "21:00", _second("C"), _first("B"), ft=[0, 2]),
    _match("Semi-finals, 2nd leg", "2025-11-04", "21:00", _first("A"), _first("C"), ft=[2, 0]),
    _match("Semi-finals, 2nd leg", "2025-11-05", "21:00", _first("B"), _second("C"), ft=[1, 1]),
]
FINAL = [_match("Final", "2025-11-22", "20:00", _first("A"), _first("B"), ft=[1, 0])]
KNOCKOUTS = QF1 + QF2 + SF + FINAL


def _arena(root, matches, shared=None):
    data = root / "data"
    (data / "openfootball/cl").mkdir(parents=True)
    if shared is not None:  # the baselines read the international results (a replay needs them)
        (data / "international-results").symlink_to(shared / "international-results")
    (data / FILE).write_bytes(orjson.dumps({"name": "Test Club Cup 2025", "matches": matches}))
    (root / "c").mkdir(exist_ok=True)
    (root / "arena.toml").write_text(f'[arena]\ncompetitions = ["{CID}"]\ncompetitions_dir = "c"\n'
                                     '[[forecasters]]\nid = "uniform"\ntype = "baseline"\n'
                                     '[[forecasters]]\nid = "elo"\ntype = "baseline"\n')
    return root / "arena.toml", data


@pytest.fixture(scope="module")
def cup(tmp_path_factory, data_dir):
    config, data = _arena(tmp_path_factory.mktemp("cl"), _groups() + KNOCKOUTS, data_dir)
    assert main(["define-competition", CID, "--from", FILE, "--config", str(config), "--data-dir", str(data)]) == 0
    return config, data


def _sync(config, data, archive, now, capsys):
    code = main(["sync", "--competition", CID, "--config", str(config), "--data-dir", str(data),
                 "--now", now, "--archive", str(archive)])
    return code, capsys.readouterr().err


def _knockouts(archive):
    return {e.match_number: e for e in load_archive(archive).events.values() if e.stage != "group"}


def test_the_format_is_guessed_from_pairs_met_twice_in_two_rounds(cup):
    config, _ = cup
    with definitions_dir(config.parent / "c"):
        competition = load_competition(CID, datetime.now(UTC))
    assert "format cup-16-two-legs" in competition.source and competition.away_goals is False
    assert competition.first_legs() == {26: 25, 28: 27, 30: 29, 32: 31, 34: 33, 36: 35}
    assert [(s.match_number, s.home_rule, s.away_rule) for s in competition.knockout_slots][-1] == (37, "W34", "W36")


def test_sync_registers_each_round_only_after_both_legs_of_its_feeding_ties(cup, tmp_path, capsys):
    config, data = cup
    archive = tmp_path / "a"
    assert _sync(config, data, archive, "2025-09-20", capsys)[0] == 0  # groups over: the eight quarter-final legs
    assert sorted(_knockouts(archive)) == list(range(25, 33))
    assert _sync(config, data, archive, "2025-10-10", capsys)[0] == 0  # first legs only: no semi-final
    assert sorted(_knockouts(archive)) == list(range(25, 33))
    code, err = _sync(config, data, archive, "2025-10-16", capsys)
    assert code == 0, err
    ko = _knockouts(archive)
    assert sorted(ko) == list(range(25, 37))
    view = load_archive(archive)
    team = {t.name: t.id for t in view.competitions[CID].teams}
    assert (ko[33].home_team, ko[33].away_team) == (team[_first("C")], team[_first("A")])
    assert (ko[35].home_team, ko[35].away_team) == (team[_second("C")], team[_first("B")])  # won on penalties
    assert view.outcomes[(CID, ko[32].id)].advancing_team == team[_second("C")]
    assert view.outcomes[(CID, ko[28].id)].advancing_team == team[_first("B")]  # 1-1, then 1-0 after extra time
    code, err = _sync(config, data, archive, "2025-11-05", capsys)  # SF 2nd legs on the 4th and the 5th:
    assert code == 0 and 37 not in _knockouts(archive), err  # the 5th has not ended at 00:00
    assert _sync(config, data, archive, "2025-11-06", capsys)[0] == 0
    final = _knockouts(archive)[37]
    assert (final.home_team, final.away_team, final.knockout) == (team[_first("A")], team[_first("B")], True)


def test_a_replay_forecasts_nothing_before_its_feeding_ties_are_decided_and_verifies(cup, tmp_path):
    config, data = cup
    repo = tmp_path / "r"
    assert main(["replay", CID, "--out", str(repo), "--config", str(config), "--data-dir", str(data)]) == 0
    view = load_archive(repo / "archive")
    feeders = legs_feeders(view)
    assert len(feeders) == 13
    forecasts = assert_nothing_before_its_feeders(view, CID, feeders)
    assert forecasts >= 13
    report = verify_repository(repo)
    assert report.ok, [str(v) for v in report.violations]
