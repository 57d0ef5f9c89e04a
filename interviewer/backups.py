"""Rolling backups of the SQLite history database, restoring one when the file is damaged, and
telling every user whose history was affected.

Backups: `<data folder>/backups/rounds-<local time>.db`, copied with SQLite's online backup API
(consistent while the app writes, WAL included), checked (`PRAGMA quick_check`) before they count,
and the newest KEEP kept. One is taken when the app opens a healthy database and then at most
every EVERY_S seconds after a save; none is taken of a database with no rounds or one unchanged
since the newest backup, so a string of restarts never rotates good history out.

Recovery (store.open_store calls `recover` after moving a damaged file aside, or one emptied to
zero bytes): the newest healthy backup is restored in place, and a notice is kept for each owner
whose rounds were in the damaged file or the backup. When the damaged file cannot be read at all,
the owners are unknown, so every visitor is told once (the wording says "if you had rounds here").
Notices live in `backups/notices.db`, a separate small SQLite file, so they survive a restart and
a second damaged history file; each owner sees each notice once (`take_notices`). Messages never
name a server path: the log does, for the operator.

Only SQLite files have backups here; a PostgreSQL server is backed up by its operator.
"""
from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

log = logging.getLogger(__name__)

KEEP = 5              # backups kept
EVERY_S = 300.0       # at most one backup per this many seconds after saves
FOLDER = "backups"
NOTICE_DAYS = 30      # a notice for every visitor (owners unknown) is shown for this long
TIMEOUT_S = 5.0
_STAMP = re.compile(r"-(\d{8}-\d{6}-\d{6})\.db$")
_OWNER = re.compile(r"[A-Za-z0-9_.:@-]{1,128}")
_last: dict[Path, float] = {}
_lock = threading.Lock()


def folder(db: Path) -> Path:
    return Path(db).parent / FOLDER


def _connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        return sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, timeout=TIMEOUT_S)
    return sqlite3.connect(path, timeout=TIMEOUT_S)


def list_backups(db: Path) -> list[Path]:
    """The backups of `db`, newest first."""
    d = folder(db)
    if not d.is_dir():
        return []
    return sorted((p for p in d.glob(f"{Path(db).stem}-*.db") if _STAMP.search(p.name)), reverse=True)


def taken_at(backup: Path) -> float | None:
    """When `backup` was taken (epoch seconds), from its name."""
    m = _STAMP.search(Path(backup).name)
    if not m:
        return None
    day, clock, micros = m.group(1).split("-")
    return time.mktime(time.strptime(day + clock, "%Y%m%d%H%M%S")) + int(micros) / 1e6


def _signature(con: sqlite3.Connection) -> tuple | None:
    """(rounds, latest update) of a history database; None when it has no rounds table."""
    try:
        return tuple(con.execute("SELECT count(*), max(updated_at) FROM rounds").fetchone())
    except sqlite3.DatabaseError:
        return None


def healthy(path: Path) -> bool:
    """Whether `path` is a readable SQLite history database that passes a quick check."""
    try:
        with closing(_connect(path, readonly=True)) as con:
            ok = [r[0] for r in con.execute("PRAGMA quick_check").fetchall()] == ["ok"]
            return ok and _signature(con) is not None
    except sqlite3.Error:
        return False


def take_backup(db: Path, *, keep: int = KEEP, now: float | None = None) -> Path | None:
    """Copy `db` into the backups folder; returns the new backup, or None when there was nothing
    new to keep (no rounds, or unchanged since the newest backup). Old backups beyond `keep` go."""
    db = Path(db)
    if not db.is_file() or db.stat().st_size == 0:
        return None
    now = time.time() if now is None else now
    with closing(_connect(db)) as src:
        sig = _signature(src)
        if not sig or not sig[0]:
            return None
        newest = next(iter(list_backups(db)), None)
        if newest is not None:
            try:
                with closing(_connect(newest, readonly=True)) as old:
                    if _signature(old) == sig:
                        return None
            except sqlite3.Error:
                pass  # an unreadable backup is no reason to skip a good one
        d = folder(db)
        d.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + f"-{int(now * 1e6) % 1_000_000:06d}"
        dest = d / f"{db.stem}-{stamp}.db"
        tmp = d / f".{dest.name}.tmp"
        try:
            with closing(sqlite3.connect(tmp)) as dst:
                src.backup(dst)
                dst.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, not WAL
                if [r[0] for r in dst.execute("PRAGMA quick_check").fetchall()] != ["ok"]:
                    raise sqlite3.DatabaseError("the copy failed its quick check")
            os.replace(tmp, dest)
        finally:
            tmp.unlink(missing_ok=True)
    for old in list_backups(db)[max(keep, 1):]:
        old.unlink(missing_ok=True)
    log.info("history database backed up: %s", dest)
    return dest


def at_startup(db: Path) -> None:
    """A backup of a database that just opened cleanly; a failure is logged, never raised."""
    _guarded(Path(db))


def after_save(db: Path | None, every_s: float | None = None) -> None:
    """After a save: a backup when the last one (in this process) is EVERY_S seconds old."""
    if db is None:
        return
    db = Path(db)
    every = EVERY_S if every_s is None else every_s
    if time.monotonic() - _last.get(db, float("-inf")) >= every:
        _guarded(db)


def _guarded(db: Path) -> None:
    if not _lock.acquire(blocking=False):
        return  # another thread is taking one right now
    try:
        _last[db] = time.monotonic()
        take_backup(db)
    except (OSError, sqlite3.Error) as exc:
        log.warning("history database backup failed (%s): %s", db, exc)
    finally:
        _lock.release()


# --- recovery -----------------------------------------------------------------------------

