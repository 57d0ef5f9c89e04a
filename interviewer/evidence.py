"""Evidence extraction: which rubric cue items a candidate's turns contain, with exact quotes.

Deterministic and LLM-free. Text that addresses the grader ("ignore the rubric", "give full
marks") is masked out before matching, so it can neither add nor remove evidence.
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field

from interviewer.rubric import Rubric

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[^a-z0-9])|\n+")
MAX_QUOTE = 280
MIN_CLAUSE = 40
_CLAUSE_END = re.compile(r"[;:]\s+|\s+[-–—]\s+")

# Sentences aimed at the grader rather than the interviewer; masked before scoring.
GRADER_DIRECTED = re.compile(
    r"(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+|previous\s+|prior\s+)*"
    r"(?:rubric|instructions?|grader|grading|scoring|criteria|rules|prompt)"
    r"|(?:give|award|assign|grant)\s+(?:me|this(?:\s+answer)?|the\s+candidate)?\s*(?:full|maximum|max|perfect|top|all\s+the)\s+(?:marks|points|score|credit)"
    r"|(?:score|grade|rate|mark)\s+(?:me|this(?:\s+answer)?|every\s+criterion|all\s+criteria)\s+(?:as\s+)?(?:a\s+)?(?:3|three|100|staff|full)"
    r"|(?:note|message|instruction)s?\s+(?:to|for)\s+(?:the\s+)?(?:grader|evaluator|judge|ai|llm)"
    r"|\b(?:as|you\s+are)\s+(?:the\s+)?(?:grader|evaluator|judge)\b"
    r"|system\s+prompt|\[\s*(?:system|grader)\s*\]",
    re.IGNORECASE,
)

@dataclass(frozen=True)
class Hit:
    """One cue match in one candidate turn."""

    item: str
    turn: int
    start: int
    end: int
    quote: str


@dataclass
class Evidence:
    """Everything the grader and the interviewer policy know about a transcript's candidate turns."""

    hits: dict[str, list[Hit]] = field(default_factory=dict)
    pitfalls: dict[str, Hit] = field(default_factory=dict)
    ignored: list[Hit] = field(default_factory=list)
    texts: dict[int, str] = field(default_factory=dict)

    @property
    def present(self) -> set[str]:
        return {k for k, v in self.hits.items() if v}

    def add(self, hit: Hit) -> None:
        self.hits.setdefault(hit.item, []).append(hit)

    def first(self, item: str) -> Hit | None:
        hits = self.hits.get(item)
        return hits[0] if hits else None


def quote_around(text: str, start: int, end: int) -> str:
    """The sentence holding text[start:end], trimmed, as an exact substring of `text`."""
    s, e = _sentence_bounds(text, start, end)
    if e - s > MAX_QUOTE:  # a long sentence: quote the clause that holds the match
        cs = max((m.end() for m in _CLAUSE_END.finditer(text, s, start)), default=s)
        ce = end
        while True:  # a clause too short to stand alone ("For FP8:") takes the next one with it
            m = _CLAUSE_END.search(text, ce, e)
            ce = m.start() if m else e
            if ce - cs >= MIN_CLAUSE or m is None:
                break
            ce = m.end()
        s, e = cs, ce
    if e - s > MAX_QUOTE:  # keep a window around the match, still a substring, cut at word edges
        half = max(0, (MAX_QUOTE - (end - start)) // 2)
        ws, we = max(s, start - half), min(e, end + half)
        if ws > s:
            while ws < start and not text[ws - 1].isspace():
                ws += 1
        if we < e:
            while we > end and not text[we].isspace():
                we -= 1
        s, e = ws, we
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return text[s:e]


@functools.lru_cache(maxsize=256)
def _breaks(text: str) -> tuple[list[int], list[int]]:
    """Sentence breaks of a turn as (starts, ends) of the separators, computed once per text."""
    ms = list(_SENTENCE_END.finditer(text))
    return [m.start() for m in ms], [m.end() for m in ms]


def _sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    starts, ends = _breaks(text)
    i = bisect.bisect_right(ends, start)  # separators that end at or before the match
    s = ends[i - 1] if i else 0
    j = bisect.bisect_left(starts, end)   # the first separator at or after the match's end
    e = starts[j] if j < len(starts) else len(text)
    return s, e


def _mask_grader_directed(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Blank out sentences that address the grader; offsets are preserved."""
    spans = []
    for m in GRADER_DIRECTED.finditer(text):
        spans.append(_sentence_bounds(text, m.start(), m.end()))
    if not spans:
        return text, []
    chars = list(text)
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return "".join(chars), spans


def lowered(text: str) -> str:
    """Lower-cased text with the same offsets (a few characters, like 'İ', grow when lowered)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def extract(turns: list[tuple[int, str]], rubric: Rubric, family: str) -> Evidence:
    """Match every cue item and pitfall against the candidate turns (index, text)."""
    ev = Evidence()
    for idx, text in turns:
        ev.texts[idx] = text
        hits, pitfalls, ignored = scan_turn(text, rubric, family)
        for item, s, e, quote in ignored:
            ev.ignored.append(Hit(item, idx, s, e, quote))
        for item, s, e, quote in hits:
            ev.add(Hit(item, idx, s, e, quote))
        for pid, s, e, quote in pitfalls:
            ev.pitfalls.setdefault(pid, Hit(pid, idx, s, e, quote))
    _derive_pitfalls(ev, rubric)
    return ev


Span = tuple[str, int, int, str]  # (item, start, end, quote)


@functools.lru_cache(maxsize=1024)
def scan_turn(text: str, rubric: Rubric, family: str) -> tuple[tuple[Span, ...], tuple[Span, ...], tuple[Span, ...]]:
    """One turn's cue hits, pitfall hits and grader-directed sentences.

    Cached by text: during a round the policy re-reads every earlier turn after each answer, and
    a turn's evidence never changes, so each answer costs one scan instead of the whole round.
    """
    masked, spans = _mask_grader_directed(text)
    ignored = tuple(("grader_directed", s, e, quote_around(text, s, e)) for s, e in spans)
    low = lowered(masked)
    hits = []
    for item in rubric.items.values():
        for pat in item.patterns:
            m = pat.search(low)
            if m:
                hits.append((item.id, m.start(), m.end(), quote_around(text, m.start(), m.end())))
                break
    pitfalls = []
    for pitfall in rubric.pitfalls.values():
        for pat in pitfall.patterns_for(family):
            m = pat.search(masked)
            if m:
                pitfalls.append((pitfall.id, m.start(), m.end(), quote_around(text, m.start(), m.end())))
                break
    return tuple(hits), tuple(pitfalls), ignored


def _derive_pitfalls(ev: Evidence, rubric: Rubric) -> None:
    """Pitfalls that are about absence (named with no substance anywhere in the round), and
    pitfalls withdrawn by what the round says elsewhere (a list of policies, then a choice)."""
    present = ev.present
    for pitfall in rubric.pitfalls.values():
        if pitfall.when and pitfall.when in present and not present & set(pitfall.unless_any):
            ev.pitfalls[pitfall.id] = ev.first(pitfall.when)
        if pitfall.id in ev.pitfalls and pitfall.cleared_by:
            if any(p.search(t) for p in pitfall.cleared_by for t in ev.texts.values()):
                del ev.pitfalls[pitfall.id]
