"""No turn or report is ever lost, waits are bounded, oversized pastes are refused (issue: hardening).

A full disk is a store whose writes fail with ENOSPC until space returns; a crash between saves is
a round saved with an answer and no reply; an interrupted stream is a reply abandoned part-way.
"""
from __future__ import annotations

import errno

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from test_ui_round import CAPACITY, POLICY, TAIL, new_app, ok, start_round

from interviewer import interview
from interviewer.errors import UserError
from interviewer.round import ANSWER_LIMIT_CHARS
from interviewer.session import CUT_OFF, Pending, Session, no_retriever
from interviewer.store import Store

QID = "gpu-inference-serving"


class FullDisk(Store):
    """A real SQLite store whose writes fail with 'No space left on device' while `full` is set."""

    full = False

    def save(self, state, owner):
        if self.full:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().save(state, owner)


@pytest.fixture
def disk(tmp_path):
    store = FullDisk(tmp_path / "rounds.db")
    yield store
    store.close()


def test_a_full_disk_loses_no_answer_reply_or_report_and_saves_all_once_space_returns(disk):
    session = Session(store=disk, owner="alice", retriever=no_retriever)
    state = session.start_round(QID, "Anthropic")
    disk.full = True
    session.take_turn(state, CAPACITY)
    session.take_turn(state, POLICY)
    report = session.finish(state)
    assert report is not None and state.report is not None          # the report comes from memory
    assert state.id in session.unsaved and session.save_error == "the disk is full"
    assert len(disk.load(state.id, "alice").turns) == 1             # only the opening reached the disk
    disk.full = False
    other = session.start_round(QID)                                # the next save flushes the backlog
    assert not session.unsaved and session.save_error is None
    saved = disk.load(state.id, "alice")
    assert saved == state and saved.report == state.report and disk.load(other.id, "alice") is not None


def test_an_answer_left_without_a_reply_gets_one_on_resume(disk):
    state = interview.start_round(QID, "Anthropic")
    interview.record_answer(state, CAPACITY)        # saved, then the process died before the reply
    disk.save(state, "alice")
    resumed = disk.latest_open("alice")
    reply = Session(store=disk, owner="alice", retriever=no_retriever).resume(resumed)
    assert reply is not None and reply.role == "interviewer" and reply.text
    roles = [t.role for t in disk.load(state.id, "alice").turns]
    assert roles == ["interviewer", "candidate", "interviewer"]
    assert Session(store=disk, owner="alice", retriever=no_retriever).resume(resumed) is None  # once only


class _Streaming:
    """An utterance that has said part of its reply when the page is interrupted."""

    def __init__(self, said: str):
        self.text = said

    def chunks(self):
        yield self.text

    @property
    def outcome(self):
        raise AssertionError("an interrupted reply is settled, not completed")


def test_a_reply_cut_off_by_a_new_answer_is_kept_as_far_as_it_got(disk):
    session = Session(store=disk, owner="alice", retriever=no_retriever)
    state = session.start_round(QID)
    pending = session.submit(state, CAPACITY)
    pending = Pending(pending.move, _Streaming("Good. Now, how would you cap the"), pending.notice)
    turn = session.settle(state, pending)
    assert turn.partial and turn.text == "Good. Now, how would you cap the" and CUT_OFF in turn.notice
    session.take_turn(state, POLICY)               # the next answer follows a reply, never another answer
    roles = [t.role for t in disk.load(state.id, "alice").turns]
    assert roles == ["interviewer", "candidate", "interviewer", "candidate", "interviewer"]
    assert session.settle(state, pending) is None  # settling twice records nothing more


def test_an_oversized_answer_is_refused_before_it_is_recorded():
    state = interview.start_round(QID)
    with pytest.raises(UserError, match="limit is 60,000"):
        Session(store=None, retriever=no_retriever).take_turn(state, "x" * (ANSWER_LIMIT_CHARS + 1))
    assert [t.role for t in state.turns] == ["interviewer"]


def test_the_page_refuses_a_huge_paste_and_keeps_the_text_on_the_page():
    at = start_round(new_app())
    big = "We would shard the model. " * 3000          # 78,000 characters
    at.chat_input(key="answer").set_value(big).run()
    assert not at.exception
    assert any("the limit is 60,000" in e.value and "Nothing was recorded" in e.value for e in at.error)
    assert at.text_area(key="too_long_text").value == big
    assert [t.role for t in at.session_state["round"].turns] == ["interviewer"]


def test_end_round_shows_the_report_at_once_while_a_slow_judge_reads(monkeypatch):
    from interviewer import judge, llm

    voice = FakeListChatModel(responses=["How would you bound the batch?"])
    slow_judge = FakeListChatModel(responses=["{}"], sleep=30)   # a hung judge: far past any wait a page allows
    monkeypatch.setattr(llm.client, "make_chat_model", lambda settings, **kw: voice)
    monkeypatch.setattr(judge, "make_chat_model", lambda settings, **kw: slow_judge)
    at = new_app()
    at.session_state["llm_settings"] = llm.BackendSettings(backend="local", base_url="http://127.0.0.1:9/v1",
                                                           timeout_s=5, max_retries=0, judge_timeout_s=60)
    start_round(at)
    ok(at.chat_input(key="answer").set_value(TAIL).run())
    at.sidebar.button(key="end_round").click().run()
    # The report is on the page while the judge is still reading: the page did not wait for it.
    assert at.title[0].value.startswith("Report:")
    assert any("judge is reading" in i.value for i in at.info)
    assert at.session_state["report_id"]
