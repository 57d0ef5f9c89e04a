"""Which quantity a number is: match the cue rules of kinds.yaml around each number.

Ranking, nearest first: a qualifier said with the number ("1,500 prompt tokens") or a cue right
after it ("16 GB of weights", "1,000 sequences max"); then a cue ending right before it ("leaving
~56 GiB"), shorter first; then a cue nearby in the sentence ("p99 time to first token under
800 ms"), by distance; then the dimension's default. A rule's `bonus` moves it nearer.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from interviewer.claims.numbers import Mention
from interviewer.claims.vocab import Rule, Vocab

_TIER_RIGHT = 0.0
_TIER_LEFT = 10.0
_TIER_NEAR = 30.0
_TIER_DEFAULT = 1000.0
BARE_GAP = 16


@dataclass
class Decision:
    rule: Rule
    score: float
    cue: str = ""


def _right_re(rule: Rule, pattern: re.Pattern) -> re.Pattern:
    key = (rule.index, pattern.pattern)
    hit = _RIGHT_CACHE.get(key)
    if hit is None:
        hit = re.compile(r"[\s,(\-–:]{0,%d}(?:%s)" % (rule.right_gap, pattern.pattern), re.IGNORECASE)
        _RIGHT_CACHE[key] = hit
    return hit


_RIGHT_CACHE: dict = {}
_LEFT_WINDOW = 140


def _anchored(p: re.Pattern) -> bool:
    return p.pattern.endswith("$")


def score_rule(rule: Rule, text: str, m: Mention, block: int, next_start: int, value: float) -> Decision | None:
    """The nearest cue of `rule` for mention `m` (None: no cue and not a default)."""
    if rule.min_value is not None and value < rule.min_value:
        return None
    if rule.near_requires is not None and not rule.near_requires.search(text):
        return None
    left_text = text[max(0, m.start - _LEFT_WINDOW):m.start]
    for veto in rule.not_left:
        if veto.search(left_text):
            return None
    for veto in rule.not_right:
        if re.compile(r"\s*(?:%s)" % veto.pattern, re.I).match(text, m.end):
            return None
    best: Decision | None = None

    def offer(score: float, cue: str) -> None:
        nonlocal best
        score -= rule.bonus
        if best is None or score < best.score:
            best = Decision(rule, score, cue)

    bare = m.dim == "count"
    if rule.qualifiers and m.qualifiers & rule.qualifiers:
        offer(_TIER_RIGHT, "qualifier:" + ",".join(sorted(m.qualifiers & rule.qualifiers)))
    for cue in rule.right:
        rm = _right_re(rule, cue.pattern).match(text, m.end)
        if rm:
            gap = len(rm.group(0)) - len(rm.group(0).lstrip(" ,(-–:"))
            offer(_TIER_RIGHT + gap, rm.group(0).strip())
    base = max(0, m.start - _LEFT_WINDOW)
    for cue in rule.left:
        if _anchored(cue.pattern):
            lm = cue.pattern.search(left_text)
            if lm:
                if bare and len(lm.group(0)) > BARE_GAP + 12:
                    continue
                if not cue.cross and base + lm.start() < block and any(ch.isdigit() for ch in lm.group(0)):
                    continue
                offer(_TIER_LEFT + min(len(lm.group(0)), 60) / 4, lm.group(0).strip())
        else:
            last = None
            for lm in cue.pattern.finditer(left_text):
                if base + lm.end() <= m.start and (cue.cross or base + lm.end() >= block):
                    last = lm
            if last is not None:
                dist = m.start - (base + last.start())
                if dist <= rule.left_gap and not (bare and dist > BARE_GAP):
                    offer(_TIER_LEFT + dist / 4, last.group(0))
    for cue in rule.near:
        last = None
        for lm in cue.pattern.finditer(left_text):
            if base + lm.end() <= m.start and (cue.cross or base + lm.end() >= block):
                last = lm
        if last is not None:
            dist = m.start - (base + last.start())
            if dist <= rule.left_gap and not (bare and dist > BARE_GAP):
                offer(_TIER_NEAR + dist, last.group(0))
        rm = cue.pattern.search(text, m.end, min(len(text), m.end + 40))
        if rm and rm.start() < next_start:
            dist = rm.start() - m.end
            offer(_TIER_NEAR + dist + 2, rm.group(0))
    if best is None and rule.default and not m.weak and not bare:
        best = Decision(rule, _TIER_DEFAULT - rule.bonus, "default")
    return best


def classify(text: str, m: Mention, rules: list[Rule], block: int, next_start: int, value: float,
             exclude: frozenset[str] = frozenset()) -> Decision | None:
    """The winning rule for one mention, or None when no rule claims it."""
    best: Decision | None = None
    for rule in rules:
        if m.dim not in rule.dims or (rule.kind in exclude):
            continue
        d = score_rule(rule, text, m, block, next_start, value)
        if d is not None and (best is None or d.score < best.score):
            best = d
    return best


def percentile_of(text: str, m: Mention, block: int, v: Vocab) -> str | None:
    """The percentile said beside a time figure: p50, p95, p99, p999 or mean (None: not said)."""
    start = max(block, m.start - 70)
    left = text[start:m.start]
    best, best_pos = None, -1
    for label, pats in v.percentiles.items():
        for p in pats:
            for pm in p.finditer(left):
                if pm.end() > best_pos:
                    best, best_pos = label, pm.end()
    if best is not None:
        return best
    right = text[m.end:m.end + 24]
    for label, pats in v.percentiles.items():
        for p in pats:
            pm = p.search(right)
            if pm and re.fullmatch(r"[\s,(]*(?:at\s+(?:the\s+)?|at\s+)?", right[:pm.start()], re.I):
                return label
    return None


def bound_of(text: str, m: Mention, v: Vocab) -> tuple[str | None, bool]:
    """('upper' | 'lower' | None, approx) from the words right around a figure."""
    left = text[max(0, m.start - 24):m.start]
    right = text[m.end:m.end + 16]
    approx = m.approx
    bound = None
    for p in v.bounds["approx"]:
        if p.search(left):
            approx = True
    for p in v.bounds["approx_right"]:
        if p.search(right):
            approx = True
    # strip an approximation word so "under about 800 ms" still reads as a ceiling
    core = re.sub(r"(?:~|≈|\babout|\baround|\broughly|\bapproximately)\s*$", "", left, flags=re.I)
    for label in ("upper", "lower"):
        for p in v.bounds[label]:
            if p.search(core):
                bound = label
                break
        if bound:
            break
        for p in v.bounds[label + "_right"]:
            if p.search(right):
                bound = label
                break
        if bound:
            break
    return bound, approx
