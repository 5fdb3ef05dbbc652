"""Data flows one way: the site reads scoring results (builder.score.types), never scoring internals."""

from __future__ import annotations

import ast
from pathlib import Path

SITE = Path(__file__).resolve().parent.parent / "builder" / "site"
RESULT_TYPES = "builder.score.types"
ENTRY_POINTS = {"builder.score.scoring", "builder.score.slices"}  # for the build conductor only
CONDUCTOR = "build.py"


def _score_imports(path: Path) -> set[str]:
    """Every builder.score module ``path`` imports (``from builder.score import x`` counts as x)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            if node.module == "builder.score":
                found |= {f"builder.score.{alias.name}" for alias in node.names}
    return {name for name in found if name == "builder.score" or name.startswith("builder.score.")} - {"builder.score"}


def test_pages_import_only_score_types_and_the_conductor_only_the_entry_points():
    wrong = {}
    for path in sorted(SITE.rglob("*.py")):
        allowed = {RESULT_TYPES} | (ENTRY_POINTS if path.name == CONDUCTOR else set())
        extra = _score_imports(path) - allowed
        if extra:
            wrong[path.relative_to(SITE).as_posix()] = sorted(extra)
    assert wrong == {}
