"""Operational statistics from forecast records: status rates, observed search, tokens, cost, latency.

Every forecast record counts here, scorable or not (seeds/000 Table 5: "Failed calls remain in
operational denominators"). Rates are shares of the forecaster's scheduled records. The
observed-search rate is the share of open-book records with at least one call whose trace
shows a search; records whose traces are all "unknown" stay in the denominator and are
reported as the "unknown" share.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from builder.score.types import OperationalRow
from collector.records import Access, Forecast, ForecastStatus, SearchObserved
from collector.records.attempt import AttemptTotals

RATE_GROUPS: dict[str, tuple[ForecastStatus, ...]] = {
    "valid": (ForecastStatus.VALID,),
    "normalized": (ForecastStatus.NORMALIZED,),
    "repaired": (ForecastStatus.REPAIRED, ForecastStatus.REPAIRED_AND_NORMALIZED),
    "invalid": (
        ForecastStatus.INVALID_JSON,
        ForecastStatus.INVALID_SCHEMA,
        ForecastStatus.INVALID_RANGE,
        ForecastStatus.INVALID_SUM,
        ForecastStatus.INVALID_SCORE,
        ForecastStatus.INVALID_AFTER_REPAIR,
    ),
    "api_error": (ForecastStatus.API_ERROR,),
    "timeout": (ForecastStatus.TIMEOUT,),
    "missed": (ForecastStatus.MISSED,),
}
"""How record statuses map to the operational rates (each status in exactly one group)."""


def searched(forecast: Forecast) -> bool | None:
    """True if any attempt's trace shows a search call; None if every attempt's status is unknown."""
    observed = [a.tool_trace.search_observed for a in forecast.attempts]
    if any(o is SearchObserved.SEARCHED for o in observed):
        return True
    if not observed or all(o is SearchObserved.UNKNOWN for o in observed):
        return None
    return False


SUM_TARGETS = {"90": 1.0, "full": 1.0, "advances": 1.0}
"""Probability groups of a match answer whose stated sums the validator records (target 1)."""


def sum_audit(group: list[Forecast]) -> dict[str, float]:
    """Deviations of the probability sums the model *stated* (before any normalisation) from 1:
    per group, the number of records, the mean |sum - 1| and the share off by more than 1e-9
    (seeds/000 Table 5, "sum audits")."""
    audit: dict[str, float] = {}
    stated: dict[str, list[float]] = {name: [] for name in SUM_TARGETS}
    for f in group:  # one pass: each record's stated sums, in record order
        found = f.validation.original_sums
        for name, sums in stated.items():
            if name in found:
                sums.append(found[name])
    for name, target in SUM_TARGETS.items():
        sums = stated[name]
        if sums:
            deviation = np.abs(np.array(sums) - target)
            audit[f"{name}_records"] = len(sums)
            audit[f"{name}_mean_abs_deviation"] = float(deviation.mean())
            audit[f"{name}_share_off"] = float(np.mean(deviation > 1e-9))
    return audit


def operational_rows(forecasts: list[Forecast]) -> list[OperationalRow]:
    """One row per forecaster and clock over all of its forecast records."""
    groups: dict[tuple[str, str], list[Forecast]] = defaultdict(list)
    for f in forecasts:
        groups[(f.forecaster, f.clock._value_)].append(f)  # ``_value_``: ``.value`` without the enum descriptor
    return [_row(forecaster, clock, group) for (forecaster, clock), group in sorted(groups.items())]


def _row(forecaster: str, clock: str, group: list[Forecast]) -> OperationalRow:
    statuses: dict[str, int] = defaultdict(int)
    for f in group:
        statuses[f.status._value_] += 1
    total = len(group)
    rates = {name: sum(statuses.get(s.value, 0) for s in members) / total for name, members in RATE_GROUPS.items()}
    open_book = [f for f in group if f.access is Access.OPEN_BOOK and f.attempts]
    observed = [searched(f) for f in open_book]
    shares = {
        "searched": observed.count(True) / len(observed) if observed else 0.0,
        "not_observed": observed.count(False) / len(observed) if observed else 0.0,
        "unknown": observed.count(None) / len(observed) if observed else 0.0,
    }
    attempts = [a for f in group for a in f.attempts]
    usage = AttemptTotals.of(attempts)  # every attempt of the group in one sum, in record order
    latencies = np.array([a.latency_ms for a in attempts if a.latency_ms is not None], dtype=float)
    return OperationalRow(
        forecaster=forecaster,
        forecaster_type=group[0].forecaster_type.value,
        clock=clock,
        scheduled=total,
        statuses=dict(sorted(statuses.items())),
        rates=rates,
        open_book_calls=len(open_book),
        search_observed_rate=shares["searched"] if observed else None,
        search_shares=shares,
        sum_audit=sum_audit(group),
        prompt_tokens=usage.prompt_tokens or 0,
        completion_tokens=usage.completion_tokens or 0,
        cost_usd=float(usage.cost_usd or 0.0),
        latency_ms_mean=float(latencies.mean()) if len(latencies) else None,
        latency_ms_median=float(np.median(latencies)) if len(latencies) else None,
        attempts=usage.attempts,
    )
