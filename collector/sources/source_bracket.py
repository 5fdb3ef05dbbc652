"""The knockout bracket as the source says it (``define-competition`` of a cup with groups).

Each knockout match's slot rules come from the source itself, in this order:

1. its **placeholder labels** (a pre-tournament file: ``1B v 2A``, ``3A/B/C v 1D``, ``W49 v W50``,
   ``L61 v L62``), taken as written; ``W``/``L`` labels read the source's match numbers (a file
   without numbers has its knockout matches numbered in kickoff order from the format's first
   knockout number, stage by stage);
2. else its **results**: each team is placed by where it came from — its group position
   (``1B``, ``2A``) when its previous match was in the group stage, else the winner of that
   previous knockout match (``W49``; the loser, ``L61``, in a match for third place: a team that
   plays on won, so no score is read). A third-placed team takes the format's rule
   of the slot whose other team is the same group position (so the official best-third table
   binds to it), else a rule naming every group whose third went through.

The format gives only the stage structure (how many matches each stage has, its match numbers
when the source has none) and the best-third table. A match whose rule the source cannot tell
(a group table left open by a result held back) takes the format's slot of its position, with a
note naming the match and what the source lacks; so does a match of a future tournament without
labels or teams.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from collector.competitions.formats import Format
from collector.competitions.slots import Decided, qualified_thirds
from collector.records import Competition
from collector.sources.base import SourceMatch


@dataclass
class SourceBracket:
    """What the source says of its knockout matches: per source index, a number and two rules."""

    numbers: dict[int, int] = field(default_factory=dict)
    rules: dict[int, tuple[str, str]] = field(default_factory=dict)
    format_slot: dict[int, int] = field(default_factory=dict)  # the format's slot a match took, when one fits
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # rules taken from the format because the source cannot tell


def _positions(rows, team: str) -> list[int]:
    """The 1-based positions ``team`` may hold in a table: one, or each of a block level on every criterion."""
    row = next((r for r in rows if r.team == team), None)
    if row is None:
        return []
    size = sum(1 for r in rows if r.rank == row.rank)
    return list(range(row.rank, row.rank + size))


class _Deriver:
    def __init__(self, matches: list[SourceMatch], competition: Competition, fmt: Format, decided: Decided,
                 positions: dict[int, int]):
        self.matches, self.competition, self.fmt, self.decided = matches, competition, fmt, decided
        self.order = {i: (m.kickoff_date, m.kickoff_utc is None, m.kickoff_utc, positions.get(i, 0), i)
                      for i, m in enumerate(matches)}
        self.group_of = {t: g.name for g in competition.groups for t in g.teams}
        self.out = SourceBracket()

    def previous(self, i: int, team: str) -> int | None:
        """The team's last match before match ``i`` (date, kickoff, then file order)."""
        before = [j for j, m in enumerate(self.matches) if team in (m.home_team, m.away_team)
                  and self.order[j] < self.order[i]]
        return max(before, key=lambda j: self.order[j], default=None)

    def team_rules(self, i: int, team: str) -> tuple[list[str], str | None]:
        """(candidate rules, None) or ([], why the source does not tell) for ``team`` in knockout match ``i``.

        Several candidates when the team's group table leaves it level on every criterion with a
        neighbour (the lots drawn are not in the source): the format's slot then chooses."""
        j = self.previous(i, team)
        if j is None:
            return [], f"{team} plays no earlier match in the source"
        earlier = self.matches[j]
        if earlier.knockout:  # it went on from that match: won it, or lost a semi-final (never read from a score)
            number = self.out.numbers.get(j)
            if number is None:
                return [], f"{earlier.label} ({team}'s previous match) has no slot"
            return [("L" if self.matches[i].stage == "third-place" else "W") + str(number)], None
        group = self.group_of.get(team) or ""
        rows = self.decided.tables.get(group)
        if rows is None:
            return [], f"group {group} of {team} has no complete table in the source (a result missing or held back)"
        positions = _positions(rows, team)
        rules = [f"{p}{group}" for p in positions if p in (1, 2) or (p == 3 and self.competition.best_third_placed)]
        if not rules:
            return [], f"{team} finished {positions[0]}th of group {group}, a place that sends no team to the knockouts"
        return rules, None

    def third_rule(self, group: str, other: str, stage: str) -> str:
        """The format's rule for the third of ``group`` facing ``other`` in ``stage``, else every qualified group."""
        for _, s, home, away in self.fmt.slots:
            for mine, theirs in ((home, away), (away, home)):
                if s == stage and theirs == other and mine[0] == "3" and group in mine[1:].split("/"):
                    return mine
        qualified = qualified_thirds(self.competition, self.decided) or [group]
        return "3" + "/".join(sorted(set(qualified) | {group}))

    def rules_of(self, i: int, stage: str) -> tuple[str, str] | None:
        m = self.matches[i]
        if m.home_team is None and m.away_team is None and m.home_slot is None and m.away_slot is None:
            return None  # a future match the source does not label: the format's slot of its position
        sides = []
        for team, label in ((m.home_team, m.home_slot), (m.away_team, m.away_slot)):
            if label is not None:
                sides.append([label])
                continue
            rules, why = self.team_rules(i, team) if team is not None else ([], "the source names no team")
            if not rules:
                self.out.notes.append(f"check the slot rules of {m.label}: the source cannot tell them ({why}); "
                                      "the format's slot of its position is written")
                return None
            sides.append(rules)
        pairs = [(self._third(h, a, stage), self._third(a, h, stage)) for h in sides[0] for a in sides[1]]
        in_format = {frozenset((h, a)) for _, s, h, a in self.fmt.slots if s == stage}
        return next((p for p in pairs if frozenset(p) in in_format), pairs[0])

    def _third(self, rule: str, other: str, stage: str) -> str:
        """A third-placed team's rule (``3F``) widened to the format's (``3B/E/F``); any other rule as it is."""
        return self.third_rule(rule[1], other, stage) if rule[0] == "3" and len(rule) == 2 else rule


