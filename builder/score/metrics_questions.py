"""Measures of tournament-question forecasts (group winners, semifinalists, champion, ...).

Arrays are (forecasts x candidates): ``P`` the stated probability of each candidate (0 for a
candidate the forecast does not list), ``Y`` 1 for the candidates in the realised answer.
Source: seeds/000 Table 5 and App. C.6 ("Brier score, log loss, and final-selection accuracy
for one-team questions; exact four-team set recovery, mean team recovery, marginal
probability error, and probability-sum audit for semifinalists").

Picks: only the picks made count (``QuestionForecast.picks_made``): a final pick whose stated
probability ties with a listed team the forecaster did not pick is no pick, so it is never
right (a forecast giving every team the same probability picks nobody and gets no credit for
the source's order of the teams). Probabilistic measures use the stated probabilities as they are.

Choices: the one-team Brier is the unscaled multiclass Brier over all candidates; the fixed-k
"marginal probability error" is the mean over candidates of (P_c - Y_c)^2 (P_c read as the
probability that c is in the set); the probability-sum audit is sum_c P_c - k (0 when the
stated probabilities are coherent). Probabilities are scored as stated, never renormalised.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from builder.score.metrics import LOG_LOSS_FLOOR
from builder.score.types import QuestionScore, QuestionSummary
from collector.archive.layout import path_for
from collector.records import Forecast, QuestionForecast


def brier_score_question(P: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """One-team question: sum_c (P_c - D_c)^2 over all candidates, in [0, 2] (seeds/000 Table 5),
    with D = Y / sum(Y) the realised answer.

    Choice: an answer of m > 1 tied teams (``top_scorer_team`` when top scorers of several teams
    share the lead) is scored by the dead-heat rule, D_c = 1/m for each of them, so the score
    stays in [0, 2]; with the usual one-team answer D = Y.
    """
    Y = np.asarray(Y, dtype=float)
    dead_heat = Y / np.maximum(Y.sum(axis=1, keepdims=True), 1.0)
    return np.sum((np.asarray(P, dtype=float) - dead_heat) ** 2, axis=1)


def log_loss_question(P: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """One-team question: -ln max(P_answer, 1e-6) (seeds/000 Table 5); for a tied answer
    P_answer is the probability given to the answer set (sum over its teams)."""
    realised = np.sum(np.asarray(P, dtype=float) * Y, axis=1)
    return -np.log(np.clip(realised, LOG_LOSS_FLOOR, 1.0))


def probability_realised_question(P: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Probability the forecast gave the realised answer (sum over answer teams for a set)."""
    return np.sum(np.asarray(P, dtype=float) * Y, axis=1)


