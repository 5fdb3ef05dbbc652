"""The evidence_package prompt (collector/forecasters/llm/evidence_prompt.py): the match prompt with the
package in place of the access header's tools, every part named with its source and time."""

from __future__ import annotations

import hashlib
from datetime import date, timedelta

import pytest

from collector.forecasters.llm.evidence_prompt import evidence_match_prompt
from collector.forecasters.llm.prompting import PROMPT_DIR, match_prompt, prompt_set
from collector.records import (
    Access,
    Evidence,
    EvidenceRef,
    Horizon,
    NewsDigest,
    NewsItem,
    PastMatch,
    Provenance,
    Squad,
    Strategy,
    TeamForm,
)
from tests.collection_helpers import make_event, world_cup

EVENT = make_event()
LOCK = EVENT.kickoff_utc - timedelta(hours=24)
SOURCE = Provenance(source="international-results/results.csv", retrieved_at=LOCK)


def package() -> Evidence:
    form = TeamForm(team_id="mex", provenance=SOURCE, form="W", matches=(
        PastMatch(date=date(2026, 6, 4), opponent="serbia", goals_for=2, goals_against=1, venue="home",
                  tournament="Friendly"),))  # fmt: skip
    news = NewsDigest(gatherer="news-gatherer", model="m", requested_items=1, status="ok", items=(
        NewsItem(url="https://news.example.org/x", title="Raúl fit", publisher="Ex", published_at=LOCK - timedelta(hours=2),
                 summary="Back in training <b>today</b>.", retrieved_at=LOCK),))  # fmt: skip
    return Evidence(recorded_at=LOCK, competition_id="worldcup-2026", event_id=EVENT.id, horizon=Horizon.T_MINUS_24H,
                    kickoff_utc=EVENT.kickoff_utc, locks_at=LOCK, home_team="mex", away_team="rsa", form=(form,),
                    squads=(Squad(team_id="rsa", provenance=SOURCE, players=("Ronwen Williams",)),), news=news,
                    notes=("odds: no market source is configured",))  # fmt: skip


REF = EvidenceRef(path="worldcup-2026/events/mex-v-rsa/evidence/t_minus_24h.json", sha256="ab" * 32)


@pytest.mark.parametrize("pset", ["prematch_v1", "lsa_v1"])
def test_the_prompt_holds_every_part_with_its_source_and_the_package_hash(pset):
    prompt = evidence_match_prompt(world_cup(), EVENT, Strategy.DIRECT_SCORE, package(), REF, prompt_set(pset))
    text = prompt.text
    assert "Access condition: EVIDENCE_PACKAGE." in text and "Do not use internet search" in text
    assert REF.sha256 in text and f"frozen {LOCK:%Y-%m-%d %H:%M} UTC" in text
    assert "- 2026-06-04 home v serbia 2-1 (Friendly)" in text and "source international-results/results.csv" in text
    assert "Ronwen Williams" in text and "Note: odds: no market source is configured" in text
    assert f"[{LOCK - timedelta(hours=2):%Y-%m-%d %H:%M} UTC] Raúl fit (Ex, https://news.example.org/x)" in text
    assert "Back in training <b>today</b>." in text  # plain text in a prompt, kept as stated
    closed = match_prompt(world_cup(), EVENT, Access.CLOSED_BOOK, Strategy.DIRECT_SCORE, prompt_set(pset)).text
    assert "web-search" not in text and closed.split("Match:")[1].split("\n\n")[0] in text  # same fixture block


def test_the_template_hash_covers_both_template_files():
    prompt = evidence_match_prompt(world_cup(), EVENT, Strategy.DIRECT_SCORE, package(), REF)
    main = hashlib.sha256((PROMPT_DIR / "wc2026_v1.txt").read_bytes()).hexdigest()
    extra = hashlib.sha256((PROMPT_DIR / "evidence_v1.txt").read_bytes()).hexdigest()
    assert prompt.template_id == "wc2026_v1+evidence_v1"
    assert prompt.template_sha256 == hashlib.sha256(f"{main}+{extra}".encode()).hexdigest()
    assert prompt.prompt_sha256 == hashlib.sha256(prompt.text.encode()).hexdigest()


def test_the_closed_and_open_templates_refuse_the_evidence_condition():
    with pytest.raises(ValueError, match="needs its evidence package"):
        match_prompt(world_cup(), EVENT, Access.EVIDENCE_PACKAGE, Strategy.DIRECT_SCORE)
