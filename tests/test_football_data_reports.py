"""football-data.org v4 unfolded match resources as a report source, against a local server."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from collector.archive.reader import load_archive
from collector.competitions import load_definition
from collector.fixtures.sync import sync_competition
from collector.records import Clock
from collector.sources.football_data_reports import FootballDataReportSource, position

RECORDED = Path(__file__).parent / "recorded" / "football_data"
KEY = "fd-test-key-not-a-secret-77aa"


class FakeFootballData:
    """Serves the season list and the unfolded match; ``plain=True`` answers like a plan without unfolding,
    ``status`` answers the match with that HTTP error in v4's error shape."""

    def __init__(self, plain: bool = False, status: int | None = None):
        self.seen: list[tuple[str, dict]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                fake.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                code, body = 200, json.loads((RECORDED / "season.json").read_text())
                if self.path.startswith("/v4/matches/"):
                    body = json.loads((RECORDED / "match_unfolded.json").read_text())
                    if plain:
                        for key in ("goals", "bookings", "substitutions"):
                            body.pop(key)
                        for team in ("homeTeam", "awayTeam"):
                            body[team] = {k: body[team][k] for k in ("id", "name", "shortName", "tla")}
                    if status:
                        code, body = status, {"message": "The resource you are looking for is restricted.",
                                              "errorCode": status}
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("X-Requests-Available-Minute", "9")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


async def no_sleep(_s: float) -> None:
    return None


@pytest.fixture(scope="module")
def wc(data_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("wc-fd") / "archive"
    sync_competition(root, "worldcup-2026", now=datetime(2026, 6, 13, tzinfo=UTC), data_dir=data_dir,
                     clock=Clock.REPLAY)
    archive = load_archive(root)
    return archive.competitions["worldcup-2026"], [archive.events[("worldcup-2026", "mex-v-rsa")]]


def fetch(fake, wc):
    competition, events = wc
    source = FootballDataReportSource(load_definition("worldcup-2026"), api_key=KEY, base_url=fake.base_url,
                                      sleep=no_sleep)
    return source.fetch_reports(competition, events)


@pytest.mark.slow
def test_the_unfold_headers_bring_lineups_bookings_substitutions_and_goals(wc):
    with FakeFootballData() as fake:
        batch = fetch(fake, wc)
    assert batch.problems == []
    match_request = fake.seen[1]
    assert match_request[0] == "/v4/matches/537327"
    assert all(match_request[1][h] == "true" for h in ("x-unfold-lineups", "x-unfold-bookings", "x-unfold-subs",
                                                       "x-unfold-goals"))
    assert match_request[1]["x-auth-token"] == KEY
    fields = batch.parts["mex-v-rsa"].fields
    assert fields["home_formation"] == "4-3-3"
    assert [p.position for p in fields["away_lineup"].starting] == ["GK"] + ["DF"] * 4 + ["MF"] * 3 + ["FW"] * 3
    assert [(g.player, g.penalty) for g in fields["goals"]] == [("Julián Quiñones", False), ("Raúl Jiménez", True)]
    assert [a.player for a in fields["assists"]] == ["Alexis Vega"]
    assert [(c.side, c.player, c.colour) for c in fields["cards"]] == [("away", "Teboho Mokoena", "yellow")]
    assert [(s.player_on, s.player_off) for s in fields["substitutions"]] == [("Iqraam Rayners", "Lyle Foster")]


@pytest.mark.slow
def test_a_plan_without_unfolding_gives_no_data_and_an_http_error_is_a_problem(wc):
    with FakeFootballData(plain=True) as fake:
        batch = fetch(fake, wc)
    assert batch.problems == [] and batch.parts["mex-v-rsa"].fields == {}  # no data, never "nothing happened"
    with FakeFootballData(status=403) as fake:
        batch = fetch(fake, wc)
    assert batch.parts == {} and "HTTP 403" in batch.problems[0].message and KEY not in batch.problems[0].message


def test_positions_map_to_the_four_lines():
    assert [position(p) for p in ("Goalkeeper", "Centre-Back", "Defence", "Attacking Midfield", "Left Winger",
                                  "Centre-Forward", None, "Coach")] == ["GK", "DF", "DF", "MF", "FW", "FW", None, None]
