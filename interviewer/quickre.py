"""Faster scans with the same matches: a regex guarded by the characters its matches can start with.

Python's regex engine skips ahead cheaply only when a pattern starts with a literal character or a
plain character class; a case-insensitive pattern, or one that opens with ``\\b`` or a lookbehind,
is tried in full at every position of the text - every branch of an alternation of cue phrases, at
every character. `guarded` prefixes the pattern with a lookahead for the set of characters any of
its matches must start with (read from its parse tree), so most positions fail on one character
test. The matches, groups and spans are unchanged: a match consumes at least one character, and
that first character is in the set.
"""
from __future__ import annotations

import bisect
import re
from re import _constants as _C
from re import _parser

_CATEGORIES = {_C.CATEGORY_DIGIT: r"\d", _C.CATEGORY_SPACE: r"\s"}
_REPEATS = (_C.MAX_REPEAT, _C.MIN_REPEAT, getattr(_C, "POSSESSIVE_REPEAT", None))


class _Open(Exception):
    """The pattern may start with almost anything (or with something this reading does not know)."""


def _first(items) -> tuple[list[str], bool]:
    """The class members a match of the sequence `items` may start with, and whether it may be empty."""
    out: list[str] = []
    for op, av in items:
        if op is _C.LITERAL:
            return out + [re.escape(chr(av))], False
        if op is _C.IN:
            for o, a in av:
                if o is _C.LITERAL:
                    out.append(re.escape(chr(a)))
                elif o is _C.RANGE:
                    out.append(f"{re.escape(chr(a[0]))}-{re.escape(chr(a[1]))}")
                elif o is _C.CATEGORY and a in _CATEGORIES:
                    out.append(_CATEGORIES[a])
                else:
                    raise _Open
            return out, False
        if op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
            continue  # zero-width: the first character consumed comes after
        if op is _C.BRANCH:
            empty = False
            for branch in av[1]:
                got, e = _first(branch)
                out += got
                empty = empty or e
        elif op is _C.SUBPATTERN:
            if av[1] or av[2]:
                raise _Open  # scoped flags: "(?i:...)"
            got, empty = _first(av[-1])
            out += got
        elif op in _REPEATS:
            got, empty = _first(av[2])
            out += got
            empty = empty or av[0] == 0
        elif op is getattr(_C, "ATOMIC_GROUP", None):
            got, empty = _first(av)
            out += got
        else:
            raise _Open
        if not empty:
            return out, False
    return out, True


def guarded(pattern: re.Pattern) -> re.Pattern:
    """`pattern`, or where its matches can start with only some characters, the same pattern behind a
    lookahead for them (same matches, groups and flags)."""
    if pattern.flags & re.VERBOSE:
        return pattern
    try:
        chars, empty = _first(_parser.parse(pattern.pattern, pattern.flags))
    except (_Open, re.error, RecursionError):
        return pattern
    if empty or not chars:
        return pattern  # a match may consume nothing: no character to test
    try:
        return re.compile(f"(?=[{''.join(sorted(set(chars)))}])(?:{pattern.pattern})", pattern.flags)
    except re.error:  # e.g. global inline flags, which must open the pattern
        return pattern


# Non-ASCII characters that re.IGNORECASE matches to an ASCII letter although str.lower() does not
# make them that letter (İ ı ſ K): a text holding one is always scanned in full.
_FOLDS_TO_ASCII = frozenset("\u0130\u0131\u017f\u212a")
_MIN_LITERAL = 3


def _needs(items) -> tuple[str, ...] | None:
    """The literals one of which every match of the sequence `items` contains (None: none known).
    Of the candidates (a run of literal characters, or a group or alternation whose every branch
    needs one) the one whose shortest literal is longest wins: the most selective test."""
    best: tuple[str, ...] | None = None

    def offer(cand: tuple[str, ...] | None) -> None:
        nonlocal best
        if cand and min(map(len, cand)) >= _MIN_LITERAL and (
                best is None or (min(map(len, cand)), -len(cand)) > (min(map(len, best)), -len(best))):
            best = cand

    run: list[str] = []
    for op, av in items:
        if op is _C.LITERAL and av < 128:
            run.append(chr(av).lower())
            continue
        offer(("".join(run),) if run else None)
        run = []
        if op is _C.SUBPATTERN:
            if not (av[1] or av[2]):  # scoped flags ("(?i:...)") change what a literal matches
                offer(_needs(av[-1]))
        elif op is _C.BRANCH:
            alts: set[str] = set()
            for branch in av[1]:
                got = _needs(branch)
                if got is None:
                    alts = set()
                    break
                alts.update(got)
            offer(tuple(sorted(alts)) if alts else None)
        elif op in _REPEATS and op is not None and av[0] >= 1:
            offer(_needs(av[2]))
        elif op is getattr(_C, "ATOMIC_GROUP", None):
            offer(_needs(av))
    offer(("".join(run),) if run else None)
    return best


