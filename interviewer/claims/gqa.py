"""How much the KV cache shrinks under grouped-query attention, as the candidate says it.

Asked "the model switches to 8 KV heads for 32 query heads: what changes?", candidates answer with a
factor ("it's 4x smaller", "the cache halves", "8 GiB becomes 2 GiB", "2 GiB instead of 8"). Only the
KV heads are stored, so the cache shrinks by query heads / KV heads: the factor is one claim
(`kv_shrink_factor`), checked in physics against the heads the interviewer set.
"""
from __future__ import annotations

import re

_WORDS = {"two": 2.0, "three": 3.0, "four": 4.0, "eight": 8.0, "sixteen": 16.0, "half": 2.0}
_N = r"(?:\d+(?:\.\d+)?|two|three|four|eight|sixteen)"
_SIZE = r"(?P<{0}>\d[\d,]*(?:\.\d+)?)\s*(?P<{0}u>[kmgt]i?b|gigs?|gigabytes?|megabytes?)?"
_TO = r"(?:becomes|goes\s+(?:down\s+)?to|drops\s+to|shrinks\s+to|falls\s+to|->|→)"
_SHRINKS = r"(?:drops?|shrinks?|falls?|goes\s+down|is\s+cut|cut|reduced?|reduces?|smaller|decreases?|comes\s+down)"
_SAID = [
    # "from 8 GiB to 2 GiB", "goes from 8 GB to 4 GB"
    ("pair", re.compile(r"\bfrom\s+(?:about\s+|~)?" + _SIZE.format("a") + r"\s+(?:down\s+)?to\s+(?:about\s+|roughly\s+|~)?"
                        + _SIZE.format("b"), re.I)),
    # "the 8 GiB becomes 1 GiB", "8 GB -> 2 GB" (not a divisor: "memory ÷ 4 → 2 GiB")
    ("pair", re.compile(r"(?<![\w.,])(?<![÷/×*]\s)(?<![÷/×*])" + _SIZE.format("a") + r"\s+" + _TO + r"\s+(?:about\s+|roughly\s+|~)?"
                        + _SIZE.format("b"), re.I)),
    # "2 GiB instead of 8 GiB", "4 GB instead of 8"
    ("pair", re.compile(r"(?<![\w.,])" + _SIZE.format("b") + r"\s+instead\s+of\s+(?:the\s+)?(?:about\s+|~)?"
                        + _SIZE.format("a"), re.I)),
    # "8x smaller", "four times smaller", "drops by 8x", "shrinks by a factor of 4", "a 4x reduction"
    ("factor", re.compile(r"(?<![\w.,])(?P<n>" + _N + r")\s*(?:x|×|-?fold|\s+times)\s+(?:smaller|less|fewer\s+bytes|reduction)\b"
                          r"|\b" + _SHRINKS + r"\s+by\s+(?:(?:a\s+)?factor\s+of\s+)?(?P<m>" + _N
                          # ... worked out: "shrinks by 32 / 8 = 4"
                          + r")(?:\s*/\s*\d+\s*=\s*(?P<q>\d+(?:\.\d+)?))?\s*(?:x|×|-?fold|\s+times)?(?!\w|[.,]\d)"
                          r"|\b" + _SHRINKS + r"\s+(?P<p>\d+(?:\.\d+)?)\s*(?:x|×)(?!\w|[.,]\d)"   # "shrinks 4x"
                          r"|\ba\s+factor\s+of\s+(?P<f>" + _N + r")(?!\w|[.,]\d)"
                          r"|\ba\s+(?P<k>\d+(?:\.\d+)?)\s*(?:x|×)\s+(?:reduction|cut|saving)\b"
                          # the size divided: "memory ÷ 4 → 2 GiB for the same 8 × 2,048"
                          r"|\b(?:memory|cache|size|footprint|bytes)\s*(?:÷|/|divided\s+by)\s*(?P<d>" + _N + r")(?!\w|[.,]\d)",
                          re.I)),
    # "the cache halves", "half the size", "cut in half", "a quarter of the size"
    ("words", re.compile(r"\b(?P<half>halv(?:es|ed|ing)|half\s+the\s+size|cut\s+in\s+half)\b"
                         r"|\b(?P<quarter>a\s+quarter\s+(?:of\s+)?the\s+size|quarters?\s+it)\b", re.I)),
]
_SCALE = {"k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}


def _bytes(num: str, unit: str | None) -> float:
    u = (unit or "").lower()
    return float(num.replace(",", "")) * (_SCALE.get(u[:1], 1.0) if u else 1.0)


def _number(s: str) -> float:
    return _WORDS.get(s.lower()) or float(s)


def shrink_factors(text: str) -> list[tuple[int, int, float]]:
    """Every shrink factor said in `text`: (start, end, factor), in order, overlaps dropped."""
    found: list[tuple[int, int, float]] = []
    for how, pattern in _SAID:
        for m in pattern.finditer(text):
            g = m.groupdict()
            if how == "pair":
                if not (g["au"] or g["bu"]):
                    continue  # bare numbers: not sizes
                a, b = _bytes(g["a"], g["au"] or g["bu"]), _bytes(g["b"], g["bu"] or g["au"])
                value = a / b if b else 0.0  # (a growth, "from 2 GiB to 8 GiB", is no shrink: dropped below)
            elif how == "factor":
                value = _number(g["q"] or g["n"] or g["m"] or g["p"] or g["f"] or g["k"] or g["d"])
            else:
                value = 2.0 if g["half"] else 4.0
            if value <= 1.0 or any(s < m.end() and m.start() < e for s, e, _v in found):
                continue
            found.append((m.start(), m.end(), value))
    return sorted(found)


# the question that sets it up: "grouped-query attention", "8 KV heads for 32 query heads", "GQA"
_ASKS = re.compile(r"\bgrouped[- ]query\b|\bgqa\b|\bkv\s+heads\b|\bkey[- ]value\s+heads\b", re.I)
# the answer's sentences about the cache's size (not the attention call's repeat_interleave by 4)
_ABOUT_SIZE = re.compile(r"\b(?:cache|kv|memory|gib|gb|bytes?|footprint|size)\b", re.I)
_NOT_SIZE = re.compile(r"\b(?:repeat(?:_interleave)?|interleave|expand|broadcast|reshape|serves?\s+(?:a\s+group\s+of\s+)?\d|"
                       r"group\s+of\s+\d|query\s+heads?\s+(?:per|each))\b", re.I)


def asks_about_gqa(question: str) -> bool:
    return _ASKS.search(question) is not None


# a lower precision's saving said in the same answer: "store the cache in FP8 ..., which halves it again"
_PRECISION = re.compile(r"\b(?:fp8|int8|int4|fp4|8-bit|4-bit|quanti[sz]\w*|dtype)\b|\bagain\b", re.I)


def about_size(sentence: str, start: int, end: int) -> bool:
    """Is the factor at [start, end) of `sentence` the heads' saving in the cache's size: not the attention
    call ("repeat K and V by 4"), nor a lower precision's ("FP8 ..., which halves it again")?"""
    near = sentence[max(0, start - 60):min(len(sentence), end + 40)]
    return _ABOUT_SIZE.search(near) is not None and _NOT_SIZE.search(sentence, max(0, start - 30), end) is None \
        and _PRECISION.search(sentence, max(0, start - 80), min(len(sentence), end + 20)) is None
