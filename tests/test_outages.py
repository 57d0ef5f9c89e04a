"""Servers that go away mid-round, through the Mock round page (AppTest): a PostgreSQL database cut
between turns, and a Chroma server that does not answer. No turn is lost, and the candidate is told.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from streamlit.testing.v1 import AppTest

from interviewer import config

APP = str(Path(__file__).resolve().parent.parent / "app.py")
ANSWERS = [
    "Llama-3-8B in fp16 on one H100-80GB: weights 16 GB, KV per token 128 KB, about 110 sequences at 4,096 tokens.",
    "Continuous batching with max_num_seqs 128 and max_num_batched_tokens 8192 per step; preempt the newest.",
    "p50 TTFT 300 ms and p99 under 800 ms, split into queueing, prefill and decode; p99 queue wait is the alarm.",
]


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "INTERVIEWER_BACKEND", "INTERVIEWER_MODEL", "CHROMA_HOST"):
        monkeypatch.delenv(var, raising=False)
    config.reload()


def start(at: AppTest) -> AppTest:
    at.run()
    at.button(key="start_round").click().run()
    assert not at.exception and at.chat_input(key="answer")
    return at


def send(at: AppTest, answer: str) -> AppTest:
    at.chat_input(key="answer").set_value(answer).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.chat_message[-1].name == "assistant" and at.chat_message[-2].name == "user"
    return at


def test_the_database_server_going_away_mid_round_loses_no_turn_and_says_so(postgres_cut, monkeypatch):
    url, cut = postgres_cut
    monkeypatch.setenv("INTERVIEWER_DATABASE_URL", url)
    config.reload()
    at = start(AppTest.from_file(APP, default_timeout=60))
    send(at, ANSWERS[0])
    assert not at.warning

    cut.cut()
    send(at, ANSWERS[1])  # the turn happens; the page says it is held, and offers it as a file
    warning = " ".join(w.value for w in at.warning)
    assert "could not be saved" in warning and "database server is unreachable" in warning
    assert "saved as soon as the database takes it again" in warning
    assert any(d.label.startswith("Download this round") for d in at.get("download_button"))

    cut.restore()
    send(at, ANSWERS[2])
    assert not at.warning
    engine = create_engine(url)
    with engine.connect() as conn:
        [(state_json,)] = conn.execute(text("SELECT state_json FROM rounds WHERE owner = 'local'")).fetchall()
    engine.dispose()
    turns = json.loads(state_json)["turns"]
    assert [t["text"] for t in turns if t["role"] == "candidate"] == ANSWERS  # each once, in order
    assert [t["role"] for t in turns] == ["interviewer"] + ["candidate", "interviewer"] * 3


def test_a_chroma_server_that_does_not_answer_costs_no_turn_and_says_so(monkeypatch):
    from conftest_servers import free_port

    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", str(free_port()))  # nothing listens there
    config.reload()
    at = start(AppTest.from_file(APP, default_timeout=60))
    send(at, ANSWERS[1])
    assert any("source search is unavailable" in t.value for t in at.toast)
    assert not at.error
    from interviewer.store import open_store

    store, _ = open_store()
    [summary] = store.list("local")
    state = store.load(summary.id, "local")
    store.close()
    assert [t.text for t in state.turns if t.role == "candidate"] == [ANSWERS[1]]
    assert state.turns[-1].role == "interviewer" and state.turns[-1].text
