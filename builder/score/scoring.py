"""The one entry point from an archive to every score: ``score_archive(archive) -> Scores``.

Only forecasts with a scorable status (valid, normalized, repaired) whose event has a
finished or awarded outcome with a 90-minute score are scored; everything else still counts
in coverage and operational rates. Replay forecasts are scored like live ones and keep
``clock = "replay"`` in every row. Nothing here writes to the archive.
"""

from __future__ import annotations

import dataclasses
from functools import partial

import numpy as np

from builder.score import (
    aggregate,
    binary_events,
    calibration,
    families,
    fine_grained_board,
    inference,
    leakage,
    market,
    metrics_questions,
    operations,
    reliability,
)
from builder.score.blas import one_blas_thread
from builder.score.columns import RowTable
from builder.score.floats import float_sharer
from builder.score.measurerows import NAMES, ROW_LAYERS, Advancement, Layers, rows_of
from builder.score.metrics import (
    CLASSES,
    absolute_errors_scoreline,
    accuracy_advancement,
    accuracy_hda,
    agreement_scoreline,
    brier_score_advancement,
    brier_score_hda,
    brier_score_pa,
    exact_scoreline,
    exact_wca,
    goal_difference_error,
    goal_difference_scoreline,
    log_loss_advancement,
    log_loss_hda,
    mean_goal_distance_scoreline,
    partial_credit_scoreline,
    points_scoreline,
    published_score,
    result_accuracy_wca,
    result_class,
    rps_hda,
    tendency_scoreline,
)
from builder.score.options import LSA_DEFAULTS, AnalysisOptions
from builder.score.returns import quoted_odds
from builder.score.row_analyses import RowsScored, row_analyses
from builder.score.t5_layer import T5Layer, t5_layer
from builder.score.types import ADVANCEMENT_MEASURES, MEASURES, ScoredForecast, Scores
from collector.archive.layout import path_for
from collector.archive.memory import paused_garbage_collector
from collector.archive.reader import Archive
from collector.records import Event, Forecast, MatchForecast, Outcome


def score_archive(archive: Archive, competition_id: str | None = None, *, inference_tests: bool = True,
                  options: AnalysisOptions = LSA_DEFAULTS, rows_scored: RowsScored | None = None) -> Scores:
    """Score every forecast of ``archive`` (optionally one competition) and analyse the results
    (LLM-SoccerArena's analysis choices unless ``options`` say otherwise).

    ``rows_scored`` (:data:`RowsScored`) is called with the scored rows (the result's
    ``forecasts``, final) as soon as they and their resampler exist, before the analyses made
    from them: the build starts the work that needs only the rows there, the analyses of
    :func:`row_analyses` included (:mod:`builder.score.slicework`)."""
    with paused_garbage_collector(), one_blas_thread():  # the same bits on any number of cores
        return _score_archive(archive, competition_id, inference_tests, options, rows_scored)


