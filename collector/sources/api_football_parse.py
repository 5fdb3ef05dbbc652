"""API-Football v3 match payloads -> match report fields (lineups, events, statistics).

Documented shapes (api-football.com documentation, v3):

* ``/fixtures/lineups?fixture=ID``: ``response`` is one object per team with ``team``
  (``id``, ``name``), ``formation`` ("4-3-3"), ``startXI`` and ``substitutes``, lists of
  ``{"player": {"id", "name", "number", "pos", "grid"}}``; ``pos`` is G, D, M or F.
* ``/fixtures/events?fixture=ID``: ``response`` is a list of ``{"time": {"elapsed",
  "extra"}, "team": {...}, "player": {"id", "name"}, "assist": {"id", "name"}, "type",
  "detail", "comments"}``; types Goal (details Normal Goal, Own Goal, Penalty, Missed
  Penalty), Card (Yellow Card, Red Card, Second Yellow card), subst (``player`` goes off,
  ``assist`` comes on, as the released WorldCupArena grader reads it) and Var.
* ``/fixtures/statistics?fixture=ID``: ``response`` is one object per team with
  ``statistics``, a list of ``{"type", "value"}``: "Ball Possession" "55%", "Total Shots",
  "Shots on Goal", "Corner Kicks", "Fouls", "Offsides", "Yellow Cards", "Red Cards",
  "expected_goals" "1.23". A ``null`` value is no data (not 0): the source does not say.

Every value is checked; a bad one is a ValueError naming the field and value.
"""

from __future__ import annotations

from typing import Any

from collector.competitions.teams import resolve_team
from collector.records import Competition, Event
from collector.records.match_report import (
    ReportedAssist,
    ReportedCard,
    ReportedGoal,
    ReportedLineup,
    ReportedPair,
    ReportedPenalty,
    ReportedPlayer,
    ReportedStatistics,
    ReportedSubstitution,
)

POSITIONS = {"G": "GK", "D": "DF", "M": "MF", "F": "FW"}
STATISTICS = {"Ball Possession": "possession", "Total Shots": "shots", "Shots on Goal": "shots_on_target",
              "Corner Kicks": "corners", "Fouls": "fouls", "Offsides": "offsides", "Yellow Cards": "yellow_cards",
              "Red Cards": "red_cards", "expected_goals": "xg"}
CARDS = {"yellow card": "yellow", "red card": "red", "second yellow card": "second_yellow"}


def response_list(payload: Any, where: str) -> list[Any]:
    if not isinstance(payload, dict) or not isinstance(payload.get("response"), list):
        raise ValueError(f"{where}: expected an object with a 'response' list")
    return payload["response"]


def side_of(node: Any, event: Event, competition: Competition, where: str) -> str:
    """'home' or 'away' for a ``team`` node, by the competition's team names."""
    name = node.get("name") if isinstance(node, dict) else None
    if not isinstance(name, str):
        raise ValueError(f"field {where}.team.name: missing")
    team = resolve_team(competition, name, source="api-football", match=event.id)
    if team not in (event.home_team, event.away_team):
        raise ValueError(f"field {where}.team.name: {name!r} plays in neither side of {event.id}")
    return "home" if team == event.home_team else "away"


def _player(node: Any, where: str) -> tuple[str, str | None]:
    player = node.get("player") if isinstance(node, dict) else None
    name = player.get("name") if isinstance(player, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"field {where}.player.name: missing")
    pid = player.get("id")
    return name.strip(), None if pid is None else str(pid)


def parse_lineups(payload: Any, event: Event, competition: Competition) -> dict[str, Any]:
    """``{home,away}_lineup`` and ``{home,away}_formation`` of the teams the response lists."""
    out: dict[str, Any] = {}
    for i, team in enumerate(response_list(payload, "lineups")):
        where = f"lineups.response[{i}]"
        side = side_of(team.get("team") if isinstance(team, dict) else None, event, competition, where)
        start = team.get("startXI")
        if not isinstance(start, list) or len(start) != 11:
            raise ValueError(f"field {where}.startXI: expected 11 players, got {start!r:.80}")
        players = []
        for j, entry in enumerate(start):
            name, pid = _player(entry, f"{where}.startXI[{j}]")
            pos = entry["player"].get("pos")
            if pos is not None and pos not in POSITIONS:
                raise ValueError(f"field {where}.startXI[{j}].player.pos: unknown value {pos!r}")
            players.append(ReportedPlayer(name=name, position=POSITIONS.get(pos), source_id=pid))
        out[f"{side}_lineup"] = ReportedLineup(starting=tuple(players))
        formation = team.get("formation")
        if formation is not None:
            out[f"{side}_formation"] = formation  # the record's pattern checks it
    return out


