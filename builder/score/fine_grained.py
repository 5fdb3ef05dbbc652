"""Task scores of one fine-grained forecast against one match report (WorldCupArena T2-T4).

Each task is NaN when its truth is unavailable (the report has no data for it, or the data
fails a basic check: a goal without a scorer or minute, goals that do not add up to the
published score), so eq. (2) leaves it out instead of scoring 0 (seeds/001 §3.2, §4.2).
Players are identified by side and name with the competition's player rule
(:func:`collector.competitions.players.same_player`: family name first, initials allowed,
ambiguous names never merged by guess).
"""

from __future__ import annotations

import numpy as np

from builder.score import fine_grained_metrics as fm
from collector.competitions.players import same_player
from collector.records.fine_grained import FineGrainedForecast
from collector.records.match_report import MatchReport

NAN = float("nan")
SIDES = ("home", "away")
STATISTICS = ("possession", "shots", "shots_on_target", "corners", "fouls", "offsides", "xg")


def identity_matrix(predicted: list[tuple[str, str]], real: list[tuple[str, str]]) -> np.ndarray:
    """(predicted x real) one-to-one identity of (side, name) pairs: a predicted player is a real
    one when the side agrees and exactly one unclaimed real name is the same player."""
    out = np.zeros((len(predicted), len(real)), dtype=bool)
    claimed: set[int] = set()
    for i, (side, name) in enumerate(predicted):
        found = [j for j, (s, n) in enumerate(real) if s == side and j not in claimed and same_player(name, n)]
        if len(found) == 1:
            out[i, found[0]] = True
            claimed.add(found[0])
    return out


def pairwise(left, right, test) -> np.ndarray:
    """The (len(left) x len(right)) float matrix of ``test(a, b)``, empty shapes kept."""
    out = np.zeros((len(left), len(right)), dtype=float)
    for i, a in enumerate(left):
        for j, b in enumerate(right):
            out[i, j] = float(test(a, b))
    return out


def _ranked_hits(ranked: list[tuple[str, str]], real: list[tuple[str, str]]) -> float:
    distinct = list(dict.fromkeys(real))
    return fm.ndcg_f1_players(identity_matrix(ranked, distinct).any(axis=1), len(distinct))


def lineup_score(fc: FineGrainedForecast, report: MatchReport) -> float:
    per_side = []
    for side in SIDES:
        real = getattr(report, f"{side}_lineup")
        if real is None:
            continue
        predicted = fc.lineup(side).starting
        same = identity_matrix([(side, p.name) for p in predicted], [(side, p.name) for p in real.starting])
        positions = None
        if all(p.position is not None for p in real.starting):
            positions = np.array([[a.position == b.position for b in real.starting] for a in predicted], dtype=bool)
        per_side.append(fm.jaccard_positions_lineup(same, positions))
    return float(np.mean(per_side)) if per_side else NAN


def formation_score(fc: FineGrainedForecast, report: MatchReport) -> float:
    per_side = [fm.exact_formation(fc.lineup(side).formation, getattr(report, f"{side}_formation"))
                for side in SIDES if getattr(report, f"{side}_formation") is not None]
    return float(np.mean(per_side)) if per_side else NAN


def checked_goals(report: MatchReport, goal_total: int | None) -> tuple | None:
    """The report's goals when usable: every goal has a scorer and a minute, and their number is
    the published total (``goal_total``, extra time included, shoot-out excluded) when known, and
    no scorer failed the squad check."""
    goals = report.goals
    if goals is None or any(g.player is None or g.minute is None or g.in_squad is False for g in goals):
        return None
    if goal_total is not None and len(goals) != goal_total:
        return None
    return goals


def scorer_score(fc: FineGrainedForecast, goals: tuple | None) -> float:
    if goals is None:
        return NAN
    real = [(g.side, g.player) for g in goals if not g.own_goal]
    return _ranked_hits([(p.side, p.player) for p in fc.ranked("scorers")], real)


def assist_score(fc: FineGrainedForecast, report: MatchReport) -> float:
    if report.assists is None:
        return NAN
    return _ranked_hits([(p.side, p.player) for p in fc.ranked("assisters")],
                        [(a.side, a.player) for a in report.assists])


def potm_score(fc: FineGrainedForecast, report: MatchReport) -> float:
    real = report.player_of_the_match
    if real is None:
        return NAN
    listed = fc.player_of_the_match
    hits = identity_matrix([(p.side, p.player) for p in listed], [(real.side, real.player)]).any(axis=1)
    return fm.top1_player_of_the_match(np.array([p.probability for p in listed]), hits)


def _events(predicted: list[tuple[str, str, float]], real: list[tuple[str, str, float | None]],
            extra_mismatch: np.ndarray | None = None) -> float:
    """Hungarian score of (side, player, minute) events; NaN when a real event has no minute."""
    if any(t is None for _, _, t in real):
        return NAN
    same = pairwise(predicted, real, lambda p, r: p[0] == r[0] and same_player(p[1], r[1]))
    mismatch = 1.0 - same + (0.0 if extra_mismatch is None else extra_mismatch)
    costs = fm.event_costs(np.array([t for *_, t in predicted], dtype=float),
                           np.array([t for *_, t in real], dtype=float), mismatch)
    return fm.hungarian_events(costs)


def goal_minute_score(fc: FineGrainedForecast, goals: tuple | None) -> float:
    if goals is None:
        return NAN
    return _events([(g.side, g.player, g.minute) for g in fc.goals],
                   [(g.side, g.player, g.at) for g in goals if not g.own_goal])


