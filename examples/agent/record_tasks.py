"""Write endpoint-check's recorded tasks (collector/forecasters/endpoint_tasks/) from a replay's archive.

The replay must have had an endpoint forecaster (the reference agent) under closed_book and
evidence_package, probabilistic_forecast and direct_score, until the first knockout's stage-opening
forecasts. Each recorded file is the task as sent and the event or question it asks about; the
repair task is the group match's task with the repair prompt a tick sends after an invalid answer.

    python examples/agent/record_tasks.py REPLAY/archive AGENT_ID
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from collector.archive.reader import load_archive
from collector.forecasters.llm.prompting import match_repair_prompt, prompt_set

OUT = Path(__file__).resolve().parents[2] / "collector" / "forecasters" / "endpoint_tasks"
KINDS = {  # name -> (target_kind, access, strategy, knockout or question kind)
    "match_group_probabilistic": ("match", "closed_book", "probabilistic_forecast", False),
    "match_group_direct_score": ("match", "closed_book", "direct_score", False),
    "match_knockout": ("match", "closed_book", "probabilistic_forecast", True),
    "match_evidence_package": ("match", "evidence_package", "probabilistic_forecast", False),
    "question_single_choice": ("question", "closed_book", "probabilistic_forecast", "single_choice"),
    "question_fixed_k": ("question", "closed_book", "probabilistic_forecast", "multi_choice_fixed_k"),
}


def _fits(archive, forecast, want) -> bool:
    kind, access, strategy, extra = want
    if (forecast.target_kind, forecast.access.value, forecast.strategy.value) != (kind, access, strategy):
        return False
    if kind == "match":
        return archive.events[(forecast.competition_id, forecast.target_id)].knockout is extra
    return archive.questions[(forecast.competition_id, forecast.target_id)].prediction_type.value == extra


def main(archive_dir: str, agent: str) -> int:
    archive = load_archive(archive_dir)
    mine = [f for f in archive.forecasts if f.forecaster == agent and f.attempts]
    OUT.mkdir(parents=True, exist_ok=True)
    for name, want in KINDS.items():
        forecast = next(f for f in mine if _fits(archive, f, want))
        key = (forecast.competition_id, forecast.target_id)
        target = archive.events.get(key) if forecast.target_kind == "match" else archive.questions.get(key)
        data = {"task": forecast.attempts[0].request_body, forecast.target_kind if forecast.target_kind == "question"
                else "event": target.model_dump(mode="json")}
        (OUT / f"{name}.json").write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
        if name == "match_group_probabilistic":
            competition = archive.competitions[forecast.competition_id]
            errors = ["field draw_90_prob = 1.4 is outside [0, 1]"]
            previous = '{"home_win_90_prob": 0.3, "draw_90_prob": 1.4, "away_win_90_prob": 0.3}'
            prompt = match_repair_prompt(competition, target, errors, previous, prompt_set())
            repair = {**data, "task": {**data["task"], "role": "repair", "prompt": prompt}}
            (OUT / "repair_round.json").write_bytes(orjson.dumps(repair, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    print(f"wrote {len(KINDS) + 1} recorded tasks to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
