"""The static site built from a small archive: determinism, page weight, exports, safety, problems."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import sqlite3
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import orjson
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from site_archive import write_site_archive

from builder.score.scoring import score_archive
from builder.site.build import build_site
from builder.site.buildreport import PAGE_LIMIT
from builder.site.models import Meta, TextPage
from builder.site.rationale import render_rationale, safe_href
from builder.site.render import environment, render_page
from collector.archive.reader import load_archive
from collector.errors import ConfigError
from collector.records import Clock


def _quiet(_line: str) -> None:
    pass


def read_site(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path, dict[str, bytes]]:
    root = tmp_path_factory.mktemp("site")
    archive = write_site_archive(root / "archive")
    out = root / "site"
    build_site(archive, out, commit="abc123", progress=_quiet)
    return archive, out, read_site(out)


@pytest.mark.slow
def test_same_archive_builds_to_same_bytes(built, tmp_path):
    """A second build, in another process with another hash seed, gives identical files."""
    archive, _, first = built
    second_out = tmp_path / "again"
    config = tmp_path / "arena.toml"  # the same (no) public addresses as the first build
    config.write_text('[arena]\ncompetitions = ["worldcup-2026"]\n')
    subprocess.run([sys.executable, "-m", "builder", "build", "--archive", str(archive), "--out", str(second_out),
                    "--commit", "abc123", "--quiet", "--config", str(config)], check=True, capture_output=True,
                   env={**os.environ, "PYTHONHASHSEED": "12345"}, cwd=Path(__file__).resolve().parent.parent)
    second = read_site(second_out)
    assert sorted(first) == sorted(second)
    differing = [name for name in first if first[name] != second[name]]
    assert differing == []


@pytest.mark.slow
def test_every_page_is_light_and_the_main_pages_exist(built):
    _, _, files = built
    pages = {name: len(data) for name, data in files.items() if name.endswith(".html")}
    for expected in ("index.html", "matches/index.html", "matches/worldcup-2026/index.html",
                     "matches/worldcup-2026/mex-v-rsa.html", "questions/index.html",
                     "questions/worldcup-2026/world_champion.html", "bracket/worldcup-2026.html",
                     "forecasters/llm.alpha.html", "charts/index.html", "data/index.html",
                     "methodology/index.html", "audit/index.html"):
        assert expected in pages
    assert max(pages.values()) <= PAGE_LIMIT
    assert "assets/plotly.min.js" in files
    assert not any(b"cdn.plot.ly" in data or b"https://cdn" in data for name, data in files.items() if name.endswith(".html"))


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("href", "src") and value:
                self.targets.append(value)


@pytest.mark.slow
def test_no_broken_internal_links(built):
    _, out, files = built
    broken = []
    for name, data in files.items():
        if not name.endswith(".html"):
            continue
        parser = _Links()
        parser.feed(data.decode())
        for target in parser.targets:
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            resolved = (out / name).parent / target.split("#")[0]
            if not resolved.resolve().is_file():
                broken.append((name, target))
    assert broken == []


@pytest.mark.slow
def test_hostile_rationale_and_citations_render_inert(built):
    _, _, files = built
    page = files["matches/worldcup-2026/mex-v-rsa.html"].decode()
    assert "&lt;script&gt;window.__pwned" in page  # shown as text
    assert "<script>window.__pwned" not in page
    assert not re.search(r"<img[^>]*onerror", page)
    assert not re.search(r'href="\s*javascript:', page, re.I)
    assert "http://127.0.0.1:9/pixel.png" not in page  # images are not loaded
    assert "<strong>bold</strong>" in page
    assert 'href="https://example.org/news"' in page and "&lt;b&gt;News&lt;/b&gt;" in page


@pytest.mark.slow
def test_a_closed_book_search_is_shown_as_a_protocol_violation(built):
    _, _, files = built
    page = files["matches/worldcup-2026/mex-v-rsa.html"].decode()
    assert page.count("Protocol violation: the provider searched the web under closed book.") == 1
    assert "searched (1)" in page
    # the attempt statistics record beside it: provider (escaped), search results and engine, billed cost
    assert "provider &lt;i&gt;Mallory&lt;/i&gt; · 6 search results (exa) · billed $0.0123" in page


@pytest.mark.parametrize(
    "text",
    ["<script>alert(1)</script>", '<img src=x onerror="alert(1)">', "[x](javascript:alert(1))",
     "[x](JAVA&#83;CRIPT:alert(1))", "[x](  javascript:alert(1))", "[x](data:text/html,<script>alert(1)</script>)",
     '<a href="javascript:alert(1)">x</a>', "[x](vbscript:msgbox(1))", "<svg onload=alert(1)>"],
)
def test_render_rationale_never_emits_active_markup(text):
    html = str(render_rationale(text))
    assert "<script" not in html and "<img" not in html and "<svg" not in html
    assert not re.search(r"<a [^>]*href=\"(?!https?://)", html)


def test_safe_href_keeps_only_http_links():
    assert safe_href("https://example.org/a?b=1") == "https://example.org/a?b=1"
    assert safe_href("http://example.org") == "http://example.org"
    for bad in ("javascript:alert(1)", " JavaScript:alert(1)", "java\tscript:x", "data:text/html,x", "/relative", "//evil.org", ""):
        assert safe_href(bad) is None


@pytest.mark.slow
def test_downloads_hold_every_forecast_outcome_and_score(built):
    archive_dir, _, files = built
    archive = load_archive(archive_dir)
    scores = score_archive(archive, inference_tests=False)
    forecasts = list(csv.DictReader(io.StringIO(files["data/forecasts.csv"].decode())))
    assert len(forecasts) == len(archive.forecasts)
    assert {row["status"] for row in forecasts} >= {"valid", "invalid_json"}
    outcomes = orjson.loads(files["data/outcomes.json"])
    assert len(outcomes) == len(archive.events)
    assert sum(o["home_90"] is not None for o in outcomes) == len(archive.outcomes)
    score_rows = orjson.loads(files["data/scores.json"])
    assert len(score_rows) == len(scores.forecasts)
    db = Path(archive_dir).parent / "copy.sqlite"
    db.write_bytes(files["data/prematch.sqlite"])
    con = sqlite3.connect(db)
    try:
        for table in ("forecasts", "outcomes", "scores", "leaderboard", "question_scores"):
            (count,) = con.execute(f"SELECT count(*) FROM {table}").fetchone()
            assert count == len(orjson.loads(files[f"data/{table}.json"]))
        (brier,) = con.execute("SELECT avg(brier) FROM scores WHERE forecaster = 'elo'").fetchone()
    finally:
        con.close()
    elo = [s.measures["brier"] for s in scores.forecasts if s.forecaster == "elo"]
    assert brier == pytest.approx(sum(elo) / len(elo))


@pytest.mark.slow
def test_manifest_lists_sha256_of_every_archive_file_and_the_commit(built):
    archive_dir, _, files = built
    manifest = orjson.loads(files["data/manifest.json"])
    assert manifest["commit"] == "abc123"
    on_disk = {p.relative_to(archive_dir).as_posix(): p for p in archive_dir.rglob("*.json")}
    assert set(manifest["files"]) == set(on_disk)
    for name, path in on_disk.items():
        assert manifest["files"][name] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert "data/schema/forecast.schema.json" in files


@pytest.mark.slow
def test_leaderboard_shows_the_matched_brier_of_every_row(built):
    archive_dir, _, files = built
    scores = score_archive(load_archive(archive_dir), inference_tests=False)
    page = files["index.html"].decode()
    board = page[page.index('id="board"'):]
    board = board[: board.index("</table>")]
    shown = re.findall(r'<tr data-forecaster="([^"]+)" data-horizon="([^"]+)" data-access="([^"]+)" '
                       r'data-strategy="([^"]+)".*?data-key="brier"[^>]*? data-value="([^"]*)"', board, re.S)
    expected = {(r.forecaster, r.horizon, r.access, r.strategy): r.measures["brier"] for r in scores.matched}
    assert len(shown) == len(expected)
    for forecaster, horizon, access, strategy, value in shown:
        assert float(value) == pytest.approx(expected[(forecaster, horizon, access, strategy)], abs=1e-6)
    assert "badge t-baseline" in page and "badge t-market" in page


@pytest.mark.slow
def test_charts_are_valid_plotly_figures_and_load_the_shared_library(built):
    _, _, files = built
    page = files["charts/index.html"].decode()
    figures = re.findall(r'<script type="application/json" id="fig-[^"]+">(.*?)</script>', page, re.S)
    assert len(figures) >= 5
    for text in figures:
        go.Figure(orjson.loads(text))  # raises on an invalid figure
    assert 'src="../assets/plotly.min.js"' in page


BAD = "worldcup-2026/events/mex-v-rsa/forecasts/llm.alpha/closed_book.direct_score.t_minus_24h.s0.json"


@pytest.fixture(scope="module")
def replay_with_problem(tmp_path_factory):
    """A replay archive in which one forecast file was hand-edited into an invalid record."""
    root = tmp_path_factory.mktemp("replay")
    archive = write_site_archive(root / "archive", clock=Clock.REPLAY, hostile=False)
    data = orjson.loads((archive / BAD).read_bytes())
    data["payload"]["home_win_90"] = 7
    (archive / BAD).write_bytes(orjson.dumps(data))
    lines: list[str] = []
    report = build_site(archive, root / "site", progress=lines.append)
    return report, lines, read_site(root / "site")


@pytest.mark.slow
def test_invalid_record_is_reported_with_its_path_and_left_out(replay_with_problem):
    report, lines, files = replay_with_problem
    assert [p.path for p in report.problems] == [BAD]
    assert any(BAD in line and "home_win_90" in line for line in lines)
    assert "1 left out" in "\n".join(report.summary_lines())
    assert BAD.encode() in files["data/index.html"]
    assert BAD.encode() not in files["data/forecasts.csv"]
    assert BAD.encode() not in files["matches/worldcup-2026/mex-v-rsa.html"]
    assert b"llm.beta/closed_book.direct_score.t_minus_24h.s0.json" in files["matches/worldcup-2026/mex-v-rsa.html"]


@pytest.mark.slow
def test_replay_archive_carries_the_banner_and_live_does_not(replay_with_problem, built):
    _, _, live = built
    assert b"replay-banner" not in live["index.html"]
    report, _, files = replay_with_problem
    assert report.replay
    pages = [name for name in files if name.endswith(".html")]
    assert all(b"replay-banner" in files[name] for name in pages)


@pytest.mark.slow
def test_a_missing_archive_folder_is_an_error_not_an_empty_site(tmp_path):
    done = subprocess.run([sys.executable, "-m", "builder", "build", "--archive", str(tmp_path / "nope"),
                           "--out", str(tmp_path / "site")], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"prematch build: {tmp_path / 'nope'}: no such archive folder\n"
    assert not (tmp_path / "site").exists()


@pytest.mark.slow
def test_refuses_to_replace_a_folder_that_is_not_a_site(tmp_path, built):
    archive, _, _ = built
    precious = tmp_path / "docs"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    with pytest.raises(ConfigError, match="refusing"):
        build_site(archive, precious, progress=_quiet)
    assert (precious / "notes.txt").read_text() == "keep me"


def test_templates_are_strict_and_typed():
    meta = Meta(title="t", root="", section="x", replay=False, commit="c")
    page = TextPage(path="x.html", meta=meta, body=render_rationale("hi"))
    assert b"<p>hi</p>" in render_page(page)
    with pytest.raises(jinja2.UndefinedError):
        environment().from_string("{{ page.missing }}").render(page=page)

    class Impostor(TextPage):
        pass

    with pytest.raises(TypeError):
        render_page(Impostor(path="x.html", meta=meta, body=render_rationale("hi")))
    assert environment().autoescape is not False
    assert "&lt;b&gt;" in environment().from_string("{{ v }}").render(v="<b>")


@pytest.mark.slow
def test_kickoff_is_machine_readable_utc_with_the_source_on_hover(built):
    _, _, files = built
    page = files["matches/worldcup-2026/index.html"].decode()
    assert re.search(r'<time class="local" datetime="2026-06-\d\dT\d\d:00:00Z" title="2026-06-\d\d \d\d:00 UTC', page)


_PIECES = ["<script>", "</script>", "<img src=x onerror=alert(1)>", "[a](", "javascript:", "JaVaScRiPt&#58;", ")",
           "](data:text/html,x)", "![i](", "http://e.org/p.png", "<a href=", '"', "'", "&#", "**", "\n\n", "<svg onload=1>",
           "`", "<", ">", "&amp;", "text", "https://ok.org/x"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_PIECES) | st.text(max_size=5), max_size=25).map("".join))
def test_any_rationale_renders_without_active_markup(text):
    class Tags(HTMLParser):
        def __init__(self):
            super().__init__()
            self.found: list[tuple[str, list]] = []

        def handle_starttag(self, tag, attrs):
            self.found.append((tag, attrs))

    parser = Tags()
    parser.feed(str(render_rationale(text)))
    allowed = {"p", "strong", "em", "a", "span", "code", "ul", "ol", "li", "hr", "br", "blockquote", "pre",
               "h1", "h2", "h3", "h4", "h5", "h6"}
    for tag, attrs in parser.found:
        assert tag in allowed
        for name, value in attrs:
            assert not name.startswith("on")
            if name in ("href", "src"):
                assert tag == "a" and value.startswith(("http://", "https://"))


@pytest.mark.slow
def test_several_competitions_get_their_own_leaderboards_and_match_lists(tmp_path):
    from factories import (
        make_competition,
        make_event,
        make_forecast,
        make_outcome,
        write_records,
    )
    from site_archive import site_records

    from collector.records import CompetitionFormat, Horizon, Stage

    league = make_competition(cid="en-1-2025-26", teams=("arsenal-fc", "liverpool-fc"), name="Premier League",
                              format=CompetitionFormat.LEAGUE, stages=(Stage(id="regular-season", name="Regular season"),),
                              stage_opening_by="matchday")
    game = make_event("arsenal-fc", "liverpool-fc", cid=league.id, stage="regular-season", matchday=1)
    records = site_records(hostile=False) + [league, game, make_outcome(game, 2, 2)]
    records += [make_forecast(game, "elo", horizon=Horizon.T_MINUS_24H), make_forecast(game, "market", horizon=Horizon.CLOSING)]
    write_records(tmp_path / "archive", records)
    build_site(tmp_path / "archive", tmp_path / "site", progress=_quiet)
    files = read_site(tmp_path / "site")
    assert "leaderboard/en-1-2025-26/all.html" in files and "leaderboard/worldcup-2026/all.html" in files
    home = files["index.html"].decode()
    assert 'href="leaderboard/en-1-2025-26/all.html"' in home  # the competition filter links to its slice
    league_board = files["leaderboard/en-1-2025-26/all.html"].decode()
    assert "llm.alpha" not in league_board and 'data-forecaster="elo"' in league_board
    assert "matches/en-1-2025-26/arsenal-fc-v-liverpool-fc.html" in files
    assert b"Premier League" in files["matches/index.html"]
    assert "bracket/en-1-2025-26.html" not in files  # leagues have no bracket


@pytest.mark.slow
def test_bracket_shows_the_knockouts_group_tables_and_question_picks(built):
    from builder.site.bracket import bracket_pages
    from builder.site.bracket_models import BracketPage
    from builder.site.sitectx import SiteContext

    archive = load_archive(built[0])
    ctx = SiteContext(archive, score_archive(archive, inference_tests=False), "x", False)
    page = next(p for p in bracket_pages(ctx) if isinstance(p, BracketPage))
    # No slot rules in this definition: the registered knockouts, a column per stage, no connectors.
    assert [c.name for c in page.columns] == ["semi-final", "final"]
    slots = {s.label: s for s in page.slots}
    went_through = archive.outcomes[("worldcup-2026", "m013")].advancing_team
    assert (slots["Match 13"].home, slots["Match 13"].away) == ("MEX", "USA")
    assert slots["Match 13"].home_won is (went_through == "mex") and slots["Match 15"].result == ""
    assert not any(s.fed or s.feeds_next for s in page.slots) and page.predicted == ()
    [group_a] = [t for t in page.groups if t.name == "A"]
    assert [row[0] for row in group_a.rows] and all(row[1] == "3" for row in group_a.rows)  # three games each
    qualified = {row[0] for row, q in zip(group_a.rows, group_a.qualified, strict=True) if q}
    assert qualified == {"MEX", "RSA"}  # the group-A teams that play the first knockout round
    column = page.question_columns.index("Winner of group A")
    champion = page.question_columns.index("World champion")
    for row in page.progression:
        assert row.answers[column] == ("MEX", True)  # picked Mexico, and Mexico won the group
        assert row.answers[champion] == ("tie", None)  # every team 1/8: the pick of Spain is a tie, no pick


@pytest.mark.slow
def test_a_match_with_a_hundred_long_rationales_stays_under_the_page_limit():
    """Ten LLMs in all twelve cells (the shipped arena has four), each writing 6,000 characters."""
    from factories import (
        ALL_CELLS,
        archive_from_records,
        make_competition,
        make_event,
        make_forecast,
        make_payload,
    )

    from builder.site.matches import match_page
    from builder.site.measures import measures_lookup
    from builder.site.sitectx import SiteContext
    from collector.records import Horizon

    event = make_event()
    long_reason = ("**Form** and [news](https://example.org/a) " * 200)[:6000]
    records = [make_competition(), event] + [
        make_forecast(event, f"llm.model-{m}", make_payload(reason=long_reason), access=a, strategy=s, horizon=h)
        for m in range(10) for a, s, h in ALL_CELLS
    ] + [make_forecast(event, name, horizon=h) for name in ("uniform", "base_rate", "elo", "dixon_coles", "ensemble")
         for h in (Horizon.STAGE_OPENING, Horizon.T_MINUS_24H, Horizon.T_MINUS_2H)]
    archive = archive_from_records(records)
    scores = score_archive(archive, inference_tests=False)
    ctx = SiteContext(archive, scores, "x", False)
    page = match_page(ctx, event, archive.forecasts, measures_lookup(scores))
    html = render_page(page)
    assert len(page.forecasts) == 135
    assert len(html) <= PAGE_LIMIT
    assert html.count(b"truncated on this page") == 120  # and the reader is told where the rest is
