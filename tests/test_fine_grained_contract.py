"""The fine-grained answer models and the match report record: what they accept and refuse."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from collector.archive.layout import identity, path_for
from collector.archive.reader import load_archive
from collector.records import RECORD_ADAPTER, MatchForecast
from tests.fine_grained_helpers import (
    eleven,
    forecast,
    forecast_dict,
    report,
    report_dict,
    stats,
)


def test_a_valid_fine_grained_forecast_round_trips_inside_the_match_forecast():
    fg = forecast()
    mf = MatchForecast(home_win_90=0.5, draw_90=0.3, away_win_90=0.2, expected_home_goals_90=1.4,
                       expected_away_goals_90=0.9, most_likely_score_90={"home": 1, "away": 0}, fine_grained=fg)
    again = MatchForecast.model_validate_json(mf.model_dump_json())
    assert again.fine_grained == fg
    assert [p.player for p in fg.ranked("scorers")] == ["Home Player9", "Away Player10"]


@pytest.mark.parametrize(("change", "message"), [
    ({"home_lineup": {"formation": "4-3-3", "starting": eleven("H")[:10]}}, "at least 11"),
    ({"home_lineup": {"formation": "4-4-3", "starting": eleven("H")}}, "11 outfield players, not 10"),
    ({"home_lineup": {"formation": "433", "starting": eleven("H")}}, "pattern"),
    ({"statistics": stats(possession={"home": 70.0, "away": 40.0})}, "possession sums to 110"),
    ({"statistics": stats(shots_on_target={"home": 13.0, "away": 3.0})}, "home shots_on_target exceed shots"),
    ({"goals": [{"side": "home", "player": "X", "minute": 131.0}]}, "less than or equal to 130"),
    ({"cards": [{"side": "home", "player": "X", "minute": 3.0, "colour": "orange"}]}, "colour"),
])
def test_an_incoherent_forecast_is_refused_naming_the_field(change, message):
    with pytest.raises(ValidationError, match=message):
        forecast(**change)


def test_every_statistic_needs_both_sides():
    broken = stats()
    broken["corners"] = {"home": 4.0}
    with pytest.raises(ValidationError, match="statistics.corners.away"):
        forecast(statistics=broken)


def test_none_is_no_data_and_an_empty_tuple_is_nothing_happened():
    r = report(cards=[], penalties=None, statistics=None)
    assert r.available("cards") and r.cards == ()
    assert not r.available("penalties") and not r.available("statistics")
    assert "penalties" not in r.sources


def test_a_field_without_a_source_and_a_source_without_a_field_are_refused():
    data = report_dict()
    del data["sources"]["goals"]
    with pytest.raises(ValidationError, match="fields without a source: goals"):
        report(**data)
    data = report_dict(penalties=None)
    data["sources"]["penalties"] = data["sources"]["goals"]
    with pytest.raises(ValidationError, match="sources named for fields without data: penalties"):
        report(**data)


def test_a_match_report_has_its_own_path_and_is_read_back_from_the_archive(archive_dir):
    r = report()
    path = path_for(r)
    assert path == "worldcup-2026/events/m01/match_report.r000.json"
    assert identity(r) == ("match_report", "worldcup-2026", "m01")
    target = archive_dir / path
    target.parent.mkdir(parents=True)
    target.write_text(r.model_dump_json())
    loaded = load_archive(archive_dir)
    assert loaded.match_reports_of("worldcup-2026") == {"m01": r}
    assert RECORD_ADAPTER.validate_json(target.read_text()) == r


def test_a_hand_edited_report_with_a_bad_minute_is_a_problem_naming_the_file_and_field(archive_dir):
    data = json.loads(report().model_dump_json())
    data["goals"][0]["minute"] = -3
    target = archive_dir / "worldcup-2026/events/m01/match_report.r000.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(data))
    loaded = load_archive(archive_dir)
    assert loaded.match_reports == {}
    [problem] = loaded.problems
    assert "match_report.r000.json" in problem.path and "goals.0.minute" in problem.message


def test_goal_minutes_add_stoppage_time():
    r = report(goals=[{"side": "away", "player": "A", "minute": 90, "stoppage": 4, "own_goal": True}])
    assert r.goals[0].at == 94.0
    assert forecast_dict()["penalties"] == []
