"""Downloads kept from the previous build when nothing they are made of changed.

The downloads (:mod:`builder.site.exports`) are a pure function of the archive's files, the
commit and the code that loads, scores and exports them. The archive manifest already names the
first two (the SHA-256 of every archive file and the commit), so the downloads' fingerprint is
the SHA-256 of the manifest's bytes and of the code (:func:`collector.archive.store.code_version`). A build whose
fingerprint is the one the previous build kept in the page cache (:mod:`builder.site.cache`)
hands the site writer the previous site's files as :class:`~builder.site.sitewriter.Cached`
contents instead of writing the tables again; any download missing or altered in the site (its
state in the cache no longer vouches for it and its bytes differ) makes every download built
afresh. It never changes a byte of the site, only how fast it is built.

When the fingerprint changed (a tick), a keyed table's unchanged chunks are still copied from
the previous site's files (:mod:`builder.site.exportchunks`): :func:`chunk_entry` is what the
cache keeps of them, :func:`previous_files` what the next build may copy from.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from builder.site.exportchunks import PreviousFiles, parse_chunks
from builder.site.sitewriter import Cached, FileState, vouched
from collector.archive.codeversion import code_version

SQLITE = "data/prematch.sqlite"  # as builder.site.exports names them
DATA_DIR = "data"


def exports_fingerprint(manifest: bytes) -> str:
    """The downloads' fingerprint: the archive manifest's bytes (every archive file and the commit) and the code."""
    return hashlib.sha256(code_version().encode() + b"\0" + manifest).hexdigest()


def kept_exports(names: list[str], states: Mapping[str, FileState], out_dir: Path) -> dict[str, Cached] | None:
    """Each download of the previous build as a :class:`Cached` content read from the site, or None
    when any of them is not in the site as that build left it (then every download is built)."""
    kept: dict[str, Cached] = {}
    for name in names:
        state, path = states.get(name), Path(out_dir) / name
        if state is None or not vouched(path, state):
            return None
        kept[name] = Cached(state.sha256, state.size, path.read_bytes)
    return kept


def chunk_entry(index: Mapping, states: Mapping[str, FileState]) -> dict:
    """What the page cache keeps of this build's keyed downloads: their chunk ``index`` (table ->
    chunk entries), the SHA-256 of the files it describes and the code that wrote them."""
    names = [SQLITE] + [f"{DATA_DIR}/{table}.{kind}" for table in index for kind in ("csv", "json")]
    return {"code": code_version(), "files": {name: states[name].sha256 for name in names}, "tables": dict(index)}


def previous_files(entry, states: Mapping[str, FileState], out_dir: Path) -> PreviousFiles | None:
    """The previous site's downloads a keyed table's unchanged chunks may be copied from: those of
    the cache's chunk ``entry`` (:func:`chunk_entry`) written by this code and still in the site
    as that build left them (:func:`~builder.site.sitewriter.vouched`); None when there are none."""
    if not isinstance(entry, dict) or entry.get("code") != code_version():
        return None
    files, tables = entry.get("files"), entry.get("tables")
    if not isinstance(files, dict) or not isinstance(tables, dict):
        return None
    out = Path(out_dir)

    def unchanged(name: str) -> bool:
        state = states.get(name)
        return state is not None and files.get(name) == state.sha256 and vouched(out / name, state)

    if not unchanged(SQLITE):
        return None
    kept = {}
    for table, entries in tables.items():
        csv, json, chunks = f"{DATA_DIR}/{table}.csv", f"{DATA_DIR}/{table}.json", parse_chunks(entries)
        if isinstance(table, str) and table.isidentifier() and chunks is not None and unchanged(csv) and unchanged(json):
            kept[table] = (out / csv, out / json, chunks)
    return PreviousFiles(out / SQLITE, kept) if kept else None
