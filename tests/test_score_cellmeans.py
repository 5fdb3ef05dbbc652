"""The columnar LLM cell means and factorial contrasts (``builder.score.cellmeans``) give what the
key-by-key dict code gave, to the last bit and in the same order; the bootstrap-t counts of every
presence pattern, formed once per weight block, give the per-chunk products' intervals."""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

import numpy as np

from builder.score import inference
from builder.score.inference import factor_specs, llm_cell_means
from builder.score.types import ScoredForecast

ACCESS = ("closed_book", "open_book", "evidence_package")
STRATEGIES = ("probabilistic_forecast", "direct_score")
HORIZONS = ("stage_opening", "t_minus_24h", "closing")


def _row(event: str, forecaster: str, access: str, strategy: str, horizon: str, clock: str, brier: float,
         kind: str = "llm") -> ScoredForecast:
    return ScoredForecast("c", event, forecaster, kind, forecaster, access, strategy, horizon, 0, clock, "valid",
                          "group", False, 0.4, 0.3, 0.3, 1, 0, 1, 0, "home", None, {"brier": brier, "log_loss": brier})


def _rows(seed: int) -> list[ScoredForecast]:
    """An unbalanced panel: cells missing at random, repeated samples, -0.0 and a baseline."""
    rng = np.random.default_rng(seed)
    rows = []
    for e in range(30):
        for f in ("m.b", "m.a", "m.c"):
            for access in ACCESS:
                for strategy in STRATEGIES:
                    for horizon in HORIZONS:
                        for clock in ("live", "replay"):
                            if rng.random() < 0.35:
                                continue
                            for _ in range(1 + int(rng.random() < 0.2)):  # a second sample now and then
                                value = -0.0 if rng.random() < 0.02 else float(rng.random() * 2)
                                rows.append(_row(f"e{e:02d}", f, access, strategy, horizon, clock, value))
        rows.append(_row(f"e{e:02d}", "elo", "closed_book", "probabilistic_forecast", "closing", "live", 0.5, "baseline"))
    order = rng.permutation(len(rows))
    return [rows[i] for i in order]


def _reference_means(rows, measure):
    """The key-by-key ``llm_cell_means`` (sum from 0 over the samples in row order, / their count)."""
    values = defaultdict(list)
    for r in rows:
        if r.forecaster_type == "llm":
            values[(r.forecaster, r.access, r.strategy, r.horizon, r.clock, (r.competition_id, r.event_id))].append(
                r.measures[measure])
    return {k: float(sum(v) / len(v)) for k, v in values.items()}


def _reference_specs(means, factor, a_level, b_level, measure, by_forecaster=False):
    """The key-by-key ``factor_specs`` over a plain dict of cell means."""
    at = ("forecaster", "access", "strategy", "horizon", "clock").index(factor)
    per_match = defaultdict(lambda: defaultdict(list))
    for key, value in means.items():
        if key[at] != a_level:
            continue
        partner = means.get(key[:at] + (b_level,) + key[at + 1:])
        if partner is not None:
            stratum = "all horizons" if factor == "horizon" else key[3]
            stratum = f"{key[0]}, {stratum}" if by_forecaster else stratum
            per_match[(stratum, key[4])][key[5]].append(value - partner)
    name = f"{factor}_by_forecaster" if by_forecaster else factor
    return [(f"{name}/{measure}" + ("/replay" if clock == "replay" else ""), f"{a_level} - {b_level} ({stratum})",
             a_level, b_level, measure, clock, {e: float(sum(v) / len(v)) for e, v in events.items()})
            for (stratum, clock), events in sorted(per_match.items())]


def _same(got, expected) -> bool:
    """Equal to the bit, in the same order (repr tells -0.0 from 0.0)."""
    return repr(got) == repr(expected)


def test_cell_means_are_the_key_by_key_means_in_the_same_order():
    for seed in (1, 2):
        rows = _rows(seed)
        got, expected = llm_cell_means(rows, "brier"), _reference_means(rows, "brier")
        assert list(got) == list(expected) and _same(list(got.values()), list(expected.values()))


