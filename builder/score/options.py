"""Analysis options: LLM-SoccerArena's choices by default, Prematch's earlier choices on request.

=====================  ==============================  =================================
option                 default (LLM-SoccerArena)        alternative (kept as an option)
=====================  ==============================  =================================
confidence_groups      5 rank groups (App. C.5, Fig.10)  3 (terciles: low / middle / high)
divergence_unit        "nats" (App. C.2, Fig. 5)         "bits"
correlation            "fisher_z": per-outcome r, mean   "pooled": one r over the
                       of atanh(r), back-transformed      concatenated H/D/A vectors
                       (Fig. 5 "Fisher-z mean across
                       H/D/A")
intervals              "studentized" bootstrap-t for     "percentile"
                       means and differences (B.5)
calibration_bins       5 equal-frequency bins on         10 equal-width bins per cell
                       model-averaged forecasts (C.5)    (the per-cell reliability rows
                                                          carry both schemes either way)
=====================  ==============================  =================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class AnalysisOptions:
    confidence_groups: Literal[3, 5] = 5
    divergence_unit: Literal["nats", "bits"] = "nats"
    correlation: Literal["fisher_z", "pooled"] = "fisher_z"
    intervals: Literal["studentized", "percentile"] = "studentized"
    calibration_bins: Literal["equal_frequency", "equal_width"] = "equal_frequency"
    include_leaked: bool = False  # score forecasts the leakage audit flags (left out by default)

    def __post_init__(self) -> None:
        allowed = {"confidence_groups": (3, 5), "divergence_unit": ("nats", "bits"),
                   "correlation": ("fisher_z", "pooled"), "intervals": ("studentized", "percentile"),
                   "calibration_bins": ("equal_frequency", "equal_width")}
        for name, values in allowed.items():
            if getattr(self, name) not in values:
                raise ValueError(f"analysis option {name} = {getattr(self, name)!r}: expected one of {values}")


LSA_DEFAULTS = AnalysisOptions()
PREMATCH_V1 = AnalysisOptions(confidence_groups=3, divergence_unit="bits", correlation="pooled",
                              intervals="percentile", calibration_bins="equal_width")
"""The choices Prematch made before following LLM-SoccerArena by default."""
