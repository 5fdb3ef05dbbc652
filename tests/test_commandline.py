"""The conventions every command follows.

Exit 0 when done, 1 when problems were found, 2 when used wrongly (a wrong folder is one line
on stderr); each problem is one ``problem: PATH: MESSAGE`` line on stderr; one time parser
(offset required, ``Z`` accepted, a bare date is 00:00 UTC); one ``--clock`` rule; one rule
for what an archive folder is.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from datetime import UTC, datetime

import orjson
import pytest

import collector.commands.schema as schema_command
from builder.cli import main as builder_main
from collector.archive.folder import check_archive_dir
from collector.cli import build_parser, main
from collector.commandline import finish, parse_utc_instant, resolve_clock
from collector.errors import PrematchError, Problem, ProblemsFound, UsageError
from collector.records import Clock
from tests.conftest import REPO_ROOT
from tests.factories import make_competition, make_event, make_outcome, write_records
from tests.gitrepo import GitRepo, at, event, forecast

# -- one time parser -----------------------------------------------------------------------


def test_an_instant_with_an_offset_is_converted_to_utc():
    assert parse_utc_instant("2026-06-14T02:00+02:00") == datetime(2026, 6, 14, 0, 0, tzinfo=UTC)
    assert parse_utc_instant("2026-06-14T00:00Z") == datetime(2026, 6, 14, 0, 0, tzinfo=UTC)
    assert parse_utc_instant("2026-06-14T00:00Z").utcoffset().total_seconds() == 0


def test_a_bare_date_is_midnight_utc():
    assert parse_utc_instant("2026-08-01") == datetime(2026, 8, 1, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize("command", ["replay", "demo"])
@pytest.mark.parametrize(("value", "message"), [
    ("2026-06-14T00:00", "needs a UTC offset"), ("tomorrow", "is not an ISO 8601 timestamp"),
])  # fmt: skip
def test_until_without_an_offset_or_unparseable_is_refused(command, value, message, tmp_path, capsys):
    argv = [command, "worldcup-2026"] if command == "replay" else [command]
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--out", str(tmp_path / "x"), "--until", value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --until" in err and message in err and not (tmp_path / "x").exists()


@pytest.mark.parametrize("argv", [["sync", "--competition", "worldcup-2026"], ["tick"]])
def test_now_without_an_offset_is_refused_and_nothing_is_written(argv, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--archive", str(tmp_path / "archive"), "--now", "2026-06-14T12:00"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --now" in err and "needs a UTC offset" in err and not (tmp_path / "archive").exists()


@pytest.mark.parametrize("argv", [["sync", "--competition", "worldcup-2026"], ["tick"]])
def test_now_takes_a_bare_date_or_an_instant(argv):
    args = build_parser().parse_args([*argv, "--now", "2026-08-01"])
    assert args.now == datetime(2026, 8, 1, tzinfo=UTC)
    args = build_parser().parse_args([*argv, "--now", "2026-08-01T14:00+02:00"])
    assert args.now == datetime(2026, 8, 1, 12, tzinfo=UTC)


# -- one --clock rule ----------------------------------------------------------------------


@pytest.mark.parametrize("argv", [["sync", "--competition", "worldcup-2026"], ["tick"]])
@pytest.mark.parametrize(("options", "clock"), [
    ([], Clock.LIVE),  # the current time: a live run
    (["--now", "2026-06-14T12:00Z"], Clock.REPLAY),  # an earlier moment: a replay
    (["--now", "2026-06-14T12:00Z", "--clock", "live"], Clock.LIVE),  # the scheduled workflow
    (["--clock", "replay"], Clock.REPLAY),
])  # fmt: skip
def test_clock_is_replay_when_now_is_given_unless_told(argv, options, clock):
    assert resolve_clock(build_parser().parse_args([*argv, *options])) is clock


def test_sync_with_now_marks_its_records_replay_unless_clock_live(data_dir, tmp_path, capsys):
    archive = tmp_path / "archive"
    assert main(["sync", "--competition", "worldcup-2026", "--now", "2026-06-12", "--archive", str(archive),
                 "--data-dir", str(data_dir)]) == 0
    assert "worldcup-2026 @ 2026-06-12T00:00:00+00:00 (replay): " in capsys.readouterr().out
    records = [orjson.loads(p.read_bytes()) for p in archive.rglob("*.json")]
    assert records and {r["clock"] for r in records} == {"replay"}


# -- one shape of run result ---------------------------------------------------------------


@dataclass
class _Report:
    lines: list[str]
    problems: list[Problem] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        return self.lines


def test_finish_prints_the_summary_on_stdout_and_each_problem_on_stderr(capsys):
    assert finish(_Report(["all done"])) == 0
    assert capsys.readouterr() == ("all done\n", "")
    report = _Report(["2 files"], [Problem("a/b.json", "does not validate"), Problem("c.json", "missing")])
    assert finish(report) == 1
    assert capsys.readouterr() == ("2 files\n", "problem: a/b.json: does not validate\nproblem: c.json: missing\n")
    assert finish(report, fail_on_problems=False) == 0  # a reader without --strict: reported, not failed
    assert capsys.readouterr().err.count("problem: ") == 2
    assert finish(report, quiet_summary=True) == 1  # the command printed JSON itself
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(("error", "code", "err"), [
    (UsageError("--x: not a folder"), 2, "prematch schema: --x: not a folder\n"),
    (ProblemsFound([Problem("odds.csv", "row 3: no price"), Problem("odds.csv", "row 9: no date")]), 1,
     "problem: odds.csv: row 3: no price\nproblem: odds.csv: row 9: no date\n"),
    (PrematchError("git is not installed"), 1, "problem: git is not installed\n"),
])  # fmt: skip
def test_errors_raised_by_a_command_become_its_exit_code_and_stderr(error, code, err, monkeypatch, capsys):
    def run(args: argparse.Namespace) -> int:
        raise error

    monkeypatch.setattr(schema_command, "run", run)
    assert main(["schema"]) == code
    assert capsys.readouterr() == ("", err)


# -- one rule for an archive folder --------------------------------------------------------


def _archive(root):
    event = make_event()
    write_records(root, [make_competition(), event, make_outcome(event, 2, 1)])
    (root / "schema").mkdir()
    (root / "manifests").mkdir()
    return root


def test_an_archive_folder_holds_competition_folders_manifests_and_schema(tmp_path):
    check_archive_dir(_archive(tmp_path / "archive"))
    (tmp_path / "empty").mkdir()
    check_archive_dir(tmp_path / "empty")  # an empty archive
    (tmp_path / "archive" / ".editor").mkdir()  # hidden entries aside
    (tmp_path / "archive" / ".DS_Store").write_text("")
    check_archive_dir(tmp_path / "archive")
    check_archive_dir(tmp_path / "new", may_be_missing=True)  # sync, tick and schema create it
    with pytest.raises(UsageError, match="no such archive folder"):
        check_archive_dir(tmp_path / "new")


@pytest.mark.parametrize(("inside", "message", "hint"), [
    ("", "it holds .git, pyproject.toml, archive, like a repository", "did you mean --archive {root}/archive?"),
    ("archive/worldcup-2026", "it holds the file(s) competition.r000.json", "did you mean --archive {root}/archive?"),
    ("archive/schema", "it holds the file(s) event.schema.json", "did you mean --archive {root}/archive?"),
    ("archive/worldcup-2026/events", "mex-v-rsa/ is not a competition folder", None),
])  # fmt: skip
def test_a_folder_that_is_not_an_archive_is_refused_with_a_hint(tmp_path, inside, message, hint):
    root = tmp_path / "repo"
    _archive(root / "archive")
    (root / "archive" / "schema" / "event.schema.json").write_text("{}\n")
    (root / ".git").mkdir()
    (root / "pyproject.toml").write_text("")
    with pytest.raises(UsageError) as refused:
        check_archive_dir(root / inside if inside else root)
    text = str(refused.value)
    assert message in text and "\n" not in text
    assert (hint.format(root=root) in text) if hint else "did you mean" not in text


def test_a_file_or_a_stray_folder_at_the_top_is_refused(tmp_path):
    archive = _archive(tmp_path / "archive")
    (archive / "notes").mkdir()
    (archive / "notes" / "todo.txt").write_text("x")
    with pytest.raises(UsageError, match=r"notes/ is not a competition folder"):
        check_archive_dir(archive)
    with pytest.raises(UsageError, match="not a folder"):
        check_archive_dir(archive / "worldcup-2026" / "competition.r000.json")


def test_a_competition_folder_another_tick_is_writing_its_first_record_into_is_accepted(tmp_path):
    """Two ticks on a fresh archive: one has made the folder and its record's temporary file but
    not linked the record yet when the other checks the archive (a race CI once hit)."""
    archive = tmp_path / "archive"
    (archive / "worldcup-2026").mkdir(parents=True)
    (archive / "worldcup-2026" / ".competition.r000.json.host~1~2~ab12cd34.tmp").write_text("{")
    check_archive_dir(archive)
    (archive / "worldcup-2026" / "notes.txt").write_text("x")  # a visible stranger still is one
    with pytest.raises(UsageError, match=r"worldcup-2026/ is not a competition folder"):
        check_archive_dir(archive)


ARCHIVE_COMMANDS = [
    (main, ["status"]),
    (main, ["status", "--json"]),
    (main, ["schema"]),
    (main, ["sync", "--competition", "worldcup-2026"]),
    (main, ["tick"]),
    (builder_main, ["score"]),
    (builder_main, ["score", "--json"]),
    (builder_main, ["build", "--out", "{tmp}/site"]),
]


@pytest.mark.parametrize(("entry", "argv"), ARCHIVE_COMMANDS)
def test_every_command_refuses_the_repository_root_as_archive_in_one_line(entry, argv, tmp_path, capsys):
    before = sorted(p.name for p in REPO_ROOT.iterdir())
    argv = [a.format(tmp=tmp_path) for a in argv]
    assert entry([*argv, "--archive", str(REPO_ROOT)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.endswith(f"did you mean --archive {REPO_ROOT / 'archive'}?\n")
    assert sorted(p.name for p in REPO_ROOT.iterdir()) == before and not (tmp_path / "site").exists()


@pytest.mark.parametrize(("entry", "argv"), [c for c in ARCHIVE_COMMANDS if c[1][0] in ("status", "score", "build")])
def test_a_reader_given_a_missing_archive_folder_says_so_in_one_line(entry, argv, tmp_path, capsys):
    argv = [a.format(tmp=tmp_path) for a in argv]
    assert entry([*argv, "--archive", str(tmp_path / "nowhere")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.endswith(f": {tmp_path / 'nowhere'}: no such archive folder\n")
    assert captured.err.count("\n") == 1


def test_a_missing_data_folder_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["sync", "--competition", "worldcup-2026", "--archive", str(tmp_path / "a"),
              "--data-dir", str(tmp_path / "no-data")])
    assert exit_.value.code == 2
    assert "argument --data-dir" in capsys.readouterr().err and not (tmp_path / "a").exists()


def test_every_option_has_help_text():
    for parser in (build_parser(), __import__("builder.cli", fromlist=["build_parser"]).build_parser()):
        [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for name, command in sub.choices.items():
            for action in command._actions:
                assert action.help, f"{parser.prog} {name} {action.option_strings or action.dest}"


# -- every command: done, problems, misuse --------------------------------------------------


def test_status_done_problems_and_json(tmp_path, capsys):
    archive = _archive(tmp_path / "archive")
    assert main(["status", "--archive", str(archive)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("1 competitions, 1 events, 1 outcomes, 0 forecasts\n") and err == ""
    bad = archive / "worldcup-2026" / "events" / "esp-v-usa" / "event.r000.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("{not json")
    assert main(["status", "--archive", str(archive)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("1 competitions") and err.startswith("problem: worldcup-2026/events/esp-v-usa/event.r000.json: ")
    assert main(["status", "--archive", str(archive), "--json"]) == 1
    out, err = capsys.readouterr()
    document = orjson.loads(out)
    assert list(document) == ["competitions", "events", "outcomes", "forecasts", "by_competition", "problems"]
    assert document["by_competition"]["worldcup-2026"]["events"] == {"total": 1, "scheduled": 1}
    assert [line.removeprefix("problem: ") for line in err.splitlines()] == document["problems"]


def test_schema_done_and_into_a_new_folder(tmp_path, capsys):
    assert main(["schema", "--archive", str(tmp_path / "archive")]) == 0
    assert capsys.readouterr().out.startswith("wrote ") and (tmp_path / "archive/schema/event.schema.json").exists()
    assert main(["schema", "--archive", str(tmp_path / "archive")]) == 0  # its own schema/ is part of an archive


def test_build_reports_left_out_files_as_problems_and_fails_only_when_strict(tmp_path, capsys):
    archive = _archive(tmp_path / "archive")
    bad = archive / "worldcup-2026" / "events" / "esp-v-usa" / "event.r000.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("{not json")
    assert builder_main(["build", "--archive", str(archive), "--out", str(tmp_path / "site"), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "1 left out with problems" in out and "esp-v-usa" not in out
    assert err.startswith("problem: worldcup-2026/events/esp-v-usa/event.r000.json: ") and err.count("\n") == 1
    assert builder_main(["build", "--archive", str(archive), "--out", str(tmp_path / "site"), "--strict"]) == 1


def test_build_refuses_a_worker_count_that_is_not_a_number_before_any_work(tmp_path, capsys, monkeypatch):
    archive = _archive(tmp_path / "archive")
    monkeypatch.setenv("PREMATCH_BUILD_WORKERS", "two")
    assert builder_main(["build", "--archive", str(archive), "--out", str(tmp_path / "site")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "PREMATCH_BUILD_WORKERS='two'" in err and err.count("\n") == 1
    assert not (tmp_path / "site").exists()


def test_build_refuses_to_replace_a_folder_it_did_not_write_in_one_line(tmp_path, capsys):
    archive = _archive(tmp_path / "archive")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.txt").write_text("keep me")
    assert builder_main(["build", "--archive", str(archive), "--out", str(tmp_path / "docs")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "refusing to replace it" in err
    assert (tmp_path / "docs" / "notes.txt").read_text() == "keep me"


def test_tick_with_a_bad_configuration_is_a_usage_error(tmp_path, capsys):
    config = tmp_path / "arena.toml"
    config.write_text("[arena]\nnot_a_key = 1\n")
    assert main(["tick", "--config", str(config), "--archive", str(tmp_path / "archive")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("prematch tick: ") and str(config) in err


def test_replay_with_an_unknown_baseline_is_a_usage_error(tmp_path, capsys):
    assert main(["replay", "worldcup-2026", "--out", str(tmp_path / "r"), "--baselines", "elo,oracle"]) == 2
    assert capsys.readouterr().err == (
        "prematch replay: --baselines: unknown oracle (known: uniform, base_rate, elo, dixon_coles, ensemble, squad_form)\n"
    )
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("command", ["verify", "guard"])
def test_verify_and_guard_want_the_top_folder_of_a_git_repository(command, tmp_path, capsys):
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event(), forecast("elo"))
    extra = ["--base", "main"] if command == "guard" else []
    assert main([command, "--repo", str(repo.root), *extra]) == 0  # done
    capsys.readouterr()
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main([command, "--repo", str(plain), *extra]) == 2
    assert capsys.readouterr() == ("", f"prematch {command}: {plain}: not a git repository\n")
    assert main([command, "--repo", str(repo.archive), *extra]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and f"did you mean --repo {repo.root}?" in err
    assert main([command, "--repo", str(repo.root), "--archive-path", "no-such-folder", *extra]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "no folder no-such-folder/" in err


def test_verify_reports_each_violation_as_a_problem_and_keeps_notes_in_the_summary(tmp_path, capsys):
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event(), forecast("elo"))
    (repo.archive / "worldcup-2026" / "events" / "mex-v-rsa" / "event.r000.json").unlink()
    repo.commit(at(2), "remove an event")
    assert main(["verify", "--repo", str(repo.root)]) == 1
    out, err = capsys.readouterr()
    assert "VIOLATIONS: 1 (deleted 1)" in out and "What this proves" in out
    assert err.startswith("problem: worldcup-2026/events/mex-v-rsa/event.r000.json: deleted: ") and err.count("\n") == 1


def test_one_set_of_unshown_characters_for_terminals_and_pages():
    """Every character of the one set is escaped on a terminal line and removed from a page's
    rationale text, but tab and newline, which a rationale keeps."""
    import re

    from builder.site.rationale import clean_text
    from collector.commandline import UNSHOWN, one_line

    members = [chr(c) for c in range(0x3000) if re.fullmatch(f"[{UNSHOWN}]", chr(c))]
    assert {"\x00", "\x1b", "\x7f", "\x85", "\u2028", "\u202e", "\u2066"} <= set(members)
    for ch in members:
        assert ch not in one_line(f"a{ch}b")
        assert clean_text(f"a{ch}b") == (f"a{ch}b" if ch in "\t\n" else "ab")
    assert clean_text("plain ünïcode ✓") == "plain ünïcode ✓" == one_line("plain ünïcode ✓")
