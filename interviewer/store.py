"""Past rounds, kept: SQLite (through SQLAlchemy 2) in $INTERVIEWER_DATA_DIR/rounds.db (default ./.data),
or the database INTERVIEWER_DATABASE_URL names: a SQLAlchemy URL, `postgresql+psycopg://...` for a
PostgreSQL server that several app processes share (psycopg 3), or `sqlite:////path/rounds.db`.

One row per round or drill, keyed by (owner, id). `owner` is an opaque per-browser token: every
read, list and delete is filtered by it, so one browser never sees another's rounds. The row holds
the whole RoundState as JSON (the source of truth) plus summary columns for lists and charts.

Durability: WAL journal with synchronous=FULL and one committed transaction per `save`, so a
process killed right after `save` returns loses nothing. Writes take the lock up front
(BEGIN IMMEDIATE) and wait up to BUSY_TIMEOUT_S for another process to let go.

On PostgreSQL each save is one committed transaction too (an upsert, atomic under concurrent
writers); a connection the server dropped is replaced before use (pool_pre_ping), and a server that
cannot be reached is a one-line UserError naming it (never the password), so a Session keeps the
round in memory and saves it when the server is back.

Schema versions, in the style of simonw/llm: `_migrations` names the migrations applied, and
MIGRATIONS lists them in order; each runs once, in its own transaction (on PostgreSQL under an
advisory lock, so processes starting together migrate once), so a database written by an older
release opens after an upgrade. The same migrations run on SQLite and PostgreSQL: where the
engines differ (a float column is REAL on SQLite, DOUBLE PRECISION on PostgreSQL) a migration
branches on the dialect and leaves SQLite's statements as released. Add new ones at the end;
never edit a released one.

`open_store()` is what the app calls: a SQLite file that is not SQLite, fails its integrity check,
or cannot be migrated (or was emptied to zero bytes) is moved aside to rounds.db.corrupt-<timestamp>
(never deleted), the newest healthy backup is restored in its place (interviewer/backups.py keeps
the last few, taken at start-up and at most every few minutes after saves) or a fresh one started,
and every owner affected gets a notice (Store.take_notices) with no server path in it; a database
locked by another process is a UserError.
A PostgreSQL database is never moved or recreated: trouble with it is a UserError.

SQLAlchemy is imported inside functions: importing this module is cheap.
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from pydantic import BaseModel, Field

from interviewer.errors import UserError
from interviewer.round import RoundState

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

log = logging.getLogger(__name__)

DB_NAME = "rounds.db"
BUSY_TIMEOUT_S = 5.0   # how long a write waits for another process's lock before giving up
CONNECT_TIMEOUT_S = 5  # how long a connection to a database server may take before it counts as unreachable
MIGRATION_LOCK = 0x1E7E1A  # PostgreSQL advisory lock key held while migrating (any constant, same in every process)
FAIL_BELOW = 2         # a criterion scored under this ("derived") counts as failing
_SQLITE_HEADER = b"SQLite format 3\x00"


class RoundSummary(BaseModel):
    """One line of the history list."""

    id: str
    mode: str
    question_id: str
    question_title: str
    company: str | None = None
    level: str | None = None
    started_at: float
    ended_at: float | None = None
    overall: int | None = None          # None until graded
    level_verdict: str | None = None
    scores: dict[str, int] = Field(default_factory=dict)  # criterion id -> 0..3


class StoreCorrupt(UserError):
    """The database file is not a readable, migratable SQLite database (open_store moves it aside)."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"the history database ({Path(path).name}) is damaged: {reason}")
        self.reason = " ".join(reason.split())


def data_dir() -> Path:
    from interviewer import config

    return config.current().data_dir


def default_path() -> Path:
    return data_dir() / DB_NAME


def database_url() -> str | None:
    """INTERVIEWER_DATABASE_URL, when the operator set one."""
    from interviewer import config

    return (config.current().database_url or "").strip() or None


