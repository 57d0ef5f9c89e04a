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
from interviewer.quickre import Literals, folds, guarded

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
        hit = re.compile(r"[\s(\-–:]{0,%d}(?:%s)" % (rule.right_gap, pattern.pattern), re.IGNORECASE)
        _RIGHT_CACHE[key] = hit
    return hit


_RIGHT_CACHE: dict = {}
_REACH = 72         # how far back an anchored cue may start
_CROSS_REACH = 120  # ... one that may reach past another number
_VETO_CACHE: dict = {}


def _veto_re(p: re.Pattern) -> re.Pattern:
    hit = _VETO_CACHE.get(p.pattern)
    if hit is None:
        hit = _VETO_CACHE[p.pattern] = re.compile(r"\s*(?:%s)" % p.pattern, re.I)
    return hit
_LEFT_WINDOW = 140
_FURTHEST = max(_REACH, _CROSS_REACH, _LEFT_WINDOW)


def _allowed(rule: Rule, text: str, m: Mention, value: float, possible: Possible | None = None) -> bool:
    if rule.min_value is not None and value < rule.min_value:
        return False
    if rule.max_value is not None and value > rule.max_value:
        return False
    possible = possible or Possible(text)
    if rule.near_requires is not None and not (possible(rule.near_requires_needs) and rule.near_requires.search(text)):
        return False
    if rule.not_left:
        left_text = text[max(0, m.start - _LEFT_WINDOW):m.start]
        for veto, needs in zip(rule.not_left, rule.not_left_needs):
            if possible(needs) and veto.search(left_text):
                return False
    for veto in rule.not_right:
        if _veto_re(veto).match(text, m.end):
            return False
    return True


def _right_score(rule: Rule, text: str, m: Mention) -> Decision | None:
    best: Decision | None = None
    if rule.qualifiers and m.qualifiers & rule.qualifiers:
        best = Decision(rule, _TIER_RIGHT - rule.bonus, "qualifier:" + ",".join(sorted(m.qualifiers & rule.qualifiers)))
    for cue in rule.right:
        rm = _right_re(rule, cue.pattern).match(text, m.end)
        if rm:
            gap = len(rm.group(0)) - len(rm.group(0).lstrip(" (-–:"))
            score = _TIER_RIGHT + gap - rule.bonus
            if best is None or score < best.score:
                best = Decision(rule, score, rm.group(0).strip())
    return best


def _left_score(rule: Rule, text: str, m: Mention, block: int, next_start: int) -> Decision | None:
    best: Decision | None = None

    def offer(score: float, cue: str) -> None:
        nonlocal best
        score -= rule.bonus
        if best is None or score < best.score:
            best = Decision(rule, score, cue)

    # a bare number needs its cue close by; a table cell's cue is its row label, however long
    bare = m.dim == "count" and not text.startswith(": ", m.start - 2) and not text.startswith(": ~", m.start - 3)
    lefts = rule.left
    if rule.left_any is not None and not rule.left_any.search(text, max(0, m.start - _FURTHEST), m.start):
        lefts = []  # no left cue anywhere a left cue could start
    for cue in lefts:
        if cue.anchored:
            # an anchored cue ends at the number: search only as far back as it can reach
            lm = cue.pattern.search(text, max(0, m.start - (_CROSS_REACH if cue.cross else _REACH)), m.start)
            if lm:
                if bare and len(lm.group(0)) > BARE_GAP + 12:
                    continue
                if not cue.cross and lm.start() < block and any(ch.isdigit() for ch in lm.group(0)):
                    continue
                offer(_TIER_LEFT + min(len(lm.group(0)), 60) / 4 - cue.bonus, lm.group(0).strip())
        else:
            last = None
            for lm in cue.pattern.finditer(text, max(0, m.start - _LEFT_WINDOW), m.start):
                if cue.cross or lm.end() >= block:
                    last = lm
            if last is not None:
                dist = m.start - last.start()
                if dist <= rule.left_gap and not (bare and dist > BARE_GAP):
                    offer(_TIER_LEFT + dist / 4 - cue.bonus, last.group(0))
    if rule.near:
        lo = max(0, m.start - rule.left_gap - 30)
        hi = min(len(text), m.end + 40)
        near = rule.near
        if rule.near_any is not None and not (rule.near_any.search(text, lo, m.start)
                                              or rule.near_any.search(text, m.end, hi)):
            near = []  # no near cue on either side
        for cue in near:
            last = None
            for lm in cue.pattern.finditer(text, lo, m.start):
                if cue.cross or lm.end() >= block:
                    last = lm
            if last is not None:
                dist = m.start - last.end()
                if dist <= rule.left_gap and not (bare and dist > BARE_GAP):
                    offer(_TIER_NEAR + dist, last.group(0))
            rm = cue.pattern.search(text, m.end, hi)
            # a cue after the figure reads it only within its clause: not "4 seconds, and timeouts are ..."
            if rm and rm.start() < next_start and not _NEXT_CLAUSE.search(text, m.end, rm.start()):
                dist = rm.start() - m.end
                # "350 ms of prefill": a cue right after the figure is as good as any right cue
                adjacent = dist <= 4 or bool(_ADJ.fullmatch(text, m.end, rm.start()))
                offer((_TIER_RIGHT + dist + 1) if adjacent else (_TIER_NEAR + dist + 2), rm.group(0))
    return best


