"""Prompt sets: ``lsa_v1`` renders LLM-SoccerArena Appendix F as published; ``prematch_v1`` stays as it was.

The reference is the appendix text itself, read at run time from the paper's text file
(``../shared/seeds/000_*.txt``). That file is extracted from a two-column PDF: line breaks are
lost, running page headers interrupt blocks, blocks appear out of order, and a word broken
at a line end loses its hyphen. The comparison therefore (1) cuts each template block out of
the appendix between its first and last words, (2) assembles the blocks in the order F.3 and
F.5 state, fills the placeholders with the sample match's own values, and (3) compares with
the rendered prompt after collapsing whitespace and undoing only the named extraction
artefacts below. Anything else that differs fails the test.
"""

from __future__ import annotations

import hashlib
import os
import re
from datetime import timedelta
from pathlib import Path

import pytest

from collector.competitions.teams import name_index, normalise_name
from collector.fixtures.questions import questions_for
from collector.forecasters.llm import prompting
from collector.forecasters.llm.prompting import (
    match_prompt,
    match_repair_prompt,
    prompt_set,
    question_prompt,
)
from collector.forecasters.llm.validation import validate_question
from collector.records import Access, Clock, ForecastStatus, Strategy
from tests.collection_helpers import T0, knockout_event, make_event, world_cup
from tests.conftest import REPO_ROOT

PDF_ARTEFACTS = {
    "chain-ofthought": "chain-of-thought",  # "chain-of-" / "thought" across a line break
    "tournamenttree": "tournament-tree",
    "\\emph{2026 FIFA World Cup}": "2026 FIFA World Cup",  # LaTeX markup left in the text
    "< OPTIONAL_VENUE>": "<OPTIONAL_VENUE>",
    "Schröder and Schweisthal, et al.": " ",  # running page headers inside blocks
    "LLM-SoccerArena : Benchmarking LLMs on Real-World Predictions in Sports": " ",
}
LSA = prompt_set("lsa_v1")


def seeds_dir() -> Path | None:
    env = os.environ.get("PREMATCH_SEEDS_DIR")
    for candidate in ([Path(env)] if env else []) + [REPO_ROOT.parent / "shared" / "seeds", Path("/work/shared/seeds")]:
        if list(candidate.glob("000_*.txt")):
            return candidate
    return None


@pytest.fixture(scope="module")
def appendix() -> str:
    found = seeds_dir()
    if found is None:
        pytest.skip("the LLM-SoccerArena text (../shared/seeds/000_*.txt) is not here; set PREMATCH_SEEDS_DIR")
    text = next(found.glob("000_*.txt")).read_text(encoding="utf-8")
    text = text[text.index("Exact LLM Prompt Templates"):]  # Appendix F
    for wrong, right in PDF_ARTEFACTS.items():
        text = text.replace(wrong, right)
    return norm(text)


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def cut(appendix: str, after: str, start: str, end: str, nth: int = 1) -> str:
    """The appendix text from ``start`` to ``end`` (inclusive), searching after the nth ``after``."""
    at = -1
    for _ in range(nth):
        at = appendix.index(after, at + 1)
    begin = appendix.index(start, at)
    return appendix[begin:appendix.index(end, begin) + len(end)]


def fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(f"<{key}>", value)
    return text


def table_8(appendix: str) -> dict[str, list[str]]:
    """Group -> candidate names, parsed from Table 8 of the appendix.

    The extraction gives ``Group A B ... L Candidate teams`` and then the twelve rows without
    their letters, joined by spaces: ``...; Czechia Canada; Switzerland; ...``. Each merged item
    is split where both halves are names of the competition's teams (names or aliases)."""
    letters = appendix[appendix.index("Table 8"):appendix.index("Candidate teams")].split()[-12:]
    body = appendix[appendix.index("Candidate teams") + len("Candidate teams"):appendix.index("- For knockout")]
    index = name_index(world_cup())
    items, rows = [x.strip() for x in body.split(";")], []
    row = [items[0]]
    for item in items[1:]:
        words = item.split()
        splits = [i for i in range(1, len(words))
                  if normalise_name(" ".join(words[:i])) in index and normalise_name(" ".join(words[i:])) in index]
        if len(row) == 3 and splits:
            rows.append(row + [" ".join(words[:splits[0]])])
            row = [" ".join(words[splits[0]:])]
        else:
            row.append(item)
    rows.append(row)
    assert letters == list("ABCDEFGHIJKL")
    return dict(zip(letters, rows, strict=True))


