"""How good are the built-in baselines? Per baseline and horizon: Brier, log loss, RPS, accuracy, exact score.

Scores every finished match of the 2026 World Cup and of the played part of the 2025-26
Premier League, forecast at each horizon with only what was knowable then (metrics from
``builder.score.metrics``: unscaled three-class Brier of the 90-minute result, log loss, ranked
probability score, modal accuracy with tie credit, exact-score rate). By default the tasks
come from the quick backtest (``collector.forecasters.baselines.backtest``: T-24h, T-2h and stage
opening as 48 h before the stage's first kickoff); ``--replay`` instead runs the real
scheduler replay of the World Cup (timed) and scores the forecasts in its archive.

``--competition ID`` (repeatable) scores those competitions instead, all in one table with a
competition column; ``--competition past`` means every past tournament of the shared data
(World Cups 1990, 2014, 2018, Euro 2020, Club World Cup 2025) and the 2026 World Cup. The past
tournaments' definitions are derived from their files by ``define-competition``'s generator
into a temporary folder (never committed).

    python benchmarks/baseline_quality.py --data-dir ../shared/data [--replay DIR]
    python benchmarks/baseline_quality.py --data-dir ../shared/data --competition past
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from builder.score.metrics import (
    accuracy_hda,
    brier_score_hda,
    exact_scoreline,
    log_loss_hda,
    result_class,
    rps_hda,
)
from collector.forecasters.baselines import BASELINES, build_baseline
from collector.forecasters.baselines.backtest import played_matches, tasks

TARGET = 0.50  # best baseline at T-24h on the World Cup (closing market in LLM-SoccerArena: 0.498)


def backtest_rows(competition_id: str, data_dir) -> list[tuple[str, str, np.ndarray, tuple[int, int], tuple[int, int]]]:
    """(baseline, horizon, probabilities, predicted score, real score) for every match and horizon."""
    competition, played = played_matches(competition_id, data_dir)
    real = {p.event.id: p.outcome.score_90.as_tuple() for p in played}
    forecasters = [build_baseline(name, data_dir) for name in BASELINES]
    rows = []
    for task in tasks(competition, played):
        for forecaster in forecasters:
            payload = forecaster.forecast_now(task).payload
            rows.append((forecaster.id, task.horizon.value, np.array(payload.probabilities_90()),
                         payload.most_likely_score_90.as_tuple(), real[task.event.id]))
    return rows


def replay_rows(out: Path, data_dir) -> tuple[list, float, int]:
    """Run the real replay of the World Cup into ``out``, then read back its forecasts and outcomes."""
    from collector.archive.reader import load_archive
    from collector.schedule.replay import replay

    started = time.perf_counter()
    summary = replay("worldcup-2026", out, data_dir, progress=lambda line: None)
    elapsed = time.perf_counter() - started
    archive = load_archive(out / "archive")
    rows = []
    for f in archive.forecasts:
        outcome = archive.outcomes.get((f.competition_id, f.target_id))
        if f.target_kind != "match" or not f.scorable or outcome is None or outcome.score_90 is None:
            continue
        rows.append((f.forecaster, f.horizon.value, np.array(f.payload.probabilities_90()),
                     f.payload.most_likely_score_90.as_tuple(), outcome.score_90.as_tuple()))
    return rows, elapsed, summary.ticks


def report(title: str, rows) -> dict[tuple[str, str], float]:
    groups = defaultdict(list)
    for name, horizon, p, pred, real in rows:
        groups[(name, horizon)].append((p, pred, real))
    print(f"\n{title}")
    print(f"{'baseline':<12} {'horizon':<14} {'n':>4} {'Brier':>7} {'logloss':>8} {'RPS':>7} {'acc':>6} {'exact':>6}")
    briers = {}
    for (name, horizon), items in sorted(groups.items()):
        p = np.stack([i[0] for i in items])
        pred = np.array([i[1] for i in items])
        real = np.array([i[2] for i in items])
        y = result_class(real[:, 0], real[:, 1])
        briers[(name, horizon)] = float(brier_score_hda(p, y).mean())
        print(f"{name:<12} {horizon:<14} {len(items):>4} {briers[(name, horizon)]:>7.4f} "
              f"{log_loss_hda(p, y).mean():>8.4f} {rps_hda(p, y).mean():>7.4f} {accuracy_hda(p, y).mean():>6.3f} "
              f"{exact_scoreline(pred[:, 0], pred[:, 1], real[:, 0], real[:, 1]).mean():>6.3f}")
    return briers


PAST = {  # id: (openfootball file, time zone of kickoff times without offset)
    "worldcup-1990": ("openfootball/worldcup-1990/worldcup.json", None),
    "worldcup-2014": ("openfootball/worldcup-2014/worldcup.json", None),
    "worldcup-2018": ("openfootball/worldcup-2018/worldcup.json", None),
    "euro-2020": ("openfootball/euro-2020/euro.json", "Europe/Berlin"),
    "clubworldcup-2025": ("openfootball/clubworldcup-2025/clubworldcup.json", "America/New_York"),
}


def define_past(folder: Path, data_dir: Path, ids: list[str]) -> None:
    """Write the definitions of the past tournaments among ``ids`` into ``folder`` (generated, not committed)."""
    from collector.competitions.toml_out import dumps
    from collector.datasource import DataSource
    from collector.sources.derive import derive_definition

    for cid in ids:
        if cid in PAST:
            file, zone = PAST[cid]
            derived = derive_definition(cid, DataSource(data_dir), file, time_zone=zone)
            (folder / f"{cid}.toml").write_text(dumps(derived.definition), encoding="utf-8")


def competition_table(ids: list[str], data_dir: Path) -> None:
    """One table: competition, baseline, horizon, n, Brier, log loss, RPS (backtest)."""
    import tempfile

    from collector.competitions.loader import definitions_dir

    with tempfile.TemporaryDirectory() as tmp, definitions_dir(Path(tmp)):
        define_past(Path(tmp), data_dir, ids)
        print(f"{'competition':<18} {'baseline':<12} {'horizon':<14} {'n':>4} {'Brier':>7} {'logloss':>8} {'RPS':>7}")
        for cid in ids:
            groups = defaultdict(list)
            for name, horizon, p, _, real in backtest_rows(cid, data_dir):
                groups[(name, horizon)].append((p, real))
            for (name, horizon), items in sorted(groups.items()):
                p = np.stack([i[0] for i in items])
                real = np.array([i[1] for i in items])
                y = result_class(real[:, 0], real[:, 1])
                print(f"{cid:<18} {name:<12} {horizon:<14} {len(items):>4} {brier_score_hda(p, y).mean():>7.4f} "
                      f"{log_loss_hda(p, y).mean():>8.4f} {rps_hda(p, y).mean():>7.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"), help="folder laid out like ../shared/data")
    parser.add_argument("--replay", type=Path, default=None, help="run the real World Cup replay into this new folder")
    parser.add_argument("--competition", action="append", default=[], metavar="ID",
                        help="score these competitions in one table (repeatable; 'past' = every past tournament "
                             "of the shared data and worldcup-2026)")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.competition:
        ids = [c for arg in args.competition for c in ([*PAST, "worldcup-2026"] if arg == "past" else [arg])]
        competition_table(list(dict.fromkeys(ids)), args.data_dir)
        print(f"\ntotal {time.perf_counter() - started:.1f}s")
        return
    if args.replay is not None:
        rows, elapsed, ticks = replay_rows(args.replay, args.data_dir)
        briers = report(f"World Cup 2026, real replay ({ticks} ticks in {elapsed:.1f}s)", rows)
    else:
        briers = report("World Cup 2026 (backtest)", backtest_rows("worldcup-2026", args.data_dir))
    best = min((b, name) for (name, horizon), b in briers.items() if horizon == "t_minus_24h")
    verdict = "met" if best[0] <= TARGET else "NOT met"
    print(f"best at T-24h: {best[1]} Brier {best[0]:.4f} (target <= {TARGET}: {verdict})")
    report("Premier League 2025-26, played part (backtest)", backtest_rows("en-1-2025-26", args.data_dir))
    print(f"\ntotal {time.perf_counter() - started:.1f}s")


if __name__ == "__main__":
    main()
