"""WorldCupArena's player, event and statistic metrics (T2-T4), each on a 0-100 scale, higher better.

Source: seeds/001 §4.1 ("Player, event, and statistic metrics") with the exact forms of the
paper's released grader (github wzk1015/WorldCupArena, ``configs/tasks.yaml``,
``src/graders/metrics.py``; read, not copied). The functions are pure and take numbers and
identities already resolved (``fine_grained.py`` matches names to players); none of them
sees a record.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

PLAYER_PENALTY = 30.0
"""Cost of matching a predicted event to a real one of another player (the grader's no-match penalty)."""
MINUTE_CAP = 70.0
"""A matched pair's minute error counts up to 70, so a matched pair never costs more than an unmatched event."""
UNMATCHED_COST = 100.0
"""Cost of a predicted event with no real counterpart, or a real event nobody predicted."""


def rank_gains(n: int) -> np.ndarray:
    """DCG gains of ranks 1..n: g_i = 1 / log2(i + 1) (Järvelin and Kekäläinen 2002)."""
    return 1.0 / np.log2(np.arange(2, n + 2, dtype=float))


def ndcg_f1_players(hits: np.ndarray, n_truth: int) -> float:
    """nDCG-weighted F1 of a ranked player list against the set of real players (scorers, assisters).

    With ranked predictions p_1..p_n (by decreasing probability), h_i = 1 when p_i is one of
    the n_T real players and gains g_i = 1/log2(i+1):
    P = sum_i g_i h_i / sum_i g_i (rank-weighted precision),
    R = sum_i g_i h_i / sum_{i <= n_T} g_i (= nDCG, rank-weighted recall),
    S = 100 * 2PR / (P + R), 0 when P + R = 0; S = 100 when nothing was predicted and nothing
    happened. Source: seeds/001 §4.1 ("reward a correct player more when the model ranks that
    player highly"); the released grader's f1_with_ndcg task.
    """
    hits = np.asarray(hits, dtype=float)
    if hits.size == 0 and n_truth == 0:
        return 100.0
    if hits.size == 0 or n_truth == 0:
        return 0.0
    dcg = float(np.sum(rank_gains(hits.size) * hits))
    precision = dcg / float(np.sum(rank_gains(hits.size)))
    recall = dcg / float(np.sum(rank_gains(n_truth)))
    return 0.0 if dcg == 0.0 else 100.0 * 2.0 * precision * recall / (precision + recall)


def jaccard_positions_lineup(same_player: np.ndarray, same_position: np.ndarray | None) -> float:
    """Jaccard with positions of one side's predicted starting eleven.

    ``same_player`` is the (predicted x real) boolean identity matrix (each player matches at
    most one), ``same_position`` the matrix of equal positions, or None when the source gives
    no positions. With k matched players, J = k / (n_P + n_T - k) and
    Q = (matched players in the right position) / n_T:
    S = 100 (0.7 J + 0.3 Q), or 100 J without positions (the missing part is left out, eq. 2).
    Source: seeds/001 §4.1; weights 0.7/0.3 from the released grader's jaccard_with_position.
    """
    same_player = np.asarray(same_player, dtype=bool)
    n_pred, n_truth = same_player.shape
    if n_pred == 0 and n_truth == 0:
        return 100.0
    matched = same_player.any(axis=1)
    k = int(matched.sum())
    jaccard = k / (n_pred + n_truth - k)
    if same_position is None:
        return 100.0 * jaccard
    placed = int((same_player & np.asarray(same_position, dtype=bool)).any(axis=1).sum())
    return 100.0 * (0.7 * jaccard + 0.3 * placed / n_truth)


def exact_formation(predicted: str, real: str) -> float:
    """100 when the predicted formation string equals the real one ("4-3-3"), else 0 (seeds/001 Table 1)."""
    return 100.0 if predicted == real else 0.0


def top1_player_of_the_match(probabilities: np.ndarray, is_real: np.ndarray) -> float:
    """Top-1 accuracy of the player-of-the-match list: 100 when the most probable player is the
    real one; with k players tied at the top, 100/k when the real one is among them; 0 for an
    empty list. Source: seeds/001 Table 1 (top-1 accuracy)."""
    probabilities, is_real = np.asarray(probabilities, dtype=float), np.asarray(is_real, dtype=bool)
    if probabilities.size == 0:
        return 0.0
    top = probabilities >= probabilities.max() - 1e-12
    return 100.0 * float(is_real[top].sum()) / float(top.sum())


def event_costs(minute_pred: np.ndarray, minute_real: np.ndarray, mismatch: np.ndarray) -> np.ndarray:
    """Cost of pairing predicted event i with real event j:
    c_ij = min(|t_i - t_j|, 70) + 30 m_ij, with m_ij the number of wrong identities (player;
    for substitutions on and off count half each), at most 100."""
    gap = np.abs(np.asarray(minute_pred, dtype=float)[:, None] - np.asarray(minute_real, dtype=float)[None, :])
    return np.minimum(np.minimum(gap, MINUTE_CAP) + PLAYER_PENALTY * np.asarray(mismatch, dtype=float),
                      UNMATCHED_COST)


def hungarian_events(costs: np.ndarray) -> float:
    """Hungarian-matched event score (goals, cards, substitutions, penalties, own goals).

    Predicted events are assigned one-to-one to real events minimising the total pairing
    cost c_ij (:func:`event_costs`; Kuhn 1955, scipy's linear_sum_assignment); every event
    left over on either side costs 100. With n_P predicted and n_T real events,
    S = max(0, 100 - (sum of matched costs + 100 |n_P - n_T|) / max(n_P, n_T)),
    and S = 100 when none was predicted and none happened ("none happened" is a correct,
    scorable prediction). Source: seeds/001 §4.1; minute error and player penalty from the
    released grader's hungarian_minute_mae (penalty 30).
    """
    costs = np.asarray(costs, dtype=float)
    n_pred, n_truth = costs.shape
    if n_pred == 0 and n_truth == 0:
        return 100.0
    if n_pred == 0 or n_truth == 0:
        return 0.0
    rows, cols = linear_sum_assignment(costs)
    total = float(costs[rows, cols].sum()) + UNMATCHED_COST * abs(n_pred - n_truth)
    return max(0.0, 100.0 - total / max(n_pred, n_truth))


def smape_counts(predicted: np.ndarray, real: np.ndarray) -> np.ndarray:
    """sMAPE score of counts and percentages, elementwise:
    S = 100 max(0, 1 - |p - t| / ((|p| + |t|) / 2)), and 100 when p = t = 0.
    Source: seeds/001 §4.1 (Hyndman and Koehler 2006); the released grader's smape."""
    p, t = np.asarray(predicted, dtype=float), np.asarray(real, dtype=float)
    denominator = (np.abs(p) + np.abs(t)) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(denominator == 0.0, 0.0, np.abs(p - t) / np.where(denominator == 0.0, 1.0, denominator))
    return 100.0 * np.maximum(0.0, 1.0 - ratio)


def available_mean(scores: np.ndarray, weights: np.ndarray) -> float:
    """Availability-aware weighted mean, eq. (2) of seeds/001 §4.2:
    S_A = sum_{j in A} w_j S_j / sum_{j in A} w_j over the available components A (NaN =
    unavailable: left out, never counted as 0). NaN when nothing is available."""
    scores, weights = np.asarray(scores, dtype=float), np.asarray(weights, dtype=float)
    ok = ~np.isnan(scores)
    if not ok.any():
        return float("nan")
    return float(np.sum(weights[ok] * scores[ok]) / np.sum(weights[ok]))
