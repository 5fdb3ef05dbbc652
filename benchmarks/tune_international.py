"""Choose baseline hyper-parameters on tournaments played BEFORE 2026 (never on the 2026 World Cup).

Scores each candidate setting by mean three-class Brier (90 minutes; results.csv scores
include extra time for the few knockout draws, a small bias shared by all candidates) on
World Cups 2014-2022, Euros 2016-2024, Copa América 2016-2024, AFCON and Asian Cups 2019-2024,
fitting only on rows dated strictly before each match day.

    python benchmarks/tune_international.py [--data-dir ../shared/data]   # several minutes

Results on this machine (721 matches; lower is better): Dixon-Coles xi 0.001/day, friendlies
at half weight and a weak prior (shrink 0.1) scored 0.567-0.568, xi 0.0019 0.572, xi 0.0035
0.585, shrink 3 0.585; Elo K x1, home advantage 60-100, rho -0.1 scored 0.572, K x2 0.579.
Scaling the rate differences (over/under-confidence) by 0.8-1.3 never beat 1.0.
"""

from __future__ import annotations

import argparse
import itertools
import time
from datetime import date

import numpy as np

from collector.forecasters.baselines import dixon_coles as dc
from collector.forecasters.baselines.elo import (
    HOME_ADVANTAGE,
    RHO,
    WINDOW_YEARS,
    elo_history,
    fit_goal_model,
)
from collector.forecasters.baselines.results import parse_results_csv, read_data_text
from collector.forecasters.baselines.scoregrid import outcome_probabilities, score_grid

TOURNAMENTS = {"FIFA World Cup": (2014, 2018, 2022), "UEFA Euro": (2016, 2021, 2024),
               "Copa América": (2016, 2019, 2021, 2024), "African Cup of Nations": (2019, 2022, 2024),
               "AFC Asian Cup": (2019, 2024)}


def evaluation_rows(text: str) -> list[tuple[date, str, str, int, int, bool]]:
    import csv
    import io

    from collector.forecasters.baselines.results import canonical

    rows = []
    for r in csv.DictReader(io.StringIO(text)):
        years = TOURNAMENTS.get(r["tournament"], ())
        if r["home_score"] in ("", "NA") or int(r["date"][:4]) not in years:
            continue
        rows.append((date.fromisoformat(r["date"]), canonical(r["home_team"]), canonical(r["away_team"]),
                     int(r["home_score"]), int(r["away_score"]), r["neutral"] == "TRUE"))
    return rows


def brier(p: np.ndarray, hg: int, ag: int) -> float:
    y = np.array([hg > ag, hg == ag, hg < ag], dtype=float)
    return float(((p - y) ** 2).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/data", help="folder laid out like ../shared/data")
    args = parser.parse_args()
    text = read_data_text(args.data_dir, "international-results/results.csv")
    table = parse_results_csv(text)
    idx = table.index()
    rows = evaluation_rows(text)
    print(f"{len(rows)} tournament matches for tuning")
    days = sorted({r[0] for r in rows})
    started = time.perf_counter()
    for xi, friendly, shrink in itertools.product((0.0005, 0.001, 0.0019), (0.5, 1.0), (0.1, 3.0)):
        fits = {d: dc.fit_dixon_coles(table, d, xi=xi, friendly_weight=friendly, shrink=shrink, sweeps=30)
                for d in days}
        scores = []
        for d, h, a, hg, ag, neutral in rows:
            f = fits[d]
            lh, la = f.rates(idx[h], idx[a], 0 if neutral else 1)
            scores.append(brier(np.array(outcome_probabilities(f.grid(lh, la))), hg, ag))
        print(f"dixon_coles xi={xi} friendly_weight={friendly} shrink={shrink}: Brier {np.mean(scores):.4f}", flush=True)
    for home_adv, k_scale, rho in itertools.product((60.0, 100.0), (1.0, 1.5), (0.0, -0.1)):
        history = elo_history(table, home_adv, k_scale)
        scores = []
        for d, h, a, hg, ag, neutral in rows:
            ga, gb, _ = fit_goal_model(history, d, 4.0)
            rh, _ = history.rating(idx[h], d)
            ra, _ = history.rating(idx[a], d)
            x = (rh - ra + (0 if neutral else home_adv)) / 400.0
            grid = score_grid(np.exp(ga + gb * x), np.exp(ga - gb * x), rho)
            scores.append(brier(np.array(outcome_probabilities(grid)), hg, ag))
        print(f"elo home={home_adv} k_scale={k_scale} rho={rho}: Brier {np.mean(scores):.4f}", flush=True)
    print(f"chosen: dixon_coles xi={dc.XI} friendly_weight={dc.FRIENDLY_WEIGHT} shrink={dc.SHRINK}; "
          f"elo home={HOME_ADVANTAGE} window={WINDOW_YEARS} rho={RHO}")
    print(f"elapsed {time.perf_counter() - started:.1f}s")


if __name__ == "__main__":
    main()
