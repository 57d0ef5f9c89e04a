"""Headless rounds: play a transcript's candidate turns against the interviewer, through the Session."""
from __future__ import annotations

from dataclasses import dataclass, field

from interviewer.grader import Report
from interviewer.round import RoundTurn
from interviewer.session import BuiltinVoice, Session, vector_store_retriever
from interviewer.transcript import Transcript

# Replayed answers arrive this many seconds apart, so the clock walks through every phase.
TURN_SECONDS = 240


@dataclass
class ReplayResult:
    turns: list[RoundTurn]
    report: Report
    notices: list[str] = field(default_factory=list)


def voice_for(backend: str, settings=None):
    """The built-in voice, or an LLM ("openai"/"local") that falls back to it with a notice."""
    if backend == "offline":
        return BuiltinVoice()
    from interviewer import llm

    settings = (settings or llm.settings_from_env()).model_copy(update={"backend": backend})
    return llm.LLMVoice(settings)


def replay(transcript: Transcript, backend: str = "offline", settings=None, minutes: float = 45,
           retriever=vector_store_retriever, voice=None) -> ReplayResult:
    """Run the candidate turns through a fresh round; interviewer turns in the file are ignored."""
    answers = [t.text for t in transcript.turns if t.role == "candidate"]
    step = min(TURN_SECONDS, minutes * 60 / (len(answers) + 1))
    now = [0.0]
    session = Session(store=None, voice=voice or voice_for(backend, settings), retriever=retriever,
                      clock=lambda: now[0])
    state = session.start_round(transcript.question_id, transcript.company, transcript.level or "senior", minutes)
    notices: list[str] = []
    for i, answer in enumerate(answers, 1):
        if state.ended:
            break
        now[0] = i * step
        turn = session.take_turn(state, answer)
        if turn.notice:
            notices.append(turn.notice)
    now[0] = (len(answers) + 1) * step
    report = session.finish(state)
    return ReplayResult(turns=state.turns, report=report, notices=notices)
