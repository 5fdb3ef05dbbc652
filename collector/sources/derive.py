"""Derive a complete competition definition from any openfootball file (``define-competition``).

Both shapes are read (``matches`` with team names, ``rounds`` with team objects and codes).
The definition gets: teams (id = the code in lower case where the source gives codes, else a
slug of the name; aliases), groups (from ``group`` or from round names such as ``Group A``),
stages mapped from the source's round names (:data:`ROUNDS`), the format's tie-breakers and
best thirds, and the knockout slots placed by :mod:`collector.sources.placement`. What the
source truly lacks is named in :attr:`Derived.todo` (host nations, a time zone for times
without offset, the public URL of a file only read locally).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import orjson

from collector.competitions import (
    Definition,
    SourceConfig,
    competition_from_definition,
    slugify,
)
from collector.competitions.define import NATIONAL_ALIASES
from collector.competitions.formats import (
    Format,
    guess_format,
    list_formats,
    load_format,
)
from collector.competitions.kickoffs import edition_span
from collector.datasource import PUBLIC_FILES, RAW_GITHUB, DataSource
from collector.errors import ConfigError, Problem, ProblemsFound
from collector.records import Clock
from collector.records.competition import SLOT_RULE
from collector.sources.hosts import derive_hosts
from collector.sources.openfootball import OpenfootballSource
from collector.sources.openfootball_rounds import flatten_rounds
from collector.sources.placement import place_knockouts

# The synonyms table: stage id, name, knockout, round names (a source label equal to one, or
# starting with one followed by a space or a comma, belongs to the stage). ``define-competition
# --round LABEL=STAGE`` extends it for one source; the definition keeps each stage's labels
# (``source_rounds``), which a fork may extend by hand.
ROUNDS: tuple[tuple[str, str, bool, tuple[str, ...]], ...] = (
    ("qualification", "Qualification play-off", True, ("Qualification", "Play-off", "Playoff")),
    ("group", "Group stage", False, ("Matchday", "Group")),
    ("round-of-32", "Round of 32", True, ("Round of 32", "Last 32")),
    ("round-of-16", "Round of 16", True, ("Round of 16", "Eighth-finals", "Eighth-final", "Last 16",
                                         "Round of sixteen")),
    ("quarter-final", "Quarter-finals", True, ("Quarter-finals", "Quarter-final", "Quarterfinals", "Quarterfinal")),
    ("semi-final", "Semi-finals", True, ("Semi-finals", "Semi-final", "Semifinals", "Semifinal")),
    ("third-place", "Match for third place", True, ("Match for third place", "Third place match", "Third place",
                                                     "Third-place play-off", "Third-place match", "Third-place",
                                                     "Third place play-off", "3rd place", "Match for 3rd place",
                                                     "Bronze final")),
    ("final", "Final", True, ("Final",)),
)
STAGE_IDS = tuple(r[0] for r in ROUNDS)
_OFFSET = re.compile(r"(UTC|GMT|Z)", re.IGNORECASE)


@dataclass
class Derived:
    definition: dict[str, Any]
    format_id: str
    format_guessed: bool
    todo: list[str] = field(default_factory=list)


def _matches(label: str, name: str) -> bool:
    return label == name or label.startswith((name + " ", name + ","))


def _stage_of(label: str, extra: dict[str, str] | None = None) -> str | None:
    """The stage of a source's round label: the definition's own synonyms (``extra``) first, then :data:`ROUNDS`."""
    for name, stage_id in (extra or {}).items():
        if _matches(label, name):
            return stage_id
    for stage_id, _, _, names in ROUNDS:
        if any(_matches(label, n) for n in names):
            return stage_id
    return None


def _name(team: Any) -> str | None:
    name = team.get("name") if isinstance(team, dict) else team
    return name.strip() if isinstance(name, str) and name.strip() else None


def _teams(raw_matches: list[dict[str, Any]], codes: dict[str, str]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    names: dict[str, str | None] = {}
    for m in raw_matches:
        original = m.get("raw") if isinstance(m.get("raw"), dict) else m  # the rounds shape keeps its team objects
        for key in ("team1", "team2"):
            name = _name(m.get(key))
            if name and not SLOT_RULE.match(name):
                code = original[key].get("code") if isinstance(original.get(key), dict) else None
                names.setdefault(name, code or codes.get(name))
                names[name] = names[name] or code
    with_codes = [c.lower() for c in names.values() if c]
    unique = {c for c in with_codes if with_codes.count(c) == 1}
    ids = {n: (c.lower() if c and c.lower() in unique else slugify(n)) for n, c in names.items()}
    if len(set(ids.values())) < len(ids):  # a code equal to another team's slug: slugs for all
        ids = {n: slugify(n) for n in names}
    teams = [{"id": ids[n], "name": n, **({"code": c} if c else {}), "aliases": NATIONAL_ALIASES.get(n, [])}
             for n, c in names.items()]
    return teams, ids


def _sibling_codes(data: DataSource, relative: str) -> dict[str, str]:
    """Team codes from a ``*.teams.json`` next to the file (openfootball's World Cup folders)."""
    folder = PurePosixPath(relative).parent
    stem = PurePosixPath(relative).name.split(".")[0]
    try:
        document = orjson.loads(data.read_bytes(str(folder / f"{stem}.teams.json")))
        teams = document["teams"] if isinstance(document, dict) else document  # 2014/2018 object, 2026 list
        return {t["name"]: t.get("code") or t.get("fifa_code") for t in teams
                if t.get("name") and (t.get("code") or t.get("fifa_code"))}
    except Exception:  # no teams file, or not this shape: the codes are optional  # noqa: BLE001
        return {}


def _groups(raw_matches: list[dict[str, Any]], ids: dict[str, str], extra: dict[str, str]) -> list[dict[str, Any]]:
    groups: dict[str, list[str]] = {}
    for m in raw_matches:
        label = str(m.get("round") or "")
        group = m.get("group") or (label if label.startswith("Group ") else None)
        if not group or _stage_of(label, extra) != "group":
            continue
        letter = str(group).removeprefix("Group ").strip()
        for key in ("team1", "team2"):
            name = _name(m.get(key))
            if name in ids and ids[name] not in groups.setdefault(letter, []):
                groups[letter].append(ids[name])
    return [{"name": g, "teams": groups[g]} for g in sorted(groups)]


def _stages(raw_matches: list[dict[str, Any]], where: str, extra: dict[str, str]) -> list[dict[str, Any]]:
    seen: dict[str, list[str]] = {}
    first: dict[str, str] = {}
    unknown = []
    synonyms = [*((n, sid) for n, sid in extra.items()), *((n, sid) for sid, _, _, names in ROUNDS for n in names)]
    for m in raw_matches:
        label = str(m.get("round") or "")
        stage = _stage_of(label, extra)
        if stage is None:
            unknown.append(label)
            continue
        labels = seen.setdefault(stage, [])
        known = next(n for n, sid in synonyms if sid == stage and _matches(label, n))
        if (known if stage == "group" else label) not in labels:
            labels.append(known if stage == "group" else label)
        first[stage] = min(first.get(stage, "9999"), str(m.get("date") or "9999"))
    if unknown:
        raise ConfigError(f"{where}: round(s) {sorted(set(unknown))} map to no stage (known round names: "
                          f"{', '.join(n for n, _ in synonyms)}); name the stage of each with --round "
                          f"'LABEL=STAGE' (stages: {', '.join(STAGE_IDS)})")
    catalogue = {sid: (name, ko) for sid, name, ko, _ in ROUNDS}
    ordered = sorted(seen, key=lambda s: (first[s], [r[0] for r in ROUNDS].index(s)))
    return [{"id": sid, "name": catalogue[sid][0], "knockout": catalogue[sid][1], "order": order,
             "source_rounds": seen[sid]} for order, sid in enumerate(ordered)]


def _two_legged(raw: list[dict[str, Any]], extra: dict[str, str]) -> frozenset[str]:
    """Knockout stages where the source shows the same two teams twice (legs of a tie)."""
    seen: dict[tuple[str, frozenset[str]], int] = {}
    for m in raw:
        stage, names = _stage_of(str(m.get("round") or ""), extra), frozenset(filter(None, (_name(m.get("team1")), _name(m.get("team2")))))
        if stage not in (None, "group") and len(names) == 2:
            seen[(stage, names)] = seen.get((stage, names), 0) + 1
    return frozenset(stage for (stage, _), count in seen.items() if count == 2)


def _span(raw: list[dict[str, Any]], edition: str, where: str) -> dict[str, str]:
    """First and last match day of the source (a later file's match outside them is refused); a day
    outside the years the edition names (:func:`collector.competitions.kickoffs.edition_span`) is a
    ConfigError naming the matches, so the definition never spans 1900 to 9999."""
    days = sorted(str(m["date"]) for m in raw if isinstance(m.get("date"), str))
    plausible = edition_span(edition)
    if plausible is not None:
        first, last = (d.isoformat() for d in plausible)
        wrong = [m for m in raw if isinstance(m.get("date"), str) and not first <= str(m["date"])[:10] <= last]
        if wrong:
            named = "; ".join(f"{m.get('date')} {m.get('team1')} v {m.get('team2')}" for m in wrong[:5])
            raise ConfigError(f"{where}: {len(wrong)} match(es) dated outside {first} .. {last}, the years of "
                              f"edition {edition} with one either side: {named}; fix the source or the name")
    return {"starts_on": days[0], "ends_on": days[-1]} if days else {}


def _read(data: DataSource, relative: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        document = orjson.loads(data.read_bytes(relative))
    except orjson.JSONDecodeError as exc:
        raise ConfigError(f"{data.describe(relative)}: not valid JSON ({exc})") from None
    if isinstance(document, dict) and isinstance(document.get("matches"), list):
        raw = document["matches"]
    elif isinstance(document, dict) and isinstance(document.get("rounds"), list):
        raw = flatten_rounds(document["rounds"])
    else:
        raise ConfigError(f"{data.describe(relative)}: expected an object with a 'matches' or 'rounds' list")
    return document, [m for m in raw if isinstance(m, dict)]


def _time_zone(raw: list[dict[str, Any]], given: str | None, where: str, todo: list[str]) -> str:
    local = [m for m in raw if m.get("time") and not _OFFSET.search(str(m["time"]))]
    if given:
        try:
            ZoneInfo(given)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(f"--time-zone: unknown IANA time zone {given!r}") from None
        return given
    if local:
        raise ConfigError(f"{where}: {len(local)} kickoff time(s) carry no UTC offset (e.g. {local[0].get('date')} "
                          f"{local[0].get('time')}); give the source's time zone with --time-zone, e.g. Europe/Berlin")
    if not any(m.get("time") for m in raw):
        todo.append("to add: time_zone: the source gives no kickoff times; \"UTC\" is used for the end of each match day")
    return "UTC"


def derive_definition(new_id: str, data: DataSource, relative: str, *, format_id: str | None = None,
                      time_zone: str | None = None, url: str | None = None,
                      reference: DataSource | None = None, rounds: dict[str, str] | None = None,
                      rules: dict[str, Any] | None = None) -> Derived:
    """The definition of ``new_id`` from one openfootball file; every problem raised together.

    ``reference`` (default ``data``) is where the international results are read from; ``rounds``
    more round names (label -> stage id); ``rules`` the edition's rules (``points_for_win``,
    ``points_for_draw``, ``extra_time``, ``shootouts``), written into the definition.
    """
    where = data.describe(relative)
    document, raw = _read(data, relative)
    todo: list[str] = []
    teams, ids = _teams(raw, _sibling_codes(data, relative))
    groups = _groups(raw, ids, rounds or {})
    stages = _stages(raw, where, rounds or {})
    ko_stages = {s["id"] for s in stages if s["knockout"]}
    sizes = {len(g["teams"]) for g in groups}
    guessed = format_id is None
    format_id = format_id or guess_format(len(groups), max(sizes, default=0), ko_stages, _two_legged(raw, rounds or {}))
    if format_id is None:
        lacks = ("; the source names no group of its group-stage matches (a 'group' field, or rounds named "
                 "'Group A')" if not groups and any(s["id"] == "group" for s in stages) else "")
        raise ConfigError(f"{where}: {len(groups)} group(s) of {sorted(sizes)} teams and stages "
                          f"{sorted(ko_stages)} fit no format{lacks}; choose one with --format "
                          f"({', '.join(list_formats())}); a second group stage or a final round is not a stage "
                          "kind yet")
    fmt = load_format(format_id)
    if fmt.groups and (len(groups), sizes) != (fmt.groups, {fmt.group_size}):
        raise ConfigError(f"{where}: {len(groups)} group(s) of {sorted(sizes)} teams do not fit format {format_id} "
                          f"({fmt.groups} groups of {fmt.group_size}); choose another with --format "
                          f"({', '.join(list_formats())})")
    name = str(document.get("name") or new_id)
    edition = next(iter(re.findall(r"\d{4}", name)), new_id)
    public = url or (RAW_GITHUB + PUBLIC_FILES[relative] if relative in PUBLIC_FILES else None)
    if public is None:
        todo.append(f"to add: source.urls: the public URL of {relative} (without it only --data-dir can read the file)")
    fields: dict[str, Any] = {
        "id": new_id, "name": name, "edition": edition,
        "format": "league" if format_id == "league" else "tournament",
        "time_zone": _time_zone(raw, time_zone, where, todo),
        "best_third_placed": fmt.best_third_placed,
        "stage_opening_by": "matchday" if format_id == "league" else "stage",
        "tie_breakers": list(fmt.tie_breakers),
        "definition_source": f"openfootball {relative} (format {format_id}: {fmt.description})",
        "source": {"adapter": "openfootball", "file": relative, **({"urls": {relative: public}} if public else {})},
        "stages": stages, "groups": groups, "teams": teams,
        **_span(raw, edition, where),
        **_edition_rules(raw, rules or {}, rounds or {}, todo),
    }
    if not any("goals1" in m or "goals2" in m for m in raw):
        todo.append("note: the source lists no scorers: a top-scorer question stays unresolved (reported)")
    hosts, missing = derive_hosts(reference or data, teams, raw, ids)
    fields.update(hosts)
    todo += missing
    slots, table, problems = _place(fields, fmt, data, relative, todo)
    if problems:
        raise ProblemsFound([Problem(where, p) for p in problems])
    fields["knockout_slots"] = slots
    if fmt.best_third_placed and not table:
        todo.append(f"to add: best_third_table: the official allocation of the thirds (format {format_id} has none); "
                    "without it any qualified third of a slot's groups is accepted, and the simulator uses the "
                    "first valid assignment and says so in its inputs")
    if fmt.first_legs:  # written out so that a fork sees the option
        fields["away_goals"] = False
        todo.append("note: away_goals = false (two-legged ties level on aggregate go to extra time, as in UEFA's "
                    "rules since 2021-22); set it to true for a competition that counts away goals")
    if table and fmt.best_third_allocation:  # the regulations' table, bound to these slots when loaded
        fields["best_third_allocation"] = fmt.best_third_allocation
    elif table:
        fields["best_third_table"] = table
    try:
        _check(fields, table, where)
    except ConfigError as exc:
        if not table or "best-third" not in str(exc) and "best_third" not in str(exc):
            raise
        fields.pop("best_third_allocation", None)
        fields.pop("best_third_table", None)
        todo.append(f"to add: best_third_table: the source pairs its thirds otherwise than format {format_id}'s "
                    f"table ({exc}); without one any qualified third of a slot's groups is accepted")
        _check(fields, (), where)
    return Derived(fields, format_id, guessed, todo)


def _edition_rules(raw: list[dict[str, Any]], given: dict[str, Any], rounds: dict[str, str],
                   todo: list[str]) -> dict[str, Any]:
    """The edition's rules as given; extra time only in the final when the source shows a shoot-out straight
    after 90 minutes in an earlier knockout round (and says so in a note)."""
    out = {k: v for k, v in given.items() if v is not None}
    if "extra_time" not in out:
        early = [m for m in raw if isinstance(m.get("score"), dict) and m["score"].get("p") and not m["score"].get("et")
                 and _stage_of(str(m.get("round") or ""), rounds) not in (None, "group", "final")]
        if early:
            out["extra_time"] = "final_only"
            todo.append(f"note: extra_time = \"final_only\": {len(early)} knockout match(es) before the final go "
                        f"from 90 minutes straight to a shoot-out (e.g. {early[0].get('date')} "
                        f"{_name(early[0].get('team1'))} v {_name(early[0].get('team2'))})")
    return out


def _definition(fields: dict[str, Any], slots: list[dict[str, Any]], table=()) -> Definition:
    body = {k: v for k, v in fields.items() if k not in ("source", "definition_source", "best_third_allocation")}
    stages = [{k: v for k, v in s.items() if k != "source_rounds"} for s in fields["stages"]]
    body.update(stages=stages, knockout_slots=slots, best_third_table=list(table), source=fields["definition_source"])
    source = SourceConfig(adapter="openfootball", file=fields["source"]["file"])
    labels = {s["id"]: tuple(s["source_rounds"]) for s in fields["stages"]}
    return Definition(id=fields["id"], fields=body, source=source, round_labels=labels,
                      path=Path(f"{fields['id']}.toml"))


def _place(fields: dict[str, Any], fmt: Format, data: DataSource, relative: str, warnings: list[str]):
    """Read the source through the definition so far (format slots), then place its knockouts."""
    if not fmt.slots:
        return [], [], []
    provisional = _definition(fields, fmt.slot_dicts(), fmt.best_third_table)
    competition = _competition(provisional, data.describe(relative))
    batch = OpenfootballSource(provisional, data).fetch(competition)
    if batch.problems and len(batch.matches) < len(_read(data, relative)[1]):  # a match left out: no definition
        raise ProblemsFound(batch.problems)
    warnings.extend(f"check the source: {p}" for p in batch.problems)  # e.g. goals that do not add up
    unnumbered = [m for m in batch.matches if m.knockout and m.stage not in fmt.stages()]
    problems = [f"could not place {m.label}: stage {m.stage} has no slots in format {fmt.id}" for m in unnumbered
                if m.stage != "qualification"]
    slots, table, placing, notes = place_knockouts(batch.matches, competition, fmt)
    warnings.extend(notes)
    return slots, table, problems + placing


def _check(fields: dict[str, Any], table, where: str) -> None:
    """The finished definition validates as a Competition (a ConfigError names the key otherwise)."""
    _competition(_definition(fields, fields.get("knockout_slots", []), table), where)


def _competition(definition: Definition, where: str):
    """The definition's Competition; an error names the source it is derived from (no file is written yet)."""
    try:
        return competition_from_definition(definition, datetime.now(UTC), Clock.REPLAY)
    except ConfigError as exc:
        raise ConfigError(str(exc).replace(f"{definition.path}:", f"the definition derived from {where}:", 1)) from None
