"""The LLM voice's guard: no unchecked turn reaches the page (fake models, one rule each)."""
from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from interviewer import interview, llm
from interviewer.llm.guard import Grounds, turn_problems
from interviewer.moves import Move, Passage
from interviewer.session import Session, no_retriever

FALLBACK = "How many concurrent sequences fit on one replica?"
SETTINGS = llm.BackendSettings(backend="local", base_url="http://127.0.0.1:9/v1", timeout_s=5, max_retries=0)
ANSWER = "Llama-3-8B on one H100: 16 GB of weights, 131,072 bytes of KV per token, so about 100 sequences at 4k."


def turn_from(reply: str):
    """One built-in-planned turn worded by a fake model that says `reply`."""
    state = interview.start_round("gpu-inference-serving", None, "senior")
    voice = llm.LLMVoice(SETTINGS, model=FakeListChatModel(responses=[reply]))
    return Session(store=None, voice=voice, retriever=no_retriever).take_turn(state, ANSWER)


def test_an_on_task_reply_is_kept():
    turn = turn_from("You put 131,072 bytes per token on the H100. What happens to those 100 sequences at 4k?")
    assert turn.voice == "llm" and "131,072" in turn.text


def test_a_number_from_nowhere_is_replaced():
    turn = turn_from("Our 70B decoder serves 12,000 users a day. How would you shard it?")
    assert turn.voice == "replaced" and "12,000" not in turn.text
    assert turn.notice and "failed a check" in turn.notice


def test_a_model_or_gpu_not_in_play_is_replaced():
    turn = turn_from("Would you move this to an A100 40GB instead?")
    assert turn.voice == "replaced"


def test_a_misquote_or_false_attribution_is_replaced():
    assert turn_from('You said "we never cap the batch". Why not?').voice == "replaced"
    assert turn_from("You said speculative decoding would fix the tail. How?").voice == "replaced"
    kept = turn_from('You said "about 100 sequences at 4k". What limits that?')
    assert kept.voice == "llm"


def test_a_turn_with_no_question_where_one_is_due_is_replaced():
    assert turn_from("That is an interesting design.").voice == "replaced"


def test_a_rambling_turn_is_replaced():
    rambling = " ".join(["This matters a lot for serving."] * 12) + " What next?"
    assert turn_from(rambling).voice == "replaced"


def test_numbers_may_come_from_the_moves_facts_and_passages():
    move = Move(kind="challenge", phase="deep_dive", ask="How does that change your plan?",
                facts=["About 61 GB free at 1.1 GB per sequence is roughly 57 sequences."],
                passages=[Passage(doc_id="x", title="KV", source="vLLM", text="PagedAttention wastes under 4%.")])
    grounds = Grounds.of(move, [])
    assert not turn_problems("So roughly 57 sequences, and paging wastes under 4%. What now?", move, grounds)
    assert turn_problems("So roughly 75 sequences. What now?", move, grounds)


def test_the_llm_prompt_carries_the_candidates_checked_figures():
    from interviewer.transcript import Turn

    history = [Turn(role="interviewer", text="Llama-3-8B on one H100 80GB."),
               Turn(role="candidate", text="An H100 fits about 5,000 sequences of Llama-3-8B at 4k.")]
    move = Move(kind="challenge", phase="deep_dive", ask="How does that change your plan?")
    turn = llm.build_messages(move, history, "GPU inference serving")[1].content
    assert '"5,000 sequences"' in turn and "does not check out" in turn


def test_what_streams_keeps_the_replys_paragraph_breaks():
    """The sentences shown while a reply streams are the reply's own text, paragraph break included,
    so the streamed words are the words the turn keeps (they were once re-joined with single spaces)."""
    reply = "You put 131,072 bytes per token on the H100 (we'll come back to it).\n\nWhat happens to those 100 sequences at 4k?"
    state = interview.start_round("gpu-inference-serving", None, "senior")
    voice = llm.LLMVoice(SETTINGS, model=FakeListChatModel(responses=[reply]))
    session = Session(store=None, voice=voice, retriever=no_retriever)
    pending = session.submit(state, ANSWER)
    streamed = "".join(pending.utterance.chunks())
    turn = session.complete(state, pending)
    assert turn.voice == "llm", turn.text
    assert streamed == turn.text == reply