def _score_archive(archive: Archive, competition_id: str | None, inference_tests: bool,
                   options: AnalysisOptions = LSA_DEFAULTS, rows_scored: RowsScored | None = None) -> Scores:
    scores = Scores(archive=str(archive.root), competition_id=competition_id)
    scores.problems = [str(p) for p in archive.problems] + advancing_team_mismatches(archive)
    # sorted by forecast key, so every sum runs in the same order whatever order files were read in
    chosen = archive.forecasts if competition_id is None else archive.forecasts_of(competition_id)
    forecasts = sorted(chosen, key=Forecast.key)
    match_forecasts = [f for f in forecasts if f.target_kind == "match"]
    flags = leakage.audit_archive(archive, match_forecasts)  # suspected leaks: shown, counted, not scored
    scores.leakage = {path: [(f.rule, f.reason) for f in found] for path, found in flags.items()}
    if flags and not options.include_leaked:
        match_forecasts = [f for f in match_forecasts if path_for(f) not in flags]
    scores.forecasts = score_match_forecasts(archive, match_forecasts)
    scores.t5 = t5_layer(archive)
    resampler = inference.resampler_for(scores.forecasts, options.intervals) if scores.forecasts else None
    work = partial(row_analyses, scores.forecasts, resampler, options, inference_tests)
    elsewhere = rows_scored(scores.forecasts, scores.t5, work) if rows_scored is not None else None
    market_rows = _boards(scores, archive, match_forecasts, options=options, resampler=resampler)[1]
    scores.calibration = calibration.calibration_rows(scores.forecasts)
    scores.confidence_groups = calibration.confidence_groups(scores.forecasts, options.confidence_groups)
    if resampler is not None:
        scores.pooled_calibration = reliability.pooled_reliability(scores.forecasts, resampler)
    scores.questions = metrics_questions.score_questions(archive, [f for f in forecasts if f.target_kind == "question"])
    scores.question_summary = metrics_questions.summarise_questions(scores.questions)
    binary_records = [r for r in archive.records.values() if competition_id in (None, getattr(r, "competition_id", None))]
    scores.binary, asked = binary_events.score_binary_events(binary_records)
    scores.binary_summary = binary_events.summarise_binary(scores.binary, asked)
    # operational rates count every attempt made, the transport failures a retry replaced included
    retried = [f for f in archive.superseded if competition_id is None or f.competition_id == competition_id]
    attempted = sorted(forecasts + retried, key=Forecast.key) if retried else forecasts  # ``forecasts`` are sorted
    scores.operations = leakage.with_leak_counts(operations.operational_rows(attempted), flags, forecasts)
    tests = inference.all_tests(scores.forecasts, resampler, market_rows) if inference_tests and resampler else []
    found = elsewhere() if elsewhere is not None else work()
    scores.tests = tests + found.family_tests
    scores.difficulty, scores.robustness, scores.diversity = found.difficulty, found.robustness, found.diversity
    scores.notes = aggregate.NOTES + inference.NOTES
    return scores


def score_part(archive: Archive, match_forecasts: list[Forecast], rows: list[ScoredForecast], *,
               inference_tests: bool = True, options: AnalysisOptions = LSA_DEFAULTS,
               table: RowTable | None = None, market_rows: dict | None = None, t5: T5Layer | None = None) -> Scores:
    """The leaderboard views (all, matched, ensemble), tests and notes of one part of ``archive``
    (a competition or stage), from its match forecasts and their already scored rows.

    The same numbers as ``score_archive`` on that part of the archive alone (same rows in the
    same order, a resampler over the part's events), without scoring every forecast again and
    without the analyses the leaderboard does not show (calibration, questions, operations).
    The leaderboard page shows the matched view, so the "all" view gets no bootstrap intervals
    here (whenever anything is scored, the most complete cell is ranked, so the matched view
    has rows). ``table`` is ``RowTable.of(rows)``, ``market_rows`` is ``market.market_events(rows)`` and
    ``t5`` is ``t5_layer(archive)`` when the caller has them (``score_slices`` takes each part's from
    the whole archive's).
    """
    with paused_garbage_collector(), one_blas_thread():
        scores = Scores(archive=str(archive.root), competition_id=None, forecasts=rows,
                        t5=t5_layer(archive) if t5 is None else t5)
        resampler, market_rows = _boards(scores, archive, match_forecasts, all_view_intervals=False, options=options,
                                         table=table, market_rows=market_rows)
        if inference_tests and resampler is not None:
            scores.tests = inference.all_tests(rows, resampler, market_rows) + families.family_tests(rows, resampler)
        scores.notes = aggregate.NOTES + inference.NOTES
        return scores


