"""The history store: round-trips of real rounds, resume, owner isolation, charts, migrations from
an older schema, recovery from a corrupt file, a locked file, and durability across SIGKILL.

The tests that take the `db` or `st` fixture run twice: on a SQLite file and on a fresh database of
a real PostgreSQL server (INTERVIEWER_TEST_POSTGRES_URL, started by .ci/run; skipped with the
reason when unset, failing under CI=true). PostgreSQL's own cases are at the end."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from conftest import answer

from interviewer import config, interview, store
from interviewer.errors import UserError
from interviewer.store import RoundSummary, Store, open_store

ROOT = Path(__file__).resolve().parent.parent
QID = "gpu-inference-serving"

STRONG = [
    "Llama-2-70B on 4 x H100-80GB, fp16 weights: 140 GB of weights. KV per token is 2 x 80 layers x 8 KV heads "
    "x 128 head dim x 2 bytes = 327,680 bytes per token, so a 4,096-token sequence needs about 1.3 GB; with "
    "180 GB free that gives about 130 concurrent sequences.",
    "Continuous batching with limits: max 8192 scheduled tokens per step, max 128 active sequences, fair share "
    "per tenant, cancel on client disconnect. When the KV cache cannot admit a request we queue it, and preempt "
    "the newest request and recompute it later.",
    "I watch p50 and p99 time to first token, split into queueing, prefill and decode. I accept a slightly worse "
    "p50 for a better p99 via chunked prefill; if p99 TTFT rises above 2 s the trade-off is wrong.",
]
MIDDLING = ["We use continuous batching with max 256 sequences and look at p99 TTFT.",
            "Quantize to int4 to save memory, it's basically free."]
WEAK = ["I would put a load balancer in front and autoscale on average latency."]




def make_round(answers: list[str], *, end: bool = True, t0: float = 1_700_000_000.0, company="Anthropic"):
    state = interview.start_round(QID, company=company, level="senior", now=t0)
    for i, a in enumerate(answers, 1):
        answer(state, a, now=t0 + 60 * i)
    report = interview.end_round(state, now=t0 + 60 * (len(answers) + 1)) if end else None
    return state, report


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    """Where a store lives: a SQLite file, or a fresh database on the PostgreSQL server."""
    if request.param == "sqlite":
        return tmp_path / "rounds.db"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def st(db):
    s = Store(db)
    yield s
    s.close()


def test_round_trip_of_a_real_graded_round(st):
    state, report = make_round(STRONG)
    st.save(state, "alice")
    back = st.load(state.id, "alice")
    assert back == state
    assert back.report == report.model_dump(mode="json")
    assert [t.text for t in back.turns] == [t.text for t in state.turns]
    [summary] = st.list("alice")
    assert isinstance(summary, RoundSummary)
    assert (summary.id, summary.mode, summary.question_id, summary.company, summary.level) == (
        state.id, "round", QID, "Anthropic", "senior")
    assert summary.question_title == report.question_title
    assert summary.overall == report.overall and summary.level_verdict == report.level_verdict
    assert summary.scores == {c.id: c.score for c in report.criteria}
    assert summary.started_at == state.started_at and summary.ended_at == state.ended_at


def test_save_is_an_upsert_and_untitled_open_rounds_list_with_the_bank_title(st):
    state, _ = make_round(STRONG[:1], end=False)
    st.save(state, "alice")
    [s] = st.list("alice")
    assert s.overall is None and s.ended_at is None and s.scores == {}
    assert s.question_title == "Design GPU Inference Serving System"
    answer(state, STRONG[1], now=state.started_at + 300)
    interview.end_round(state, now=state.started_at + 400)
    st.save(state, "alice")
    [s] = st.list("alice")
    assert s.overall is not None and len(st.load(state.id, "alice").turns) == len(state.turns)


def test_resume_latest_open_round_after_restart(db):
    path = db
    first = Store(path)
    finished, _ = make_round(WEAK, t0=1_700_000_000.0)
    older_open, _ = make_round(MIDDLING[:1], end=False, t0=1_700_000_100.0)
    current, _ = make_round(STRONG[:2], end=False, t0=1_700_000_200.0)
    for s in (finished, older_open, current):
        first.save(s, "alice")
    assert first.latest_open("alice").id == current.id
    first.close()

    restarted = Store(path)  # a new process would build a new Store on the same file
    resumed = restarted.latest_open("alice")
    assert resumed == current
    answer(resumed, STRONG[2], now=current.started_at + 500)
    restarted.save(resumed, "alice")
    assert restarted.latest_open("alice").turns[-2].text == STRONG[2]
    interview.end_round(resumed, now=current.started_at + 600)
    restarted.save(resumed, "alice")
    assert restarted.latest_open("alice").id == older_open.id  # the other open one, now the latest
    assert restarted.latest_open("bob") is None
    restarted.close()


def test_default_path_is_in_the_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERVIEWER_DATA_DIR", str(tmp_path / "data"))
    config.reload()
    s = Store()
    assert s.path == tmp_path / "data" / "rounds.db" and s.path.exists()
    s.close()
    s, notice = open_store(tmp_path / "data")  # a directory means the rounds.db inside it
    assert notice is None and s.path == tmp_path / "data" / "rounds.db"
    s.close()


def test_owners_are_isolated(st):
    state, _ = make_round(STRONG)
    st.save(state, "alice")
    assert st.load(state.id, "bob") is None
    assert st.list("bob") == []
    assert st.latest_open("bob") is None
    assert st.progress("bob") == [] and st.failing_criteria("bob") == []
    assert st.delete(state.id, "bob") is False
    assert st.load(state.id, "alice") == state  # bob's delete did nothing

    # bob saving a round with the same id makes his own row; alice's is untouched
    forged = state.model_copy(update={"company": "OpenAI", "report": None, "ended_at": None})
    st.save(forged, "bob")
    assert st.load(state.id, "alice") == state
    assert st.load(state.id, "bob").company == "OpenAI"
    assert [s.company for s in st.list("alice")] == ["Anthropic"]
    with pytest.raises(ValueError):
        st.load(state.id, "")


def test_delete(st):
    a, _ = make_round(WEAK, t0=1_700_000_000.0)
    b, _ = make_round(MIDDLING, t0=1_700_001_000.0)
    st.save(a, "alice")
    st.save(b, "alice")
    assert [s.id for s in st.list("alice")] == [b.id, a.id]  # newest first
    assert st.delete(a.id, "alice") is True
    assert st.load(a.id, "alice") is None
    assert st.delete(a.id, "alice") is False
    assert [s.id for s in st.list("alice")] == [b.id]


def test_progress_and_failing_criteria_over_three_graded_rounds(st):
    rounds = [make_round(answers, t0=1_700_000_000.0 + 86_400 * i) for i, answers in
              enumerate([WEAK, MIDDLING, STRONG])]
    for state, _ in reversed(rounds):  # saved out of order: progress sorts by date
        st.save(state, "alice")
    open_one, _ = make_round(STRONG[:1], end=False, t0=1_700_500_000.0)
    st.save(open_one, "alice")  # not graded: not in the charts

    rows = st.progress("alice")
    reports = [r for _, r in rounds]
    assert [r["round_id"] for r in rows] == [s.id for s, _ in rounds]
    assert [r["overall"] for r in rows] == [r.overall for r in reports]
    assert rows[0]["date"] < rows[1]["date"] < rows[2]["date"]
    for row, rep in zip(rows, reports):
        for c in rep.criteria:
            assert row[c.id] == c.score
    assert reports[0].overall < reports[2].overall

    expected = {}
    for rep in reports:
        for c in rep.criteria:
            failed, graded = expected.get(c.id, (0, 0))
            expected[c.id] = (failed + (c.score < 2), graded + 1)
    failing = st.failing_criteria("alice")
    assert {c: (f, g) for c, f, g in failing} == expected
    assert [f for _, f, _ in failing] == sorted((f for _, f, _ in failing), reverse=True)
    assert failing[0][1] == 3  # something failed in every round (the weak round fails everything)
    assert all(g == 3 for _, _, g in failing)


# --- migrations -----------------------------------------------------------------------------

V1_SCHEMA = """
CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL);
CREATE TABLE rounds (
    owner TEXT NOT NULL, id TEXT NOT NULL, mode TEXT NOT NULL, question_id TEXT NOT NULL,
    company TEXT, level TEXT, started_at REAL NOT NULL, ended_at REAL, updated_at REAL NOT NULL,
    state_json TEXT NOT NULL, PRIMARY KEY (owner, id));
