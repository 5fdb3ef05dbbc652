"""Prompts: Appendix F blocks in order, hashes, generalisation, and no outcome information."""

from __future__ import annotations

import hashlib
import inspect
from datetime import timedelta

import pytest

from collector.competitions import load_competition
from collector.config import load_config, parse_config
from collector.errors import ConfigError
from collector.fixtures.questions import questions_for
from collector.forecasters.llm import prompting
from collector.forecasters.llm.prompting import (
    load_template,
    match_prompt,
    question_prompt,
)
from collector.records import Access, Clock, Strategy
from tests.collection_helpers import (
    KICKOFF,
    T0,
    knockout_event,
    make_event,
    make_question,
    world_cup,
)
from tests.conftest import REPO_ROOT


def test_match_prompt_blocks_in_appendix_f_order_with_runtime_values():
    p = match_prompt(world_cup(), make_event(), Access.CLOSED_BOOK, Strategy.DIRECT_SCORE)
    order = ["You are forecasting a football match", "Access condition: CLOSED_BOOK.",
             "Prompt strategy: DIRECT_SCORE.", "Definitions:", "Match:\nSport: football / soccer",
             "JSON schema:"]  # fmt: skip
    positions = [p.text.index(s) for s in order]
    assert positions == sorted(positions)
    for line in ["Competition: FIFA World Cup 2026", "Tournament edition: 2026", "Stage: Group stage, Group A",
                 "Date UTC: 2026-06-11 19:00 UTC", "Home/listed first team: Mexico",
                 "Away/listed second team: South Africa", "Venue: Mexico City", "Is knockout match: no"]:  # fmt: skip
        assert line in p.text
    assert "<" not in p.text.replace("<=", "")  # every placeholder filled
    raw = (REPO_ROOT / "collector/forecasters/llm/prompts/wc2026_v1.txt").read_bytes()
    assert p.template_id == "wc2026_v1" and p.template_sha256 == hashlib.sha256(raw).hexdigest()
    assert p.prompt_sha256 == hashlib.sha256(p.text.encode()).hexdigest()


def test_each_condition_changes_only_its_block():
    texts = {(a, s): match_prompt(world_cup(), make_event(), a, s).text
             for a in prompting.TEMPLATE_ACCESS for s in prompting.TEMPLATE_STRATEGIES}
    assert len(set(texts.values())) == 4
    assert "web-search tool" in texts[(Access.OPEN_BOOK, Strategy.PROBABILISTIC_FORECAST)]
    assert "Do not use internet search" in texts[(Access.CLOSED_BOOK, Strategy.PROBABILISTIC_FORECAST)]
    assert "Estimate calibrated 90-minute" in texts[(Access.OPEN_BOOK, Strategy.PROBABILISTIC_FORECAST)]


def test_knockout_flag_and_league_matchday_are_generalised():
    assert "Is knockout match: yes" in match_prompt(world_cup(), knockout_event(), Access.OPEN_BOOK,
                                                    Strategy.DIRECT_SCORE).text  # fmt: skip
    epl = load_competition("en-1-2025-26", T0)
    event = make_event(competition_id=epl.id, id="liverpool-fc-v-afc-bournemouth", stage="regular-season",
                       group=None, matchday=1, home_team="liverpool-fc", away_team="afc-bournemouth")  # fmt: skip
    text = match_prompt(epl, event, Access.CLOSED_BOOK, Strategy.DIRECT_SCORE).text
    assert "Competition: English Premier League 2025/26" in text
    assert "Stage: Regular season, Matchday 1" in text and "Home/listed first team: Liverpool FC" in text


def test_prompt_builders_take_no_outcomes_and_prompts_ignore_what_happened():
    for builder in (match_prompt, question_prompt):
        params = inspect.signature(builder).parameters
        assert not any("outcome" in name or "result" in name or "history" in name for name in params)
    event = make_event()
    before = match_prompt(world_cup(), event, Access.CLOSED_BOOK, Strategy.DIRECT_SCORE)
    later = event.model_copy(update={"recorded_at": T0 + timedelta(days=30)})
    assert match_prompt(world_cup(), later, Access.CLOSED_BOOK, Strategy.DIRECT_SCORE).text == before.text


