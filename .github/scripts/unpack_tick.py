"""Unpack the tick job's tar in the commit job: regular files under ``archive/``, nothing else.

The commit job holds a token that can push and sign, and the tar comes from the tick job, which
ran the collector on untrusted provider answers. ``tar -xf`` would write whatever the tar names:
``.git/hooks/pre-commit`` (run at ``git commit``), a link to a file outside the checkout, ``../x``.
This script reads the tar as data and refuses it whole, naming every offending member, unless
every member is

* a regular file (no link, hard link, directory, device or FIFO),
* named by a relative path under ``archive/`` whose parts are plain names (no ``..``, no ``.``,
  no empty part, no part starting with ``.`` such as ``.git`` or ``.gitattributes``, no
  backslash or control character),
* named once, and new: a file that already exists is never replaced (the archive is append-only).

Only then are the files written, each created exclusively (``O_EXCL | O_NOFOLLOW``) with mode
0644, below folders that are real folders, not links. Standard library only, run with
``python3 -I`` before anything is installed: ``python3 -I .github/scripts/unpack_tick.py tick.tar``.
Exit 0 with the written paths on stdout; 1 when the tar is refused (each problem one
``problem:`` line on stderr, nothing written); 2 when used wrongly.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import tarfile
from pathlib import Path, PurePosixPath

TOP = "archive"
MAX_TOTAL_BYTES = 1 << 30  # a tick writes megabytes; a tar that would fill the disk is refused


def member_problem(member: tarfile.TarInfo, seen: set[str]) -> str | None:
    """Why ``member`` may not be unpacked, or None."""
    name = member.name
    if not member.isreg():
        kind = ("a symbolic link" if member.issym() else "a hard link" if member.islnk() else
                "a directory" if member.isdir() else "a device or FIFO")  # fmt: skip
        return f"is {kind}; only regular files are unpacked"
    if name.startswith("/") or "\\" in name or any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "is not a relative POSIX path of printable characters"
    parts = name.split("/")
    if parts[0] != TOP or len(parts) < 2:
        return f"is outside {TOP}/"
    bad = [p for p in parts if p in ("", ".", "..") or p.startswith(".")]
    if bad:
        return f"has the path part {bad[0]!r} (no '..', '.', empty or hidden parts such as .git)"
    if name in seen:
        return "appears twice in the tar"
    return None


def plan(archive: tarfile.TarFile, dest: Path) -> tuple[list[tarfile.TarInfo], list[str]]:
    """The members to write and every problem (all of them, not just the first)."""
    members, problems, seen, total = [], [], set(), 0
    for member in archive:
        problem = member_problem(member, seen)
        seen.add(member.name)
        if problem is None and os.path.lexists(dest / member.name):
            problem = "names a file that already exists; the archive is append-only"
        if problem is None:
            total += member.size
            members.append(member)
        else:
            problems.append(f"member {member.name!r}: {problem}")
    if total > MAX_TOTAL_BYTES:
        problems.append(f"{total} bytes of files, more than the {MAX_TOTAL_BYTES} a tick can have written")
    return members, problems


def _real_folder(dest: Path, relative: PurePosixPath) -> Path:
    """``dest/relative``'s parent folder, made where missing, each part a real folder (never a link)."""
    folder = dest
    for part in relative.parent.parts:
        folder = folder / part
        try:
            mode = os.lstat(folder).st_mode
        except FileNotFoundError:
            os.mkdir(folder, 0o755)
            continue
        if not stat.S_ISDIR(mode):
            raise OSError(f"{folder} is not a folder (a link or a file)")
    return folder


def write(archive: tarfile.TarFile, member: tarfile.TarInfo, dest: Path) -> None:
    relative = PurePosixPath(member.name)
    target = _real_folder(dest, relative) / relative.name
    source = archive.extractfile(member)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as out:
        while chunk := source.read(1 << 20):
            out.write(chunk)


def unpack(tar_path: Path, dest: Path) -> tuple[list[str], list[str]]:
    """(paths written, problems); nothing is written when there is any problem."""
    try:
        with tarfile.open(tar_path, mode="r:") as archive:
            members, problems = plan(archive, dest)
            if problems:
                return [], problems
            for member in members:
                write(archive, member, dest)
    except (tarfile.TarError, OSError) as exc:
        return [], [f"cannot unpack: {type(exc).__name__}: {exc}"]
    return [m.name for m in members], []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Unpack a tick's tar: regular files under archive/ only.")
    parser.add_argument("tar", type=Path, help="the tar the tick job uploaded (tick.tar)")
    parser.add_argument("--dest", type=Path, default=Path("."), help="the checkout to unpack into (default: .)")
    args = parser.parse_args(argv)
    if not args.tar.is_file() or not args.dest.is_dir():
        print(f"unpack_tick: {args.tar} is not a file or {args.dest} is not a folder", file=sys.stderr)
        return 2
    written, problems = unpack(args.tar, args.dest)
    for problem in problems:
        print(f"problem: {args.tar}: {problem}", file=sys.stderr)
    for path in written:
        print(path)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
