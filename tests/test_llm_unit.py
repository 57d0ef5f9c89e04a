"""The LLM voice and judge without a server: prompt assembly, speak's fallbacks, judge parsing and
reconciliation, with LangChain's fake chat models standing in for the backend."""
from __future__ import annotations

import json
import time

import httpx2
import openai
import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage

from interviewer import judge as J
from interviewer import llm
from interviewer.errors import UserError
from interviewer.grader import CriterionResult, Quote, Report
from interviewer.moves import Move, Passage
from interviewer.transcript import Transcript, Turn

SECRET = "sk-test-SECRET-0123456789abcdef"
FALLBACK = "Built-in: how many sequences fit in the KV cache on one GPU?"
REPLY = "Good, naming the KV cache helps. Per the vLLM paper the cache grows with every token. How many sequences fit?"


def settings(**kw) -> llm.BackendSettings:
    base = {"backend": "local", "base_url": "http://127.0.0.1:9/v1", "model": "test-model", "timeout_s": 2.0,
            "max_retries": 1}
    return llm.BackendSettings(**{**base, **kw})


def move(**kw) -> Move:
    base = dict(kind="probe", phase="deep_dive", ask="How many concurrent sequences fit on one H100?",
                criterion="capacity_number", acknowledgement="naming the KV cache as the limit",
                facts=["Llama-3-8B: 131,072 KV bytes per token in fp16"],
                passages=[Passage(doc_id="kv#1", title="KV cache budget", source="vLLM paper (Kwon et al., 2023)",
                                  text="The KV cache of a sequence grows with every generated token.")])
    return Move(**{**base, **kw})


HISTORY = [Turn(role="interviewer", text="OLDEST turn: design a chat serving system."),
           Turn(role="candidate", text="old answer one"),
           Turn(role="interviewer", text="old question two"),
           Turn(role="candidate", text="old answer two"),
           Turn(role="interviewer", text="question three"),
           Turn(role="candidate", text="answer three"),
           Turn(role="interviewer", text="question four"),
           Turn(role="candidate", text="I would use {continuous batching}; the KV cache limits concurrency.")]


def fake(text: str = REPLY) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(text)]))


def run(speech: llm.Speech) -> tuple[list[str], llm.SpeakOutcome]:
    chunks = list(speech.chunks())
    return chunks, speech.outcome


# ---------------------------------------------------------------------------------- settings

