"""Ways to tamper with the one cache (:mod:`collector.archive.store`), as the tamper tests use them."""

from __future__ import annotations

import sqlite3


def swap_entries(db: sqlite3.Connection, kind: str) -> None:
    """Exchange the first two entries of ``kind``: each key gets the other's value, digest, size and tag."""
    (a, *va), (b, *vb) = db.execute(
        "SELECT key, digest, size, tag, value FROM entries WHERE kind = ? ORDER BY key LIMIT 2", (kind,)).fetchall()
    for key, (digest, size, tag, value) in ((a, vb), (b, va)):
        db.execute("UPDATE entries SET digest = ?, size = ?, tag = ?, value = ? WHERE kind = ? AND key = ?",
                   (digest, size, tag, value, kind, key))


def forge_entries(path, kind: str, change, key: str | None = None) -> int:
    """What someone without the cache's key can do: replace the value of every entry of ``kind``
    (or just ``key``) by ``change(value)``, with its digest and size updated and its tag left.
    Returns how many entries were changed."""
    import hashlib

    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT key, value FROM entries WHERE kind = ?" + (" AND key = ?" if key else ""),
                          (kind, key) if key else (kind,)).fetchall()
        for found, value in rows:
            new = change(bytes(value))
            db.execute("UPDATE entries SET value = ?, digest = ?, size = ? WHERE kind = ? AND key = ?",
                       (new, hashlib.sha256(new).hexdigest(), len(new), kind, found))
    db.close()
    return len(rows)


def rewrite_entry(folder, kind: str, key: str, change) -> None:
    """What the cache's owner can do (a build of other code, say): replace an entry's value by
    ``change(value)`` through the store, authenticated with the folder's key."""
    from collector.archive.store import Store

    store = Store.open(folder)
    store.put(kind, key, change(store.get(kind, key)))
    assert store.commit() == ""


def entry_keys(folder, kind: str) -> list[str]:
    """The keys of ``kind`` in the store of ``folder``, as written (authenticated or not)."""
    from collector.archive.store import STORE_FILE

    path = folder / STORE_FILE
    if not path.exists():
        return []
    with sqlite3.connect(path) as db:
        found = [key for (key,) in db.execute("SELECT key FROM entries WHERE kind = ? ORDER BY key", (kind,))]
    db.close()
    return found