def match_blocks(appendix: str, access: Access, strategy: Strategy) -> list[str]:
    """Appendix F.3's blocks in its stated order: preamble, access, strategy, definitions, fixture, schema."""
    closed = (cut(appendix, "Closed-book prompt component", "Access condition: CLOSED_BOOK.",
                  "internal football knowledge.")
              + " " + cut(appendix, "Common preamble.", "You do not have access", "tournament-tree outputs."))
    opened = cut(appendix, "Open-book prompt component", "Access condition: OPEN_BOOK.", "football reasoning.")
    direct = cut(appendix, "Score-first prompt component", "Prompt strategy: DIRECT_SCORE.", "overstate certainty.")
    prob = cut(appendix, "Probabilistic forecast prompt component", "Prompt strategy: PROBABILISTIC_FORECAST.",
               "overstate certainty.")
    definitions = (cut(appendix, "Common match definitions", "Definitions:", "same as the 90-minute result.")
                   + " " + cut(appendix, "Candidate teams", "- For knockout matches", "overall forecast, between 0 and 1."))
    return [
        cut(appendix, "Common match prompt preamble", "You are forecasting a football match", "overstate certainty."),
        closed if access is Access.CLOSED_BOOK else opened,
        direct if strategy is Strategy.DIRECT_SCORE else prob,
        definitions,
        cut(appendix, "Runtime fixture template", "Match: Sport:", "<YES_NO_OR_UNKNOWN>"),
        match_schema(appendix),
    ]


def match_schema(appendix: str) -> str:
    return (cut(appendix, "Match-response schema.", "Return only valid JSON.", '"most_likely_score_90": {')
            + " " + cut(appendix, "The code-level field name", '"home": number, "away": number },',
                        '"reason": "short reason" }'))


def fixture_values(event, names: dict[str, list[str]]) -> dict[str, str]:
    flat = {tid: name for g, teams in world_cup_groups().items() for tid, name in zip(teams, names[g], strict=True)}
    c = world_cup()
    return {"COMPETITION": c.name, "TOURNAMENT_EDITION": c.edition, "STAGE": prompting.stage_label(c, event),
            "UTC_DATE": event.kickoff_utc.strftime("%Y-%m-%dT%H:%M:%SZ"), "HOME_TEAM": flat[event.home_team],
            "AWAY_TEAM": flat[event.away_team], "VENUE_OR_UNKNOWN": event.venue or "unknown",
            "YES_NO_OR_UNKNOWN": "yes" if event.knockout else "no"}


def world_cup_groups() -> dict[str, list[str]]:
    """The prompt set's team ids, group by group, in Table 8's order (names come from the appendix)."""
    return {g: list(teams) for g, teams in prompting._name_table("lsa_v1", "worldcup-2026").groups}


@pytest.mark.parametrize("access", prompting.TEMPLATE_ACCESS)
@pytest.mark.parametrize("strategy", prompting.TEMPLATE_STRATEGIES)
@pytest.mark.parametrize("event", [make_event(), knockout_event()], ids=["group", "knockout"])
def test_lsa_v1_match_prompt_is_appendix_f(appendix, access, strategy, event):
    prompt = match_prompt(world_cup(), event, access, strategy, LSA)
    expected = " ".join(match_blocks(appendix, access, strategy))
    assert norm(prompt.text) == norm(fill(expected, fixture_values(event, table_8(appendix))))
    raw = (REPO_ROOT / "collector/forecasters/llm/prompts/lsa_v1/wc2026_v1.txt").read_bytes()
    assert prompt.template_id == "lsa_v1/wc2026_v1" and prompt.template_sha256 == hashlib.sha256(raw).hexdigest()


def test_lsa_v1_match_repair_prompt_is_appendix_f5_without_a_fixture_block(appendix):
    event = make_event()
    text = match_repair_prompt(world_cup(), event, ["missing field draw_90_prob"], '{"home_win_90_prob": 0.5}', LSA)
    template = cut(appendix, "at most one repair call", "Your previous response", "<ORIGINAL_RESPONSE>")
    expected = fill(template, {"VALIDATION_ERROR": "missing field draw_90_prob",
                               "MATCH_RESPONSE_SCHEMA_ABOVE": match_schema(appendix),
                               "ORIGINAL_RESPONSE": '{"home_win_90_prob": 0.5}'})
    assert norm(text) == norm(expected)
    assert "Mexico City" not in text and "Match:" not in text
    # the current set keeps its fixture block in the repair prompt
    assert "Home/listed first team: Mexico" in match_repair_prompt(world_cup(), event, ["x"], "{}")


