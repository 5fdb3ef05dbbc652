"""Built-in reference forecasters that need no API key: uniform, base rate, Elo, Dixon-Coles, ensemble.

``build_baseline(name, data_dir)`` is what the scheduler's forecaster factory calls for a
configured baseline; the market baseline lives in :mod:`collector.forecasters.baselines.market`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from collector.errors import ConfigError

BASELINES = ("uniform", "base_rate", "elo", "dixon_coles", "ensemble")
OPT_IN_BASELINES = ("squad_form",)
"""Baselines run only when named (``--baselines`` or a configured forecaster): squad_form answers
the fine_grained strategy (players, events, statistics), a cell the default replay does not have."""


def build_baseline(name: str, data_dir: Path | str | None = None, **options: Any):
    """A configured baseline forecaster by name; options: ``id``, ``seed``, ``simulations``.

    ``market`` takes ``quotes`` (from :func:`collector.forecasters.baselines.market.load_quotes`) and ``method``
    (margin removal per bookmaker before the median across bookmakers; ``proportional`` by default).
    """
    if name.startswith("market_snapshot"):  # "market_snapshot" or "market_snapshot/<margin method>"
        from .market_snapshot import SnapshotMarketForecaster

        method = name.partition("/")[2] or "proportional"
        try:
            return SnapshotMarketForecaster(method=method, id=options.get("id", "market"))
        except ValueError as exc:
            raise ConfigError(f"baseline {name!r}: {exc}") from None
    if name == "market":
        from .market import MarketForecaster

        return MarketForecaster(options.pop("quotes", []), **options)
    from .base_rate import BaseRateForecaster
    from .dixon_coles import DixonColesForecaster
    from .elo import EloForecaster
    from .ensemble import EnsembleForecaster
    from .fine_grained import SquadFormForecaster
    from .uniform import UniformForecaster

    classes = {
        "uniform": UniformForecaster,
        "base_rate": BaseRateForecaster,
        "elo": EloForecaster,
        "dixon_coles": DixonColesForecaster,
        "ensemble": EnsembleForecaster,
        "squad_form": SquadFormForecaster,  # fine-grained (T1-T4), the fine_grained strategy
    }
    if name not in classes:
        raise ConfigError(f"unknown baseline {name!r}: expected one of {', '.join(BASELINES + OPT_IN_BASELINES)}, "
                          "market")
    return classes[name](data_dir, **options)


__all__ = ["BASELINES", "OPT_IN_BASELINES", "build_baseline"]
