"""The demo's recipe: what each demo "model" answers, and the synthetic odds file (docs/demo.md).

Everything starts from one **reference model**: the ``elo`` baseline fitted once on the
international results before the competition's first kickoff, evaluated at a neutral venue for
every listed match (:func:`reference_table`). From it:

* each demo model's match answer (:class:`Recipe`) is the reference's 90-minute probabilities with
  the model's home bias added to the home logit and Gaussian noise on the three logits, drawn
  from a generator seeded by SHA-256 of (model, access condition, home, away, date): the same
  request always gets the same answer. The noise shrinks with more information: ×1 closed book,
  ×0.7 open book, ×0.5 with the evidence package, whose market line (when the package has one)
  is also averaged in half and half. The rationale and citations come from what the condition
  gives: the evidence package's form, odds and news lines (its news URLs cited), open book a
  search citation, closed book the model's own note;
* the odds file (:func:`write_odds_csv`) quotes three made-up bookmakers (``demo-book-a`` to ``-c``,
  margins 5%, 2.5% and 7%) in football-data.co.uk's layout:
  closing odds are the reference probabilities with each book's margin and a small per-book
  tilt; the earlier quotes start from the reference blended a fifth of the way to 1/3 each.

Questions and the full tournament follow each team's strength (its mean expected points per match in
the reference table, times a lognormal factor per model and team): probabilities in proportion to
strength to the fourth power, the stronger side winning each bracket match. Every answer is valid by
construction: the other kinds (fine-grained, news) get :mod:`collector.forecasters.llm.demo_answers`'
answers around the recipe's match answer.
"""

from __future__ import annotations

import csv
import hashlib
import math
import random
import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from collector.forecasters.llm.demo_answers import answer_for
from collector.forecasters.llm.demo_server import model_entry
from collector.records import DEMO_PREFIX


@dataclass(frozen=True)
class DemoModel:
    """One demo "model" of the roster: its ids, its noise and bias, what a call costs."""

    id: str  # the forecaster id (every one starts with "demo.")
    model: str  # its OpenRouter-style model id ("demo/...")
    noise: float  # standard deviation of the logit noise under closed book
    home_bias: float  # added to the home logit
    cost_usd: float  # what one call bills
    note: str  # the closed-book rationale's tail


MODELS = (  # every id starts with DEMO_PREFIX: the site marks these forecasters demo on every page
    DemoModel(f"{DEMO_PREFIX}atlas", "demo/atlas", 0.15, 0.0, 0.0040, "close to the reference, little noise"),
    DemoModel(f"{DEMO_PREFIX}bolt", "demo/bolt", 0.45, 0.0, 0.0008, "cheap and noisy"),
    DemoModel(f"{DEMO_PREFIX}cirrus", "demo/cirrus", 0.30, 0.35, 0.0020, "leans towards the listed home team"),
)
PROVIDER = "Prematch demo server"  # the provider every demo answer names
GATHERER = "demo/gatherer"  # the evidence package's news gatherer
VERSION = "demo-recipe-1"  # the models' canonical slugs end with it: a change of recipe is a new version
ACCESS_SCALE = {"closed_book": 1.0, "open_book": 0.7, "evidence_package": 0.5}
BOOKS = (("DMA", 0.050, 1), ("DMB", 0.025, 2), ("DMC", 0.070, 3))  # prefix (demo-book-a..c), margin, tilt seed
UK = ZoneInfo("Europe/London")

_HOME = re.compile(r"^Home/listed first team: (.+)$", re.MULTILINE)
_AWAY = re.compile(r"^Away/listed second team: (.+)$", re.MULTILINE)
_DATE = re.compile(r"^Date UTC: (.+)$", re.MULTILINE)
_MARKET = re.compile(r"^Market odds .*: .+ win ([0-9.]+)%, draw ([0-9.]+)%, .+ win ([0-9.]+)%\.$", re.MULTILINE)
_NEWS_ITEM = re.compile(r"^- \[[^\]]+\] (.+) \(([^,()]+), (https?://\S+)\): (.*)$", re.MULTILINE)
_FORM = re.compile(r"^Recent results of (.+?) \(newest first, form (\S+);", re.MULTILINE)


@dataclass(frozen=True)
class Reference:
    """The reference model's view of one match: 90-minute probabilities and expected goals."""

    probs: tuple[float, float, float]
    goals: tuple[float, float]