def _boards(scores: Scores, archive: Archive, match_forecasts: list[Forecast], all_view_intervals: bool = True,
            options: AnalysisOptions = LSA_DEFAULTS, table: RowTable | None = None, market_rows: dict | None = None,
            resampler=None):
    """Fill the leaderboard, matched view and ensemble of ``scores``; return the resampler (``resampler``,
    or the rows' own when not given) and the rows' ``market.market_events`` (the market tests
    reuse them rather than pairing the rows again).

    Without ``all_view_intervals`` the "all" view has no bootstrap intervals (its other
    numbers and its ranking do not depend on them).
    """
    if resampler is None and scores.forecasts:
        resampler = inference.resampler_for(scores.forecasts, options.intervals)
    table = RowTable.of(scores.forecasts) if table is None else table  # the rows as columns, for the three views
    market_rows = market.table_market_events(table) if market_rows is None else market_rows
    scores.leaderboard = aggregate.leaderboard(archive, match_forecasts, scores.forecasts, market_rows,
                                               resampler if all_view_intervals else None, table=table)
    scores.matched = aggregate.matched_view(scores.leaderboard, scores.forecasts, market_rows, resampler,
                                            table=table)
    composites: dict[tuple, dict] = {}  # per cell, shared by both views (over every scored match of the cell)
    scores.leaderboard = fine_grained_board.with_composite(scores.leaderboard, scores.forecasts, composites,
                                                           table=table, t5=scores.t5)
    scores.matched = fine_grained_board.with_composite(scores.matched, scores.forecasts, composites, table=table,
                                                       t5=scores.t5)
    scores.ensemble = aggregate.ensemble_rows(scores.forecasts, resampler, table=table)
    return resampler, market_rows


def scorable_pairs(
    archive: Archive, forecasts: list[Forecast]
) -> list[tuple[Forecast, MatchForecast, Event, Outcome]]:
    """Forecasts that can be scored: scorable status, a match payload, an event and a scored outcome."""
    scored = {key: o for key, o in archive.outcomes.items()  # once per event, not per forecast
              if o.status.has_result and o.score_90 is not None}
    pairs = []
    for forecast in forecasts:
        key = (forecast.competition_id, forecast.target_id)
        outcome = scored.get(key)
        event = archive.events.get(key)
        if not forecast.scorable or not isinstance(forecast.payload, MatchForecast) or event is None:
            continue
        if outcome is None:
            continue
        pairs.append((forecast, forecast.payload, event, outcome))
    return pairs


def score_match_forecasts(archive: Archive, forecasts: list[Forecast]) -> list[ScoredForecast]:
    """Every per-forecast measure, computed in one vectorised pass over all scorable forecasts,
    with each row's WorldCupArena layers (``builder.score.fine_grained_board``)."""
    pairs = scorable_pairs(archive, forecasts)
    if not pairs:
        return []
    p, (eh, ea), (ph, pa, h, a, h_et, a_et), et = _pair_columns(pairs)
    y = result_class(h, a)
    columns = match_measures(p, y, ph, pa, h, a, eh, ea, published=published_score(h, a, h_et, a_et, et))
    same = float_sharer()
    matrix, knockout = measures_matrix(columns, pairs)
    knockout = set(knockout)  # the rows with advancement measures, looked up per row
    numbers = _row_numbers(p, np.stack([ph, pa, h, a, y]), same)
    new_row, rows = _row_setter(), []
    path_of, reports = _reader_paths(archive), archive.match_reports
    truths: dict[tuple[str, str], frozenset[str]] = {}  # per event, the T2-T4 tasks its report has truth for
    layers = np.empty((len(pairs), len(ROW_LAYERS)))  # each row's T1-T4, read through its ``Layers``
    for i, ((forecast, payload, event, _), (probs, p_h, p_a, s_h, s_a, cls), measures) in enumerate(
            zip(pairs, numbers, rows_of(matrix), strict=True)):
        adv = Advancement(matrix, measures.row) if i in knockout else None  # one row number object for all three
        target = (forecast.competition_id, forecast.target_id)
        # no report or no fine-grained part: ``payload_tasks`` is {} without looking further
        tasks = fine_grained_board.payload_tasks(archive, payload, target) if target in reports else {}
        truth = truths.get(target)
        if truth is None:
            truth = truths[target] = fine_grained_board.event_truth(archive, target) if target in reports else _NONE
        layers[i] = list(map(fine_grained_board.row_layers(tasks, measures, adv, truth).__getitem__, ROW_LAYERS))
        kind = forecast.forecaster_type._value_  # StrEnum members: ``_value_`` is ``.value`` without the descriptor
        rows.append(new_row((
            target[0], target[1], forecast.forecaster, kind, forecast.model, forecast.access._value_,
            forecast.strategy._value_, forecast.horizon._value_, forecast.sample, forecast.clock._value_,
            forecast.status._value_, event.stage, event.knockout, *probs, p_h, p_a, s_h, s_a, CLASSES[cls],
            payload.confidence, measures, adv, forecast.key(), path_of.get(id(forecast)) or path_for(forecast),
            forecast.lead_time_minutes, _searched(forecast), Layers(layers, measures.row),
            tasks, quoted_odds(forecast.inputs) if kind == "market" else None,
        )))
    layers.flags.writeable = False
    return rows


