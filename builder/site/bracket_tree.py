"""Where each knockout match sits in the drawn tree: column per round, rows from its feeders.

The order comes from the slot rules, walked back from the final: a match fed by ``W74`` and
``W77`` sits between matches 74 and 77, so every connector joins a match to the two that feed
it. In a balanced bracket (each round half the one before) the first round's match ``k``
takes rows ``2k+1 .. 2k+3`` of the grid and a later match spans its two feeders' rows, so the
vertical connector between its feeders' centres runs from 25 % to 75 % of its height. A
bracket that is not balanced falls back to match-number order without connectors.
"""

from __future__ import annotations

from dataclasses import dataclass

from collector.records import Competition, KnockoutSlot, advancement_rounds


@dataclass(frozen=True)
class Placement:
    match_number: int
    stage: str
    column: int  # 1-based
    row: int  # 1-based grid row
    span: int
    feeds_next: bool
    fed: bool


def _feeders(slot: KnockoutSlot) -> list[int]:
    return [int(rule[1:]) for rule in (slot.home_rule, slot.away_rule) if rule[0] == "W"]


def tree_order(competition: Competition) -> dict[str, list[int]]:
    """Round id -> its match numbers top to bottom (post-order from the final's feeders)."""
    rounds = advancement_rounds(competition)
    slots = {s.match_number: s for s in competition.knockout_slots}
    finals = [s for s in competition.knockout_slots if rounds and s.stage == rounds[-1]]
    order: dict[str, list[int]] = {r: [] for r in rounds}
    seen: set[int] = set()

    def visit(number: int) -> None:
        if number in seen or number not in slots:
            return
        seen.add(number)
        for feeder in _feeders(slots[number]):
            visit(feeder)
        if slots[number].stage in order:
            order[slots[number].stage].append(number)

    for final in finals:
        visit(final.match_number)
    for slot in sorted(competition.knockout_slots, key=lambda s: s.match_number):  # anything the walk missed
        if slot.stage in order and slot.match_number not in seen:
            order[slot.stage].append(slot.match_number)
    return order


def balanced(order: dict[str, list[int]]) -> bool:
    sizes = [len(v) for v in order.values()]
    return bool(sizes) and all(a == 2 * b for a, b in zip(sizes, sizes[1:], strict=False)) and sizes[-1] == 1


def placements(competition: Competition) -> tuple[list[Placement], int]:
    """Every advancement-round match's place in the tree, and the number of grid rows."""
    order = tree_order(competition)
    if not order:
        return [], 0
    even = balanced(order)
    first = max(len(v) for v in order.values())
    out = []
    for column, (stage, numbers) in enumerate(order.items(), start=1):
        span = 2 * first // len(numbers) if even else 2
        for k, number in enumerate(numbers):
            out.append(Placement(number, stage, column, k * span + 1, span,
                                 feeds_next=even and column < len(order), fed=even and column > 1))
    return out, 2 * first
