"""A real PostgreSQL server for the store's tests (imported by the test modules that use it).

postgres_admin_url: the server .ci/run starts (Debian's postgresql, run as its own user on a
temporary data folder and a free port), named by INTERVIEWER_TEST_POSTGRES_URL, an admin URL
such as postgresql+psycopg://postgres@127.0.0.1:PORT/postgres. With no such variable the tests
that need it are skipped with the reason (and fail under CI=true, where .ci/run must have
started it).
postgres_url: a fresh, empty database on that server for one test, dropped afterwards.
TcpCut: a TCP forwarder in front of the server that a test can cut and restore, to take the
database away mid-round and bring it back.
"""
from __future__ import annotations

import os
import socket
import threading
import uuid

import pytest

ENV = "INTERVIEWER_TEST_POSTGRES_URL"


def _unavailable(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (.ci/run starts a PostgreSQL server and names it in {ENV})")
    pytest.skip(f"{reason}: set {ENV}=postgresql+psycopg://postgres@127.0.0.1:PORT/postgres to run the "
                "store's tests against PostgreSQL too (.ci/run starts one)")


@pytest.fixture(scope="session")
def postgres_admin_url() -> str:
    url = os.environ.get(ENV, "").strip()
    if not url:
        _unavailable("no PostgreSQL server for the tests")
    from sqlalchemy import create_engine, text

    engine = create_engine(url, connect_args={"connect_timeout": 5})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:
        _unavailable(f"{ENV} names a server that does not answer ({' '.join(str(exc).split())[:200]})")
    finally:
        engine.dispose()
    return url


def _admin(url: str):
    from sqlalchemy import create_engine

    return create_engine(url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 5})


@pytest.fixture
def postgres_url(postgres_admin_url) -> str:
    """A fresh database for this test: postgresql+psycopg://.../test_<random>."""
    from sqlalchemy import text
    from sqlalchemy.engine import make_url

    name = f"test_{uuid.uuid4().hex[:12]}"
    admin = _admin(postgres_admin_url)
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(postgres_admin_url).set(database=name, drivername="postgresql+psycopg")
    yield url.render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


class TcpCut:
    """127.0.0.1:port -> the PostgreSQL server, until `cut()`; `restore()` listens again on the same port."""

    def __init__(self, host: str, port: int):
        self.upstream = (host, port)
        self._sock: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.restore()

    def restore(self) -> None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        sock.listen(16)
        self._sock = sock
        threading.Thread(target=self._accept, args=(sock,), daemon=True).start()

    def _accept(self, sock: socket.socket) -> None:
        while True:
            try:
                client, _ = sock.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=5)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        """Refuse new connections and drop the open ones, as a stopped server would."""
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() blocked on it (close alone does not)
            except OSError:
                pass
            self._sock.close()
            self._sock = None
        with self._lock:
            conns, self._conns = self._conns, []
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.close()

    def close(self) -> None:
        self.cut()


@pytest.fixture
def postgres_cut(postgres_url):
    """(URL through a cuttable TCP forwarder, the forwarder) for the same fresh database."""
    from sqlalchemy.engine import make_url

    url = make_url(postgres_url)
    cut = TcpCut(url.host or "127.0.0.1", url.port or 5432)
    try:
        yield url.set(host="127.0.0.1", port=cut.port).render_as_string(hide_password=False), cut
    finally:
        cut.close()
