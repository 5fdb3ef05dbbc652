"""The ``evidence_package`` prompt: the match prompt with the frozen package in it, no tools.

The match prompt of the arena's prompt set (:func:`collector.forecasters.llm.prompting.match_prompt`)
with two changes: the access header is ``access.evidence_package`` of ``prompts/evidence_v1.txt``,
and the package, rendered by :func:`package_lines`, follows the fixture block. The prompt's
``template_id`` is ``<match template>+evidence_v1`` and its ``template_sha256`` the SHA-256 of the
two template hashes joined by ``+`` (either file changing changes it). Package text the news
gatherer returned enters the prompt as plain text, as stated; it never reaches HTML unescaped.
"""

from __future__ import annotations

from collector.forecasters.llm.prompting import (
    PromptSet,
    fixture_values,
    load_template,
    prompt_set,
    sha256_text,
)
from collector.records import (
    Competition,
    Event,
    Evidence,
    EvidenceRef,
    Prompt,
    Strategy,
)

EVIDENCE_TEMPLATE = "evidence_v1"


def _stamp(moment) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def package_lines(evidence: Evidence, competition: Competition) -> list[str]:
    """The package as prompt lines: every part with its source and retrieval time, news with its publication time."""
    names = {t.id: t.name for t in competition.teams}
    lines: list[str] = []
    for team in evidence.form:
        lines.append(f"Recent results of {names.get(team.team_id, team.team_id)} (newest first, form {team.form or '-'}; "
                     f"source {team.provenance.source}, read {_stamp(team.provenance.retrieved_at)}):")
        lines += [f"- {m.date.isoformat()} {m.venue} v {m.opponent} {m.goals_for}-{m.goals_against} ({m.tournament})"
                  for m in team.matches] or ["- none known"]
    if evidence.head_to_head is not None:
        h = evidence.head_to_head
        lines.append(f"Head-to-head, from {names.get(evidence.home_team)}'s side: {h.home_wins} wins, {h.draws} draws, "
                     f"{h.away_wins} losses (source {h.provenance.source}):")
        lines += [f"- {m.date.isoformat()} {m.goals_for}-{m.goals_against} ({m.tournament})" for m in h.matches]
    if evidence.standings is not None:
        s = evidence.standings
        lines.append(f"Table, {s.table}, from {s.results_counted} result(s) recorded before the lock "
                     f"(source {s.provenance.source}):")
        lines += [f"- {names.get(r.team_id, r.team_id)}: P{r.played} W{r.won} D{r.drawn} L{r.lost} "
                  f"GF{r.goals_for} GA{r.goals_against} Pts{r.points}" for r in s.rows]
    for r in evidence.rest:
        last = (f"last match {r.last_match.isoformat()} in {r.last_city or 'unknown'}, {r.rest_days} day(s) before "
                "this one" if r.last_match else "no earlier match known")
        lines.append(f"Rest and travel, {names.get(r.team_id, r.team_id)}: {last}; this match at {r.venue or 'unknown'}.")
    for squad in evidence.squads:
        lines.append(f"Squad of {names.get(squad.team_id, squad.team_id)} ({len(squad.players)} players; source "
                     f"{squad.provenance.source}, read {_stamp(squad.provenance.retrieved_at)}): "
                     + ", ".join(squad.players))
    if evidence.odds.probabilities is not None:
        o = evidence.odds
        home, draw, away = (f"{p:.1%}" for p in o.probabilities)
        lines.append(f"Market odds ({o.source}, {o.books} book(s), read {_stamp(o.retrieved_at)}; margin removed per "
                     f"book, median across books): {names.get(evidence.home_team)} win {home}, draw {draw}, "
                     f"{names.get(evidence.away_team)} win {away}.")
    if evidence.news is not None:
        lines.append(f"News digest ({len(evidence.news.items)} item(s), gathered by {evidence.news.gatherer}):")
        for item in evidence.news.items:
            when = _stamp(item.published_at) if item.published_at else "publication time unknown"
            lines.append(f"- [{when}] {item.title} ({item.publisher}, {item.url}): {item.summary}")
    lines += [f"Note: {n}" for n in evidence.notes]
    return lines


def evidence_match_prompt(competition: Competition, event: Event, strategy: Strategy, evidence: Evidence,
                          ref: EvidenceRef, pset: PromptSet | None = None) -> Prompt:  # fmt: skip
    """The match prompt under ``evidence_package`` (preamble, access, strategy, definitions, fixture, package, schema)."""
    pset = pset or prompt_set()
    t, e = load_template(pset.match_template), load_template(EVIDENCE_TEMPLATE)
    lock = {"LOCK_UTC": _stamp(evidence.locks_at)}
    blocks = [
        t.block("preamble"), e.block("access.evidence_package", lock), t.block(f"strategy.{strategy.value}"),
        t.block("definitions"), t.block("fixture", fixture_values(competition, event, pset)),
        e.block("package", {**lock, "PACKAGE_SHA256": ref.sha256,
                            "PACKAGE_LINES": "\n".join(package_lines(evidence, competition))}),
        t.block("schema"),
    ]  # fmt: skip
    text = "\n\n".join(b for b in blocks if b)
    return Prompt(template_id=f"{t.id}+{e.id}", template_sha256=sha256_text(f"{t.sha256}+{e.sha256}"),
                  prompt_sha256=sha256_text(text), text=text)
