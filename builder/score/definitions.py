"""The registry of measures: the one home of every figure the site, the paper tables, ``score
--json`` and the downloads print.

Each :class:`MeasureDef` names a measure once: its id (the key in ``score --json`` and the
column name in the downloads), the label every page and table prints for it, its unit and
direction, the paper and equation it implements (or "Prematch's own"), the basis it is scored
on and the forecasts it applies to. One label is one computation: two entries never share a
label (checked at import), and where the papers differ both exist under distinct labels
(``scoreline_90`` "Scoreline (raw, 90')" vs ``scoreline_wca_c70`` "Scoreline (WCA C₇₀)").
Pages mark each figure's header with its id (``data-measure``), so a test can hold every
printed label against this table. Papers: LSA = LLM-SoccerArena (seeds/000), WCA =
WorldCupArena (seeds/001), PA = Prophet Arena (seeds/002).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import orjson

from builder.score.fine_grained_layers import LAYER_WEIGHTS
from builder.score.metrics import LOG_LOSS_FLOOR
from builder.score.resampling import (
    LEVEL,
    MULTINOMIAL,
    PERMUTATIONS,
    POISSON,
    REPLICATES,
    SEED,
)

LSA, WCA, PA, PREMATCH = "LLM-SoccerArena", "WorldCupArena", "Prophet Arena", "Prematch"
OWN = "Prematch's own"
LOWER, HIGHER, NEITHER = "lower is better", "higher is better", "no direction"
NINETY, PUBLISHED, QUOTED, ANSWER = "90 minutes", "published score (extra time included)", "quoted prices", "answer"

MATCH, SCORELINE, KNOCKOUT = "H/D/A probabilities", "scoreline forecasts", "knockout ties"
FINE, TOURNAMENT, QUESTIONS = "fine-grained forecasts", "full-tournament forecasts", "tournament questions"
MARKETS, BINARY = "matches with market quotes", "binary market events"


@dataclass(frozen=True)
class MeasureDef:
    id: str
    label: str
    unit: str
    better: str
    paper: str
    where: str
    text: str
    basis: str
    applies: str
    aliases: tuple[str, ...] = ()
    """Earlier ids of the same computation, still present in ``score --json`` rows."""
    plain: str = ""
    """What the figure tells a visitor, in one plain sentence (the glossary's first line)."""

    @property
    def source(self) -> str:
        """Where it comes from: "<paper> <where>", or only ``where`` for Prematch's own."""
        return self.where if self.paper == PREMATCH else f"{self.paper} {self.where}"

    @property
    def what(self) -> str:
        """The plain sentence, then the definition, as one text (glossary and Method page)."""
        return (f"{self.plain} " if self.plain else "") + self.text[0].upper() + self.text[1:] + "."


def _m(id: str, label: str, unit: str, better: str, paper: str, where: str, text: str,
       basis: str = NINETY, applies: str = MATCH, aliases: tuple[str, ...] = (), plain: str = "") -> MeasureDef:
    return MeasureDef(id, label, unit, better, paper, where, text, basis, applies, aliases, plain)


REGISTRY_ENTRIES: tuple[MeasureDef, ...] = (
    _m("brier", "Brier", "0-2", LOWER, LSA, "§4.1, Table 5",
       "unscaled three-class Brier score sum_c (p_c - o_c)^2 of the 90-minute result; uniform = 2/3",
       plain="How far the stated probabilities were from the 90-minute result: 0 is perfect, 2 is certain and wrong, a uniform 1/3-1/3-1/3 forecast scores 0.667."),
    _m("log_loss", "Log loss", "nats", LOWER, LSA, "§4.1, Table 5",
       f"-ln p(realised 90-minute class), probabilities floored at {LOG_LOSS_FLOOR:g}",
       plain="How surprised the forecast was by the result that happened; uniform scores 1.099."),
    _m("rps", "RPS", "0-1", LOWER, LSA, "App. E, Table 7", "ranked probability score over home < draw < away",
       plain="Like Brier, but a home win forecast is closer to a draw than to an away win."),
    _m("accuracy", "Accuracy", "share", HIGHER, LSA, "§4.1, Table 5",
       "modal H/D/A class equals the 90-minute result; k tied modal classes get 1/k credit",
       plain="Share of matches whose most likely result happened."),
    _m("exact", "Exact score", "share", HIGHER, LSA, "Table 5", "the forecast scoreline equals the 90-minute score",
       applies=SCORELINE,
       plain="Share of matches whose most likely scoreline was exactly right."),
    _m("goal_difference", "Goal difference right", "share", HIGHER, LSA, "Table 5",
       "the forecast scoreline's signed goal difference equals the 90-minute one", applies=SCORELINE),
    _m("tendency", "Tendency right", "share", HIGHER, LSA, "Table 5",
       "the forecast scoreline's H/D/A tendency equals the 90-minute result", applies=SCORELINE),
    _m("abs_home_goals", "Home goals error", "goals", LOWER, LSA, "Table 5", "|forecast - real| home goals",
       applies=SCORELINE),
    _m("abs_away_goals", "Away goals error", "goals", LOWER, LSA, "Table 5", "|forecast - real| away goals",
       applies=SCORELINE),
    _m("abs_total_goals", "Total goals error", "goals", LOWER, LSA, "Table 5", "|forecast - real| total goals",
       applies=SCORELINE),
    _m("abs_goal_difference", "Goal difference error", "goals", LOWER, LSA, "Table 5",
       "|forecast - real| goal difference", applies=SCORELINE),
    _m("points", "Points", "0-5 per match", HIGHER, LSA, "§4.1, Table 5 (Scoring System)",
       "5 exact score, 2 right goal difference, 1 right tendency, else 0", applies=SCORELINE,
       plain="Mean points per match for the most likely scoreline."),
    _m("scoreline_90", "Scoreline (raw, 90')", "0-100", HIGHER, WCA, "§4.1 eq. (1)",
       "mean of WorldCupArena's partial credit S_score on the 90-minute score, no display transform "
       "(e_team read as |Δhome| + |Δaway|, Prematch's reading)", applies=SCORELINE, aliases=("scoreline",),
       plain="Partial credit for a scoreline close to the real one (0-100), before any display transform."),
    _m("scoreline_wca", "Scoreline (raw, published score)", "0-100", HIGHER, WCA, "§4.1 eq. (1), §5.1",
       "mean partial credit S_score on the published score: extra-time goals count in knockouts",
       basis=PUBLISHED, applies=SCORELINE),
    _m("scoreline_wca_c70", "Scoreline (WCA C₇₀)", "0-100", HIGHER, WCA, "§4.1 eq. (1) and eq. (3), Table 2",
       "C_70(mean scoreline_wca): the display calibration with centre 70 applied once to the mean",
       basis=PUBLISHED, applies=SCORELINE),
    _m("exact_wca", "Exact (published score)", "share", HIGHER, WCA, "§4.1, §5.1, Table 2",
       "the forecast score equals the published score (extra time included)", basis=PUBLISHED, applies=SCORELINE),
    _m("result_wca", "Result (published score)", "share", HIGHER, WCA, "§4.1, Table 2",
       "the most probable H/D/A outcome equals the published score's result", basis=PUBLISHED),
    _m("goal_difference_error_wca", "Goal difference error (WCA e_d)", "goals", LOWER, WCA, "§4.1 eq. (1)",
       "e_d on the published score (extra time included)", basis=PUBLISHED, applies=SCORELINE),
    _m("scoreline_display", "Scoreline (C₇₀, 90')", "0-100", HIGHER, WCA, "§4.1 eq. (1) and eq. (3)",
       "C_70(mean scoreline_90): the paper's display calibration, centre 70, applied once to the mean 90-minute "
       "partial credit (``score --json`` and the downloads; the WorldCupArena table prints the published-score one)",
       applies=SCORELINE),
    _m("market_brier_difference", "Brier minus market", "0-2", LOWER, PREMATCH, OWN,
       "mean over the matches with a market forecast of the forecaster's Brier minus the market's (negative: "
       "better than the market)", applies=MARKETS),
    _m("brier_pa", "Brier (per market)", "0-1", LOWER, PA, "§3.1.1 eq. (1)",
       "mean over the three H/D/A one-vs-rest markets of (p - o)^2 = Brier / 3"),
    _m("agreement", "Score-probability agreement", "share", HIGHER, LSA, "Table 5, App. C.4",
       "the scoreline's tendency is a modal H/D/A class"),
    _m("mean_goal_distance", "Mean goal distance", "goals", LOWER, LSA, "Table 5",
       "|E[home] - home| + |E[away] - away| of the forecast's expected goals"),
    _m("advancement_brier", "Advancement Brier", "0-2", LOWER, LSA, "Table 5", "two-class Brier of advancing",
       basis="tie winner", applies=KNOCKOUT),
    _m("advancement_log_loss", "Advancement log loss", "nats", LOWER, LSA, "Table 5",
       "-ln p(team that advanced)", basis="tie winner", applies=KNOCKOUT),
    _m("advancement_accuracy", "Advancement accuracy", "share", HIGHER, LSA, "Table 5",
       "the larger advancement probability names the team that advanced", basis="tie winner", applies=KNOCKOUT),
    _m("ece", "ECE", "0-1", LOWER, PA, "App. B.2",
       "expected calibration error: 10 equal-width bins over the pooled H/D/A one-vs-rest markets",
       plain="How far stated probabilities are from observed frequencies."),
    _m("brier_adjusted", "Brier (difficulty-adjusted)", "0-2", LOWER, PREMATCH, OWN,
       "the forecaster's effect plus the mean event difficulty of a least-squares fit Brier = event + forecaster "
       "within each condition, over every event it forecast"),
    _m("coverage", "Coverage", "share", HIGHER, PREMATCH, OWN,
       "share of the condition's eligible matches the forecaster forecast (ranked at >= half the best coverage)",
       plain="How many of the matches it could forecast this forecaster did forecast."),
    _m("market_return", "Return (Prematch edge rule)", "per unit stake", HIGHER, PREMATCH,
       "Prematch's own (after PA §3.1.3)",
       "risk-neutral unit bet on the outcome with the largest edge p/q - 1 at the quoted price (margin included), "
       "no bet (stake kept, return 1) without an edge; Yes side only at bookmaker prices",
       basis=QUOTED, applies=MARKETS,
       plain="What a bettor following this forecaster would get back per unit staked at the market's prices; 1 is break-even."),
    _m("return_pa", "Return (Prophet Arena rule)", "per unit stake", HIGHER, PA, "§3.1.3, App. B",
       "Prophet Arena's rule on each H/D/A market: buy Yes at q when p > q, else No at 1 - q, always one unit, "
       "at the quoted prices of the table's horizon (margin included); mean over the three markets",
       basis=QUOTED, applies=MARKETS),
    _m("market_sharpe", "Sharpe", "ratio", HIGHER, PA, "App. C.2",
       "(mean return - 1) / standard deviation of the per-match returns of the Prematch edge rule",
       basis=QUOTED, applies=MARKETS,
       plain="Return per unit of risk of that bettor."),
    _m("t1", "T1 result and score", "0-100", HIGHER, WCA, "§4.1 eq. (2), configs/tasks.yaml",
       "weighted mean (eq. 2) of result 100(1 - Brier/2) 0.55, score S_score of eq. (1) on the published score "
       "0.35, goal difference 100 max(0, 1 - e_d/5) 0.05 and, in knockouts, qualification 100(1 - advancement "
       "Brier/2) 0.05. Differs from WorldCupArena's public grader (configs/tasks.yaml, commit 1a415bd): there the "
       "weights are 0.45 / 0.25 / 0.15 / 0.15, the score task is graded by the RPS of a score distribution and "
       "goal difference by the MAE of an expected goal difference; a Prematch forecast states one scoreline, "
       "so Prematch grades that scoreline by the paper's eq. (1) with its own weights", basis=PUBLISHED,
       applies=MATCH),
    _m("t2", "T2 players and lineups", "0-100", HIGHER, WCA, "§4.1, configs/tasks.yaml",
       "line-ups, formation, scorers, assists and player of the match tasks, weighted", basis=PUBLISHED, applies=FINE),
    _m("t3", "T3 events and timeline", "0-100", HIGHER, WCA, "§4.1, configs/tasks.yaml",
       "goal minutes, substitutions, cards, penalties and own goals tasks, weighted", basis=PUBLISHED, applies=FINE),
    _m("t4", "T4 tactics and statistics", "0-100", HIGHER, WCA, "§4.1, configs/tasks.yaml",
       "possession, shots, corners and the other team statistics (sMAPE), weighted", basis=PUBLISHED, applies=FINE),
    _m("t5", "T5 competition outcome", "0-100", HIGHER, WCA, "§4.1 eq. (4)",
       "(0.25 G + 0.35 (0.7 A + 0.3 M) + 0.20 H) / 0.80 of a full-tournament forecast: group order (Kendall's τ), "
       "teams reaching each round, exact pairings, champion", basis="tournament results", applies=TOURNAMENT),
    _m("composite", "Composite", "0-100", HIGHER, WCA, "§4.1 eq. (2)-(3)",
       "C_50,5 of the weighted mean of the layers T1-T5 that have truth; a layer with truth the forecaster did "
       "not forecast counts 0", basis=PUBLISHED, applies="every forecaster with match forecasts",
       plain="One WorldCupArena overall score per forecaster and condition, over every layer that has truth."),
    _m("composite_raw", "Composite (raw)", "0-100", HIGHER, WCA, "§4.2 eq. (2)",
       "the weighted mean (eq. 2) of the layers that have truth, before the display transform C_50,5",
       basis=PUBLISHED, applies="every forecaster with match forecasts"),
    _m("question_brier", "Brier (question)", "0-2", LOWER, LSA, "§3.3, Table 5",
       "multiclass Brier over the candidate teams of a one-team question", basis=ANSWER, applies=QUESTIONS),
    _m("question_log_loss", "Log loss (question)", "nats", LOWER, LSA, "§3.3, Table 5",
       "-ln p(answer team) of a one-team question", basis=ANSWER, applies=QUESTIONS),
    _m("question_accuracy", "Pick right", "share", HIGHER, LSA, "§3.3",
       "the final pick is the answer; a pick tied in probability with a team not picked is no pick", basis=ANSWER,
       applies=QUESTIONS),
    _m("question_correct", "Picks right", "teams", HIGHER, LSA, "§3.3",
       "how many of the k final picks are in the realised set; tied picks count as not right", basis=ANSWER,
       applies=QUESTIONS),
    _m("question_exact_set", "Whole set right", "share", HIGHER, LSA, "§3.3",
       "the k final picks are exactly the realised set", basis=ANSWER, applies=QUESTIONS),
    _m("question_marginal_brier", "Brier per team", "0-1", LOWER, LSA, "§3.3",
       "mean over candidates of (p_team - in_set)^2 of a fixed-k question", basis=ANSWER, applies=QUESTIONS),
    _m("question_probability_realised", "Probability on the answer", "probability", HIGHER, LSA, "App. C.6",
       "the stated probability of the answer team (one-team question) or summed over the answer's teams (fixed-k)",
       basis=ANSWER, applies=QUESTIONS),
    _m("question_probability_sum_audit", "Sum check", "probability", NEITHER, LSA, "App. C.6",
       "sum of the stated probabilities minus k, before normalisation (0 when coherent)", basis=ANSWER,
       applies=QUESTIONS),
    _m("binary_brier", "Brier (Yes/No)", "0-1", LOWER, PA, "§3.1.1", "(p - o)^2 of one binary market event",
       basis="market resolution", applies=BINARY),
    _m("binary_return", "Return (risk-neutral)", "per unit stake", HIGHER, PA, "§3.1.3",
       "unit bet on Yes at the ask when p > ask, else no bet", basis=QUOTED, applies=BINARY),
    _m("binary_return_crra", "Return (CRRA)", "per unit stake", HIGHER, PA, "§3.1.3",
       "the constant-relative-risk-aversion bettor's return at the ask", basis=QUOTED, applies=BINARY),
    _m("reach_brier", "Reach Brier", "0-1", LOWER, PREMATCH, OWN,
       "mean over teams and rounds of (P(reach round) - reached)^2 of a full-tournament forecast",
       basis="tournament results", applies=TOURNAMENT),
)

REGISTRY: dict[str, MeasureDef] = {m.id: m for m in REGISTRY_ENTRIES}
ALIASES: dict[str, str] = {alias: m.id for m in REGISTRY_ENTRIES for alias in m.aliases}


def _check_unique() -> None:
    """Two entries never share an id or a label (case-insensitive): one label, one computation."""
    ids = [m.id for m in REGISTRY_ENTRIES] + list(ALIASES)
    labels = [m.label.casefold() for m in REGISTRY_ENTRIES]
    for name, seen in (("id", ids), ("label", labels)):
        doubled = sorted({x for x in seen if seen.count(x) > 1})
        if doubled:
            raise ValueError(f"measure registry: {name} used twice: {', '.join(doubled)}")


_check_unique()


def entry(id: str) -> MeasureDef:
    """The registry entry of ``id`` or of an earlier alias of it (``scoreline`` -> ``scoreline_90``)."""
    return REGISTRY[ALIASES.get(id, id)]


def label(id: str) -> str:
    """The one label every page prints for ``id``."""
    return entry(id).label


def describe(id: str) -> str:
    """``"<paper> <where>: <text>"`` for a measure, or the id when it has no entry."""
    found = REGISTRY.get(ALIASES.get(id, id))
    return id if found is None else f"{found.paper} {found.where}: {found.text}"


def help_text(id: str) -> str:
    """The glossary sentence of a measure: what it tells, its definition, unit, direction, source."""
    m = entry(id)
    return f"{m.what} Unit: {m.unit}; {m.better}; basis: {m.basis}. Source: {m.source}."


COMPOSITE_RULE = ("C_50,5 (eq. 3) of the weighted mean (eq. 2) of the layers that have truth (weights "
                  + ", ".join(f"{k} {w:g}" for k, w in LAYER_WEIGHTS.items())
                  + "); a layer with truth that the forecaster did not forecast counts 0: a forecaster of T1 only "
                  "scores 0 on T2-T4 where the match report has truth, and on T5 where a tournament's group stage "
                  "is complete and it made no full-tournament forecast.")
"""How the composite is made, in the words every page and table that prints it uses."""


MEASURE_RANGES: dict[str, tuple[float, float]] = {
    "brier": (0.0, 2.0),
    "log_loss": (0.0, -math.log(LOG_LOSS_FLOOR)),
    "accuracy": (0.0, 1.0),
    "exact": (0.0, 1.0),
    "points": (0.0, 5.0),
}
"""The values a match's mean of each measure can take (per-forecast scale). An interval that is
not a percentile of replicate means (a studentized one) can pass these bounds when the matches
are few; the tables show such an end at the bound and say so."""

@dataclass(frozen=True)
class IntervalMethod:
    """How a set of figures gets its intervals and tests: the scheme's id
    (``builder.score.resampling``), its name, what it does and the works it follows."""

    id: str
    name: str
    text: str
    references: tuple[str, ...]

    def cited(self) -> str:
        """"<name> (<references>)"."""
        return f"{self.name} ({'; '.join(self.references)})"

    def sentence(self) -> str:
        """"<Name> (<references>): <text>." as the Method page and the notes print it."""
        return f"{self.cited()[0].upper()}{self.cited()[1:]}: {self.text}."


INTERVALS = IntervalMethod(
    POISSON, "stratified Poisson bootstrap",
    f"{REPLICATES:,} replicates in which every match's weight is an independent Poisson(1) draw made from a hash "
    "of the master seed and the match's id, so a new match adds its own weights and changes no other; each "
    "stratum (group stage, knockout) weighted to its share of the matches, as the stratified match bootstrap "
    f"keeps it; studentized (bootstrap-t) {LEVEL:.0%} intervals of means and of paired differences, as "
    f"LLM-SoccerArena App. B.5; paired two-sided sign-flip permutation tests, {PERMUTATIONS:,} draws, each "
    f"match's sign in a draw from a hash of the seed and its id; master seed {SEED}",
    ("Hanley & MacGibbon 2006, Comput. Methods Programs Biomed. 83:57-62",
     "Chamandy, Muralidharan, Najmi & Naik 2012, Estimating uncertainty for massive data streams",
     "LLM-SoccerArena App. B.5"))
"""The intervals and tests of the leaderboard, the analyses and ``score`` (``resampler_for``)."""

PAPER_INTERVALS = IntervalMethod(
    MULTINOMIAL, "stratified multinomial match bootstrap",
    f"{REPLICATES:,} replicates, each resampling the group-stage and the knockout matches with replacement to "
    f"their numbers, studentized {LEVEL:.0%} intervals; the papers' own procedure, kept for their tables",
    ("LLM-SoccerArena §3.4, App. B.5",))
"""The intervals of ``paper-tables`` (``builder.score.paper_tables``)."""


def intervals_markdown() -> str:
    """The Method page's paragraph on intervals and tests, from :data:`INTERVALS` and :data:`PAPER_INTERVALS`."""
    return (f"**95% intervals and significance tests**: {INTERVALS.sentence()} Tests are Holm-corrected within "
            "declared families (model pairs; access; strategy; horizon). Every draw is fixed by the seed, so every "
            f"build gives the same numbers. The paper tables use the {PAPER_INTERVALS.cited()}: "
            f"{PAPER_INTERVALS.text}.")


LEADERBOARD_SCORELINE = "scoreline_90"
"""The scoreline measure the leaderboard's scoreline column shows."""


def registry_json() -> bytes:
    """The registry as a download (``data/measures.json``): every entry's fields, in registry order,
    so a column of ``leaderboard.csv`` or ``scores.csv`` is looked up by its id."""
    return orjson.dumps([dataclasses.asdict(m) for m in REGISTRY_ENTRIES], option=orjson.OPT_INDENT_2)


def markdown_list() -> str:
    """The measure list of docs/scoring.md: one table row per registry entry (a test holds the page to it)."""
    lines = ["| id | label | unit | direction | paper, where | basis | applies to |",
             "|---|---|---|---|---|---|---|"]
    for m in REGISTRY_ENTRIES:
        ids = m.id + "".join(f" (also `{a}`)" for a in m.aliases)
        lines.append(f"| `{ids.split(' ')[0]}`{ids[len(m.id):]} | {m.label} | {m.unit} | {m.better} | {m.source} | "
                     f"{m.basis} | {m.applies} |")
    return "\n".join(lines) + "\n"


def figure_key(forecaster: str, access: str, strategy: str, horizon: str, clock: str, scope: str = "all",
               part: str = "all") -> str:
    """What a printed figure is a figure of, written beside it on every page (``data-figure``):
    one condition cell, the events it is over (``scope``: "all" its scored matches, "matched"
    those every compared forecaster of the cell forecast, or a table's own panel) and the part
    of the archive (``part``: "all" or a leaderboard slice's competition/stage). Two figures
    with one measure id and one key are one number (a test holds every page to it)."""
    return "|".join((forecaster, access, strategy, horizon, clock, scope, part))
