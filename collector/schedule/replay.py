"""Replay a finished competition on a simulated clock: the real scheduler, tick by tick, into a git repo.

:func:`replay` creates a git repository at ``out``, then runs :func:`collector.schedule.tick.run_tick`
with ``Clock.REPLAY`` at each simulated time something happens: a forecast window opens or
closes (``collector.schedule.tick.next_due_after``) or a match's result becomes knowable
(``collector.fixtures.knowable.finished_at``). Fixtures are registered as they became known, outcomes
written after each match, and every tick is one commit dated at the simulated time by a bot
identity. The forecasters are the built-in baselines (no API key), plus ``market`` when odds
files are given; they are built once so their per-date fits are reused across ticks.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from collector.archive.git import git
from collector.archive.reader import Archive, load_archive
from collector.competitions import competition_from_definition, load_definition
from collector.config import ArenaConfig, load_config, parse_config
from collector.datasource import DataSource, unreadable_data
from collector.errors import ConfigError, Problem, SourceError
from collector.fixtures.knowable import finished_at
from collector.fixtures.question_resolution import open_questions
from collector.forecasters import roster
from collector.forecasters.roster import BASELINES
from collector.records import Clock
from collector.schedule.odds import next_closing_tick
from collector.schedule.tick import TickReport, next_due_after, run_tick
from collector.sources import source_for

BOT = {"GIT_AUTHOR_NAME": "prematch-replay", "GIT_AUTHOR_EMAIL": "replay@prematch.invalid",
       "GIT_COMMITTER_NAME": "prematch-replay", "GIT_COMMITTER_EMAIL": "replay@prematch.invalid"}
LEAD_IN = timedelta(days=8)  # start before the first kickoff: stage-opening windows open up to 7 days ahead
STEP = timedelta(minutes=1)  # a result is read one minute after it became knowable
RESULT_LAG = timedelta(hours=1)  # ... or at the next forecast tick, if that comes within the hour


@dataclass
class ReplaySummary:
    competition: str
    out: Path
    ticks: int = 0
    matches: int = 0
    outcomes: int = 0
    statuses: Counter = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    started: datetime | None = None
    ended: datetime | None = None
    elapsed_s: float = 0.0
    tick_s: float = 0.0  # inside run_tick (sync, archive reads, scheduling, writing), forecasters included
    forecast_s: float = 0.0  # inside the built-in forecasters (a demo's LLMs run concurrently: in the rest)
    git_s: float = 0.0

    def summary_lines(self) -> list[str]:
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items())) or "none"
        span = f"{self.started:%Y-%m-%d} .. {self.ended:%Y-%m-%d}" if self.started and self.ended else "-"
        return [
            f"replayed {self.competition} ({span}) into {self.out}",
            f"  ticks (commits) {self.ticks}, matches with outcomes {self.outcomes}/{self.matches}",
            f"  forecast records: {statuses} (every record clock=replay)",
            f"  problems {len(self.problems)}, elapsed {self.elapsed_s:.1f}s "
            f"(built-in forecasters {self.forecast_s:.1f}s, rest of the ticks {self.tick_s - self.forecast_s:.1f}s, git {self.git_s:.1f}s)",
        ]


class Timed:
    """Wraps a forecaster to measure the time spent in it; every other attribute is the forecaster's."""

    def __init__(self, inner, summary: ReplaySummary):
        self._inner, self._summary = inner, summary

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    async def forecast(self, task):
        started = time.perf_counter()
        try:
            return await self._inner.forecast(task)
        finally:
            self._summary.forecast_s += time.perf_counter() - started


def replay_config(competition_id: str, config_path: Path | None, baselines: Sequence[str]) -> ArenaConfig:
    """The arena config for a replay: one competition, its baselines and endpoint agents (LLMs dropped)."""
    if config_path is not None:
        base = load_config(config_path)
        kept = [f.model_dump(mode="json", exclude_none=True) for f in base.forecasters if f.type != "llm"]
        data = {"arena": {"competitions": [competition_id], "access": [a.value for a in base.access],
                          "strategies": [s.value for s in base.strategies],
                          "horizons": [h.value for h in base.horizons],
                          "questions": base.questions,
                          **({"competitions_dir": str(base.competitions_folder())} if base.competitions_dir else {})},
                "windows": base.windows.model_dump(mode="json"), "forecasters": kept}
        return parse_config(data, str(config_path))
    data = {"arena": {"competitions": [competition_id], "access": ["closed_book"],
                      "strategies": ["probabilistic_forecast"]},
            "forecasters": [{"id": name, "type": "baseline"} for name in baselines]}
    return parse_config(data, "replay defaults")