def _is_url(target: object) -> bool:
    return isinstance(target, str) and "://" in target


def _parse_url(url: str):
    """(SQLite file, None) for a sqlite URL; (None, SQLAlchemy URL using psycopg 3) for PostgreSQL."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        u = make_url(url)
    except ArgumentError:
        raise UserError("INTERVIEWER_DATABASE_URL is not a database URL: use sqlite:////path/rounds.db or "
                        "postgresql+psycopg://USER:PASSWORD@HOST:5432/DATABASE") from None
    backend = u.get_backend_name()
    if backend == "sqlite":
        if not u.database or u.database == ":memory:":
            raise UserError("INTERVIEWER_DATABASE_URL names an in-memory SQLite database; name a file "
                            "(sqlite:////path/rounds.db) so rounds are kept")
        return Path(u.database).expanduser(), None
    if backend not in ("postgresql", "postgres"):
        raise UserError(f"INTERVIEWER_DATABASE_URL must be a sqlite:// or postgresql:// URL, not {backend}://")
    if u.get_driver_name() not in ("psycopg", "psycopg2") and "+" in u.drivername:
        raise UserError(f"INTERVIEWER_DATABASE_URL: use the psycopg driver (postgresql+psycopg://), "
                        f"not {u.drivername}")
    return None, u.set(drivername="postgresql+psycopg")


def _describe(url) -> str:
    """A server URL for messages: database, host and port, never the password."""
    return f"PostgreSQL database {url.database or '(default)'} at {url.host or 'localhost'}:{url.port or 5432}"


def _resolve(path: str | Path | None) -> Path:
    if path is None:
        url = database_url()
        if url and _parse_url(url)[0] is not None:
            return _parse_url(url)[0]
        return default_path()
    if _is_url(path):
        file, _ = _parse_url(str(path))
        if file is None:
            raise ValueError(f"{_describe(_parse_url(str(path))[1])} is not a file")
        return file
    p = Path(path).expanduser()
    return p / DB_NAME if p.is_dir() else p


# --- summary columns, derived from a state ------------------------------------------------

def _summary_of(state_dict: dict) -> dict[str, Any]:
    """The summary columns for a RoundState given as a dict (also used by the backfill migration)."""
    report = state_dict.get("report") or None
    if not isinstance(report, dict):
        return {"overall": None, "level_verdict": None, "criteria_json": None, "question_title": None}
    scores = {c["id"]: int(c["score"]) for c in report.get("criteria") or []
              if isinstance(c, dict) and "id" in c and isinstance(c.get("score"), (int, float))}
    overall = report.get("overall")
    return {
        "overall": int(overall) if isinstance(overall, (int, float)) else None,
        "level_verdict": report.get("level_verdict"),
        "criteria_json": json.dumps(scores),
        "question_title": report.get("question_title") or None,
    }


def _question_title(question_id: str) -> str:
    try:
        from interviewer.bank import load_bank

        return load_bank().question(question_id).title
    except Exception:  # a question since removed from the bank still lists, by its id
        return question_id


# --- migrations ---------------------------------------------------------------------------

def _real(conn: Connection) -> str:
    """A float column: REAL on SQLite (as released); DOUBLE PRECISION on PostgreSQL, whose REAL is
    4 bytes and would round a Unix timestamp to minutes."""
    return "DOUBLE PRECISION" if conn.dialect.name == "postgresql" else "REAL"


def m001_rounds(conn: Connection) -> None:
    real = _real(conn)
    conn.exec_driver_sql(f"""
        CREATE TABLE rounds (
            owner TEXT NOT NULL,
            id TEXT NOT NULL,
            mode TEXT NOT NULL,
            question_id TEXT NOT NULL,
            company TEXT,
            level TEXT,
            started_at {real} NOT NULL,
            ended_at {real},
            updated_at {real} NOT NULL,
            state_json TEXT NOT NULL,
            PRIMARY KEY (owner, id)
        )""")
    conn.exec_driver_sql("CREATE INDEX ix_rounds_owner_started ON rounds (owner, started_at)")


def m002_summary_columns(conn: Connection) -> None:
    """Graded summary columns, backfilled from each row's state_json."""
    from sqlalchemy import text

    for col, kind in (("overall", "INTEGER"), ("level_verdict", "TEXT"), ("criteria_json", "TEXT"),
                      ("question_title", "TEXT")):
        conn.exec_driver_sql(f"ALTER TABLE rounds ADD COLUMN {col} {kind}")
    rows = conn.exec_driver_sql("SELECT owner, id, state_json FROM rounds").fetchall()
    for owner, rid, state_json in rows:
        try:
            summary = _summary_of(json.loads(state_json))
        except (ValueError, TypeError, AttributeError, KeyError):
            log.warning("round %s: state_json unreadable; summary left empty", rid)
            continue
        conn.execute(
            text("UPDATE rounds SET overall = :overall, level_verdict = :level_verdict, "
                 "criteria_json = :criteria_json, question_title = :question_title WHERE owner = :owner AND id = :id"),
            {**summary, "owner": owner, "id": rid})