def test_question_prompt_lists_exact_candidates_groups_and_fixtures():
    q = make_question()
    fixtures = [make_event(), make_event(id="kor-v-cze", home_team="kor", away_team="cze",
                                         kickoff_utc=KICKOFF + timedelta(hours=7))]  # fmt: skip
    p = question_prompt(world_cup(), q, fixtures, Access.CLOSED_BOOK, Strategy.PROBABILISTIC_FORECAST)
    assert p.template_id == "wc2026_special_v1"
    assert "Valid candidates:\n- Mexico\n- South Africa\n- South Korea\n- Czech Republic" in p.text
    assert "Group A: Mexico, South Africa, South Korea, Czech Republic" in p.text
    assert "2026-06-11 19:00 UTC | Group stage | Group A | Mexico vs South Africa | Mexico City" in p.text
    assert "question_id: group_winner_a" in p.text and '"final_pick"' in p.text
    assert "You are forecasting 2026 FIFA World Cup" not in p.text  # edition not doubled
    assert "You are forecasting FIFA World Cup 2026 tournament outcomes" in p.text


def test_tournament_and_league_questions():
    c = world_cup()
    events = [make_event()]
    qs = {q.id: q for q in questions_for(c, events, T0, Clock.LIVE)}
    assert len(qs) == 15 and qs["semifinalists"].k == 4 and len(qs["world_champion"].candidates) == 48
    assert qs["group_winner_l"].candidates == next(g.teams for g in c.groups if g.name == "L")
    assert all(q.closes_at == KICKOFF for q in qs.values())
    assert questions_for(c, events, KICKOFF, Clock.LIVE) == []  # not after the first kickoff
    epl = load_competition("en-1-2025-26", T0)
    league = {q.id: q for q in questions_for(epl, [make_event(competition_id=epl.id)], T0, Clock.LIVE)}
    assert set(league) == {"champion", "top_four", "relegation"} and league["relegation"].k == 3


def test_shipped_config_loads_and_bad_keys_are_named(tmp_path):
    config = load_config(REPO_ROOT / "prematch.toml")
    assert {f.id for f in config.forecasters} >= {"uniform", "base_rate", "elo", "dixon_coles", "ensemble"}
    assert all(f.version for f in config.forecasters if f.type == "llm")
    with pytest.raises(ConfigError, match="arena.concurrency"):
        parse_config({"arena": {"competitions": ["worldcup-2026"], "concurrency": 0}}, "x.toml")
    with pytest.raises(ConfigError, match=r"forecasters\.0"):
        parse_config({"arena": {"competitions": ["x"]}, "forecasters": [{"id": "m", "type": "llm"}]}, "x.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[arena\n")
    with pytest.raises(ConfigError, match="bad.toml: not valid TOML"):
        load_config(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")


def test_template_blocks_exist_for_every_condition():
    for template in (prompting.MATCH_TEMPLATE, prompting.QUESTION_TEMPLATE):
        blocks = load_template(template).blocks
        assert ({f"access.{a.value}" for a in prompting.TEMPLATE_ACCESS}
                | {f"strategy.{s.value}" for s in prompting.TEMPLATE_STRATEGIES}) <= set(blocks)
        assert "repair" in blocks


def test_a_date_only_kickoff_is_given_as_its_date_in_both_prompt_sets():
    event = make_event().model_copy(update={"kickoff_utc": None, "kickoff_source": "1990-06-23"})
    event = event.model_copy(update={"kickoff_date": event.kickoff_date.replace(year=1990, month=6, day=23)})
    assert prompting.utc_label(event) == prompting.utc_label(event, iso=True) == "1990-06-23, time not known"
    p = match_prompt(world_cup(), event, Access.CLOSED_BOOK, Strategy.DIRECT_SCORE)
    assert "1990-06-23, time not known" in p.text and "unknown" not in p.text.lower().replace("time not known", "")