def _minute(node: Any, where: str) -> tuple[int, int | None]:
    time = node.get("time") if isinstance(node, dict) else None
    elapsed = time.get("elapsed") if isinstance(time, dict) else None
    extra = time.get("extra") if isinstance(time, dict) else None
    if not isinstance(elapsed, int) or isinstance(elapsed, bool) or not 0 <= elapsed <= 130:
        raise ValueError(f"field {where}.time.elapsed: expected a minute, got {elapsed!r}")
    if extra is not None and (not isinstance(extra, int) or not 0 <= extra <= 30):
        raise ValueError(f"field {where}.time.extra: expected stoppage minutes, got {extra!r}")
    return elapsed, extra


def parse_events(payload: Any, event: Event, competition: Competition) -> dict[str, Any]:
    """goals (own goals included), assists, cards, substitutions and penalties in play."""
    goals, assists, cards, subs, penalties = [], [], [], [], []
    for i, raw in enumerate(response_list(payload, "events")):
        where = f"events.response[{i}]"
        kind = raw.get("type") if isinstance(raw, dict) else None
        detail = str(raw.get("detail") or "").strip().lower() if isinstance(raw, dict) else ""
        if kind == "Var":
            continue
        side = side_of(raw.get("team"), event, competition, where)
        minute, extra = _minute(raw, where)
        name, _ = _player(raw, where)
        assist = raw.get("assist") if isinstance(raw.get("assist"), dict) else {}
        if kind == "Goal" and detail == "missed penalty":
            penalties.append(ReportedPenalty(side=side, taker=name, minute=minute, outcome="missed"))
        elif kind == "Goal":
            own = detail == "own goal"
            scorer_side = ("away" if side == "home" else "home") if own else side  # the team node is the credited side
            goals.append(ReportedGoal(side=scorer_side, player=name, minute=minute, stoppage=extra,
                                      penalty=detail == "penalty", own_goal=own))
            if detail == "penalty":
                penalties.append(ReportedPenalty(side=side, taker=name, minute=minute, outcome="scored"))
            if isinstance(assist.get("name"), str) and not own:
                assists.append(ReportedAssist(side=side, player=assist["name"], minute=minute))
        elif kind == "Card":
            if detail not in CARDS:
                raise ValueError(f"field {where}.detail: unknown card {raw.get('detail')!r}")
            cards.append(ReportedCard(side=side, player=name, minute=minute, colour=CARDS[detail]))
        elif kind == "subst":
            if not isinstance(assist.get("name"), str):
                raise ValueError(f"field {where}.assist.name: a substitution names no player coming on")
            subs.append(ReportedSubstitution(side=side, player_on=assist["name"], player_off=name, minute=minute))
        else:
            raise ValueError(f"field {where}.type: unknown event type {kind!r}")
    return {"goals": tuple(goals), "assists": tuple(assists), "cards": tuple(cards), "substitutions": tuple(subs),
            "penalties": tuple(penalties)}


def _number(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip().removesuffix("%")
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"field {where}: not a number: {value!r:.40}") from None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"field {where}: not a number: {value!r:.40}")


def parse_statistics(payload: Any, event: Event, competition: Competition) -> dict[str, Any]:
    """``statistics`` with the pairs both teams give; a statistic a team leaves null is no data."""
    per_side: dict[str, dict[str, float | None]] = {}
    for i, team in enumerate(response_list(payload, "statistics")):
        where = f"statistics.response[{i}]"
        side = side_of(team.get("team") if isinstance(team, dict) else None, event, competition, where)
        values = team.get("statistics")
        if not isinstance(values, list):
            raise ValueError(f"field {where}.statistics: expected a list")
        per_side[side] = {STATISTICS[s["type"]]: _number(s.get("value"), f"{where}.statistics[{j}] {s['type']}")
                          for j, s in enumerate(values) if isinstance(s, dict) and s.get("type") in STATISTICS}
    if set(per_side) != {"home", "away"}:
        return {}
    pairs = {k: ReportedPair(home=per_side["home"][k], away=per_side["away"][k]) for k in STATISTICS.values()
             if per_side["home"].get(k) is not None and per_side["away"].get(k) is not None}
    return {"statistics": ReportedStatistics(**pairs)} if pairs else {}
