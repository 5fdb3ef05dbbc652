"""The smaller hostile inputs of issue 53, each through a real command where one takes it.

Bidi and control characters in any source's text (team and competition names, venues, model
ids) never reach a page; a kickoff outside the competition's plausible span is refused at
ingest (``define-competition``: tests/test_fork_definitions.py); ``-0.0`` is shown as ``0%``;
trailing content after the JSON answer (tests/test_validation.py); a file name with a newline
or an escape sequence cannot split or colour a problem line; configuration values are bounded
(finite numbers, nesting depth, file size, forecasters), each a one-line error.
"""

from __future__ import annotations

import pytest

from builder.site.build import build_site
from builder.site.fmt import number, percent
from collector.archive.reader import load_archive
from collector.cli import main
from collector.records import Competition, Event
from tests.collection_helpers import edited_data, without_results
from tests.factories import write_records
from tests.gitrepo import GitRepo, at, event
from tests.site_archive import site_records

UNSHOWN = "\u202e\u2066\u200f\x1b\x07\x00"


@pytest.mark.slow
def test_bidi_and_control_characters_of_every_source_never_reach_a_page(tmp_path):
    def hostile(record):
        if isinstance(record, Competition):
            teams = tuple(t.model_copy(update={"name": f"\u202e{t.name}\u2066\x1b[31m"}) for t in record.teams)
            return record.model_copy(update={"teams": teams, "name": "Cup\u202e evil\x07"})
        if isinstance(record, Event):
            return record.model_copy(update={"venue": "Stadium\u200f\x1b[2J\u202e"})
        return record

    write_records(tmp_path / "archive", [hostile(r) for r in site_records()])
    (competition,) = load_archive(tmp_path / "archive").competitions.values()
    assert all("\u202e" in t.name for t in competition.teams)  # the archive keeps the raw text
    build_site(tmp_path / "archive", tmp_path / "site", commit="abc123", progress=lambda _: None)
    pages = {p: p.read_text() for p in (tmp_path / "site").rglob("*.html")}
    assert any("<title>" in text and "MEX" in text for text in pages.values())
    for path, text in pages.items():
        assert not any(c in text for c in UNSHOWN), path


@pytest.mark.parametrize("value, shown", [(-0.0, "0%"), (-0.001, "0%"), (0.004, "0%"), (0.5, "50%"), (None, "–")])
def test_a_negative_zero_is_never_shown_with_its_sign(value, shown):
    assert percent(value) == shown


def test_a_negative_zero_number_is_shown_without_its_sign():
    assert number(-0.0) == "0.000" and number(-0.0001) == "0.000" and number(-0.5) == "-0.500"


@pytest.mark.slow
def test_a_hand_edited_negative_zero_is_shown_as_0_percent_on_every_page(tmp_path):
    """A record edited by hand to carry -0.0 probabilities (the contract's ``>= 0`` admits it): the
    match card, the compare table, the consensus and the question cards print "0%", never "-0%"."""
    import json

    write_records(tmp_path / "archive", site_records())
    edited = 0
    for path in (tmp_path / "archive").rglob("forecasts/*/*.json"):
        record = json.loads(path.read_text())
        payload = record.get("payload") or {}
        if payload.get("target") == "match" and payload.get("away_win_90") is not None:
            payload["away_win_90"], payload["home_win_90"] = -0.0, payload["home_win_90"] + payload["away_win_90"]
            if payload.get("home_advances") is not None:
                payload["home_advances"], payload["away_advances"] = 1.0, -0.0
        elif payload.get("target") == "question":
            payload["choices"][-1]["probability"] = -0.0
        else:
            continue
        path.write_text(json.dumps(record))
        edited += 1
    assert edited >= 5 and not load_archive(tmp_path / "archive").problems  # still valid records
    build_site(tmp_path / "archive", tmp_path / "site", commit="abc123", progress=lambda _: None)
    pages = {p: p.read_text() for p in (tmp_path / "site").rglob("*.html")}
    matches = [t for p, t in pages.items() if "/matches/" in p.as_posix() and p.name != "index.html"]
    assert matches and all(">0%<" in t for t in matches)  # the edited away probability, shown as a bare 0%
    # the edited last choice of a four-team question (an eight-team one shows its first six only)
    assert ">0%<" in (tmp_path / "site" / "questions" / "worldcup-2026" / "group_winner_a.html").read_text()
    for path, text in pages.items():
        assert "-0%" not in text and "−0%" not in text, path