_NONE: frozenset[str] = frozenset()

ROW_CHUNK = 4096
"""Rows whose numbers are Python objects at once while rows are made (the rest stay numpy)."""


def _row_numbers(p: np.ndarray, ints: np.ndarray, same):
    """Each row's (probabilities, predicted home, predicted away, home, away, result class),
    :data:`ROW_CHUNK` rows at a time: ``tolist`` gives the same floats and ints as
    ``float()``/``int()`` per item, and only a chunk's Python numbers exist before its rows hold
    them. The probabilities go through the float sharer ``same`` a column at a time (one object
    of each equal value across rows)."""
    for start in range(0, len(p), ROW_CHUNK):
        stop = start + ROW_CHUNK
        probs = zip(*_shared_columns(np.ascontiguousarray(p[start:stop].T), same), strict=True)
        yield from zip(probs, *ints[:, start:stop].tolist(), strict=True)


def measures_matrix(columns: dict[str, np.ndarray], pairs) -> tuple[np.ndarray, list[int]]:
    """Rows x :data:`builder.score.measurerows.NAMES`: each pair's match measures (``columns``,
    :func:`match_measures`) then its advancement measures (:func:`advancement_columns`), NaN where
    a pair has none, the one home of every row's ``measures`` and ``advancement``; and the pairs
    with advancement measures."""
    matrix = np.full((len(pairs), len(NAMES)), np.nan)
    for j, name in enumerate(MEASURES):
        matrix[:, j] = columns[name]
    index, values = advancement_columns(pairs)
    for j, name in enumerate(ADVANCEMENT_MEASURES):
        matrix[index, len(MEASURES) + j] = values.get(name, ())
    return matrix, index


def _shared_columns(block: np.ndarray, same) -> list[list[float]]:
    """Each row of ``block`` as Python floats through the float sharer ``same`` (see
    ``floats.float_sharer``): rows without NaN or -0.0 (which it returns as given) at C speed."""
    special = (np.isnan(block) | ((block == 0.0) & np.signbit(block))).any(axis=1).tolist()
    return [same.many(values, plain=not odd) for values, odd in zip(block.tolist(), special, strict=True)]


def _reader_paths(archive: Archive) -> dict[int, str]:
    """Loaded record (by identity) -> its archive path, the reader's own string (checked to be
    the path its key names), so rows share it instead of each holding a new copy."""
    return {id(record): path for path, record in archive.records.items()}