CREATE INDEX ix_rounds_owner_started ON rounds (owner, started_at);
INSERT INTO _migrations VALUES ('m001_rounds', 1700000000.0);
"""


def test_a_v1_database_opens_and_is_migrated(tmp_path):
    """A database written by the first release (rounds without summary columns) opens after an upgrade."""
    graded, report = make_round(STRONG, t0=1_700_000_000.0)
    open_round, _ = make_round(MIDDLING[:1], end=False, t0=1_700_100_000.0)
    path = tmp_path / "rounds.db"
    con = sqlite3.connect(path)
    con.executescript(V1_SCHEMA)
    for s in (graded, open_round):
        con.execute("INSERT INTO rounds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    ("alice", s.id, s.mode, s.question_id, s.company, s.level, s.started_at, s.ended_at,
                     s.started_at, s.model_dump_json()))
    con.commit()
    con.close()

    st, notice = open_store(path)
    assert notice is None
    assert st.migrations_applied() == [m.__name__ for m in store.MIGRATIONS]
    assert st.load(graded.id, "alice") == graded
    assert st.latest_open("alice") == open_round
    summaries = {s.id: s for s in st.list("alice")}
    assert summaries[graded.id].overall == report.overall  # backfilled from state_json by m002
    assert summaries[graded.id].level_verdict == report.level_verdict
    assert summaries[graded.id].scores == {c.id: c.score for c in report.criteria}
    assert summaries[open_round.id].overall is None
    assert [r["round_id"] for r in st.progress("alice")] == [graded.id]
    st.close()

    con = sqlite3.connect(path)
    applied = dict(con.execute("SELECT name, applied_at FROM _migrations"))
    cols = {r[1] for r in con.execute("PRAGMA table_info(rounds)")}
    indexes = {r[1] for r in con.execute("PRAGMA index_list(rounds)")}
    con.close()
    assert applied["m001_rounds"] == 1700000000.0  # not re-run
    assert {"overall", "level_verdict", "criteria_json", "question_title"} <= cols
    assert "ix_rounds_owner_open" in indexes

    again = Store(path)  # a second open applies nothing
    assert dict(sqlite3.connect(path).execute("SELECT name, applied_at FROM _migrations")) == applied
    again.close()


def test_a_failed_migration_leaves_the_database_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "rounds.db"
    con = sqlite3.connect(path)
    con.executescript(V1_SCHEMA)
    con.close()

    def m002_broken(conn):
        conn.exec_driver_sql("ALTER TABLE rounds ADD COLUMN overall INTEGER")
        raise RuntimeError("boom")

    monkeypatch.setattr(store, "MIGRATIONS", [store.m001_rounds, m002_broken])
    with pytest.raises(store.StoreCorrupt, match="m002_broken failed"):
        Store(path)
    con = sqlite3.connect(path)
    assert [r[0] for r in con.execute("SELECT name FROM _migrations")] == ["m001_rounds"]
    assert "overall" not in {r[1] for r in con.execute("PRAGMA table_info(rounds)")}  # rolled back
    con.close()


# --- corruption, locks, durability ---------------------------------------------------------

def _garbage(path: Path) -> None:
    path.write_bytes(b"this is not a database, it is a shopping list\n" * 200)


def _damaged_pages(path: Path) -> None:
    s = Store(path)
    for i in range(30):
        state, _ = make_round([], end=False, t0=1_700_000_000.0 + i)
        s.save(state, "alice")
    s.close()
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    data = bytearray(path.read_bytes())
    for off in range(2 * page, len(data), page):
        data[off:off + 100] = b"\xff" * 100
    path.write_bytes(bytes(data))


def _foreign_schema(path: Path) -> None:
    """A SQLite file whose `rounds` table is not ours: migration m001 cannot run."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE rounds (x INTEGER)")
    con.execute("INSERT INTO rounds VALUES (42)")
    con.commit()
    con.close()


