"""The leakage audit: WorldCupArena's A.4 "leaked" state, decided by rule instead of by hand.

Every forecast is checked against three rules; each hit is a :class:`LeakFlag` with its rule
and a reason naming what was found. A flagged forecast is shown with its reasons on its card,
left out of the main leaderboard by default (``AnalysisOptions.include_leaked``) and counted in
the operational rates. The rules, and the cases where they are wrong, are:

``late_source``
    A source the forecast used was published after its request time: a news item of the
    evidence package it names (its stated ``published_at``), or a cited URL or search result
    whose publication time is known (a ``published``/``date`` field of the search result, or a
    ``/YYYY/MM/DD/`` date in the URL later than the request's date). False positives: a page
    re-dated when it is updated (an old preview with today's date in its URL); false negatives:
    undated sources, which are never flagged.

``states_result``
    The rationale states the final score as a past fact, or events after kickoff: the match's
    own 90-minute (or final) score next to a past-tense result word ("beat", "won", "ended",
    "final score", "full-time"), or a past-tense in-match event ("was sent off", "scored in the
    Nth minute", "after the match"). False positives: a rationale that recalls an earlier
    meeting that ended with the same score ("they won 2-0 last time"); a prediction ("most
    likely 2-0") is not flagged.

``match_report``
    A cited URL is a report of this very match: it names both teams and a report word
    (report, result, highlights, player-ratings, as-it-happened, reaction, recap, ...). False
    positives: a live blog page opened before kickoff whose URL already says "report"; a report
    of an earlier meeting of the same teams. Previews ("preview", "prediction", "team-news")
    are not flagged.

Pure functions over records; nothing here writes to the archive.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime

from collector.archive.layout import path_for
from collector.archive.reader import Archive
from collector.records import (
    Competition,
    Event,
    Evidence,
    Forecast,
    MatchForecast,
    Outcome,
)

RULES = ("late_source", "states_result", "match_report")


@dataclass(frozen=True)
class LeakFlag:
    rule: str  # one of RULES
    reason: str


def _fold(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", " ", plain).strip()


# -- late_source -------------------------------------------------------------------------------

_URL_DATE = re.compile(r"/(20\d{2})[/-](0[1-9]|1[0-2])[/-](0[1-9]|[12]\d|3[01])(?:/|[^0-9]|$)")
_DATE_KEYS = ("published_at", "published_date", "publishedDate", "published", "date", "page_age")


def url_date(url: str) -> date | None:
    """A ``/YYYY/MM/DD/`` (or ``YYYY-MM-DD``) date in a URL's path, or None."""
    found = _URL_DATE.search(url)
    if found is None:
        return None
    try:
        return date(int(found.group(1)), int(found.group(2)), int(found.group(3)))
    except ValueError:
        return None


def _stated_time(result: dict) -> datetime | None:
    for key in _DATE_KEYS:
        value = result.get(key)
        if isinstance(value, str):
            try:
                parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                continue
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def late_sources(forecast: Forecast, evidence: Evidence | None, urls: list[str] | None = None) -> list[LeakFlag]:
    """Packaged news published after the request; cited or searched sources dated after it
    (``urls``: the forecast's :func:`cited_urls`, when the caller has them)."""
    requested = forecast.requested_at
    if requested is None:
        return []
    flags = []
    if evidence is not None and evidence.news is not None:
        for item in evidence.news.items:
            if item.published_at is not None and item.published_at > requested:
                flags.append(LeakFlag("late_source", f"packaged news {item.url} published "
                                      f"{item.published_at:%Y-%m-%d %H:%M} UTC, after the request "
                                      f"{requested:%Y-%m-%d %H:%M} UTC"))
    for attempt in forecast.attempts:
        for result in attempt.tool_trace.search_results:
            when = _stated_time(result)
            if when is not None and when > requested:
                flags.append(LeakFlag("late_source", f"search result {str(result.get('url', '?'))[:200]} published "
                                      f"{when:%Y-%m-%d %H:%M} UTC, after the request"))
    for url in cited_urls(forecast) if urls is None else urls:
        day = url_date(url)
        if day is not None and day > requested.date():
            flags.append(LeakFlag("late_source", f"cited {url[:200]} is dated {day.isoformat()} in its address, "
                                  f"after the request date {requested.date().isoformat()}"))
    return flags


def cited_urls(forecast: Forecast) -> list[str]:
    urls = [c.url for a in forecast.attempts for c in a.tool_trace.citations]
    if forecast.search is not None:
        urls += [c.url for c in forecast.search.citations]
    return sorted(set(urls))


# -- states_result -----------------------------------------------------------------------------

_PAST = r"(?:beat|beats|won|wins|defeated|drew|lost|ended|finished|final score|full time|full-time|ft|result was)"
_EVENTS = re.compile(r"\b(?:was sent off|were reduced to ten|scored in the \d+(?:st|nd|rd|th) minute|"
                     r"after the match|in the match played|final whistle blew)\b", re.IGNORECASE)


def _score_pattern(home: int, away: int) -> re.Pattern[str]:
    """A past-tense result word up to 40 characters before the score, or "after/following a 2-0 win"."""
    score = rf"(?<!\d)(?:{home}\s*[-–:]\s*{away}|{away}\s*[-–:]\s*{home})(?!\d)"
    return re.compile(rf"\b{_PAST}\b[^.;\n]{{0,40}}?{score}|\b(?:after|following|secured|earned|claimed) "
                      rf"(?:a|an|the|their|its) {score} (?:win|victory|defeat|draw)\b", re.IGNORECASE)


