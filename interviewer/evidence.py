"""Evidence extraction: which rubric items a candidate's turns contain, with exact quotes.

Deterministic and LLM-free. Two sources:

* cue patterns (rubrics/cues.yaml) over the candidate's text; a match in a negated or hypothetical
  clause ("I wouldn't cap max_num_seqs at 64", "if we had H200s") is not evidence, and a figure that
  only repeats the interviewer's numbers counts as a name (level 1 only) for items marked
  `given_is_named`;
* the claim ledger (interviewer.claims): an item with `ledger:` is present when the candidate said
  a figure of one of its kinds as a plan (not negated, not hypothetical).

Text that addresses the grader ("ignore the rubric", "give full marks") is masked out before
matching, so it can neither add nor remove evidence. An ordinary sentence about a model's system
prompt is not addressed to the grader.
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from interviewer.claims.numbers import writes_european
from interviewer.claims.physics import SLIP_NAMED
from interviewer.claims.segments import blank_matches, blank_quoted, candidate_reading
from interviewer.quickre import (
    Sentences,
    cuts_of,
    folds,
    group_gate,
    guarded,
    longest_at_each_place,
    may_match,
    needed_literals,
    sentence_reach,
    starts_after,
    starts_within,
    within,
)
from interviewer.rubric import Rubric, number_follow

if TYPE_CHECKING:
    from interviewer.claims import Claim, Ledger

# a sentence may open with a name that starts in lower case: "... the limit. vLLM's paper showed ..."
# a sentence may open on a figure ("... checkpoint. 70B at 4 bits is ~35 GB"), not after an abbreviation ("approx. 3")
_SENTENCE_END = guarded(re.compile(r"(?<=[.!?])\s+(?=[^a-z0-9]|[a-z]+[A-Z]|[a-z]+_[a-z])|(?<=[a-z]{3}[.!?])(?<!approx\.)(?<!\best\.)"
                                   r"\s+(?=\d)|\n+"))
MAX_QUOTE = 280
MIN_CLAUSE = 40
_CLAUSE_END = re.compile(r"[;:]\s+|\s+[-–—]\s+")

# Sentences aimed at the grader rather than the interviewer; masked before scoring.
GRADER_DIRECTED = guarded(re.compile(
    r"(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+|previous\s+|prior\s+)*"
    r"(?:rubric|instructions?|grader|grading|scoring|criteria|rules|prompt)"
    r"|(?:give|award|assign|grant)\s+(?:me|this(?:\s+answer)?|the\s+candidate)?\s*(?:full|maximum|max|perfect|top|all\s+the)\s+(?:marks|points|score|credit)"
    r"|(?:score|grade|rate|mark)\s+(?:me|this(?:\s+answer)?|every\s+criterion|all\s+criteria)\s+(?:as\s+)?(?:a\s+)?(?:3|three|100|staff|full)"
    r"|(?:note|message|instruction)s?\s+(?:to|for)\s+(?:the\s+)?(?:grader|evaluator|judge|ai|llm)"
    r"|\b(?:as|you\s+are)\s+(?:the\s+)?(?:grader|evaluator|judge)\b"
    r"|\[\s*(?:system|grader|instructions?)\s*\]"
    r"|\bsystem\s+(?:prompt|message)\s*:\s*(?:you|ignore|give|award|score|grade|rate|mark)\b",
    re.IGNORECASE,
))
_GRADER_DIRECTED_NEEDS = needed_literals(GRADER_DIRECTED)
_GRADER_DIRECTED_REACH = sentence_reach(GRADER_DIRECTED)  # read in the sentences that hold one of those
_NUMBER = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*([kKmM](?![a-zA-Z]))?")
_WORDY_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                  "nine": 9, "ten": 10}


@dataclass(frozen=True)
class Hit:
    """One piece of evidence in one candidate turn."""

    item: str
    turn: int
    start: int
    end: int
    quote: str
    source: str = "cue"  # cue | ledger | computed


@dataclass
class Evidence:
    """Everything the grader and the interviewer policy know about a transcript's candidate turns."""

    hits: dict[str, list[Hit]] = field(default_factory=dict)
    pitfalls: dict[str, Hit] = field(default_factory=dict)
    ignored: list[Hit] = field(default_factory=list)
    texts: dict[int, str] = field(default_factory=dict)
    named_hits: dict[str, list[Hit]] = field(default_factory=dict)   # level-1-only evidence
    ledger: Ledger | None = None
    context: dict[int, str] = field(default_factory=dict)            # the interviewer's turns
    pitfall_kinds: dict[str, str] = field(default_factory=dict)      # how a pitfall was found
    unchosen: set[str] = field(default_factory=set)                  # items named only as options of a menu left open
    guessed: set[str] = field(default_factory=set)                   # items whose figure was only guessed
    echoed: set[str] = field(default_factory=set)                    # items named only by the interviewer's words said back
    tainted: set[str] = field(default_factory=set)                   # items said only in answers a pitfall taints
    pitfall_turns: dict[str, set[int]] = field(default_factory=dict)  # later answers that carry a pitfall's premise on

    @property
    def present(self) -> set[str]:
        return {k for k, v in self.hits.items() if v}

    @property
    def named(self) -> set[str]:
        return {k for k, v in self.named_hits.items() if v}

    def tainted_turns(self, rubric: Rubric) -> set[int]:
        """The answers a raised pitfall taints: its own, and each later one that carries its premise on ("That's
        where Redis helps ... a Redis node holds about 20,000 conversations" sizes nothing either). Not every later
        answer its pattern holds: the writers keep what a round says beside a confusion it repeats."""
        return {t for pid, hit in self.pitfalls.items() if rubric.pitfalls[pid].taints_turn
                for t in self.pitfall_turns.get(pid, set()) | {hit.turn}}

    def add(self, hit: Hit) -> None:
        self.hits.setdefault(hit.item, []).append(hit)

    def first(self, item: str) -> Hit | None:
        hits = self.hits.get(item)
        return hits[0] if hits else None

    def asked_before(self, turn: int) -> int | None:
        """The interviewer's turn just before `turn` (the question it answers), if any."""
        return max((i for i in self.context if i < turn), default=None)


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


def sentence_at(text: str, pos: int) -> str:
    """The sentence of `text` that holds `pos` (as the cue scan splits sentences)."""
    s, e = _sentence_bounds(text, pos, pos)
    return text[s:e]


# a question put back to the interviewer: "Do we have to batch at all at the start?", "Is there an offline eval set?"
_QUESTION_OPENS = re.compile(r"\W*(?:q\s*:\s*)?(?:(?:honestly|so|ok|okay|and|but|well|first|quick\s+question|one\s+question)\W{1,3})?(?:do|does|did|is|are|was|were|can|could|should|would|will|have|has|what|which|how|"
                             r"when|where|who|why)\b", re.I)


def asked_at(text: str, start: int) -> bool:
    """Is the sentence at `start` a question the candidate asks ("Do we have to batch at all?"): asked, not said."""
    s, e = _sentence_bounds(text, start, start)
    sentence = text[s:e].rstrip()
    return sentence.endswith("?") and _QUESTION_OPENS.match(sentence) is not None


def _sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    starts, ends = _breaks(text)
    i = bisect.bisect_right(ends, start)  # separators that end at or before the match
    s = ends[i - 1] if i else 0
    j = bisect.bisect_left(starts, end)   # the first separator at or after the match's end
    e = starts[j] if j < len(starts) else len(text)
    return s, e


