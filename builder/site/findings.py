"""The significance tests written as sentences a reader can check, with the filters they belong to.

Every test of ``builder.score.inference`` is a paired difference *a − b* of a measure (lower
is better for Brier, log loss and RPS), its 95 % bootstrap interval and its Holm-adjusted
p-value within a declared family. A sentence names the better side first, so the difference
it prints is negative: "dixon_coles beats elo at T-24h (closed book · probabilities first):
−0.019 Brier, 95% [−0.041, +0.001], Holm p = 0.26: not significant."

The interval is not corrected for multiplicity, the Holm p-value is: when the interval
excludes 0 and the adjusted p is still ≥ 0.05, the sentence says so instead of leaving the
two to contradict each other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from builder.score.definitions import HIGHER, entry
from builder.score.types import TestResult
from builder.site.labels import (
    MEASURES,
    condition_label,
    horizon_label,
    level_label,
    plain,
)

PAIR_FAMILIES = ("model_pairs", "llm_vs_baseline", "baseline_pairs", "market")
ALPHA = 0.05


@dataclass(frozen=True)
class Finding:
    """One test as a sentence; ``horizon``/``access``/``strategy`` are ids ("" = not specific to one)."""

    sentence: str
    significant: bool
    caveat: str  # why an interval that excludes 0 is still "not significant", or ""
    horizon: str
    access: str
    strategy: str


def signed(value: float) -> str:
    """+0.012 / −0.019 (a real minus sign), never −0.000."""
    text = f"{abs(value):.3f}"
    if text.strip("0.") == "":
        return "0.000"
    return ("−" if value < 0 else "+") + text


def p_text(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"= {p:.3f}" if p < 0.01 else f"= {p:.2f}"


def _scope(test: TestResult) -> tuple[str, str, str, str]:
    """(horizon, access, strategy, words) of a test, from its family and comparison."""
    parts = [p for p in test.family.split("/") if p != "replay"]
    if parts[0] in PAIR_FAMILIES and len(parts) >= 4:
        access, strategy, horizon = parts[1:4]
        return horizon, access, strategy, f"at {horizon_label(horizon)} ({condition_label(access, strategy)})"
    stratum = test.comparison.rsplit("(", 1)[-1].rstrip(")") if "(" in test.comparison else ""
    who, _, horizon = stratum.rpartition(", ")
    if horizon == "all horizons" or not horizon:
        words = "over all horizons"
        horizon = ""
    else:
        words = f"at {horizon_label(horizon)}"
    averaged = f"for {who}" if who else "averaged over the LLMs"
    return horizon, "", "", f"{words}, {averaged}"


def _names(test: TestResult) -> tuple[str, str]:
    if test.family.split("/")[0] in PAIR_FAMILIES:
        return test.a, test.b
    return level_label(test.a), level_label(test.b)


def finding(test: TestResult, family_size: int) -> Finding:
    """The sentence of one test (``family_size``: how many tests share its Holm family)."""
    horizon, access, strategy, where = _scope(test)
    a, b = _names(test)
    lower_better = entry(test.measure).better != HIGHER
    a_better = (test.estimate <= 0) == lower_better
    first, second = (a, b) if a_better else (b, a)
    sign = 1 if a_better else -1
    estimate = sign * test.estimate
    measure = plain(test.measure, MEASURES)
    if test.low is not None and test.high is not None:
        low, high = sorted((sign * test.low, sign * test.high))
        interval = f", 95% [{signed(low)}, {signed(high)}]"
        excludes_zero = low > 0 or high < 0
    else:
        interval, excludes_zero = "", False
    verb = "ties with" if test.estimate == 0 else "beats"
    significant = test.p_holm is not None and test.p_holm < ALPHA
    verdict = "significant" if significant else "not significant"
    p = f", Holm p {p_text(test.p_holm)}" if test.p_holm is not None else ""
    sentence = (f"{first} {verb} {second} {where}: {signed(estimate)} {measure} on {test.n} matches"
                f"{interval}{p}: {verdict}.")
    caveat = ""
    if excludes_zero and not significant:
        caveat = (f"The 95% interval excludes 0, but it is not corrected for the {family_size} comparisons "
                  "tested together in this family; Holm's correction is, and the difference does not survive it.")
    return Finding(sentence, significant, caveat, horizon, access, strategy)


def findings(tests: Iterable[TestResult], limit: int) -> tuple[Finding, ...]:
    """Every test with an adjusted p-value as a sentence: significant ones first, then by p."""
    usable = [t for t in tests if t.p_holm is not None]
    sizes = Counter(t.family for t in usable)
    ordered = sorted(usable, key=lambda t: (t.p_holm, t.family, t.comparison, t.a, t.b))[:limit]
    return tuple(finding(t, sizes[t.family]) for t in ordered)
