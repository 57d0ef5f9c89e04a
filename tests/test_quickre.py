"""interviewer/quickre: a regex guarded by the characters its matches can start with finds exactly
the same matches (spans and groups) as the plain one, and leaves alone what it cannot prove."""
from __future__ import annotations

import re

import pytest

from interviewer.quickre import guarded
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