def _stated_after(text: str, home: int, away: int) -> list[str]:
    found = []
    match = _score_pattern(home, away).search(text)
    sentence = max(text.rfind(mark, 0, match.start()) for mark in ".;\n") + 1 if match is not None else 0
    if match is not None and not re.search(r"\b(?:likely|predict|expect|forecast|project)\w*\b",
                                           text[max(sentence, match.start() - 30):match.end()], re.IGNORECASE):
        found.append(f"states the final score as a past fact: {match.group(0)[:80]!r}")
    event = _EVENTS.search(text)
    if event is not None:
        found.append(f"states an event after kickoff: {event.group(0)[:80]!r}")
    return found


def states_result(forecast: Forecast, outcome: Outcome | None) -> list[LeakFlag]:
    """The rationale states the match's final score as a past fact, or an event after kickoff."""
    payload = forecast.payload
    text = payload.reason if isinstance(payload, MatchForecast) else ""
    if not text or outcome is None or outcome.score_90 is None:
        return []
    scores = {outcome.score_90.as_tuple()}
    if outcome.score_extra_time is not None:
        scores.add(outcome.score_extra_time.as_tuple())
    reasons = {r for home, away in sorted(scores) for r in _stated_after(text, home, away)}
    return [LeakFlag("states_result", r) for r in sorted(reasons)]


# -- match_report ------------------------------------------------------------------------------

_REPORT = {"report", "reports", "result", "results", "highlights", "player ratings", "ratings", "as it happened",
           "reaction", "recap", "match report", "full time", "ft"}
_NOT_REPORT = {"preview", "prediction", "predictions", "team news", "odds", "betting tips", "lineups"}


def _team_words(competition: Competition, team_id: str) -> set[str]:
    team = competition.team(team_id)
    return {_fold(n) for n in (team.name, *team.aliases, team.id) if _fold(n)}


def match_reports(forecast: Forecast, competition: Competition | None, event: Event | None,
                  urls: list[str] | None = None) -> list[LeakFlag]:
    """Cited URLs that name both teams and a report word (and no preview word); ``urls`` as
    for :func:`late_sources`."""
    urls = (cited_urls(forecast) if urls is None else urls) if competition is not None and event is not None else []
    if not urls:  # the team words (a search through the competition's teams) only when there is a URL to test
        return []
    home, away = _team_words(competition, event.home_team), _team_words(competition, event.away_team)
    flags = []
    for url in urls:
        words = f" {_fold(url)} "
        if not (any(f" {w} " in words for w in home) and any(f" {w} " in words for w in away)):
            continue
        if any(f" {w} " in words for w in _NOT_REPORT):
            continue
        hit = next((w for w in sorted(_REPORT) if f" {w} " in words), None)
        if hit is not None:
            flags.append(LeakFlag("match_report", f"cites {url[:200]}, a {hit!r} page of this match"))
    return flags


# -- the audit ---------------------------------------------------------------------------------


def auditable(forecast: Forecast) -> bool:
    """Whether any rule can flag ``forecast``: a match forecast with an attempt to read."""
    return forecast.target_kind == "match" and bool(forecast.attempts)


def leakage_flags(forecast: Forecast, *, event: Event | None, outcome: Outcome | None,
                  competition: Competition | None, evidence: Evidence | None) -> tuple[LeakFlag, ...]:  # fmt: skip
    """Every rule's flags for one match forecast (empty: no suspected leak)."""
    if not auditable(forecast):
        return ()
    urls = cited_urls(forecast)  # once for the two rules that read them
    return tuple(late_sources(forecast, evidence, urls) + states_result(forecast, outcome)
                 + match_reports(forecast, competition, event, urls))


def audit_archive(archive: Archive, forecasts: Iterable[Forecast]) -> dict[str, tuple[LeakFlag, ...]]:
    """Archive path -> flags, for the forecasts with at least one flag."""
    out = {}
    for forecast in forecasts:
        if not auditable(forecast):
            continue  # no flags, so no records to look up
        key = (forecast.competition_id, forecast.target_id)
        package = archive.records.get(forecast.evidence.path) if forecast.evidence is not None else None
        flags = leakage_flags(forecast, event=archive.events.get(key), outcome=archive.outcomes.get(key),
                              competition=archive.competitions.get(forecast.competition_id),
                              evidence=package if isinstance(package, Evidence) else None)  # fmt: skip
        if flags:
            out[path_for(forecast)] = flags
    return out


def with_leak_counts(rows: list, flags: dict[str, tuple[LeakFlag, ...]], forecasts: Iterable[Forecast]) -> list:
    """The operational rows with each forecaster's suspected leaks counted (``OperationalRow.suspected_leaks``)."""
    counts: dict[tuple[str, str], int] = {}
    for forecast in forecasts if flags else ():  # no flags: nothing to count (and no path to build)
        if path_for(forecast) in flags:
            key = (forecast.forecaster, forecast.clock.value)
            counts[key] = counts.get(key, 0) + 1
    return [replace(r, suspected_leaks=counts.get((r.forecaster, r.clock), 0)) for r in rows]