def m003_open_rounds_index(conn: Connection) -> None:
    """Resume looks for an owner's most recently updated open round on every page load."""
    conn.exec_driver_sql("CREATE INDEX ix_rounds_owner_open ON rounds (owner, updated_at) WHERE ended_at IS NULL")


MIGRATIONS: list[Callable[[Connection], None]] = [m001_rounds, m002_summary_columns, m003_open_rounds_index]


# --- errors -------------------------------------------------------------------------------

def _is_locked(exc: BaseException) -> bool:
    msg = str(getattr(exc, "orig", None) or exc).lower()
    return "database is locked" in msg or "database is busy" in msg or "database table is locked" in msg


def _locked_error(path: Path, exc: BaseException) -> UserError:
    return UserError(
        f"the history database is locked by another process: {Path(path).name} stayed busy for {BUSY_TIMEOUT_S:g} s "
        f"({getattr(exc, 'orig', None) or exc}). Close the other copy of the app that is using it, or set "
        "INTERVIEWER_DATA_DIR to a different folder, and try again.")


def _is_corrupt(exc: BaseException) -> bool:
    """A DatabaseError that says the file itself is bad (not a lock, a full disk or a permission)."""
    orig = getattr(exc, "orig", None) or exc
    msg = str(orig).lower()
    if _is_locked(exc):
        return False
    return isinstance(orig, sqlite3.DatabaseError) and any(s in msg for s in (
        "file is not a database", "malformed", "file is encrypted", "corrupt", "not a database"))


# --- the store ----------------------------------------------------------------------------

class _Ticket:
    """One save waiting in a group commit."""

    __slots__ = ("row", "done", "error", "lead")

    def __init__(self, row: dict):
        self.row = row
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.lead = False


