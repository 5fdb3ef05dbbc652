"""A local HTTP server on 127.0.0.1 speaking The Odds API v4's and Polymarket's formats.

The Odds API: ``GET /v4/sports/{sport}/odds`` answers ``server.odds_events`` (a list of events
in the documented shape, see :func:`odds_event`), ``GET /v4/historical/sports/{sport}/odds``
the same wrapped as ``{timestamp, previous_timestamp, next_timestamp, data}``. A request
without ``apiKey`` equal to ``server.key`` gets 401 ``INVALID_KEY``; every answer carries
``x-requests-remaining``/``-used``/``-last`` (live 1 credit per market x region, historical
10x), and ``OUT_OF_USAGE_CREDITS`` (401) once the credits are spent. ``server.mode`` makes the
next answers fail: ``status:422`` (``INVALID_REGION``), ``status:429`` (``EXCEEDED_FREQ_LIMIT``
with ``Retry-After: 0``, once), ``malformed``, ``huge:<bytes>`` (a body that long, sent in
chunks), ``header:<name>=<value>`` (one credits header replaced, e.g. ``x-requests-used=1e30``).

Polymarket Gamma: ``GET /public-search?q=`` answers ``{events: server.pm_events}`` filtered by
the words of ``q``; ``GET /events?slug=`` the list with that slug; ``GET /markets?slug=`` the
markets of ``server.pm_markets`` with that slug. Kalshi:
``GET /trade-api/v2/markets?event_ticker=`` answers ``server.kalshi_markets[ticker]`` (see
:func:`kalshi_markets`), ``.../series/{s}/markets/{t}/candlesticks`` ``server.kalshi_candles[t]``. CLOB ``GET /prices-history``
answers ``{history: server.pm_history[token]}`` between ``startTs`` and ``endTs``. Every request
is kept in ``server.seen`` as (path, query parameters).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from collector.forecasters.llm.demo_server import send_json

ODDS_KEY = "odds-api-TEST-KEY-0123456789abcdef"


def odds_event(home: str, away: str, commence: str, books: dict[str, tuple[float, float, float]],
               last_update: str = "2026-06-10T18:00:00Z") -> dict:
    """One event in The Odds API's documented h2h shape (decimal prices)."""
    return {
        "id": f"ev-{home[:3]}-{away[:3]}".lower(), "sport_key": "soccer_fifa_world_cup",
        "sport_title": "FIFA World Cup", "commence_time": commence, "home_team": home, "away_team": away,
        "bookmakers": [
            {"key": key, "title": key.title(), "last_update": last_update,
             "markets": [{"key": "h2h", "last_update": last_update, "outcomes": [
                 {"name": home, "price": h}, {"name": away, "price": a}, {"name": "Draw", "price": d}]}]}
            for key, (h, d, a) in books.items()
        ],
    }  # fmt: skip


def gamma_event(slug: str, home: str, away: str, asks: tuple[float, float, float], spread: float = 0.01) -> dict:
    """A Polymarket match event: three Yes/No markets (home, draw, away) in Gamma's shape."""
    titles = (home, f"Draw ({home} vs. {away})", away)
    markets = []
    for side, title, ask in zip(("home", "draw", "away"), titles, asks, strict=True):
        markets.append({
            "id": f"{slug}-{side}", "slug": f"{slug}-{side}", "question": f"Will {title} win?",
            "groupItemTitle": title, "outcomes": json.dumps(["Yes", "No"]),
            "outcomePrices": json.dumps([str(round(ask - spread / 2, 4)), str(round(1 - ask + spread / 2, 4))]),
            "clobTokenIds": json.dumps([f"tok-{slug}-{side}-yes", f"tok-{slug}-{side}-no"]),
            "bestAsk": ask, "bestBid": round(ask - spread, 4), "active": True, "closed": False,
        })  # fmt: skip
    return {"id": slug, "slug": slug, "title": f"{home} vs. {away}", "markets": markets}


def kalshi_markets(event_ticker: str, home: str, away: str, asks_cents: tuple[int, int, int]) -> list[dict]:
    """A Kalshi match event's three markets in the current Trade API v2 shape (tests/recorded/kalshi/
    markets.json: prices as fixed-point dollar strings only), asks given in cents for brevity."""
    template = json.loads((Path(__file__).parent / "recorded/kalshi/markets.json").read_text())["markets"][0]
    out = []
    for side, title, ask in zip(("H", "TIE", "A"), (home, "Tie", away), asks_cents, strict=True):
        market = dict(template, ticker=f"{event_ticker}-{side}", event_ticker=event_ticker, yes_sub_title=title,
                      no_sub_title=title, title=f"{home} vs {away}: {title}?")
        market.update({f"{k}_dollars": f"{v / 100:.4f}" for k, v in
                       (("yes_ask", ask), ("yes_bid", ask - 2), ("no_ask", 102 - ask), ("no_bid", 100 - ask),
                        ("last_price", ask - 1))})  # fmt: skip
        out.append(market)
    return out


def kalshi_candle(end: int, ask_cents: int, bid_cents: int) -> dict:
    """One hourly MarketCandlestick in the current shape (tests/recorded/kalshi/candlesticks.json)."""
    template = json.loads((Path(__file__).parent / "recorded/kalshi/candlesticks.json").read_text())["candlesticks"][0]
    side = lambda c: {f"{k}_dollars": f"{c / 100:.4f}" for k in ("open", "low", "high", "close")}  # noqa: E731
    return dict(template, end_period_ts=end, yes_ask=side(ask_cents), yes_bid=side(bid_cents))


