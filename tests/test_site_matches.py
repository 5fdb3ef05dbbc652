"""Match descriptions, hand-worked: how a knockout was decided, and the round of a group match."""

from __future__ import annotations

from datetime import UTC, date, datetime
from types import SimpleNamespace as NS

from builder.site.matches import decided_text, group_rounds, round_label


def _score(home, away):
    return NS(home=home, away=away)


def _knockout(knockout=True):
    return NS(knockout=knockout, stage="quarter-final")


ALWAYS = NS(plays_extra_time=lambda stage: True, shootouts=True)  # the rules of most cups


def test_decided_text_follows_the_scores_the_outcome_holds():
    assert decided_text(_knockout(False), NS(score_90=_score(1, 1)), ALWAYS) == ""
    assert decided_text(_knockout(), None, ALWAYS) == "knockout: a draw after 90 minutes goes to extra time, then penalties"
    assert decided_text(_knockout(), NS(score_90=_score(2, 0), score_extra_time=None, score_penalties=None), ALWAYS) == \
        "decided in 90 minutes"
    one_nil_aet = NS(score_90=_score(0, 0), score_extra_time=_score(1, 0), score_penalties=None)
    assert decided_text(_knockout(), one_nil_aet, ALWAYS) == "decided in extra time (1–0 after 120 minutes)"  # not penalties
    shootout = NS(score_90=_score(1, 1), score_extra_time=_score(2, 2), score_penalties=_score(4, 3))
    assert decided_text(_knockout(), shootout, ALWAYS) == "decided on penalties (4–3) after 2–2 in extra time"


def _event(eid, home, away, day, group="A", knockout=False, matchday=None):
    kickoff = datetime(2026, 6, day, 18, tzinfo=UTC)
    return NS(competition_id="wc", id=eid, home_team=home, away_team=away, group=group, knockout=knockout,
              kickoff_date=date(2026, 6, day), kickoff_utc=kickoff, matchday=matchday)


def test_group_rounds_count_each_teams_matches_not_tournament_days():
    events = [_event("a1", "mex", "rsa", 11, matchday=1), _event("a2", "kor", "cze", 12, matchday=2),
              _event("a3", "cze", "rsa", 18, matchday=8), _event("a4", "mex", "kor", 19, matchday=9),
              _event("a5", "cze", "mex", 24, matchday=14), _event("a6", "rsa", "kor", 24, matchday=14),
              _event("b1", "can", "bih", 12, group="B", matchday=2)]
    rounds = group_rounds(events, {("wc", "A"): 4, ("wc", "B"): 4})
    assert [rounds[("wc", e)] for e in ("a1", "a2", "a3", "a4", "a5", "a6")] == [(1, 3), (1, 3), (2, 3), (2, 3),
                                                                                (3, 3), (3, 3)]
    assert round_label(events[4], rounds) == "Group A · round 3 of 3"  # not "Matchday 14"
    assert rounds[("wc", "b1")] == (1, 3)  # the group's size comes from the competition, not the matches seen
    assert group_rounds(events[:1])[("wc", "a1")] == (1, 1)  # without it: the teams seen
    league = NS(competition_id="en", id="x", group=None, matchday=6, knockout=False)
    assert round_label(league, rounds) == "Matchday 6"
    assert round_label(NS(competition_id="wc", id="m73", group=None, matchday=17, knockout=True), rounds) == ""