_ADJ = re.compile(r"[\s,(]*(?:of|for|in|on)?\s*(?:the\s+)?", re.I)
_NEXT_CLAUSE = re.compile(r",\s*(?:and|but|while|whereas)\b|;", re.I)


def score_rule(rule: Rule, text: str, m: Mention, block: int, next_start: int, value: float) -> Decision | None:
    """The nearest cue of `rule` for mention `m` (None: no cue and not a default)."""
    if not _allowed(rule, text, m, value):
        return None
    cands = [d for d in (_right_score(rule, text, m), _left_score(rule, text, m, block, next_start)) if d]
    best = min(cands, key=lambda d: d.score) if cands else None
    if best is None and rule.default and not m.weak and m.dim != "count":
        best = Decision(rule, _TIER_DEFAULT - rule.bonus, "default")
    return best


class Possible:
    """Which cues can match anywhere in a segment's text: each rule's needed literals (vocab.Rule
    left_needs, near_needs, right_needs) looked up in the literals the lower-cased segment holds
    (found once, in one pass, with `index`: the vocabulary's cue_literals), so each number skips the
    rules none of whose cues the sentence holds - most of them, most of the time."""

    def __init__(self, text: str, index: Literals | None = None):
        self.low = text.lower()
        # a character that re.IGNORECASE folds to an ASCII letter (and lower() does not): no shortcut
        self.every = folds(text)
        self._index = index
        self._present: set[str] | None = None
        self._of: dict[int, tuple[list[Rule], frozenset[int], frozenset[int]]] = {}

    def __call__(self, needs: tuple[str, ...] | None) -> bool:
        if needs is None or self.every:
            return True
        if self._index is None:
            return any(w in self.low for w in needs)
        if self._present is None:
            self._present = self._index.present(self.low)
        return not self._present.isdisjoint(needs)

    def of(self, rules: list[Rule]) -> tuple[frozenset[int], frozenset[int]]:
        """The indices of `rules` whose right cues, and whose left or near cues, the segment may hold
        (worked out once per segment and list of rules)."""
        hit = self._of.get(id(rules))
        if hit is None or hit[0] is not rules:  # (the entry holds the list, so its id stays its own)
            if self._index is None or self.every:
                hit = (rules,
                       frozenset(r.index for r in rules if r.right and self(r.right_needs)),
                       frozenset(r.index for r in rules
                                 if (r.left and self(r.left_needs)) or (r.near and self(r.near_needs))))
            else:
                if self._present is None:
                    self._present = self._index.present(self.low)
                hit = (rules, *_RuleLiterals.of(rules).possible(self._present))
            self._of[id(rules)] = hit
        return hit[1], hit[2]


class _RuleLiterals:
    """For one list of rules, which rules each cue literal makes possible: a segment's right and
    left-or-near rules are then the union over the literals it holds (set operations), instead of
    one test per rule and segment. Same answer as Possible.__call__ rule by rule."""

    _by_list: dict[int, tuple[list[Rule], _RuleLiterals]] = {}

    def __init__(self, rules: list[Rule]):
        self.right_always, self.right_by = self._index([(r, r.right_needs) for r in rules if r.right])
        self.left_always, self.left_by = self._index(
            [(r, needs) for r in rules for cues, needs in ((r.left, r.left_needs), (r.near, r.near_needs)) if cues])

    @staticmethod
    def _index(pairs) -> tuple[frozenset[int], dict[str, frozenset[int]]]:
        always: set[int] = set()
        by: dict[str, set[int]] = {}
        for rule, needs in pairs:
            if needs is None:
                always.add(rule.index)
            else:
                for w in needs:
                    by.setdefault(w, set()).add(rule.index)
        return frozenset(always), {w: frozenset(ix) for w, ix in by.items()}

    @classmethod
    def of(cls, rules: list[Rule]) -> _RuleLiterals:
        hit = cls._by_list.get(id(rules))
        if hit is None or hit[0] is not rules:  # (the entry holds the list, so its id stays its own)
            hit = cls._by_list[id(rules)] = (rules, cls(rules))
        return hit[1]

    def possible(self, present: set[str]) -> tuple[frozenset[int], frozenset[int]]:
        right, left = set(self.right_always), set(self.left_always)
        for w in present:
            if w in self.right_by:
                right |= self.right_by[w]
            if w in self.left_by:
                left |= self.left_by[w]
        return frozenset(right), frozenset(left)


