"""Past results as numpy columns, and where they come from (international CSV or the league's own history).

A :class:`ResultTable` holds one row per match, sorted by date: date (days since epoch),
team indices, goals, a neutral-venue flag and a tournament weight class. Baselines fit
only on rows dated strictly before a knowledge date (``before``; see
``base.knowledge_date``): results.csv gives local dates and no kickoff times, so a row
dated D is used only from 39 h 15 after D began in UTC (``base.LOCAL_DATE_SLACK``; conservative: same-day and
previous-evening results are left out).

Known limits, documented for users:
- ``international-results/results.csv`` scores include extra time (not 90-minute scores);
  for the few knockout rows this slightly overstates goals. It also contains the 2026 World
  Cup itself, which is why every fit filters by date.
- Club baselines see only the league's own earlier results of the season (``task.history``);
  the shared data holds no earlier seasons, so early-season forecasts lean on priors.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np

from collector.errors import SourceError
from collector.forecasters.tasks import KnownResult
from collector.records import Competition

RESULTS_CSV = "international-results/results.csv"
EPOCH = date(1970, 1, 1)
LEAGUE_K = 30.0  # Elo K for league matches (a single season needs faster movement than ClubElo's 20)

# Names of the same country in openfootball and martj42/international_results.
NAME_QUIRKS = {
    "usa": "united states",
    "bosnia & herzegovina": "bosnia and herzegovina",
    "czechia": "czech republic",
    "turkiye": "turkey",
    "congo dr": "dr congo",
    "cape verde islands": "cape verde",
    "korea republic": "south korea",
    "ir iran": "iran",
    "cote d'ivoire": "ivory coast",
}


def fold(name: str) -> str:
    """Lowercase ASCII-folded name, used to match team names across sources."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return " ".join(text.lower().replace("-", " ").split())


def canonical(name: str) -> str:
    folded = fold(name)
    return NAME_QUIRKS.get(folded, folded)


def day_number(value: date) -> int:
    return (value - EPOCH).days


@dataclass(frozen=True)
class ResultTable:
    """Past matches as columns; ``teams[i]`` is the canonical name (or team id) of index i."""

    teams: tuple[str, ...]
    day: np.ndarray  # int days since 1970-01-01
    home: np.ndarray  # int team index
    away: np.ndarray
    home_goals: np.ndarray  # int
    away_goals: np.ndarray
    neutral: np.ndarray  # bool
    k_factor: np.ndarray  # float, World Football Elo K by tournament

    def __len__(self) -> int:
        return int(self.day.shape[0])

    def before(self, when: date) -> ResultTable:
        """Rows dated strictly before ``when`` (the request's calendar date, UTC)."""
        cut = int(np.searchsorted(self.day, day_number(when), side="left"))
        return ResultTable(
            self.teams,
            self.day[:cut],
            self.home[:cut],
            self.away[:cut],
            self.home_goals[:cut],
            self.away_goals[:cut],
            self.neutral[:cut],
            self.k_factor[:cut],
        )

    def index(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.teams)}

    def last_day(self) -> date | None:
        return None if len(self) == 0 else date.fromordinal(EPOCH.toordinal() + int(self.day[-1]))


def tournament_k(tournament: str) -> float:
    """World Football Elo K: 60 World Cup, 50 continental finals, 40 qualifiers/majors, 30 other, 20 friendly."""
    name = tournament.lower()
    if name == "fifa world cup":
        return 60.0
    if name in {"uefa euro", "copa américa", "copa america", "african cup of nations", "afc asian cup", "gold cup",
                "confederations cup", "concacaf championship"}:
        return 50.0
    if "qualification" in name or "nations league" in name:
        return 40.0
    if name == "friendly":
        return 20.0
    return 30.0


def build_table(rows: Iterable[tuple[date, str, str, int, int, bool, float]]) -> ResultTable:
    """A table from (date, home, away, home goals, away goals, neutral, K) rows (any order)."""
    ordered = sorted(rows, key=lambda r: r[0])
    names: dict[str, int] = {}
    cols: list[list] = [[] for _ in range(7)]
    for when, home, away, hg, ag, neutral, k in ordered:
        cols[0].append(day_number(when))
        cols[1].append(names.setdefault(home, len(names)))
        cols[2].append(names.setdefault(away, len(names)))
        cols[3].append(hg)
        cols[4].append(ag)
        cols[5].append(neutral)
        cols[6].append(k)
    return ResultTable(
        tuple(names),
        np.asarray(cols[0], dtype=np.int64),
        np.asarray(cols[1], dtype=np.int64),
        np.asarray(cols[2], dtype=np.int64),
        np.asarray(cols[3], dtype=np.int64),
        np.asarray(cols[4], dtype=np.int64),
        np.asarray(cols[5], dtype=bool),
        np.asarray(cols[6], dtype=float),
    )


def parse_results_csv(text: str, source: str = RESULTS_CSV) -> ResultTable:
    """Parse martj42 ``results.csv``; a malformed row raises SourceError naming line and field."""
    rows = []
    for line_no, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        try:
            if row["home_score"] in ("", "NA") or row["away_score"] in ("", "NA"):
                continue  # a scheduled match without a result yet
            rows.append(
                (
                    date.fromisoformat(row["date"]),
                    canonical(row["home_team"]),
                    canonical(row["away_team"]),
                    int(row["home_score"]),
                    int(row["away_score"]),
                    row["neutral"].strip().upper() == "TRUE",
                    tournament_k(row["tournament"]),
                )
            )
        except (KeyError, ValueError, AttributeError) as exc:
            raise SourceError(f"{source} line {line_no}: cannot read row {row!r}: {exc}") from None
    return build_table(rows)


def read_data_text(data_dir: Path | str | None, relative: str) -> str:
    """Text of a shared data file: via collector.datasource when present, else ``data_dir / relative``."""
    from collector.datasource import DataSource

    source = DataSource(data_dir)
    data = source.read_bytes(relative)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(f"{source.describe(relative)}: not UTF-8 text: {exc}") from None


_INTERNATIONAL_CACHE: dict[str, ResultTable] = {}


def international_results(data_dir: Path | str | None) -> ResultTable:
    """The international results table, parsed once per data folder."""
    key = str(data_dir)
    if key not in _INTERNATIONAL_CACHE:
        _INTERNATIONAL_CACHE[key] = parse_results_csv(read_data_text(data_dir, RESULTS_CSV))
    return _INTERNATIONAL_CACHE[key]


def team_index(competition: Competition, names: dict[str, int]) -> dict[str, int | None]:
    """Team id -> table index, trying the team's name, then its aliases (None: no earlier results)."""
    index: dict[str, int | None] = {}
    for team in competition.teams:
        candidates = (canonical(c) for c in (team.name, *team.aliases))
        index[team.id] = next((names[c] for c in candidates if c in names), None)
    return index


def league_table(history: Sequence[KnownResult]) -> ResultTable:
    """The league's own earlier results (team ids as names); home advantage always applies."""
    rows = []
    for known in history:
        score = known.outcome.score_90
        if score is None:
            continue
        event = known.event
        when = event.kickoff_utc.date() if event.kickoff_utc is not None else event.kickoff_date
        rows.append((when, event.home_team, event.away_team, score.home, score.away, False, LEAGUE_K))
    return build_table(rows)
