"""Start-up of ``prematch`` and of ``python -m collector`` / ``python -m builder``: the program's help
imports no command, a chosen command imports only itself, and every command's ``--help`` still works."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import builder.cli
import collector.cli
from collector.commandline import build_parser, command_summaries, summary_parser

PROGRAMS = [  # python -m collector / python -m builder: each package's commands, under the console name
    ("prematch", collector.cli.DESCRIPTION, "collector", collector.cli.COMMANDS, collector.cli.main),
    ("prematch", builder.cli.DESCRIPTION, "builder", builder.cli.COMMANDS, builder.cli.main),
]
EVERY_COMMAND = [(program, name) for program in PROGRAMS for name in program[3]]


def _run(main, argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as stopped:
        main(argv)
    return stopped.value.code, out.getvalue()


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p[2])
def test_the_programs_help_read_from_source_equals_the_help_of_every_imported_command(program):
    prog, description, package, modules, main = program
    assert None not in command_summaries(package, modules)  # every command takes the fast path
    eager = build_parser(prog, description, package, modules).format_help()
    assert summary_parser(prog, description, package, modules).format_help() == eager
    code, shown = _run(main, ["--help"])
    assert code == 0 and shown == eager


@pytest.mark.parametrize("program,name", EVERY_COMMAND, ids=lambda v: v if isinstance(v, str) else v[2])
def test_every_commands_help_still_works(program, name):
    prog, _, _, _, main = program
    registered = name.replace("_", "-")  # modules use underscores, commands hyphens
    code, shown = _run(main, [registered, "--help"])
    assert code == 0
    assert shown.startswith(f"usage: {prog} {registered}")
    assert "show this help message and exit" in shown


def _imported_after(argv: list[str]) -> set[str]:
    script = (
        "import sys, contextlib, io\n"
        "from collector.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    main({argv!r})\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_the_programs_help_and_an_unknown_command_import_no_command_module():
    for argv in (["--help"], ["no-such-command"], []):
        imported = _imported_after(argv)
        assert not [m for m in imported if m.startswith("collector.commands.")], argv
        assert "pydantic" not in imported and "collector.records" not in imported, argv


def test_a_chosen_command_imports_only_its_own_module():
    imported = _imported_after(["verify", "--help"])
    assert {m for m in imported if m.startswith("collector.commands.")} == {"collector.commands.verify"}


def test_a_verify_its_checkpoint_answers_imports_no_record_model_nor_cryptography(tmp_path):
    from tests.test_verify import build_history

    repo = build_history(tmp_path)
    cold = _imported_after(["verify", "--repo", str(repo.root)])  # checks every blob, fills the caches
    assert "collector.records" in cold and "cryptography" in cold
    cached = _imported_after(["verify", "--repo", str(repo.root)])
    assert not [m for m in cached if m.split(".")[0] in ("pydantic", "pydantic_core", "cryptography", "rfc3161_client")]
    assert not [m for m in cached if m.startswith(("collector.records", "collector.audit.checking"))]


def test_prematch_lists_every_command_of_the_collector_and_the_builder_and_runs_each():
    import collector.console

    code, shown = _run(collector.console.main, ["--help"])
    assert code == 0 and shown.startswith("usage: prematch [-h] COMMAND ...")
    listed = re.findall(r"^    ([a-z][a-z0-9-]*)", shown, re.M)
    every = [m.replace("_", "-") for m in collector.cli.COMMANDS + builder.cli.COMMANDS]
    assert listed == every and len(every) == len(set(every))  # no command name is shared by both
    assert shown == collector.console.build_parser().format_help()  # the same text as the commands' own
    for name in every:
        code, usage = _run(collector.console.main, [name, "--help"])
        assert code == 0 and usage.startswith(f"usage: prematch {name}")


@pytest.mark.slow
def test_the_console_command_is_installed_and_is_the_only_one():
    import tomllib

    scripts = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"prematch": "collector.console:main"}
    installed = Path(sys.executable).parent / "prematch"
    if not installed.exists():
        pytest.skip("this environment was installed before the prematch command existed: pip install -e .")
    done = subprocess.run([str(installed), "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "tick" in done.stdout and "build" in done.stdout and "verify" in done.stdout
    wrong = subprocess.run([str(installed), "tick", "--now", "yesterday"], capture_output=True, text=True)
    assert wrong.returncode == 2 and wrong.stderr.startswith("usage: prematch tick")


def test_the_console_help_imports_no_command_module():
    script = ("import sys, contextlib, io\nfrom collector.console import main\n"
              "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n    main(['--help'])\n"
              "print('\\n'.join(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    imported = set(done.stdout.split())
    assert not [m for m in imported if ".commands." in m] and "pydantic" not in imported
