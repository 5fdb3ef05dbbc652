"""Run one benchmark and write its output into docs/performance.md, as that script's latest run.

    python benchmarks/record.py SCRIPT [ARGUMENTS ...]

e.g. ``python benchmarks/record.py verify_history.py --forecasts 2000``. The script runs as it
would alone (its output is shown as it comes); when it exits 0, the block of docs/performance.md
between ``<!-- latest: SCRIPT -->`` and ``<!-- end: SCRIPT -->`` (added under "Latest runs" the
first time) is replaced by the command, the commit, the machine's cores and load, and the output
word for word. A failed run changes nothing. The rest of the page (earlier measurements) is kept.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "performance.md"
LATEST = "## Latest runs\n"


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    return (done.stdout.strip() or "unknown") + (" with uncommitted changes" if dirty else "")


def block(script: str, arguments: list[str], output: str, when: datetime, commit: str, cores: int,
          load: float) -> str:
    """The page's block of one run."""
    command = " ".join(["python", f"benchmarks/{script}", *arguments])
    fence = "````" if "```" in output else "```"
    return (f"<!-- latest: {script} -->\n### `{script}`\n\n`{command}` at {commit}, "
            f"{when:%Y-%m-%d %H:%M} UTC, {cores} cores, load average {load:.1f} at the start:\n\n"
            f"{fence}text\n{output.rstrip()}\n{fence}\n<!-- end: {script} -->\n")


def replace_block(page: str, script: str, new: str) -> str:
    """``page`` with ``script``'s block replaced by ``new`` (or added at the top of "Latest runs")."""
    start, end = f"<!-- latest: {script} -->\n", f"<!-- end: {script} -->\n"
    if start in page and end in page:
        return page[:page.index(start)] + new + page[page.index(end) + len(end):]
    if LATEST not in page:
        raise SystemExit(f"{PAGE}: no '{LATEST.strip()}' heading to add the run under")
    at = page.index(LATEST) + len(LATEST)
    return page[:at] + "\n" + new + "\n" + page[at:].lstrip("\n")


def main(argv: list[str]) -> int:
    if not argv or not (ROOT / "benchmarks" / argv[0]).is_file() or argv[0] == Path(__file__).name:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    script, arguments = argv[0], argv[1:]
    load = os.getloadavg()[0]
    started = datetime.now(UTC)
    run = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / script), *arguments], cwd=ROOT,
                           stdout=subprocess.PIPE, text=True)
    lines = []
    for line in run.stdout:
        sys.stdout.write(line)
        lines.append(line)
    if run.wait() != 0:
        print(f"{script} exited {run.returncode}: docs/performance.md left as it was", file=sys.stderr)
        return 1
    new = block(script, arguments, "".join(lines), started, _commit(), os.cpu_count() or 1, load)
    PAGE.write_text(replace_block(PAGE.read_text(encoding="utf-8"), script, new), encoding="utf-8")
    print(f"wrote the run into {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
