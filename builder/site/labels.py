"""Plain-language names of the protocol's words, shared by every page (the raw ids stay in data attributes).

``t_minus_24h`` is shown as "T-24h", ``closed_book`` as "closed book", ``probabilistic_forecast``
as "probabilities first"; an unknown id is shown as it is, with underscores as spaces.
"""

from __future__ import annotations

from builder.score.definitions import label

HORIZON_ORDER = ("stage_opening", "t_minus_24h", "t_minus_2h", "closing")
DEFAULT_HORIZON = "t_minus_24h"  # the leaderboard's default view (LLM-SoccerArena's main horizon)

HORIZONS = {
    "stage_opening": "stage opening",
    "t_minus_24h": "T-24h",
    "t_minus_2h": "T-2h",
    "closing": "closing odds",
    "groups_complete": "after the group stage",
}
ACCESS = {"closed_book": "closed book", "open_book": "open book (web search)",
          "evidence_package": "evidence package (no tools)"}
STRATEGIES = {"probabilistic_forecast": "probabilities first", "direct_score": "scoreline first",
              "fine_grained": "fine-grained"}
MEASURES = {id: label(id) for id in ("brier", "log_loss", "rps", "accuracy", "exact", "points")}
"""How a test's measure is named in sentences: the registry's label (``builder.score.definitions``)."""
FORECASTER_TYPES = {"llm": "LLM", "baseline": "baseline", "market": "market", "ensemble": "ensemble",
                    "endpoint": "outside agent"}


def plain(word: str, table: dict[str, str] | None = None) -> str:
    """``word`` from ``table``, else the id with underscores as spaces."""
    return (table or {}).get(word, word.replace("_", " "))


def horizon_label(horizon: str) -> str:
    return plain(horizon, HORIZONS)


def condition_label(access: str, strategy: str) -> str:
    """"closed book · probabilities first"."""
    return f"{plain(access, ACCESS)} · {plain(strategy, STRATEGIES)}"


def horizon_rank(horizon: str) -> int:
    """Sort position of a horizon: earliest first, unknown ones last."""
    return HORIZON_ORDER.index(horizon) if horizon in HORIZON_ORDER else len(HORIZON_ORDER)


def level_label(level: str) -> str:
    """A factor level of any of the three factors (access, strategy, horizon)."""
    for table in (ACCESS, STRATEGIES, HORIZONS):
        if level in table:
            return table[level]
    return plain(level)
