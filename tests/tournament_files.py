"""Openfootball-shaped files of past World Cups made at run time from the shared international results.

The shared data has no openfootball file of the World Cups 1986, 1994, 1998 and 2002; the
international results have every match (date, teams, score including extra time), the shoot-outs' winners and
the scorers with minutes. From them :func:`world_cup_file` writes the ``matches`` shape a new
user would download: groups found as the round robins of the group stage (every match but the
last 16; lettered in the order their first match was played), rounds named by their position in the bracket (the last
16 matches: 8 of the round of 16, 4 quarter-finals, 2 semi-finals, the match for third place
and the final, in date order), ``ft`` from the goals up to the 90th minute, ``et`` the full
score when extra time was played, ``p`` written ``[1, 0]`` or ``[0, 1]`` for the shoot-out's
winner (the results give the winner only). Nothing is committed; each test writes its copy.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import orjson

KNOCKOUT_ROUNDS = ["Round of 16"] * 8 + ["Quarter-finals"] * 4 + ["Semi-finals"] * 2 + ["Match for third place",
                                                                                          "Final"]


def _rows(path: Path, year: int) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle) if r["date"].startswith(str(year))
                and r.get("tournament", "FIFA World Cup") == "FIFA World Cup"]


def _groups(group_matches: list[dict[str, str]]) -> dict[str, str]:
    """Team -> group letter: connected teams of the group stage, lettered by their first match."""
    parent: dict[str, str] = {}

    def root(t: str) -> str:
        while parent.setdefault(t, t) != t:
            t = parent[t]
        return t

    for m in group_matches:
        parent[root(m["home_team"])] = root(m["away_team"])
    order: list[str] = []
    for m in group_matches:
        if root(m["home_team"]) not in order:
            order.append(root(m["home_team"]))
    return {t: "ABCDEFGH"[order.index(root(t))] for t in parent}  # 6 groups (1986-1994) or 8


def world_cup_matches(data_dir: Path, year: int) -> list[dict]:
    base = data_dir / "international-results"
    results = _rows(base / "results.csv", year)
    assert len(results) in (52, 64), (year, len(results))
    group_stage = len(results) - 16
    scorers = defaultdict(list)
    for g in _rows(base / "goalscorers.csv", year):
        scorers[(g["date"], g["home_team"], g["away_team"])].append(g)
    shootouts = {(r["date"], r["home_team"], r["away_team"]): r["winner"] for r in _rows(base / "shootouts.csv", year)}
    letters = _groups(results[:group_stage])
    played: dict[str, int] = defaultdict(int)
    matches = []
    for index, r in enumerate(results):
        key = (r["date"], r["home_team"], r["away_team"])
        goals = scorers[key]
        total = [int(r["home_score"]), int(r["away_score"])]
        ft = [sum(1 for g in goals if g["team"] == team and int(float(g["minute"])) <= 90)
              for team in (r["home_team"], r["away_team"])]
        late = any(int(float(g["minute"])) > 90 for g in goals)
        score: dict = {"ft": ft if (late or key in shootouts) else total}
        if late or key in shootouts:
            score["et"] = total
        if key in shootouts:
            score["p"] = [1, 0] if shootouts[key] == r["home_team"] else [0, 1]
        match = {"date": r["date"], "team1": r["home_team"], "team2": r["away_team"], "score": score,
                 "ground": r["city"],
                 "goals1": [_goal(g) for g in goals if g["team"] == r["home_team"]],
                 "goals2": [_goal(g) for g in goals if g["team"] == r["away_team"]]}
        if index < group_stage:
            group = letters[r["home_team"]]
            played[group] += 1
            match.update(round=f"Matchday {(played[group] + 1) // 2}", group=f"Group {group}")
        else:
            match["round"] = KNOCKOUT_ROUNDS[index - group_stage]
        matches.append(match)
    return matches


def _goal(g: dict[str, str]) -> dict:
    return {"name": g["scorer"], "minute": str(int(float(g["minute"]))),
            **({"penalty": True} if g["penalty"] == "TRUE" else {}), **({"owngoal": True} if g["own_goal"] == "TRUE" else {})}


def world_cup_file(data_dir: Path, year: int, folder: Path) -> Path:
    path = folder / f"worldcup-{year}.json"
    path.write_bytes(orjson.dumps({"name": f"World Cup {year}", "matches": world_cup_matches(data_dir, year)}))
    return path


def with_labels(matches: list[dict], labels: dict[int, tuple[str, str]], first_number: int) -> list[dict]:
    """A pre-tournament copy: knockout matches numbered from ``first_number`` in file order, their teams
    replaced by ``labels`` (match number -> (home label, away label)) and their scores removed."""
    out = []
    number = first_number
    for m in matches:
        m = dict(m)
        if "group" not in m:
            m["num"] = number
            if number in labels:
                m["team1"], m["team2"] = labels[number]
                for key in ("score", "goals1", "goals2"):
                    m.pop(key, None)
            number += 1
        out.append(m)
    return out


def made_up_cup(group_a: list[tuple[int, int, list[int]]] | None = None,
                knockouts: dict[int, dict] | None = None) -> list[dict]:
    """A small made-up cup: 4 groups of 4 (team ``B2`` is ``Bravo 2``), quarter-finals 1A v 2B, 1B v 2A,
    1C v 2D, 1D v 2C, semi-finals, a match for third place and a final, all played.

    In every group the lower-numbered team beats the higher 1-0, unless ``group_a`` gives group A's
    six results as (home index, away index, [home goals, away goals]). ``knockouts`` replaces fields
    of knockout matches by position (0-3 quarter-finals, 4-5 semi-finals, 6 third place, 7 final).
    """
    names = {g: [f"{word} {i}" for i in range(1, 5)] for g, word in zip("ABCD", ("Alpha", "Bravo", "Charlie", "Delta"))}
    matches: list[dict] = []
    pairs = [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)]
    for g, teams in names.items():
        results = group_a if g == "A" and group_a else [(h, a, [1, 0]) for h, a in pairs]
        for k, (h, a, score) in enumerate(results):
            matches.append({"round": f"Matchday {k // 2 + 1}", "date": f"2024-06-{k // 2 * 4 + 1 + 'ABCD'.index(g):02d}",
                            "time": "18:00 UTC+0", "team1": teams[h], "team2": teams[a], "score": {"ft": score},
                            "group": f"Group {g}"})
    first, second = {g: t[0] for g, t in names.items()}, {g: t[1] for g, t in names.items()}
    ko = [("Quarter-finals", "2024-06-20", first["A"], second["B"], {"ft": [2, 0]}),
          ("Quarter-finals", "2024-06-20", first["B"], second["A"], {"ft": [1, 1], "et": [1, 1], "p": [4, 3]}),
          ("Quarter-finals", "2024-06-21", first["C"], second["D"], {"ft": [1, 0]}),
          ("Quarter-finals", "2024-06-21", first["D"], second["C"], {"ft": [0, 1]}),
          ("Semi-finals", "2024-06-24", first["A"], first["B"], {"ft": [1, 0]}),
          ("Semi-finals", "2024-06-25", first["C"], second["C"], {"ft": [1, 0]}),
          ("Match for third place", "2024-06-27", first["B"], second["C"], {"ft": [2, 1]}),
          ("Final", "2024-06-28", first["A"], first["C"], {"ft": [1, 1], "et": [2, 1]})]
    for k, (label, day, home, away, score) in enumerate(ko):
        match = {"round": label, "date": day, "time": "20:00 UTC+0", "team1": home, "team2": away, "score": score}
        matches.append({**match, **(knockouts or {}).get(k, {})})
    return matches