def question_blocks(appendix: str, question, names: dict[str, list[str]], fixtures, access, strategy) -> str:
    after = "Tournament-Question Prompt"
    start = appendix.index(after)
    rest = appendix[start:]
    header = (cut(rest, "Closed-book prompt component", "Access condition: CLOSED_BOOK.", "tournament-tree outputs.")
              if access is Access.CLOSED_BOOK else
              cut(rest, "Open-book prompt component", "Access condition: OPEN_BOOK.", "football reasoning."))
    strat = (cut(rest, "Score-first prompt component", "Prompt strategy: DIRECT_SCORE.", "overstate certainty.")
             if strategy is Strategy.DIRECT_SCORE else
             cut(rest, "Probabilistic forecast prompt component", "Prompt strategy: PROBABILISTIC_FORECAST.",
                 "overstate certainty."))
    shown = prompting._question_table("lsa_v1", "worldcup-2026")[question.id]
    block = cut(rest, "Runtime question and context template", "Special question:", "not the player name.>")
    block = block.replace("<OPTIONAL: Group: GROUP_NAME>", f"Group: {question.group}" if question.group else "")
    block = block.replace("<OPTIONAL: Required number of final picks: K>",
                          f"Required number of final picks: {question.k}" if question.k > 1 else "")
    block = re.sub(r"<TOP_SCORER_ONLY: (.*?)>", r"\1" if question.id == "top_scorer_team" else "", block)
    block = fill(block, {"QUESTION_ID": shown["id"], "QUESTION_LABEL": shown["label"],
                         "QUESTION_MEANING": shown["meaning"], "SINGLE_CHOICE_OR_MULTI_CHOICE_FIXED_K":
                         question.prediction_type.value})
    ids = world_cup_groups()
    name_of = {tid: n for g in ids for tid, n in zip(ids[g], names[g], strict=True)}
    ordered = [name_of[t] for g in ids for t in ids[g] if t in question.candidates]
    candidates = "Valid candidates: " + " ".join(f"- {n}" for n in ordered)
    assert cut(rest, "Runtime question and context template", "Valid candidates:", "- <...>") == \
        "Valid candidates: - <EXACT_CANDIDATE_TEAM_NAME> - <...>"
    context = cut(rest, "Probabilistic forecast prompt component", "Allowed static context:", "<...> Official")
    group_template = "Group <GROUP_NAME>: <TEAM_1>, <TEAM_2>, <TEAM_3>, <TEAM_4>"
    assert group_template in context
    groups = " ".join(f"Group {g}: " + ", ".join(names[g]) for g in names)
    fixture_template = cut(rest, "Official fixture data:", "<UTC_DATE>", "<OPTIONAL_VENUE>")
    assert fixture_template == "<UTC_DATE> | <STAGE> | <OPTIONAL_GROUP> | <HOME_TEAM> vs <AWAY_TEAM> | <OPTIONAL_VENUE>"
    lines = [" | ".join([e.kickoff_utc.strftime("%Y-%m-%dT%H:%M:%SZ"), "Group stage", f"Group {e.group}",
                         f"{name_of[e.home_team]} vs {name_of[e.away_team]}", e.venue]) for e in fixtures]
    context = (f"Allowed static context: Tournament edition: {world_cup().edition} Groups: {groups} "
               f"Official fixture data: {' '.join(lines)}")
    if question.k == 1:
        schema = cut(rest, "Required one-team JSON schema", "Required JSON schema:", "during validation.")
        schema = fill(schema, {"QUESTION_ID": shown["id"]})
    else:
        schema = cut(rest, "Valid candidates:", 'Required JSON schema: { "question_id": "semifinalists"',
                     "during validation.")
    preamble = cut(appendix, "Common tournament prompt preamble", "You are forecasting", "STAGE_OPENING forecasts.")
    return " ".join([preamble, header, strat, block, candidates, context, schema])


@pytest.mark.parametrize("qid", ["group_winner_k", "semifinalists", "world_champion", "top_scorer_team"])
@pytest.mark.parametrize("access,strategy", [(Access.CLOSED_BOOK, Strategy.DIRECT_SCORE),
                                             (Access.OPEN_BOOK, Strategy.PROBABILISTIC_FORECAST)])
def test_lsa_v1_question_prompts_are_appendix_f_with_table_8(appendix, qid, access, strategy):
    c = world_cup()
    first = make_event()
    fixtures = [first, make_event(id="kor-v-cze", home_team="kor", away_team="cze", venue="Guadalajara",
                                  kickoff_utc=first.kickoff_utc + timedelta(hours=6))]
    [question] = [q for q in questions_for(c, fixtures, T0, Clock.REPLAY) if q.id == qid]
    text = question_prompt(c, question, fixtures, access, strategy, LSA).text
    names = table_8(appendix)
    assert len(names) == 12 and all(len(v) == 4 for v in names.values())
    assert norm(text) == norm(question_blocks(appendix, question, names, fixtures, access, strategy))
    assert "must sum to 4" not in text  # Appendix F has no sum-to-k line
    if qid == "semifinalists":
        assert "must sum to 4" in question_prompt(c, question, fixtures, access, strategy).text  # prematch_v1