def needed_literals(pattern: re.Pattern) -> tuple[str, ...] | None:
    """Lower-cased ASCII literals (three characters or more) one of which every match of `pattern`
    contains, or None. A text whose lower-cased form holds none of them cannot match (see
    `may_match`): one substring test instead of a scan."""
    if pattern.flags & re.VERBOSE:
        return None
    try:
        return _needs(_parser.parse(pattern.pattern, pattern.flags))
    except (re.error, RecursionError):
        return None


def folds(text: str) -> bool:
    """Does `text` hold a character that re.IGNORECASE matches to an ASCII letter but lower() does
    not make that letter? A case-insensitive pattern is then never ruled out by its literals."""
    return not text.isascii() and any(ch in text for ch in _FOLDS_TO_ASCII)


def may_match(literals: tuple[str, ...] | None, low: str, folded: bool = False) -> bool:
    """Can a pattern whose `needed_literals` are `literals` match a text whose lower-cased form is
    `low`? `folded`: `folds(text)` of the text as written, for a case-insensitive pattern."""
    if literals is None or folded:
        return True
    for lit in literals:  # (a loop, not any() over a generator: called thousands of times a grade)
        if lit in low:
            return True
    return False


def longest_at_each_place(words) -> tuple[re.Pattern | None, dict[str, tuple[str, ...]]]:
    """One regex that finds, at each place, the longest of `words` starting there (a trie: greedy
    optional tails, captured in group 1; None for no words), and for each word the words that are
    prefixes of it (itself included)."""
    words = sorted(set(words))
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def body(node: dict) -> str:
        alts = [re.escape(ch) + body(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        alt = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{alt})?" if "" in node else alt

    first = "".join(sorted({re.escape(w[0]) for w in words}))
    pattern = re.compile(f"(?=[{first}])(?=({body(trie)}))") if words else None
    return pattern, {w: tuple(x for x in words if w.startswith(x)) for w in words}


class Literals:
    """Which of a fixed set of lower-case literals a text holds, found in one regex pass (a trie tried
    at each place: the longest literal starting there, and the literals that are its prefixes)
    instead of one substring test per literal."""

    def __init__(self, words) -> None:
        self._re, self._prefixes = longest_at_each_place(words)

    def present(self, low: str) -> set[str]:
        """The literals that occur in `low`."""
        out: set[str] = set()
        if self._re is not None:
            for m in self._re.finditer(low):
                out.update(self._prefixes[m.group(1)])
        return out


def _consumes(items) -> bool:
    """Does every match of the sequence `items` consume a character? (False where unsure.)"""
    for op, av in items:
        if op in (_C.LITERAL, _C.NOT_LITERAL, _C.IN, _C.ANY):
            return True
        if op is _C.SUBPATTERN and _consumes(av[-1]):
            return True
        if op in _REPEATS and op is not None and av[0] >= 1 and _consumes(av[2]):
            return True
        if op is _C.BRANCH and all(_consumes(b) for b in av[1]):
            return True
    return False


def starts_after(pattern: re.Pattern) -> str | None:
    """For a pattern that opens on "at the start, or right after one of a few characters"
    ("(?:^|(?<=[.!?\\n]))..."): those characters, as the body of a regex class. Every match then
    starts at 0 or right after one of them, and a scan may try it there alone (it consumes a
    character, so finditer's handling of empty matches never comes into it). None otherwise."""
    try:
        tree = _parser.parse(pattern.pattern, pattern.flags)
    except (re.error, RecursionError):
        return None
    items = list(tree)
    if not items or items[0][0] is not _C.BRANCH or not _consumes(items[1:]):
        return None
    chars: set[str] = {"\n"} if pattern.flags & re.MULTILINE else set()
    start = False
    for branch in items[0][1][1]:
        if len(branch) != 1:
            return None
        op, av = branch[0]
        if op is _C.AT and av in (_C.AT_BEGINNING, _C.AT_BEGINNING_STRING):
            start = True
        elif op is _C.ASSERT and av[0] == -1 and len(av[1]) == 1:
            o, a = av[1][0]
            if o is _C.LITERAL:
                chars.add(chr(a))
            elif o is _C.IN and all(x is _C.LITERAL for x, _ in a):
                chars.update(chr(c) for _, c in a)
            else:
                return None
        else:
            return None
    if not start or not chars or (pattern.flags & re.IGNORECASE and any(c.lower() != c.upper() for c in chars)):
        return None  # (a letter would also match its other case)
    return "".join(re.escape(c) for c in sorted(chars))


def first_class(items) -> re.Pattern | None:
    """The characters a match of the parse-tree sequence `items` may start with, as a one-character
    class, or None where it may start with anything or match nothing."""
    try:
        chars, empty = _first(items)
    except _Open:
        return None
    if empty or not chars:
        return None
    try:
        return re.compile(f"[{''.join(sorted(set(chars)))}]")
    except re.error:
        return None


def group_gate(pattern: re.Pattern, name: str) -> re.Pattern | None:
    """The named group of `pattern` as a pattern of its own, where every match of `pattern` holds a
    match of the group (it sits in the pattern's top-level sequence, not in an alternation, an
    optional part or a lookaround): a text the group's own pattern finds nothing in cannot match
    `pattern`. Lookarounds inside the group read the same text either way. None otherwise."""
    gid = pattern.groupindex.get(name)
    if gid is None or pattern.flags & re.VERBOSE:
        return None
    try:
        tree = _parser.parse(pattern.pattern, pattern.flags)
    except (re.error, RecursionError):
        return None
    if not any(op is _C.SUBPATTERN and av[0] == gid for op, av in tree):
        return None
    opening = f"(?P<{name}>"
    start = pattern.pattern.find(opening)
    if start < 0:
        return None
    i, depth, in_class, src = start + len(opening), 1, False, pattern.pattern
    while i < len(src):
        ch = src[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if src[i + 1:i + 2] == "^":
                i += 1
            if src[i + 1:i + 2] == "]":
                i += 1  # a "]" first in a class is a member
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    body = src[start + len(opening):i]
    if depth or re.search(r"\\\d|\(\?P=|\(\?\(", body):
        return None  # unbalanced, or a back-reference to a group outside it
    try:
        return guarded(re.compile(body, pattern.flags))
    except re.error:
        return None


# ----------------------------------------------------------------------------- sentence-bound scans
#
# A pattern that can never consume a sentence stop followed by a space or newline (". ", "?\n")
# matches only inside the stretches between such cuts; one that also needs a literal (needed_literals)
# matches only inside a stretch that holds the literal. `sentence_reach` proves the first from the
# parse tree; `StretchScan` then runs the pattern over the stretches that hold a literal instead of
# the whole text, with the same matches in the same order.

_STOPS = ".!?"
_CUT_AFTER = " \n"  # a stop followed by one of these is a cut
_CLASS_CATEGORIES = {_C.CATEGORY_DIGIT: r"\d", _C.CATEGORY_NOT_DIGIT: r"\D", _C.CATEGORY_SPACE: r"\s",
                     _C.CATEGORY_NOT_SPACE: r"\S", _C.CATEGORY_WORD: r"\w", _C.CATEGORY_NOT_WORD: r"\W"}
# zero-width tests that read at most one character on either side (none reads the end of the text)
_LOCAL_AT = {_C.AT_BEGINNING, _C.AT_BEGINNING_STRING, _C.AT_BOUNDARY, _C.AT_NON_BOUNDARY}


def _takes(op, av, ch: str) -> bool:
    """May the one-character op (op, av) consume `ch`? (_Open where this reading does not know.)"""
    if op is _C.LITERAL:
        return chr(av) == ch
    if op is _C.NOT_LITERAL:
        return chr(av) != ch
    if op is _C.ANY:
        return True  # (without DOTALL, all but a newline: "may" is enough)
    if op is _C.IN:
        neg, hit = False, False
        for o, a in av:
            if o is _C.NEGATE:
                neg = True
            elif o is _C.LITERAL:
                hit = hit or chr(a) == ch
            elif o is _C.RANGE:
                hit = hit or a[0] <= ord(ch) <= a[1]
            elif o is _C.CATEGORY and a in _CLASS_CATEGORIES:
                hit = hit or re.fullmatch(_CLASS_CATEGORIES[a], ch) is not None
            else:
                raise _Open
        return hit != neg
    raise _Open


class _Ends:
    """What a piece of a pattern may consume, read for one stop: whether it may be empty, start with a
    cut-after character, end on the stop, or hold the stop followed by a cut-after character; and
    how far past a place its lookaheads may read."""

    __slots__ = ("empty", "first", "last", "inner", "reach")

    def __init__(self, empty=True, first=False, last=False, inner=False, reach=0):
        self.empty, self.first, self.last, self.inner, self.reach = empty, first, last, inner, reach

    def then(self, other: _Ends) -> _Ends:
        return _Ends(self.empty and other.empty, self.first or (self.empty and other.first),
                     other.last or (other.empty and self.last),
                     self.inner or other.inner or (self.last and other.first), max(self.reach, other.reach))

    def either(self, other: _Ends) -> _Ends:
        return _Ends(self.empty or other.empty, self.first or other.first, self.last or other.last,
                     self.inner or other.inner, max(self.reach, other.reach))


def _ends(items, stop: str) -> _Ends:
    out = _Ends()
    for op, av in items:
        if op in (_C.LITERAL, _C.NOT_LITERAL, _C.ANY, _C.IN):
            part = _Ends(False, any(_takes(op, av, c) for c in _CUT_AFTER), _takes(op, av, stop))
        elif op is _C.AT:
            if av not in _LOCAL_AT:
                raise _Open  # "$" reads the end of the text, which a stretch would move
            part = _Ends(reach=1)
        elif op in (_C.ASSERT, _C.ASSERT_NOT):
            direction, body = av
            inner = _ends(body, stop)  # read, not consumed: only how far it reads counts
            width = body.getwidth()[1] if direction == 1 else 0
            if width >= _C.MAXREPEAT:
                raise _Open  # a lookahead that may read without bound
            part = _Ends(reach=max(1, width + inner.reach))
        elif op is _C.SUBPATTERN:
            if av[1] or av[2]:
                raise _Open  # scoped flags ("(?i:...)"): a literal there may match what the text lowered does not hold
            part = _ends(av[-1], stop)
        elif op is _C.BRANCH:
            branches = [_ends(b, stop) for b in av[1]]
            part = branches[0]
            for b in branches[1:]:
                part = part.either(b)
        elif op in _REPEATS and op is not None:
            lo, hi, body = av
            one = _ends(body, stop)
            if hi == 0:
                part = _Ends(reach=one.reach)
            else:
                part = _Ends(lo == 0 or one.empty, one.first, one.last,
                             one.inner or (hi >= 2 and one.last and one.first), one.reach)
        elif op is getattr(_C, "ATOMIC_GROUP", None):
            part = _ends(av, stop)
        else:
            raise _Open  # back-references and the like: not read here
        out = out.then(part)
    return out


def sentence_reach(pattern: re.Pattern) -> tuple[str, int] | None:
    """For a pattern no match of which can hold a cut (one of `stops` followed by a space or a
    newline), nor be empty: (stops, reach) - the stops (of ".!?") it cannot cut across, '.' among
    them, and how many characters past any place its lookaheads (and \\b) may read. Its matches then
    each lie between two cuts. None for any other pattern (and for one with scoped flags, or whose
    parts this reading does not know)."""
    if pattern.flags & re.VERBOSE:
        return None
    try:
        tree = _parser.parse(pattern.pattern, pattern.flags)
        if not _consumes(tree):
            return None
        stops, reach = "", 0
        for stop in _STOPS:
            e = _ends(tree, stop)
            reach = max(reach, e.reach)
            if not e.inner:
                stops += stop
    except (_Open, re.error, RecursionError):
        return None
    return (stops, max(reach, 1)) if "." in stops else None


def holding(cuts: list[int], places) -> list[int]:
    """The stretches (k: the one from cuts[k - 1], or 0, to cuts[k], or the end) where one of `places`
    (lists of places, each sorted) is, in order."""
    keep: set[int] = set()
    for at in places:
        last = -1
        for p in at:
            k = bisect.bisect_right(cuts, p)
            if k != last:
                keep.add(k)
                last = k
    return sorted(keep)


def within(pattern: re.Pattern, text: str, cuts: list[int], places, reach: int, pos: int = 0):
    """pattern.finditer(text, pos) for a pattern whose every match lies between two `cuts` (where the
    text's stretches end: sentence_reach) and holds a literal that starts at one of `places` (lists of
    places, each sorted): run over the stretches holding one alone, in order, each read `reach`
    characters past its end (as far as the pattern's lookaheads read), a match found past its end
    left to the stretch that holds it. Every try starts and reads where finditer's would: the same
    matches."""
    n = len(text)
    for k in holding(cuts, places):
        s, e = cuts[k - 1] if k else 0, cuts[k] if k < len(cuts) else n
        if e <= pos:
            continue
        for m in pattern.finditer(text, max(s, pos), min(n, e + reach)):
            if m.start() >= e:
                break
            yield m


def starts_within(starts: list[int], cuts: list[int], places) -> list[int]:
    """Of `starts` (sorted), those in a stretch (ended by `cuts`) that holds one of `places` (lists of
    places, each sorted): where a pattern whose every match starts at one of `starts`, lies between
    two cuts and holds a literal found at `places` may match."""
    out: list[int] = []
    for k in holding(cuts, places):
        lo = bisect.bisect_left(starts, cuts[k - 1]) if k else 0
        hi = bisect.bisect_left(starts, cuts[k]) if k < len(cuts) else len(starts)
        out.extend(starts[lo:hi])
    return out


def cuts_of(text: str, stops: str) -> list[int]:
    """Where `text`'s stretches end: right after each of `stops` followed by a space or a newline."""
    return [m.end() for m in re.finditer(f"[{re.escape(stops)}](?=[ \\n])", text)]


class Sentences:
    """One text read by many patterns, each (where sentence_reach and needed_literals allow) over the
    sentences holding its literals alone: the text's cuts and each literal's places found once. `low`
    is text.lower(); where a letter changes size when lowered, or folds (see `folds`), every pattern
    scans the whole text."""

    def __init__(self, text: str, low: str):
        self.text, self.low = text, low
        self.exact = len(low) == len(text) and not folds(text)
        self._cuts: dict[str, list[int]] = {}
        self._places: dict[str, list[int]] = {}

    def finditer(self, pattern: re.Pattern, reach: tuple[str, int] | None, words: tuple[str, ...] | None,
                 pos: int = 0):
        """pattern.finditer(self.text, pos), for a pattern with that sentence_reach and needed_literals."""
        if reach is None or not words or not self.exact:
            return pattern.finditer(self.text, pos)
        stops, ahead = reach
        cuts = self._cuts.get(stops)
        if cuts is None:
            cuts = self._cuts[stops] = cuts_of(self.text, stops)
        return within(pattern, self.text, cuts, [self._at(w) for w in words], ahead, pos)

    def _at(self, word: str) -> list[int]:
        at = self._places.get(word)
        if at is None:
            at, i = [], self.low.find(word)
            while i >= 0:
                at.append(i)
                i = self.low.find(word, i + 1)
            self._places[word] = at
        return at

    def may_match(self, words: tuple[str, ...] | None) -> bool:
        """may_match(words, low, folds(text)), each literal's places found once."""
        if words is None or not self.exact:
            return may_match(words, self.low, folds(self.text))
        return any(self._at(w) for w in words)

    def search(self, pattern: re.Pattern, reach: tuple[str, int] | None, words: tuple[str, ...] | None) -> bool:
        """Does `pattern` match anywhere in the text?"""
        return next(self.finditer(pattern, reach, words), None) is not None
