"""A move: what the interviewer decides to do next, before it is put into words.

The deterministic policy (interviewer.policy) produces a Move; a voice (built-in templates in
interviewer.voice, or an LLM in interviewer.llm) renders it as text. Keeping the decision apart
from the wording is what lets an LLM phrase the turn without deciding what is true.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

MoveKind = Literal[
    "opening",        # the question's opening prompt
    "probe",          # ask for a missing rubric item
    "pitfall",        # push on a pitfall the candidate just hit
    "challenge",      # a number that does not check out, with the arithmetic
    "simulate",       # the simulator's result for the candidate's own limits
    "follow_up",      # a question- or company-specific follow-up from the bank
    "phase",          # the clock moved the round to its next phase
    "wrap_up",        # last phase: summary question, asked once
    "offer",          # after the wrap-up, with time left: go on, or stop here
    "close",          # the round is over
    "empty",          # the answer was empty
    "clarify",        # the answer had no substance to respond to (off-topic, other language)
]


class Passage(BaseModel):
    """A retrieved passage the move is grounded in."""

    doc_id: str
    title: str
    source: str
    text: str = ""
    score: float = 0.0


class Move(BaseModel):
    kind: MoveKind
    phase: str
    ask: str
    family: str | None = None                  # the question's family (wording differs per family)
    criterion: str | None = None               # rubric criterion the move probes
    key: str | None = None                     # what was asked (item id, follow-up id): never asked twice
    item: str | None = None                    # the rubric cue item a probe asks for
    pitfall: str | None = None                 # the pitfall a push is about
    acknowledgement: str | None = None         # what the last answer did well, if anything
    facts: list[str] = Field(default_factory=list)  # arithmetic or simulator lines to show
    slots: dict[str, str] = Field(default_factory=dict)  # extra values for the wording (e.g. claimed/expected)
    phase_title: str | None = None             # for a phase change
    query: str = ""                            # what to retrieve to ground the move
    passages: list[Passage] = Field(default_factory=list)
