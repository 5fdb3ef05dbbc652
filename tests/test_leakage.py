"""The leakage audit (builder/score/leakage.py): each rule with a true positive and a false positive,
and its effect on the scores (left out of the leaderboard by default, counted in operations)."""

from __future__ import annotations

from datetime import timedelta

from builder.score.leakage import leakage_flags
from builder.score.options import AnalysisOptions
from builder.score.scoring import score_archive
from collector.records import (
    Access,
    Attempt,
    AttemptRole,
    Citation,
    Evidence,
    EvidenceRef,
    Horizon,
    NewsDigest,
    NewsItem,
    Team,
    ToolTrace,
)
from tests.factories import (
    archive_from_records,
    make_competition,
    make_event,
    make_forecast,
    make_outcome,
    make_payload,
)

COMPETITION = make_competition(teams=("mex", "rsa", "esp", "usa")).model_copy(update={"teams": (
    Team(id="mex", name="Mexico"), Team(id="rsa", name="South Africa", aliases=("Bafana Bafana",)),
    Team(id="esp", name="Spain"), Team(id="usa", name="USA"))})  # fmt: skip
EVENT = make_event()
OUTCOME = make_outcome(EVENT, 2, 0)
REQUESTED = EVENT.kickoff_utc - timedelta(hours=24)


def cited(*urls: str, results: tuple = ()) -> Attempt:
    return Attempt(role=AttemptRole.FIRST, started_at=REQUESTED, request_body={"model": "x"}, http_status=200,
                   tool_trace=ToolTrace(citations=tuple(Citation(url=u) for u in urls), search_results=results))


def flags(forecast, evidence=None):
    return leakage_flags(forecast, event=EVENT, outcome=OUTCOME, competition=COMPETITION, evidence=evidence)


def rules(forecast, evidence=None):
    return sorted({f.rule for f in flags(forecast, evidence)})


def with_reason(reason: str):
    return make_forecast(EVENT, payload=make_payload(reason=reason))


def package(published) -> Evidence:
    item = NewsItem(url="https://news.example.org/mex", title="Mexico news", published_at=published,
                    retrieved_at=REQUESTED)
    return Evidence(recorded_at=REQUESTED - timedelta(minutes=1), competition_id=EVENT.competition_id,
                    event_id=EVENT.id, horizon=Horizon.T_MINUS_24H, kickoff_utc=EVENT.kickoff_utc,
                    locks_at=REQUESTED - timedelta(minutes=1), home_team="mex", away_team="rsa",
                    news=NewsDigest(gatherer="g", model="m", requested_items=1, status="ok", items=(item,)))


# -- late_source


def test_packaged_news_published_after_the_request_is_a_late_source():
    forecast = make_forecast(EVENT, access=Access.EVIDENCE_PACKAGE)
    late = flags(forecast, package(REQUESTED + timedelta(hours=3)))
    assert [f.rule for f in late] == ["late_source"] and "https://news.example.org/mex" in late[0].reason
    assert rules(forecast, package(REQUESTED - timedelta(hours=3))) == []  # published before: no flag


def test_a_cited_url_dated_after_the_request_is_a_late_source_an_earlier_one_is_not():
    after = f"https://example.org/{(REQUESTED + timedelta(days=1)):%Y/%m/%d}/mexico-squad"
    before = f"https://example.org/{(REQUESTED - timedelta(days=3)):%Y/%m/%d}/mexico-squad"
    assert rules(make_forecast(EVENT, access=Access.OPEN_BOOK, attempts=(cited(after),))) == ["late_source"]
    assert rules(make_forecast(EVENT, access=Access.OPEN_BOOK, attempts=(cited(before),))) == []
    # the documented false positive: an old page whose address carries its update date is flagged all the same
    updated = f"https://example.org/{(REQUESTED + timedelta(days=1)):%Y/%m/%d}/world-cup-history-updated"
    assert rules(make_forecast(EVENT, access=Access.OPEN_BOOK, attempts=(cited(updated),))) == ["late_source"]


def test_a_search_result_stating_a_later_publication_time_is_a_late_source():
    later = {"url": "https://example.org/a", "published_date": (REQUESTED + timedelta(hours=30)).isoformat()}
    earlier = {"url": "https://example.org/b", "published_date": (REQUESTED - timedelta(hours=30)).isoformat()}
    assert rules(make_forecast(EVENT, attempts=(cited(results=(later,)),))) == ["late_source"]
    assert rules(make_forecast(EVENT, attempts=(cited(results=(earlier,)),))) == []


# -- states_result


def test_a_rationale_stating_the_final_score_as_a_past_fact_is_flagged():
    assert rules(with_reason("Mexico beat South Africa 2-0 in the opener.")) == ["states_result"]
    assert rules(with_reason("After a 2–0 win Mexico top the group.")) == ["states_result"]
    assert rules(with_reason("Edson Alvarez was sent off early on.")) == ["states_result"]


