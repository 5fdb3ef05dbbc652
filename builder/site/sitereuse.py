"""The whole site kept when nothing it is made of changed: a rebuild with nothing to do writes nothing.

A site is a pure function of (every list sorted, nothing read from the clock):

* the archive's files and the commit: the archive manifest (:func:`builder.site.exports.archive_manifest`),
  which also covers the timestamp tokens the footer's anchor is read from;
* the archive folder's path (the scores name it) and its git history, through the commit that
  added each record (:func:`builder.site.provenance.added_commits`, the record links);
* the arena's public addresses (:class:`builder.site.provenance.ArenaUrls`);
* the installed code and libraries (:func:`collector.archive.store.code_version`: every file of
  the packages, templates and static files included, and every installed distribution's version);
* the archive's problems that no file's hash covers (:func:`unhashed_problems`: a link or a
  device refused by the listing, a file that could not be read), since the site lists them.

Their SHA-256 is the site's fingerprint (:func:`site_fingerprint`). The page cache keeps the
fingerprint of the latest build and the folder it wrote beside the state of every file
(:mod:`builder.site.cache`). A build whose fingerprint is that one, into that folder, which
finds the folder exactly as that build left it (:func:`builder.site.sitewriter.site_intact`)
scores nothing, renders nothing, writes nothing and leaves the cache as it was. Any difference
(one archive file, the commit, a template, a page edited or a stray file in the site) is an
ordinary build. It never changes a byte of the site, only how fast an unchanged one is built.

Every input but the archive's records is known before they are loaded, and the records enter
only by their files' SHA-256: so when the cache's site was built at the build's commit, the
build first reads and hashes the archive's files without parsing them (:func:`archive_hashes`);
if the fingerprint is then the kept one, what that build reported of the archive (its valid
records, the files it left out, the replay flag: :class:`builder.site.cache.SiteReport`, a
function of the same files and code) is reported again, and nothing is validated. Any other
outcome loads the archive as always (one more read of the files, only at an unchanged commit).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from contextlib import closing
from dataclasses import asdict
from pathlib import Path

import orjson

from builder.site.exportreuse import exports_fingerprint
from builder.site.provenance import ArenaUrls
from collector.archive.reader import read_hashed_ahead, scan_record_files
from collector.errors import Problem


def unhashed_problems(problems: Iterable[Problem], hashes: Mapping[str, str]) -> list[str]:
    """The ``problems`` about no file whose bytes were hashed (``hashes``: path -> SHA-256), as
    sorted text: what the site lists that the archive manifest does not cover."""
    return sorted(str(p) for p in problems if p.path not in hashes)


def archive_hashes(root: Path) -> tuple[dict[str, str], list[Problem]] | None:
    """The SHA-256 of every record file the reader would load (path -> hex, read as it reads
    them, none parsed) and the listing's problems; None when a file cannot be read (the load
    then reports it)."""
    paths, problems = scan_record_files(Path(root))
    hashes: dict[str, str] = {}
    with closing(read_hashed_ahead(str(root), paths)) as read:  # closed early: its reading worker stops
        for relative, _data, digest in read:
            if digest is None:
                return None
            hashes[relative] = digest
    return hashes, problems


def site_fingerprint(manifest: bytes, root: Path | str, urls: ArenaUrls, added: Mapping[str, str],
                     templates: str, hosted: Mapping[str, str] | None = None, unhashed: Iterable[str] = ()) -> str:
    """The fingerprint of everything a site is made of (see the module docstring).

    ``manifest``: the archive manifest's bytes (every archive file and the commit); ``root``: the
    archive folder as the scores name it; ``added``: record path -> the commit that added it;
    ``templates``: :func:`~builder.site.pagecache.templates_fingerprint` (the page cache's);
    ``hosted``: the records whose raw JSON the host serves (not copied into the site);
    ``unhashed``: :func:`unhashed_problems`."""
    head = orjson.dumps({
        "exports": exports_fingerprint(manifest),
        "templates": templates,
        "root": str(root),
        "urls": asdict(urls),
    }, option=orjson.OPT_SORT_KEYS)
    digest = hashlib.sha256(head + b"\0")
    digest.update(orjson.dumps(sorted(added.items())))
    digest.update(b"\0" + orjson.dumps(sorted(hosted or ())))
    digest.update(b"\0" + orjson.dumps(sorted(unhashed)))
    return digest.hexdigest()
