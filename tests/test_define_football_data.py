"""``define-competition --from football-data:CODE/SEASON``: the v4 matches endpoint (served by respx) as a source."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime, timedelta, timezone

import httpx
import orjson
import respx

from collector.cli import main

URL = "https://api.football-data.org/v4/competitions/WC/matches"
STAGE = {"Round of 16": "LAST_16", "Quarter-finals": "QUARTER_FINALS", "Semi-finals": "SEMI_FINALS",
         "Match for third place": "THIRD_PLACE", "Final": "FINAL"}


def _payload(data_dir, *, open_knockouts=False):
    """The 2014 World Cup as football-data.org v4 would give it (teams with tla, scores by period)."""
    wc = orjson.loads((data_dir / "openfootball/worldcup-2014/worldcup.json").read_bytes())["matches"]
    codes = {t["name"]: t["code"] for t in
             orjson.loads((data_dir / "openfootball/worldcup-2014/worldcup.teams.json").read_bytes())["teams"]}
    out = []
    for i, m in enumerate(wc):
        clock, offset = m["time"].split(" UTC")
        local = datetime.fromisoformat(f"{m['date']}T{clock}").replace(tzinfo=timezone(timedelta(hours=int(offset))))
        utc = local.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        knockout = m["round"] in STAGE
        ft, et, p = m["score"]["ft"], m["score"].get("et"), m["score"].get("p")
        duration = "PENALTY_SHOOTOUT" if p else "EXTRA_TIME" if et else "REGULAR"
        score = {"duration": duration, "fullTime": {"home": (et or ft)[0], "away": (et or ft)[1]},
                 "regularTime": {"home": ft[0], "away": ft[1]} if et else None,
                 "extraTime": {"home": et[0] - ft[0], "away": et[1] - ft[1]} if et else None,
                 "penalties": {"home": p[0], "away": p[1]} if p else None}
        open_slot = open_knockouts and knockout
        team = (lambda n: {"id": None, "name": None, "tla": None}) if open_slot else \
            (lambda n: {"id": 1, "name": n, "tla": codes.get(n)})
        out.append({"id": i + 1, "utcDate": utc, "status": "TIMED" if open_slot else "FINISHED",
                    "stage": STAGE.get(m["round"], "GROUP_STAGE"), "matchday": None if knockout else 1,
                    "group": m.get("group", "").replace("Group ", "GROUP_") or None,
                    "homeTeam": team(m["team1"]), "awayTeam": team(m["team2"]),
                    "score": {"duration": "REGULAR", "fullTime": {"home": None, "away": None}} if open_slot else score})
    return {"competition": {"id": 2000, "name": "FIFA World Cup", "code": "WC"}, "matches": out}


def _define(tmp_path, data_dir, payload, monkeypatch, new_id="wc-2014"):
    monkeypatch.setenv("FOOTBALL_DATA_API_KEY", "test-key")
    (tmp_path / "c").mkdir(exist_ok=True)
    (tmp_path / "arena.toml").write_text('[arena]\ncompetitions = ["x"]\ncompetitions_dir = "c"\n')
    with respx.mock:
        route = respx.get(URL).mock(return_value=httpx.Response(200, json=payload))
        code = main(["define-competition", new_id, "--from", "football-data:WC/2014", "--data-dir", str(data_dir),
                     "--config", str(tmp_path / "arena.toml")])
    assert route.calls and route.calls[0].request.headers["X-Auth-Token"] == "test-key"
    assert route.calls[0].request.url.params["season"] == "2014"
    return code, tmp_path / "c" / f"{new_id}.toml"


def test_a_finished_season_gives_the_same_bracket_as_the_openfootball_file(tmp_path, data_dir, monkeypatch):
    code, path = _define(tmp_path, data_dir, _payload(data_dir), monkeypatch)
    assert code == 0
    fd = tomllib.loads(path.read_text())
    assert main(["define-competition", "of-2014", "--from", "openfootball/worldcup-2014/worldcup.json",
                 "--data-dir", str(data_dir), "--config", str(tmp_path / "arena.toml")]) == 0
    of = tomllib.loads((tmp_path / "c" / "of-2014.toml").read_text())
    assert fd["source"] == {"adapter": "football-data", "football_data_code": "WC"} and fd["edition"] == "2014"
    assert fd["groups"] == of["groups"] and fd["host_nations"] == ["bra"]
    rules = lambda d: {(s["match_number"], s["stage"], s["home_rule"], s["away_rule"]) for s in d["knockout_slots"]}
    assert rules(fd) == rules(of) and len(rules(fd)) == 16
    assert not any("source_date" in s for s in fd["knockout_slots"])


def test_a_season_whose_knockouts_are_open_is_placed_by_order(tmp_path, data_dir, monkeypatch):
    code, path = _define(tmp_path, data_dir, _payload(data_dir, open_knockouts=True), monkeypatch, "wc-open")
    assert code == 0
    slots = tomllib.loads(path.read_text())["knockout_slots"]
    assert [s["match_number"] for s in slots] == list(range(49, 65))


def test_no_api_key_is_one_line(tmp_path, data_dir, monkeypatch, capsys):
    monkeypatch.delenv("FOOTBALL_DATA_API_KEY", raising=False)
    (tmp_path / "c").mkdir()
    (tmp_path / "arena.toml").write_text('[arena]\ncompetitions = ["x"]\ncompetitions_dir = "c"\n')
    assert main(["define-competition", "x", "--from", "football-data:WC/2014", "--config",
                 str(tmp_path / "arena.toml")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "FOOTBALL_DATA_API_KEY" in err and list((tmp_path / "c").iterdir()) == []
