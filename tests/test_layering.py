"""The layering of the pipeline, as declared in pyproject.toml's import-linter contracts.

Data flows one way (sources -> fixtures -> forecasters -> schedule -> audit; the builder reads
only the contract and the archive). ``lint-imports`` checks the contracts; these tests run it on
the real tree, on a copy with one upward import added (it must fail and name it), and check
that no module imports itself through a loop, deferred imports included.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).with_name("lint-imports")


def lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([str(LINT), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_layer_contracts_hold_on_the_tree():
    done = lint(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def lint_with_added_import(tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on a copy of the tree where ``module`` (a path) gained one import ``line``."""
    for name in ("collector", "builder", "site_templates"):
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / module
    target.write_text(target.read_text() + f"\n{line}\n")
    return lint(tmp_path)


def test_an_upward_import_breaks_the_layer_contract(tmp_path):
    done = lint_with_added_import(tmp_path, "collector/archive/layout.py", "from collector.schedule import tick")
    assert done.returncode != 0
    assert "Pipeline stages import only downwards BROKEN" in done.stdout
    assert "collector.archive.layout -> collector.schedule.tick" in done.stdout


def test_the_builder_importing_a_collector_stage_breaks_its_contract(tmp_path):
    done = lint_with_added_import(tmp_path, "builder/site/fmt.py", "from collector.fixtures import sync")
    assert done.returncode != 0
    assert "never the collector's stages BROKEN" in done.stdout


def test_the_builder_reaching_the_archives_write_side_breaks_its_contract(tmp_path):
    """Directly, and through a read-side module that would import the writer."""
    done = lint_with_added_import(tmp_path, "builder/site/exports.py", "from collector.archive.write import writer")
    assert done.returncode != 0 and "never writes it BROKEN" in done.stdout
    done = lint_with_added_import(tmp_path / "through-reader", "collector/archive/reader.py",
                                  "from collector.archive.write import owner")
    assert done.returncode != 0 and "never writes it BROKEN" in done.stdout


def test_a_second_builder_module_reaching_the_store_breaks_the_one_cache_contract(tmp_path):
    done = lint_with_added_import(tmp_path, "builder/score/memo.py", "from collector.archive.store import Store")
    assert done.returncode != 0 and "one cache module BROKEN" in done.stdout


def test_a_page_calling_the_scoring_stage_breaks_its_contract(tmp_path):
    done = lint_with_added_import(tmp_path, "builder/site/matches.py", "from builder.score import scoring")
    assert done.returncode != 0
    assert "never the scoring internals BROKEN" in done.stdout
    assert "builder.site.matches -> builder.score.scoring" in done.stdout


def strongly_connected(graph: grimp.ImportGraph) -> list[list[str]]:
    """Tarjan's algorithm over the direct imports; components of two or more modules are loops."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph.find_modules_directly_imported_by(module)):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for module in sorted(graph.modules):  # the import chains are far shallower than the recursion limit
        if module not in index:
            visit(module)
    return loops


def test_no_import_loops_anywhere():
    graph = grimp.build_graph("collector", "builder", cache_dir=None)
    assert strongly_connected(graph) == []


def test_the_loop_finder_finds_a_loop():
    graph = grimp.ImportGraph()
    for name in ("a", "a.x", "a.y", "a.z"):
        graph.add_module(name)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.x")
    graph.add_import(importer="a.z", imported="a.x")
    assert strongly_connected(graph) == [["a.x", "a.y"]]


def documented_layout() -> dict[str, str]:
    """The layout tree of docs/develop.md: package path -> its one-line description."""
    text = (REPO / "docs" / "develop.md").read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    entries: dict[str, str] = {}
    parents: list[str] = []
    for line in block.strip("\n").splitlines():
        depth = (len(line) - len(line.lstrip(" "))) // 2
        name, _, description = line.strip().partition("/")
        parents[depth:] = [name]
        entries["/".join(parents)] = description.strip()
    return entries


def code_packages() -> set[str]:
    roots = [REPO / "collector", REPO / "builder", REPO / "site_templates"]
    return {str(init.parent.relative_to(REPO)) for root in roots for init in root.rglob("__init__.py")}


def test_the_documented_layout_matches_the_packages():
    listed = documented_layout()
    assert set(listed) == code_packages()
    assert all(listed.values()), "every package in the tree of docs/develop.md has a one-line description"


def test_every_package_says_what_it_holds():
    for package in code_packages():
        source = (REPO / package / "__init__.py").read_text(encoding="utf-8")
        assert source.lstrip().startswith('"""'), f"{package}/__init__.py has no docstring"


def test_collector_keeps_only_shared_modules_flat():
    flat = sorted(p.stem for p in (REPO / "collector").glob("*.py"))
    assert flat == ["__init__", "__main__", "cli", "commandline", "config", "config_sections", "console", "datasource",
                    "errors", "http", "http_transport"]


def test_the_license_pyproject_declares_is_shipped():
    import tomllib

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["license"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert declared == {"text": "MIT"} and text.startswith("MIT License\n") and "WITHOUT WARRANTY OF ANY KIND" in text
