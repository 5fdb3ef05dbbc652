"""``endpoint-check``: send an agent's URL the recorded tasks of each kind and report every protocol problem."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from collector.commandline import finish
from collector.errors import Problem


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "endpoint-check", help="check an agent's endpoint against the endpoint protocol with recorded tasks",
        description=(
            "POST the recorded tasks of each kind (group and knockout match, probabilistic and direct score, "
            "evidence package, single-choice and fixed-k question, a repair round) to URL and judge each answer "
            "with the arena's own validation. Exit 0: no problem; 1: every problem is one 'problem:' line on "
            "stderr; 2: used wrongly (a URL the arena cannot ask)."
        ),
    )  # fmt: skip
    parser.add_argument("url", metavar="URL", help="the agent's URL: https://..., or http://127.0.0.1:PORT/... locally")
    parser.add_argument("--token-env", default=None,
                        help="name of the environment variable whose value is sent as the bearer token")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds an answer may take, as the forecaster's timeout_s (default 60)")
    return parser


@dataclass
class CheckReport:
    url: str
    sent: int = 0
    problems: list[Problem] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        if self.problems:
            return [f"endpoint-check: {len(self.problems)} problem(s) in the answers of {self.url} to {self.sent} task(s)"]
        return [f"endpoint-check: OK, {self.url} answered {self.sent} task(s) of each kind in the protocol"]


def run(args: argparse.Namespace) -> int:
    from collector.forecasters.endpoint_check import run_check

    sent, problems = run_check(args.url, token_env=args.token_env, timeout_s=args.timeout)
    return finish(CheckReport(args.url, sent, problems))
