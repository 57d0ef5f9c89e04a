"""A round's state: the turns, the clock and its phases, what has been asked. Pure data, no UI."""
from __future__ import annotations

import time
import uuid
from typing import Literal

from pydantic import BaseModel, Field

from interviewer.moves import Passage
from interviewer.transcript import Level, Transcript, Turn

DEFAULT_MINUTES = 45
MAX_ANSWER_CHARS = 20_000  # beyond this a paste is cut, with a notice; the full text is kept in `raw`
# A spoken answer of 10 minutes is about 1,500 words (~9,000 characters): nothing real comes near
# this. Larger pastes are refused before they are recorded, so one visitor's megabytes cannot
# stall grading for everyone else.
ANSWER_LIMIT_CHARS = 60_000


def phases() -> list[tuple[str, str, float]]:
    """(id, title, share of the round) for each phase, from rubrics/policy.yaml."""
    from interviewer.rubric import load_rubric

    return [(p.id, p.title, p.share) for p in load_rubric().policy.phases]


def phase_titles() -> dict[str, str]:
    return {p: t for p, t, _ in phases()}


class RoundTurn(Turn):
    at_s: float = 0.0                      # seconds since the round started
    kind: str | None = None                # the move's kind, for interviewer turns
    key: str | None = None                 # what was asked (never asked twice)
    criterion: str | None = None
    phase: str | None = None
    passages: list[Passage] = Field(default_factory=list)
    notice: str | None = None              # e.g. "the LLM timed out; the built-in interviewer answered"
    raw: str | None = None                 # the untruncated answer, when `text` was cut
    voice: str | None = None               # who worded a reply: builtin | llm | replaced | fallback
    partial: bool = False                  # a reply cut off before it finished (kept as far as it got)


class DrillItem(BaseModel):
    """One follow-up in a company drill, with the question family it is scored against."""

    follow_up_id: str
    question_id: str
    family: str
    criterion: str
    text: str
    answer_cues: list[str] = Field(default_factory=list)


class DrillScore(BaseModel):
    follow_up_id: str
    criterion: str
    score: int
    answered: bool
    feedback: str
    quote: str | None = None


class RoundState(BaseModel):
    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    mode: Literal["round", "drill"] = "round"
    question_id: str
    company: str | None = None
    level: Level = "senior"
    duration_s: int = DEFAULT_MINUTES * 60
    started_at: float = Field(default_factory=time.time)
    ended_at: float | None = None
    turns: list[RoundTurn] = Field(default_factory=list)
    report: dict | None = None
    drill: list[DrillItem] = Field(default_factory=list)
    drill_scores: list[DrillScore] = Field(default_factory=list)

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    def elapsed(self, now: float | None = None) -> float:
        end = self.ended_at if self.ended_at is not None else (now if now is not None else time.time())
        return max(0.0, end - self.started_at)

    def remaining(self, now: float | None = None) -> float:
        return max(0.0, self.duration_s - self.elapsed(now))

    def phase_budgets(self) -> list[tuple[str, float]]:
        """(phase, seconds) for each phase: whole minutes that add up to the round, so the budget
        the clock shows and the time it counts down agree from second zero (45: 7, 11, 20, 7)."""
        minutes = self.duration_s / 60
        out, used = [], 0
        spec = phases()
        for i, (pid, _, share) in enumerate(spec):
            m = minutes - used if i == len(spec) - 1 else max(1, round(share * minutes))
            out.append((pid, m * 60))
            used += m
        return out

    def phase_at(self, now: float | None = None) -> str:
        elapsed, acc = self.elapsed(now), 0.0
        for pid, seconds in self.phase_budgets():
            acc += seconds
            if elapsed < acc:
                return pid
        return phases()[-1][0]

    def phase_deadline(self, phase: str) -> float:
        """Seconds from the start at which `phase` ends."""
        acc = 0.0
        for pid, seconds in self.phase_budgets():
            acc += seconds
            if pid == phase:
                return acc
        return float(self.duration_s)

    def time_up(self, now: float | None = None) -> bool:
        return self.elapsed(now) >= self.duration_s

    def asked(self) -> set[str]:
        return {t.key for t in self.turns if t.role == "interviewer" and t.key}

    def last_interviewer(self) -> RoundTurn | None:
        return next((t for t in reversed(self.turns) if t.role == "interviewer"), None)

    def transcript(self) -> Transcript:
        return Transcript(question_id=self.question_id, company=self.company, level=self.level,
                          turns=[Turn(role=t.role, text=t.raw or t.text) for t in self.turns])
