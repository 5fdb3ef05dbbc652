"""Run real ``python -m collector tick`` commands against the local OpenRouter and Polymarket
servers with ``tests/test_binary_markets.py``'s configuration (three binary contracts, one LLM).

    python tests/demo_binary_markets.py OUT_DIR DATA_DIR NOW [NOW ...] [--replay]

writes ``OUT_DIR/arena.toml`` and the archive ``OUT_DIR/archive`` (the README's example). With
``--replay`` the ticks are replays (the price is read from CLOB history, which the server lacks).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fake_markets import FakeMarkets  # noqa: E402
from tests.fake_openrouter import FakeOpenRouter  # noqa: E402
from tests.test_binary_markets import CONFIG, gamma_market  # noqa: E402


def main(argv: list[str]) -> int:
    replay = "--replay" in argv
    out, data_dir, *times = [a for a in argv if a != "--replay"]
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "arena.toml").write_text(CONFIG)
    with FakeMarkets() as pm, FakeOpenRouter(record=False) as llm:
        pm.pm_markets = [gamma_market("mex-beat-rsa", 0.55, 0.53), gamma_market("opener-total-2-5", 0.40, 0.38),
                         gamma_market("spain-wins-wc", 0.12, 0.11)]
        env = dict(os.environ, OPENROUTER_API_KEY="sk-or-demo-key-0000", OPENROUTER_BASE_URL=llm.base_url,
                   POLYMARKET_GAMMA_URL=pm.base_url, POLYMARKET_CLOB_URL=pm.base_url)
        for now in times:
            cmd = [sys.executable, "-m", "collector", "tick", "--now", now, "--config", str(out_dir / "arena.toml"),
                   "--archive", str(out_dir / "archive"), "--data-dir", data_dir] + ([] if replay else ["--clock", "live"])
            print("$ python", " ".join(cmd[1:]), flush=True)
            subprocess.run(cmd, env=env, check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
