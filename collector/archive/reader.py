"""Load and validate the whole archive, collect every problem, and resolve effective records.

A file that does not parse, does not validate, sits at a path other than its key's, or
breaks a supersession chain is reported as a :class:`~collector.errors.Problem` with its
path and left out; the rest of the archive still loads.
"""

from __future__ import annotations

import hashlib
import os
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from collector.archive.fileread import read_file as _read_file
from collector.archive.fileread import worker_reads
from collector.archive.layout import identity, is_record_path, path_for
from collector.archive.memory import (
    paused_garbage_collector,
    promote_to_oldest_generation,
)
from collector.errors import Problem, ProblemsFound
from collector.records import (
    RECORD_ADAPTER,
    AttemptStatistics,
    Competition,
    Event,
    Forecast,
    Manifest,
    MatchReport,
    Outcome,
    Question,
    QuestionResolution,
    Record,
    Revisable,
)

READ_BATCH = 512  # files read ahead by the helper thread while the previous batch is validated
WORKER_FILES = 4 * READ_BATCH  # from this many files on, a worker process reads and hashes them


@dataclass
class Archive:
    """Every valid record of an archive, with effective (latest valid) revisions resolved."""

    root: Path
    records: dict[str, Record] = field(default_factory=dict)  # path -> record, all revisions
    competitions: dict[str, Competition] = field(default_factory=dict)
    events: dict[tuple[str, str], Event] = field(default_factory=dict)
    outcomes: dict[tuple[str, str], Outcome] = field(default_factory=dict)
    match_reports: dict[tuple[str, str], MatchReport] = field(default_factory=dict)
    questions: dict[tuple[str, str], Question] = field(default_factory=dict)
    resolutions: dict[tuple[str, str], QuestionResolution] = field(default_factory=dict)
    forecasts: list[Forecast] = field(default_factory=list)  # the effective record of each forecast key
    superseded: list[Forecast] = field(default_factory=list)  # transport failures a retry replaced
    manifests: list[Manifest] = field(default_factory=list)
    attempt_statistics: dict[str, list[AttemptStatistics]] = field(default_factory=dict)  # by forecast path
    effective_paths: dict[tuple[str, ...], str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    sha256: dict[str, str] = field(default_factory=dict)  # path -> SHA-256 of the bytes read, valid or not

    def effective_path(self, record: Record) -> str | None:
        return self.effective_paths.get(identity(record))

    # One competition's part of the view. Computed on every call (no index to fall out of step
    # with :meth:`add` or with a copy made by ``dataclasses.replace``), in archive order.

    def events_of(self, competition_id: str) -> list[Event]:
        """The competition's effective events."""
        return [e for (c, _), e in self.events.items() if c == competition_id]

    def outcomes_of(self, competition_id: str) -> dict[str, Outcome]:
        """The competition's effective outcomes, by event id."""
        return {eid: o for (c, eid), o in self.outcomes.items() if c == competition_id}

    def results_before(self, competition_id: str, now: datetime) -> dict[str, Outcome]:
        """The competition's outcomes recorded at or before ``now``, by event id: what was known then."""
        return {eid: o for eid, o in self.outcomes_of(competition_id).items() if o.recorded_at <= now}

    def match_reports_of(self, competition_id: str) -> dict[str, MatchReport]:
        """The competition's effective match reports, by event id."""
        return {eid: r for (c, eid), r in self.match_reports.items() if c == competition_id}

    def questions_of(self, competition_id: str) -> list[Question]:
        """The competition's effective questions."""
        return [q for (c, _), q in self.questions.items() if c == competition_id]

    def resolutions_of(self, competition_id: str) -> dict[str, QuestionResolution]:
        """The competition's effective question resolutions, by question id."""
        return {qid: r for (c, qid), r in self.resolutions.items() if c == competition_id}

    def forecasts_of(self, competition_id: str) -> list[Forecast]:
        """The competition's effective forecasts (one per key; a retried failure is in ``superseded``)."""
        return [f for f in self.forecasts if f.competition_id == competition_id]

    def add(self, path: str, record: Record) -> None:
        """Take a record just written at ``path`` into the in-memory view (the writer calls this).

        A revision becomes effective when it continues the chain of the current effective
        record, exactly as :func:`load_archive` would resolve it from disk.
        """
        self.records[path] = record
        if isinstance(record, Forecast):
            key = identity(record)
            current = self.effective_paths.get(key)
            if current is None and record.revision == 0:
                self.effective_paths[key] = path
                self.forecasts.append(record)
            elif current is not None and record.supersedes == current and self.records[current].transport_failure:
                old = self.records[current]
                self.effective_paths[key] = path
                self.forecasts[next(i for i, f in enumerate(self.forecasts) if f is old)] = record
                self.superseded.append(old)
        elif isinstance(record, Manifest):
            self.manifests.append(record)
        elif isinstance(record, AttemptStatistics):
            self.attempt_statistics.setdefault(record.forecast_path, []).append(record)
        elif isinstance(record, Revisable):
            key = identity(record)
            current = self.effective_paths.get(key)
            if (current is None and record.revision == 0) or (current is not None and record.supersedes == current):
                self.effective_paths[key] = path
                _index(self, record)

    def raise_for_problems(self) -> None:
        if self.problems:
            raise ProblemsFound(self.problems)


def iter_record_files(root: Path) -> list[str]:
    """Archive-relative paths of every record file (see :func:`is_record_path`), sorted."""
    return scan_record_files(root)[0]


def scan_record_files(root: Path) -> tuple[list[str], list[Problem]]:
    """Every record file (sorted), and a problem for every link or non-regular file in the archive.

    A symlink (to a file or a folder) or any other entry that is neither a regular file nor a
    folder is never followed or read, wherever it is (``schema/`` included; hidden entries are
    skipped as always).
    """
    found: list[str] = []
    problems: list[Problem] = []
    pending = [""]
    while pending:
        rel_folder = pending.pop()
        try:
            entries = list(os.scandir(os.path.join(str(root), rel_folder) if rel_folder else str(root)))
        except OSError as exc:
            problems.append(Problem(rel_folder or ".", f"cannot list: {exc}"))
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            relative = f"{rel_folder}/{entry.name}" if rel_folder else entry.name
            if entry.is_symlink():
                problems.append(Problem(relative, "is a symlink; links in the archive are refused and never followed"))
            elif entry.is_dir(follow_symlinks=False):
                pending.append(relative)
            elif not entry.is_file(follow_symlinks=False):
                problems.append(Problem(relative, "is not a regular file (a device, pipe or socket); refused"))
            elif is_record_path(relative):
                found.append(relative)
    found.sort()
    problems.sort(key=lambda p: p.path)
    return found, problems


def parse_record(relative: str, data: bytes) -> tuple[Record | None, Problem | None]:
    """Validate one file's bytes; return the record, or a problem naming path, field and value."""
    record, message = validate_bytes(data)
    if record is None:
        return None, Problem(relative, message)
    problem = misplaced(relative, path_for(record))
    return (None, problem) if problem is not None else (record, None)


def validate_bytes(data: bytes) -> tuple[Record | None, str | None]:
    """The contract's verdict on one file's bytes, wherever it lies: the record, or what is wrong."""
    try:
        return _VALIDATE_JSON(data), None
    except ValidationError as exc:
        return None, describe_validation_error(exc)


_VALIDATE_JSON = RECORD_ADAPTER.validator.validate_json
"""The adapter's own validator, called without TypeAdapter's per-call wrapper (same defaults)."""


def misplaced(relative: str, expected: str) -> Problem | None:
    """The problem of a valid record found at ``relative`` whose key says it belongs at ``expected``."""
    if expected == relative:
        return None
    return Problem(relative, f"record belongs at {expected!r}, not here (its key was edited?)")


def describe_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "(record)"
        value = err.get("input")
        shown = repr(value) if not isinstance(value, dict | list) else type(value).__name__
        if len(shown) > 80:
            shown = shown[:77] + "..."
        parts.append(f"field {where}: {err['msg']} (value {shown})")
    more = len(exc.errors()) - 5
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def load_archive(root: Path | str) -> Archive:
    """Read, validate and resolve every record under ``root``; problems are collected, not raised."""
    archive = Archive(root=Path(root))
    if not archive.root.exists():
        return archive
    # Loading creates millions of long-lived objects; the cyclic garbage collector would rescan
    # them over and over (more time than the load itself on a large archive), so it is paused.
    with paused_garbage_collector():
        _load_files(archive)
        _resolve(archive)
        promote_to_oldest_generation()
    return archive


def _load_files(archive: Archive) -> None:
    paths, archive.problems[:0] = scan_record_files(archive.root)
    problems, records, hashes = archive.problems, archive.records, archive.sha256
    for relative, data, digest in read_hashed_ahead(str(archive.root), paths):
        if digest is None:
            problems.append(Problem(relative, f"cannot read: {data}"))
            continue
        hashes[relative] = digest  # the manifest export's hashes, without a re-read
        record, problem = parse_record(relative, data)
        if problem is not None:
            problems.append(problem)
        else:
            records[relative] = record


def read_ahead(root: str, paths: list[str]) -> Iterator[tuple[str, bytes | OSError]]:
    """Each path with its bytes (or the error reading it), in order. A helper thread reads the
    next batch of files while the caller validates this one: file reads release the GIL, so
    the disk waits overlap with validation on a second core."""
    for relative, data, _ in _ahead(root, paths, hashed=False):
        yield relative, data


def read_hashed_ahead(root: str, paths: list[str]) -> Iterator[tuple[str, bytes | OSError, str | None]]:
    """As :func:`read_ahead`, with the SHA-256 (hex) of each file's bytes, or None where it could
    not be read. From :data:`WORKER_FILES` files on, a worker process reads and hashes them
    (:mod:`collector.archive.fileread`: a thread would take turns with validation for the GIL);
    whatever it did not deliver (it could not start, or it stopped) is read here, by the thread."""
    delivered = 0
    if len(paths) >= WORKER_FILES:
        with closing(worker_reads(root, paths)) as received:
            for item in received:
                yield item
                delivered += 1
    if delivered < len(paths):
        yield from _ahead(root, paths[delivered:], hashed=True)


def _ahead(root: str, paths: list[str], hashed: bool) -> Iterator[tuple[str, bytes | OSError, str | None]]:
    batches = [paths[start : start + READ_BATCH] for start in range(0, len(paths), READ_BATCH)]
    if len(batches) <= 1:
        yield from _read_batch(root, paths, hashed)
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="prematch-read") as pool:
        pending = pool.submit(_read_batch, root, batches[0], hashed)
        for following in batches[1:] + [None]:
            ready = pending.result()
            if following is not None:
                pending = pool.submit(_read_batch, root, following, hashed)
            yield from ready


