"""What a sync wrote and the problems it met, and the one write path: new record or next revision."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from collector.errors import Problem, RecordExistsError
from collector.layout import path_for
from collector.match_records import changes
from collector.reader import Archive
from collector.records import Revisable
from collector.revise import next_revision
from collector.writer import ArchiveWriter


@dataclass
class SyncReport:
    """What a sync wrote (archive-relative paths), counted by kind, and every problem met."""

    competition_id: str
    written: list[str] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)

    def merge(self, other: SyncReport) -> SyncReport:
        self.written += other.written
        self.counts.update(other.counts)
        self.problems += [p for p in other.problems if p not in self.problems]
        return self



def write_or_revise(writer: ArchiveWriter, archive: Archive, current: Revisable | None, fresh: Revisable, kind: str,
                    report: SyncReport, reason: str) -> None:
    """Write ``fresh`` as a new record, or as the next revision of ``current`` if its content differs.

    The in-memory ``archive`` is updated so later steps of the same sync see the record. A file
    already at the target path that the reader rejected is reported, never overwritten.
    """
    if current is not None:
        diff = changes(current, fresh)
        if not diff:
            return
        fresh = next_revision(current, fresh, reason=f"{reason}: " + "; ".join(diff), recorded_at=fresh.recorded_at)
    try:
        path = writer.write(fresh)
    except RecordExistsError:
        report.problems.append(Problem(
            path_for(fresh), "a file already exists here that the reader rejected (hand-edited, or a broken revision chain); not overwritten",
        ))
        return
    report.written.append(path)
    report.counts[f"{kind}s_{'revised' if current is not None else 'new'}"] += 1
    if writer.archive is not archive:  # a writer bound to this archive has already taken it in
        archive.add(path, fresh)

