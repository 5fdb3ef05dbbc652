"""What the arena's LLM forecasts cost: list prices x the protocol's token and search limits.

Per forecast of one model with prompt price ``p`` and completion price ``c`` (USD per million
tokens, from the models API):

    closed book = (IN * p + OUT * c) / 1e6
    open book   = closed book + (EXTRA_IN * p + EXTRA_OUT * c) / 1e6 + searches * price_per_search

``IN = 1,500`` and ``OUT = 700`` tokens are the size of Prematch's match prompt and answer;
``EXTRA_IN = 22,306`` and ``EXTRA_OUT = 885`` are LLM-SoccerArena's measured open-book
averages (Section 4, with the same 3-per-search / 6-in-total limits), and the search is billed
per search request (OpenRouter's current web-search price) for the searches it takes to fetch
``max_total_results`` at ``max_results`` each (2 under the defaults). A match asks every LLM for
every (access, strategy, horizon) cell; a question for every (access, strategy) at stage
opening. Reasoning tokens, retries and repair calls come on top.
"""

from __future__ import annotations

from dataclasses import dataclass

from collector.config import ArenaConfig
from collector.forecasters.llm.models_api import ModelInfo
from collector.records import Access, Horizon

IN, OUT = 1_500, 700
EXTRA_IN, EXTRA_OUT = 22_306, 885
MATCH_DAYS = (  # (label, matches)
    ("World Cup group-stage day (4 matches)", 4),
    ("World Cup group-stage day (6 matches)", 6),
    ("Premier League matchday", 10),
    ("all five leagues on one weekend", 48),
    ("2026 World Cup, 104 matches", 104),
)
WORLD_CUP_QUESTIONS = 15


@dataclass(frozen=True)
class ModelCost:
    forecaster: str
    closed: float | None  # USD per closed-book forecast; None when prices are unknown
    open: float | None


def searches(search) -> int:
    """The search requests it takes to fetch ``max_total_results`` at ``max_results`` a search, within ``max_tool_calls``."""
    return min(search.max_tool_calls, -(-search.max_total_results // search.max_results))


def model_costs(config: ArenaConfig, models: dict[str, ModelInfo]) -> list[ModelCost]:
    search = config.protocol.search
    out = []
    for cfg in config.enabled_forecasters():
        if cfg.type != "llm":
            continue
        info = models.get(cfg.model)
        p = info.prompt_per_mtok if info else None
        c = info.completion_per_mtok if info else None
        if (p is None or c is None) and cfg.prices is not None:
            p, c = cfg.prices.prompt_per_mtok, cfg.prices.completion_per_mtok
        if p is None or c is None:
            out.append(ModelCost(cfg.id, None, None))
            continue
        closed = (IN * p + OUT * c) / 1e6
        opened = closed + (EXTRA_IN * p + EXTRA_OUT * c) / 1e6 + searches(search) * search.price_per_search_usd
        out.append(ModelCost(cfg.id, closed, opened))
    return out


def cells(config: ArenaConfig, cfg_id: str, question: bool = False) -> dict[Access, int]:
    """Forecasts per target and access condition for one forecaster."""
    cfg = next(f for f in config.forecasters if f.id == cfg_id)
    horizons = 1 if question else len([h for h in config.horizons if h is not Horizon.CLOSING])
    per: dict[Access, int] = {}
    for access, _strategy in config.conditions_for(cfg):
        per[access] = per.get(access, 0) + horizons
    return per


def per_target(config: ArenaConfig, costs: list[ModelCost], question: bool = False) -> tuple[int, float]:
    """(LLM forecasts, USD) of one match (or one question) over every priced model."""
    n, usd = 0, 0.0
    for m in costs:
        if m.closed is None:
            continue
        for access, count in cells(config, m.forecaster, question).items():
            n += count
            usd += count * (m.open if access is Access.OPEN_BOOK else m.closed)
    return n, usd