def _read_batch(root: str, paths: list[str], hashed: bool) -> list[tuple[str, bytes | OSError, str | None]]:
    found: list[tuple[str, bytes | OSError, str | None]] = []
    for relative in paths:
        try:  # plain string paths: pathlib costs more than reading a small file
            data = _read_file(os.path.join(root, relative))
        except OSError as exc:
            found.append((relative, exc, None))
        else:
            found.append((relative, data, hashlib.sha256(data).hexdigest() if hashed else ""))
    return found


def _resolve(archive: Archive) -> None:
    chains: dict[tuple[str, ...], dict[int, tuple[str, Revisable]]] = defaultdict(dict)
    retries: dict[tuple[str, ...], dict[int, tuple[str, Revisable]]] = defaultdict(dict)
    for path, record in archive.records.items():
        if isinstance(record, Forecast):
            retries[identity(record)][record.revision] = (path, record)
        elif isinstance(record, Manifest):
            archive.manifests.append(record)
        elif isinstance(record, AttemptStatistics):
            archive.attempt_statistics.setdefault(record.forecast_path, []).append(record)
        elif isinstance(record, Revisable):
            chains[identity(record)][record.revision] = (path, record)
    archive.manifests.sort(key=lambda m: m.tick_at)
    for key, revisions in retries.items():
        _resolve_forecast(archive, key, revisions)
    for key, revisions in chains.items():
        effective = effective_revision(revisions, archive.problems)
        if effective is None:
            continue
        path, record = effective
        archive.effective_paths[key] = path
        _index(archive, record)


