"""Calculations said aloud: "20,000 x 300 is 600,000", "2e10 / 2e9 = 1 s", "46 GB - 26 GB = 20 GB".

Any chain of figures joined by operators and followed by an explicit result ("=", "is", "gives",
"comes to", "that's") is a calculation the candidate stands behind, whatever the quantities are: a
recommendation fleet's scores a second, a log's replay time, a KV budget. Each is re-done here.

Figures are compared in their base units (bytes, ms, counts, fractions), so a result said in another
unit than the operands ("2,048 x 0.06 = 123 s", "50k x 1 KB = 50 MB/s") differs by a unit factor:
a power of 1000 or 1024, or with a time said, a minute, an hour or a day. A result that no such factor
brings within the tolerance is wrong; a 10x slip is never a unit factor.
"""
from __future__ import annotations

import math
import re

from interviewer.claims.numbers import Mention

# the pieces a calculation's result is said with, shared with claims.attach's chains: what an operand may
# carry before the connector ("... 300 candidates each is 6M"), a pause before the result ("240 over 2,000
# is... 20 percent"), and how near the result is said to be
# ("10,000 x 0.1% per day, yes about 100 a day": a rate's period after its last factor)
OPERAND_TAIL = r"(?:\s+(?:each|apiece|per\s+request|in\s+(?:fp|bf|int)\d+|(?:per|a)\s+(?:day|week|month|hour|year)))?[\s`*]*"
PAUSE = r"(?:\.\.\.|…)?"
APPROX = r"about|roughly|around|approximately|exactly|~|≈|only|just|close\s+to|nearly|almost|basically|(?:a\s+bit|just|slightly)\s+(?:under|over)"
# only an explicit result counts: ":" and "," join lists ("p50 200 ms / p99 800 ms, 50 seqs")
RESULT = re.compile(
    OPERAND_TAIL + r"(?:=|≈|~=|->|→|\bis\b|\bare\b|\bgives?\b|\bcomes\s+to\b|\bmakes\b|\bthat'?s\b|\bwhich\s+is\b|\bequals\b"
    # "2,000 x 50 ms, which is 10 seconds", "40 x 5,120 x 2, so 0.4 MB", "2 x 40 x 40 x 128 x 2 bytes, call it 8e4 bytes"
    r"|,\s*(?:which\s+is|that'?s|that\s+is|so|yes|call\s+it)\b"
    r"|,(?=\s*(?:about|roughly|around|approximately|~))"  # "2,048 times 30 ms, about 61 seconds"
    r"|#)"  # a code comment giving the value: "kv_per_tok = 2 * 32 * 32 * 128 * 2  # 524,288 B"
    + PAUSE + r"\s*(?:" + APPROX + r")?[\s`*]*$", re.I)
# operators as said, normalised by claims.attach (lower case, single spaces)
MUL = frozenset({"x", "×", "*", "·", "⋅", "times", "multiplied by"})  # "2·7.06e10·2e3": a product in symbols
DIV = frozenset({"/", "over", "divided by", "÷"})
ADD = frozenset({"plus", "+"})
SUB = frozenset({"minus", "less", "-"})
_OPS = MUL | DIV | ADD | SUB

_TIME_FACTORS = (60.0, 3600.0, 86400.0)


def evaluate(values: list[float], ops: list[str]) -> float | None:
    """values[0] ops[0] values[1] ... with x and / before + and -."""
    if any(op not in _OPS for op in ops):
        return None
    terms: list[float] = [values[0]]
    signs: list[float] = [1.0]
    for op, val in zip(ops, values[1:]):
        if op in MUL:
            terms[-1] *= val
        elif op in DIV:
            if val == 0:
                return None
            terms[-1] /= val
        else:
            terms.append(val)
            signs.append(1.0 if op in ADD else -1.0)
    return sum(s * t for s, t in zip(signs, terms))


def share_added(ops: list[str], dims: list[str | None]) -> bool:
    """Is the calculation a figure plus (or minus) a share of itself ("30 plus 40% is 36 L4s": 30 x 1.4)? `dims` are the
    operands' dimensions, in order."""
    return len(ops) == 1 and ops[0] in ADD | SUB and len(dims) == 2 and dims[1] == "percent" \
        and dims[0] is not None and dims[0] != "percent"


def divisor_grouped(values: list[float], ops: list[str]) -> float | None:
    """values read with everything after the one division as its divisor ("280 GB over 4 x 3.35 TB/s"
    is 280 GB / (4 x 3.35 TB/s) when said aloud); None where that reading is no different."""
    divs = [k for k, op in enumerate(ops) if op in DIV]
    if len(divs) != 1 or divs[0] == len(ops) - 1 or not all(op in MUL for op in ops[divs[0] + 1:]):
        return None
    d = divs[0]
    head = evaluate(values[:d + 1], ops[:d])
    divisor = math.prod(values[d + 1:])
    return None if head is None or not divisor else head / divisor


def unit_factors(dims: set[str]) -> list[float]:
    """The factors a change of unit can put between a result and its operands' product: powers of
    1000 and 1024, and with a time said, a minute, an hour or a day (ms are the base unit)."""
    base = [1000.0 ** k for k in range(-4, 5)] + [1024.0 ** k for k in range(-4, 5) if k]
    if "time" in dims:
        # a minute, an hour or a day, with or without the ms -> s step; never stacked on GB -> MB
        base += [x ** e for t in _TIME_FACTORS for x in (t, t * 1e3) for e in (1, -1)]
    if "percent" in dims:
        base += [100.0, 0.01]
    return base


def nearest_ratio(said: float, expected: float, dims: set[str]) -> float | None:
    """said / expected, brought nearest to 1 by a change of unit (None when a sign differs); the
    powers of 1000 and 1024 are tried first, so a 10x slip reads as 10, not as a minute."""
    if expected <= 0 or said <= 0:
        return None
    r = said / expected
    plain = min((r * f for f in unit_factors(set())), key=lambda x: abs(math.log(x)))
    if abs(math.log(plain)) <= math.log(1.25):
        return plain
    best = min((r * f for f in unit_factors(dims)), key=lambda x: abs(math.log(x)))
    return best if abs(math.log(best)) <= math.log(1.25) else plain


def consistent(said: float, expected: float, tol: float, dims: set[str]) -> bool:
    """Does `said` equal `expected` up to the tolerance and a change of unit?"""
    if expected == 0 or said == 0:
        return said == expected
    if expected < 0 or said < 0:
        return False
    r = said / expected
    return any(abs(math.log(r * f)) <= math.log(1 + tol) for f in unit_factors(dims))


def result_gap(text: str, last: Mention, result: Mention) -> bool:
    gap = text[last.end:result.start]
    if not gap.strip() and text[result.start:result.start + 1] in "≈~":
        return True  # "50k x 1 KB ≈ 50 MB": the result's own "about" sign joins it
    if gap.strip() == "," and last.dim == "bytes" and result.dim == "bytes":
        return True  # "50 million rows x 64 dims x 2 bytes, 640 MB": a size in bytes after a product ending in bytes
    return short_gap(gap, 28) and bool(RESULT.fullmatch(gap))


def short_gap(gap: str, most: int) -> bool:
    """Is the gap between a calculation's last figure and its result short enough to join them: at most `most`
    characters, or only spaces around its sign ("2 * 32 * 128 * 2          = 524,288 B", code aligned in columns)?"""
    return len(gap) <= most or ("\n" not in gap and len(gap.strip()) <= 2)
