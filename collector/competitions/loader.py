"""Find and load competition definitions: the package's own and those of a fork's folder.

A definition is the project's own configuration: the :class:`Competition` record's fields
plus a ``[source]`` table (which adapter, which file, the football-data.org code, the public
URL of each data file) and, per stage, the source's round labels (``source_rounds``).

Definitions are found in the package (``collector/competitions/*.toml``) and in the folder
named by ``[arena] competitions_dir`` of ``prematch.toml`` (:func:`use_definitions_dir`; every
command that reads competitions takes ``--config``). A definition's ``id`` must equal its file
name, and an id may be defined once. Every error in a definition is one line naming the file
and the key.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import ValidationError

from collector.competitions.allocation import allocation_rows, load_allocation
from collector.config import read_toml
from collector.errors import ConfigError
from collector.records import Clock, Competition

DEFINITIONS_DIR = Path(__file__).resolve().parent
_EXTRA_DIRS: list[Path] = []  # a fork's folders, set by --config ([arena] competitions_dir)


@dataclass(frozen=True)
class SourceConfig:
    adapter: str  # "openfootball" | "football-data"
    file: str | None = None  # relative data-file name for openfootball
    football_data_code: str | None = None
    urls: dict[str, str] = field(default_factory=dict)  # relative data-file name -> public URL
    squads: str | None = None  # relative name of an openfootball squads file (player identity)


@dataclass(frozen=True)
class Definition:
    """A parsed definition: the record's fields, where fixtures come from, round labels per stage."""

    id: str
    fields: dict[str, Any]
    source: SourceConfig
    round_labels: dict[str, tuple[str, ...]]  # stage id -> source round labels (prefixes)
    path: Path

    def stage_for_round(self, label: str) -> str | None:
        """The stage id for a source round label (``Round of 32``, ``Matchday 3``), or None."""
        for stage_id, labels in self.round_labels.items():
            if any(label == known or label.startswith(known + " ") for known in labels):
                return stage_id
        return None


def use_definitions_dir(folder: Path | None) -> None:
    """Search ``folder`` (a fork's definitions) after the package; None forgets every extra folder."""
    _EXTRA_DIRS.clear()
    if folder is not None:
        _EXTRA_DIRS.append(Path(folder))


def use_config(path: Path | None) -> None:
    """Find definitions also in ``[arena] competitions_dir`` of ``path`` (else ``prematch.toml`` if present).

    A missing ``--config`` file, or a bad one, is a :class:`ConfigError` naming the file and key.
    """
    from collector.config import DEFAULT_CONFIG, load_config

    if path is None and not DEFAULT_CONFIG.is_file():
        return
    folder = load_config(path or DEFAULT_CONFIG).competitions_folder()
    if folder is not None and not folder.is_dir():
        raise ConfigError(f"{path or DEFAULT_CONFIG}: key arena.competitions_dir: no such folder {folder}")
    use_definitions_dir(folder)


def check_competition_ids(config: Path | None, ids: list[str]) -> None:
    """``--config`` applied, then every id known (``all`` allowed); a :class:`UsageError` in one line otherwise."""
    from collector.errors import UsageError

    try:
        use_config(config)
        known = list_competitions()
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    unknown = [i for i in ids if i not in known and i != "all"]
    if unknown:
        raise UsageError(f"unknown competition(s) {', '.join(unknown)} (known: {', '.join(known)})")


@contextmanager
def definitions_dir(folder: Path) -> Iterator[None]:
    """``with definitions_dir(folder):`` definitions in ``folder`` are found too (restored after)."""
    saved = list(_EXTRA_DIRS)
    use_definitions_dir(folder)
    try:
        yield
    finally:
        _EXTRA_DIRS[:] = saved


def definitions_dirs() -> list[Path]:
    """Where definitions are looked for: the package's folder, then a fork's."""
    return [DEFINITIONS_DIR, *_EXTRA_DIRS]


def _definition_files() -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for folder in definitions_dirs():
        if not folder.is_dir():
            raise ConfigError(f"{folder}: competitions folder does not exist ([arena] competitions_dir)")
        for path in sorted(folder.glob("*.toml")):
            if path.name.endswith(".corrections.toml"):  # a definition's corrections (collector.sources.corrections)
                continue
            found.setdefault(path.stem, []).append(path)
    return found


def list_competitions() -> list[str]:
    """Ids of every competition definition (the package's and a fork's folder's)."""
    return sorted(_definition_files())


def load_definition(competition_id: str) -> Definition:
    files = _definition_files().get(competition_id)
    if not files:
        raise ConfigError(f"unknown competition {competition_id!r} (known: {', '.join(list_competitions())})")
    if len(files) > 1:
        raise ConfigError(f"competition {competition_id!r} is defined twice: {', '.join(map(str, files))}")
    return parse_definition_file(files[0])


