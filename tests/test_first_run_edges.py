"""A newcomer's first mistakes get an answer that helps: an empty archive does not build a silent empty
site, a mistyped command or configuration key gets a "did you mean", and a long value in a message is
shortened at a word boundary with an ellipsis."""

from __future__ import annotations

import pytest

from builder.cli import main as builder_main
from collector.cli import main
from collector.config import parse_config
from collector.errors import ConfigError, shortened


@pytest.mark.parametrize("content", [None, "not a record"])
def test_building_an_archive_without_records_warns_in_one_line_and_exits_1(tmp_path, capsys, content):
    archive = tmp_path / "archive"
    archive.mkdir()
    if content is not None:  # a record-less archive: a file that is no valid record
        (archive / "worldcup-2026").mkdir()
        (archive / "worldcup-2026" / "competition.r000.json").write_text(content)
    assert builder_main(["build", "--archive", str(archive), "--out", str(tmp_path / "site"), "--quiet"]) == 1
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and str(archive) in warnings[0] and "--allow-empty" in warnings[0]
    assert (tmp_path / "site" / "index.html").exists()  # built all the same: the warning says what it is


def test_allow_empty_builds_an_empty_archive_without_a_warning(tmp_path, capsys):
    archive = tmp_path / "archive"
    archive.mkdir()
    assert builder_main(["build", "--archive", str(archive), "--out", str(tmp_path / "site"), "--quiet",
                         "--allow-empty"]) == 0
    assert "warning:" not in capsys.readouterr().err


@pytest.mark.parametrize(("entry", "typed", "meant"), [(main, "tik", "tick"), (main, "verfy", "verify"),
                                                       (main, "define-competiton", "define-competition"),
                                                       (builder_main, "biuld", "build")])
def test_a_mistyped_command_gets_did_you_mean_in_one_line(entry, typed, meant, capsys):
    assert entry([typed, "--archive", "x"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"prematch: unknown command {typed!r} (did you mean {meant!r}?); see prematch --help\n"


def test_a_command_far_from_any_is_left_to_argparse(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["zzzzzz"])
    assert exit_.value.code == 2 and "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize(("data", "hint"), [
    ({"arena": {"competitions": ["worldcup-2026"], "concurency": 3}}, "key concurency: Extra inputs are not "
                                                                      "permitted (did you mean 'concurrency'?)"),
    ({"arena": {"competitions": ["worldcup-2026"]}, "forecasters": [{"id": "elo", "type": "baseline", "enabeld": 1}]},
     "key forecasters.0.enabeld: Extra inputs are not permitted (did you mean 'enabled'?)"),
    ({"arena": {"competitions": ["worldcup-2026"]}, "protocol": {"search": {"max_result": 3}}},
     "(did you mean 'max_results'?)"),
    ({"arena": {"competitions": ["worldcup-2026"]}, "odd": {}},
     "unknown top-level key(s) ['odd'] (did you mean 'odds'?)"),
])  # fmt: skip
def test_a_mistyped_configuration_key_gets_did_you_mean(data, hint):
    with pytest.raises(ConfigError) as info:
        parse_config(data, "arena.toml")
    assert hint in str(info.value) and str(info.value).startswith("arena.toml: ")


def test_an_unknown_key_far_from_any_gets_no_guess():
    with pytest.raises(ConfigError) as info:
        parse_config({"arena": {"competitions": ["worldcup-2026"], "qqqqqq": 1}}, "arena.toml")
    assert "did you mean" not in str(info.value)


def test_a_long_value_in_a_configuration_error_ends_at_a_word_boundary_with_an_ellipsis():
    value = " ".join(["closed_book"] * 12)
    with pytest.raises(ConfigError) as info:
        parse_config({"arena": {"competitions": ["worldcup-2026"], "access": [value]}}, "arena.toml")
    shown = str(info.value).split("(value ", 1)[1].removesuffix(")")
    assert shown.endswith("closed_book…") and len(shown) <= 80  # whole words, then the ellipsis
    assert repr(value).startswith(shown.removesuffix("…"))


@pytest.mark.parametrize(("text", "limit", "expected"), [
    ("short", 80, "short"),
    ("alpha beta gamma delta", 16, "alpha beta…"),
    ("worldcup-2026/events/mex-v-rsa/forecasts/elo", 30, "worldcup-2026/events/mex-v-…"),
    ("x" * 50, 20, "x" * 19 + "…"),  # no boundary: cut at the limit
])
def test_shortened_cuts_at_a_boundary(text, limit, expected):
    assert shortened(text, limit) == expected
    assert len(shortened(text, limit)) <= limit