@pytest.mark.parametrize("damage", [_garbage, _damaged_pages, _foreign_schema])
def test_a_corrupt_database_is_moved_aside_not_lost(tmp_path, damage):
    path = tmp_path / "rounds.db"
    damage(path)
    before = path.read_bytes()

    st, notice = open_store(path)
    moved = sorted(tmp_path.glob("rounds.db.corrupt-*"))
    assert [m.name for m in moved if not m.name.endswith(("-wal", "-shm"))] == [moved[0].name]
    if damage is _foreign_schema:  # opened as SQLite (switched to WAL), but its data is as it was
        con = sqlite3.connect(moved[0])
        assert con.execute("SELECT x FROM rounds").fetchall() == [(42,)]
        assert [r[0] for r in con.execute("SELECT name FROM sqlite_master")] == ["rounds"]
        con.close()
    else:
        assert moved[0].read_bytes() == before  # the old history is kept, byte for byte
    assert notice and "\n" not in notice and "moved" in notice
    assert str(tmp_path) not in notice and moved[0].name not in notice  # no server path in a message
    if damage is _damaged_pages:  # its first save took a backup (interviewer/backups.py): restored
        assert "restored" in notice and len(st.list("alice")) == 1
    else:
        assert "no backup" in notice and st.list("alice") == []  # a fresh store, and it works
    state, _ = make_round(WEAK)
    st.save(state, "alice")
    assert st.load(state.id, "alice") == state
    st.close()

    st2, notice2 = open_store(path)  # the fresh file opens cleanly next time
    assert notice2 is None and st2.load(state.id, "alice") == state
    st2.close()