def test_prematch_v1_keeps_its_templates_and_hashes():
    c, event = world_cup(), make_event()
    old = match_prompt(c, event, Access.CLOSED_BOOK, Strategy.DIRECT_SCORE)
    new = match_prompt(c, event, Access.CLOSED_BOOK, Strategy.DIRECT_SCORE, LSA)
    raw = (REPO_ROOT / "collector/forecasters/llm/prompts/wc2026_v1.txt").read_bytes()
    assert old.template_id == "wc2026_v1" and old.template_sha256 == hashlib.sha256(raw).hexdigest()
    assert new.template_id != old.template_id and new.template_sha256 != old.template_sha256
    assert "Date UTC: 2026-06-11 19:00 UTC" in old.text and "Date UTC: 2026-06-11T19:00:00Z" in new.text


def test_table_8_names_validate_to_the_same_team_ids():
    c = world_cup()
    [question] = [q for q in questions_for(c, [make_event()], T0, Clock.REPLAY) if q.id == "group_winner_k"]
    names = prompting.prompt_names(c, LSA)
    answer = ('{"choices": [' + ", ".join(f'{{"team": "{names[t]}", "probability": 0.25}}' for t in question.candidates)
              + f'], "final_pick": "{names["cod"]}", "reasoning_summary": "x"}}')
    checked = validate_question(answer, question, c, names=names)
    assert checked.ok and checked.payload.final_picks == ("cod",)
    assert names["cod"] == "Congo DR" and c.team("cod").name == "DR Congo"  # display name differs, id does not


def semifinal_answer(c, question, probability: float, picks: int = 4) -> str:
    teams = question.candidates
    choices = ", ".join(f'{{"team": "{c.team(t).name}", "probability": {probability}}}' for t in teams)
    final = ", ".join(f'"{c.team(t).name}"' for t in teams[:picks])
    return f'{{"choices": [{choices}], "final_picks": [{final}], "reasoning_summary": "x"}}'


def test_fixed_k_sums_are_audited_not_enforced_under_lsa_v1():
    c = world_cup()
    [question] = [q for q in questions_for(c, [make_event()], T0, Clock.REPLAY) if q.id == "semifinalists"]
    answer = semifinal_answer(c, question, 0.25)  # 48 x 0.25 = 12, the largest sum of Fig. 11
    enforced = validate_question(answer, question, c)
    assert enforced.status is ForecastStatus.INVALID_SUM and enforced.original_sums["choices"] == pytest.approx(12)
    audited = validate_question(answer, question, c, enforce_fixed_k_sum=False)
    assert audited.status is ForecastStatus.VALID and not audited.normalized
    assert audited.original_sums["choices"] == pytest.approx(12)
    assert audited.diagnostics["sum_audit"] == pytest.approx(8)
    assert all(ch.probability == 0.25 for ch in audited.payload.choices)  # kept as stated
    zero = validate_question(semifinal_answer(c, question, 0.0), question, c, enforce_fixed_k_sum=False)
    assert zero.ok and zero.diagnostics["sum_audit"] == pytest.approx(-4)
    # other rules still hold: exactly k picks
    assert not validate_question(semifinal_answer(c, question, 0.1, picks=3), question, c,
                                 enforce_fixed_k_sum=False).ok


def test_original_sums_describe_an_answer_rejected_for_another_reason():
    c = world_cup()
    [question] = [q for q in questions_for(c, [make_event()], T0, Clock.REPLAY) if q.id == "semifinalists"]
    checked = validate_question(semifinal_answer(c, question, 0.2, picks=2), question, c)
    assert not checked.ok and checked.original_sums["choices"] == pytest.approx(48 * 0.2)


def test_lsa_v1_for_a_league_keeps_the_competitions_names():
    from collector.competitions import load_competition

    epl = load_competition("en-1-2025-26", T0)
    event = make_event(competition_id=epl.id, id="liverpool-fc-v-afc-bournemouth", stage="regular-season",
                       group=None, matchday=1, home_team="liverpool-fc", away_team="afc-bournemouth")
    text = match_prompt(epl, event, Access.CLOSED_BOOK, Strategy.DIRECT_SCORE, LSA).text
    assert "Home/listed first team: Liverpool FC" in text and "Stage: Regular season, Matchday 1" in text
    [question] = [q for q in questions_for(epl, [event], T0, Clock.REPLAY)][:1]
    prompt = question_prompt(epl, question, [event], Access.OPEN_BOOK, Strategy.PROBABILISTIC_FORECAST, LSA)
    assert f"question_id: {question.id}" in prompt.text and "Teams: " in prompt.text
    assert prompt.template_id == "lsa_v1/wc2026_special_v1"
