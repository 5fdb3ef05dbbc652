"""The local OpenRouter-format server's latency (issue 21): ``benchmarks/collector_throughput.py
--latency-ms`` holds every answer as a provider's generation time does. What is checked is that
the server asks to be held that long and still answers in the documented shape; how long a
sleep lasts is the clock's business, and speed is measured by the benchmark, never here."""

from __future__ import annotations

import json

import httpx
import pytest

from tests import fake_openrouter
from tests.fake_openrouter import FakeOpenRouter

BODY = {"model": "bench/m0", "messages": [{"role": "user", "content": "Is knockout match: no."}]}


@pytest.fixture
def held(monkeypatch) -> list[float]:
    """Every sleep the server asks for (made instant), in order."""
    asked: list[float] = []
    monkeypatch.setattr(fake_openrouter.time, "sleep", asked.append)
    return asked


@pytest.mark.parametrize("mode", ["", "status:503"])
def test_each_answer_is_held_for_the_latency_then_sent_as_documented(held, mode):
    with FakeOpenRouter(record=False, mode=mode, latency=0.25) as server:
        answers = [httpx.post(f"{server.base_url}/chat/completions", json=BODY, timeout=10) for _ in range(2)]
    assert held == [0.25, 0.25]
    if mode:
        assert [a.status_code for a in answers] == [503, 503]
        assert "error" in answers[0].json()
    else:
        assert [a.status_code for a in answers] == [200, 200]
        assert set(json.loads(answers[0].json()["choices"][0]["message"]["content"])) >= {"home_win_90_prob", "reason"}


def test_without_latency_nothing_is_held(held):
    with FakeOpenRouter(record=False) as server:
        assert httpx.post(f"{server.base_url}/chat/completions", json=BODY, timeout=10).status_code == 200
    assert held == []


def test_the_standalone_server_refuses_a_negative_latency(capsys):
    with pytest.raises(SystemExit) as exit_info:
        fake_openrouter.main(["--latency-ms", "-5"])
    assert exit_info.value.code == 2
    assert "--latency-ms must be 0 or more, not -5" in capsys.readouterr().err
