"""Flat tables of every forecast, outcome and score: the rows behind the CSV, JSON and SQLite downloads."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import Any

from builder.score.measurerows import shared_matrix
from builder.score.types import ADVANCEMENT_MEASURES, MEASURES
from collector.archive.layout import path_for
from collector.archive.reader import Archive
from collector.records import Forecast, MatchForecast, QuestionForecast


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[tuple[str, str], ...]  # (name, SQLite type)
    rows: Sequence[tuple[Any, ...]]
    """A list, or :class:`MadeRows` (each row made when a slice of them is asked for)."""
    description: str
    keys: Sequence[tuple[str, str]] | None = None
    """Each row's (archive path, SHA-256 of the file) when each row is made from that file alone,
    in row order: the exports copy unchanged chunks from the previous build (:mod:`builder.site.exportchunks`)."""
    cut: Callable[[tuple], bytes] | None = None
    """Else, for a table sorted by its first values, the bytes of a (cleaned) row that the exports
    cut its chunks by (those of an unchanged run of rows are copied from the previous build)."""


class MadeRows(Sequence):
    """The rows ``make(item)`` of ``items``, in their order, each made when asked for: a table
    whose writer takes a chunk at a time (:mod:`builder.site.exports`) never holds every row (at
    300,000 forecasts, the forecasts table's tuples are a few hundred megabytes). ``make_many``,
    when given, makes a slice's rows at once (the same rows ``make`` gives, one by one)."""

    def __init__(self, items: list, make: Callable[[Any], tuple],
                 make_many: Callable[[list], list[tuple]] | None = None) -> None:
        self.items, self.make, self.make_many = items, make, make_many

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index):
        if isinstance(index, slice):
            chosen = self.items[index]
            return self.make_many(chosen) if self.make_many is not None and chosen else list(map(self.make, chosen))
        return self.make(self.items[index])


class FileKeys(Sequence):
    """Each row's (archive path, SHA-256 of the file) for rows made from ``items`` (path, record):
    made when asked for, as :class:`MadeRows` (no list of a tuple per record beside the rows')."""

    def __init__(self, items: list, hashes: dict[str, str]) -> None:
        self.items, self.hashes = items, hashes

    def complete(self) -> bool:
        """True when every row's file has a SHA-256 (the load hashed it)."""
        return all(self.hashes.get(path) for path, _ in self.items)

    def paths(self) -> list[str]:
        """Each row's archive path (one list, no tuple per row)."""
        return [path for path, _ in self.items]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [(path, self.hashes[path]) for path, _ in self.items[index]]
        path = self.items[index][0]
        return path, self.hashes[path]


def _iso(moment) -> str | None:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment is not None else None


FORECAST_COLUMNS = (
    ("path", "TEXT"), ("competition_id", "TEXT"), ("target_kind", "TEXT"), ("target_id", "TEXT"),
    ("forecaster", "TEXT"), ("forecaster_type", "TEXT"), ("model", "TEXT"), ("model_version", "TEXT"),
    ("access", "TEXT"), ("strategy", "TEXT"), ("horizon", "TEXT"), ("sample", "INTEGER"), ("clock", "TEXT"),
    ("status", "TEXT"), ("kickoff_utc", "TEXT"), ("scheduled_at", "TEXT"), ("requested_at", "TEXT"),
    ("lead_time_minutes", "REAL"), ("p_home", "REAL"), ("p_draw", "REAL"), ("p_away", "REAL"),
    ("most_likely_home", "INTEGER"), ("most_likely_away", "INTEGER"), ("expected_home_goals", "REAL"),
    ("expected_away_goals", "REAL"), ("home_advances", "REAL"), ("confidence", "REAL"), ("final_picks", "TEXT"),
    ("attempts", "INTEGER"), ("prompt_tokens", "INTEGER"), ("completion_tokens", "INTEGER"),
    ("cost_usd", "REAL"), ("latency_ms", "REAL"), ("search_observed", "TEXT"),
)


def _payload_fields(forecast: Forecast) -> tuple:
    p = forecast.payload
    if isinstance(p, MatchForecast):
        return (p.home_win_90, p.draw_90, p.away_win_90, p.most_likely_score_90.home, p.most_likely_score_90.away,
                p.expected_home_goals_90, p.expected_away_goals_90, p.home_advances, p.confidence, None)
    if isinstance(p, QuestionForecast):
        return (None,) * 8 + (p.confidence, " ".join(p.final_picks))
    return (None,) * 10