@pytest.mark.slow
def test_a_kickoff_outside_the_competitions_years_is_refused_at_ingest(tmp_path, data_dir, capsys):
    def far(document):
        without_results(document)["matches"][0]["date"] = "1900-01-01"  # the opener, Mexico v South Africa
        return document

    data = edited_data(tmp_path, data_dir, far)
    config = tmp_path / "arena.toml"
    config.write_text('[arena]\ncompetitions = ["worldcup-2026"]\nquestions = false\n')
    assert main(["tick", "--now", "2026-06-10T12:00:00Z", "--config", str(config), "--archive",
                 str(tmp_path / "archive"), "--data-dir", str(data)]) == 1  # fmt: skip
    (line,) = capsys.readouterr().err.splitlines()
    assert "Mexico v South Africa: date 1900-01-01 is outside the competition's span 2025-01-01 .. 2027-12-31" in line
    archive = load_archive(tmp_path / "archive")
    assert len(archive.events) == 71 and ("worldcup-2026", "mex-v-rsa") not in archive.events


def test_a_file_name_with_a_newline_or_an_escape_cannot_split_a_problem_line(tmp_path, capsys):
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event())
    for name in ("bad\nproblem: forged line.json", "red\x1b[31m.json"):
        planted = repo.archive / "worldcup-2026" / "events" / "mex-v-rsa" / name
        planted.write_text('{"kind": "event"}')
    repo.commit(at(2), "planted")
    assert main(["verify", "--repo", str(repo.root), "--no-cache"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith("problem: ") for line in lines)
    assert any("bad\\nproblem: forged line.json" in line for line in lines)
    assert any("red\\x1b[31m.json" in line for line in lines) and not any("\x1b" in line for line in lines)


@pytest.mark.parametrize("text, message", [
    ("max_tick_minutes = inf", "key max_tick_minutes: Input should be a finite number"),
    ("spending_cap_usd = nan", "key spending_cap_usd: Input should be a finite number"),
    ("nested = " + "[" * 100_000 + "]" * 100_000, "not valid TOML: nested too deeply"),
    ("[arena.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p]\nz = 1", "tables or arrays nested 17 deep, more than 16"),
    ("\n" + "".join(f'[[forecasters]]\nid = "f{i}"\ntype = "baseline"\n' for i in range(300_000)),
     "the arena configuration is larger than 1048576 bytes; not read"),
    ("\n" + "".join(f'[[forecasters]]\nid = "f{i}"\ntype = "baseline"\n' for i in range(2000)),
     "key forecasters: Tuple should have at most 1000 items"),
])  # fmt: skip
def test_configuration_values_are_bounded_with_one_line_errors(tmp_path, text, message, capsys):
    config = tmp_path / "arena.toml"
    config.write_text(f'[arena]\ncompetitions = ["worldcup-2026"]\n{text}\n')
    assert main(["tick", "--config", str(config), "--archive", str(tmp_path / "archive")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"prematch tick: {config}"), line
    assert message in line and len(line) < 600
    assert not (tmp_path / "archive").exists()


def test_the_kickoff_span_reads_the_editions_years():
    from datetime import date

    from collector.competitions.kickoffs import edition_span

    assert edition_span("2026") == (date(2025, 1, 1), date(2027, 12, 31))
    assert edition_span("2025/26") == (date(2024, 1, 1), date(2027, 12, 31))
    assert edition_span("1999/00") == (date(1998, 1, 1), date(2001, 12, 31))
    assert edition_span("no year") is None
