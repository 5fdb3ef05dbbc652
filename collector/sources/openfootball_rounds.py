"""The older openfootball shape: ``rounds`` lists whose matches name teams by objects.

``{"rounds": [{"name": "Matchday 1", "matches": [{"date": "2017-08-11", "team1": {"name":
"Arsenal FC", "code": "ARS"}, "score1": 4, "score2": 3, ...}]}]}``. Each match is rewritten
into the ``matches`` shape (``round``, ``team1`` name, ``score`` with ``ft``/``ht``/``et``/``p``,
``time`` with its ``timezone`` such as ``UTC+3``) and keeps the original under ``raw``.

Results come either as ``score1``/``score2``/``score1i``/``score1et``/``score1p`` (older copies)
or already as a ``score`` object with ``ft``/``ht``/``et``/``p`` (Euro 2020's current form);
a match that gives both is passed on with ``score_conflict`` for the reader to report.
"""

from __future__ import annotations

from typing import Any


def flatten_rounds(rounds: list[Any]) -> list[Any]:
    matches: list[Any] = []
    for round_ in rounds:
        if not isinstance(round_, dict) or not isinstance(round_.get("matches"), list):
            matches.append(round_)  # reported as a bad match by the caller
            continue
        for match in round_["matches"]:
            matches.append(_rewrite(match, str(round_.get("name", ""))) if isinstance(match, dict) else match)
    return matches


def _pair(match: dict[str, Any], suffix: str) -> list[Any] | None:
    one, two = match.get(f"score1{suffix}"), match.get(f"score2{suffix}")
    return None if one is None and two is None else [one, two]


def _rewrite(match: dict[str, Any], round_name: str) -> dict[str, Any]:
    out: dict[str, Any] = {"round": match.get("round", round_name), "date": match.get("date")}
    time = match.get("time")
    if time:
        zone = match.get("timezone")
        out["time"] = f"{time} {zone}" if zone else time
    for key in ("team1", "team2"):
        team = match.get(key)
        out[key] = team.get("name") if isinstance(team, dict) else team
    score = {k: v for k, v in (("ft", _pair(match, "")), ("ht", _pair(match, "i")),
                               ("et", _pair(match, "et")), ("p", _pair(match, "p"))) if v is not None}
    given = match.get("score")
    if given is not None and score and (not isinstance(given, dict) or any(given.get(k) != v for k, v in score.items())):
        out["score_conflict"] = {"score": given, "score1/score2": score}  # reported by the reader
    out["score"] = given if given is not None else score
    for key in ("num", "group", "status", "goals1", "goals2"):
        if match.get(key) is not None:
            out[key] = match[key]
    stadium = match.get("stadium")
    out["ground"] = stadium.get("name") if isinstance(stadium, dict) else (stadium or match.get("city"))
    out["raw"] = match
    return out