def test_a_locked_database_gives_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "BUSY_TIMEOUT_S", 0.3)
    path = tmp_path / "rounds.db"
    st = Store(path)
    state, _ = make_round(WEAK)
    st.save(state, "alice")

    other = sqlite3.connect(path, timeout=0.1, isolation_level=None)  # "another process" holding a write lock
    other.execute("BEGIN IMMEDIATE")
    other.execute("UPDATE rounds SET updated_at = updated_at")
    try:
        with pytest.raises(UserError, match="the history database is locked by another process: ") as err:
            open_store(path)
        assert "INTERVIEWER_DATA_DIR" in str(err.value) and "close the other" in str(err.value).lower()
        with pytest.raises(UserError, match="locked by another process"):
            st.save(state, "alice")
        assert st.load(state.id, "alice") == state  # reads still work under WAL
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert not list(tmp_path.glob("*.corrupt-*"))  # a lock is not corruption

    st.save(state, "alice")
    st.close()


def test_a_brief_lock_is_waited_out(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "BUSY_TIMEOUT_S", 5.0)
    path = tmp_path / "rounds.db"
    st = Store(path)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.3, lambda: (other.execute("COMMIT"), other.close()))
    release.start()
    state, _ = make_round(WEAK)
    st.save(state, "alice")  # waits for the lock instead of failing
    release.join()
    assert st.load(state.id, "alice") == state
    st.close()