def _resolve_forecast(archive: Archive, key: tuple[str, ...], revisions: dict) -> None:
    """The effective record of one forecast key: the last retry of an unbroken chain of transport failures.

    Revision n (a retry) must name revision n-1, and revision n-1 must be a transport failure
    (api_error, timeout): a valid, normalised, repaired or invalid answer is never superseded.
    Where the chain breaks, the record before the break stands and the rest is reported.
    """
    if len(revisions) == 1 and 0 in revisions:  # nearly every key: no retry
        path, record = revisions[0]
        archive.effective_paths[key] = path
        archive.forecasts.append(record)
        return
    effective = effective_revision(revisions, archive.problems, may_supersede=lambda old: old.transport_failure)
    if effective is None:
        return
    archive.effective_paths[key] = effective[0]
    archive.forecasts.append(effective[1])
    archive.superseded += [revisions[r][1] for r in sorted(revisions) if r < effective[1].revision]


def effective_revision(
    revisions: dict[int, tuple[str, Revisable]], problems: list[Problem], may_supersede=None
) -> tuple[str, Revisable] | None:
    """Walk revisions 0, 1, 2, ... while each names its predecessor; report where a chain breaks."""
    if 0 not in revisions:
        for path, _ in revisions.values():
            problems.append(Problem(path, "supersession chain has no revision 0"))
        return None
    current = revisions[0]
    if current[1].supersedes is not None:
        problems.append(Problem(current[0], "revision 0 cannot supersede another record"))
    rev = 1
    while rev in revisions:
        path, record = revisions[rev]
        if record.supersedes != current[0]:
            problems.append(
                Problem(path, f"supersedes {record.supersedes!r}, expected {current[0]!r}; chain stops here")
            )
            break
        if may_supersede is not None and not may_supersede(current[1]):
            problems.append(Problem(path, f"supersedes a {current[1].status.value} forecast; only transport failures "
                                          "(api_error, timeout) may be retried, so the earlier record stands"))
            break
        current = revisions[rev]
        rev += 1
    for later in sorted(r for r in revisions if r > rev):
        problems.append(Problem(revisions[later][0], f"revision {later} follows a gap or a broken chain"))
    return current


def _index(archive: Archive, record: Revisable) -> None:
    match record:
        case Competition():
            archive.competitions[record.id] = record
        case Event():
            archive.events[(record.competition_id, record.id)] = record
        case Outcome():
            archive.outcomes[(record.competition_id, record.event_id)] = record
        case MatchReport():
            archive.match_reports[(record.competition_id, record.event_id)] = record
        case Question():
            archive.questions[(record.competition_id, record.id)] = record
        case QuestionResolution():
            archive.resolutions[(record.competition_id, record.question_id)] = record
