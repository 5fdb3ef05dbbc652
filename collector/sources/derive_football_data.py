"""``define-competition NEW_ID --from football-data:CODE/SEASON``: a definition from football-data.org v4.

The competition's matches (``/v4/competitions/{code}/matches?season=``) are rewritten into
openfootball's ``matches`` shape (stage -> round name, ``GROUP_A`` -> ``Group A``, ``utcDate``
-> date and ``HH:MM UTC``, ``tla`` -> team code, scores as ``ft``/``et``/``p``; a knockout team
the API has not filled yet becomes an open slot) and derived like any openfootball file
(:func:`collector.sources.derive.derive_definition`). The definition then names the
football-data adapter and code; the API numbers no matches, so slots are tied at run time by
their teams (:mod:`collector.sources.bracket`) and checked by the registration's rule check.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson

from collector.datasource import DataSource, run_blocking
from collector.sources.derive import Derived, derive_definition
from collector.sources.football_data import download_season, parse_scores

ROUND = {"GROUP_STAGE": "Matchday", "REGULAR_SEASON": "Matchday", "LAST_32": "Round of 32", "LAST_16": "Round of 16",
         "QUARTER_FINALS": "Quarter-finals", "SEMI_FINALS": "Semi-finals", "THIRD_PLACE": "Match for third place",
         "FINAL": "Final"}
OPEN_SLOT = "1A"  # an open knockout slot in openfootball's notation: no team yet


def _team(node: Any) -> Any:
    if not isinstance(node, dict) or not node.get("name"):
        return OPEN_SLOT
    return {"name": node["name"], **({"code": node["tla"]} if node.get("tla") else {})}


def _pair(score) -> list[int] | None:
    return None if score is None else [score.home, score.away]


def to_openfootball(payload: dict[str, Any], season: str) -> dict[str, Any]:
    """The API's matches in openfootball's ``matches`` shape (see the module docstring)."""
    matches = []
    for raw in payload["matches"]:
        if not isinstance(raw, dict):
            continue
        stage = str(raw.get("stage"))
        label = ROUND.get(stage, stage)
        if label == "Matchday":
            label += f" {raw.get('matchday') or 1}"
        utc = str(raw.get("utcDate") or "")
        match: dict[str, Any] = {"round": label, "date": utc[:10], "time": f"{utc[11:16]} UTC" if len(utc) >= 16 else None,
                                 "team1": _team(raw.get("homeTeam")), "team2": _team(raw.get("awayTeam"))}
        if isinstance(raw.get("group"), str):
            match["group"] = "Group " + raw["group"].removeprefix("GROUP_").removeprefix("Group ").strip()
        if raw.get("status") in ("FINISHED", "AWARDED") and isinstance(raw.get("score"), dict):
            scores = parse_scores(raw["score"])
            match["score"] = {k: v for k, v in (("ft", _pair(scores["score_90"])), ("et", _pair(scores["score_extra_time"])),
                                                ("p", _pair(scores["score_penalties"]))) if v is not None}
        matches.append(match)
    name = (payload.get("competition") or {}).get("name") or "competition"
    return {"name": f"{name} {season}", "matches": matches}


def derive_from_football_data(new_id: str, code: str, season: str, reference: DataSource, *, api_key: str,
                              format_id: str | None = None, **client: Any) -> Derived:
    """The definition of ``new_id`` from football-data.org; ``reference`` holds the international results."""
    payload = run_blocking(download_season(code, season, api_key=api_key, **client))
    with tempfile.TemporaryDirectory() as tmp:
        relative = f"football-data/{code}-{season}.json"
        (Path(tmp) / "football-data").mkdir()
        (Path(tmp) / relative).write_bytes(orjson.dumps(to_openfootball(payload, season)))
        derived = derive_definition(new_id, DataSource(tmp), relative, format_id=format_id, time_zone="UTC",
                                    url=f"https://api.football-data.org/v4/competitions/{code}/matches",
                                    reference=reference)
    fields = derived.definition
    fields["edition"] = season  # the adapter asks for season = edition[:4]
    fields["source"] = {"adapter": "football-data", "football_data_code": code}
    fields["definition_source"] = (f"football-data.org v4 competitions/{code}/matches?season={season} "
                                   + fields["definition_source"].split(" ", 2)[-1])
    for slot in fields.get("knockout_slots", []):  # tied by their teams at run time, not by date
        slot.pop("source_date", None)
        slot.pop("source_index", None)
    return derived
