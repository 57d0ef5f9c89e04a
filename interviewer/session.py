"""The one path a turn takes, for the browser, `replay` and the tests alike.

    answer -> save -> plan (ledger, checks, policy) -> ground (retriever) -> speak (voice) -> save

A Session is built with what differs between callers (the store and owner, the voice, the
retriever, the clock) and holds no Streamlit code. The browser streams a reply between `submit`
and `complete`; headless callers use `take_turn`, which does both.

The round in memory is the truth until it is saved: a save that fails is retried on every later
save, and `unsaved` says which rounds still wait.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from interviewer import interview
from interviewer.errors import UserError
from interviewer.grader import Report
from interviewer.moves import Move, Passage
from interviewer.round import RoundState, RoundTurn
from interviewer.transcript import Level
from interviewer.voice import render

log = logging.getLogger(__name__)
CUT_OFF = "This reply was cut off before it finished; it is kept as far as it got."


# --------------------------------------------------------------------------- collaborators


class Retriever(Protocol):
    def __call__(self, query: str, criterion: str | None, k: int = 2) -> list[Passage]: ...


def vector_store_retriever(query: str, criterion: str | None, k: int = 2) -> list[Passage]:
    """Passages from the Chroma store; trouble never blocks a turn (the reply goes out ungrounded)."""
    try:
        from interviewer.retrieval import search

        hits = search(query, k=k, criterion=criterion)
    except Exception as exc:  # a broken store must not cost the candidate their turn
        log.warning("retrieval failed: %s", " ".join(str(exc).split())[:200])
        return []
    return [Passage(doc_id=h.doc_id, title=h.title, source=h.source, text=h.text, score=h.score) for h in hits]


def no_retriever(query: str, criterion: str | None, k: int = 2) -> list[Passage]:
    return []


@dataclass
class Outcome:
    """The words a turn ends with, who produced them, and anything the candidate should know."""

    text: str
    source: str = "builtin"            # builtin | llm | replaced | fallback
    notice: str | None = None


class Utterance(Protocol):
    text: str                          # what has been said so far

    def chunks(self) -> Iterator[str]: ...

    @property
    def outcome(self) -> Outcome: ...


class Voice(Protocol):
    def speak(self, move: Move, state: RoundState, fallback: str) -> Utterance: ...


class _Said:
    """A reply that exists in full already (the built-in voice)."""

    def __init__(self, text: str, source: str = "builtin", notice: str | None = None):
        self.text = text
        self._outcome = Outcome(text, source, notice)

    def chunks(self) -> Iterator[str]:
        if self.text:
            yield self.text

    @property
    def outcome(self) -> Outcome:
        return self._outcome


class BuiltinVoice:
    """The built-in interviewer: the policy's move in the wording of prompts/offline.yaml."""

    uses_llm = False

    def speak(self, move: Move, state: RoundState, fallback: str) -> Utterance:
        return _Said(fallback)


def _why(exc: BaseException) -> str:
    """A save failure in a few plain words (no paths, no SQL)."""
    text = " ".join(str(exc).split()).lower()
    if getattr(exc, "errno", None) == 28 or "no space" in text or "disk is full" in text:
        return "the disk is full"
    if isinstance(exc, UserError):
        return str(exc)
    if "locked" in text:
        return "the database is locked by another process"
    return f"the database failed ({type(exc).__name__})"


# --------------------------------------------------------------------------- a turn in flight


@dataclass
class Pending:
    """An answer recorded and its reply planned, being spoken."""

    move: Move
    utterance: Utterance
    notice: str | None = None          # about the answer itself (e.g. it was cut for the reply)
    done: bool = False


