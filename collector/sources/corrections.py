"""Corrections of a bad source, as data: ``<competition id>.corrections.toml`` beside the definition.

Each ``[[corrections]]`` entry names one match as the source writes it (``match = "2021-07-03
Ukraine v England"``: the date, then team1 v team2), the ``field`` of that match to correct in
the ``matches`` shape of openfootball (``score.ft``, ``score.et``, ``score.p``, ``goals1``,
``goals2``, ``goals2[0].minute``, ``time``...), the corrected ``value``, a ``citation`` (where
the right value is documented) and a ``note``. They are applied when the source is read, before
any check, so a corrected match is consistent and its outcome is recorded; the outcome record
carries each correction (the source's value, the corrected one, citation and note) while its
``source_payload`` stays the source's verbatim.

Faults are problems naming the file and the entry (a missing key, a match the source does not
list, a field path that leads nowhere); the other entries still apply. An entry whose value the
source now gives itself is reported as no longer needed.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collector.config import read_toml
from collector.errors import ConfigError, Problem
from collector.records import SourceCorrection

SUFFIX = ".corrections.toml"
_STEP = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)$")


@dataclass
class Corrections:
    """The entries of one corrections file, by match key; the file's problems."""

    file: Path | None = None
    by_match: dict[str, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    used: set[int] = field(default_factory=set)

    def unused_problems(self) -> list[Problem]:
        """Entries naming a match the source does not list."""
        return [Problem(f"{self.file} corrections[{i}]", f"match {key!r}: the source lists no such match "
                        "(expected 'YYYY-MM-DD team1 v team2' as the source writes them)")
                for key, entries in self.by_match.items() for i, _ in entries if i not in self.used]


def corrections_path(definition_path: Path, competition_id: str) -> Path:
    return definition_path.with_name(competition_id + SUFFIX)


def load_corrections(definition_path: Path, competition_id: str) -> Corrections:
    """The corrections file beside the definition, if there is one (an empty set otherwise)."""
    path = corrections_path(definition_path, competition_id)
    if not path.is_file():
        return Corrections()
    out = Corrections(file=path)
    try:
        raw = read_toml(path, "the corrections file")
    except ConfigError as exc:
        out.problems.append(Problem(str(path), str(exc)))
        return out
    entries = raw.get("corrections", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        out.problems.append(Problem(str(path), "key corrections: expected an array of tables [[corrections]]"))
        return out
    for index, entry in enumerate(entries):
        missing = [k for k in ("match", "field", "value", "citation") if k not in entry]
        wrong = [k for k in ("match", "field", "citation", "note") if k in entry and
                 (not isinstance(entry[k], str) or (k != "note" and not entry[k].strip()))]
        unknown = sorted(set(entry) - {"match", "field", "value", "citation", "note"})
        if missing or wrong or unknown:
            what = (f"missing {', '.join(missing)}" if missing else f"{', '.join(wrong)} must be a non-empty string"
                    if wrong else f"unknown key {unknown[0]}")
            out.problems.append(Problem(f"{path} corrections[{index}]", what + " (entry not applied)"))
            continue
        out.by_match.setdefault(" ".join(entry["match"].split()), []).append((index, entry))
    return out


def match_key(raw: dict[str, Any]) -> str:
    """How a corrections entry names a match: ``date team1 v team2`` as the source writes them."""
    names = [t.get("name") if isinstance(t, dict) else t for t in (raw.get("team1"), raw.get("team2"))]
    return " ".join(f"{raw.get('date')} {names[0]} v {names[1]}".split())


def _walk(target: Any, path: str) -> tuple[Any, Any]:
    """(container, key) of the last step of ``path`` in ``target``; ValueError when a step leads nowhere."""
    steps: list[Any] = []
    for part in path.split("."):
        found = _STEP.match(part)
        if not found:
            raise ValueError(f"field {path!r}: not a field path (e.g. score.et, goals2, goals1[0].minute)")
        steps.append(found.group(1))
        steps += [int(n) for n in re.findall(r"\d+", found.group(2))]
    for step in steps[:-1]:
        if isinstance(step, str) and isinstance(target, dict):
            target = target.setdefault(step, {})
        elif isinstance(step, int) and isinstance(target, list) and step < len(target):
            target = target[step]
        else:
            raise ValueError(f"field {path!r}: the source's match has no {step!r} there")
    last = steps[-1]
    if isinstance(last, int) and not (isinstance(target, list) and last < len(target)):
        raise ValueError(f"field {path!r}: the source's match has no item {last} there")
    if isinstance(last, str) and not isinstance(target, dict):
        raise ValueError(f"field {path!r}: the source's match has no object there")
    return target, last


def apply(raw: dict[str, Any], corrections: Corrections) -> tuple[dict[str, Any], tuple[SourceCorrection, ...], list[Problem]]:
    """(the corrected copy of ``raw``, the corrections applied, problems) for one source match."""
    entries = corrections.by_match.get(match_key(raw)) if isinstance(raw, dict) else None
    if not entries:
        return raw, (), []
    fixed = copy.deepcopy(raw)
    applied, problems = [], []
    for index, entry in entries:
        corrections.used.add(index)
        where = f"{corrections.file} corrections[{index}]"
        try:
            container, key = _walk(fixed, entry["field"])
        except ValueError as exc:
            problems.append(Problem(where, f"{exc} (entry not applied)"))
            continue
        before = container.get(key) if isinstance(container, dict) else container[key]
        if before == entry["value"]:
            problems.append(Problem(where, f"match {entry['match']!r}: the source now gives {entry['field']} = "
                                           f"{before!r} itself; the correction is no longer needed"))
            continue
        container[key] = entry["value"]
        applied.append(SourceCorrection(field=entry["field"], source_value=before, value=entry["value"],
                                        citation=entry["citation"], note=entry.get("note", ""),
                                        file=corrections.file.name if corrections.file else SUFFIX))
    return fixed, tuple(applied), problems
