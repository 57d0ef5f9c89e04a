"""interviewer/quickre: a regex guarded by the characters its matches can start with finds exactly
the same matches (spans and groups) as the plain one, and leaves alone what it cannot prove."""
from __future__ import annotations

import re

import pytest

from interviewer.quickre import guarded, sentence_reach
from interviewer.rubric import load_rubric

TEXT = ("KV per token = 2 x 80 x 8 x 128 x 2 B = 327,680 bytes; p99 TTFT under 800 ms. We could do FIFO, "
        "or priority, or fair share - it depends. The trade-off I accept: ~20% fewer sequences. "
        "Unlike the KV cache, Redis is a key-value store. Max_num_seqs = 64, token budget 8192.")


@pytest.mark.parametrize("pattern, flags", [
    (r"\bp9\d\b[^.]{0,40}?\d+\s*ms", re.I),
    (r"(?<=[.!?])\s*(?:we|you)\s+could\b", re.I),
    (r"(?:fifo|priority|fair\s+share)", re.I),
    (r"(?P<at>\d+(?:,\d{3})*)\s*bytes", re.I),
    (r"trade[- ]?off\s+i\s+accept\s*:", re.I),
])
def test_a_guarded_pattern_finds_the_same_matches(pattern, flags):
    plain, fast = re.compile(pattern, flags), guarded(re.compile(pattern, flags))
    assert fast.pattern != plain.pattern  # a guard was added
    assert [(m.span(), m.groups(), m.groupdict()) for m in plain.finditer(TEXT)] == \
        [(m.span(), m.groups(), m.groupdict()) for m in fast.finditer(TEXT)]


@pytest.mark.parametrize("pattern", [r"x*", r".{0,3}ms", r"(?i:abc)d", r"[^a]b"])
def test_a_pattern_that_may_start_anywhere_or_match_nothing_is_left_alone(pattern):
    p = re.compile(pattern)
    assert guarded(p) is p


def test_every_rubric_cue_scans_the_same_as_its_plain_pattern():
    rubric = load_rubric()
    pairs = [(pat, item.scans[id(pat)]) for item in rubric.items.values()
             for pat in (*item.patterns, *item.name_patterns) if id(pat) in item.scans]
    assert len(pairs) > 300  # most cues have a guarded scan
    for plain, fast in pairs:
        assert [m.span() for m in fast.finditer(TEXT.lower())] == [m.span() for m in plain.finditer(TEXT.lower())], \
            plain.pattern


@pytest.mark.parametrize("pattern, expected", [
    (r"p99[^.\n]{0,40}?ms", (".", 1)),          # "!" and "?" it may cross, "." not
    (r"i.m\s+fine\b", (".!?", 1)),             # any character, then a letter: never ". "
    (r"~?\d+(?:[.·]\d+)?\s*ms", (".!?", 1)),    # a decimal point is followed by a digit
    (r"budget(?=[^.]{0,30}ms)", (".!?", 32)),  # its lookahead reads up to 32 characters on
    (r"(?:^|[.!?]\s+)now\b", None),            # it crosses a sentence's end
    (r"\W*ok", None),
    (r"ok$", None),                            # the end of the text would move
    (r"ok(?=.*)", None),                       # a lookahead without bound
    (r"(?i:ok)\s", None),                      # scoped flags
    (r"x*", None),                             # may match nothing
])
def test_sentence_reach_reads_what_a_match_may_cross(pattern, expected):
    assert sentence_reach(re.compile(pattern)) == expected


def test_a_scan_within_the_sentences_holding_a_literal_finds_every_match():
    from interviewer.quickre import cuts_of, needed_literals, within

    text = (TEXT.lower() + "\nthe p99 is 5 ms! then p99 at 40 ms? ok. p99 target 800 ms.\n" * 3)
    rubric = load_rubric()
    checked = 0
    for item in rubric.items.values():
        for pat in (*item.patterns, *item.name_patterns):
            needs = needed_literals(pat) if not pat.flags & re.I else None
            reach = sentence_reach(pat)
            if not needs or reach is None:
                continue
            stops, ahead = reach
            cuts = cuts_of(text, stops)
            places = [[m.start() for m in re.finditer(f"(?={re.escape(w)})", text)] for w in needs]
            assert [m.span() for m in within(pat, text, cuts, places, ahead)] == \
                [m.span() for m in pat.finditer(text)], pat.pattern
            checked += 1
    assert checked > 50


def test_sentences_read_a_text_as_the_whole_scan_does():
    from interviewer.quickre import Sentences, needed_literals

    text = ("It depends on the tenant. Each has its trade-offs!\nWe could pick per region? "
            "Honestly, it depends. Or FIFO; whichever fits.")
    for pattern in (r"\bit\s+depends\b", r"\bwhichever\s+fits\b", r"trade-offs[^.\n]{0,20}", r"\bper\s+region\b"):
        pat = re.compile(pattern, re.I)
        reach = sentence_reach(pat)
        assert reach is not None
        for t in (text, text.upper(), text.replace("It", "\u0130t")):  # "İ" grows when lowered: a whole scan
            for pos in (0, 5, 30, 60, len(t)):
                found = Sentences(t, t.lower()).finditer(pat, reach, needed_literals(pat), pos)
                assert [m.span() for m in found] == [m.span() for m in pat.finditer(t, pos)]


def test_starts_within_keeps_the_starts_of_the_stretches_holding_a_literal():
    from interviewer.quickre import cuts_of, starts_within

    text = "a b. c d. e f. g"
    cuts = cuts_of(text, ".")
    assert cuts == [4, 9, 14]
    assert starts_within([0, 2, 5, 7, 10, 12, 15], cuts, [[7], [15, 15]]) == [5, 7, 15]