class _Handler(BaseHTTPRequestHandler):
    server: FakeMarkets

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):  # noqa: N802
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        fake = self.server
        with fake.lock:
            fake.seen.append((url.path, query))
        if url.path.startswith("/v4/"):
            return self._odds_api(url.path, query)
        if url.path == "/trade-api/v2/markets":
            return self._send(200, {"markets": fake.kalshi_markets.get(query.get("event_ticker"), []), "cursor": ""})
        if url.path.startswith("/trade-api/v2/series/") and url.path.endswith("/candlesticks"):
            ticker = url.path.split("/")[-2]
            start, end = int(query.get("start_ts", 0)), int(query.get("end_ts", 2**40))
            candles = [c for c in fake.kalshi_candles.get(ticker, []) if start <= c["end_period_ts"] <= end]
            return self._send(200, {"ticker": ticker, "candlesticks": candles})
        if url.path == "/public-search":
            words = [w.lower() for w in query.get("q", "").split()]
            found = [e for e in fake.pm_events if all(w in e["title"].lower() for w in words)]
            return self._send(200, {"events": found})
        if url.path == "/markets":
            return self._send(200, [m for m in fake.pm_markets if m["slug"] == query.get("slug")])
        if url.path == "/events":
            return self._send(200, [e for e in fake.pm_events if e["slug"] == query.get("slug")])
        if url.path == "/prices-history":
            start, end = int(query.get("startTs", 0)), int(query.get("endTs", 2**40))
            points = [h for h in fake.pm_history.get(query.get("market", ""), []) if start <= h["t"] <= end]
            return self._send(200, {"history": points})
        return self._send(404, {"message": "not found"})

    def _odds_api(self, path: str, query: dict):
        fake = self.server
        historical = path.startswith("/v4/historical/")
        mode = fake.mode
        if query.get("apiKey") != fake.key:
            return self._send(401, {"message": "API key is not valid", "error_code": "INVALID_KEY"})
        if mode == "status:422":
            return self._send(422, {"message": "Invalid regions parameter", "error_code": "INVALID_REGION"})
        if mode == "status:429":
            fake.mode = None  # once: the client's retry then succeeds
            return self._send(429, {"message": "Too many requests", "error_code": "EXCEEDED_FREQ_LIMIT"},
                              {"Retry-After": "0"})
        cost = len(query.get("markets", "h2h").split(",")) * len(query.get("regions", "").split(","))
        cost *= 10 if historical else 1
        if fake.remaining < cost:
            return self._send(401, {"message": "Usage quota has been reached", "error_code": "OUT_OF_USAGE_CREDITS"},
                              self._credits(0))
        fake.remaining -= cost
        fake.used += cost
        if mode == "malformed":
            return self._send(200, b"{not json", self._credits(cost))
        if mode and mode.startswith("huge:"):  # a body of that many bytes: one valid event, then padding
            return self._send_huge(int(mode.split(":")[1]), self._credits(cost))
        if mode and mode.startswith("header:"):  # one credits header replaced, e.g. header:x-requests-used=1e30
            name, _, value = mode.split(":", 1)[1].partition("=")
            return self._send(200, fake.odds_events, {**self._credits(cost), name: value})
        body = fake.odds_events
        if historical:
            body = {"timestamp": query.get("date"), "previous_timestamp": None, "next_timestamp": None, "data": body}
        return self._send(200, body, self._credits(cost))

    def _credits(self, last: int) -> dict:
        fake = self.server
        return {"x-requests-remaining": str(fake.remaining), "x-requests-used": str(fake.used),
                "x-requests-last": str(last)}

    def _send_huge(self, size: int, headers: dict):
        head = json.dumps(self.server.odds_events)[:-1].encode() + b", "
        tail = b'"padding"]'
        pad = size - len(head) - len(tail) - 3
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(head) + 1 + pad + 2 + len(tail)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(head + b'"')
            chunk = b"x" * 65536
            for _ in range(pad // len(chunk)):
                self.wfile.write(chunk)
            self.wfile.write(b"x" * (pad % len(chunk)) + b'",' + tail)
        except OSError:  # the client stopped reading
            pass

    def _send(self, status: int, body, headers: dict | None = None):
        send_json(self, status, body, headers)


class FakeMarkets(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, credits: int = 500):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.key = ODDS_KEY
        self.remaining, self.used = credits, 0
        self.mode: str | None = None
        self.odds_events: list[dict] = []
        self.pm_events: list[dict] = []
        self.pm_history: dict[str, list[dict]] = {}
        self.pm_markets: list[dict] = []  # Gamma /markets?slug= (binary contracts)
        self.kalshi_markets: dict[str, list[dict]] = {}
        self.kalshi_candles: dict[str, list[dict]] = {}
        self.seen: list[tuple[str, dict]] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self):
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()


@contextmanager
def serving_odds_api(monkeypatch, events: list[dict], credits: int = 100) -> Iterator[FakeMarkets]:
    """A running :class:`FakeMarkets` serving ``events`` as The Odds API, the client's environment
    (``ODDS_API_KEY``, ``ODDS_API_BASE_URL``) pointed at it."""
    with FakeMarkets(credits=credits) as fake:
        fake.odds_events = events
        monkeypatch.setenv("ODDS_API_KEY", ODDS_KEY)
        monkeypatch.setenv("ODDS_API_BASE_URL", fake.base_url)
        yield fake