def build_forecasters(config: ArenaConfig, data_dir, market=None) -> list:
    """Every configured baseline and endpoint agent, built once for the whole replay (the agents follow each
    tick's simulated clock); the market forecaster when given. An agent whose token is missing raises."""
    endpoints, problems = roster.build_endpoints(config, clock=None, data_dir=data_dir)
    if problems:
        raise ConfigError("; ".join(p.message for p in problems))
    return roster.build_baselines(config, data_dir) + endpoints + ([market] if market is not None else [])


def fixtures_or_reason(competition_id: str, data_dir):
    """(competition, its source's batch, None), or (..., why no match could be read)."""
    definition = load_definition(competition_id)
    competition = competition_from_definition(definition, datetime.now(UTC), Clock.REPLAY)
    batch = source_for(definition, DataSource(data_dir)).fetch(competition)
    if batch.matches:
        return competition, batch, None
    return competition, batch, str(batch.problems[0]) if batch.problems else f"{batch.source} lists no match"


def read_fixtures(competition_id: str, data_dir):
    """The competition, and its source's batch; :class:`SourceError` (what, why, how to provide it) when
    the source yields no match because it cannot be read."""
    competition, batch, reason = fixtures_or_reason(competition_id, data_dir)
    if reason is not None:
        raise unreadable_data(f"the fixtures of {competition_id}", reason, data_dir)
    return competition, batch


def knowable_times(competition_id: str, data_dir) -> tuple[list[datetime], int]:
    """When each match's result becomes knowable (sorted), and how many matches the source lists.

    Raises :class:`SourceError` (one line: what, why, how to provide it) when the fixture source
    cannot be read, or when the baselines' results cannot be read: a replay without its data
    would only make an empty repository that looks like a success.
    """
    competition, batch = read_fixtures(competition_id, data_dir)
    try:
        roster.check_baseline_data(competition, data_dir)
    except SourceError as exc:
        raise unreadable_data(f"the results the baselines of {competition_id} fit on", str(exc), data_dir) from None
    from zoneinfo import ZoneInfo

    tz = ZoneInfo(competition.time_zone)
    times = sorted(t for t in (finished_at(m, tz) for m in batch.matches) if t is not None)
    return times, len(batch.matches)


def init_repo(out: Path, keep: Sequence[str] = ()) -> Path:
    """A fresh git repository at ``out`` with an ``archive/`` folder; refuses a non-empty folder
    (but for the names in ``keep``: the demo's inputs, written first)."""
    if out.exists() and any(p.name not in keep for p in out.iterdir()):
        raise ConfigError(f"{out}: folder exists and is not empty; choose a new --out")
    (out / "archive").mkdir(parents=True, exist_ok=True)
    _git(out, "init", "-q", "-b", "main")
    return out / "archive"


def _git(repo: Path, *args: str, when: datetime | None = None) -> None:
    """Run git as the replay bot; a commit is dated ``when`` (author and committer alike)."""
    env = dict(BOT)
    if when is not None:
        stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
        env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    git(repo, *args, env=env)


def commit_tick(repo: Path, report: TickReport) -> None:
    """One commit per tick, by the replay bot, dated when the tick ended on its simulated clock
    (rounded up to git's whole seconds), as a live tick commits after its requests: every record's
    request time is at or before the commit that adds it."""
    _git(repo, "add", "--", "archive")
    message = (f"replay tick {report.now.isoformat()}: {report.produced} forecast(s), {report.missed} missed, "
               f"{len(report.written)} file(s)")
    ended = report.ended_at or report.now
    whole = ended.replace(microsecond=0)
    _git(repo, "commit", "-q", "--allow-empty", "-m", message, when=whole if whole == ended else whole + timedelta(seconds=1))


def next_tick(config, root: Path | Archive, now: datetime, forecasters, finishes: list[datetime]) -> datetime | None:
    """The next simulated time anything happens: a window opens or closes, or a result becomes knowable.

    A result is read at the next forecast tick when that comes within ``RESULT_LAG`` (a live
    collector ticking every 15 minutes is no faster), else one minute after it became knowable.
    """
    due = next_due_after(config, root, now, forecasters)
    if isinstance(root, Archive):  # closing odds are read one minute before each kickoff
        closing = next_closing_tick(config, root, now)
        due = min((t for t in (due, closing) if t is not None), default=None)
    result = next((t + STEP for t in finishes if t + STEP > now), None)
    if due is not None and (result is None or due <= result + RESULT_LAG):
        return due
    return result


