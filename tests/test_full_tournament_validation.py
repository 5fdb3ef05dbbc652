"""Validation of the two full-tournament answers against hostile or sloppy model output."""

from __future__ import annotations

import json

import pytest

from collector.forecasters.llm.full_tournament_validation import (
    validate_groups,
    validate_knockouts,
)
from collector.forecasters.tournament.bracket import group_fixtures, predicted_tables
from collector.records import ForecastStatus
from tests.tournament_helpers import small_cup

CUP = small_cup()
FIXTURES = group_fixtures(CUP)


def _group_answer(**changes):
    items = [{"group": f.group, "home": f.home, "away": f.away, "home_win": 0.5, "draw": 0.3, "away_win": 0.2,
              "score": {"home": 1, "away": 0}} for f in FIXTURES]
    for index, update in changes.items():
        items[int(index.removeprefix("m"))].update(update)
    return json.dumps({"group_matches": items, "reason": "ok"})


def test_a_complete_group_answer_gives_the_matches_in_fixture_order():
    checked = validate_groups(_group_answer(), FIXTURES)
    assert checked.ok and checked.status is ForecastStatus.VALID
    assert [(m.home, m.away) for m in checked.payload.group_matches] == [(f.home, f.away) for f in FIXTURES]


@pytest.mark.parametrize(("answer", "status", "needle"), [
    ("no json here", ForecastStatus.INVALID_JSON, "no JSON object"),
    ('{"group_matches": [1, 2]}', ForecastStatus.INVALID_SCHEMA, "list of objects"),
    (_group_answer(m0={"home": "zz9"}), ForecastStatus.INVALID_SCHEMA, "not one of the listed group matches"),
    (_group_answer(m1={"home": "a1", "away": "a2"}), ForecastStatus.INVALID_SCHEMA, "listed twice"),
    (_group_answer(m0={"group": "B"}), ForecastStatus.INVALID_SCHEMA, "expected A"),
    (_group_answer(m0={"home_win": 0.9}), ForecastStatus.INVALID_SUM, "sum to 1.4"),
    (_group_answer(m0={"home_win": "high"}), ForecastStatus.INVALID_SCHEMA, "must be a number"),
    (_group_answer(m0={"score": {"home": 0, "away": 2}}), ForecastStatus.INVALID_SCORE, "not the most likely"),
    (_group_answer(m0={"score": {"home": -1, "away": 0}}), ForecastStatus.INVALID_SCORE, "non-negative"),
])
def test_bad_group_answers_are_named(answer, status, needle):
    checked = validate_groups(answer, FIXTURES)
    assert not checked.ok and checked.status is status
    assert any(needle in e for e in checked.errors), checked.errors


def test_a_missing_match_and_a_small_sum_error():
    items = json.loads(_group_answer(m0={"home_win": 0.51}))["group_matches"]
    checked = validate_groups(json.dumps({"group_matches": items}), FIXTURES)
    assert checked.ok and checked.normalized  # 1.01: normalised within the tolerance, recorded
    checked = validate_groups(json.dumps({"group_matches": items[1:]}), FIXTURES)
    assert not checked.ok and "1 group match(es) missing: a1 v a2" in checked.errors[0]


def _knockouts(groups, **changes):
    tables = predicted_tables(CUP, groups)
    winners = {n: None for n in (13, 14, 15, 16)}
    rows = []
    first = {13: (tables["A"][0].team, tables["B"][1].team), 14: (tables["B"][0].team, tables["A"][1].team)}
    for n in (13, 14):
        winners[n] = first[n]
        rows.append({"match_number": n, "home": first[n][0], "away": first[n][1], "score": {"home": 1, "away": 0},
                     "advances": first[n][0], "advance_probability": 0.6})
    rows.append({"match_number": 15, "home": first[13][1], "away": first[14][1], "score": {"home": 2, "away": 2},
                 "advances": first[14][1], "advance_probability": 0.5})
    rows.append({"match_number": 16, "home": first[13][0], "away": first[14][0], "score": {"home": 0, "away": 1},
                 "advances": first[14][0], "advance_probability": 0.55})
    for n, update in changes.items():
        next(r for r in rows if r["match_number"] == int(n.removeprefix("m"))).update(update)
    return json.dumps({"knockout_matches": rows}), tables


def test_knockouts_must_be_the_codes_pairings_from_the_answers_own_winners():
    groups = validate_groups(_group_answer(), FIXTURES).payload
    text, tables = _knockouts(groups)
    checked = validate_knockouts(text, CUP, groups.group_matches, tables)
    assert checked.ok and checked.payload.knockout(16).advances == checked.payload.knockout(14).home
    text, _ = _knockouts(groups, m16={"away": checked.payload.knockout(14).away,
                                      "advances": checked.payload.knockout(14).away})
    wrong = validate_knockouts(text, CUP, groups.group_matches, tables)
    assert not wrong.ok and wrong.errors[0].startswith("pairing: match 16 (W13 v W14): expected ")


@pytest.mark.parametrize(("changes", "needle"), [
    ({"m13": {"advances": "b4"}}, "plays neither side"),
    ({"m13": {"score": {"home": 0, "away": 1}}}, "contradicts advances"),
    ({"m13": {"home": "zz9", "advances": "zz9"}}, "unknown team id"),
    ({"m13": {"match_number": 99}}, "not a knockout match number"),
    ({"m13": {"advance_probability": 1.5}}, "outside [0, 1]"),
])
def test_bad_knockout_answers_are_named(changes, needle):
    groups = validate_groups(_group_answer(), FIXTURES).payload
    text, tables = _knockouts(groups, **changes)
    checked = validate_knockouts(text, CUP, groups.group_matches, tables)
    assert not checked.ok and any(needle in e for e in checked.errors), checked.errors
