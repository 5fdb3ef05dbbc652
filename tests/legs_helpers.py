"""The oracle of the two-legged replays (tests/test_two_legged_ties.py, tests/test_cup_two_legs.py):
which results decide each knockout event's teams, found from the teams' own paths and never from
the slot rules, and the check that nothing was registered or forecast before them."""

from __future__ import annotations

from collections import defaultdict


def feeders(view) -> dict[str, set[str]]:
    """Per knockout event: the results that decide its teams, from each team's latest earlier match
    other than this tie's first leg (a second leg's teams are its first leg's). A leg brings both
    legs of its tie; a group or league match brings every match of that group (None: the league)."""
    events = {eid: e for (_, eid), e in view.events.items()}
    out = {}
    for eid, e in events.items():
        if e.stage == "group":
            continue
        needed = set()
        for side in (e.home_team, e.away_team):
            before = [o for o in events.values() if side in (o.home_team, o.away_team)
                      and o.kickoff_utc < e.kickoff_utc and o.id != e.other_leg]
            last = max(before, key=lambda o: o.kickoff_utc)
            needed |= ({last.id, last.other_leg} - {None} if last.leg else
                       {o.id for o in events.values() if o.group == last.group and o.stage == "group"})
        out[eid] = needed
    return out


def assert_nothing_before_its_feeders(view, cid: str, needed_by: dict[str, set[str]]) -> int:
    """Every knockout event first registered, and every forecast of it requested, only after all its
    feeding results were recorded; returns how many such forecasts were checked."""
    first_registered = defaultdict(list)
    for r in view.records.values():
        if getattr(r, "kind", "") == "event":
            first_registered[r.id].append(r.recorded_at)
    forecasts = 0
    for eid, needed in needed_by.items():
        for feeder in needed:
            assert view.outcomes[(cid, feeder)].recorded_at <= min(first_registered[eid]), (eid, feeder)
        for f in (f for f in view.forecasts if f.target_kind == "match" and f.target_id == eid and f.requested_at):
            forecasts += 1
            assert all(view.outcomes[(cid, feeder)].recorded_at <= f.requested_at for feeder in needed)
    return forecasts