class Store:
    """Rounds per owner in one SQLite file or a PostgreSQL database. Opening it migrates the schema
    (and, for SQLite, checks the file's integrity).

    `path`: a SQLite file or folder, or a SQLAlchemy URL; None means INTERVIEWER_DATABASE_URL when
    set, else $INTERVIEWER_DATA_DIR/rounds.db. `self.path` is the SQLite file (None on a server);
    `self.where` names the database in messages.
    """

    def __init__(self, path: str | Path | None = None):
        target = database_url() if path is None else path
        self.url = _parse_url(target)[1] if _is_url(target) else None
        self.dialect = "postgresql" if self.url is not None else "sqlite"
        self._engine: Engine | None = None
        self._write_lock = threading.Lock()
        self._queue_lock = threading.Lock()   # group commit of saves (SQLite): see _group_commit
        self._queue: list[_Ticket] = []
        self._leading = False
        if self.url is None:
            self.path: Path | None = _resolve(path)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.where = str(self.path)
            self._check_header()
        else:
            self.path = None
            self.where = _describe(self.url)
        # Ties in lists are broken by insertion order on SQLite (rowid), by round id on PostgreSQL.
        self._seq = "rowid" if self.dialect == "sqlite" else "id"
        try:
            self._engine = self._make_engine()
            if self.dialect == "sqlite":
                self._check_integrity()
            self._migrate()
        except BaseException:
            self.close()
            raise

    # -- opening --

    def _check_header(self) -> None:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with open(self.path, "rb") as f:
            head = f.read(len(_SQLITE_HEADER))
        if head != _SQLITE_HEADER:
            raise StoreCorrupt(self.path, "not a SQLite database file")

    def _make_engine(self) -> Engine:
        from sqlalchemy import create_engine, event

        if self.url is not None:
            # One pool per process, shared by every session's script thread. A connection the
            # server dropped (a restart) is noticed on checkout and replaced; keepalives and
            # tcp_user_timeout bound how long a save can hang on a server that went silent.
            return create_engine(
                self.url, pool_pre_ping=True, pool_size=5, max_overflow=10, pool_timeout=BUSY_TIMEOUT_S,
                pool_recycle=1800,
                connect_args={"connect_timeout": CONNECT_TIMEOUT_S, "application_name": "interviewer",
                              "keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10,
                              "keepalives_count": 3, "tcp_user_timeout": 15_000,
                              "options": f"-c lock_timeout={int(BUSY_TIMEOUT_S * 1000) * 12}"})

        engine = create_engine(f"sqlite:///{self.path}",
                               connect_args={"timeout": BUSY_TIMEOUT_S, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn, _record):
            dbapi_conn.isolation_level = None  # SQLAlchemy, not the driver, says when a transaction begins
            cur = dbapi_conn.cursor()
            try:
                cur.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
                mode = cur.execute("PRAGMA journal_mode = WAL").fetchone()
                if mode and str(mode[0]).lower() != "wal":
                    log.warning("%s: journal mode is %s, not WAL", self.path, mode[0])
                cur.execute("PRAGMA synchronous = FULL")
            finally:
                cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn):
            # Writers take the write lock now (waiting up to the busy timeout), not halfway through.
            conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("write") else "BEGIN")

        return engine

    @contextmanager
    def _write(self):
        """A write transaction: BEGIN IMMEDIATE ... COMMIT (or ROLLBACK on error).

        SQLite has one writer at a time. Threads of this process (one per session) queue on a
        lock here rather than in SQLite's busy handler, which polls with sleeps of up to 100 ms
        and under load hands the lock out in no order (a long tail for some turns); other
        processes still wait in the busy handler. PostgreSQL takes writers concurrently."""
        if self.dialect != "sqlite":
            with self._engine.begin() as conn:
                yield conn
            return
        if not self._write_lock.acquire(timeout=BUSY_TIMEOUT_S):
            raise UserError(f"the history database is busy: {self.where} had a write queued for more than "
                            f"{BUSY_TIMEOUT_S:g} s in this process; try again")
        try:
            with self._engine.execution_options(write=True).begin() as conn:
                yield conn
        finally:
            self._write_lock.release()

    def _read(self):
        return self._engine.begin()

    def _run(self, fn: Callable[[], Any]) -> Any:
        """Run a store operation; lock timeouts, corruption and an unreachable server become one-line errors."""
        from sqlalchemy.exc import DBAPIError, OperationalError

        try:
            return fn()
        except DBAPIError as exc:
            if self.url is not None:
                if isinstance(exc, OperationalError) or exc.connection_invalidated:
                    raise self._unreachable(exc) from exc
                raise
            if _is_locked(exc):
                raise _locked_error(self.path, exc) from exc
            if _is_corrupt(exc):
                raise StoreCorrupt(self.path, str(exc.orig)) from exc
            raise

    def _unreachable(self, exc: BaseException) -> UserError:
        orig = " ".join(str(getattr(exc, "orig", None) or exc).split())
        if self.url is not None and self.url.password:
            orig = orig.replace(self.url.password, "***")
        return UserError(f"the database server is unreachable: {self.where} ({orig[:200]}); "
                         "check INTERVIEWER_DATABASE_URL and that the server is running")

    def _check_integrity(self) -> None:
        def check():
            with self._read() as conn:
                rows = [r[0] for r in conn.exec_driver_sql("PRAGMA quick_check").fetchall()]
            if rows != ["ok"]:
                raise StoreCorrupt(self.path, f"integrity check failed: {'; '.join(map(str, rows[:3]))}")

        self._run(check)

    def _migration_lock(self, conn) -> None:
        """PostgreSQL: one process migrates at a time (held to the end of the transaction). SQLite's
        BEGIN IMMEDIATE already serialises writers."""
        if self.dialect == "postgresql":
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")

    def _migrate(self) -> None:
        from sqlalchemy import inspect, text

        def migrate():
            # Take (and drop) the write lock first: a database another process holds locked is
            # reported now, at open, rather than on the candidate's first save.
            with self._write() as conn:
                self._migration_lock(conn)
                has_table = inspect(conn).has_table("_migrations")
                done = ({r[0] for r in conn.exec_driver_sql("SELECT name FROM _migrations")}
                        if has_table else set())
            for fn in MIGRATIONS:
                if fn.__name__ in done:
                    continue
                try:
                    with self._write() as conn:  # one transaction per migration (DDL is transactional on both)
                        self._migration_lock(conn)
                        conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS _migrations "
                                             f"(name TEXT PRIMARY KEY, applied_at {_real(conn)} NOT NULL)")
                        if conn.execute(text("SELECT 1 FROM _migrations WHERE name = :name"),
                                        {"name": fn.__name__}).first():
                            continue  # another process applied it meanwhile
                        fn(conn)
                        conn.execute(text("INSERT INTO _migrations (name, applied_at) VALUES (:name, :at)"),
                                     {"name": fn.__name__, "at": time.time()})
                except Exception as exc:
                    if _is_locked(exc):
                        raise
                    if self.url is not None:
                        from sqlalchemy.exc import DBAPIError, OperationalError

                        if isinstance(exc, DBAPIError) and (isinstance(exc, OperationalError)
                                                            or exc.connection_invalidated):
                            raise
                        raise UserError(f"the {self.where} could not be migrated: migration {fn.__name__} failed: "
                                        f"{getattr(exc, 'orig', None) or exc}") from exc
                    raise StoreCorrupt(self.path, f"migration {fn.__name__} failed: {getattr(exc, 'orig', None) or exc}") from exc

        self._run(migrate)

    def migrations_applied(self) -> list[str]:
        order = {fn.__name__: i for i, fn in enumerate(MIGRATIONS)}
        with self._read() as conn:
            names = [r[0] for r in conn.exec_driver_sql("SELECT name FROM _migrations")]
        return sorted(names, key=lambda n: (order.get(n, len(order)), n))

    def close(self) -> None:
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    # -- the API --

    @staticmethod
    def _owner(owner: str) -> str:
        if not isinstance(owner, str) or not owner:
            raise ValueError("an owner token is required")
        return owner

    def save(self, state: RoundState, owner: str) -> None:
        """Insert or update the round; committed (and fsynced) when this returns."""
        owner = self._owner(owner)
        state_json = state.model_dump_json()
        summary = _summary_of(json.loads(state_json))
        title = summary["question_title"] or _question_title(state.question_id)
        row = {"owner": owner, "id": state.id, "mode": state.mode, "question_id": state.question_id,
               "company": state.company, "level": state.level, "started_at": state.started_at,
               "ended_at": state.ended_at, "updated_at": time.time(), "state_json": state_json,
               "overall": summary["overall"], "level_verdict": summary["level_verdict"],
               "criteria_json": summary["criteria_json"], "question_title": title}

        if self.dialect == "sqlite":
            self._group_commit(row)
        else:
            self._run(lambda: self._upsert([row]))
        if self.path is not None:  # a rolling backup of the SQLite file, at most every few minutes
            from interviewer import backups

            backups.after_save(self.path)

    def _upsert(self, rows: list[dict]) -> None:
        """Insert or update these rounds in one transaction."""
        from sqlalchemy import text

        with self._write() as conn:
            conn.execute(text(
                "INSERT INTO rounds (owner, id, mode, question_id, company, level, started_at, ended_at, "
                "updated_at, state_json, overall, level_verdict, criteria_json, question_title) "
                "VALUES (:owner, :id, :mode, :question_id, :company, :level, :started_at, :ended_at, "
                ":updated_at, :state_json, :overall, :level_verdict, :criteria_json, :question_title) "
                "ON CONFLICT (owner, id) DO UPDATE SET mode = excluded.mode, "
                "question_id = excluded.question_id, company = excluded.company, level = excluded.level, "
                "started_at = excluded.started_at, ended_at = excluded.ended_at, "
                "updated_at = excluded.updated_at, state_json = excluded.state_json, "
                "overall = excluded.overall, level_verdict = excluded.level_verdict, "
                "criteria_json = excluded.criteria_json, question_title = excluded.question_title"),
                rows if len(rows) > 1 else rows[0])

    def _group_commit(self, row: dict) -> None:
        """SQLite: saves that queue up while one commits go in together, one transaction and one
        fsync for all of them (group commit); each save still returns only once its own row is
        committed, and a failed commit fails every save in it (none of them was written).

        One waiting save leads: it commits everything queued so far, then hands the lead to the
        next waiting save, so no thread commits for others indefinitely."""
        ticket = _Ticket(row)
        with self._queue_lock:
            self._queue.append(ticket)
            if not self._leading:
                self._leading = ticket.lead = True
        if not ticket.lead:
            if not ticket.done.wait(BUSY_TIMEOUT_S * 6):
                raise UserError(f"the history database is busy: {self.where} did not commit within "
                                f"{BUSY_TIMEOUT_S * 6:g} s; try again")
            if not ticket.lead:  # committed (or failed) by another save's transaction
                if ticket.error is not None:
                    raise ticket.error
                return
        with self._queue_lock:
            batch, self._queue = self._queue, []
        error: BaseException | None = None
        try:
            self._run(lambda: self._upsert([t.row for t in batch]))
        except BaseException as exc:  # handed to every save in the batch; raised in this one below
            error = exc
        finally:
            for t in batch:
                if t is not ticket:
                    t.error = error
                    t.done.set()
            with self._queue_lock:
                if self._queue:
                    nxt = self._queue[0]
                    nxt.lead = True
                    nxt.done.set()
                else:
                    self._leading = False
        if error is not None:
            raise error

    def take_notices(self, owner: str) -> list[str]:
        """Messages for this owner not shown yet (their saved rounds were damaged and restored from a
        backup, or set aside); each is returned once, whichever process shows it."""
        from interviewer import backups

        return backups.take_notices(self.path, self._owner(owner)) if self.path is not None else []

    def _state(self, rid: str, state_json: str) -> RoundState:
        try:
            return RoundState.model_validate_json(state_json)
        except ValueError as exc:
            raise UserError(f"round {rid} in {self.where} could not be read: {str(exc).splitlines()[0]}") from exc

    def load(self, round_id: str, owner: str) -> RoundState | None:
        """The round, or None when there is none with this id for this owner."""
        owner = self._owner(owner)

        def load():
            from sqlalchemy import text

            with self._read() as conn:
                return conn.execute(text("SELECT state_json FROM rounds WHERE owner = :owner AND id = :id"),
                                    {"owner": owner, "id": round_id}).first()

        row = self._run(load)
        return self._state(round_id, row[0]) if row else None

    def latest_open(self, owner: str) -> RoundState | None:
        """The owner's most recently saved round that has not ended (to resume after a refresh or restart)."""
        owner = self._owner(owner)

        def rows():
            from sqlalchemy import text

            with self._read() as conn:
                return conn.execute(text(
                    "SELECT id, state_json FROM rounds WHERE owner = :owner AND ended_at IS NULL "
                    f"ORDER BY updated_at DESC, {self._seq} DESC LIMIT 5"), {"owner": owner}).fetchall()

        for rid, state_json in self._run(rows):
            try:
                return self._state(rid, state_json)
            except UserError as exc:  # an unreadable row stays in the file; resume the next one
                log.warning("%s", exc)
        return None

    def list(self, owner: str) -> list[RoundSummary]:
        """The owner's rounds and drills, newest first."""
        owner = self._owner(owner)

        def rows():
            from sqlalchemy import text

            with self._read() as conn:
                return conn.execute(text(
                    "SELECT id, mode, question_id, question_title, company, level, started_at, ended_at, "
                    "overall, level_verdict, criteria_json FROM rounds WHERE owner = :owner "
                    f"ORDER BY started_at DESC, {self._seq} DESC"), {"owner": owner}).fetchall()

        out = []
        for (rid, mode, qid, title, company, level, started, ended, overall, verdict, crit) in self._run(rows):
            out.append(RoundSummary(id=rid, mode=mode, question_id=qid, question_title=title or _question_title(qid),
                                    company=company, level=level, started_at=started, ended_at=ended,
                                    overall=overall, level_verdict=verdict, scores=_scores(crit)))
        return out

    def delete(self, round_id: str, owner: str) -> bool:
        """Delete the owner's round; False when there was none (or it is another owner's)."""
        owner = self._owner(owner)

        def delete():
            from sqlalchemy import text

            with self._write() as conn:
                return conn.execute(text("DELETE FROM rounds WHERE owner = :owner AND id = :id"),
                                    {"owner": owner, "id": round_id}).rowcount

        return bool(self._run(delete))

    def claim_legacy_rounds(self, owner: str) -> int:
        """Local mode: rounds that earlier releases saved under per-browser ?u= tokens (owners with
        no ':' in them) become `owner`'s, so one person's history is whole again. Signed-in users'
        rounds (owner 'oidc:...') are never touched. Returns how many rows changed owner."""
        owner = self._owner(owner)

        def claim():
            from sqlalchemy import text

            with self._write() as conn:
                return conn.execute(text(
                    "UPDATE rounds SET owner = :owner WHERE owner <> :owner AND owner NOT LIKE '%:%' "
                    "AND id NOT IN (SELECT id FROM rounds WHERE owner = :owner)"), {"owner": owner}).rowcount

        return int(self._run(claim) or 0)

    def _graded(self, owner: str) -> list[tuple]:
        owner = self._owner(owner)

        def rows():
            from sqlalchemy import text

            with self._read() as conn:
                return conn.execute(text(
                    "SELECT id, mode, question_id, started_at, ended_at, overall, level_verdict, criteria_json "
                    "FROM rounds WHERE owner = :owner AND overall IS NOT NULL "
                    f"ORDER BY COALESCE(ended_at, started_at), {self._seq}"), {"owner": owner}).fetchall()

        return self._run(rows)

    def progress(self, owner: str) -> list[dict]:
        """Graded rounds oldest first, one row each, for charts.

        Keys: date (datetime, local time the round ended), round_id, mode, question_id, overall,
        level_verdict, then one key per criterion id seen in any graded round (None where that
        round's question family did not grade it), so the rows make a rectangular table.
        """
        rows = self._graded(owner)
        scores = [_scores(r[7]) for r in rows]
        criteria: list[str] = []
        for s in scores:
            criteria += [c for c in s if c not in criteria]
        out = []
        for (rid, mode, qid, started, ended, overall, verdict, _), s in zip(rows, scores):
            row = {"date": datetime.fromtimestamp(ended if ended is not None else started), "round_id": rid,
                   "mode": mode, "question_id": qid, "overall": overall, "level_verdict": verdict}
            row.update({c: s.get(c) for c in criteria})
            out.append(row)
        return out

    def failing_criteria(self, owner: str) -> list[tuple[str, int, int]]:
        """(criterion id, graded rounds where it scored under 2, graded rounds that scored it),
        most-failing first (then by failure rate, then id). Criteria never failed come last with 0."""
        failed: dict[str, int] = {}
        graded: dict[str, int] = {}
        for row in self._graded(owner):
            for cid, score in _scores(row[7]).items():
                graded[cid] = graded.get(cid, 0) + 1
                failed[cid] = failed.get(cid, 0) + (score < FAIL_BELOW)
        return sorted(((c, failed[c], graded[c]) for c in graded),
                      key=lambda t: (-t[1], -t[1] / t[2], t[0]))