def own_goal_score(fc: FineGrainedForecast, goals: tuple | None) -> float:
    if goals is None:
        return NAN
    return _events([(g.side, g.player, g.minute) for g in fc.own_goals],
                   [(g.side, g.player, g.at) for g in goals if g.own_goal])


def card_score(fc: FineGrainedForecast, report: MatchReport) -> float:
    if report.cards is None:
        return NAN
    colour = pairwise(fc.cards, report.cards, lambda a, b: a.colour != b.colour)
    return _events([(c.side, c.player, c.minute) for c in fc.cards],
                   [(c.side, c.player, c.minute) for c in report.cards], colour)


def substitution_score(fc: FineGrainedForecast, report: MatchReport) -> float:
    """Identity is the player coming on; the player going off counts half a mismatch more."""
    subs = report.substitutions
    if subs is None:
        return NAN
    off = 0.5 * pairwise(fc.substitutions, subs, lambda a, b: a.side != b.side or not same_player(a.player_off,
                                                                                                     b.player_off))
    return _events([(s.side, s.player_on, s.minute) for s in fc.substitutions],
                   [(s.side, s.player_on, s.minute) for s in subs], off)


def penalty_score(fc: FineGrainedForecast, report: MatchReport, goals: tuple | None) -> float:
    """All penalty kicks (taker, minute, outcome) when the report lists them; otherwise, when a
    source gives only the scored ones (openfootball), the predicted scored penalties against
    the penalty goals -- a miss nobody reported cannot be scored either way."""
    if report.penalties is not None:
        outcome = pairwise(fc.penalties, report.penalties, lambda a, b: a.outcome != b.outcome)
        return _events([(p.side, p.taker, p.minute) for p in fc.penalties],
                       [(p.side, p.taker, p.minute) for p in report.penalties], outcome)
    if goals is None:
        return NAN
    return _events([(p.side, p.taker, p.minute) for p in fc.penalties if p.outcome == "scored"],
                   [(g.side, g.player, g.at) for g in goals if g.penalty and not g.own_goal])


def statistic_scores(fc: FineGrainedForecast, report: MatchReport) -> dict[str, float]:
    """sMAPE score per statistic, the mean of the two sides; "cards" joins yellow and red cards."""
    real, predicted = report.statistics, fc.statistics
    out: dict[str, float] = {}
    for name in STATISTICS:
        r, p = (None if real is None else getattr(real, name)), getattr(predicted, name)
        if r is None:
            out[name] = NAN
        else:  # a statistic the forecast left out (only xg can be) where the truth has it scores 0: no free pass
            out[name] = 0.0 if p is None else float(
                np.mean(fm.smape_counts(np.array([p.home, p.away]), np.array([r.home, r.away]))))
    pairs = [(getattr(predicted, n), getattr(real, n)) for n in ("yellow_cards", "red_cards")
             if real is not None and getattr(real, n) is not None]
    out["cards"] = float(np.mean([fm.smape_counts(np.array([p.home, p.away]), np.array([r.home, r.away]))
                                  for p, r in pairs])) if pairs else NAN
    return out


def task_scores(fc: FineGrainedForecast, report: MatchReport, goal_total: int | None = None) -> dict[str, float]:
    """Every T2-T4 task score of one forecast (0-100, NaN = truth unavailable), by task id."""
    goals = checked_goals(report, goal_total)
    formation = formation_score(fc, report)
    scores = {
        "starting_xi": lineup_score(fc, report), "formation": formation, "goalscorers": scorer_score(fc, goals),
        "assist_providers": assist_score(fc, report), "player_of_the_match": potm_score(fc, report),
        "goal_minute": goal_minute_score(fc, goals), "substitution_times": substitution_score(fc, report),
        "cards": card_score(fc, report), "penalty_events": penalty_score(fc, report, goals),
        "own_goals": own_goal_score(fc, goals), "tactical_formation": formation,
    }
    scores.update({f"stat_{k}": v for k, v in statistic_scores(fc, report).items()})
    return scores


def _timed(events) -> bool:
    return events is not None and all(e.minute is not None for e in events)


def truth_tasks(report: MatchReport, goal_total: int | None = None) -> frozenset[str]:
    """The T2-T4 tasks whose truth the report has: exactly those :func:`task_scores` scores
    (not NaN) for any forecast. A forecast with no fine-grained part scores 0 on these
    (WorldCupArena eq. 2 skips only what has no truth; a layer not forecast is no free pass)."""
    goals = checked_goals(report, goal_total) is not None
    formation = report.home_formation is not None or report.away_formation is not None
    stats = report.statistics
    penalties = _timed(report.penalties) if report.penalties is not None else goals
    found = {
        "starting_xi": report.home_lineup is not None or report.away_lineup is not None, "formation": formation,
        "goalscorers": goals, "assist_providers": report.assists is not None,
        "player_of_the_match": report.player_of_the_match is not None, "goal_minute": goals,
        "substitution_times": _timed(report.substitutions), "cards": _timed(report.cards),
        "penalty_events": penalties, "own_goals": goals, "tactical_formation": formation,
    }
    found.update({f"stat_{k}": stats is not None and getattr(stats, k) is not None for k in STATISTICS})
    found["stat_cards"] = stats is not None and (stats.yellow_cards is not None or stats.red_cards is not None)
    return frozenset(task for task, known in found.items() if known)