LlmRoster = Callable[[ArenaConfig, datetime], roster.Roster]  # a tick's LLMs and their client (the demo's)


def replay(
    competition_id: str, out: Path, data_dir=None, *, config_path: Path | None = None, until: datetime | None = None,
    baselines: Sequence[str] = BASELINES, market=None, progress: Callable[[str], None] = print,
    progress_every_s: float = 2.0, odds_files: Sequence[Path] = (), config: ArenaConfig | None = None,
    llms: LlmRoster | None = None, keep: Sequence[str] = (),
) -> ReplaySummary:
    """Run the whole replay; returns the summary (problems collected, never raised per tick).

    ``config`` replaces the replay's own (baselines only); ``llms`` makes each tick's LLM
    forecasters and their client (the demo's local server: ``collector.schedule.demo_arena``), which the
    tick asks, checks and closes like a live tick's. Raises :class:`SourceError` before
    anything is created when the data cannot be read.
    """
    config = config or replay_config(competition_id, config_path, baselines)
    if odds_files:  # football-data.co.uk CSVs: snapshots at each horizon and closing, the market from them
        odds = config.odds.model_copy(update={"sources": ("football-data-co-uk",),
                                              "files": tuple(str(p) for p in odds_files)})
        config = config.model_copy(update={"odds": odds})
    finishes, matches = knowable_times(competition_id, data_dir)  # the data first: a failed read leaves nothing
    root = init_repo(out, keep)
    summary = ReplaySummary(competition_id, out, matches=matches)
    forecasters = [Timed(f, summary) for f in build_forecasters(config, data_dir, market)]
    llm_specs = [s for s in roster.forecaster_specs(config, data_dir) if llms and s.model is not None]
    started, last_note = time.perf_counter(), 0.0
    now: datetime | None = (finishes[0] - LEAD_IN - timedelta(days=3)).replace(minute=0, second=0) if finishes else None
    summary.started = now
    archive = load_archive(root)  # the replay is the only writer: one view, kept current by each tick
    while now is not None and (until is None or now <= until):
        tick_started = time.perf_counter()
        chosen = forecasters
        if llms is not None:  # a roster: its client is used for the model check, the news and closed after
            tick_llms = llms(config, now)
            chosen = roster.Roster(forecasters + tick_llms.forecasters, tick_llms.client)  # concurrent: not timed
        report = run_tick(config, root, now, data_dir, Clock.REPLAY, chosen, lock_dir=out / ".locks",
                          archive=archive)
        git_started = time.perf_counter()
        commit_tick(out, report)
        summary.tick_s += git_started - tick_started
        summary.git_s += time.perf_counter() - git_started
        _tally(summary, report)
        if time.perf_counter() - last_note >= progress_every_s:
            last_note = time.perf_counter()
            progress(_progress_line(summary, now, last_note - started))
        summary.ended = now
        now = next_tick(config, archive, now, forecasters + llm_specs, finishes)
    if until is None and competition_id in archive.competitions:  # the whole competition: what stayed open is said
        summary.problems += [p for p in open_questions(archive, archive.competitions[competition_id])
                             if not any(p.path == q.path for q in summary.problems)]
    summary.elapsed_s = time.perf_counter() - started
    return summary


def _tally(summary: ReplaySummary, report: TickReport) -> None:
    summary.ticks += 1
    summary.outcomes += sum(1 for p in report.written if "/outcome.r000." in p)
    summary.statuses.update(report.statuses)
    summary.problems += [p for p in report.problems if p not in summary.problems]  # a source's error once


def _progress_line(summary: ReplaySummary, now: datetime, elapsed: float) -> str:
    forecasts = sum(summary.statuses.values())
    return (f"  {now:%Y-%m-%d %H:%M}Z  matches done {summary.outcomes}/{summary.matches}  ticks {summary.ticks}  "
            f"forecasts {forecasts}  elapsed {elapsed:.1f}s")


def market_forecaster(competition_id: str, odds_files: Sequence[Path], method: str):
    """The ``market`` forecaster from odds files; any unreadable row stops the replay with every problem named."""
    competition = competition_from_definition(load_definition(competition_id), datetime.now(UTC), Clock.REPLAY)
    return roster.market_forecaster(competition, odds_files, method)