def _scores(criteria_json: str | None) -> dict[str, int]:
    if not criteria_json:
        return {}
    try:
        data = json.loads(criteria_json)
    except ValueError:
        return {}
    return {str(k): int(v) for k, v in data.items() if isinstance(v, (int, float))} if isinstance(data, dict) else {}


# --- opening with recovery ----------------------------------------------------------------

def _move_aside(path: Path) -> Path:
    """Rename the database (and its -wal/-shm files, which may hold committed rounds) out of the way."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    dest = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while dest.exists():
        n += 1
        dest = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    os.replace(path, dest)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.replace(side, dest.with_name(dest.name + suffix))
    return dest


def _open_server(url: str) -> Store:
    from sqlalchemy.exc import DBAPIError

    try:
        return Store(url)
    except DBAPIError as exc:  # what Store._run did not already turn into a UserError
        where = _describe(_parse_url(url)[1])
        raise UserError(f"cannot open the history database ({where}): "
                        f"{' '.join(str(exc.orig).split())[:200]}") from exc


def open_store(path: str | Path | None = None) -> tuple[Store, str | None]:
    """Open the history store: (store, notice). The notice is a one-line message when a damaged
    database had to be moved aside and a fresh one started; None otherwise.

    Raises UserError when the database is locked by another process past the busy timeout, or
    when the file cannot be opened at all (permissions, a full disk). `path` may be a SQLAlchemy
    URL; with none, INTERVIEWER_DATABASE_URL applies when set. A database server is opened as it
    is (never moved aside): trouble reaching or migrating it is a UserError."""
    from sqlalchemy.exc import DBAPIError

    server = path if _is_url(path) else (database_url() if path is None else None)
    if server and _parse_url(server)[1] is not None:
        return _open_server(server), None
    target = _resolve(path)

    def attempt() -> Store:
        try:
            return Store(target)
        except DBAPIError as exc:
            if _is_locked(exc):
                raise _locked_error(target, exc) from exc
            raise UserError(f"cannot open the history database ({Path(str(target)).name}): {exc.orig}") from exc
        except OSError as exc:
            raise UserError(f"cannot open the history database ({Path(str(target)).name}): {exc.strerror or type(exc).__name__}") from exc

    from interviewer import backups

    try:
        if backups.emptied(target):  # zero bytes with a healthy backup beside it: emptied, not new
            raise StoreCorrupt(target, "the file is empty")
        opened = attempt()
    except StoreCorrupt as exc:
        reason = exc.reason
    else:
        backups.at_startup(target)  # a healthy file: keep a copy (unless unchanged since the last)
        return opened, None
    try:
        moved = _move_aside(target)
    except OSError as exc:
        raise UserError(f"the history database ({Path(str(target)).name}) is damaged ({reason}) and could not be moved aside: "
                        f"{exc}") from exc
    log.warning("history database moved aside: %s (%s)", moved, reason)
    notice = backups.recover(target, moved)  # the newest healthy backup, and a notice for each owner
    store = attempt()  # the restored or a fresh file; a second failure is an error, never another move
    return store, notice