def reference_table(competition, matches, data_dir) -> dict[tuple[str, str], Reference]:
    """(home name, away name) -> the reference model's view, for every match with both teams known."""
    from collector.forecasters.baselines.base import knowledge_date, source_for
    from collector.forecasters.baselines.elo import EloForecaster

    elo = EloForecaster(data_dir)
    source = source_for(SimpleNamespace(competition=competition), data_dir, {})
    first = min(m.kickoff_utc for m in matches)
    fit = elo.fit(source, knowledge_date(source, first))
    names = {t.id: t.name for t in competition.teams}
    table = {}
    for m in matches:
        if m.home_team in names and m.away_team in names:
            view = elo.view(source, fit, m.home_team, m.away_team, 0)
            h, d, a = view.outcome()
            table[(names[m.home_team], names[m.away_team])] = Reference((h, d, a), (view.rate_home, view.rate_away))
    return table


def _softmax(logits: list[float]) -> list[float]:
    top = max(logits)
    exp = [math.exp(v - top) for v in logits]
    return [v / sum(exp) for v in exp]


def _rng(*parts: str) -> random.Random:
    return random.Random(hashlib.sha256("|".join(parts).encode()).hexdigest())


def access_of(body: dict) -> str:
    prompt = body["messages"][-1]["content"]
    if "Access condition: EVIDENCE_PACKAGE" in prompt:
        return "evidence_package"
    return "open_book" if "tools" in body else "closed_book"


def perturbed(ref: Reference, model: DemoModel, access: str, key: str, market: list[float] | None) -> list[float]:
    """The recipe's 90-minute probabilities (see the module docstring)."""
    base = list(ref.probs)
    if market is not None:
        base = [(b + m) / 2 for b, m in zip(base, market)]
    rng = _rng(model.model, access, key)
    scale = model.noise * ACCESS_SCALE[access]
    logits = [math.log(max(p, 1e-6)) + rng.gauss(0.0, scale) for p in base]
    logits[0] += model.home_bias
    probs = [round(p, 4) for p in _softmax(logits)]
    probs[2] = round(1.0 - probs[0] - probs[1], 4)
    return probs


def _score(h: float, d: float, a: float, goals: tuple[float, float]) -> dict:
    if d >= max(h, a):
        return {"home": 1, "away": 1} if sum(goals) > 2.2 else {"home": 0, "away": 0}
    lead = 2 if max(h, a) > 0.62 else 1
    return {"home": lead, "away": 0} if h > a else {"home": 0, "away": lead}


def match_body(probs: list[float], ref: Reference, knockout: bool, reason: str) -> dict:
    """A valid match answer around the 90-minute probabilities (full time and advancing derived from them)."""
    h, d, a = probs
    share = h / (h + a) if h + a > 0 else 0.5
    full = [round(h + d * share, 4), 0.0, 0.0] if knockout else [h, d, a]
    if knockout:
        full[2] = round(1.0 - full[0], 4)
    tilt = (h - a) * 0.8
    goals = (round(max(0.2, ref.goals[0] + tilt), 2), round(max(0.2, ref.goals[1] - tilt), 2))
    score = _score(h, d, a, goals)
    return {
        "home_win_90_prob": h, "draw_90_prob": d, "away_win_90_prob": a,
        "expected_home_goals_90": goals[0], "expected_away_goals_90": goals[1], "most_likely_score_90": score,
        "home_win_full_prob": full[0], "draw_full_prob": full[1], "away_win_full_prob": full[2],
        "most_likely_score_full": score if not knockout or score["home"] != score["away"] else
        ({"home": score["home"] + 1, "away": score["away"]} if share >= 0.5 else
         {"home": score["home"], "away": score["away"] + 1}),
        "home_advances_prob": full[0] if knockout else None, "away_advances_prob": full[2] if knockout else None,
        "confidence": round(max(probs), 2), "reason": reason,
    }  # fmt: skip


