"""Headless rounds: play a transcript's candidate turns against the interviewer."""
from __future__ import annotations

from dataclasses import dataclass, field

from interviewer.grader import Report
from interviewer.interview import add_reply, end_round, plan_reply, record_answer, start_round
from interviewer.round import RoundTurn
from interviewer.transcript import Transcript
from interviewer.voice import render

# Replayed answers arrive this many seconds apart, so the clock walks through every phase.
TURN_SECONDS = 240


@dataclass
class ReplayResult:
    turns: list[RoundTurn]
    report: Report
    notices: list[str] = field(default_factory=list)


def replay(transcript: Transcript, backend: str = "offline", settings=None, minutes: float = 45) -> ReplayResult:
    """Run the candidate turns through a fresh round; interviewer turns in the file are ignored.

    backend "openai" or "local" phrases each move with an LLM (falling back to the built-in
    interviewer, with a notice, when the server fails); "offline" uses the built-in voice.
    """
    answers = [t.text for t in transcript.turns if t.role == "candidate"]
    start = 0.0
    step = min(TURN_SECONDS, minutes * 60 / (len(answers) + 1))
    state = start_round(transcript.question_id, transcript.company, transcript.level or "senior",
                        minutes=minutes, now=start)
    speaker = None
    if backend != "offline":
        from interviewer import llm

        settings = settings or llm.settings_from_env()
        settings = settings.model_copy(update={"backend": backend})
        speaker = settings
    notices: list[str] = []
    question_title = None
    for i, answer in enumerate(answers, 1):
        now = start + i * step
        notice = record_answer(state, answer, now)
        if notice:
            notices.append(notice)
        move = plan_reply(state, now)
        fallback = render(move, f"{state.id}:{len(state.turns)}")
        if speaker is None:
            add_reply(state, move, fallback, now=now)
            continue
        from interviewer import llm
        from interviewer.interview import question_of

        question_title = question_title or question_of(state).title
        speech = llm.speak(speaker, move, state.turns, question_title, state.company, fallback)
        for _ in speech.chunks():  # drain the stream; a broken one is retried or replaced whole
            pass
        outcome = speech.outcome
        if outcome.notice:
            notices.append(outcome.notice)
        add_reply(state, move, outcome.text, notice=outcome.notice, now=now)
    report = end_round(state, now=start + (len(answers) + 1) * step)
    return ReplayResult(turns=state.turns, report=report, notices=notices)
