"""The site writer keeps no stat of every file of the previous site (at 300,000 files, a few hundred
megabytes of a warm build's peak): each file is stat'ed when its name is put, so what vouches for
an unchanged file is the file as it is then, not as the writer found it when it opened."""

from __future__ import annotations

import hashlib
import os
import time

from builder.site.sitewriter import FileState, SiteWriter


def _trusted(out, name: str, data: bytes) -> FileState:
    """The state a previous build keeps for a file of ``data`` (its stat trusted: past the racy window)."""
    (out / name).write_bytes(data)
    time.sleep(0.1)
    st = os.stat(out / name)
    return FileState(hashlib.sha256(data).hexdigest(), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def test_a_file_edited_after_the_writer_opened_the_site_is_rewritten(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    previous = {"a.html": _trusted(out, "a.html", b"old"), "b.html": _trusted(out, "b.html", b"same")}
    writer = SiteWriter(out, previous)
    kept = os.stat(out / "a.html")
    (out / "a.html").write_bytes(b"new")  # same size, same mtime: only the ctime tells
    os.utime(out / "a.html", ns=(kept.st_atime_ns, kept.st_mtime_ns))
    writer.put("a.html", b"old")
    writer.put("b.html", b"same")
    writer.commit()
    assert (out / "a.html").read_bytes() == b"old"
    assert writer.staged == ["a.html"]  # b.html: unchanged, vouched for by its state
