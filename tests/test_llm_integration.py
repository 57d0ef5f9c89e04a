"""The LLM voice and judge against a real OpenAI-compatible server: llama.cpp's Python server with
SmolLM2-135M-Instruct (fixtures in tests/conftest_llm.py). The model is too small to interview
well; these tests prove the protocol, streaming, structured output, timeouts and fallbacks."""
from __future__ import annotations

import json
import time

import pytest

from interviewer import judge as J
from interviewer import llm
from interviewer.grader import grade
from interviewer.moves import Move, Passage
from interviewer.transcript import Transcript, Turn

FALLBACK = "Built-in: what limits how many requests one GPU can serve at once?"

ANSWERS = [
    "Llama-2-7B in fp16 is about 13.5 GB of weights on an 80 GB H100. KV per token is 2 x 32 layers x 32 heads "
    "x 128 x 2 bytes = 524,288 bytes, so 2 GB per 4k sequence; with 60 GB free that is about 30 sequences.",
    "Continuous batching with max-num-seqs 32 and max-num-batched-tokens 8192 per step. When the KV cache is "
    "full I preempt the lowest-priority, most recently admitted sequence and recompute it later.",
]


def transcript() -> Transcript:
    turns = []
    for answer in ANSWERS:
        turns += [Turn(role="interviewer", text="Go on."), Turn(role="candidate", text=answer)]
    return Transcript(question_id="gpu-inference-serving", company="Anthropic", level="senior", turns=turns)


def a_move() -> Move:
    return Move(kind="probe", phase="deep_dive", ask="What happens when the KV cache cannot admit a new request?",
                criterion="scheduling_policy", acknowledgement="a capacity figure that checks out",
                facts=["Llama-2-7B fp16: 524,288 KV bytes per token"],
                passages=[Passage(doc_id="admission#1", title="Admission, preemption, cancellation",
                                  source="vLLM docs", text="When blocks run out the scheduler preempts.")])


HISTORY = [Turn(role="interviewer", text="Design the serving system for a 7B chat model."),
           Turn(role="candidate", text=ANSWERS[0])]


def test_connection_ok_and_reports_the_model(llama_server, llama_settings):
    report = llm.test_connection(llama_settings)
    assert report.ok, report.error
    assert report.error is None and report.latency_ms > 0
    assert llama_server.model in report.models and report.model_present is True
    unnamed = llm.test_connection(llama_settings.model_copy(update={"model": None}))
    assert unnamed.ok and unnamed.model == report.models[0]
    wrong = llm.test_connection(llama_settings.model_copy(update={"model": "no-such-model"}))
    assert not wrong.ok and wrong.model_present is False and "no-such-model" in wrong.error


def test_streaming_a_reply_yields_several_chunks(llama_settings):
    chunks = list(llm.stream_reply(llama_settings, a_move(), HISTORY, "GPU inference serving", "Anthropic"))
    assert len(chunks) >= 3 and "".join(chunks).strip()

    speech = llm.speak(llama_settings, a_move(), HISTORY, "GPU inference serving", "Anthropic", FALLBACK)
    streamed = list(speech.chunks())
    outcome = speech.outcome
    assert outcome.source == "llm", outcome.notice
    assert len(streamed) >= 3 and outcome.notice is None and outcome.attempts == 1
    assert outcome.text and outcome.text in "".join(streamed)  # the stored turn is the stream, trimmed
    assert outcome.ttft_s is not None and outcome.ttft_s < llama_settings.timeout_s


def test_judge_returns_a_verdict_on_the_json_object_path(llama_server, llama_settings, monkeypatch):
    monkeypatch.setattr(J, "_mode_by_endpoint", {})
    t = transcript()
    full = grade(t)
    report = full.model_copy(update={"criteria": [c for c in full.criteria if c.required]})  # a shorter prompt
    # generous: the whole judgement is bounded by this one limit, and a shared 2-core machine is slow
    s = llama_settings.model_copy(update={"judge_max_tokens": 700, "judge_timeout_s": 300, "max_retries": 1})
    result = J.judge(s, report, t)
    assert result.verdict is not None, result.notice
    # llama-cpp-python's server rejects json_schema; "auto" moved to json_object with the schema
    if llama_server.started_here:
        assert result.structured_output == "json_object"
    assert set(result.verdict.criteria) == {c.id for c in report.criteria}
    out = J.reconcile(report, result.verdict, t, model=result.model)
    judged = out.judge
    assert set(judged["scores"]) == {c.id for c in report.criteria}
    assert [c.score for c in out.criteria] == [c.score for c in report.criteria]
    for cid, row in judged["scores"].items():
        det = report.criterion(cid).score
        assert row["clamped"] <= det + 1 and (row["quotes"] or row["clamped"] <= det)
        for q in row["quotes"]:
            assert q["quote"] in t.turns[q["turn"]].text and t.turns[q["turn"]].role == "candidate"
    json.dumps(out.model_dump(mode="json"))