def test_factor_contrasts_are_the_key_by_key_contrasts_to_the_bit():
    rows = _rows(3)
    means = llm_cell_means(rows, "brier")
    plain = _reference_means(rows, "brier")
    contrasts = [("access", "closed_book", "open_book"), ("access", "evidence_package", "closed_book"),
                 ("strategy", "direct_score", "probabilistic_forecast"), ("horizon", "stage_opening", "closing"),
                 ("horizon", "t_minus_24h", "closing"), ("access", "closed_book", "absent_level")]
    for factor, a, b in contrasts:
        for by_forecaster in (False, True):
            expected = _reference_specs(plain, factor, a, b, "brier", by_forecaster)
            assert _same(factor_specs(means, factor, a, b, "brier", by_forecaster=by_forecaster), expected)
            assert _same(factor_specs(plain, factor, a, b, "brier", by_forecaster=by_forecaster), expected)
            assert _same(factor_specs(rows, factor, a, b, "brier", by_forecaster=by_forecaster), expected)
    assert factor_specs(rows, "access", "closed_book", "absent_level") == []
    assert factor_specs([], "access", "closed_book", "open_book") == []


def test_bootstrap_t_counts_shared_across_chunks_give_the_reference_intervals():
    """Columns in chunks of 3, presence patterns shared within and across chunks, and unique ones."""
    from tests.test_inference import _reference_studentized

    rng = np.random.default_rng(5)
    events = {("c", f"e{i:03d}"): i % 3 == 0 for i in range(50)}
    resampler = inference.Resampler.for_events(events, replicates=700, permutations=10)
    values = rng.random((50, 23))
    shared = rng.random(50) < 0.3
    values[shared, :8] = np.nan  # one pattern over three chunks
    values[rng.random((50, 23)) < 0.2] = np.nan
    low, high = resampler.studentized_intervals(values, chunk=3)
    ref_low, ref_high = _reference_studentized(resampler, values)
    for got, ref in ((low, ref_low), (high, ref_high)):
        assert np.allclose(got, ref, equal_nan=True, rtol=1e-12, atol=0)
    whole_low, whole_high = resampler.studentized_intervals(values, chunk=23)  # one chunk: the reference's products
    assert whole_low.tobytes() == ref_low.tobytes() and whole_high.tobytes() == ref_high.tobytes()


def _reference_pair_specs(rows, measure):
    """The row-list ``model_pair_specs``: each forecaster's per-event means of each condition, then every pair."""
    cells, kinds = defaultdict(lambda: defaultdict(list)), {}
    for row in rows:
        if row.forecaster_type in ("llm", "baseline"):
            cells[(row.access, row.strategy, row.horizon, row.clock)][row.forecaster].append(row)
            kinds[row.forecaster] = row.forecaster_type
    out = []
    for condition, by_model in sorted(cells.items()):
        means = {m: inference.per_event(r, measure) for m, r in by_model.items()}
        llms = sorted(m for m in means if kinds[m] == "llm")
        baselines = sorted(m for m in means if kinds[m] == "baseline")
        pairs = list(combinations(llms, 2)) + [(a, b) for a in llms for b in baselines] + list(combinations(baselines, 2))
        out += [(condition, a, b, sorted(inference.paired_differences(means[a], means[b]).items())) for a, b in pairs]
    return out


def test_model_pair_specs_pair_the_per_event_means_of_each_condition_to_the_bit():
    rows = _rows(4) + [_row("e00", "uniform", "closed_book", "probabilistic_forecast", "closing", "live", 0.6, "baseline")]
    got = [((s[5], s[2], s[3]), sorted(s[6].items())) for s in inference.model_pair_specs(rows, "brier")]
    expected = [((c[3], a, b), d) for c, a, b, d in _reference_pair_specs(rows, "brier")]
    assert _same(got, expected)
    assert {s[0].split("/")[0] for s in inference.model_pair_specs(rows)} == {"model_pairs", "llm_vs_baseline",
                                                                                 "baseline_pairs"}


def test_cell_means_of_several_measures_are_each_measures_own():
    """``llm_cell_means_of`` makes the keys' codes once and lends the first mapping's key columns
    to the later ones: every mapping and its columns equal ``llm_cell_means`` of that measure."""
    from builder.score.cellmeans import llm_cell_means_of
    from builder.score.scoring import score_archive
    from tests.factories import archive_from_records, synthetic_records

    rows = score_archive(archive_from_records(synthetic_records(n_events=10, n_models=3, seed=5)),
                         inference_tests=False).forecasts
    measures = ("brier", "log_loss", "rps")
    for i, means in enumerate(llm_cell_means_of(rows, measures)):
        alone = llm_cell_means(rows, measures[i])
        assert list(means.items()) == list(alone.items())
        got, expected = means.columns(), alone.columns()
        assert np.array_equal(got[0], expected[0]) and got[1] == expected[1] and got[3] == expected[3]
        assert np.array_equal(got[2], expected[2])
        assert ("_key_columns" in vars(means)) == (i > 0)
