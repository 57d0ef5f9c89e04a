"""Shared fixtures. Every test runs with its own data directory, so no test sees another's store."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from interviewer import config

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path_factory, monkeypatch):
    """Each test its own data dir and the embedded store; server tests opt in via chroma_server_env."""
    monkeypatch.setenv("INTERVIEWER_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    monkeypatch.delenv("CHROMA_PORT", raising=False)
    for name in ("INTERVIEWER_ADMIN", "INTERVIEWER_DATABASE_URL", "INTERVIEWER_AUTH"):
        monkeypatch.delenv(name, raising=False)
    config.reload()
    yield
    monkeypatch.undo()
    config.reload()


@pytest.fixture(scope="session")
def shared_data_dir(tmp_path_factory):
    """A data dir whose vector store is built once and reused by read-only tests."""
    return tmp_path_factory.mktemp("shared-data")


def run_cli(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python -m interviewer ARGS` from the repository root, as a user would."""
    import os

    return subprocess.run([sys.executable, "-m", "interviewer", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def write_transcript(path: Path, question_id: str, answers: list[str], **extra) -> Path:
    turns = []
    for a in answers:
        turns += [{"role": "interviewer", "text": "Go on."}, {"role": "candidate", "text": a}]
    path.write_text(json.dumps({"question_id": question_id, "turns": turns, **extra}))
    return path


from conftest_llm import llama_server, llama_settings, silent_server, start_llama  # noqa: E402,F401
from conftest_postgres import postgres_admin_url, postgres_cut, postgres_url  # noqa: E402,F401  (PostgreSQL)
from conftest_servers import (  # noqa: E402,F401  (real servers on 127.0.0.1 for integration tests)
    chroma_server,
    chroma_server_env,
    embedded_store_env,
    openai_embeddings_server,
)


def answer(state, text, now: float | None = None):
    """One built-in turn through the Session, ungrounded, at time `now` (default: the real clock)."""
    import time

    from interviewer.session import Session, no_retriever

    return Session(store=None, retriever=no_retriever, clock=(lambda: now) if now is not None else time.time
                   ).take_turn(state, text)


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium under Playwright, one per test module (tests/browser_support.py)."""
    from browser_support import chromium

    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    """`streamlit run app.py` in local mode on 127.0.0.1 with its own data dir, one per test module."""
    from browser_support import need_chromium, server_env, streamlit_app

    need_chromium()
    with streamlit_app(server_env(tmp_path_factory.mktemp("browser-data")), timeout=60) as url:
        yield url


def quote_problems(cases) -> list:
    """Report quotes and claim spans that are not exact substrings of the turn they name."""
    out = []
    for case in cases:
        turns = case.data["turns"]
        out += [(case.name, c.id, q) for c in case.report.criteria for q in c.evidence
                if q.quote not in turns[q.turn]["text"]]
        out += [(case.name, claim) for claim in case.report.claims if claim.span not in turns[claim.turn]["text"]]
    return out