def test_a_server_that_never_answers_falls_back_within_the_budget(silent_server):
    s = llm.BackendSettings(backend="local", base_url=silent_server, model="m", timeout_s=1, max_retries=1)
    start = time.monotonic()
    outcome = llm.speak(s, a_move(), HISTORY, "Q", None, FALLBACK).outcome
    elapsed = time.monotonic() - start
    # one stated limit bounds the whole turn: no time is left for the retry
    assert outcome.source == "fallback" and outcome.text == FALLBACK and outcome.attempts == 1
    assert outcome.notice == "The local model did not answer in 1 s; the built-in interviewer took this turn."
    assert elapsed < llm.budget_s(s) + 1.0
    report = llm.test_connection(s, timeout_s=1)
    assert not report.ok and report.error == "timed out after 1 s"
    verdict = J.judge(s.model_copy(update={"judge_timeout_s": 1}), grade(transcript()), transcript())
    assert verdict.verdict is None and "timed out after 1 s" in verdict.notice


def test_a_server_killed_mid_round_falls_back_with_the_turn_intact(start_llama):
    server = start_llama(n_ctx=2048)
    s = llm.BackendSettings(backend="local", base_url=server.base_url, model=server.model, timeout_s=120,
                            max_retries=1, max_tokens=200, temperature=0.0)
    first = llm.speak(s, a_move(), HISTORY, "GPU inference serving", None, FALLBACK).outcome
    assert first.source == "llm", first.notice

    # kill the server as the first piece of the next reply arrives
    speech = llm.speak(s, a_move(), HISTORY, "GPU inference serving", None, FALLBACK)
    seen = []
    for chunk in speech.chunks():
        if not seen:
            server.kill()
        seen.append(chunk)
    outcome = speech.outcome
    assert outcome.source == "fallback", outcome
    assert outcome.text == FALLBACK and speech.text == FALLBACK and seen[-1] == FALLBACK
    assert outcome.notice.startswith("The local model's reply broke off mid-stream")
    assert outcome.notice.endswith("the built-in interviewer took this turn.") and outcome.attempts == 2

    # the round goes on: the next turn falls back at once with a notice naming the refusal
    start = time.monotonic()
    after = llm.speak(s, a_move(), HISTORY, "GPU inference serving", None, FALLBACK).outcome
    assert after.source == "fallback" and after.text == FALLBACK
    assert "connection refused" in after.notice and time.monotonic() - start < 5


def test_replay_with_the_local_backend(llama_server, llama_settings):
    replay = pytest.importorskip("interviewer.replay")
    result = replay.replay(transcript(), backend="local", settings=llama_settings.model_copy(update={"max_tokens": 60}))
    interviewer_turns = [t for t in result.turns if t.role == "interviewer"]
    assert len(interviewer_turns) == len(ANSWERS) + 1
    assert all(t.text.strip() for t in interviewer_turns)
    assert [t.text for t in result.turns if t.role == "candidate"] == ANSWERS
    assert result.report.question_id == "gpu-inference-serving"


def test_replay_cli_with_backend_local(llama_server, tmp_path):
    pytest.importorskip("interviewer.replay")
    from conftest import run_cli

    path = tmp_path / "round.json"
    path.write_text(transcript().model_dump_json())
    env = {"OPENAI_BASE_URL": llama_server.base_url, "INTERVIEWER_MODEL": llama_server.model or "",
           "INTERVIEWER_MAX_TOKENS": "60", "INTERVIEWER_BACKEND": "", "OPENAI_API_KEY": ""}
    done = run_cli("replay", str(path), "--json", "--backend", "local", env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["report"]["question_id"] == "gpu-inference-serving"
    assert sum(t["role"] == "interviewer" for t in data["turns"]) == len(ANSWERS) + 1
    assert "Traceback" not in done.stderr


def test_no_unchecked_turn_from_a_small_model_reaches_the_page(llama_server, llama_settings):
    """SmolLM2-135M wanders off task; every turn it is allowed to say passes the guard, and every other
    turn is the built-in interviewer's wording, counted as replaced."""
    from interviewer.llm.guard import Grounds, turn_problems
    from interviewer.session import Session, no_retriever
    from interviewer.voice import render

    settings = llama_settings.model_copy(update={"max_tokens": 80, "timeout_s": 60})
    session = Session(store=None, voice=llm.LLMVoice(settings), retriever=no_retriever)
    state = session.start_round("gpu-inference-serving", "Anthropic")
    sources = []
    for answer in ANSWERS + ["We would route by prefix hash across replicas and shed load past a queue of 200."]:
        pending = session.submit(state, answer)
        streamed = "".join(pending.utterance.chunks())
        turn = session.complete(state, pending)
        sources.append(turn.voice)
        if turn.voice == "llm":
            grounds = Grounds.of(pending.move, state.turns[:-1])
            assert not turn_problems(turn.text, pending.move, grounds), turn.text
            assert streamed.strip() in turn.text or not streamed.strip()
        else:
            assert turn.voice in ("replaced", "fallback")
            assert turn.text == render(pending.move, f"{state.id}:{len(state.turns) - 1}")
            assert turn.notice
    assert len(sources) == len(ANSWERS) + 1
