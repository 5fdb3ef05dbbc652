"""The one cache of everything Prematch can recompute: a content-addressed, authenticated store.

Every entry is (kind, key) -> value bytes, where ``key`` is the digest of the entry's inputs
(which include :func:`collector.archive.codeversion.code_version`) and the value is plain bytes or plain arrays
(:func:`pack_arrays`), never a pickle. Each entry carries an HMAC-SHA256 tag over its kind,
key, the SHA-256 of its value and its size, made with a secret the cache's owner alone holds
(:func:`cache_secret`: ``PREMATCH_CACHE_KEY`` in the Pages job, else a per-machine key file in
the cache folder). The index (kind, key, digest, size, tag) is checked when the store opens; a
value is checked against its authenticated digest when it is read. An entry that fails either
check (edited bytes with the digest updated, two entries swapped, an entry written without the
key) is *rejected*: named in :attr:`Store.rejected`, never used, and replaced by what the
caller recomputes. A file that is not such a store (truncated, another format) is reported and
started afresh. So a cache can only make a build faster, never change what it produces.

The store is one SQLite file (``store.sqlite``). Writes go into one open transaction that
:meth:`Store.commit` makes durable once the build succeeded; :meth:`Store.close` without a
commit leaves the store as the previous build left it. An entry is written only when its
value changed.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import secrets
import sqlite3
from collections.abc import Iterable
from pathlib import Path

STORE_FILE = "store.sqlite"
KEY_FILE = "store.key"
KEY_ENV = "PREMATCH_CACHE_KEY"
FORMAT = "prematch-store-1"  # also in every entry's tag
_SCHEMA = (
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ("CREATE TABLE entries (kind TEXT NOT NULL, key TEXT NOT NULL, digest TEXT NOT NULL, size INTEGER NOT NULL,"
     " tag BLOB NOT NULL, value BLOB NOT NULL, PRIMARY KEY (kind, key))"),
)


def cache_secret(folder: Path) -> tuple[bytes | None, str]:
    """The key that authenticates the entries of the store in ``folder``, and a note.

    ``PREMATCH_CACHE_KEY`` when set (the Pages job's secret). Otherwise this machine's key,
    ``store.key`` in the folder (made once, readable by its owner only). On a GitHub Actions
    runner without the secret a folder may have been restored from the Actions cache, which any
    job can write: there the key file is trusted only when this very job made it (it names the
    run, attempt and job), so entries from any other job are rejected."""
    given = os.environ.get(KEY_ENV, "")
    if given:
        return given.encode(), ""
    runner = os.environ.get("GITHUB_ACTIONS") == "true"
    owner = "-".join(os.environ.get(n, "") for n in ("GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT", "GITHUB_JOB")) if runner else ""
    path = Path(folder) / KEY_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            key, _, made_by = path.read_bytes().strip().partition(b" ")
        except FileNotFoundError:
            key, made_by = b"", b""
        if len(key) < 32 or made_by.decode(errors="replace") != owner:
            key = secrets.token_hex(32).encode()
            temporary = path.with_name(f".{KEY_FILE}.{os.getpid()}")
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(handle, "wb") as out:
                out.write(key + (b" " + owner.encode() if owner else b"") + b"\n")
            os.replace(temporary, path)
    except OSError as exc:
        return None, f"cache {path.parent} not usable, nothing written ({exc}); every result computed"
    return key, ""


def pack_arrays(arrays: Iterable) -> bytes:
    """Arrays as the bytes of one ``.npz`` (plain arrays; object arrays are refused)."""
    import numpy as np  # here, not at the top: verify's cached path imports this module without numpy

    plain = [np.asarray(a) for a in arrays]
    if any(a.dtype.hasobject for a in plain):
        raise ValueError("an array of Python objects cannot be kept (it would be a pickle)")
    out = io.BytesIO()
    np.savez(out, *plain)
    return out.getvalue()


def unpack_arrays(value: bytes) -> tuple:
    """The arrays of :func:`pack_arrays`, in order (never unpickles: ValueError instead)."""
    import numpy as np

    with np.load(io.BytesIO(value), allow_pickle=False) as data:
        return tuple(data[f"arr_{i}"] for i in range(len(data.files)))


class Store:
    """An open store: its authenticated index, this build's pending writes and what it rejected."""

    def __init__(self, path: Path | None, secret: bytes | None, note: str = "") -> None:
        self.path, self._secret = path, secret
        self.db: sqlite3.Connection | None = None
        self.index: dict[tuple[str, str], tuple[str, int]] = {}  # (kind, key) -> (SHA-256, size), authenticated
        self.rejected: list[str] = []  # "kind key…: why" of each entry refused, in the order found
        self.notes: list[str] = [note] if note else []
        self.changed = False
        self._kinds: tuple[str, ...] = ()

    @classmethod
    def open(cls, folder: Path | None, kinds: tuple[str, ...] = ()) -> Store:
        """The store of ``folder`` (None: a store that keeps nothing); ``kinds``: read the index of
        only these kinds (all when empty)."""
        if folder is None:
            return cls(None, None)
        secret, note = cache_secret(Path(folder))
        if secret is None:
            return cls(None, None, note)
        store = cls(Path(folder) / STORE_FILE, secret)
        store._kinds = kinds
        store._connect()
        return store

    @property
    def active(self) -> bool:
        return self.db is not None

    def _connect(self) -> None:
        try:
            if self.path.exists():
                try:
                    self.db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
                    self._read()
                    return
                except (sqlite3.Error, ValueError) as exc:
                    self._drop()
                    self.notes.append(f"cache {self.path} unreadable ({exc}); started afresh")
                    self.path.unlink(missing_ok=True)
            self.db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
            with self.db:
                for statement in _SCHEMA:
                    self.db.execute(statement)
                self.db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
        except (OSError, sqlite3.Error) as exc:
            self._drop()
            self.notes.append(f"cache {self.path} not usable, nothing written ({exc}); every result computed")

    def _read(self) -> None:
        found = self.db.execute("SELECT value FROM meta WHERE name = 'format'").fetchone()
        if found is None or found[0] != FORMAT:
            raise ValueError(f"format {found[0] if found else None!r}, not {FORMAT!r}")
        where = f" WHERE kind IN ({', '.join('?' * len(self._kinds))})" if self._kinds else ""
        for kind, key, digest, size, tag in self.db.execute(f"SELECT kind, key, digest, size, tag FROM entries{where}",
                                                            self._kinds):
            if not (isinstance(kind, str) and isinstance(key, str) and isinstance(digest, str)
                    and type(size) is int and isinstance(tag, bytes)):
                self.rejected.append(f"{kind!s:.20} {key!s:.12}: not of the store's column types")
            elif not hmac.compare_digest(tag, self._tag(kind, key, digest, size)):
                self.rejected.append(f"{kind} {key[:12]}: authentication failed")
            else:
                self.index[(kind, key)] = (digest, size)

    def _tag(self, kind: str, key: str, digest: str, size: int) -> bytes:
        message = f"{FORMAT}\0{kind}\0{key}\0{digest}\0{size}".encode("utf-8", "surrogatepass")
        return hmac.new(self._secret, message, hashlib.sha256).digest()

    def _drop(self) -> None:
        if self.db is not None:
            self.db.close()
        self.db, self.index = None, {}

    def keys(self, kind: str) -> list[str]:
        """The authenticated keys of ``kind``."""
        return [key for k, key in self.index if k == kind]

    def known(self, kind: str, key: str) -> tuple[str, int] | None:
        """(SHA-256, size) of the authenticated entry, or None."""
        return self.index.get((kind, key))

    def get(self, kind: str, key: str) -> bytes | None:
        """The entry's value when its bytes are the ones its tag vouches for; else None (rejected and named)."""
        known = self.index.get((kind, key))
        if known is None or self.db is None:
            return None
        try:
            row = self.db.execute("SELECT value FROM entries WHERE kind = ? AND key = ?", (kind, key)).fetchone()
        except sqlite3.Error:
            row = None
        value = bytes(row[0]) if row is not None and isinstance(row[0], bytes) else None
        if value is None or len(value) != known[1] or hashlib.sha256(value).hexdigest() != known[0]:
            self.rejected.append(f"{kind} {key[:12]}: value does not match its authenticated digest")
            del self.index[(kind, key)]
            return None
        return value

    def put(self, kind: str, key: str, value: bytes, digest: str | None = None) -> None:
        """Keep ``value`` under (kind, key) in this build's transaction, unless the same bytes are there."""
        if self.db is None:
            return
        digest = digest or hashlib.sha256(value).hexdigest()
        if self.index.get((kind, key)) == (digest, len(value)):
            return
        try:
            self.db.execute("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?)",
                            (kind, key, digest, len(value), self._tag(kind, key, digest, len(value)), value))
        except sqlite3.Error as exc:
            self.notes.append(f"cache {self.path} not written ({exc}); the next build computes every result")
            self._drop()
            return
        self.index[(kind, key)] = (digest, len(value))
        self.changed = True

    def keep_only(self, kind: str, keys: Iterable[str]) -> None:
        """Drop the entries of ``kind`` not in ``keys`` (and every rejected entry of it) in this transaction."""
        if self.db is None:
            return
        wanted = set(keys)
        stale = [key for key in self.keys(kind) if key not in wanted]
        try:
            self.db.executemany("DELETE FROM entries WHERE kind = ? AND key = ?", ((kind, key) for key in stale))
            found = self.db.execute("SELECT key FROM entries WHERE kind = ?", (kind,)).fetchall()
            unknown = [(kind, key) for (key,) in found if (kind, key) not in self.index and key not in wanted]
            self.db.executemany("DELETE FROM entries WHERE kind = ? AND key = ?", unknown)
        except sqlite3.Error as exc:
            self.notes.append(f"cache {self.path} not written ({exc}); the next build computes every result")
            self._drop()
            return
        for key in stale:
            del self.index[(kind, key)]
        self.changed = self.changed or bool(stale or unknown)

    def commit(self) -> str:
        """Make this build's writes durable and close; "" or why they could not be."""
        if self.db is None:
            return ""
        try:
            if self.changed:
                self.db.commit()
            return ""
        except sqlite3.Error as exc:
            return f"cache {self.path} not written ({exc}); the next build computes every result"
        finally:
            self._drop()

    def close(self) -> None:
        """Close without keeping this build's writes."""
        if self.db is not None:
            self.db.rollback()
        self._drop()

    def report(self) -> list[str]:
        """Lines for the build's progress: why the store was not used, and each entry rejected."""
        lines = list(self.notes)
        if self.rejected:
            lines.append(f"cache: {len(self.rejected)} entries rejected and computed again: " + "; ".join(self.rejected))
        return lines


def read_entry(folder: Path | None, kind: str, key: str) -> tuple[bytes | None, list[str]]:
    """One entry's value from the store of ``folder`` (None when absent or rejected), and the
    store's notes: for a cache that keeps one entry per key (``verify``'s)."""
    store = Store.open(folder, (kind,))
    value = store.get(kind, key)
    store.close()
    return value, store.report()


def write_entry(folder: Path | None, kind: str, key: str, value: bytes, keep: int = 1) -> str:
    """Keep ``value`` under (kind, key) in the store of ``folder``, and at most ``keep`` entries of
    ``kind`` (the others dropped, the oldest written first); "" or why it could not be kept."""
    store = Store.open(folder, (kind,))
    if not store.active:
        return "; ".join(store.notes)
    store.put(kind, key, value)
    try:
        order = [k for (k,) in store.db.execute("SELECT key FROM entries WHERE kind = ? ORDER BY rowid", (kind,))]
    except sqlite3.Error:
        order = []
    store.keep_only(kind, [k for k in order if k != key][-(keep - 1):] + [key] if keep > 1 else [key])
    return store.commit()
