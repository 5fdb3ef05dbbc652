"""Each paper table names the information settings as its paper does and keeps only the ones the
paper ran: WorldCupArena's S1 is the evidence package and S2 open book, Prematch's closed book
is labelled as Prematch's own; LLM-SoccerArena's Table 2 is the balanced closed/open-book
aggregation, which an evidence-package arm never enters."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from builder.score.paper_tables import WCA_SETTINGS, paper_tables
from builder.score.scoring import score_archive
from collector.records import Access, Event, Horizon, Strategy
from tests.factories import (
    archive_from_records,
    make_forecast,
    make_payload,
    synthetic_records,
)

ACCESS = (Access.CLOSED_BOOK, Access.OPEN_BOOK)
CELLS = tuple((a, Strategy.PROBABILISTIC_FORECAST, Horizon.T_MINUS_24H) for a in ACCESS)
LLMS = ("llm.model-1", "llm.model-2")


def base_records():
    return synthetic_records(n_events=24, n_models=2, cells=CELLS, market=False, failure_rate=0.0, seed=5,
                             knockout_from=20)


def evidence_arm(records):
    """An evidence-package forecast by each LLM for every match, far from the other arms' forecasts."""
    events = [r for r in records if isinstance(r, Event)]
    return [make_forecast(e, m, make_payload((0.05, 0.1, 0.85), (0, 3)), access=Access.EVIDENCE_PACKAGE)
            for e in events for m in LLMS]


def tables(records):
    rows = score_archive(archive_from_records(records), inference_tests=False).forecasts
    return {t.key: t for t in paper_tables(rows)}, rows


def test_wca_settings_are_the_papers_s1_evidence_package_s2_open_book_and_prematchs_closed_book():
    records = base_records()
    wca = tables(records + evidence_arm(records))[0]["wca_table_2"]
    settings = defaultdict(set)
    for row in wca.rows:
        settings[row[0]].add(row[1])
    for model in LLMS:
        assert settings[model] == {"S1", "S2", "closed book (Prematch)"}
    assert settings["elo"] == {"closed book (Prematch)"}  # the baseline runs closed book only: not S1
    n = {(row[0], row[1]): int(row[2]) for row in wca.rows}
    assert n[("llm.model-1", "S1")] == 24 and WCA_SETTINGS["evidence_package"] == "S1"
    assert "S1 = evidence package" in wca.caption and "S2 = open book" in wca.caption
    assert "closed book (Prematch)" in wca.caption


def test_the_lsa_table_does_not_change_when_an_evidence_package_arm_is_added():
    records = base_records()
    before, rows = tables(records)
    after, with_arm = tables(records + evidence_arm(records))
    assert after["lsa_table_2"] == before["lsa_table_2"]
    # the arm is scored (the WorldCupArena table shows it) and would move a mean over every access level
    assert any(r.access == "evidence_package" for r in with_arm)
    assert len(after["wca_table_2"].rows) > len(before["wca_table_2"].rows)
    brier = defaultdict(list)
    for r in with_arm:
        if r.forecaster == "llm.model-1":
            brier[r.access].append(r.measures["brier"])
    assert np.mean(brier["evidence_package"]) > np.mean(brier["closed_book"]) + 0.1
    assert "evidence-package forecasts are not in the paper's design" in after["lsa_table_2"].caption


def test_lsa_is_the_balanced_closed_open_mean_and_a_match_missing_one_arm_leaves_the_panel():
    records = base_records()
    lsa, rows = tables(records)
    brier = {(r.forecaster, r.access, r.event_id): r.measures["brier"] for r in rows if r.horizon == "t_minus_24h"}
    events = sorted({r.event_id for r in rows})
    by_hand = np.mean([(brier[("llm.model-1", "closed_book", e)] + brier[("llm.model-1", "open_book", e)]) / 2
                       for e in events])
    shown = {row[0]: row for row in lsa["lsa_table_2"].rows}
    assert shown["llm.model-1"][1].startswith(f"{by_hand:.3f} ") and shown["llm.model-1"][-1] == "24"
    assert shown["elo"][-1] == "24"  # closed book only: that one level counts for it
    dropped = events[3]
    fewer = [r for r in records if not (getattr(r, "forecaster", None) == "llm.model-1"
                                        and r.target_id == dropped and r.access is Access.OPEN_BOOK)]
    unbalanced = {row[0]: row for row in tables(fewer)[0]["lsa_table_2"].rows}
    assert unbalanced["llm.model-1"][-1] == "23"  # not averaged from its closed-book forecast alone
    kept = [e for e in events if e != dropped]
    by_hand = np.mean([(brier[("llm.model-2", "closed_book", e)] + brier[("llm.model-2", "open_book", e)]) / 2
                       for e in kept])
    assert unbalanced["llm.model-2"][1].startswith(f"{by_hand:.3f} ")  # the complete panel: 23 matches for all
