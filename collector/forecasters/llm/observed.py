"""What really happened in an LLM call: the search observed, and the cost of a call that timed out.

**Search.** A search counts as made when ``usage.server_tool_use_details.web_search_requests``
(``usage.server_tool_use`` in the older shape) is positive, or the tool trace shows search calls or
results, or, when the completion reports no server-tool use at all, the call's generation stats
count search results (``num_search_results``, :func:`with_generation_search`); ``url_citation``
annotations alone are ``cited_only``. An open-book forecast whose provider did not search is flagged
``open_book_no_search``; a closed-book one that did is ``closed_book_search``, a protocol
violation the site shows.

**Timed-out calls** are billed by OpenRouter although no usage came back. Their estimate,
counted by the spending cap at once, is the list price of the whole output limit plus the
prompt (about 4 characters per token) plus, under open book, the protocol's search limit:
``max_tool_calls`` search requests at the search price and ``max_total_results`` results' content
as input tokens (Exa's documented per-result character caps: low 5,000, medium 15,000, high
30,000 characters).
The real cost arrives later with the call's generation stats (its id from the
``X-Generation-Id`` header), and the cap adds what exceeds the estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from collector.config import Prices, ProtocolSettings
from collector.records import (
    Access,
    Attempt,
    Citation,
    SearchFlag,
    SearchObserved,
    SearchReport,
)

CHARS_PER_TOKEN = 4.0
CONTEXT_CHARS = {"low": 5_000, "medium": 15_000, "high": 30_000}


def search_report(access: Access, attempts: Sequence[Attempt]) -> SearchReport:
    answered = [a for a in attempts if a.http_status == 200]
    requests = sum(a.usage.web_search_requests or 0 for a in answered)
    traces = [a.tool_trace.search_observed for a in answered]
    citations: dict[str, Citation] = {}
    for a in answered:
        for c in a.tool_trace.citations:
            citations.setdefault(c.url, c)
    if requests > 0 or SearchObserved.SEARCHED in traces:
        observed = SearchObserved.SEARCHED
    elif citations or SearchObserved.CITED_ONLY in traces:
        observed = SearchObserved.CITED_ONLY
    elif answered:
        observed = SearchObserved.NONE
    else:
        observed = SearchObserved.UNKNOWN
    if access in (Access.CLOSED_BOOK, Access.EVIDENCE_PACKAGE) and observed is SearchObserved.SEARCHED:
        flag = SearchFlag.CLOSED_BOOK_SEARCH
    elif access is Access.OPEN_BOOK and observed is not SearchObserved.SEARCHED:
        flag = SearchFlag.OPEN_BOOK_NO_SEARCH
    else:
        flag = SearchFlag.OK
    return SearchReport(observed=observed, requests=requests, citations=tuple(citations.values()), flag=flag)


def needs_generation_search(body: dict[str, Any], attempt: Attempt) -> bool:
    """An open-book call answered without any server-tool count or search trace: its generation stats decide."""
    return (bool(body.get("tools")) and attempt.http_status == 200 and attempt.usage.web_search_requests is None
            and attempt.tool_trace.search_observed is not SearchObserved.SEARCHED)


def with_generation_search(attempt: Attempt, results: int) -> Attempt:
    """``attempt`` with the generation stats' ``num_search_results`` as a second source of its search."""
    call = {"source": "generation.num_search_results", "num_search_results": results}
    trace = attempt.tool_trace.model_copy(update={
        "search_calls": (*attempt.tool_trace.search_calls, call),
        "search_observed": SearchObserved.SEARCHED if results > 0 else attempt.tool_trace.search_observed,
    })  # fmt: skip
    return attempt.model_copy(update={"tool_trace": trace})


def estimated_cost(protocol: ProtocolSettings, prices: Prices | None, body: dict[str, Any], prompt: str) -> float:
    """USD estimate of one timed-out call (see the module docstring); the protocol's flat estimate
    when the model's prices are not configured."""
    if prices is None:
        return protocol.timeout_cost_estimate_usd
    prompt_tokens = len(prompt) / CHARS_PER_TOKEN
    cost = 0.0
    if body.get("tools"):
        search = protocol.search
        cost += search.max_tool_calls * search.price_per_search_usd
        prompt_tokens += search.max_total_results * CONTEXT_CHARS[search.search_context_size] / CHARS_PER_TOKEN
    limits = [body.get(k) for k in ("max_completion_tokens", "max_tokens") if isinstance(body.get(k), int)]
    output = limits[0] if limits else protocol.max_tokens
    cost += prompt_tokens * prices.prompt_per_mtok / 1e6 + output * prices.completion_per_mtok / 1e6
    return round(cost, 6)
