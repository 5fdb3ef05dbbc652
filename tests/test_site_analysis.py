"""The analysis page: the papers' tables, robustness, families and adjusted scores, linked from the nav."""

from __future__ import annotations

import html
import re

import pytest

from builder.site.build import build_site
from tests.factories import synthetic_records, write_records


def text_of(page: bytes) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page.decode())))


@pytest.mark.slow
def test_analysis_page_shows_every_section(tmp_path):
    write_records(tmp_path / "archive", synthetic_records(n_events=24, n_models=3, knockout_from=18, seed=4))
    build_site(tmp_path / "archive", tmp_path / "site", commit="abc", progress=lambda _: None)
    page = (tmp_path / "site" / "analysis" / "index.html").read_bytes()
    text = text_of(page)
    for heading in ("LLM-SoccerArena Table 2", "WorldCupArena Table 2", "Prophet Arena Table 2",
                    "Robustness (LLM-SoccerArena C.3), live records", "Ensemble and stage Holm families",
                    "Brier (difficulty-adjusted): two-way fixed effects", "5 equal-frequency bins", "Which paper each measure follows"):
        assert heading in text, heading
    assert "Lead time within 1350-1530 min" in text and "Access x strategy interaction" in text
    assert "ensemble/t_minus_24h" in text and "scoreline_wca" in text
    assert 'href="../analysis/index.html"' in (tmp_path / "site" / "charts" / "index.html").read_text()
    assert 'href="analysis/index.html"' in (tmp_path / "site" / "index.html").read_text()