class Recipe:
    """The demo server's :class:`~collector.forecasters.llm.demo_server.Answerer`: the demo models' answers."""

    def __init__(self, table: dict[tuple[str, str], Reference], names: dict[str, str] | None = None,
                 models: tuple[DemoModel, ...] = MODELS):
        self.table, self.models_by_id = table, {m.model: m for m in models}
        self.roster = models
        self.names = names or {}  # team id -> name: the full-tournament prompts name teams by id
        points: dict[str, list[float]] = {}
        for (home, away), ref in table.items():
            h, d, a = ref.probs
            points.setdefault(home, []).append(h + d / 2)
            points.setdefault(away, []).append(a + d / 2)
        self.strengths = {team: sum(p) / len(p) for team, p in points.items()}

    def strength(self, model: DemoModel):
        """A team's (id or name) strength as ``model`` sees it: its mean expected points per match in the
        reference table, times a lognormal factor seeded by (model, team) with the model's noise."""
        def of(team: str) -> float:
            name = self.names.get(team, team)
            return self.strengths.get(name, 0.5) * math.exp(_rng(model.model, name).gauss(0.0, model.noise / 2))

        return of

    def models(self) -> list[dict]:
        entries = [model_entry(m.model, f"{m.model}@{VERSION}", f"Demo {m.id.removeprefix(DEMO_PREFIX)} (synthetic)",
                               m.cost_usd / 1000, 0.0) for m in self.roster]
        return entries + [model_entry(GATHERER, f"{GATHERER}@{VERSION}", "Demo news gatherer (synthetic)")]

    def completion(self, body: dict, gen_id: str, metadata: bool) -> dict:
        model = self.models_by_id.get(body["model"])
        cost = model.cost_usd if model else 0.0005
        citations = self._citations(body) if "tools" in body or access_of(body) == "evidence_package" else None
        return answer_for(body, metadata, gen_id, match=self.match, citations=citations, cost=cost, provider=PROVIDER,
                          strength=self.strength(model or self.roster[0]))

    def match(self, body: dict) -> dict:
        prompt = body["messages"][-1]["content"]
        home, away = (_HOME.search(prompt), _AWAY.search(prompt))
        names = (home.group(1).strip() if home else "?", away.group(1).strip() if away else "?")
        ref = self.table.get(names, Reference((0.4, 0.3, 0.3), (1.3, 1.1)))
        model = self.models_by_id.get(body["model"], self.roster[0])
        access = access_of(body)
        found = _MARKET.search(prompt) if access == "evidence_package" else None
        market = [float(v) / 100 for v in found.groups()] if found else None
        date = _DATE.search(prompt)
        probs = perturbed(ref, model, access, f"{names[0]}|{names[1]}|{date.group(1) if date else ''}", market)
        reason = self._reason(prompt, names, probs, model, access, market)
        return match_body(probs, ref, "Is knockout match: yes" in prompt, reason)

    def _reason(self, prompt: str, names, probs, model: DemoModel, access: str, market) -> str:
        lead = f"[demo] {names[0]} {probs[0]:.0%}, draw {probs[1]:.0%}, {names[1]} {probs[2]:.0%}"
        if access == "closed_book":
            return f"{lead}: {model.note}."
        if access == "open_book":
            return f"{lead}: searched team news for {names[0]} and {names[1]}."
        parts = [f"form {team} {form}" for team, form in _FORM.findall(prompt)]
        if market:
            parts.append(f"market {names[0]} {market[0]:.0%}")
        news = _NEWS_ITEM.findall(prompt)
        if news:
            parts.append(f"news: {news[0][0]} ({news[0][1]})")
        return f"{lead}: from the evidence package, " + "; ".join(parts or ["no part with data"]) + "."

    def _citations(self, body: dict) -> list[dict]:
        prompt = body["messages"][-1]["content"]
        news = _NEWS_ITEM.findall(prompt)
        if news:
            return [{"url": url, "title": title, "content": summary[:200]} for title, _pub, url, summary in news[:3]]
        home, away = _HOME.search(prompt), _AWAY.search(prompt)
        slug = re.sub(r"[^a-z0-9]+", "-", f"{home.group(1) if home else ''} {away.group(1) if away else ''}".lower())
        return [{"url": f"https://demo.prematch.invalid/news/{slug.strip('-') or 'match'}",
                 "title": "Demo team news (synthetic)", "content": "A synthetic citation of the demo server."}]


def _odds(probs, margin: float, rng: random.Random) -> list[str]:
    tilted = _softmax([math.log(max(p, 1e-6)) + rng.gauss(0.0, 0.05) for p in probs])
    return [f"{max(1.01, 1.0 / (p * (1.0 + margin))):.2f}" for p in tilted]


def write_odds_csv(path: Path, competition, matches, table: dict[tuple[str, str], Reference]) -> int:
    """The synthetic three-bookmaker odds file (football-data.co.uk's layout); returns its rows."""
    names = {t.id: t.name for t in competition.teams}
    header = ["Div", "Date", "Time", "HomeTeam", "AwayTeam"]
    header += [f"{p}{s}" for p, _, _ in BOOKS for s in "HDA"] + [f"{p}C{s}" for p, _, _ in BOOKS for s in "HDA"]
    rows = []
    for m in sorted(matches, key=lambda m: m.kickoff_utc):
        key = (names.get(m.home_team), names.get(m.away_team))
        if key not in table:
            continue
        closing = table[key].probs
        opening = [0.8 * p + 0.2 / 3 for p in closing]
        local = m.kickoff_utc.astimezone(UK)
        row = ["DEMO", local.strftime("%d/%m/%Y"), local.strftime("%H:%M"), key[0], key[1]]
        for probs in (opening, closing):
            for prefix, margin, seed in BOOKS:
                row += _odds(probs, margin, _rng(prefix, str(seed), key[0], key[1], str(probs is closing)))
        rows.append(row)
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows(rows)
    return len(rows)
