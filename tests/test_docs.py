"""The documentation: a short README, a site MkDocs builds with --strict (no broken link or anchor),
reference pages that are the code's own (generated, and failing here when they drift), and one
methodology text shared with every arena's Method page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from builder.score.definitions import REGISTRY_ENTRIES
from collector import console
from tools import docs_reference
from tools.mkdocs_hooks import METHOD_MARK

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def test_the_readme_is_short_and_its_links_lead_to_files():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert "docs/quickstart.md" in targets and "docs/leaderboard.png" in targets
    missing = [t for t in targets if not t.startswith("https://") and not (ROOT / t).exists()]
    assert missing == []


@pytest.mark.parametrize("page", sorted(docs_reference.PAGES))
def test_each_reference_page_is_what_the_code_makes(page):
    committed = (docs_reference.REFERENCE / page).read_text(encoding="utf-8")
    assert committed == docs_reference.PAGES[page](), (
        f"docs/reference/{page} differs from the code it documents: run `python -m tools.docs_reference`")


def _keys(table: dict, prefix: str) -> set[str]:
    """Every ``table.key`` of a parsed TOML document (arrays of tables by their own name)."""
    found = set()
    for key, value in table.items():
        name = f"{prefix}.{key}" if prefix else key
        items = value if isinstance(value, list) and value and all(isinstance(v, dict) for v in value) else [value]
        for item in items:
            if isinstance(item, dict) and key not in ("sport_keys", "api_football_leagues", "options"):
                found |= _keys(item, name)
            else:
                found.add(name)
    return found


def _sections(page: str) -> dict[str, str]:
    """A reference page's sections: heading text (backticks and brackets removed) -> its body."""
    parts = re.split(r"^## (.+)$", page, flags=re.M)
    return {re.sub(r"[`\[\]]", "", head): body for head, body in zip(parts[1::2], parts[2::2], strict=True)}


def test_every_key_of_the_example_configuration_is_in_the_reference_under_its_table():
    example = tomllib.loads((ROOT / "prematch.toml").read_text(encoding="utf-8"))
    sections = _sections((DOCS / "reference" / "configuration.md").read_text(encoding="utf-8"))
    missing = []
    for name in sorted(_keys(example, "")):
        table, _, key = name.rpartition(".")
        if f"| `{key}` |" not in sections.get(table, ""):
            missing.append(name)
    assert missing == []
    assert "| `source_path` |" not in "".join(sections.values())  # set by the loader, not a key


def test_every_option_of_every_command_is_in_the_command_reference():
    sections = _sections((DOCS / "reference" / "cli.md").read_text(encoding="utf-8"))
    parser = console.build_parser()
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices
    assert set(sections) == {f"prematch {name}" for name in commands}
    for name, command in commands.items():
        usage = command.format_usage()
        options = set(re.findall(r"\[(--[a-z][a-z0-9-]*)", usage)) | set(re.findall(r" (--[a-z][a-z0-9-]*)", usage))
        documented = set(re.findall(r"`(--[a-z][a-z0-9-]*)`", sections[f"prematch {name}"]))
        assert options - {"--help"} <= documented, name


def test_the_methodology_has_one_source():
    assert (DOCS / "methodology.md").read_text(encoding="utf-8").strip() == METHOD_MARK


def test_the_documentation_site_builds_strict_with_the_arena_method_page(tmp_path):
    out = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr
    method = (out / "methodology" / "index.html").read_text(encoding="utf-8")
    assert METHOD_MARK not in method and "Matched events" in method
    assert all(m.label.replace("&", "&amp;") in method for m in REGISTRY_ENTRIES)
    for page in ("quickstart", "run-your-own-arena", "reference/configuration", "reference/cli", "reference/records",
                 "verify", "data", "develop", "performance"):
        assert (out / page / "index.html").is_file(), page