def derive_bracket(matches: list[SourceMatch], competition: Competition, fmt: Format, decided: Decided,
                   positions: dict[int, int], per_stage: dict[str, list[int]]) -> SourceBracket:
    """Numbers and rules of every knockout match the source lists, stage by stage (module docstring)."""
    deriver = _Deriver(matches, competition, fmt, decided, positions)
    out = deriver.out
    labelled = any(matches[i].home_slot or matches[i].away_slot for indices in per_stage.values() for i in indices)
    for stage in fmt.stages():
        slots = [s for s in fmt.slots if s[1] == stage]
        left = sorted(per_stage.get(stage, []), key=lambda i: (matches[i].match_number or 0, deriver.order[i]))
        if len(left) != len(slots):
            out.problems.append(f"stage {stage}: the format {fmt.id} has {len(slots)} matches, the source {len(left)}")
        derived = {i: deriver.rules_of(i, stage) for i in left}
        _number(matches, left, slots, derived, out, kickoff_order=labelled)
    return out


def _number(matches: list[SourceMatch], left: list[int], slots, derived: dict[int, Any], out: SourceBracket,
            kickoff_order: bool) -> None:
    """Each match's number and rules: the source's number, else (``kickoff_order``: a file whose W/L labels
    read numbers it does not write) the next free one in kickoff order, else the format slot with the same
    rules, else the next free one."""
    free = [number for number, _, _, _ in slots]
    for i in left:  # a format slot with the same two rules keeps the format's number (and its best-third column)
        rules = derived[i]
        if kickoff_order and matches[i].match_number is None:
            continue
        fit = next((n for n, _, h, a in slots if rules is not None and {h, a} == set(rules)), None)
        if fit is not None and fit in free:
            out.format_slot[i] = fit
            free.remove(fit)
    for i in left:
        if matches[i].match_number is not None:
            out.numbers[i] = matches[i].match_number
        elif i in out.format_slot:
            out.numbers[i] = out.format_slot[i]
        elif free:
            out.numbers[i] = out.format_slot[i] = free.pop(0)
        if derived[i] is not None and i in out.numbers:
            out.rules[i] = derived[i]
        elif i in out.format_slot:  # a future match without labels, or one the source cannot tell
            _, _, h, a = next(s for s in slots if s[0] == out.format_slot[i])
            out.rules[i] = (h, a)
