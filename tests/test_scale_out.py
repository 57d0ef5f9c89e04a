"""Scale-out: two app processes (`streamlit run app.py` on two ports, as behind a proxy with sticky
sessions) on one PostgreSQL database and one Chroma server. A round started on one process is
visible on the other: the other's round page resumes it, answers on both land in the same round,
each exactly once, and its history lists it.

Driven through Streamlit's own websocket protocol by the client in benchmarks/bench_load.py (no
browser needed). Needs the PostgreSQL server (INTERVIEWER_TEST_POSTGRES_URL) and a Chroma server
(CHROMA_TEST_HOST/PORT, or one started here), as .ci/run provides."""
from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from conftest_servers import free_port, stop_process
from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("bench_load", ROOT / "benchmarks" / "bench_load.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_load"] = module
    spec.loader.exec_module(module)
    return module


def _wait_health(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with {proc.returncode}:\n{log.read_text(errors='replace')[-2000:]}")
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"streamlit at {url} did not answer /_stcore/health in 90 s")


@pytest.fixture
def two_processes(postgres_url, chroma_server, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "INTERVIEWER_BACKEND", "INTERVIEWER_AUTH")}
    env.update(INTERVIEWER_DATABASE_URL=postgres_url, CHROMA_HOST=chroma_server.host,
               CHROMA_PORT=str(chroma_server.port), INTERVIEWER_COLLECTION=f"test-{uuid.uuid4().hex[:12]}",
               INTERVIEWER_EMBEDDINGS="hash")
    built = subprocess.run([sys.executable, "-m", "interviewer", "ingest"], cwd=ROOT, capture_output=True, text=True,
                           timeout=300, env={**env, "INTERVIEWER_DATA_DIR": str(tmp_path / "ingest")})
    assert built.returncode == 0, built.stderr
    procs, urls = [], []
    try:
        for i in range(2):
            port = free_port()
            log = tmp_path / f"app-{i}.log"
            # Each process its own data folder: nothing but the database and the Chroma server is shared.
            penv = {**env, "INTERVIEWER_DATA_DIR": str(tmp_path / f"data-{i}")}
            procs.append((subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
                 str(port), "--server.address", "127.0.0.1"], cwd=ROOT, env=penv, stdout=open(log, "wb"),
                stderr=subprocess.STDOUT), log))
            urls.append(f"http://127.0.0.1:{port}")
        for url, (proc, log) in zip(urls, procs):
            _wait_health(url, proc, log)
        yield urls
    finally:
        for proc, _ in procs:
            stop_process(proc)


def test_a_round_started_on_one_process_is_visible_on_the_other(two_processes, postgres_url):
    bench = _bench()
    first_answer = "[scale-out] " + bench.ANSWERS[0]
    second_answer = "[scale-out] " + bench.ANSWERS[2]

    async def scenario():
        one = bench.Client(two_processes[0], 0, "local")
        await bench.sign_in(one)  # local mode: no sign-in, just the first page
        await one.click("Start the round")
        await one.answer(first_answer)
        await one.close()

        other = bench.Client(two_processes[1], 1, "local")
        await bench.sign_in(other)
        assert "chat_input" in other.elements, other.elements  # the open round, resumed on process 2
        assert any(first_answer in t for t in other.texts), "process 2 does not show the answer given on process 1"
        await other.answer(second_answer)
        assert not other.errors, other.errors
        await other.close()

        again = bench.Client(two_processes[0], 2, "local")  # and back on process 1: both answers
        await bench.sign_in(again)
        shown = "\n".join(again.texts)
        await again.close()
        return shown

    shown = asyncio.run(asyncio.wait_for(scenario(), 240))
    assert first_answer in shown and second_answer in shown

    engine = create_engine(postgres_url)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT owner, state_json FROM rounds")).fetchall()
    engine.dispose()
    assert len(rows) == 1 and rows[0][0] == "local"
    turns = json.loads(rows[0][1])["turns"]
    answers = [t["text"] for t in turns if t["role"] == "candidate"]
    assert answers == [first_answer, second_answer]  # each exactly once, in order
    assert [t["role"] for t in turns] == ["interviewer", "candidate", "interviewer", "candidate", "interviewer"]
