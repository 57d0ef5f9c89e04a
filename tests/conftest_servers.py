"""Shared fixtures for tests against real servers (imported by tests/conftest.py).

chroma_server: a real Chroma server for the session: the one named by CHROMA_HOST/CHROMA_PORT
when set, else `chroma run` started here on a free 127.0.0.1 port in a temporary folder, waited
for on /api/v2/heartbeat and stopped at the end.
chroma_server_env: points interviewer.retrieval at that server (CHROMA_HOST/CHROMA_PORT) with a
collection of its own per test (INTERVIEWER_COLLECTION), dropped afterwards.
embedded_store_env: the opposite: no server, a fresh INTERVIEWER_DATA_DIR under tmp_path.
openai_embeddings_server: a small OpenAI-compatible /v1/embeddings server on 127.0.0.1 (a thread
in this process) that serves deterministic vectors, for the remote-embedder code path.
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from interviewer import config

STARTUP_TIMEOUT_S = 60


@dataclass(frozen=True)
class ChromaServer:
    host: str
    port: int
    started_here: bool

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def heartbeat_ok(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=timeout) as resp:
            return resp.status == 200
    except OSError:
        return False


def chroma_executable() -> str | None:
    beside = Path(sys.executable).parent / "chroma"
    return str(beside) if beside.exists() else shutil.which("chroma")


def stop_process(proc: subprocess.Popen) -> None:
    """Terminate a server we started; kill it if it does not stop within 10 s."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory):
    # .ci/run starts a server and names it in CHROMA_TEST_HOST/PORT (CHROMA_HOST would switch every
    # test's store to the server); a developer's own CHROMA_HOST/PORT works too.
    host = os.environ.get("CHROMA_TEST_HOST") or os.environ.get("CHROMA_HOST")
    if host:
        port = os.environ.get("CHROMA_TEST_PORT") or os.environ.get("CHROMA_PORT") or 8000
        server = ChromaServer(host, int(port), False)
        if not heartbeat_ok(server.url, timeout=10):
            pytest.fail(f"CHROMA_TEST_HOST/CHROMA_TEST_PORT name {server.url}, which does not answer "
                        "/api/v2/heartbeat")
        yield server
        return
    exe = chroma_executable()
    if exe is None:
        pytest.fail("the `chroma` command (from the chromadb package) is not installed")
    path = tmp_path_factory.mktemp("chroma-server")
    port = free_port()
    server = ChromaServer("127.0.0.1", port, True)
    log = open(path / "server.log", "wb")
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    proc = subprocess.Popen([exe, "run", "--path", str(path / "data"), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not heartbeat_ok(server.url, timeout=1):
            if proc.poll() is not None:
                tail = (path / "server.log").read_text(errors="replace")[-2000:]
                pytest.fail(f"`chroma run` exited with {proc.returncode}:\n{tail}")
            if time.monotonic() > deadline:
                pytest.fail(f"`chroma run` did not answer on {server.url} "
                            f"within {STARTUP_TIMEOUT_S}s")
            time.sleep(0.1)
        yield server
    finally:
        stop_process(proc)
        log.close()


@pytest.fixture
def chroma_server_env(chroma_server, monkeypatch, tmp_path):
    """interviewer.retrieval talks to the Chroma server, in a collection of this test's own."""
    from interviewer import retrieval

    name = f"test-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("CHROMA_HOST", chroma_server.host)
    monkeypatch.setenv("CHROMA_PORT", str(chroma_server.port))
    monkeypatch.setenv("INTERVIEWER_COLLECTION", name)
    monkeypatch.setenv("INTERVIEWER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("INTERVIEWER_EMBEDDINGS", "hash")
    config.reload()
    retrieval.reset_clients()
    yield chroma_server
    try:
        retrieval.get_client().delete_collection(name)
    except Exception:  # the test may have left no collection behind
        pass
    retrieval.reset_clients()


@pytest.fixture
def embedded_store_env(monkeypatch, tmp_path):
    """interviewer.retrieval uses an embedded store in a fresh data dir (no server)."""
    from interviewer import retrieval

    monkeypatch.delenv("CHROMA_HOST", raising=False)
    monkeypatch.delenv("CHROMA_PORT", raising=False)
    monkeypatch.delenv("INTERVIEWER_COLLECTION", raising=False)
    monkeypatch.setenv("INTERVIEWER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("INTERVIEWER_EMBEDDINGS", "hash")
    config.reload()
    retrieval.reset_clients()
    yield tmp_path / "data"
    retrieval.reset_clients()


@dataclass
class FakeEmbeddingsServer:
    base_url: str
    requests: list = field(default_factory=list)  # one list of input texts per request


@pytest.fixture
def openai_embeddings_server():
    """OpenAI-compatible POST /v1/embeddings answering with 256-dim hashing vectors."""
    import numpy as np

    from interviewer.embeddings import hash_embed

    seen: list = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep pytest output clean
            pass

        def do_POST(self):  # noqa: N802 (http.server API)
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            if self.path.rstrip("/") != "/v1/embeddings":
                self.send_error(404)
                return
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            seen.append(list(inputs))
            data = []
            for i, text in enumerate(inputs):
                vec = hash_embed(str(text), 256).astype(np.float32)
                emb = (base64.b64encode(vec.tobytes()).decode()
                       if body.get("encoding_format") == "base64" else vec.tolist())
                data.append({"object": "embedding", "index": i, "embedding": emb})
            out = json.dumps({"object": "list", "data": data, "model": body.get("model", ""),
                              "usage": {"prompt_tokens": 0, "total_tokens": 0}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield FakeEmbeddingsServer(f"http://127.0.0.1:{httpd.server_address[1]}/v1", seen)
    finally:
        httpd.shutdown()
        httpd.server_close()