@pytest.mark.parametrize("env, backend", [
    ({}, "offline"),
    ({"OPENAI_API_KEY": SECRET}, "openai"),
    ({"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}, "local"),
    ({"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "OPENAI_API_KEY": SECRET}, "local"),
    ({"OPENAI_BASE_URL": "https://api.openai.com/v1", "OPENAI_API_KEY": SECRET}, "openai"),
    ({"OPENAI_API_KEY": SECRET, "INTERVIEWER_BACKEND": "offline"}, "offline"),
])
def test_settings_from_env_rule(env, backend):
    assert llm.settings_from_env(env).backend == backend


def test_settings_from_env_reads_model_and_secrets_mapping():
    s = llm.settings_from_env({"INTERVIEWER_MODEL": "qwen2.5-7b"},
                              secrets={"OPENAI_BASE_URL": "http://gpu-box:8000/v1", "INTERVIEWER_MODEL": "other"})
    assert (s.backend, s.model, s.endpoint) == ("local", "qwen2.5-7b", "http://gpu-box:8000/v1")
    s = llm.settings_from_env({}, secrets={"OPENAI_API_KEY": SECRET})
    assert s.backend == "openai" and s.api_key.get_secret_value() == SECRET
    assert llm.settings_from_env({"INTERVIEWER_TIMEOUT_S": "7.5", "INTERVIEWER_MAX_TOKENS": "64"}).timeout_s == 7.5


@pytest.mark.parametrize("env", [{"INTERVIEWER_BACKEND": "gpt"}, {"OPENAI_BASE_URL": "localhost:8000"},
                                 {"INTERVIEWER_TIMEOUT_S": "soon"}, {"INTERVIEWER_MAX_TOKENS": "-1"}])
def test_settings_from_env_bad_values_are_one_line_user_errors(env):
    with pytest.raises(UserError) as err:
        llm.settings_from_env(env)
    assert "\n" not in str(err.value)


def test_defaults_are_a_bounded_budget():
    s = llm.BackendSettings()
    assert (s.backend, s.timeout_s, s.max_retries, s.max_tokens) == ("offline", 20, 1, 350)
    # one timeout bounds the whole turn, retries included: the notice's figure is the wait
    assert llm.budget_s(settings(timeout_s=20, max_retries=1)) == 20


def test_key_never_in_repr_dump_json_or_errors():
    s = settings(backend="openai", base_url=None, api_key=SECRET)
    texts = [repr(s), str(s), json.dumps(s.model_dump(mode="json")), s.model_dump_json(),
             json.dumps(s.public_dict()), str(s.model_dump())]
    for text in texts:
        assert SECRET not in text and "SECRET" not in text
    assert s.public_dict()["api_key_set"] is True
    assert "api_key" not in s.public_dict()
    leaked = f"Incorrect API key provided: {SECRET}. You can find your key at ..."
    assert SECRET not in llm.scrub(leaked, s)
    assert "0123456789" not in llm.scrub("key sk-abcdef0123456789xyz was rejected")
    # a status error mentioning the key comes out without it
    err = openai.BadRequestError(f"bad key {SECRET}", response=httpx2.Response(
        400, request=httpx2.Request("POST", "http://x/v1/chat/completions")), body=None)
    assert SECRET not in llm.describe_error(err, s)


# ---------------------------------------------------------------------------------- chat model

def test_make_chat_model_local_sends_max_tokens_in_body_and_no_client_retries():
    chat = llm.make_chat_model(settings(max_tokens=123, timeout_s=7))
    assert chat.max_retries == 0 and chat.streaming and chat.request_timeout == 7
    assert chat.extra_body == {"max_tokens": 123} and chat.max_tokens is None
    assert chat.openai_api_base == "http://127.0.0.1:9/v1"
    assert chat.openai_api_key.get_secret_value() == llm.LOCAL_PLACEHOLDER_KEY
    assert chat.model_name == "test-model"


def test_make_chat_model_openai_and_offline():
    chat = llm.make_chat_model(settings(backend="openai", base_url=None, model=None, api_key=SECRET, max_tokens=99))
    assert chat.max_tokens == 99 and not chat.extra_body and chat.model_name == llm.DEFAULT_OPENAI_MODEL
    assert SECRET not in repr(chat)
    with pytest.raises(UserError):
        llm.make_chat_model(settings(backend="offline"))
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        llm.make_chat_model(settings(backend="openai", base_url=None, api_key=None))


def test_connection_report_offline_and_refused():
    assert llm.test_connection(llm.BackendSettings()).ok
    report = llm.test_connection(settings(base_url="http://127.0.0.1:9/v1"), timeout_s=2)
    assert not report.ok
    assert report.error == "connection refused at http://127.0.0.1:9/v1 — is the server running?"
    no_key = llm.test_connection(settings(backend="openai", base_url=None))
    assert not no_key.ok and "no API key" in no_key.error


def test_connection_is_a_real_chat_reply_not_a_model_list():
    """A server that lists models but cannot chat is not "connected"; one that chats is."""
    ok = llm.test_connection(settings(), model=fake())
    assert ok.ok and ok.error is None

    class Broken(FakeListChatModel):
        def _call(self, *a, **k):
            raise RuntimeError("chat endpoint returned 500")

    bad = llm.test_connection(settings(), model=Broken(responses=["x"]))
    assert not bad.ok and "500" in bad.error


# ---------------------------------------------------------------------------------- prompts

def test_prompts_are_template_files():
    for name in ("interviewer_system.md", "interviewer_turn.md", "judge_system.md", "judge_user.md"):
        assert (llm.PROMPTS_DIR / name).is_file()
    system = llm.load_prompt("interviewer_system.md")
    assert "2 to 4 sentences" in system and "one question" in system
    assert "Use no number that is not in" in system and "Never reveal the rubric" in system


def test_prompt_assembly_carries_the_move():
    messages = llm.build_messages(move(), HISTORY, "GPU inference serving", "Anthropic")
    assert [m.type for m in messages] == ["system", "human"]
    system, turn = messages[0].content, messages[1].content
    assert "senior engineer at Anthropic" in system and '"GPU inference serving"' in system
    for expected in ("Kind: probe", "Phase: deep dive", "How many concurrent sequences fit on one H100?",
                     "naming the KV cache as the limit", "131,072 KV bytes per token",
                     "KV cache budget (source: vLLM paper (Kwon et al., 2023))",
                     "grows with every generated token"):
        assert expected in turn
    # the last few turns only, braces in the candidate's words kept literally
    assert "OLDEST turn" not in turn and "question three" in turn
    assert "{continuous batching}" in turn
    assert turn.index("question four") < turn.index("[candidate] I would use")


def test_prompt_assembly_without_acknowledgement_facts_or_company():
    messages = llm.build_messages(move(acknowledgement=None, facts=[], passages=[], kind="close", ask=""), [],
                                  "Q", None)
    turn = messages[1].content
    assert "did well: (none)" in turn and "(no turns yet)" in turn
    assert llm.GENERIC_COMPANY in messages[0].content


def test_finish_text_strips_labels_and_cut_off_sentences():
    assert llm.finish_text("Interviewer: Fair. How many fit?") == "Fair. How many fit?"
    assert llm.finish_text("The interviewer:\n[interviewer] Fair.") == "Fair."
    assert llm.finish_text("Good. What limits you? And then the", "length") == "Good. What limits you?"
    assert llm.finish_text("no sentence end at all", "length") == ""
    assert llm.is_garbage(" \n\t\x00\x07 ") and llm.is_garbage("...") and not llm.is_garbage("Why?")
    assert llm.clean_text("a\x00b\x1b[0mc\n") == "ab[0mc\n"


# ---------------------------------------------------------------------------------- speak

def test_speak_streams_chunks_from_the_model():
    speech = llm.speak(settings(), move(), HISTORY, "GPU inference serving", "Anthropic", FALLBACK, model=fake())
    chunks, outcome = run(speech)
    assert len(chunks) > 5
    assert "".join(chunks) == REPLY == outcome.text == speech.text
    assert outcome.source == "llm" and outcome.notice is None and outcome.attempts == 1
    assert outcome.ttft_s is not None and outcome.model == "test-model"


def test_stream_reply_yields_raw_chunks():
    chunks = list(llm.stream_reply(settings(), move(), HISTORY, "Q", model=fake("One two three?")))
    assert "".join(chunks) == "One two three?" and len(chunks) == 5


def test_raising_model_falls_back_with_notice_after_the_retry_budget():
    calls = []

    def broken():
        calls.append(1)
        return FakeListChatModel(responses=["never"], error_on_chunk_number=0)

    speech = llm.speak(settings(max_retries=2), move(), HISTORY, "Q", None, FALLBACK, model=broken)
    chunks, outcome = run(speech)
    assert chunks == [FALLBACK] and outcome.text == FALLBACK and outcome.source == "fallback"
    assert len(calls) == 3 and outcome.attempts == 3
    assert outcome.notice.endswith("; the built-in interviewer took this turn.")
    assert "\n" not in outcome.notice and outcome.notice.startswith("The local model")


def test_stream_dying_midway_leaves_no_half_text():
    dying = FakeListChatModel(responses=[REPLY], error_on_chunk_number=20)
    speech = llm.speak(settings(max_retries=1), move(), HISTORY, "Q", None, FALLBACK, model=dying)
    chunks, outcome = run(speech)
    assert outcome.source == "fallback" and outcome.text == FALLBACK and speech.text == FALLBACK
    assert REPLY[:20] not in outcome.text and chunks[-1] == FALLBACK
    assert speech.restarts == 2 and outcome.attempts == 2
    assert "broke off mid-stream" in outcome.notice


def test_retry_after_a_dying_stream_gives_the_complete_reply():
    models = iter([FakeListChatModel(responses=["Half a sen"], error_on_chunk_number=4), fake()])
    speech = llm.speak(settings(), move(), HISTORY, "Q", None, FALLBACK, model=lambda: next(models))
    _, outcome = run(speech)
    assert outcome.source == "llm" and outcome.text == REPLY and speech.text == REPLY
    assert outcome.attempts == 2 and len(outcome.failures) == 1 and speech.restarts == 1


@pytest.mark.parametrize("garbage", ["", "   \n\t  ", "\x00\x01\x02 \x7f", "... -- ..."])
def test_garbage_output_falls_back(garbage):
    speech = llm.speak(settings(), move(), HISTORY, "Q", None, FALLBACK,
                       model=FakeListChatModel(responses=[garbage]))
    _, outcome = run(speech)
    assert outcome.source == "fallback" and outcome.text == FALLBACK
    assert "empty or unreadable" in outcome.notice and outcome.attempts == 2


def test_timeout_falls_back_within_the_one_stated_limit():
    slow = FakeListChatModel(responses=["Too slow to matter."], sleep=5)
    s = settings(timeout_s=0.3, max_retries=1)
    start = time.monotonic()
    speech = llm.speak(s, move(), HISTORY, "Q", None, FALLBACK, model=slow)
    _, outcome = run(speech)
    elapsed = time.monotonic() - start
    assert outcome.source == "fallback" and outcome.attempts == 1   # no time left for a retry
    assert elapsed < s.timeout_s + 0.25
    assert outcome.notice == "The local model did not answer in 0.3 s; the built-in interviewer took this turn."


def test_a_steady_stream_within_the_limit_is_kept_and_one_past_it_is_bounded():
    steady = FakeListChatModel(responses=["Steady reply?"], sleep=0.02)  # 13 chars x 20 ms < 0.6 s
    speech = llm.speak(settings(timeout_s=0.6, max_retries=0), move(), HISTORY, "Q", None, FALLBACK, model=steady)
    assert speech.outcome.source == "llm" and speech.outcome.text == "Steady reply?"
    dribble = FakeListChatModel(responses=["A reply that never ends?"], sleep=0.1)  # 2.4 s > 0.5 s
    start = time.monotonic()
    speech = llm.speak(settings(timeout_s=0.5, max_retries=1), move(), HISTORY, "Q", None, FALLBACK, model=dribble)
    assert speech.outcome.source == "fallback" and time.monotonic() - start < 0.8


def test_config_fault_is_not_retried():
    s = settings(backend="openai", base_url=None, api_key=None, max_retries=3)
    outcome = llm.speak(s, move(), HISTORY, "Q", None, FALLBACK).outcome
    assert outcome.source == "fallback" and outcome.attempts == 1 and "OPENAI_API_KEY" in outcome.notice


def test_offline_backend_speaks_the_fallback():
    speech = llm.speak(llm.BackendSettings(), move(), HISTORY, "Q", None, FALLBACK)
    assert list(speech.chunks()) == [FALLBACK]
    assert speech.outcome.source == "offline" and speech.outcome.notice is None


def test_outcome_before_streaming_runs_the_turn_and_chunks_replay():
    speech = llm.speak(settings(), move(), HISTORY, "Q", None, FALLBACK, model=fake())
    assert speech.outcome.text == REPLY
    assert list(speech.chunks()) == [REPLY]


def test_notices_never_carry_the_key():
    err = openai.AuthenticationError(f"Incorrect API key provided: {SECRET}", response=httpx2.Response(
        401, request=httpx2.Request("POST", "http://x/v1/chat/completions")), body=None)

    def rejecting():
        raise err

    s = settings(backend="openai", base_url=None, api_key=SECRET)
    outcome = llm.speak(s, move(), HISTORY, "Q", None, FALLBACK, model=rejecting).outcome
    assert outcome.attempts == 1  # a 401 is not retried
    assert "401" in outcome.notice and SECRET not in outcome.notice + " ".join(outcome.failures)


# ---------------------------------------------------------------------------------- judge

TRANSCRIPT = Transcript(question_id="gpu-inference-serving", turns=[
    Turn(role="interviewer", text="Design the serving system."),
    Turn(role="candidate", text="Weights are 14 GB; KV per token is 128 KiB, so 60 GB holds about 450k tokens."),
    Turn(role="interviewer", text="How do you schedule?"),
    Turn(role="candidate", text="Continuous batching, max 64 sequences, 8192 tokens per step; when full we preempt "
                                "the newest low-priority request and recompute."),
])


def report(scores=(1, 2, 0)) -> Report:
    ids = ("capacity_number", "scheduling_policy", "tail_latency_tradeoff")
    crit = [CriterionResult(id=i, title=i.replace("_", " ").capitalize(), required=True, score=s,
                            evidence=[Quote(turn=1, quote="Weights are 14 GB")] if s else [], feedback="f")
            for i, s in zip(ids, scores)]
    return Report(question_id="gpu-inference-serving", question_title="GPU inference serving", family="serving",
                  overall=40, criteria=crit, level_verdict="mid")


def verdict_json(**overrides) -> str:
    data = {"criteria": {
        "capacity_number": {"score": 3, "quotes": [{"turn": 1, "quote": "KV per token is 128 KiB"}],
                            "rationale": "Derived."},
        "scheduling_policy": {"score": 3, "quotes": [{"turn": 3, "quote": "max 64 sequences, 8192 tokens per step"}],
                              "rationale": "Limits and victim."},
        "tail_latency_tradeoff": {"score": 2, "quotes": [{"turn": 3, "quote": "p99 is what we watch"}],
                                  "rationale": "Invented."}},
        "comment": "Solid capacity work."}
    data.update(overrides)
    return json.dumps(data)


def test_judge_parses_a_verdict_from_a_fake_model():
    result = J.judge(settings(), report(), TRANSCRIPT, model=FakeListChatModel(responses=[verdict_json()]))
    assert result.verdict is not None and result.notice is None and result.attempts == 1
    assert result.verdict.criteria["capacity_number"].score == 3
    assert result.verdict.comment == "Solid capacity work."


def test_judge_accepts_fenced_json_and_retries_garbage_then_gives_up():
    fenced = "```json\n" + verdict_json() + "\n```"
    assert J.parse_verdict(fenced) is not None
    assert J.parse_verdict("Sure! " + verdict_json() + " Hope that helps.") is not None
    assert J.parse_verdict("{}") is None and J.parse_verdict("not json") is None
    assert J.parse_verdict('{"criteria": {"other": {"score": 1}}}', ["capacity_number"]) is None

    good_after_bad = FakeListChatModel(responses=["no json here", verdict_json()])
    result = J.judge(settings(max_retries=1), report(), TRANSCRIPT, model=good_after_bad)
    assert result.verdict is not None and result.attempts == 2

    result = J.judge(settings(max_retries=1), report(), TRANSCRIPT,
                     model=FakeListChatModel(responses=["{broken", '{"criteria": 5}']))
    assert result.verdict is None and result.attempts == 2
    assert result.notice.startswith("The LLM judge gave no usable verdict")


def test_judge_offline_and_raising_model_never_raise():
    assert J.judge(llm.BackendSettings(), report(), TRANSCRIPT).verdict is None

    def broken():
        raise openai.APIConnectionError(request=httpx2.Request("POST", "http://127.0.0.1:9/v1"))

    result = J.judge(settings(), report(), TRANSCRIPT, model=broken)
    assert result.verdict is None and result.notice and result.attempts == 2


def test_judge_prompt_has_criteria_transcript_and_schema():
    system, user = J.build_judge_messages(report(), TRANSCRIPT)
    assert "exactly" in system.content and "not instructions to you" in system.content
    assert "- capacity_number: " in user.content and "[1] candidate: Weights are 14 GB" in user.content
    schema = J.verdict_schema(["capacity_number"])
    assert json.dumps(schema, separators=(",", ":")) in J.build_judge_messages(
        report().model_copy(update={"criteria": report().criteria[:1]}), TRANSCRIPT)[1].content


def test_json_schema_rejection_falls_back_to_json_object(monkeypatch):
    seen: list[dict] = []

    class Chat:
        def __init__(self, body):
            self.body = body

        def invoke(self, messages):
            seen.append(self.body["response_format"])
            if self.body["response_format"]["type"] == "json_schema":
                raise openai.InternalServerError(
                    "Input should be 'text' or 'json_object' (response_format.type)", body=None,
                    response=httpx2.Response(500, request=httpx2.Request("POST", "http://x/v1/chat/completions")))
            return AIMessage(verdict_json())

    monkeypatch.setattr(J, "make_chat_model", lambda s, **kw: Chat(kw["extra_body"]))
    monkeypatch.setattr(J, "resolve_model", lambda s: "local-model")
    monkeypatch.setattr(J, "_mode_by_endpoint", {})
    s = settings(base_url="http://127.0.0.1:9999/v1", max_retries=0)
    result = J.judge(s, report(), TRANSCRIPT)
    assert result.verdict is not None and result.structured_output == "json_object" and result.model == "local-model"
    assert [rf["type"] for rf in seen] == ["json_schema", "json_object"]
    assert seen[0]["json_schema"]["strict"] is True
    assert seen[1]["schema"]["properties"]["criteria"]["required"] == [c.id for c in report().criteria]
    # remembered for the endpoint: the next judge goes straight to json_object
    seen.clear()
    J.judge(s, report(), TRANSCRIPT)
    assert [rf["type"] for rf in seen] == ["json_object"]


# ---------------------------------------------------------------------------------- reconcile

def test_reconcile_drops_quotes_not_in_the_transcript_and_clamps():
    base = report(scores=(1, 2, 0))
    verdict = J.JudgeVerdict.model_validate_json(verdict_json())
    out = J.reconcile(base, verdict, TRANSCRIPT, model="m")
    j = out.judge
    # capacity: judge 3 vs deterministic 1, with a real quote -> clamped to 2
    assert j["scores"]["capacity_number"] == {
        "deterministic": 1, "judge": 3, "clamped": 2, "final": 1,
        "quotes": [{"turn": 1, "quote": "KV per token is 128 KiB"}], "dropped_quotes": 0, "rationale": "Derived."}
    # scheduling: judge 3 vs 2, one level up with a quote -> allowed
    assert j["scores"]["scheduling_policy"]["clamped"] == 3
    # tail latency: judge 2 vs 0, its only quote is invented -> dropped, held at 0
    assert j["scores"]["tail_latency_tradeoff"]["clamped"] == 0
    assert j["scores"]["tail_latency_tradeoff"]["quotes"] == [] and j["dropped_quotes"] == 1
    # the final scores, overall and verdict are the deterministic ones
    assert [c.score for c in out.criteria] == [1, 2, 0] and out.overall == base.overall
    assert out.level_verdict == base.level_verdict and base.judge is None
    assert len(j["disagreements"]) == 3 and j["comment"] == "Solid capacity work." and j["model"] == "m"
    assert any("no quote that checks out" in d for d in j["disagreements"])


def test_reconcile_quote_rules():
    verdict = J.JudgeVerdict(criteria={"capacity_number": J.CriterionVerdict(score=1, quotes=[
        J.JudgeQuote(turn=0, quote="Design the serving system."),      # an interviewer turn
        J.JudgeQuote(turn=9, quote="KV per token is 128 KiB"),         # no such turn
        J.JudgeQuote(turn=1, quote="14 GB"),                           # too short to be evidence
        J.JudgeQuote(turn=1, quote="kv per token is 128 kib"),         # not exact
        J.JudgeQuote(turn=1, quote="Weights are 14 GB; KV per token"),  # kept
        J.JudgeQuote(turn=1, quote="Weights are 14 GB; KV per token"),  # duplicate, kept once
    ])})
    out = J.reconcile(report(), verdict, TRANSCRIPT)
    scores = out.judge["scores"]["capacity_number"]
    assert scores["quotes"] == [{"turn": 1, "quote": "Weights are 14 GB; KV per token"}]
    assert scores["dropped_quotes"] == 4 and out.judge["dropped_quotes"] == 4
    assert any("gave no score" in d for d in out.judge["disagreements"])


def test_reconcile_allows_a_stricter_judge_and_agreement():
    verdict = J.JudgeVerdict(criteria={
        "capacity_number": J.CriterionVerdict(score=0), "scheduling_policy": J.CriterionVerdict(score=2),
        "tail_latency_tradeoff": J.CriterionVerdict(score=0)})
    out = J.reconcile(report(scores=(2, 2, 0)), verdict, TRANSCRIPT)
    assert out.judge["scores"]["capacity_number"]["clamped"] == 0
    assert out.judge["disagreements"] == [
        "Capacity number: deterministic 2, judge 0, clamped 0 (the judge was stricter than the evidence cues)."]


def test_judge_round_and_report_json_carry_no_key():
    s = settings(backend="openai", base_url=None, api_key=SECRET)
    leaky = verdict_json(comment=f"I was called with {SECRET}")
    out, notice = J.judge_round(s, report(), TRANSCRIPT, model=FakeListChatModel(responses=[leaky]))
    assert notice is None and out.judge is not None
    dumped = out.model_dump_json()
    assert SECRET not in dumped and SECRET not in json.dumps(out.judge)


@pytest.mark.parametrize("reply", ['The interviewer:\n"Fair. How many sequences fit on one card?"',
                                   "**Interviewer:** Fair. How many sequences fit on one card?",
                                   "Fair. How many sequences fit on one card?"])
def test_what_streams_is_what_the_turn_keeps_when_the_model_opens_with_a_role_label(reply):
    """A small model may open with "The interviewer:"; the stored turn drops it, so the words shown while the reply
    streams must drop it too (the streamed text is part of the turn, never more)."""
    speech = llm.speak(settings(), move(), HISTORY, "Q", None, FALLBACK, model=fake(reply))
    streamed = "".join(speech.chunks())
    assert speech.outcome.source == "llm"
    assert streamed.strip() and streamed.strip() in speech.outcome.text
    assert not streamed.lower().lstrip("* ").startswith(("the interviewer", "interviewer"))