@dataclass
class Session:
    store: object | None = None        # interviewer.store.Store, or None to keep rounds in memory only
    owner: str = "local"
    voice: Voice = field(default_factory=BuiltinVoice)
    retriever: Retriever = vector_store_retriever
    clock: Callable[[], float] = time.time
    unsaved: dict[str, RoundState] = field(default_factory=dict)
    save_error: str | None = None

    # -- saving: the round in memory is the truth until it is saved -------------------------

    def save(self, state: RoundState) -> bool:
        """Save `state` (and any round whose earlier save failed). False when it could not be saved."""
        self.unsaved[state.id] = state
        if self.store is None:
            return False
        for rid, pending in list(self.unsaved.items()):
            try:
                self.store.save(pending, self.owner)
            except Exception as exc:  # full disk, locked or vanished database: keep it, retry next time
                self.save_error = _why(exc)
                log.warning("saving round %s failed: %s", rid, " ".join(str(exc).split())[:200])
                return False
            del self.unsaved[rid]
        self.save_error = None
        return True

    # -- starting -------------------------------------------------------------------------

    def start_round(self, question_id: str, company: str | None = None, level: Level = "senior",
                    minutes: float = interview.DEFAULT_MINUTES) -> RoundState:
        state = interview.start_round(question_id, company, level, minutes, now=self.clock())
        self.save(state)
        return state

    def start_drill(self, company: str, level: Level = "senior") -> RoundState:
        state = interview.start_drill(company, level, now=self.clock())
        self.save(state)
        return state

    # -- one turn ---------------------------------------------------------------------------

    def submit(self, state: RoundState, text: str | None) -> Pending:
        """Record the answer and save it before anything else, then plan and ground the reply."""
        now = self.clock()
        notice = interview.record_answer(state, text, now)
        self.save(state)
        move = interview.plan_reply(state, now, retriever=self.retriever)
        fallback = render(move, f"{state.id}:{len(state.turns)}")
        return Pending(move, self.voice.speak(move, state, fallback), notice)

    def complete(self, state: RoundState, pending: Pending) -> RoundTurn:
        """Record the spoken reply and save; a closing move ends the round."""
        outcome = pending.utterance.outcome
        return self._record(state, pending, outcome.text, outcome.source, outcome.notice)

    def settle(self, state: RoundState, pending: Pending) -> RoundTurn | None:
        """After an interrupted stream: keep the reply as far as it got, marked, and save it."""
        if pending.done:
            return None
        said = (pending.utterance.text or "").strip()
        if not said:
            return self.complete(state, pending)
        return self._record(state, pending, said, "llm", CUT_OFF, partial=True)

    def _record(self, state: RoundState, pending: Pending, text: str, source: str, notice: str | None,
                partial: bool = False) -> RoundTurn:
        pending.done = True
        notices = " ".join(n for n in (pending.notice, notice) if n) or None
        turn = interview.add_reply(state, pending.move, text or render(pending.move, state.id), notice=notices,
                                   now=self.clock())
        turn.voice, turn.partial = source, partial
        self.save(state)
        if pending.move.kind == "close":
            self.finish(state)
        return turn

    def take_turn(self, state: RoundState, text: str | None) -> RoundTurn:
        pending = self.submit(state, text)
        for _ in pending.utterance.chunks():
            pass
        return self.complete(state, pending)

    def resume(self, state: RoundState) -> RoundTurn | None:
        """A round loaded after a crash: an answer left without a reply gets one now."""
        if state.ended or not state.turns or state.turns[-1].role != "candidate":
            return None
        move = interview.plan_reply(state, self.clock(), retriever=self.retriever)
        pending = Pending(move, _Said(render(move, f"{state.id}:{len(state.turns)}")))
        return self.complete(state, pending)

    # -- the end ---------------------------------------------------------------------------

    def finish(self, state: RoundState) -> Report | None:
        """Close and grade the round (None when it has no answer) and save it. Idempotent."""
        if state.ended and state.report is not None:
            return Report.model_validate(state.report)
        report = interview.end_round(state, now=self.clock(), retriever=self.retriever)
        self.save(state)
        return report


# --------------------------------------------------------------------------- the LLM judge


@dataclass
class JudgeJob:
    """The LLM judge reading a finished round in the background; the report does not wait for it."""

    round_id: str
    thread: threading.Thread | None = None
    notice: str | None = None
    report: dict | None = None         # the report with the judge's view, once it arrived
    done: threading.Event = field(default_factory=threading.Event)


_jobs: dict[str, JudgeJob] = {}
_jobs_lock = threading.Lock()


def start_judge(session: Session, state: RoundState, settings) -> JudgeJob | None:
    """Start the judge on a graded round; its view is added to the saved report when it arrives."""
    if state.report is None or settings is None or getattr(settings, "backend", "offline") == "offline":
        return None

    def work() -> None:
        try:
            from interviewer.judge import judge_round

            report, job.notice = judge_round(settings, Report.model_validate(state.report), state.transcript())
            state.report = report.model_dump(mode="json")
        except Exception as exc:  # the deterministic report stands on its own
            log.warning("LLM judge failed (%s)", type(exc).__name__)
            job.notice = "The LLM judge failed; the report is the built-in grade alone."
        if job.notice:
            state.report = {**(state.report or {}), "judge_notice": job.notice}
        job.report = state.report
        session.save(state)
        job.done.set()

    job = JudgeJob(state.id)
    with _jobs_lock:
        _jobs[state.id] = job
    job.thread = threading.Thread(target=work, name=f"judge-{state.id}", daemon=True)
    job.thread.start()
    return job


def judge_job(round_id: str) -> JudgeJob | None:
    with _jobs_lock:
        return _jobs.get(round_id)