def _pair_columns(pairs) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The numbers of the scorable pairs as columns, in one pass: the probability vectors
    (pairs x 3), the expected goals (2 x pairs), the integer scores (6 x pairs: predicted home
    and away, 90-minute home and away, extra-time home and away, 0 without extra time) and
    whether the match went to extra time."""
    probs, goals, scores, et = [], [], [], []
    for _, payload, _, outcome in pairs:
        predicted, final, extra = payload.most_likely_score_90, outcome.score_90, outcome.score_extra_time
        probs.append(payload.probabilities_90())
        goals.append((payload.expected_home_goals_90, payload.expected_away_goals_90))
        scores.append((predicted.home, predicted.away, final.home, final.away,
                       extra.home if extra else 0, extra.away if extra else 0))
        et.append(extra is not None)
    return (np.array(probs, dtype=float).reshape(-1, 3), np.array(goals).reshape(-1, 2).T,
            np.array(scores).reshape(-1, 6).T, np.array(et, dtype=bool))


_FIELDS = tuple(f.name for f in dataclasses.fields(ScoredForecast))


def _row_setter():
    """A maker of :class:`ScoredForecast` rows from every field's value in field order, for the
    one place that builds a row per scored forecast: the frozen dataclass's ``__init__`` sets
    each of its 31 fields through ``object.__setattr__``; this sets each slot through its
    descriptor (the same fields, values and types; equality, ``replace`` and ``asdict`` see no
    difference). Fewer or more values than fields raise ``TypeError``."""
    setters = tuple(getattr(ScoredForecast, name).__set__ for name in _FIELDS)
    new = object.__new__

    def make(values: tuple) -> ScoredForecast:
        if len(values) != len(setters):
            raise TypeError(f"ScoredForecast takes {len(setters)} field values, got {len(values)}")
        row = new(ScoredForecast)
        for set_slot, value in zip(setters, values):
            set_slot(row, value)
        return row

    return make


def _searched(forecast: Forecast) -> bool | None:
    """True if any answered call's tool trace shows a search, False if the traces tell and none
    did, None when no trace tells (the rule of ``collector.forecasters.llm.forecaster``)."""
    seen = {a.tool_trace.search_observed._value_ for a in forecast.attempts if a.http_status == 200}
    if not seen - {"unknown"}:
        return None
    return "searched" in seen


def match_measures(p, y, ph, pa, h, a, eh, ea, published=None) -> dict[str, np.ndarray]:
    """All per-forecast match measures as columns (see :data:`builder.score.types.MEASURES`).

    ``published`` is the (home, away) score WorldCupArena scores against (extra-time goals
    included); without it, the 90-minute score (the same for every match without extra time).
    """
    hw, aw = published if published is not None else (h, a)
    scoreline_90 = partial_credit_scoreline(ph, pa, h, a)
    columns = {
        "brier": brier_score_hda(p, y),
        "log_loss": log_loss_hda(p, y),
        "rps": rps_hda(p, y),
        "accuracy": accuracy_hda(p, y),
        "exact": exact_scoreline(ph, pa, h, a),
        "goal_difference": goal_difference_scoreline(ph, pa, h, a),
        "tendency": tendency_scoreline(ph, pa, h, a),
        "points": points_scoreline(ph, pa, h, a),
        "scoreline": scoreline_90,
        "scoreline_90": scoreline_90,
        "scoreline_wca": partial_credit_scoreline(ph, pa, hw, aw),
        "exact_wca": exact_wca(ph, pa, hw, aw),
        "result_wca": result_accuracy_wca(p, hw, aw),
        "brier_pa": brier_score_pa(p, y),
        "goal_difference_error_wca": goal_difference_error(ph, pa, hw, aw),
        "agreement": agreement_scoreline(p, ph, pa),
        "mean_goal_distance": mean_goal_distance_scoreline(eh, ea, ph, pa),
    }
    columns.update(absolute_errors_scoreline(ph, pa, h, a))
    return columns


def advancing_team_mismatches(archive) -> list[str]:
    """Knockout outcomes whose advancing team is neither side of the event: reported, never scored."""
    found = []
    for key, outcome in sorted(archive.outcomes.items()):
        event = archive.events.get(key)
        if event is not None and outcome.advancing_team not in (None, event.home_team, event.away_team):
            found.append(f"{key[0]}/events/{key[1]}: outcome says {outcome.advancing_team!r} advanced, "
                         f"but the match is {event.home_team} v {event.away_team}; advancement not scored")
    return found


def advancement_columns(pairs) -> tuple[list[int], dict[str, np.ndarray]]:
    """Two-class advancement scores for knockout forecasts whose outcome names who advanced: the
    pairs' indices and each measure's column over them (empty when none is scored)."""
    index, p_home, home_adv = [], [], []
    for i, (_, payload, event, outcome) in enumerate(pairs):
        if not event.knockout or payload.home_advances is None or outcome.advancing_team is None:
            continue
        if outcome.advancing_team not in (event.home_team, event.away_team):
            continue  # an outcome naming a third team is not scored (see advancing_team_mismatches)
        index.append(i)
        p_home.append(payload.home_advances)
        home_adv.append(outcome.advancing_team == event.home_team)
    if not index:
        return [], {}
    p_arr, y_arr = np.array(p_home), np.array(home_adv)
    return index, {
        "advancement_brier": brier_score_advancement(p_arr, y_arr),
        "advancement_log_loss": log_loss_advancement(p_arr, y_arr),
        "advancement_accuracy": accuracy_advancement(p_arr, y_arr),
    }
