"""Validation of the two ``full_tournament`` answers; never raises on bad input.

Group answer: every listed fixture exactly once, as listed (home, away, group); 1X2
probabilities in [0, 1] summing to 1 (normalised within the tolerance of the match check);
the headline score's result the most likely of the three (WorldCupArena A.3). Knockout
answer: every knockout match once, teams of the competition, a consistent advancing team, and
*exactly the pairings the code computes* from the tables and the answer's own winners
(:func:`collector.forecasters.tournament.bracket.pairing_mismatches`); each mismatch is
quoted so the one repair can fix it.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from collector.competitions.standings import TableRow
from collector.forecasters.tournament.bracket import GroupFixture, pairing_mismatches
from collector.records import (
    Competition,
    ForecastStatus,
    GroupMatchForecast,
    KnockoutMatchForecast,
    TournamentForecast,
)

from .validation import (
    Checked,
    _Issues,
    _probability,
    _score,
    _text,
    check_sum,
    extract_json,
    outcome_of,
)


def _items(text: str | None, key: str) -> tuple[list[Any] | None, dict, Checked | None]:
    try:
        obj = extract_json(text)
    except ValueError as exc:
        return None, {}, Checked(ForecastStatus.INVALID_JSON, errors=[str(exc)])
    items = obj.get(key)
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        return None, obj, Checked(ForecastStatus.INVALID_SCHEMA, errors=[f"field {key} must be a list of objects"])
    return items, obj, None


def _group_item(item: dict, where: str, issues: _Issues, out: Checked) -> GroupMatchForecast | None:
    sub = _Issues()
    probs = [_probability(item, k, sub) for k in ("home_win", "draw", "away_win")]
    score = _score(item, "score", sub)
    if sub.items:
        issues.items += [(k, f"{where}: {m}") for k, m in sub.items]
        return None
    probs = check_sum(probs, 1.0, where, issues, out)
    if probs is None:
        return None
    if probs[outcome_of(score)] < max(probs) - 1e-9:
        issues.add("invalid_score", f"{where}: score {score.home}-{score.away} is not the most likely result "
                                    f"(home/draw/away {probs[0]:.3f}/{probs[1]:.3f}/{probs[2]:.3f})")
        return None
    return GroupMatchForecast(group=str(item.get("group")), home=item["home"], away=item["away"],
                              home_win=probs[0], draw=probs[1], away_win=probs[2], score=score)


def validate_groups(text: str | None, fixtures: list[GroupFixture]) -> Checked:
    """The group answer; ``Checked.payload``: a cup payload holding only the group matches."""
    items, obj, failed = _items(text, "group_matches")
    if failed is not None:
        return failed
    issues, out = _Issues(), Checked(ForecastStatus.VALID)
    wanted = {(f.home, f.away): f for f in fixtures}
    seen: dict[tuple[str, str], GroupMatchForecast] = {}
    for i, item in enumerate(items):
        key = (item.get("home"), item.get("away"))
        where = f"group_matches[{i}] {key[0]!r:.30} v {key[1]!r:.30}"
        if key not in wanted:
            issues.add("invalid_schema", f"{where}: not one of the listed group matches (as listed: home, away)")
            continue
        if key in seen:
            issues.add("invalid_schema", f"{where}: listed twice")
            continue
        if item.get("group") != wanted[key].group:
            issues.add("invalid_schema", f"{where}: group {item.get('group')!r:.10}, expected {wanted[key].group}")
            continue
        match = _group_item(item, where, issues, out)
        if match is not None:
            seen[key] = match
    missing = [f"{f.home} v {f.away}" for f in fixtures if (f.home, f.away) not in seen and not issues.items]
    if missing:
        issues.add("invalid_schema", f"{len(missing)} group match(es) missing: {', '.join(missing[:8])}")
    reason = _text(obj, "reason", issues)
    if issues.items:
        return Checked(issues.status(), errors=issues.messages(), original_sums=out.original_sums)
    out.payload = TournamentForecast(format="cup", group_matches=tuple(seen[(f.home, f.away)] for f in fixtures),
                                     reason=reason[:2000])
    return out


def _knockout_item(item: dict, stage_of: dict[int, str], issues: _Issues) -> KnockoutMatchForecast | None:
    number = item.get("match_number")
    where = f"knockout_matches match {number!r:.10}"
    if not isinstance(number, int) or isinstance(number, bool) or number not in stage_of:
        issues.add("invalid_schema", f"{where}: not a knockout match number of the competition")
        return None
    sub = _Issues()
    p = _probability(item, "advance_probability", sub)
    score = _score(item, "score", sub)
    if sub.items:
        issues.items += [(k, f"{where}: {m}") for k, m in sub.items]
        return None
    try:
        return KnockoutMatchForecast(match_number=number, stage=stage_of[number], home=item.get("home"),
                                     away=item.get("away"), score=score, advances=item.get("advances"),
                                     advance_probability=p)
    except ValidationError as exc:
        issues.add("invalid_schema", f"{where}: " + "; ".join(e["msg"] for e in exc.errors())[:300])
        return None


def validate_knockouts(text: str | None, competition: Competition, groups: tuple[GroupMatchForecast, ...],
                       tables: dict[str, list[TableRow]]) -> Checked:
    """The knockout answer against the pairings the code computes; payload: the whole forecast."""
    items, obj, failed = _items(text, "knockout_matches")
    if failed is not None:
        return failed
    issues = _Issues()
    stage_of = {s.match_number: s.stage for s in competition.knockout_slots}
    teams = {t.id for t in competition.teams}
    matches: dict[int, KnockoutMatchForecast] = {}
    for item in items:
        m = _knockout_item(item, stage_of, issues)
        if m is None:
            continue
        if m.match_number in matches:
            issues.add("invalid_schema", f"match {m.match_number}: listed twice")
        elif not {m.home, m.away} <= teams:
            issues.add("invalid_schema", f"match {m.match_number}: unknown team id in {m.home!r:.30} v {m.away!r:.30}")
        else:
            matches[m.match_number] = m
    reason = _text(obj, "reason", issues)
    if issues.items:
        return Checked(issues.status(), errors=issues.messages())
    payload = TournamentForecast(format="cup", group_matches=groups,
                                 knockout_matches=tuple(sorted(matches.values(), key=lambda m: m.match_number)),
                                 reason=reason[:2000])
    mismatches = pairing_mismatches(competition, payload, tables)
    if mismatches:
        return Checked(ForecastStatus.INVALID_SCHEMA, errors=[f"pairing: {e}" for e in mismatches])
    return Checked(ForecastStatus.VALID, payload=payload)