def _usage_fields(forecast: Forecast) -> tuple:
    """Attempts, tokens, cost and latency summed over the record's attempts (``Forecast.usage``)."""
    usage = forecast.usage
    attempts = forecast.attempts
    search = attempts[-1].tool_trace.search_observed.value if attempts else None
    return (usage.attempts, usage.prompt_tokens, usage.completion_tokens, usage.cost_usd, usage.latency_ms, search)


def forecast_table(archive: Archive) -> Table:
    """Every forecast record, one row each, by archive path (rows made a chunk at a time: :class:`MadeRows`)."""
    # a loaded record's path is path_for's (the reader checked it); many forecasts share a
    # kickoff or schedule time, so each moment is formatted once
    stamps: dict = {}

    def iso(moment) -> str | None:
        found = stamps.get(moment)
        if found is None:
            found = stamps[moment] = _iso(moment)
        return found

    def row(item: tuple[str, Forecast]) -> tuple:
        path, f = item  # enums by ``_value_``: the attribute ``.value`` reads through a descriptor
        return ((path, f.competition_id, f.target_kind, f.target_id, f.forecaster,
                 f.forecaster_type._value_, f.model, f.model_version, f.access._value_, f.strategy._value_,
                 f.horizon._value_, f.sample, f.clock._value_, f.status._value_, iso(f.kickoff_utc),
                 iso(f.scheduled_at), iso(f.requested_at), f.lead_time_minutes)
                + _payload_fields(f) + _usage_fields(f))

    paths = {id(record): path for path, record in archive.records.items()}  # the reader's keys, not rebuilt
    items = [(paths.get(id(f)) or path_for(f), f) for f in archive.forecasts]
    del paths
    items.sort(key=itemgetter(0))  # stable: the order of the rows sorted by their first value, the path
    keys = FileKeys(items, archive.sha256)
    return Table("forecasts", FORECAST_COLUMNS, MadeRows(items, row), "every forecast record, one row each (failures included)",
                 keys if keys.complete() else None)  # a row's file unhashed: no chunk is ever copied


OUTCOME_COLUMNS = (
    ("competition_id", "TEXT"), ("event_id", "TEXT"), ("stage", "TEXT"), ("group_name", "TEXT"),
    ("matchday", "INTEGER"), ("match_number", "INTEGER"), ("home_team", "TEXT"), ("away_team", "TEXT"),
    ("kickoff_utc", "TEXT"), ("kickoff_source", "TEXT"), ("event_status", "TEXT"), ("outcome_status", "TEXT"),
    ("home_90", "INTEGER"), ("away_90", "INTEGER"), ("home_extra_time", "INTEGER"), ("away_extra_time", "INTEGER"),
    ("home_penalties", "INTEGER"), ("away_penalties", "INTEGER"), ("advancing_team", "TEXT"), ("clock", "TEXT"),
)


def _pair(score) -> tuple:
    return (score.home, score.away) if score is not None else (None, None)


def outcome_table(archive: Archive) -> Table:
    rows = []
    for key in sorted(archive.events):
        e = archive.events[key]
        o = archive.outcomes.get(key)
        rows.append(
            (e.competition_id, e.id, e.stage, e.group, e.matchday, e.match_number, e.home_team, e.away_team,
             _iso(e.kickoff_utc), e.kickoff_source, e.status.value, o.status.value if o else None)
            + (_pair(o.score_90) + _pair(o.score_extra_time) + _pair(o.score_penalties) if o else (None,) * 6)
            + ((o.advancing_team if o else None), (o or e).clock.value)
        )
    return Table("outcomes", OUTCOME_COLUMNS, rows, "every match with its latest outcome (empty before kickoff)")


SCORE_KEYS = (
    "competition_id", "event_id", "forecaster", "forecaster_type", "access", "strategy", "horizon", "sample",
    "clock", "status", "stage", "knockout", "p_home", "p_draw", "p_away", "predicted_home", "predicted_away",
    "score_home", "score_away", "result",
)


