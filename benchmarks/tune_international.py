"""Choose baseline hyper-parameters on tournaments played BEFORE 2026 (never on the 2026 World Cup).

Scores each candidate setting by mean three-class Brier (90 minutes; results.csv scores
include extra time for the few knockout draws, a small bias shared by all candidates) on
World Cups 2014-2022, Euros 2016-2024, Copa América 2016-2024, AFCON and Asian Cups 2019-2024,
fitting only on rows dated strictly before each match day.

    python benchmarks/tune_international.py [--data-dir ../shared/data]
"""

from __future__ import annotations

import argparse
import itertools
import time
from datetime import date

import numpy as np

from collector.baselines import dixon_coles as dc
from collector.baselines.elo import elo_history, fit_goal_model
from collector.baselines.results import EPOCH, international_results, parse_results_csv, read_data_text
from collector.baselines.scoregrid import outcome_probabilities, score_grid

TOURNAMENTS = {"FIFA World Cup": (2014, 2018, 2022), "UEFA Euro": (2016, 2021, 2024),
               "Copa América": (2016, 2019, 2021, 2024), "African Cup of Nations": (2019, 2022, 2024),
               "AFC Asian Cup": (2019, 2024)}


def evaluation_rows(text: str) -> list[tuple[date, str, str, int, int, bool]]:
    import csv
    import io

    from collector.baselines.results import canonical

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
    for xi, window, shrink in itertools.product((0.0010, 0.0019, 0.0035), (4.0, 6.0, 10.0), (1.0, 3.0, 8.0)):
        fits = {d: dc.fit_dixon_coles(table, d, xi=xi, window_years=window, shrink=shrink) for d in days}
        scores = []
        for d, h, a, hg, ag, neutral in rows:
            f = fits[d]
            lh, la = f.rates(idx[h], idx[a], 0 if neutral else 1)
            scores.append(brier(np.array(outcome_probabilities(f.grid(lh, la))), hg, ag))
        print(f"dixon_coles xi={xi} window={window} shrink={shrink}: Brier {np.mean(scores):.4f}")
    for home_adv, window, rho in itertools.product((60.0, 100.0), (4.0, 8.0), (0.0, -0.05, -0.1)):
        history = elo_history(table, home_adv)
        scores = []
        for d, h, a, hg, ag, neutral in rows:
            ga, gb, _ = fit_goal_model(history, d, window)
            rh, _ = history.rating(idx[h], d)
            ra, _ = history.rating(idx[a], d)
            x = (rh - ra + (0 if neutral else home_adv)) / 400.0
            grid = score_grid(np.exp(ga + gb * x), np.exp(ga - gb * x), rho)
            scores.append(brier(np.array(outcome_probabilities(grid)), hg, ag))
        print(f"elo home={home_adv} window={window} rho={rho}: Brier {np.mean(scores):.4f}")
    print(f"elapsed {time.perf_counter() - started:.1f}s")


if __name__ == "__main__":
    main()