def classify(text: str, m: Mention, rules: list[Rule], block: int, next_start: int, value: float,
             exclude: frozenset[str] = frozenset(), possible: Possible | None = None) -> Decision | None:
    """The winning rule for one mention, or None when no rule claims it. `possible`: the segment's
    `Possible` (one is made when not given).

    Cues right after the number are scored for every rule first; a rule's cues before the number
    are searched only when they could still beat the best score so far. A rule's value range and
    vetoes (_allowed) are checked only for a rule about to be scored: most rules have no cue the
    segment holds."""
    possible = possible or Possible(text)
    right_ok, left_ok = possible.of(rules)
    allowed: dict[int, bool] = {}

    def ok(rule: Rule) -> bool:
        hit = allowed.get(rule.index)
        if hit is None:
            hit = allowed[rule.index] = rule.kind not in exclude and (
                rule.unconstrained or _allowed(rule, text, m, value, possible))
        return hit

    best: Decision | None = None

    def better(d: Decision | None) -> None:
        nonlocal best
        if d is not None and (best is None or d.score < best.score
                              or (d.score == best.score and d.rule.index < best.rule.index)):
            best = d

    for rule in rules:
        if (rule.index in right_ok or (rule.qualifiers and m.qualifiers & rule.qualifiers)) and ok(rule):
            better(_right_score(rule, text, m))
    for rule in rules:  # vocab.rules_by_dim is sorted by best_left
        if rule.index not in left_ok:
            continue  # (no left or near cue it has can be in the sentence)
        floor = min(rule.best_left, _TIER_RIGHT - rule.bonus) if rule.near else rule.best_left
        if best is not None and floor > best.score:
            continue
        if ok(rule):
            better(_left_score(rule, text, m, block, next_start))
    if best is None and not m.weak and m.dim != "count":
        for rule in rules:
            if rule.default and ok(rule):
                better(Decision(rule, _TIER_DEFAULT - rule.bonus, "default"))
    return best


def percentile_of(text: str, m: Mention, block: int, v: Vocab) -> str | None:
    """The percentile said beside a time figure: p50, p95, p99, p999 or mean (None: not said)."""
    # the margin against the mean, however the tail was named first: "with 70 ms of slack on the mean we're safe"
    if _ON_THE_MEAN.match(text, m.end):
        return "mean"
    start = max(block, m.start - 70)
    left = text[start:m.start]
    best, best_pos = None, -1
    for label, pats in v.percentiles.items():
        for p in pats:
            for pm in p.finditer(left):
                if start == block and block and not left[:pm.start()].strip():
                    continue  # "2,048 × 45 ms p99 ≈ 92 s": the p99 said right after the figure before is its own
                if ";" in left[pm.end():] and _PER_TOKEN_AFTER.match(left, pm.end()):
                    continue  # "= 60 s at p99 TPOT; a flat 30 s would kill it": the per-token time's, a clause before
                if pm.end() > best_pos:
                    best, best_pos = label, pm.end()
    if best is not None:
        return best
    right = text[m.end:m.end + 24]
    for label, pats in v.percentiles.items():
        for p in pats:
            pm = p.search(right)
            if pm and re.fullmatch(r"[\s,(]*(?:at\s+(?:the\s+)?|at\s+)?", right[:pm.start()], re.I):
                # "2,000 x 30 ms = 60 s at p99 TPOT": the percentile is the per-token time's, the figure their product
                if _PER_TOKEN_AFTER.match(text, m.end + pm.end()) and _PRODUCT_BEFORE.search(text, max(0, m.start - 40),
                                                                                               m.start):
                    return None
                return label
    return None


_PER_TOKEN_AFTER = re.compile(r"\s*(?:tpot|itl|tbt|time\s+per\s+(?:output\s+)?token|per[- ]token|inter[- ]token)\b", re.I)
_PRODUCT_BEFORE = re.compile(r"\d\s*(?:x|×|\*)\s*~?[\d.,]+\s*(?:ms|s|milliseconds?|seconds?)\s*(?:=|≈|is|gives)\s*~?\s*$", re.I)


_ON_THE_MEAN = re.compile(r"\s*(?:ms|milliseconds?|s|seconds?)?\s+of\s+(?:slack|headroom|margin|room)\s+(?:on|over|under|against)\s+"
                          r"(?:the\s+)?(?:mean|average|avg)\b", re.I)


_APPROX_END = guarded(re.compile(r"(?:~|≈|\babout|\baround|\broughly|\bapproximately)\s*$", re.I))


def bound_of(text: str, m: Mention, v: Vocab) -> tuple[str | None, bool]:
    """('upper' | 'lower' | None, approx) from the words right around a figure."""
    left = text[max(0, m.start - 24):m.start]
    right = text[m.end:m.end + 16]
    approx = m.approx or bool(v.bounds["approx"].search(left) or v.bounds["approx_right"].search(right))
    # strip an approximation word so "under about 800 ms" still reads as a ceiling
    core = _APPROX_END.sub("", left)
    bound = None
    for label in ("upper", "lower"):
        if v.bounds[label].search(core) or v.bounds[label + "_right"].search(right):
            bound = label
            break
    return bound, approx