@functools.lru_cache(maxsize=1024)
def _mask_grader_directed(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Blank out sentences that address the grader; offsets are preserved."""
    spans = []
    low = text.lower()
    if not may_match(_GRADER_DIRECTED_NEEDS, low, folds(text)):
        return text, []  # none of the words a sentence to the grader holds
    for m in Sentences(text, low).finditer(GRADER_DIRECTED, _GRADER_DIRECTED_REACH, _GRADER_DIRECTED_NEEDS):
        spans.append(_sentence_bounds(text, m.start(), m.end()))
    if not spans:
        return text, []
    chars = list(text)
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return "".join(chars), spans


# the question said back before the answer: "Restating: shipping FP8 safely and the rollback trigger." names
# what was asked, not what the candidate would do (the rest of the answer is read as usual)
# (the words that say the question back, shared with _ECHO below)
_SAID_BACK = r"restating|to\s+restate|let\s+me\s+restate|so\s+the\s+question\s+is|you.re\s+asking"
# ... and "So you ask about batching.", "So you want one." (masked here only: up to the sentence's end, or a colon or
# semicolon where the answer starts, "So you ask the number of GPUs: I think 20", whose answer is no echo)
_RESTATED = re.compile(r"(?:^|(?<=[.!?\n]))[ \t*#>-]*(?:(?:so|ok(?:ay)?|right|alright)[,\s]+)?(?:" + _SAID_BACK
                       + r"|so,?\s+you\s+(?:ask|asked|want))\b(?:\s*:)?[^.!?\n;:]*[.!?]?", re.I)


def _mask_restated(text: str) -> str:
    low = text.lower()
    if "estat" not in low and "asking" not in low and "question is" not in low and "you ask" not in low \
            and "you want" not in low:
        return text
    return blank_matches(_RESTATED, text)


# a short question the answer puts to itself, then its answer: "What's the per-GPU cap? 24 active sequences." reads as
# "What's the per-GPU cap: 24 ..." (not "What if ...?": the answer to a supposition is no supposition itself; nor a
# yes or a no, which answers the question's own claim)
# ... written as a Q and an A: "Q: which timeout? A: 30 seconds."
_SELF_ASKED = re.compile(r"(?:^|(?<=[.!?\n])\s*)(?:q\s*:\s*)?(?:(?:and|so|but)\s+)?(?:what(?:.s|\s+is|\s+are|\s+does)?(?!\s+if\b)|how\s+(?:many|much|long|big|fast)|which|who|where|when)"
                         r"\b[^.!?\n]{0,60}(\?)\s+(?!(?:no|yes|nope|yeah|not)\b)(?=[\w~$])", re.I)


def _self_asked(text: str) -> str:
    """`text` with each short self-asked question's "?" read as ":" (same length, so offsets hold)."""
    if "?" not in text:
        return text
    return _SELF_ASKED.sub(lambda m: m.group(0).replace("?", ":"), text)  # (the match holds that one "?" alone)


def lowered(text: str) -> str:
    """Lower-cased text with the same offsets (a few characters, like 'İ', grow when lowered)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


# ----------------------------------------------------------------------------- clause flags


@functools.lru_cache(maxsize=1)
def _vocab():
    from interviewer.claims.vocab import load

    return load()


class _ClauseMarks:
    """Where a turn's negation cues, their exemptions, clause breaks and hypothetical cues are: each
    found once per text, and only when first asked for (most turns never get past "is there a
    negation cue just before?", so their clause breaks are never needed), so each cue match asks with
    a binary search instead of a regex."""

    def __init__(self, text: str):
        self.text = text

    @functools.cached_property
    def negation(self) -> tuple[list[int], list[tuple[int, int]]]:
        neg = [(m.start(), m.end()) for m in _vocab().negation.finditer(self.text)]
        return [a for a, _b in neg], neg

    @functools.cached_property
    def exempt(self) -> list[tuple[int, int]]:
        return [(m.start(), m.end()) for m in _vocab().negation_exempt.finditer(self.text)]

    @functools.cached_property
    def breaks(self) -> tuple[list[int], list[tuple[int, int]]]:
        breaks = [(m.start(), m.end()) for m in _vocab().negation_breaks.finditer(self.text)]
        return [a for a, _b in breaks], breaks

    @functools.cached_property
    def hypothetical(self) -> list[int]:
        return [m.start() for m in self._hypothetical]

    @functools.cached_property
    def _hypothetical(self) -> list[re.Match]:
        return list(_vocab().hypothetical.finditer(self.text))

    def back_to_plan(self, k: int, start: int) -> bool:
        """Does the plan resume between hypothetical cue `k` and `start` ("At my last place, two a week on 2,000 GPUs,
        so scaling linearly, about ten a week on 10,000")?"""
        end = self._hypothetical[k].end()
        return end <= start and _vocab().back_to_plan.search(self.text, end, start) is not None


@functools.lru_cache(maxsize=1024)
def _clause_marks(text: str) -> _ClauseMarks:
    return _ClauseMarks(text)


def negated_at(text: str, start: int) -> bool:
    """Is the clause before `start` negated ("I wouldn't ...", "not the mean", "rather than ...")?
    The same rule the claim ledger uses for figures, bounded by the sentence: the last negation cue
    within 80 characters before `start`, not part of an exemption ("no more than"), with no clause
    break between it and `start`."""
    s, _e = _sentence_bounds(text, start, start)
    lo = max(s, start - 80)
    marks = _clause_marks(text)
    neg_starts, neg = marks.negation
    last = None
    for k in range(bisect.bisect_left(neg_starts, start) - 1, -1, -1):
        ns, ne = neg[k]
        if ns < lo:
            break
        if ne <= start:
            last = (ns, ne)
            break
    if last is None:
        return False
    if any(a <= last[0] < b for a, b in marks.exempt):
        return False
    break_starts, breaks = marks.breaks
    for k in range(bisect.bisect_left(break_starts, last[1]), len(breaks)):
        a, b = breaks[k]
        if a >= start:
            break
        if b <= start:
            return False
    return True


def hypothetical_at(text: str, start: int) -> bool:
    """Does the sentence describe a world that is not the plan ("if we had H200s ...") before `start`?"""
    s, _e = _sentence_bounds(text, start, start)
    hyp = _clause_marks(text).hypothetical
    k = bisect.bisect_left(hyp, s)
    # (a semicolon ends the "if" clause's reach: "And if we moved the weights to INT4 they'd be ~3.5 GB ...; I'd just
    # use INT4")
    marks = _clause_marks(text)
    while k < len(hyp) and hyp[k] < start:
        if ";" not in text[hyp[k]:start] and not marks.back_to_plan(k, start):
            return True
        k += 1
    return False


# a closing summary: a "Summary" heading, "To summarise" or "TL;DR" opening a line, or "So in summary:" after a
# sentence
_SUMMARY = re.compile(r"(?:^|\n)\s*(?:#+\s*|\*\*)?(?:summary|to\s+summari[sz]e|in\s+summary|recap|tl;\s?dr)\b"
                      r"|(?:^|[.!?]\s+)(?:so\s+)?(?:in\s+summary|to\s+sum\s+up)\s*[:,]", re.I)


def in_summary(text: str, pos: int) -> bool:
    """Is `pos` in the closing summary of an answer? What a summary says first, or says differently, was
    not said in the round ("## Summary ... I chose weighted fair share" after a menu left open)."""
    m = _SUMMARY.search(text)
    return m is not None and m.start() < pos


def _in_digits(text: str) -> str:
    """`text` with its numbers in words written in digits (text with no letters is left as it is)."""
    return digitized(text)[0] if any(c.isalpha() for c in text) else text


def numbers_in(text: str) -> set[float]:
    """The plain numbers in a piece of text (digits, "4k", "1.5M", numbers in words)."""
    out = set()
    text = _in_digits(text)
    for m in _NUMBER.finditer(text):
        try:
            v = float(m.group(1).replace(",", ""))
        except ValueError:
            continue
        suffix = (m.group(2) or "").lower()
        out.add(v * {"k": 1e3, "m": 1e6}.get(suffix, 1))
    for w in re.findall(r"[a-z]+", text.lower()):
        if w in _WORDY_NUMBERS:
            out.add(float(_WORDY_NUMBERS[w]))
    return out


# ----------------------------------------------------------------------------- extraction

_PERCENT_WORD = guarded(re.compile(r"\s?(?:percent|per\s+cent)\b", re.I))
# percentiles said as ordinals: "the ninety-ninth percentile" reads as "the 99th percentile"
_ORDINAL_PCT = guarded(re.compile(r"\b(ninety[- ]ninth|ninety[- ]fifth|ninetieth|fiftieth)(?=\s+percentile)", re.I))
_ORDINALS = {"ninety ninth": "99th", "ninety fifth": "95th", "ninetieth": "90th", "fiftieth": "50th"}
_DECIMAL = re.compile(r"(?<=\d)\.(?=\d)")


class _Builder:
    """A rewritten text with, for each of its characters, the span of the original it came from."""

    def __init__(self, text: str = "") -> None:
        self.parts: list[str] = []
        self.ostart: list[int] = []
        self.oend: list[int] = []
        # the rewrites the whole text holds a literal of: no chunk of it can need another
        low, folded = text.lower(), folds(text)
        self.rewrites = [(pat, edit) for pat, edit, needs in _rewrites() if may_match(needs, low, folded)]

    def keep(self, text: str, s: int, e: int) -> None:
        """Copy text[s:e], with numbers said in words as digits and "percent" as "%"."""
        from interviewer.claims.numbers import spelled_digits

        chunk = text[s:e]
        edits = spelled_digits(chunk)
        for pat, edit in self.rewrites:
            edits += [edit(m) for m in pat.finditer(chunk)]
        pos = 0
        for a, b, rep in sorted(edits):
            if a < pos:
                continue
            self._copy(s + pos, s + a)
            self.put(rep, s + a, s + b)
            pos = b
        self._copy(s + pos, e, text)

    def _copy(self, s: int, e: int, text: str | None = None) -> None:
        if e <= s:
            return
        self.parts.append(self._src[s:e])
        self.ostart.extend(range(s, e))
        self.oend.extend(range(s + 1, e + 1))

    def put(self, rep: str, s: int, e: int) -> None:
        """Insert `rep` standing for the original span [s, e)."""
        self.parts.append(rep)
        self.ostart.extend([s] * len(rep))
        self.oend.extend([e] * len(rep))


# "under a minute", "less than an hour": one of the unit, as a cue reads a number
_ONE_UNIT = guarded(re.compile(r"\b(?:under|below|than|<)\s+(an?)\s+(?:second|minute|hour|day|millisecond)\b", re.I))
# spoken and terse spellings of the millisecond the cues read as "ms" ("eight hundred millis")
_MS_WORD = guarded(re.compile(r"\b(?:millis|milli|msecs?)\b", re.I))


# hurried typing of the domain's words, read as meant ("the kv cahce lives in redis", "p99 TTTF")
_TYPOS = {"cahce": "cache", "chache": "cache", "caceh": "cache", "latnecy": "latency", "lantency": "latency",
          "latecy": "latency", "througput": "throughput", "thoughput": "throughput", "thruput": "throughput",
          "pirority": "priority", "priortiy": "priority", "priorty": "priority", "seqeunces": "sequences",
          "sequnces": "sequences", "tokesn": "tokens", "tttf": "ttft", "tfft": "ttft", "memroy": "memory",
          "wieghts": "weights", "weigths": "weights", "percentlie": "percentile", "concurency": "concurrency"}
_TYPO = guarded(re.compile(r"\b(?:" + "|".join(_TYPOS) + r")\b", re.I))


@functools.lru_cache(maxsize=1)
def _rewrites() -> tuple:
    """The rewrites `_Builder.keep` makes besides spelled numbers, in order: (pattern, the edit of a
    match, the literals one of which each match holds)."""
    edits = (
        (_TYPO, lambda m: (m.start(), m.end(), _TYPOS[m.group(0).lower()])),
        (_PERCENT_WORD, lambda m: (m.start(), m.end(), "%")),
        (_MS_WORD, lambda m: (m.start(), m.end(), "ms")),
        (_ONE_UNIT, lambda m: (m.start(1), m.end(1), "1")),
        (_ORDINAL_PCT, lambda m: (m.start(), m.end(), _ORDINALS[m.group(1).lower().replace("-", " ")])),
    )
    return tuple((pat, edit, needed_literals(pat)) for pat, edit in edits)


def digitized(text: str) -> tuple[str, list[int], list[int]]:
    """`text` as the cues read it, and the map back (for each character, the start and end of the
    original it came from): numbers said in words as digits ("thirteen hundred GPUs" -> "1300
    GPUs", "three percent" -> "3%"), and each Markdown table row as "label header: cell; ..." so a
    cue reads a table as it reads prose."""
    from interviewer.claims.segments import _GENERIC_VALUE_HEADERS, _clean_label, _split_cells, _table_lines

    b = _Builder(text)
    b._src = text
    rows = _table_lines(text) if "|" in text else {}
    lines = text.split("\n")
    pos, header = 0, []
    for i, line in enumerate(lines):
        end = pos + len(line)
        if i in rows:
            cells = _split_cells(line, pos)
            if rows[i] == "header":
                header = [_clean_label(c) for c, _ in cells]
                b.keep(text, pos, end)
            elif cells:
                label, lstart = cells[0]
                b.keep(text, lstart, lstart + len(label))
                for col, (cell, cstart) in enumerate(cells[1:], start=1):
                    head = header[col] if col < len(header) else ""
                    head = "" if _GENERIC_VALUE_HEADERS.match(head) else head
                    b.put((" " + head if head else "") + ": ", cstart, cstart)
                    b.keep(text, cstart, cstart + len(cell))
                    b.put("; " if col < len(cells) - 1 else ";", cstart + len(cell), cstart + len(cell))
        else:
            b.keep(text, pos, end)
        if i < len(lines) - 1:
            b.keep(text, end, end + 1)
        pos = end + 1
    b.ostart.append(len(text))
    b.oend.append(len(text) + 1)
    # a decimal point is no sentence end: cues read it as "·" (rubric._compile reads "\." as [.·])
    return _DECIMAL.sub("·", "".join(b.parts)), b.ostart, b.oend


_SENTENCE_OR_LINE = re.compile(r"[^.!?\n]+")
# "unlike the attention KV cache, ..." sets a pitfall's words apart instead of saying them
_CONTRAST = guarded(re.compile(r"\b(?:unlike|as\s+opposed\s+to|different\s+(?:from|than)|not\s+to\s+be\s+confused|"
                       r"nothing\s+to\s+do\s+with|no\s+relation\s+to|isn.t\s+the|is\s+not\s+the|not\s+the|"
                       r"no\s+(?:tokens|attention|gpus?|kv|model|layers)|"
                       # someone else's idea, set out to be rejected: "People sometimes want to put the KV cache in Redis"
                       r"(?:people|folks|some\s+teams|others)\s+(?:sometimes\s+|often\s+|usually\s+)?(?:want|try|like|suggest|propose)\s+to|"
                       r"a\s+common\s+(?:mistake|trap|misconception|anti-?pattern))\b", re.I))  # "No tokens or GPU memory in it"


def _digit_sentences(low: str) -> str:
    """`low` with the sentences that hold no digit blanked out (same length): the text the cues that
    need a number run over."""
    if not any(map(str.isdigit, low)):  # (map, not a generator: every character is tested)
        return " " * len(low)
    parts, pos = [], 0
    for m in _SENTENCE_OR_LINE.finditer(low):
        parts.append(low[pos:m.start()])
        chunk = m.group(0)
        parts.append(chunk if any(map(str.isdigit, chunk)) else " " * len(chunk))
        pos = m.end()
    parts.append(low[pos:])
    return "".join(parts)


Span = tuple[str, int, int, str, bool, bool]  # (item, start, end, quote, counts, a name) - counts: not negated/hypothetical


# a nested bullet under a line left open: "- It really depends on the workload\n  - prompt length ..., quantization."
_NESTED_BULLET = re.compile(r"[ \t]+[-*•]\s")


def _parent_line(text: str, start: int) -> tuple[int, int]:
    """The line a nested bullet at `start` finishes (its parent ends with no full stop), as bounds to
    search; an empty span when there is none."""
    line = text.rfind("\n", 0, start) + 1
    if line == 0 or not _NESTED_BULLET.match(text, line):
        return start, start
    prev = text.rfind("\n", 0, line - 1) + 1
    parent = text[prev:line - 1].rstrip()
    return (prev, line - 1) if parent and parent[-1] not in ".!?" else (start, start)


# a commitment joined on after a hedge: ", and honestly I'd just", ", and we'll"
_AND_COMMIT = re.compile(r",\s*and\s+(?:honestly\s+|frankly\s+|then\s+)?(?:i|we)(?:.d|\s+would|.ll|\s+will)\s+(?:just\s+|simply\s+)?",
                         re.I)


@functools.lru_cache(maxsize=1024)
def scan_turn(text: str, rubric: Rubric, family: str) -> tuple[tuple[Span, ...], tuple[tuple, ...], tuple[tuple, ...]]:
    """One turn's cue hits, pitfall-pattern hits and grader-directed sentences.

    Cached by text: during a round the policy re-reads every earlier turn after each answer, and
    a turn's evidence never changes, so each answer costs one scan instead of the whole round.
    A cue hit is (item, start, end, quote, counts, a name): `counts` is False when its clause is
    negated or hypothetical (for items that are `negatable`); the item's substance patterns are tried
    before its vocabulary, and the first counting match wins.
    """
    masked, spans = _mask_grader_directed(text)
    ignored = tuple(("grader_directed", s, e, quote_around(text, s, e)) for s, e in spans)
    masked = _self_asked(_mask_restated(masked))
    if "**" in masked or "__" in masked:
        # bold labels read as their words: "- **max active sequences:** 64 per replica"
        masked = masked.replace("**", "  ").replace("__", "  ")
    norm, ostart, oend = digitized(masked)
    low = lowered(norm)
    digits_only = _digit_sentences(low)
    numbers = _Numbers([m.start() for m in _NUMBER_START.finditer(low)])
    index = _Places(low, _lead_words(rubric, family))
    present = index.present()  # the patterns' literals this turn holds
    places = index if len(norm.lower()) == len(norm) else None  # else a letter changed size: scan all
    hits = []
    item_plan, pitfall_plan = _plan(rubric, family)
    after: dict[tuple[str, str], list[int]] = {}  # (text, characters) -> the places right after them

    def places_after(target: str, chars: str) -> list[int]:
        hit = after.get((target, chars))
        if hit is None:
            hit = after[(target, chars)] = [0, *(m.end() for m in re.finditer(f"[{chars}]", target))]
        return hit

    cuts: dict[tuple[str, str], list[int]] = {}  # (text, stops) -> where its stretches end (quickre.within)

    def cuts_in(target: str, stops: str) -> list[int]:
        hit = cuts.get((target, stops))
        if hit is None:
            hit = cuts[(target, stops)] = cuts_of(target, stops)
        return hit

    def sentences_with(pat: re.Pattern, target: str, stretch: tuple[str, int], words: tuple[str, ...]):
        return within(pat, target, cuts_in(target, stretch[0]), places.lists(words), stretch[1])

    def held(starts: list[int], target: str, stretch: tuple[str, int] | None, words: tuple[str, ...] | None):
        # a led pattern that cannot cross a sentence's end is tried only in the sentences holding its
        # literals - where they are fewer than the places it is tried at (else sorting them out costs more)
        if stretch is None or places is None:
            return starts
        lists = places.lists(words)
        if sum(map(len, lists)) >= len(starts):
            return starts
        return starts_within(starts, cuts_in(target, stretch[0]), lists)

    for item_id, every, negatable, not_after, pats in item_plan:
        best = None
        for pat, is_name, lit, needs, digits, mode, lead, scan, stretch, words in pats:
            if lit is not None and lit not in present:
                continue  # a text without the pattern's literal cannot match it
            target = digits_only if digits else low
            if needs is not None and (present.isdisjoint(needs) if needs[0] else not any(w in target for w in needs[1:])):
                continue  # nor one without any of the literals one of which each match holds
            if mode is _NUMBER_LED:
                found = _tried_at(pat, target, held(numbers.at(target, lead), target, stretch, words))
            elif mode is _WORD_LED and places is not None:
                found = _tried_at(pat, target, held(places.of(lead), target, stretch, words))
            elif mode is _SENTENCE_LED:
                found = _tried_at(pat, target, places_after(target, lead))
            elif stretch is not None and places is not None:
                found = sentences_with(scan, target, stretch, words)
            else:
                found = scan.finditer(target)
            for m in found:
                s, e = ostart[m.start()], oend[max(m.end() - 1, m.start())]
                counts = not (negatable and (negated_at(masked, s) or hypothetical_at(masked, s))) and not asked_at(masked, s)
                if counts and not_after:
                    sb = _sentence_bounds(masked, s, s)[0]
                    # a clause of its own after the hedge: "it depends on the TP degree, and honestly I'd just go FP8"
                    sb = max((c.end() for c in _AND_COMMIT.finditer(masked, sb, s)), default=sb)
                    parent = _parent_line(masked, sb)
                    counts = not any(p.search(masked, sb, s) or p.search(masked, *parent) for p in not_after)
                if every:
                    if counts and len(hits) < 4096:
                        hits.append((item_id, s, e, quote_around(text, s, e), True, is_name))
                    continue
                if counts or best is None:
                    best = (item_id, s, e, quote_around(text, s, e), counts, is_name)
                if counts:
                    break
            if best is not None and best[4]:
                break
        if best is not None:
            hits.append(best)
    pitfalls = []
    folded = folds(norm)  # no literal can rule a pattern out
    for pitfall, pats in pitfall_plan:
        for pat, needs, lead, at, opens, gate, stretch in pats:
            if needs is not None and not folded and present.isdisjoint(needs):
                continue  # a turn without any of the literals one of which each match holds
            if gate is not None and gate.search(norm) is None:
                continue  # nor one without the hit's own part ("(?P<at>...)"), found by itself in one scan
            found = None
            # read as the cues read: "twenty-four times" as "24 times", "3.5-4x" with its decimal kept
            lead = lead if places is not None else None
            for m in (_tried_at(pat, norm, places.of(lead)) if lead else
                      _tried_at(pat, norm, places_after(norm, opens)) if opens else
                      # (its literals found in the lowered turn: where none folds, at the same places)
                      sentences_with(pat, norm, stretch, needs) if stretch and places is not None and not folded else
                      pat.finditer(norm)):
                s, e = ostart[m.start(at)], oend[max(m.end() - 1, m.start(at))]
                sb, se = _sentence_bounds(masked, s, s)
                # the contrast may hold the match's own first word: "no attention tensors anywhere"
                if not (negated_at(masked, s) or (hypothetical_at(masked, s) and not _ADOPTED.search(masked, e, se))
                        or _CONTRAST.search(masked, sb, min(e, se))
                        or any(u.search(masked, max(0, sb - 120), se) for u in pitfall.unless_near)):
                    found = (s, e)
                    break
            if found:
                pitfalls.append((pitfall.id, found[0], found[1], quote_around(text, found[0], found[1])))
                break
    return tuple(hits), tuple(pitfalls), ignored


# a war story's practice taken up for this design in the same sentence: "what we did at my last job was put the KV
# cache in Redis keyed by meeting id ...; I'd add that here too"
_ADOPTED = re.compile(r"\b(?:i.d|we.d|i\s+would|we\s+would|i.ll|we.ll)\s+(?:add|do|use|keep|reuse|copy|bring)\s+"
                      r"(?:that|this|it|the\s+same)\s+(?:here|again|in\s+this\s+design)\b", re.I)


# where a number starts: "~5", "1,024" (at its "1"), "3.5" (at its "3")
_NUMBER_START = guarded(re.compile(r"~(?=\d)|(?<![\d,.·~a-df-z])\d"))  # not the 99 of "p99" (an exponent, "2e5", still is)


_DIGITS_RUN = re.compile(r"~?\d[\d,]*")  # rubric.NUMBER_LED: how a number-led pattern begins


class _Numbers:
    """Where numbers start in a turn, for the patterns every match of which starts at one; for a
    pattern with a rubric.number_follow class, only the numbers whose digits are followed by a
    character of that class (looked up once per character)."""

    def __init__(self, starts: list[int]):
        self.starts = starts
        self._next: dict[int, list[tuple[int, str]]] = {}  # id(text) -> (start, the character after the digits)

    def at(self, text: str, follow: re.Pattern | None) -> list[int]:
        if follow is None:
            return self.starts
        nxt = self._next.get(id(text))
        if nxt is None:
            nxt = self._next[id(text)] = [(p, text[m.end():m.end() + 1]) for p in self.starts
                                          if (m := _DIGITS_RUN.match(text, p)) is not None]
        memo = _FOLLOWS.setdefault(follow, {})
        out = []
        for p, ch in nxt:
            ok = memo.get(ch)
            if ok is None:
                ok = memo[ch] = bool(ch) and follow.match(ch) is not None
            if ok:
                out.append(p)
        return out


_FOLLOWS: dict[re.Pattern, dict[str, bool]] = {}  # number_follow class -> character -> matches


class _Places:
    """Where words occur in a lower-cased text, for the patterns every match of which starts with
    one of them (rubric.leading_literals): found once per word and text."""

    def __init__(self, low: str, lead: tuple[re.Pattern, dict[str, tuple[str, ...]]]):
        self.low = low
        self._at: dict[tuple[str, ...], list[int]] = {}
        self._lead = lead  # every leading word of the family's patterns (_lead_words)
        self._word: dict[str, list[int]] | None = None

    def present(self) -> set[str]:
        """The words that occur in the text."""
        if self._word is None:
            self._word = self._index()
        return {w for w, at in self._word.items() if at}

    def lists(self, words: tuple[str, ...]) -> list[list[int]]:
        """Where each of `words` occurs (a sorted list each)."""
        if self._word is None:
            self._word = self._index()
        return [self._word[w] for w in words]

    def of(self, words: tuple[str, ...]) -> list[int]:
        hit = self._at.get(words)
        if hit is None:
            if self._word is None:
                self._word = self._index()
            lists = [at for w in words if (at := self._word[w])]
            if len(lists) == 1:
                hit = lists[0]  # (one word's places are sorted and distinct already: shared, never changed)
            else:
                found: set[int] = set()
                for at in lists:
                    found.update(at)
                hit = sorted(found)
            self._at[words] = hit
        return hit

    def _index(self) -> dict[str, list[int]]:
        """Every place each of the rubric's leading words starts, in one pass: at each place the
        longest word found there, and the words it begins with ("token" where "tokens" is)."""
        pattern, prefixes = self._lead
        out: dict[str, list[int]] = {w: [] for w in prefixes}
        for m in pattern.finditer(self.low):
            for w in prefixes[m.group(1)]:
                out[w].append(m.start())
        return out


@functools.lru_cache(maxsize=64)
def _lead_words(rubric: Rubric, family: str) -> tuple[re.Pattern, dict[str, tuple[str, ...]]]:
    """The words a family's led patterns start with, and the literals its patterns need (_plan), as
    one regex that finds the longest of them at each place (a trie: greedy optional tails), and for
    each word the words that are prefixes of it."""
    words = {w for item in items_for(rubric, family) for lead in item.led_by.values() for w in lead}
    words |= {w for p in rubric.pitfalls.values() for lead in p.led_by.values() for w in lead}
    items, pitfalls = _plan(rubric, family)
    words |= {w for *_, pats in items for _p, _n, lit, needs, *_ in pats for w in (lit, *(needs or ())) if w}
    words |= {w for _p, pats in pitfalls for _pat, needs, *_ in pats for w in needs or ()}
    pattern, prefixes = longest_at_each_place(words)
    return pattern or _NEVER, prefixes


_NEVER = re.compile(r"(?!)")  # a family with no leading words: no place to find


def _tried_at(pat: re.Pattern, text: str, starts: list[int]):
    """pat.finditer(text) for a pattern whose every match starts at one of `starts` (a number, or a
    word it leads with): tried only there, in order, as finditer would. A match found from inside a
    number is found from its first digit too, with the same end."""
    last = 0
    for pos in starts:
        if pos < last:
            continue
        m = pat.match(text, pos)
        if m:
            yield m
            last = max(m.end(), pos + 1)


# where a cue pattern is tried in a turn: at numbers, at its leading words, at the start and after
# the characters it opens after (quickre.starts_after), or everywhere
_NUMBER_LED, _WORD_LED, _SENTENCE_LED, _SCAN = "number", "word", "sentence", "scan"


@functools.lru_cache(maxsize=64)
def _plan(rubric: Rubric, family: str) -> tuple[tuple, tuple]:
    """How scan_turn tries a family's cue and pitfall patterns, worked out once instead of per turn
    and pattern: for each item (id, keeps every match, negatable, not_after, patterns) with, for
    each pattern, whether it names the item, its literal, the literals one of which each match
    holds (needed_literals), whether it needs a digit, where it is tried, the pattern scanned, and
    for one scanned within the sentences that hold its literals (quickre.within) the stops it cannot cross,
    how far its lookaheads read and those literals (for a led one, the stops: it is tried only in those
    sentences); for each pitfall its patterns with their
    literals, leading words, the group a hit starts at, the characters it opens after, that group as
    a pattern of its own (quickre.group_gate) and the stops and reach, as for an item's."""
    items = []
    for item in items_for(rubric, family):
        named = item.tier == "name"
        pats = []
        for group, is_name in ((item.patterns, named), (item.name_patterns, True)):
            for pat in group:
                lit = item.literals.get(id(pat))
                # the cues are matched against lower-cased text: a literal test is exact for them, and
                # is left to `lit` where the loader found one
                needs = needed_literals(pat) if lit is None and not pat.flags & re.IGNORECASE else None
                if needs and id(pat) in item.digit_patterns and any(" " in w for w in needs):
                    # the text with its digitless sentences blanked may hold one the turn does not:
                    # tested there, as "" first says
                    needs = ("", *needs)
                mode, lead = _SCAN, None
                if id(pat) in item.number_led:
                    mode, lead = _NUMBER_LED, number_follow(pat)
                elif id(pat) in item.led_by:
                    mode, lead = _WORD_LED, item.led_by[id(pat)]
                elif (opens := starts_after(pat)) is not None:
                    mode, lead = _SENTENCE_LED, opens
                scan = item.scans.get(id(pat), pat)
                # a scanned or led pattern that holds a literal and no match of which crosses a sentence's end
                # is run over (or tried in) the sentences that hold the literal (found in the lowered turn: not for a literal
                # with a space over the text with its digitless sentences blanked, where the blanks may make one)
                words = needs if needs else (lit,) if lit is not None else None
                # (one that may cross a sentence's end reads the whole turn: "A timeout on every request. I'd say thirty
                # seconds" needs the digitless sentence the blanked text drops)
                digits = id(pat) in item.digit_patterns and sentence_reach(scan) is not None
                if words and digits and any(c.isspace() for w in words for c in w):
                    words = None
                stretch = None
                if words and not pat.flags & re.IGNORECASE and mode is not _SENTENCE_LED:
                    stretch = sentence_reach(scan if mode is _SCAN else pat)
                # a word-led pattern is scanned in full where a letter changed size when lowered (no places)
                pats.append((pat, is_name, lit, needs, digits, mode, lead, scan, stretch, words))
        items.append((item.id, item.given_is_named, item.negatable, tuple(item.not_after), tuple(pats)))
    pitfalls = []
    for pitfall in rubric.pitfalls.values():
        pats = tuple((pat, needs, pitfall.led_by.get(id(pat)), pat.groupindex.get("at", 0),
                      starts_after(pat), group_gate(pat, "at"), sentence_reach(pat) if needs else None)
                     for pat in pitfall.patterns_for(family) for needs in (needed_literals(pat),))
        pitfalls.append((pitfall, pats))
    return tuple(items), tuple(pitfalls)


@functools.lru_cache(maxsize=64)
def items_for(rubric: Rubric, family: str) -> tuple:
    """The items a family's reading can use: its criteria's items and levels, and the items its
    pitfalls are raised and cleared by (a round is scanned for these alone)."""
    names: set[str] = set()
    for cid in rubric.criteria_for(family):
        spec = rubric.spec(family, cid)
        names |= set(spec.items)
        for alts in spec.levels.values():
            for alt in alts:
                names |= alt.items() | set(alt.none)
    for p in rubric.pitfalls.values():
        names |= {i for i in (p.when, p.unless_tied, *p.unless_any) if i}
    return tuple(i for i in rubric.items.values() if i.id in names and not i.computed)


def _claim_counts(c: Claim, spec) -> bool:
    if c.speaker != "candidate" or c.value is None or c.negated or c.hypothetical or c.kind not in spec.kinds:
        return False
    if spec.percentiles and (c.percentile or "none") not in spec.percentiles:
        return False
    if spec.not_scopes and c.scope in spec.not_scopes and c.scope_stated:
        return False
    return True


def extract(turns: list[tuple[int, str]], rubric: Rubric, family: str, ledger: Ledger | None = None,
            context: dict[int, str] | None = None) -> Evidence:
    """Every item present in the candidate turns (index, text): cue matches and ledger figures.

    `context` holds the interviewer's turns (index -> text) when known: figures that only repeat
    them count as names for items marked `given_is_named`."""
    ev = Evidence(ledger=ledger, context=dict(context or {}))
    given = _given(ev.context)
    # "2.000 H100" from a candidate who writes "13,5 GB" is two thousand (same length: offsets hold)
    european = writes_european([text for _idx, text in turns])
    readings: dict[int, str] = {}
    for idx, original in turns:
        ev.texts[idx] = original
        # (a line quoting the interviewer back is the interviewer's: "> a p99 budget of 150 ms for the whole call")
        text = candidate_reading(blank_quoted(original, (t for i, t in ev.context.items() if i < idx)), european)
        hits, pitfalls, ignored = scan_turn(text, rubric, family)
        for item, s, e, quote in ignored:
            ev.ignored.append(Hit(item, idx, s, e, quote))
        for item, s, e, quote, counts, is_name in hits:
            if not counts or _retracted(text, s, e):
                continue
            if rubric.items[item].not_reported and _reported(text, s, e):
                continue
            hit = Hit(item, idx, s, e, quote if text is original else quote_around(original, s, e))
            spec = rubric.items[item]
            if (is_name or _offered(text, s, e)) and spec.tier != "name":
                ev.named_hits.setdefault(item, []).append(hit)
                continue
            _file(ev, spec, hit, text, lambda s=s, e=e: _cue_repeats(text[s:e], given))
        for pid, s, e, quote in pitfalls:
            ev.pitfalls.setdefault(pid, Hit(pid, idx, s, e, quote if text is original else quote_around(original, s, e)))
        readings[idx] = text
    if ledger is not None:
        _ledger_items(ev, rubric)
    _withdrawn(ev, rubric)
    _owned_guesses(ev, rubric)
    _answers_only(ev, rubric)
    _carried(ev, rubric, readings)
    _taint(ev, rubric)
    for item in list(ev.hits):
        ev.hits[item].sort(key=lambda h: (h.turn, h.start))
    from interviewer.pitfalls import derive_pitfalls

    derive_pitfalls(ev, rubric, family)
    _taint(ev, rubric, words_too=True)
    return ev


def _given(context: dict[int, str]) -> tuple[frozenset, frozenset]:
    """The interviewer's numbers, and what one divided by another comes to ("2,000 GPUs, 40 teams"
    gives 50 a team): repeating either derives nothing."""
    said: set[float] = set()
    for t in context.values():
        # the counts the items marked given_is_named repeat (GPUs, hosts, teams): not a time, share or
        # size ("a p99 budget of 150 ms" gives no fleet of 150)
        said |= numbers_in(_MEASURES.sub(" ", _in_digits(t)))
    big = [n for n in said if n >= 2]
    ratios = {a / b for a in big for b in big if a > b and a / b >= 2}
    return frozenset(said), frozenset(ratios)


_MEASURES = re.compile(r"~?\d[\d,]*(?:\.\d+)?\s*(?:ms|milliseconds?|µs|us|s|secs?|seconds?|minutes?|hours?|%|percent|"
                       r"[kmgt]i?b|bytes?|gigs?)(?![\w/])", re.I)


def _is_given(n: float, given: tuple[frozenset, frozenset]) -> bool:
    said, ratios = given
    return n in said or any(abs(n - r) <= 0.03 * r for r in ratios)


def _ledger_items(ev: Evidence, rubric: Rubric) -> None:
    specs = [(i.id, i.ledger) for i in rubric.items.values() if i.ledger]
    by_kind: dict[str, list] = {}
    for item, spec in specs:
        for k in spec.kinds:
            by_kind.setdefault(k, []).append((item, spec))
    given = _given(ev.context)
    claims = [c for c in ev.ledger.claims if c.kind in by_kind and c.turn in ev.texts]
    # an item that needs figures of several kinds ("the split": prefill, queueing, decode figures), said in one answer
    # (not a decode step in one and the prefill a prefix saves three answers later)
    said = {(item, c.turn, c.kind) for c in claims for item, spec in by_kind[c.kind] if _claim_counts(c, spec)}
    whole = {(item, t) for item, spec in specs if spec.min_kinds > 1
             for t in {t for i, t, _k in said if i == item}
             if len({k for i, tt, k in said if i == item and tt == t}) >= spec.min_kinds}
    several = {item for item, spec in specs if spec.min_kinds > 1}
    masked_spans = {t: _mask_grader_directed(text)[1] for t, text in ev.texts.items()}
    for c in claims:
        text = ev.texts[c.turn]
        if any(s <= c.start < e for s, e in masked_spans[c.turn]):
            continue
        for item, spec in by_kind[c.kind]:
            if (item in several and (item, c.turn) not in whole) or not _claim_counts(c, spec):
                continue
            if any(h.turn == c.turn and h.start <= c.start < h.end for h in ev.hits.get(item, [])):
                continue
            not_after = rubric.items[item].not_after
            if not_after and any(p.search(text, _sentence_bounds(text, c.start, c.start)[0], c.start) for p in not_after):
                continue  # the figure read as the cue's would be: "the average stays low, so ... p99 ... the same ~2 ms"
            if rubric.items[item].not_reported and _reported(text, c.start, c.end):
                continue
            hit = Hit(item, c.turn, c.start, c.end, quote_around(text, c.start, c.end), "ledger")
            _file(ev, rubric.items[item], hit, text, lambda c=c: None if c.value is None else _is_given(c.value, given))


# a figure said as what happened, right before it: "Last March our p99 TTFT went to 9 s", "its p99 time-to-schedule was
# still around 40 minutes", "blew up to 9 hours" (not a target that was: "Our p99 TTFT target was 1 second, and I'd keep it")
_REPORTED = re.compile(r"(?<!\btarget\s)(?<!\bgoal\s)(?<!\bslo\s)(?<!\bbudget\s)(?<!\bobjective\s)\b(?:went|blew\s+up|spiked|climbed|jumped|rose|shot\s+up|ballooned|crept\s+up|drifted|was|were|"
                       r"had\s+been|hit|reached|peaked)\s+(?:up\s+)?(?:to\s+|past\s+|at\s+)?(?:still\s+|already\s+)?"
                       r"(?:about\s+|around\s+|roughly\s+|nearly\s+|over\s+|~\s*)?$", re.I)
_LAST_NUMBER = re.compile(r"\d[\d.,·]*")


def _reported(text: str, s: int, e: int) -> bool:
    """Is the last figure in text[s:e] said as a measurement of the past, not as a target?"""
    last = None
    for last in _LAST_NUMBER.finditer(text, s, e):
        pass
    return last is not None and _REPORTED.search(text, max(0, last.start() - 40), last.start()) is not None


def _file(ev: Evidence, spec, hit: Hit, text: str, repeats) -> None:
    """Add `hit` as evidence, or as a name only: a guessed figure (which completes nothing), one the
    sentence credits to the interviewer (items marked echo_is_named: "the 800 ms p99 you gave me"), or,
    for an item marked given_is_named, one that repeats the interviewer's (`repeats()`: None when there
    is no figure to judge) or is said back "like you said"."""
    if spec.guess_is_named and guessed_at(text, hit.start, hit.end):
        ev.named_hits.setdefault(hit.item, []).append(hit)
        ev.guessed.add(hit.item)
        return
    if spec.echo_is_named and _ECHO.search(text, *_sentence_bounds(text, hit.start, hit.end)):
        ev.named_hits.setdefault(hit.item, []).append(hit)
        ev.echoed.add(hit.item)
        return
    if spec.given_is_named:
        said_again = repeats()
        bounds = _sentence_bounds(text, hit.start, hit.end)
        echoed = _ECHO.search(text, *bounds)
        if said_again and echoed and not _WORKS_ON.search(text, *bounds):
            return  # "It's what you said, like, 1,600 GPUs and 30 teams": the interviewer's figures handed back, nothing more
        if said_again is not None and (said_again or echoed):
            ev.named_hits.setdefault(hit.item, []).append(hit)
            return
    ev.add(hit)


_A_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?")
# a figure owned as a guess when asked where it came from: "Where does the 1,000 a second come from?" - "The 1,000 is a ballpark."
_OWNED_GUESS = r"\s*(?:[a-z/]+\s+){0,3}?(?:is|was)\s+(?:just\s+|only\s+|really\s+|a\s+bit\s+of\s+)?(?:a\s+|my\s+)?(?:ballpark|guess|rough\s+(?:guess|number|figure)|made[- ]up|placeholder|gut\s+feel(?:ing)?)\b"


_GUESS_WORD = re.compile(r"\b(?:ballpark|guess|rough|made[- ]up|placeholder|gut)\b", re.I)


def _owned_guesses(ev: Evidence, rubric: Rubric) -> None:
    """A figure a later answer calls a guess ("The 1,000 is a ballpark") is guessed, for items marked guess_is_named."""
    owning = {t: text for t, text in ev.texts.items() if _GUESS_WORD.search(text)}
    if not owning:
        return  # (most rounds: no answer calls anything a guess, so nothing to look up)
    for item, hits in list(ev.hits.items()):
        if not rubric.items[item].guess_is_named:
            continue
        keep = [h for h in hits if not _owned_as_guess(ev, h, owning)]
        if len(keep) < len(hits):
            ev.named_hits.setdefault(item, []).extend(h for h in hits if h not in keep)
            ev.hits[item] = keep
            if not keep:
                ev.guessed.add(item)


def _owned_as_guess(ev: Evidence, hit: Hit, owning: dict[int, str]) -> bool:
    later = [text for t, text in owning.items() if t > hit.turn]
    if not later:
        return False
    figures = {m.group(0) for m in _A_FIGURE.finditer(ev.texts.get(hit.turn, ""), hit.start, hit.end)}
    owned = [re.compile(r"\bthe\s+~?" + re.escape(n) + _OWNED_GUESS, re.I) for n in figures
             if any(n in text for text in later)]
    return any(p.search(text) for p in owned for text in later)


def _cue_repeats(quote: str, given: tuple[frozenset, frozenset]) -> bool | None:
    """Do the figures of a cue's match only repeat the interviewer's? None with no figure to judge."""
    nums = numbers_in(quote)
    if not nums:
        return None
    big = {n for n in nums if n >= 10}  # small counts (8 GPUs a host) repeat by chance
    return all(_is_given(n, given) for n in (big or nums))


# a sentence that takes back the one before it: "The natural answer is to preempt ... Actually, no - we won't",
# "... But actually, no, we won't preempt"
_RETRACT = re.compile(r"\s*(?:(?:but|and|hmm+|well|though|so)\s*,?\s+)?(?:actually,?\s+no\b|(?:i.m\s+)?erasing\s+that\b|no,?\s+(?:scratch\s+that|wait|actually)\b|scratch\s+that\b|"
                      r"on\s+second\s+thought\b|wait,?\s+no\b)", re.I)


@functools.lru_cache(maxsize=256)
def _literals_of(pattern: re.Pattern) -> tuple[str, ...] | None:
    """needed_literals, worked out once per pattern: a turn without any of them is not scanned."""
    return needed_literals(pattern)


def _withdrawn(ev: Evidence, rubric: Rubric) -> None:
    """Drop an item's hits that a later answer takes back as a whole ("Actually, thinking about running
    it, I'd drop preemption altogether"): only what is said after the withdrawal still counts."""
    for item in rubric.items.values():
        if not item.withdrawn_by or not (ev.hits.get(item.id) or ev.named_hits.get(item.id)):
            continue
        last = max(((idx, m.start()) for idx, text in ev.texts.items() for p in item.withdrawn_by
                    if may_match(_literals_of(p), text.lower(), folds(text)) for m in p.finditer(text)), default=None)
        if last is None:
            continue
        # the item only named goes too: "Retry until it succeeds, I guess with some limit" bounds nothing
        for found in (ev.hits, ev.named_hits):
            if item.id not in found:
                continue
            kept = [h for h in found[item.id] if (h.turn, h.start) > last]
            if kept:
                found[item.id] = kept
            else:
                del found[item.id]


# ... or by its own end: "Then we preempt the lowest-priority sequence on the GPU with the most... actually, no,
# I'm erasing that."
# ... "preempt the newest sequence on the least-loaded GPU... no, actually we won't preempt"
_TAKEN_BACK = guarded(re.compile(r"\b(?:actually,?\s+no\b|no,?\s+scratch\s+that|scratch\s+that|(?:i.m\s+)?(?:erasing|erase|striking|strike|crossing\s+out|cross\s+out)\s+that\b"
                                 r"|no,?\s+actually,?\s+(?:we|i)\s+(?:won.t|wouldn.t|don.t|will\s+not|would\s+not|do\s+not)\b"
                                 # ... "shed to a popular-items list... but no, we wouldn't shed at dinner"
                                 r"|(?:\.\.\.|…|—|–|\bbut)\s*no,?\s+(?:we|i)\s+(?:won.t|wouldn.t|don.t|will\s+not|would\s+not|do\s+not)\b)", re.I))


# ... but not a figure put right, the working kept: "... that's 5 seconds. Wait, no, 50 seconds", "Hmm, scratch
# that, I forgot the K and V, it's double, 512 KB a token"
_FIGURE_FIX = re.compile(r"[\s,.!—–-]*(?:(?:(?:it|that).s|make\s+(?:it|that)|more\s+like|i\s+mean)\s+)?(?:~|about\s+|roughly\s+)?\d"
                         r"|[\s,.!—–-]*(?:i\s+)?(?:" + SLIP_NAMED + r")\b[^.!?\n]{0,80}?\d", re.I)


# an option offered, then another beside it: "I guess we could kill the training job. Or wait for it to finish."
_COULD = guarded(re.compile(r"\b(?:i\s+guess\s+|maybe\s+|i\s+suppose\s+)?(?:we|you|i)\s+could\b", re.I))
_OR_NEXT = re.compile(r"\s*or\b", re.I)


def _offered(text: str, start: int, end: int) -> bool:
    """Is the hit one option of several ("we could X. Or Y."): named, not the rule?"""
    s, e = _sentence_bounds(text, start, end)
    return bool(_OR_NEXT.match(text, e)) and _COULD.search(text, s, start) is not None


def _retracted(text: str, start: int, end: int) -> bool:
    """Is the sentence holding [start, end) taken back, by the next one or after the hit in its own?"""
    _s, e = _sentence_bounds(text, start, end)
    m = _RETRACT.match(text, e)
    if m is not None and not _FIGURE_FIX.match(text, m.end()):
        return True
    return _TAKEN_BACK.search(text, end, e) is not None


# the interviewer's figure said back in so many words: "Fleet is 2,000 H100 on 250 hosts, like you said."
# ... or played back as the question's restatement: "So, restating: home-feed recommendations, 15,000 requests a second"
_ECHO = guarded(re.compile(r"\b(?:like|as)\s+you\s+(?:said|mentioned|put\s+it|stated)\b|\byou\s+(?:said|mentioned|gave)\b|"
                           r"\b(?:" + _SAID_BACK + r"|playing\s+(?:it|that|this)\s+back)\b", re.I))
# ... unless the sentence works on them: "With the numbers you gave: twenty thousand a second ..., so that's 6 million"
_WORKS_ON = re.compile(r"\b(?:that.s|which\s+is|gives?)\s+(?:about\s+|roughly\s+|~)?\d|[=→]", re.I)
# a figure guessed, not worked out: "I'd guess something like ten GPUs would handle it"
# (a GPU's name is no figure: "I think on an H100 you can fit maybe a hundred")
_GUESSED = guarded(re.compile(r"(?:\b(?:i.d\s+guess|i\s+guess|my\s+guess\s+is|rule\s+of\s+thumb|ballpark|gut\s+(?:feel|says))\b"
                              # a figure put as a maybe: "keep some buffer, maybe 10% of GPUs, so ~200 free"
                              r"|\bsome\s+[\w-]+\s*,\s*maybe\s*$"
                              # ... or opening the answer: "Maybe 10% of the fleet, and it can run low-priority work"
                              r"|(?:(?<=[.!?]\s)|(?<=\n)|(?<![\s\S]))maybe\s+$"
                              # ... or after a dash: "It is not so much - maybe around 1 GB"
                              r"|[—–]\s*maybe\b"
                              r"|\b(?:i\s+think|i.d\s+say|i\s+would\s+say)\b(?:[^.!?\n\d]|(?<=[a-z])\d+){0,40}?\b(?:maybe|perhaps|probably)\b)"
                              r"(?:[^.!?\n\d]|(?<=[a-z])\d+){0,30}$",
                              re.I))
# ... or hedged right after it: "maybe 5 to 15 percent, I'm not sure exactly"
# ... or put as a question: "So I'd say, I mean, maybe a hundred requests per GPU?"
# ... "Hmm, about 1 GB, I'd guess."
_UNSURE_AFTER = re.compile(r"[^.!?\n]{0,25}?\b(?:i.m\s+not\s+(?:sure|certain)|not\s+sure\s+exactly|no\s+idea\s+exactly|i.d\s+guess\s*[.!]|i\s+guess\s*[.!]"
                           # "... costs us maybe 10% utilisation; I haven't worked that out"
                           r"|i\s+haven.t\s+(?:worked|figured)\s+(?:that|it|this)\s+out|i\s+haven.t\s+done\s+the\s+math"
                           # "I think around a hundred sequences per GPU, maybe more"
                           r"|maybe\s+(?:more|less|fewer|higher|lower)\b)"
                           r"|[^.!?\n]{0,25}\?"
                           # ... or owned as one in the next sentence: "one l4 does ~100k scores/s at batch ~1k. that's a guess,
                           # haven't benched it." (not "I haven't benchmarked that 400k" after the fleet worked out from it: the
                           # rate is the guess, the fleet its arithmetic)
                           r"|[^.!?\n]{0,80}[.!]\s+(?:that.s|it.s|this\s+is)\s+(?:just\s+|only\s+|purely\s+)?(?:a|my)\s+guess\b",
                           re.I)


# ... not the result of a sum said just before it, however hedged: "157 / 0.55 is ballpark two hundred eighty-five"
_WORKED_OUT = re.compile(r"\d\s*(?:/|÷|x|×|\*|over|times|divided\s+by)\s*~?\d[\d.,]*\s*(?:[a-z]+\s+){0,2}?(?:is|=|≈|gives|comes\s+to)\s+"
                         r"(?:(?:a\s+)?ballpark|roughly|about|around|call\s+it|~)?\s*(?:of\s+)?$", re.I)


def guessed_at(text: str, start: int, end: int | None = None) -> bool:
    """Is the figure at `start` a guess ("I'd guess something like ten GPUs", "I think each GPU can handle
    maybe 100", "maybe 5 to 15 percent, I'm not sure exactly")?"""
    lo = max(0, start - 60, _sentence_bounds(text, start, start)[0])
    if _GUESSED.search(text, lo, start) is not None and not _WORKED_OUT.search(text, lo, start):
        return True
    return end is not None and _UNSURE_AFTER.match(text, end) is not None


_DESIGN_BRIEF = re.compile(r"\bdesign\b", re.I)


def _answers_only(ev: Evidence, rubric: Rubric) -> None:
    """Items with `after` count only in an answer to an interviewer turn that matches it - not to a
    design brief opening the round, which states the whole question (its "p99 TTFT under 800 ms" asks
    nothing of the first answer)."""
    opening = min(ev.context, default=None)
    if opening is not None and not _DESIGN_BRIEF.search(ev.context[opening]):
        opening = None  # the round opens on a question of its own ("How often do GPUs fail?")
    for item in [i for i in rubric.items.values() if i.after]:
        keep = []
        for h in ev.hits.get(item.id, []):
            before = ev.asked_before(h.turn)
            if before is not None and before != opening and any(p.search(ev.context[before]) for p in item.after):
                keep.append(h)
        ev.hits[item.id] = keep


def _carried(ev: Evidence, rubric: Rubric, readings: dict[int, str]) -> None:
    """A later answer that carries a tainting pitfall's premise on is tainted too: after "I'd store each request's
    keys and values in Redis", "Redis is built for exactly this kind of lookup ... With the cache moved off the card
    each GPU can take around thirty requests" sizes nothing."""
    for pid, hit in ev.pitfalls.items():
        p = rubric.pitfalls[pid]
        if not (p.taints_turn and p.carried_by):
            continue
        for idx, text in readings.items():
            if idx > hit.turn and any(pat.search(text) for pat in p.carried_by):
                ev.pitfall_turns.setdefault(pid, set()).add(idx)


def _taint(ev: Evidence, rubric: Rubric, words_too: bool = False) -> None:
    """A pitfall that taints its turn (the KV cache taken for a key-value store): the substance said in
    that answer rests on it and earns nothing. With `words_too` (once the pitfalls are read, so the
    batching named there still raises "no limits"), its vocabulary earns nothing either: "I'd keep the
    KV cache in Redis, so GPU memory isn't the limit" names no constraint."""
    turns = ev.tainted_turns(rubric)
    if not turns:
        return
    for item, hits in ev.hits.items():
        if words_too or rubric.items[item].tier == "substance":
            ev.hits[item] = [h for h in hits if h.turn not in turns]
            if hits and not ev.hits[item]:
                ev.tainted.add(item)
    for item, hits in ev.named_hits.items():
        ev.named_hits[item] = [h for h in hits if h.turn not in turns]
