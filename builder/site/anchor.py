"""The proof shown in every page's footer: the latest tick manifest's SHA-256 and its token times.

A copy of any page (an archive.org snapshot, a screenshot in a post) then carries a manifest
hash seen at a known moment: ``python -m collector verify --anchor SHA256`` shows what it pins.
The token times are read from the tokens beside the manifest without checking them (``verify``
does that); the footer says so.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from collector.archive.layout import MANIFEST_DIR
from collector.archive.tokens import TOKEN_SUFFIX, manifest_paths, token_target, token_time


@dataclass(frozen=True)
class AnchorView:
    """The latest manifest: its archive path, SHA-256, and ``(authority, stamped time)`` per token;
    ``held``: ``(authority, tokens)`` over every manifest of the archive (what the Audit page says
    the archive holds, whatever the configuration promises)."""

    manifest: str
    sha256: str
    tokens: tuple[tuple[str, str], ...]
    held: tuple[tuple[str, int], ...] = ()


def latest_anchor(archive_dir: Path) -> AnchorView | None:
    """The newest manifest of the archive folder with its token times, or None without manifests."""
    manifests = manifest_paths(archive_dir)
    if not manifests:
        return None
    latest = manifests[-1]
    digest = hashlib.sha256((archive_dir / latest).read_bytes()).hexdigest()
    tokens = []
    stem = latest.removesuffix(".json")
    for token in sorted((archive_dir / latest).parent.glob(f"{Path(stem).name}.*.tsr")):
        target = token_target(token.relative_to(archive_dir).as_posix())
        moment = token_time(token.read_bytes()) if target else None
        if target and moment is not None:
            tokens.append((target[1], moment.strftime("%Y-%m-%d %H:%M:%S UTC")))
    held: dict[str, int] = {}
    for token in (archive_dir / MANIFEST_DIR).glob(f"*/*{TOKEN_SUFFIX}"):
        target = token_target(token.relative_to(archive_dir).as_posix())
        if target:
            held[target[1]] = held.get(target[1], 0) + 1
    return AnchorView(latest, digest, tuple(tokens), tuple(sorted(held.items())))
