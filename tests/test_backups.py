"""Rolling backups of the history database and recovery from a damaged or emptied file: backups
are taken at start-up and at most every few minutes, only the newest few are kept, a damaged file
is replaced by the newest healthy backup, and every user whose history was affected is told once,
in words with no server path in them."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_store import STRONG, WEAK, _damaged_pages, _garbage, make_round

from interviewer import backups
from interviewer.store import Store, open_store


@pytest.fixture(autouse=True)
def _manual_backups(request, monkeypatch):
    """Backups here are taken by the test at the times it names; tests that ask for `auto_backups`
    keep the automatic ones (at start-up and after saves)."""
    monkeypatch.setattr(backups, "_last", {})
    if "auto_backups" not in request.fixturenames:
        monkeypatch.setattr(backups, "after_save", lambda *a, **k: None)
        monkeypatch.setattr(backups, "at_startup", lambda *a, **k: None)


@pytest.fixture
def auto_backups():
    """Marks a test that keeps the automatic backups."""


def _history(path: Path, owners=("alice", "bob"), t0: float = 1_700_000_000.0) -> dict:
    """A history file with one graded round per owner; returns {owner: state}."""
    s = Store(path)
    out = {}
    for i, owner in enumerate(owners):
        state, _ = make_round(WEAK if i % 2 else STRONG[:1], t0=t0 + i)
        s.save(state, owner)
        out[owner] = state
    s.close()
    return out


def _no_paths(text: str, *paths: Path) -> None:
    assert "\n" not in text
    for p in paths:
        assert str(p) not in text and p.name not in text, text
    assert "/" not in text.replace("3/", ""), text  # no path of any kind


# --- backups ------------------------------------------------------------------------------

def test_a_backup_is_a_checked_copy_and_only_the_newest_are_kept(tmp_path):
    db = tmp_path / "rounds.db"
    states = _history(db)
    taken = []
    s = Store(db)
    for i in range(backups.KEEP + 3):
        state, _ = make_round(WEAK, t0=1_700_100_000.0 + i)
        s.save(state, "carol")
        taken.append(backups.take_backup(db, now=1_700_100_000.0 + 60 * i))
    s.close()
    assert all(taken) and len(set(taken)) == len(taken)
    kept = backups.list_backups(db)
    assert kept == sorted(taken[-backups.KEEP:], reverse=True)  # the newest KEEP, newest first
    assert all(p.parent == tmp_path / "backups" for p in kept)
    assert backups.taken_at(kept[0]) == pytest.approx(1_700_100_000.0 + 60 * (backups.KEEP + 2), abs=1e-3)
    copy = Store(kept[0])
    assert copy.load(states["alice"].id, "alice") == states["alice"]
    assert len(copy.list("carol")) == backups.KEEP + 3
    copy.close()
    assert not list((tmp_path / "backups").glob(".*.tmp"))


def test_no_backup_of_an_empty_or_unchanged_database(tmp_path):
    db = tmp_path / "rounds.db"
    Store(db).close()
    assert backups.take_backup(db) is None  # nothing worth keeping
    _history(db)
    first = backups.take_backup(db, now=1_700_000_100.0)
    assert first is not None
    assert backups.take_backup(db, now=1_700_000_200.0) is None  # unchanged: restarts rotate nothing out
    assert backups.list_backups(db) == [first]


def test_saves_take_a_backup_at_most_every_few_minutes(auto_backups, tmp_path, monkeypatch):
    db = tmp_path / "rounds.db"
    s = Store(db)
    for i in range(5):
        state, _ = make_round(WEAK, t0=1_700_000_000.0 + i)
        s.save(state, "alice")
    assert len(backups.list_backups(db)) == 1  # the first save took one; the next four were too soon
    monkeypatch.setattr(backups, "EVERY_S", 0.0)
    state, _ = make_round(WEAK, t0=1_700_000_100.0)
    s.save(state, "alice")
    assert len(backups.list_backups(db)) == 2
    s.close()


def test_opening_a_healthy_database_takes_a_backup(auto_backups, tmp_path):
    db = tmp_path / "rounds.db"
    _history(db)
    for b in backups.list_backups(db):
        b.unlink()
    s, notice = open_store(db)
    s.close()
    assert notice is None
    [b] = backups.list_backups(db)
    assert backups.healthy(b)


def test_a_failed_backup_never_fails_a_save(auto_backups, tmp_path, monkeypatch):
    db = tmp_path / "rounds.db"
    (tmp_path / "backups").write_text("a file where the folder should be")
    s = Store(db)
    state, _ = make_round(WEAK)
    s.save(state, "alice")  # the backup fails (logged); the save does not
    assert s.load(state.id, "alice") == state
    s.close()


# --- recovery -----------------------------------------------------------------------------

@pytest.mark.parametrize("damage", [_garbage, _damaged_pages, "emptied"])
def test_a_damaged_database_is_restored_from_the_newest_healthy_backup(tmp_path, damage):
    db = tmp_path / "rounds.db"
    states = _history(db)
    good = backups.take_backup(db, now=1_700_000_500.0)
    s = Store(db)
    later, _ = make_round(WEAK, t0=1_700_000_900.0)
    s.save(later, "alice")
    s.close()
    bad = backups.take_backup(db, now=1_700_000_950.0)  # newest, but damaged below: skipped
    bad.write_bytes(b"not a backup" * 100)
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    if damage == "emptied":
        db.write_bytes(b"")
    else:
        db.unlink()
        damage(db)

    s, notice = open_store(db)
    try:
        assert s.load(states["alice"].id, "alice") == states["alice"]  # from the healthy backup
        assert s.load(states["bob"].id, "bob") == states["bob"]
        assert s.load(later.id, "alice") is None  # saved after that backup
    finally:
        s.close()
    assert notice and "restored" in notice and "moved" in notice
    _no_paths(notice, tmp_path, good, db)
    moved = [p for p in tmp_path.glob("rounds.db.corrupt-*") if not p.name.endswith(("-wal", "-shm"))]
    assert len(moved) == 1  # the damaged file is kept

    told = {o: backups.take_notices(db, o) for o in ("alice", "bob")}
    for owner, texts in told.items():
        assert len(texts) == 1, owner
        assert "restored from the backup of" in texts[0]
        _no_paths(texts[0], tmp_path, good, db)
    assert backups.take_notices(db, "alice") == []  # once each
    assert backups.take_notices(db, "bob") == []


def test_every_affected_owner_is_told_even_after_a_restart_and_no_one_else(tmp_path):
    """Damaged pages: the owners can still be read from the damaged file."""
    db = tmp_path / "rounds.db"
    _history(db, owners=("alice", "bob", "dave"))
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode = DELETE")
    page_size = con.execute("PRAGMA page_size").fetchone()[0]
    root = con.execute("SELECT max(rootpage) FROM sqlite_master WHERE type = 'index'").fetchone()[0]
    con.close()
    data = bytearray(db.read_bytes())
    start = (root - 1) * page_size  # an index's page header damaged; the rounds table still reads
    data[start:start + 8] = b"\xff" * 8
    db.write_bytes(bytes(data))
    assert not backups.healthy(db) and backups.owners_in(db) == {"alice", "bob", "dave"}

    s, notice = open_store(db)
    s.close()
    assert notice and "no backup" in notice
    assert backups.take_notices(db, "alice")  # the first visitor
    s, again = open_store(db)  # a restart: the fresh file is healthy
    s.close()
    assert again is None
    for owner in ("bob", "dave"):  # later visitors, after the restart
        [text] = backups.take_notices(db, owner)
        assert "no backup was available" in text and "ask the operator" in text
        _no_paths(text, tmp_path, db)
    assert backups.take_notices(db, "erin") == []  # had no rounds: not told


def test_when_the_damaged_file_is_unreadable_every_visitor_is_told_once(tmp_path):
    db = tmp_path / "rounds.db"
    _garbage(db)
    s, notice = open_store(db)
    s.close()
    assert notice and "moved" in notice and "no backup" in notice
    _no_paths(notice, tmp_path, db)
    for owner in ("alice", "zed"):
        [text] = backups.take_notices(db, owner)
        assert text.startswith("If you saved rounds here before ")
        assert backups.take_notices(db, owner) == []


def test_a_missing_database_is_not_restored(tmp_path):
    """Deleting the file is how an operator starts afresh: that is not damage."""
    db = tmp_path / "rounds.db"
    _history(db)
    assert backups.take_backup(db) is not None
    for side in ("", "-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    s, notice = open_store(db)
    assert notice is None and s.list("alice") == []
    s.close()

