"""A forecaster page's questions table stays bounded however many competitions the archive holds."""

from __future__ import annotations

from types import SimpleNamespace

from builder.site.forecasters import questions_table
from builder.site.paging import ROWS_PER_PAGE


def _score(competition: int, question: int) -> SimpleNamespace:
    return SimpleNamespace(competition_id=f"c{competition:03d}", question_id=f"q_{question}", access="closed_book",
                           strategy="probabilistic_forecast", horizon="stage_opening", k=1, answer=("a",),
                           final_picks=("a",), tied=(), measures={"accuracy": 1.0, "brier": 0.1, "log_loss": 0.2})


def test_a_few_questions_are_all_shown():
    table = questions_table([_score(c, q) for c in range(3) for q in range(4)], lambda _cid: {})
    assert table.title == "Tournament questions" and len(table.rows) == 12


def test_past_the_limit_the_first_rows_are_shown_and_the_title_says_where_the_rest_are():
    scores = [_score(c, q) for c in reversed(range(120)) for q in range(5)]  # 600 rows, given in any order
    table = questions_table(scores, lambda _cid: {"a": "Team A"})
    assert len(table.rows) == ROWS_PER_PAGE < len(scores)
    assert f"the first {ROWS_PER_PAGE} of {len(scores)}" in table.title and "data/question_scores.csv" in table.title
    assert table.rows[0][0] == "q 0" and table.rows[0][2] == "Team A"  # sorted by competition and question first
