"""The dataset release of a built site (issue 56): Parquet tables that pandas, polars and DuckDB load as
they are, whose row counts and recomputed mean Brier are the site's own; the Atom feed; the JSON API.

Run on the session's World Cup replay site (``worldcup_site``: the demo's pipeline, replay then build), or
on the demo's own site named by ``PREMATCH_DEMO_SITE``.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import duckdb
import jsonschema
import orjson
import pandas as pd
import polars as pl
import pytest

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

PARQUET = ("forecasts", "outcomes", "scores", "leaderboard", "question_scores")
CELL = ["forecaster", "access", "strategy", "horizon", "clock"]
ATOM = "{http://www.w3.org/2005/Atom}"


def site_json(site: Path, name: str):
    return orjson.loads((site / name).read_bytes())


@pytest.fixture(scope="module")
def site(request) -> Path:
    """``PREMATCH_DEMO_SITE`` (a site ``prematch demo --out D`` built, ``D/site``) when set, else the session's."""
    given = os.environ.get("PREMATCH_DEMO_SITE")
    return Path(given) if given else request.getfixturevalue("worldcup_site")


def test_every_table_loads_in_pandas_polars_and_duckdb_with_the_sites_row_counts(site):
    folder = site / "data" / "parquet"
    documented = {t["table"]: t for t in site_json(site, "data/parquet/schema.json")["tables"]}
    assert set(documented) == set(PARQUET) and (folder / "README.md").read_text().startswith("# Prematch dataset")
    for name in PARQUET:
        path = folder / f"{name}.parquet"
        expected = len(site_json(site, f"data/{name}.json"))  # the JSON download of the same table
        frames = (pd.read_parquet(path), pl.read_parquet(path))
        counted = duckdb.sql(f"select count(*) from read_parquet('{path}')").fetchall()[0][0]
        assert [len(frames[0]), len(frames[1]), counted, documented[name]["rows"]] == [expected] * 4, name
        assert list(frames[0].columns) == [c["name"] for c in documented[name]["columns"]]
    forecasts = pd.read_parquet(folder / "forecasts.parquet")
    assert str(forecasts["kickoff_utc"].dtype) == "datetime64[us, UTC]"  # typed, no conversion
    assert forecasts["p_home"].dtype == "float64" and forecasts["sample"].dtype == "int64"
    assert pl.read_parquet(folder / "scores.parquet").schema["knockout"] == pl.Boolean


def test_the_mean_brier_recomputed_from_the_scores_is_the_leaderboards(site):
    path = site / "data" / "parquet" / "scores.parquet"
    recomputed = duckdb.sql(f"select {', '.join(CELL)}, avg(brier) as brier, count(*) as n from read_parquet('{path}') "
                            f"group by all").df()
    board = pd.DataFrame([r for r in site_json(site, "data/leaderboard.json") if r["view"] == "all"])
    api = pd.DataFrame([{**{k: r[k] for k in CELL + ["n"]}, "brier": r["measures"]["brier"]}
                        for r in site_json(site, "api/v1/leaderboard.json")["rows"] if r["view"] == "all"])
    for published in (board, api):
        merged = recomputed.merge(published[CELL + ["brier", "n"]], on=CELL, suffixes=("", "_site"))
        assert len(merged) == len(published) == len(recomputed) > 3
        assert (merged["n"] == merged["n_site"]).all()
        assert ((merged["brier"] - merged["brier_site"]).abs() < 1e-12).all()
    by_polars = (pl.read_parquet(path).group_by(CELL).agg(pl.col("brier").mean()).sort(CELL))
    assert by_polars["brier"].to_list() == pytest.approx(recomputed.sort_values(CELL)["brier"].to_list(), abs=1e-12)


def test_the_atom_feed_has_one_entry_per_finished_match(site):
    feed = ET.fromstring((site / "feed.xml").read_bytes())  # well-formed XML, or this raises
    assert feed.tag == f"{ATOM}feed"
    for element in (feed, *feed.findall(f"{ATOM}entry")):  # RFC 4287: id, title and updated are required
        assert all(element.find(f"{ATOM}{tag}") is not None for tag in ("id", "title", "updated"))
    entries = feed.findall(f"{ATOM}entry")
    finished = [o for o in site_json(site, "data/outcomes.json") if o["outcome_status"] in ("finished", "awarded")]
    assert len(entries) == len(finished) == 104
    assert len({e.find(f"{ATOM}id").text for e in entries}) == len(entries)
    assert "Leader by running mean Brier" in entries[-1].find(f"{ATOM}content").text


def test_the_json_api_documents_follow_their_published_schemas(site):
    api = site / "api" / "v1"
    schemas = {p.name.removesuffix(".schema.json"): orjson.loads(p.read_bytes()) for p in (api / "schemas").iterdir()}
    jsonschema.validate(site_json(site, "api/v1/leaderboard.json"), schemas["leaderboard"])
    index = site_json(site, "api/v1/matches/index.json")
    jsonschema.validate(index, schemas["match-index"])
    assert len(index["matches"]) == len(site_json(site, "data/outcomes.json"))
    for link in index["matches"][:5] + index["matches"][-5:]:
        match = orjson.loads((api / "matches" / link["href"]).read_bytes())
        jsonschema.validate(match, schemas["match"])
        assert match["event_id"] == link["event_id"] and match["forecasts"]


def test_the_data_page_links_every_open_data_file(worldcup_site):
    """Parquet tables, dataset card, feed and API index are listed (with size and SHA-256) and each link resolves."""
    import hashlib
    import re

    page = (worldcup_site / "data/index.html").read_text()
    section = page.split("Open data:", 1)[1].split("</table>", 1)[0]
    links = re.findall(r'<a href="([^"]+)">([^<]+)</a></td><td class="n">[^<]+</td><td><code class="hash">([0-9a-f]{64})', section)
    names = {label for _, label, _ in links}
    assert "feed.xml" in names and "api/v1/leaderboard.json" in names
    assert any(n.endswith(".parquet") for n in names) and not any(n.count("/") > 3 for n in names if n.startswith("api/v1/matches/"))
    for href, label, sha in links:
        target = (worldcup_site / "data" / href).resolve()
        assert target == (worldcup_site / label).resolve() and hashlib.sha256(target.read_bytes()).hexdigest() == sha