def test_a_prediction_of_the_same_score_is_not_flagged_but_a_recalled_meeting_is():
    assert rules(with_reason("Most likely score 2-0; Mexico stronger at home.")) == []
    assert rules(with_reason("Mexico beat South Africa 1-0 in their last meeting.")) == []  # not this score
    # the documented false positive: an earlier meeting that ended with this match's score
    assert rules(with_reason("In 2010 the hosts won 2-0 against these opponents.")) == ["states_result"]


# -- match_report


def test_a_cited_match_report_of_this_match_is_flagged_a_preview_is_not():
    report = "https://www.bbc.co.uk/sport/football/mexico-v-south-africa-match-report"
    preview = "https://www.bbc.co.uk/sport/football/mexico-v-south-africa-preview-team-news"
    other = "https://www.bbc.co.uk/sport/football/spain-v-usa-match-report"
    assert rules(make_forecast(EVENT, access=Access.OPEN_BOOK, attempts=(cited(report),))) == ["match_report"]
    assert rules(make_forecast(EVENT, access=Access.OPEN_BOOK, attempts=(cited(preview),))) == []
    assert rules(make_forecast(EVENT, access=Access.OPEN_BOOK, attempts=(cited(other),))) == []
    # the documented false positive: a report of an earlier meeting of the same teams
    old = "https://example.org/2010-world-cup-south-africa-v-mexico-highlights"
    assert rules(make_forecast(EVENT, access=Access.OPEN_BOOK, attempts=(cited(old),))) == ["match_report"]


# -- effect on the scores


def test_a_flagged_forecast_is_left_out_of_the_leaderboard_and_counted_in_operations():
    clean = make_forecast(EVENT, forecaster="a.clean", payload=make_payload(reason="Home side stronger."))
    leaked = make_forecast(EVENT, forecaster="b.leaked", payload=make_payload(reason="Mexico won 2-0."))
    archive = archive_from_records([COMPETITION, EVENT, OUTCOME, clean, leaked])
    scores = score_archive(archive, inference_tests=False)
    assert {r.forecaster for r in scores.forecasts} == {"a.clean"}
    assert list(scores.leakage) == [next(p for p, r in archive.records.items() if r is leaked)]
    ops = {o.forecaster: o.suspected_leaks for o in scores.operations}
    assert ops == {"a.clean": 0, "b.leaked": 1}
    included = score_archive(archive, inference_tests=False, options=AnalysisOptions(include_leaked=True))
    assert {r.forecaster for r in included.forecasts} == {"a.clean", "b.leaked"}


def test_an_evidence_forecast_is_audited_against_the_package_it_names():
    record = package(REQUESTED + timedelta(hours=1))
    path = "worldcup-2026/events/mex-v-rsa/evidence/t_minus_24h.json"
    forecast = make_forecast(EVENT, forecaster="c.evidence", access=Access.EVIDENCE_PACKAGE,
                             evidence=EvidenceRef(path=path, sha256="a" * 64))
    archive = archive_from_records([COMPETITION, EVENT, OUTCOME, record, forecast])
    assert path in archive.records
    found = score_archive(archive, inference_tests=False).leakage
    assert [rule for flags in found.values() for rule, _ in flags] == ["late_source"]


# -- invariants


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from builder.score.leakage import states_result  # noqa: E402

WORDS = st.sampled_from(["Mexico", "stronger", "at", "home", "form", "is", "good", "the", "hosts", "should",
                         "edge", "it", "a", "tight", "game", "expected", "draw", "goals"])


@settings(max_examples=200, deadline=None)
@given(h=st.integers(0, 9), a=st.integers(0, 9), words=st.lists(WORDS, max_size=20),
       verb=st.sampled_from(["beat South Africa", "won", "defeated them", "ended", "final score"]))
def test_the_score_rule_flags_exactly_the_past_tense_statement_of_this_score(h, a, words, verb):
    """A prediction of the score is never flagged, a past-tense statement of it always is (whatever the
    sentences before it say), and the same statement is not flagged when the match ended otherwise."""
    outcome = make_outcome(EVENT, h, a)
    text = " ".join(words)
    assert states_result(make_forecast(EVENT, payload=make_payload(reason=f"Most likely score {h}-{a}. {text}")),
                         outcome) == []
    flagged = states_result(make_forecast(EVENT, payload=make_payload(reason=f"{text}. Mexico {verb} {h}-{a}.")),
                            outcome)
    assert [f.rule for f in flagged] == ["states_result"]
    other = make_outcome(EVENT, h + 1, a)  # another final score: the same sentence states no leak
    assert states_result(make_forecast(EVENT, payload=make_payload(reason=f"Mexico {verb} {h}-{a}.")), other) == []
