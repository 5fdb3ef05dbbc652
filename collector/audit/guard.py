"""The append-only guard for pull requests: a change may add archive files, never alter or remove one.

``check_changes`` compares ``head`` (default ``HEAD``) with the merge base of ``base``
(``git diff base...head``), so only what the pull request itself changes is judged. ``head`` need
not be checked out: the ``pull_request_target`` workflow fetches a pull request's commits as data
and judges them with the base branch's code. Renames count as a deletion plus an
addition. Files under ``archive/schema/`` are regenerated from the models and may change.
Every added record file must validate against the contract at its own path (files are keyed
by path: one file's bytes added at several paths are checked at each). Time-stamp tokens and attestation
bundles beside the manifests (``collector.archive.tokens``) are not records but append-only too.
An endpoint forecaster's records come only from the tick (asked in the arena's window, committed in
its manifest): a change that adds a forecast of type ``endpoint``, or of a forecaster configured as
one in ``prematch.toml`` at the base or the head, is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from collector.archive.git import git
from collector.archive.layout import is_record_path
from collector.archive.reader import parse_record
from collector.archive.tokens import is_proof_path
from collector.audit.checks import not_a_file, retry_problems
from collector.audit.gitlog import read_blobs
from collector.errors import ArchiveError, Problem, UsageError

_WORDS = {"M": "modifies", "D": "deletes", "T": "changes the type of"}


@dataclass
class GuardReport:
    """What a change since ``base`` does to the archive: files added, and every problem."""

    base: str
    added: int = 0
    problems: list[Problem] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        if self.problems:
            return [f"guard: {len(self.problems)} problem(s) in the archive changes since {self.base}"]
        return [f"guard: OK, {self.added} archive file(s) added since {self.base}, none modified or deleted"]


def check_changes(repo: Path, base: str, archive_path: str = "archive", head: str = "HEAD") -> GuardReport:
    """The archive changes between ``base``'s merge base and ``head``: files added, and every problem.

    A ``base`` or ``head`` that names no commit is a :class:`UsageError`.
    """
    for option, name in (("--base", base), ("--head", head)):
        try:
            git(repo, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")
        except ArchiveError:
            raise UsageError(f"{option} {name}: no such branch or commit in {repo}") from None
    prefix = archive_path.strip("/") + "/"
    raw = git(repo, "diff", "--raw", "--no-renames", "--no-abbrev", "-z", f"{base}...{head}", "--", prefix)
    tokens = raw.decode("utf-8", "surrogateescape").split("\0")
    problems: list[Problem] = []
    added: dict[str, str] = {}  # archive-relative path -> blob: every path is checked, one file's bytes at many paths too
    proofs_added = 0
    for meta, path in zip(tokens[0::2], tokens[1::2], strict=False):
        if not meta.startswith(":"):
            continue
        fields = meta[1:].split(" ")
        status, relative = fields[4][0], path[len(prefix) :]
        what = not_a_file(fields[1])
        if what is not None and status != "D":  # anywhere under the archive, record path or not
            problems.append(Problem(path, f"this change adds {what}; the archive holds regular files only"))
            continue
        proof = is_proof_path(relative)  # time-stamp tokens and attestations: append-only, not records
        if not is_record_path(relative) and not proof:
            continue
        if status == "A":
            if proof:
                proofs_added += 1
            else:
                added[relative] = fields[3]
        else:
            word = _WORDS.get(status, f"changes ({status})")
            problems.append(Problem(path, f"this change {word} an existing archive file; the archive is append-only"))
    retries = {}
    agents = endpoint_ids(repo, (base, head)) if added else frozenset()
    paths_of: dict[str, list[str]] = {}
    for relative, blob in added.items():
        paths_of.setdefault(blob, []).append(relative)
    for blob, data in read_blobs(repo, paths_of):
        for relative in paths_of[blob]:
            record, problem = parse_record(relative, data)
            if problem is not None:
                problems.append(Problem(prefix + problem.path, f"added file does not validate: {problem.message}"))
            elif record.kind == "forecast" and (record.forecaster_type.value == "endpoint" or record.forecaster in agents):
                problems.append(Problem(prefix + relative, f"adds a forecast of endpoint forecaster {record.forecaster}; "
                                        "an endpoint's records come only from the arena's tick"))
            elif getattr(record, "supersedes", None) and record.kind == "forecast":
                retries[prefix + relative] = prefix + record.supersedes
    problems += retry_problems(repo, retries, head)
    return GuardReport(base, len(added) + proofs_added, problems)


def endpoint_ids(repo: Path, revisions: tuple[str, ...], config: str = "prematch.toml") -> frozenset[str]:
    """The ids configured with ``type = "endpoint"`` in ``config`` at any of ``revisions`` (a revision
    without the file, or with a file that does not parse, names none)."""
    import tomllib

    ids: set[str] = set()
    for revision in revisions:
        try:
            data = tomllib.loads(git(repo, "show", f"{revision}:{config}").decode("utf-8"))
        except (ArchiveError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        tables = data.get("forecasters") if isinstance(data.get("forecasters"), list) else []
        ids |= {t["id"] for t in tables if isinstance(t, dict) and t.get("type") == "endpoint" and isinstance(t.get("id"), str)}
    return frozenset(ids)