def parse_definition_file(path: Path) -> Definition:
    """One definition file; :class:`ConfigError` in one line naming the file and the key."""
    raw = read_toml(path, "the competition definition")  # bounded: size, nesting, a one-line error
    for key in ("id", "time_zone", "source", "definition_source", "stages"):
        if key not in raw:
            raise ConfigError(f"{path}: key {key}: missing")
    if raw["id"] != path.stem:
        raise ConfigError(f"{path}: key id: {raw['id']!r} differs from the file name {path.stem!r}; "
                          "a definition's id must equal its file name")
    try:
        ZoneInfo(str(raw["time_zone"]))
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(f"{path}: key time_zone: unknown IANA time zone {raw['time_zone']!r}") from None
    source = _source(path, raw.pop("source"))
    fields = dict(raw)
    fields["source"] = fields.pop("definition_source")
    if not isinstance(fields["stages"], list) or not all(isinstance(s, dict) for s in fields["stages"]):
        raise ConfigError(f"{path}: key stages: expected an array of tables [[stages]]")
    stages = [dict(s) for s in fields["stages"]]
    labels = {str(s.get("id")): tuple(s.pop("source_rounds", ())) for s in stages}
    fields["stages"] = stages
    _expand_allocation(path, fields)
    definition = Definition(id=path.stem, fields=fields, source=source, round_labels=labels, path=path)
    competition_from_definition(definition, datetime(2000, 1, 1, tzinfo=UTC), Clock.LIVE)  # every key checked now
    return definition


def _expand_allocation(path: Path, fields: dict[str, Any]) -> None:
    """``best_third_allocation = "fifa-wc-48"``: the official table's rows, bound to this bracket's match numbers."""
    allocation = fields.pop("best_third_allocation", None)
    if allocation is None:
        return
    if fields.get("best_third_table"):
        raise ConfigError(f"{path}: key best_third_allocation: the definition also has a best_third_table; give one")
    slots = fields.get("knockout_slots", [])
    try:
        if not isinstance(allocation, str) or not isinstance(slots, list) or not all(isinstance(s, dict) for s in slots):
            raise ConfigError(f"expected a table id and [[knockout_slots]], got {allocation!r}")
        fields["best_third_table"] = allocation_rows(load_allocation(allocation), slots)
    except (ConfigError, KeyError) as exc:
        raise ConfigError(f"{path}: key best_third_allocation: {exc}") from None


def _source(path: Path, table: Any) -> SourceConfig:
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: key source: expected a table [source]")
    unknown = sorted(set(table) - {"adapter", "file", "football_data_code", "urls", "squads"})
    if unknown:
        raise ConfigError(f"{path}: key source.{unknown[0]}: unknown key")
    if not isinstance(table.get("adapter"), str):
        raise ConfigError(f"{path}: key source.adapter: missing or not a string")
    urls = table.get("urls", {})
    if not isinstance(urls, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in urls.items()):
        raise ConfigError(f"{path}: key source.urls: expected a table of file name = \"https://...\"")
    bad = [v for v in urls.values() if not v.startswith("https://")]
    if bad:
        raise ConfigError(f"{path}: key source.urls: {bad[0]!r} is not an https URL")
    return SourceConfig(adapter=table["adapter"], file=table.get("file"),
                        football_data_code=table.get("football_data_code"), urls=dict(urls),
                        squads=table.get("squads"))


def _key_of(error: dict[str, Any]) -> str:
    """``knockout_slots[3].home_rule`` from a pydantic error location."""
    parts: list[str] = []
    for part in error["loc"]:
        if isinstance(part, int) and parts:
            parts[-1] += f"[{part}]"
        else:
            parts.append(str(part))
    return ".".join(parts) or "(top level)"


def competition_from_definition(definition: Definition, recorded_at: datetime, clock: Clock) -> Competition:
    try:
        return Competition.model_validate(
            {**definition.fields, "recorded_at": recorded_at, "clock": clock}, strict=False
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        message = error["msg"].removeprefix("Value error, ")
        value = f" (value {error['input']!r:.60})" if error["loc"] else ""
        raise ConfigError(f"{definition.path}: key {_key_of(error)}: {message}{value}") from None


def load_competition(competition_id: str, recorded_at: datetime, clock: Clock = Clock.LIVE) -> Competition:
    """The :class:`Competition` record for a definition, stamped ``recorded_at``."""
    return competition_from_definition(load_definition(competition_id), recorded_at, clock)