def emptied(db: Path) -> bool:
    """Whether `db` is a zero-byte file while a healthy backup exists (emptied, not new)."""
    db = Path(db)
    return db.is_file() and db.stat().st_size == 0 and newest_healthy(db) is not None


def newest_healthy(db: Path) -> Path | None:
    return next((b for b in list_backups(db) if healthy(b)), None)


def owners_in(path: Path) -> set[str] | None:
    """The owners with rounds in a (possibly damaged) history file; None when it cannot be read."""
    try:
        with closing(_connect(path, readonly=True)) as con:
            rows = con.execute("SELECT DISTINCT owner FROM rounds").fetchall()
    except sqlite3.Error:
        return None
    return {r[0] for r in rows if isinstance(r[0], str) and _OWNER.fullmatch(r[0])}


def restore(backup: Path, db: Path) -> None:
    """Copy `backup` to `db` (which was moved aside) with the backup API."""
    with closing(_connect(backup, readonly=True)) as src, closing(sqlite3.connect(db)) as dst:
        src.backup(dst)


def _when(ts: float) -> str:
    return time.strftime("%d %B %Y, %H:%M", time.localtime(ts))


def recover(db: Path, moved: Path, *, now: float | None = None) -> str:
    """After `db` was moved aside to `moved`: restore the newest healthy backup into `db` (when
    there is one), keep a notice for every affected owner, and return the one-line notice for the
    operator's first page view (no paths in either)."""
    db, now = Path(db), time.time() if now is None else now
    owners = owners_in(moved)
    backup = newest_healthy(db)
    if backup is not None:
        try:
            restore(backup, db)
        except (OSError, sqlite3.Error) as exc:
            log.error("restoring %s failed: %s", backup, exc)
            for side in ("", "-wal", "-shm", "-journal"):
                Path(f"{db}{side}").unlink(missing_ok=True)
            backup = None
    if backup is not None:
        when = _when(taken_at(backup) or backup.stat().st_mtime)
        log.warning("history database restored from backup %s", backup)
        if owners is not None:
            owners |= owners_in(db) or set()
        personal = (f"Your saved rounds were damaged on the server and have been restored from the backup of "
                    f"{when}. A round saved after that time may be missing; the damaged file is kept, and the "
                    "operator can recover more from it.")
        operator = (f"The history database was damaged, so it was moved aside and the backup of {when} was "
                    "restored; rounds saved after that are only in the damaged file, which was kept.")
    else:
        personal = ("Your saved rounds were damaged on the server and could not be shown, and no backup was "
                    "available; a fresh history has started. Nothing was deleted: ask the operator, who keeps "
                    "the damaged file and can recover rounds from it.")
        operator = ("The history database was damaged, so it was moved aside (kept, not deleted) and a fresh "
                    "one was started; no backup was available. Earlier rounds are not shown until the operator "
                    "recovers them from the damaged file.")
    if owners is None:  # the damaged file could not be read: whoever visits may have been affected
        personal = f"If you saved rounds here before {_when(now)}: {personal[0].lower()}{personal[1:]}"
    add_notice(db, personal, owners, now=now)
    return operator


# --- notices ------------------------------------------------------------------------------

def _notices_db(db: Path) -> sqlite3.Connection:
    d = folder(db)
    d.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(d / "notices.db", timeout=TIMEOUT_S, isolation_level=None)
    con.execute("CREATE TABLE IF NOT EXISTS notices (id INTEGER PRIMARY KEY, audience TEXT NOT NULL, "
                "text TEXT NOT NULL, created_at REAL NOT NULL, expires_at REAL)")
    con.execute("CREATE TABLE IF NOT EXISTS seen (notice_id INTEGER NOT NULL, owner TEXT NOT NULL, "
                "PRIMARY KEY (notice_id, owner))")
    return con


def add_notice(db: Path, text: str, owners: set[str] | None, *, now: float | None = None) -> None:
    """Keep `text` for each of `owners`, or for every visitor (for NOTICE_DAYS) when None."""
    now = time.time() if now is None else now
    with closing(_notices_db(Path(db))) as con:
        con.execute("BEGIN IMMEDIATE")
        if owners is None:
            con.execute("INSERT INTO notices (audience, text, created_at, expires_at) VALUES ('*', ?, ?, ?)",
                        (text, now, now + NOTICE_DAYS * 86400))
        else:
            con.executemany("INSERT INTO notices (audience, text, created_at) VALUES (?, ?, ?)",
                            [(o, text, now) for o in sorted(owners)])
        con.execute("COMMIT")


def take_notices(db: Path | None, owner: str, *, now: float | None = None) -> list[str]:
    """The notices `owner` has not seen yet, oldest first; each is returned once."""
    if db is None or not (folder(db) / "notices.db").is_file():
        return []
    now = time.time() if now is None else now
    try:
        with closing(_notices_db(Path(db))) as con:
            rows = con.execute(  # a read first: page loads with nothing to tell take no write lock
                "SELECT id, text FROM notices WHERE (audience = ? OR audience = '*') "
                "AND (expires_at IS NULL OR expires_at > ?) "
                "AND id NOT IN (SELECT notice_id FROM seen WHERE owner = ?) ORDER BY id",
                (owner, now, owner)).fetchall()
            if rows:
                con.execute("BEGIN IMMEDIATE")
                con.executemany("INSERT OR IGNORE INTO seen (notice_id, owner) VALUES (?, ?)",
                                [(i, owner) for i, _ in rows])
                con.execute("COMMIT")
    except sqlite3.Error as exc:
        log.warning("recovery notices unreadable: %s", exc)
        return []
    return [t for _, t in rows]
