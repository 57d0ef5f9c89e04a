"""Every LLM interviewer turn is checked before it is shown; a turn that fails gets the built-in wording.

Many users run a small local model, and a 135M-parameter model will happily tell a story about
"our 70B decoder". The rules, each cheap and deterministic:
- it carries the move's ask: a question mark where a question is due;
- it uses no number absent from the move's facts, its passages, the round's earlier turns and the
  candidate's words (small counts aside);
- it names no model or GPU that is not in play;
- it quotes the candidate only verbatim and attributes nothing they did not say;
- it stays short (a spoken turn, not an essay).
Text streams sentence by sentence, each sentence checked before it is yielded; the whole-turn rules
run at the end. The outcome's `source` is "replaced" when the built-in wording took the turn.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from interviewer.attribution import unsupported
from interviewer.moves import Move

MAX_CHARS = 700
MAX_SENTENCES = 6
SMALL = 12  # counts this small ("two questions", "3 things") need no source
ASKING = {"opening", "probe", "follow_up", "challenge", "pitfall", "simulate", "wrap_up", "offer", "empty", "clarify"}
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s*([kKmMbB])\b)?")
_SENTENCE = re.compile(r"(?<=[.?!])[\"')\]]*\s+")
NOTICE = "The model's wording for this turn failed a check ({why}), so the built-in interviewer's wording was used."


def _numbers(text: str) -> set[float]:
    out = set()
    for m in _NUMBER.finditer(text):
        value = float(m.group(1).replace(",", ""))
        scale = {"k": 1e3, "m": 1e6, "b": 1e9}.get((m.group(2) or "").lower(), 1)
        out.add(round(value * scale, 6))
        out.add(round(value, 6))
    return out


def _names(text: str) -> set[str]:
    from interviewer.capacity import match_gpus, match_models

    return {n for n, *_ in match_models(text)} | {n for n, *_ in match_gpus(text)}


@dataclass
class Grounds:
    """What a turn may draw on: the candidate's words, everything else said or retrieved."""

    candidate: list[str]
    other: str
    allowed_numbers: set[float] = field(init=False)
    allowed_names: set[str] = field(init=False)

    def __post_init__(self) -> None:
        every = "\n".join([*self.candidate, self.other])
        self.allowed_numbers = _numbers(every)
        self.allowed_names = _names(every)

    @classmethod
    def of(cls, move: Move, turns) -> Grounds:
        candidate = [t.text for t in turns if t.role == "candidate"]
        other = "\n".join([t.text for t in turns if t.role == "interviewer"] + [move.ask, *move.facts,
                          *move.slots.values(), *(p.text for p in move.passages), *(p.title for p in move.passages)])
        return cls(candidate, other)


def sentence_problems(sentence: str, grounds: Grounds) -> list[str]:
    problems = []
    stray = sorted(n for n in _numbers(sentence) if n > SMALL and n not in grounds.allowed_numbers)
    if stray:
        problems.append(f"a number from nowhere ({stray[0]:g})")
    names = _names(sentence) - grounds.allowed_names
    if names:
        problems.append(f"a model or GPU not in play ({sorted(names)[0]})")
    attributed = unsupported(sentence, grounds.candidate)
    if attributed:
        problems.append(attributed[0])
    return problems


def turn_problems(text: str, move: Move, grounds: Grounds) -> list[str]:
    problems = [p for s in split_sentences(text) for p in sentence_problems(s, grounds)]
    if move.kind in ASKING and "?" not in text:
        problems.append("no question where one is due")
    if len(text) > MAX_CHARS or len(split_sentences(text)) > MAX_SENTENCES:
        problems.append("too long for a spoken turn")
    return problems


_SENTENCE_END = re.compile(r"[.?!][\"')\]]*(?=\s)")
_CLOSES = re.compile(r"[.?!][\"')\]]*$")


def _sentence_ends(raw: str, start: int) -> list[int]:
    """Where the complete sentences after `start` end: at closing punctuation followed by a space, or closing the text
    so far."""
    ends = [m.end() for m in _SENTENCE_END.finditer(raw, start)]
    tail = raw.rstrip()
    if len(tail) > start and _CLOSES.search(tail) and (not ends or ends[-1] < len(tail)):
        ends.append(len(tail))
    return ends


def split_sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text.strip()) if s.strip()]


class GuardedSpeech:
    """An LLM Speech whose sentences are checked before they are yielded; the fallback on failure."""

    def __init__(self, speech, move: Move, turns, fallback: str):
        self._speech, self._move, self._fallback = speech, move, fallback
        self._grounds = Grounds.of(move, turns)
        self.text = ""
        self._outcome = None

    def chunks(self) -> Iterator[str]:
        if self._outcome is not None:
            if self._outcome.text:
                yield self._outcome.text
            return
        raw, cursor, problems = "", 0, []
        for piece in self._speech.chunks():
            raw += piece
            # each complete sentence is yielded as the reply said it, with the space or paragraph break before it, so
            # the words shown while it streams are the words the turn keeps
            for end in _sentence_ends(raw, cursor):
                segment, cursor = raw[cursor:end], end
                sentence = segment.strip()
                if not sentence:
                    continue
                problems = sentence_problems(sentence, self._grounds)
                if problems:
                    break
                shown = segment if self.text else segment.lstrip()
                self.text += shown
                yield shown
            if problems:
                break
        if not problems:  # the stream ran to its end: its outcome, then the whole-turn rules
            outcome = self._speech.outcome
            if outcome.source != "llm":   # the speech already fell back (timeout, garbage): keep its notice
                self.text, self._outcome = outcome.text, outcome
                return
            problems = turn_problems(outcome.text, self._move, self._grounds)
            if not problems:
                self.text, self._outcome = outcome.text, outcome
                return
        from interviewer.llm.speech import SpeakOutcome

        # A sentence or the whole turn failed: the rest of the stream is dropped (closing it stops
        # the request) and the built-in wording takes the turn.
        self.text = self._fallback
        self._outcome = SpeakOutcome(text=self._fallback, source="replaced", notice=NOTICE.format(why=problems[0]),
                                     model=self._speech.settings.model, failures=problems)
        yield ""  # the page redraws the bubble with the kept text

    @property
    def restarts(self) -> int:
        return self._speech.restarts

    @property
    def outcome(self):
        if self._outcome is None:
            for _ in self.chunks():
                pass
        return self._outcome