def accuracy_question(picks: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """One-team question: 1 if the final pick is the answer (one of the tied answer teams), else 0
    (``picks`` is a 0/1 matrix of the picks made: a forecast with no pick, its pick tied with a
    team it did not pick, is not right)."""
    made = np.sum(picks, axis=1)
    return ((made > 0) & (np.sum(picks * Y, axis=1) == made)).astype(float)


def exact_set_question(picks: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Fixed-k question: 1 if the k final picks are exactly the realised set."""
    return np.all(picks == Y, axis=1).astype(float)


def correct_count_question(picks: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Fixed-k question: how many of the k final picks are in the realised set."""
    return np.sum(picks * Y, axis=1).astype(float)


def marginal_brier_question(P: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Fixed-k question: mean over candidates of (P_c - Y_c)^2, P_c = P(c in the set)."""
    return np.mean((np.asarray(P, dtype=float) - Y) ** 2, axis=1)


def probability_sum_audit(sums: np.ndarray, k: int) -> np.ndarray:
    """sum_c P_c - k: how far the stated probabilities are from summing to k (0 = coherent).

    ``sums`` are the sums as *stated*, before the validator normalised them (see :func:`stated_sums`).
    """
    return np.asarray(sums, dtype=float) - k


def stated_sums(group: list[Forecast], P: np.ndarray) -> np.ndarray:
    """Per forecast, the probability sum the forecaster stated for the answer that is scored: the
    validator's record of it, taken before normalisation (``validation.original_sums["choices"]``
    for a first answer; ``diagnostics["repaired_sums"]["choices"]`` when the scored payload is a
    repaired answer, since ``original_sums`` always describe the first answer), else the
    payload's sum (baselines, which are not normalised). The payload alone would hide every
    normalised sum."""
    payload_sums = np.sum(np.asarray(P, dtype=float), axis=1)
    out = []
    for i, f in enumerate(group):
        repaired = f.validation.diagnostics.get("repaired_sums") if f.validation.repaired else None
        source = repaired if isinstance(repaired, dict) else f.validation.original_sums
        value = source.get("choices", payload_sums[i])
        out.append(float(value) if isinstance(value, int | float) and not isinstance(value, bool) else payload_sums[i])
    return np.array(out, dtype=float)


def score_questions(archive, forecasts: list[Forecast]) -> list[QuestionScore]:
    """Score every scorable question forecast whose question is resolved."""
    by_question: dict[tuple[str, str], list[Forecast]] = defaultdict(list)
    for f in forecasts:
        if f.scorable and isinstance(f.payload, QuestionForecast):
            by_question[(f.competition_id, f.payload.question_id)].append(f)
    out = []
    for key, group in sorted(by_question.items()):
        question, resolution = archive.questions.get(key), archive.resolutions.get(key)
        if question is None or resolution is None:
            continue
        out += _score_group(question, resolution, group)
    return out


def _score_group(question, resolution, group: list[Forecast]) -> list[QuestionScore]:
    candidates = list(question.candidates)
    for team in (*resolution.answer, *(c.team for f in group for c in f.payload.choices)):
        if team not in candidates:
            candidates.append(team)
    col = {t: i for i, t in enumerate(candidates)}
    P = np.zeros((len(group), len(candidates)))
    picks = np.zeros_like(P)
    for i, f in enumerate(group):
        for choice in f.payload.choices:
            P[i, col[choice.team]] = choice.probability
        for team in f.payload.picks_made():  # a pick tied with a team not picked is no pick
            picks[i, col[team]] = 1.0
    Y = np.zeros(len(candidates))
    Y[[col[t] for t in resolution.answer]] = 1.0
    Y = np.broadcast_to(Y, P.shape)
    k = question.k
    if question.prediction_type.value == "single_choice":
        cols = {"brier": brier_score_question(P, Y), "log_loss": log_loss_question(P, Y),
                "accuracy": accuracy_question(picks, Y)}
    else:
        cols = {"exact_set": exact_set_question(picks, Y), "correct": correct_count_question(picks, Y),
                "marginal_brier": marginal_brier_question(P, Y)}
    cols["probability_realised"] = probability_realised_question(P, Y)
    cols["probability_sum_audit"] = probability_sum_audit(stated_sums(group, P), k)
    return [
        QuestionScore(
            competition_id=f.competition_id, question_id=question.id,
            prediction_type=question.prediction_type.value, forecaster=f.forecaster, access=f.access.value,
            strategy=f.strategy.value, horizon=f.horizon.value, clock=f.clock.value, k=k,
            answer=tuple(resolution.answer), final_picks=tuple(f.payload.final_picks),
            tied=tuple(t for t in f.payload.final_picks if t in f.payload.tied_picks()),
            measures={name: float(v[i]) for name, v in cols.items()},
            key=f.key(), path=path_for(f),
        )
        for i, f in enumerate(group)
    ]


def summarise_questions(scores: list[QuestionScore]) -> list[QuestionSummary]:
    """Means per forecaster, condition and question type. Questions are the unit (seeds/000 B.5):
    repeated samples of one question are averaged first, and ``n`` counts questions."""
    groups: dict[tuple, dict[tuple[str, str], list[QuestionScore]]] = defaultdict(lambda: defaultdict(list))
    for q in scores:
        key = (q.forecaster, q.access, q.strategy, q.horizon, q.clock, q.prediction_type)
        groups[key][(q.competition_id, q.question_id)].append(q)
    out = []
    for key, questions in sorted(groups.items()):
        names = sorted({n for group in questions.values() for q in group for n in q.measures})
        means = {}
        for name in names:
            per_question = [_mean_of(group, name) for group in questions.values()]
            values = [v for v in per_question if v is not None]
            means[name] = float(np.mean(values)) if values else None
        out.append(QuestionSummary(*key, n=len(questions), measures=means))
    return out


def _mean_of(group: list[QuestionScore], name: str) -> float | None:
    values = [q.measures[name] for q in group if q.measures.get(name) is not None]
    return float(np.mean(values)) if values else None
