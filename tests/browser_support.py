"""What the real-browser tests share: Debian's chromium under Playwright, and `streamlit run app.py`
started on a free port of 127.0.0.1 and waited for at /_stcore/health."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest_servers import free_port, stop_process

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
# Two answers that earn capacity and scheduling evidence, typed into the chat by the browser tests.
ANSWERS = [
    "Memory first. Llama-3-8B in fp16 on one H100 80GB: weights about 16 GB, KV per token is "
    "2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072 bytes, so about 57 concurrent sequences at 8,192 tokens.",
    "Continuous batching with max_num_seqs 64 and max_num_batched_tokens 8192 per step. When the cache is full, "
    "preempt the lowest-priority, most recently admitted sequence and recompute it later.",
]
# Settings a visitor's server must not inherit from the test runner's environment.
SERVER_ENV_DROPPED = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CHROMA_HOST", "INTERVIEWER_AUTH",
                      "INTERVIEWER_DATABASE_URL")


def need_chromium() -> None:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail("Debian's chromium is missing at /usr/bin/chromium (.ci/run installs it)")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")


def wait_for(url: str, proc: subprocess.Popen | None, what: str, timeout: float = 90) -> None:
    """Until `url` answers 200; fails the test if the process exits first or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"{what} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"{what} did not answer {url} within {timeout:.0f} s")


def server_env(data_dir: Path) -> dict:
    env = {**os.environ, "INTERVIEWER_DATA_DIR": str(data_dir)}
    for var in SERVER_ENV_DROPPED:
        env.pop(var, None)
    return env


@contextlib.contextmanager
def streamlit_app(env: dict, *extra: str, port: int | None = None, timeout: float = 90):
    """`streamlit run app.py` on 127.0.0.1 (a free port unless given); yields its URL once healthy."""
    port = port or free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1", *extra],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(f"{url}/_stcore/health", proc, "streamlit", timeout)
        yield url
    finally:
        stop_process(proc)


@contextlib.contextmanager
def chromium():
    need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
