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

PITFALL_PATTERNS = {
    "vendor_speedup": re.compile(
        # "Nx throughput" is the vendor-post shape; a reasoned "4x faster because ..." is not.
        r"\b\d+(?:\.\d+)?\s*[x×]\s+(?:(?:higher|more|better|the)\s+)?throughput\b"
        r"|(?:vllm|anyscale|tgi|blog|paper|benchmark|they\s+(?:report|claim|say)|reported|claims?|advertised|published)"
        r"\w*[^.\n]{0,60}?\b\d+(?:\.\d+)?\s*[x×]\b"
        r"|\b\d+(?:\.\d+)?\s*[x×]\b[^.\n]{0,40}?(?:according\s+to|per|from|says?)\s+(?:the\s+)?(?:vllm|anyscale|blog|paper)",
        re.IGNORECASE,
    ),
    # The attention KV cache talked about as a key-value store (serving families) ...
    "kv_cache_confusion": re.compile(
        r"kv[- ]?cache[^.\n]{0,80}?(?:redis|memcache\w*|\bttl\b|key[- ]value\s+store|cache[sd]?\s+(?:the\s+)?(?:responses?|answers?|completions?)|hit\s+rate|cache\s+hits?|lru\s+evict\w*\s+(?:of\s+)?(?:keys|entries))"
        r"|(?:redis|memcache\w*)[^.\n]{0,80}?kv[- ]?cache"
        r"|(?:store|put|keep)\s+(?:the\s+)?kv[- ]?cache\s+in\s+(?:redis|memcache\w*|a\s+database|a\s+key[- ]value)",
        re.IGNORECASE,
    ),
    "policy_list": re.compile(
        r"(?:fifo|first[- ]come|round[- ]robin|priority|fair[- ]share|shortest[- ]job|sjf|\bedf\b|earliest[- ]deadline|lottery|\bdrf\b|srpt)"
        r"(?:[^.\n]{0,40}?(?:,|\bor\b|\band\b)\s*(?:maybe\s+|perhaps\s+|possibly\s+|also\s+|we\s+could\s+(?:use\s+|try\s+)?|or\s+)?"
        r"(?:fifo|first[- ]come|round[- ]robin|priority|fair[- ]share|shortest[- ]job|sjf|\bedf\b|earliest[- ]deadline|lottery|\bdrf\b|srpt)){2,}",
        re.IGNORECASE,
    ),
}
# ... and the key-value store talked about as attention state (storage family).
WAL_CONFUSION = re.compile(
    r"attention|transformer|paged\s*attention|\bkv\s+heads?\b|head\s+dim|\bprefill\b|decode\s+step|\btokens?\s+per\s+(?:step|second)",
    re.IGNORECASE,
)
CHOOSES_ONE = re.compile(
    r"(?:i.d|i\s+would|we.d|we\s+would|i.ll|i\s+will|we.ll|we\s+will|let.s|my\s+choice\s+is|i\s+choose|i\s+pick|we\s+pick|i\s+recommend)"
    r"\s+(?:\w+\s+){0,2}?(?:choose|pick|go\s+with|use|start\s+with|recommend|defend|commit\s+to)"
    # a declarative choice: "Fine: weighted fair share by team quota", "my pick is ...", "we go with ..."
    r"|(?:^|[.!?]\s+)(?:fine|ok|okay|so|decision|choice|answer)\s*[:,-]\s*(?:strict\s+)?(?:weighted|fair|drf|priority|fifo|sjf|round)"
    r"|\b(?:my|our)\s+(?:pick|choice)\b|\b(?:we|i)\s+(?:go|went)\s+with\b|\bi\s+chose\b",
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
    _derive_pitfalls(ev)
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
    for pid, pat in PITFALL_PATTERNS.items():
        if pid == "kv_cache_confusion" and family == "storage_wal":
            pat = WAL_CONFUSION
        m = pat.search(masked)
        if m:
            pitfalls.append((pid, m.start(), m.end(), quote_around(text, m.start(), m.end())))
    return tuple(hits), tuple(pitfalls), ignored


def _derive_pitfalls(ev: Evidence) -> None:
    """Pitfalls that are about absence: named with no substance anywhere in the round."""
    present = ev.present
    if "cb_named" in present and not present & {"max_seqs", "token_budget"}:
        ev.pitfalls["no_limits"] = ev.first("cb_named")
    if "average_stat" in present and "percentile" not in present and "tail_target" not in present:
        ev.pitfalls["average_only"] = ev.first("average_stat")
    if "quant_named" in present and not present & {"quality_suite", "rollback"}:
        ev.pitfalls["quantizing_on_faith"] = ev.first("quant_named")
    if "policy_list" in ev.pitfalls:
        chose = any(CHOOSES_ONE.search(t) for t in ev.texts.values())
        if chose:
            del ev.pitfalls["policy_list"]