def score_table(scores) -> Table:
    """Every scored match forecast with every measure, in the order of the text of its first ten
    values (:func:`text_order`; rows made a chunk at a time: :class:`MadeRows`)."""
    columns = tuple((k, "REAL" if k.startswith("p_") else "TEXT") for k in SCORE_KEYS)
    columns += tuple((m, "REAL") for m in MEASURES + ADVANCEMENT_MEASURES)
    keys = attrgetter(*SCORE_KEYS)  # C-level lookups: one row per scored forecast

    def row(s) -> tuple:
        return keys(s) + tuple(map(s.measures.get, MEASURES)) + tuple(map((s.advancement or {}).get, ADVANCEMENT_MEASURES))

    def many(items: list) -> list[tuple]:
        """``row`` of each item, the measures read in one ``tolist`` of their shared matrix's rows."""
        matrix = shared_matrix(items)
        if matrix is None:
            return list(map(row, items))
        n, absent = len(MEASURES), (None,) * len(ADVANCEMENT_MEASURES)
        return [keys(s) + (tuple(values) if s.advancement is not None else tuple(values[:n]) + absent)
                for s, values in zip(items, matrix.tolist(), strict=True)]

    rows = scores.forecasts
    order = text_order(rows, [attrgetter(k) for k in SCORE_KEYS[:10]])
    return Table("scores", columns, MadeRows([rows[i] for i in order], row, many),
                 "every scored match forecast with every per-forecast measure", cut=_score_cut)


def _score_cut(row: tuple) -> bytes:
    """The bytes a scores row's chunk cut depends on: its forecast's competition, match, forecaster and
    cell (their ``repr``: any value has one; the cuts only decide which rows are copied together)."""
    return repr(row[:8]).encode()


def sorted_by_text(rows: list[tuple], width: int) -> list[tuple]:
    """``rows`` sorted by the text of their first ``width`` values (None as ""): the order
    ``key=lambda r: tuple("" if v is None else str(v) for v in r[:width])`` gives."""
    return [rows[i] for i in text_order(rows, [itemgetter(i) for i in range(width)])]


def text_order(items: Sequence, keys: list[Callable[[Any], Any]]) -> list[int]:
    """The indices of ``items`` sorted (stably) by the texts of their ``keys`` values (None as ""),
    compared key by key: one stable sort per key, the last key first, which is the order of the
    tuples of texts without making a tuple per item (a column of plain strings is its own text,
    no call per value)."""
    order = list(range(len(items)))
    for key in reversed(keys):
        column = list(map(key, items))
        text = column if set(map(type, column)) == {str} else ["" if v is None else str(v) for v in column]
        order.sort(key=text.__getitem__)
    return order


EMPTY_LEADERBOARD_KEYS = ("forecaster", "forecaster_type", "access", "strategy", "horizon", "clock", "view", "n")


def leaderboard_table(scores) -> Table:
    flat = [row.flat() for row in list(scores.leaderboard) + list(scores.matched)]
    keys: list[str] = [] if flat else list(EMPTY_LEADERBOARD_KEYS)
    for row in flat:
        keys += [k for k in row if k not in keys]
    columns = tuple((k, _sqlite_type(flat, k)) for k in keys)
    rows = [tuple(row.get(k) for k in keys) for row in flat]
    rows.sort(key=lambda r: tuple("" if v is None else str(v) for v in r))
    return Table("leaderboard", columns, rows, "one row per forecaster x condition cell, all and matched views")


def question_score_table(scores) -> Table:
    names = sorted({m for q in scores.questions for m in q.measures})
    base = ("competition_id", "question_id", "prediction_type", "forecaster", "access", "strategy", "horizon", "clock", "k")
    columns = tuple((k, "INTEGER" if k == "k" else "TEXT") for k in base) + (("answer", "TEXT"), ("final_picks", "TEXT"),
                                                                         ("tied_picks", "TEXT"))
    columns += tuple((f"question_{m}", "REAL") for m in names)  # the registry's ids (builder.score.definitions)
    rows = [
        tuple(getattr(q, k) for k in base) + (" ".join(q.answer), " ".join(q.final_picks), " ".join(q.tied))
        + tuple(q.measures.get(m) for m in names)
        for q in scores.questions
    ]
    rows.sort(key=lambda r: tuple(str(v) for v in r[:9]))
    return Table("question_scores", columns, rows, "every scored tournament-question forecast")


def _sqlite_type(rows: list[dict], key: str) -> str:
    for row in rows:
        value = row.get(key)
        if isinstance(value, bool):
            return "INTEGER"
        if isinstance(value, int):
            return "INTEGER"
        if isinstance(value, float):
            return "REAL"
        if value is not None:
            return "TEXT"
    return "TEXT"


def iter_tables(archive: Archive, scores) -> Iterator[Table]:
    """Every download table, built when asked: whoever writes one table (and drops it) before
    asking for the next holds one table's rows at a time (at 300,000 records each is hundreds of
    megabytes of tuples)."""
    yield forecast_table(archive)
    yield outcome_table(archive)
    yield score_table(scores)
    yield leaderboard_table(scores)
    yield question_score_table(scores)


def all_tables(archive: Archive, scores) -> list[Table]:
    return list(iter_tables(archive, scores))