def test_a_round_survives_sigkill_right_after_save(tmp_path):
    script = textwrap.dedent(f"""
        import os, signal, sys
        from interviewer import interview
        from interviewer.session import Session, no_retriever
        from interviewer.store import Store
        state = interview.start_round({QID!r}, company="Anthropic")
        Session(store=None, retriever=no_retriever).take_turn(state, {STRONG[0]!r})
        store = Store()
        store.save(state, "alice")
        sys.stdout.write(state.model_dump_json() + "\\n")
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    env = {**os.environ, "INTERVIEWER_DATA_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    saved = json.loads(proc.stdout.strip().splitlines()[-1])

    st, notice = open_store(tmp_path)
    assert notice is None
    back = st.latest_open("alice")
    assert back is not None and back.model_dump(mode="json") == saved
    st.close()


def test_save_commits_in_wal_with_synchronous_full(tmp_path):
    st = Store(tmp_path / "rounds.db")
    state, _ = make_round(WEAK)
    st.save(state, "alice")
    with st._engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    # visible to an independent connection: committed, not pending in a pool
    con = sqlite3.connect(st.path)
    assert con.execute("SELECT count(*) FROM rounds WHERE owner = 'alice'").fetchone()[0] == 1
    con.close()
    st.close()


def test_writers_in_one_process_queue_and_all_land(db):
    """Many sessions saving at once (one thread each): every save lands, none waits out a lock error."""
    st = Store(db)
    states = [make_round(WEAK[:1], end=False, t0=1_700_000_000.0 + i)[0] for i in range(12)]
    errors: list[BaseException] = []

    def work(state):
        try:
            for _ in range(5):
                st.save(state, "alice")
        except BaseException as exc:  # noqa: BLE001 (collected and asserted below)
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in states]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(r.id for r in st.list("alice")) == sorted(s.id for s in states)
    st.close()


@pytest.mark.parametrize("outcome", ["committed", "failed"])
def test_saves_queued_behind_a_commit_go_in_together_and_share_its_outcome(tmp_path, monkeypatch, outcome):
    """SQLite group commit: saves that arrive while one commits are written in one transaction; each
    returns only when its own row is in, and if that transaction fails every save in it fails."""
    import time

    st = Store(tmp_path / "rounds.db")
    states = [make_round(WEAK[:1], end=False, t0=1_700_000_000.0 + i)[0] for i in range(4)]
    batches, real = [], st._upsert

    def upsert(rows):
        batches.append(len(rows))
        if outcome == "failed" and len(rows) > 1:
            raise UserError("the disk is full")
        real(rows)

    monkeypatch.setattr(st, "_upsert", upsert)
    results: dict[str, object] = {}

    def save(state):
        try:
            st.save(state, "alice")
            results[state.id] = "saved"
        except UserError as exc:
            results[state.id] = exc

    st._write_lock.acquire()  # another writer is mid-commit
    first = threading.Thread(target=save, args=(states[0],))
    first.start()
    while not batches:  # the first save leads, and waits for the lock inside its transaction
        time.sleep(0.01)
    rest = [threading.Thread(target=save, args=(s,)) for s in states[1:]]
    for t in rest:
        t.start()
    while len(st._queue) < 3:
        time.sleep(0.01)
    st._write_lock.release()
    for t in [first, *rest]:
        t.join(30)
    assert batches == [1, 3]  # the three that queued went in together
    saved = {r.id for r in st.list("alice")}
    if outcome == "committed":
        assert all(results[s.id] == "saved" for s in states) and saved == {s.id for s in states}
    else:
        assert results[states[0].id] == "saved" and saved == {states[0].id}
        assert all(isinstance(results[s.id], UserError) for s in states[1:])
    assert not st._leading and not st._queue
    st.close()


def test_local_mode_claims_rounds_saved_under_old_browser_tokens(db):
    st = Store(db)
    rounds = {owner: make_round(WEAK, t0=1_700_000_000.0 + i)[0]
              for i, owner in enumerate(["Zx3-token-of-an-old-tab", "local", "oidc:https://idp.example|bob"])}
    for owner, state in rounds.items():
        st.save(state, owner)
    assert st.claim_legacy_rounds("local") == 1
    assert {r.id for r in st.list("local")} == {rounds["Zx3-token-of-an-old-tab"].id, rounds["local"].id}
    assert [r.id for r in st.list("oidc:https://idp.example|bob")] == [rounds["oidc:https://idp.example|bob"].id]
    assert st.claim_legacy_rounds("local") == 0
    st.close()


# --- PostgreSQL ------------------------------------------------------------------------------

V1_SCHEMA_PG = [
    "CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE rounds (owner TEXT NOT NULL, id TEXT NOT NULL, mode TEXT NOT NULL, question_id TEXT NOT NULL, "
    "company TEXT, level TEXT, started_at DOUBLE PRECISION NOT NULL, ended_at DOUBLE PRECISION, "
    "updated_at DOUBLE PRECISION NOT NULL, state_json TEXT NOT NULL, PRIMARY KEY (owner, id))",
    "CREATE INDEX ix_rounds_owner_started ON rounds (owner, started_at)",
    "INSERT INTO _migrations VALUES ('m001_rounds', 1700000000.0)",
]


def _pg_v1(url: str, rounds=()) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.begin() as conn:
        for stmt in V1_SCHEMA_PG:
            conn.exec_driver_sql(stmt)
        for s in rounds:
            conn.execute(text("INSERT INTO rounds VALUES (:o, :i, :m, :q, :c, :l, :s, :e, :u, :j)"),
                         {"o": "alice", "i": s.id, "m": s.mode, "q": s.question_id, "c": s.company,
                          "l": s.level, "s": s.started_at, "e": s.ended_at, "u": s.started_at,
                          "j": s.model_dump_json()})
    engine.dispose()


def test_a_v1_postgres_database_is_migrated_like_sqlite(postgres_url):
    graded, report = make_round(STRONG, t0=1_700_000_000.123456)
    open_round, _ = make_round(MIDDLING[:1], end=False, t0=1_700_100_000.0)
    _pg_v1(postgres_url, [graded, open_round])

    st, notice = open_store(postgres_url)
    assert notice is None and st.path is None and st.dialect == "postgresql"
    assert st.migrations_applied() == [m.__name__ for m in store.MIGRATIONS]
    assert st.load(graded.id, "alice") == graded
    assert st.latest_open("alice") == open_round
    summary = {s.id: s for s in st.list("alice")}[graded.id]
    assert summary.overall == report.overall and summary.scores == {c.id: c.score for c in report.criteria}
    assert summary.started_at == graded.started_at  # DOUBLE PRECISION: not rounded to minutes
    st.close()
    again, _ = open_store(postgres_url)  # a second open applies nothing
    assert again.migrations_applied() == [m.__name__ for m in store.MIGRATIONS]
    again.close()


def test_app_processes_starting_together_migrate_postgres_once(postgres_url):
    script = ("import sys; from interviewer.store import Store; "
              "s = Store(sys.argv[1]); print(','.join(s.migrations_applied())); s.close()")
    procs = [subprocess.Popen([sys.executable, "-c", script, postgres_url], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    names = ",".join(m.__name__ for m in store.MIGRATIONS)
    assert [out.strip() for out, _ in outs] == [names] * 3
    from sqlalchemy import create_engine

    engine = create_engine(postgres_url)
    with engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT name, count(*) FROM _migrations GROUP BY name").fetchall()
    engine.dispose()
    assert sorted(rows) == sorted((m.__name__, 1) for m in store.MIGRATIONS)


def test_a_failed_postgres_migration_rolls_back_and_is_a_user_error(postgres_url, monkeypatch):
    _pg_v1(postgres_url)

    def m002_broken(conn):
        conn.exec_driver_sql("ALTER TABLE rounds ADD COLUMN overall INTEGER")
        raise RuntimeError("boom")

    monkeypatch.setattr(store, "MIGRATIONS", [store.m001_rounds, m002_broken])
    with pytest.raises(UserError, match="m002_broken failed"):
        open_store(postgres_url)
    from sqlalchemy import create_engine, inspect

    engine = create_engine(postgres_url)
    with engine.connect() as conn:
        assert [r[0] for r in conn.exec_driver_sql("SELECT name FROM _migrations")] == ["m001_rounds"]
        assert "overall" not in {c["name"] for c in inspect(conn).get_columns("rounds")}  # rolled back
    engine.dispose()


def test_an_unreachable_database_server_is_one_line_and_never_shows_the_password():
    from conftest_servers import free_port

    url = f"postgresql://interviewer:s3cret-pw@127.0.0.1:{free_port()}/rounds"
    with pytest.raises(UserError) as err:
        open_store(url)
    message = str(err.value)
    assert "unreachable" in message and "127.0.0.1" in message and "\n" not in message
    assert "s3cret-pw" not in message
    with pytest.raises(UserError, match="must be a sqlite:// or postgresql:// URL"):
        open_store("mysql://root@127.0.0.1/rounds")


def test_a_round_survives_the_database_server_going_away_mid_round(postgres_cut):
    """The server goes away between turns: the Session keeps the round, says why, and saves every
    held turn (once each) when the server is back."""
    from interviewer.session import Session, no_retriever

    url, cut = postgres_cut
    st = Store(url)
    session = Session(store=st, owner="alice", retriever=no_retriever)
    state = session.start_round(QID, "Anthropic")
    session.take_turn(state, STRONG[0])
    assert not session.unsaved

    cut.cut()
    session.take_turn(state, STRONG[1])  # no exception: the turn happens, held in memory
    assert state.id in session.unsaved
    assert "database server is unreachable" in session.save_error and "alice" not in session.save_error

    cut.restore()
    session.take_turn(state, STRONG[2])
    assert not session.unsaved and session.save_error is None
    back = st.load(state.id, "alice")
    answers = [t.text for t in back.turns if t.role == "candidate"]
    assert answers == STRONG  # every answer once, in order, each followed by a reply
    assert [t.role for t in back.turns] == ["interviewer"] + ["candidate", "interviewer"] * 3
    st.close()
