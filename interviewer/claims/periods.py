"""A count per period said again per another period ("200 GPUs a month, which is about 20 a day").

Failure and repair rates are said per month or year and worked per day; the restatement is a division
the candidate did in their head, and a slip there (20 a day for 200 a month) carries into everything
built on it. Each restatement is one claim (`period_rate`), checked against the rate it restates.
"""
from __future__ import annotations

import re

from interviewer.claims.numbers import spelled_digits

DAYS = {"hour": 1 / 24, "day": 1.0, "week": 7.0, "month": 365 / 12, "year": 365.0}
_ALIASES = {"hr": "hour", "wk": "week", "mo": "month", "yr": "year", "annum": "year", "daily": "day",
            "weekly": "week", "monthly": "month", "yearly": "year", "annually": "year", "hourly": "hour"}

# (or in scientific notation: "3e3 a year")
_NUMBER = r"(?P<{0}>\d{{1,3}}(?:[, ]\d{{3}})+(?!\d)|\d+(?:\.\d+)?(?:[eE]\d+)?)"
# a count, not a size or a share: "200 GPUs", "20", "~6 nodes", "200 incidents" (not "2%", "50 MB")
_THINGS = r"(?:\s+(?!(?:a|an|per|every|each)\b)[a-z][\w-]*){0,3}?"
_PERIODS = "hour|hr|day|week|wk|month|mo|year|yr|annum"
_PERIOD = r"\s*(?:a|an|per|each|every|/)\s*(?P<{0}>" + _PERIODS + r")s?\b"


def _rate(n: str, p: str) -> str:
    return _NUMBER.format(n) + _THINGS + _PERIOD.format(p)


# what says the second is the first again: "which is about", "that's", "so", "i.e.", "or", "->", "≈"
_AGAIN = (r"(?:\s*,\s*|\s+)(?:(?:which|that)(?:\s+is|.s)|i\.e\.|\bor\b|\bso\b|call\s+it|→|->|≈|=|~|about|roughly|around)"
          r"(?:\s+(?:about|roughly|around|approximately|like|maybe|only|just|some))*\s*~?\s*")
# (the fleet it is drawn from may sit between: "150 GPUs a month on 10,000, which is about 50 a day")
# ... and the restatement may open the next sentence: "Call it 3 a day for our 1e4. That's 3e3 a year"
_GAP = (r"(?:[^.;:\d]|\b(?:on|of|across|from|for|out\s+of)\s+(?:our\s+|the\s+)?~?\d(?:[\d, ]*\d)?(?:[eE]\d+|[kK])?\b){0,50}?"
        r"(?:\.(?=\s+(?:that|which|this)(?:\s+is|.s)\b))?")
_PAIR = re.compile(_rate("a", "pa") + _GAP + _AGAIN + _rate("b", "pb"), re.I)
_MONEY = re.compile(r"[$€£¥]\s*~?$")
_MONEY_AFTER = re.compile(r"\s*(?:[kmb]\b|million|billion|thousand)?\s*(?:dollars|usd|euros?|eur|pounds|gbp|bucks|grand)\b", re.I)
# the second rate set against the first, not the first again: "we flag about ten a day, so a hundred in an hour already
# says something common broke"
# ... nor a part of it: "~900/yr ≈ 17/wk ≈ 2.5/day\n- so ~650/yr are soft (reset, reseat, firmware)"
_COMPARED_AFTER = re.compile(r"\s+(?:(?:are|were)\s+(?:soft|hard|transient|permanent|real|genuine|false|recoverable|fatal|serious|"
                             r"minor)\b|already|would\s+(?:already\s+)?(?:be|mean|say|signal)|is\s+(?:already\s+)?(?:a\s+lot|too\s+many|"
                             r"abnormal|an?\s+(?:anomaly|outlier|alarm|incident)))\b", re.I)
_NOT_COUNT = re.compile(r"\s*(?:million|billion|thousand|%|percent|[kmgt]i?b\b|gigs?\b|ms\b|s\b|seconds?\b|minutes?\b|hours?\b|days?\b|x\b|×)", re.I)


def _chained(pattern: re.Pattern, text: str):
    """Each match of a pair, the next one searched from the restated rate on: "1,800 per year, i.e. 150 a month, so about
    15 a day" restates twice, the second time from the first restatement."""
    pos = 0
    while (m := pattern.search(text, pos)) is not None:
        yield m
        pos = max(m.start("b"), m.start() + 1)


def _value(s: str) -> float:
    return float(s.replace(",", "").replace(" ", ""))


def _periods(m: re.Match) -> tuple[str, str]:
    """The two periods a pair names ("pa", "pb"), each by its one name ("wk" -> "week")."""
    return tuple(_ALIASES.get(m.group(g).lower(), m.group(g).lower()) for g in ("pa", "pb"))


def restated_rates(text: str) -> list[tuple[int, int, float, str, str]]:
    """Every rate said again per another period: (start, end of the restated figure, its value, the rate
    as first said, the period it is restated in); `expected` gives what it should be."""
    out = []
    if len(_PERIOD_WORD.findall(text)) < 2:
        return out  # a restatement names two periods: most answers name none
    text = _digits_in_place(text)
    for m in _chained(_PAIR, text):
        pa, pb = _periods(m)
        if pa == pb or _NOT_COUNT.match(text, m.end("a")) or _NOT_COUNT.match(text, m.end("b")) \
                or _COMPARED_AFTER.match(text, m.end()):
            continue
        if any(_MONEY.search(text, max(0, m.start(g) - 2), m.start(g)) or _MONEY_AFTER.match(text, m.end(g)) for g in ("a", "b")):
            continue  # money per period ("$3 an hour that's $4,320 a day" for 60 GPUs): a cost, often of many
        a, b = _value(m.group("a")), _value(m.group("b"))
        if not a or not b:
            continue
        out.append((m.start("b"), m.end(), b, text[m.start("a"):m.end("pa")], pb))
    for m in _chained(_SIZE_PAIR, text):
        # a size per period said again per another: "50 MB/s -> 180 GB an hour -> ~430 GB a day" (the log's growth)
        pa, pb = _periods(m)
        a, b = _value(m.group("a")), _value(m.group("b"))
        if pa == pb or not a or not b:
            continue
        # (the second in the first's unit: "180 GB an hour, i.e. ~4.3 TB a day" is 4,300 GB a day)
        b *= _SIZE[_size_unit(m.group("ub"))] / _SIZE[_size_unit(m.group("ua"))]
        out.append((m.start("b"), m.end(), b, text[m.start("a"):m.end("pa")], pb))
    for m in _SHARE_PAIR.finditer(text):
        # a share of the fleet per period, then that fleet's count: "0.1% of GPUs per day. On 10,000 GPUs that's
        # about 100 a day"
        pa, pb = _periods(m)
        if _NOT_COUNT.match(text, m.end("b")) or not _value(m.group("b")):
            continue
        first = f"{m.group('a')}% of {m.group('n')} {m.group('unit')} a {pa}"
        out.append((m.start("b"), m.end(), _value(m.group("b")), first, pb))
    for m in _SCALED_PAIR.finditer(text):
        # a rate on one fleet said again for another: "~3.7 a day on 16K. On our 10K that's ~6 a day"
        pa, pb = _periods(m)
        n1, n2 = (_value(m.group(g)) * (1000 if m.group("k" + g[1]) else 1) for g in ("n1", "n2"))
        if _NOT_COUNT.match(text, m.end("b")) or not (_value(m.group("b")) and n1 and n2) or n1 == n2:
            continue
        first = f"{m.group('a')} a {pa} on {n1:,.0f}, scaled to {n2:,.0f}"
        out.append((m.start("b"), m.end(), _value(m.group("b")), first, pb))
    return out


_SIZE = {"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "pb": 1e15, "kib": 2.0**10, "mib": 2.0**20, "gib": 2.0**30, "tib": 2.0**40}
_SIZE_UNITS = (r"(?:[kmgtp]i?b|kilobytes?|megabytes?|gigabytes?|terabytes?|petabytes?|gigs?|megs?|teras?)")
_SIZED = r"\s*(?P<u{1}>" + _SIZE_UNITS + r")\b(?:\s+of\s+(?:log|wal|data|writes))?"
_SIZE_PAIR = re.compile(_NUMBER.format("a") + _SIZED.format("a", "a") + _PERIOD.format("pa") + _GAP + _AGAIN
                        + _NUMBER.format("b") + _SIZED.format("b", "b") + _PERIOD.format("pb"), re.I)


def _size_unit(said: str) -> str:
    """A size unit as said ("GB", "gigs", "terabytes") by its key in _SIZE."""
    s = said.lower()
    if s in _SIZE:
        return s
    return {"k": "kb", "m": "mb", "g": "gb", "t": "tb", "p": "pb"}[s[0]]


_FLEET = r"gpus|cards|nodes|hosts|accelerators|machines|servers"
_ON_FLEET = (r"\b(?:on|across|for|over|with|at)\s+(?:the\s+|our\s+|a\s+)?~?(?P<{0}>\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?)"
             r"(?P<k{1}>[kK]\b)?(?:\s+(?:" + _FLEET + r"|h100s?|a100s?|h200s?))?")
_SCALED_PAIR = re.compile(_rate("a", "pa") + r"\s+" + _ON_FLEET.format("n1", "1") + r"[^;:\d]{0,30}?"
                          + _ON_FLEET.format("n2", "2") + _AGAIN + _rate("b", "pb"), re.I)
_SCALED_FIRST = re.compile(r"(?P<a>\d+(?:\.\d+)?) a (?P<pa>\w+) on (?P<n1>[\d,]+), scaled to (?P<n2>[\d,]+)")
_SHARE = (r"(?P<a>\d+(?:\.\d+)?)\s*(?:%|percent)(?:\s+of\s+(?:the\s+|our\s+)?(?:" + _FLEET + r"|fleet))?"
          + _PERIOD.format("pa"))
_SHARE_PAIR = re.compile(_SHARE + r"(?:[^;:\d]){0,40}?\b(?:on|across|for|with|of|over)\s+(?:the\s+|our\s+|a\s+)?~?"
                         r"(?P<n>\d{1,3}(?:,\d{3})+|\d+)\s+(?P<unit>" + _FLEET + r")\b" + _AGAIN + _rate("b", "pb"), re.I)
_SHARE_FIRST = re.compile(r"(?P<a>\d+(?:\.\d+)?)% of (?P<n>[\d,]+) \w+ a (?P<pa>\w+)")


_PERIOD_WORD = re.compile(r"\b(?:" + _PERIODS + r")s?\b", re.I)


def _digits_in_place(text: str) -> str:
    """`text` with its numbers in words written in digits, padded to the same length so offsets hold ("200 per month,
    that is around twenty per day" -> "... around 20     per day")."""
    if not any(c.isalpha() for c in text):
        return text
    out = text
    for s, e, digits in reversed(spelled_digits(text)):
        if len(digits) <= e - s:
            out = out[:s] + digits.ljust(e - s) + out[e:]
    return out


_FIRST = re.compile(_rate("a", "pa"), re.I)


def expected(first: str, period: str) -> float | None:
    """What `first` ("200 GPUs a month") comes to per `period` ("day")."""
    scaled = _SCALED_FIRST.fullmatch(first)
    if scaled is not None and period in DAYS and scaled.group("pa") in DAYS:
        return (_value(scaled.group("a")) * _value(scaled.group("n2")) / _value(scaled.group("n1"))
                * DAYS[period] / DAYS[scaled.group("pa")])
    share = _SHARE_FIRST.fullmatch(first)
    if share is not None and period in DAYS and share.group("pa") in DAYS:
        return _value(share.group("a")) / 100 * _value(share.group("n")) * DAYS[period] / DAYS[share.group("pa")]
    m = _FIRST.search(first)
    if m is None or period not in DAYS:
        return None
    pa = _ALIASES.get(m.group("pa").lower(), m.group("pa").lower())
    return _value(m.group("a")) * DAYS[period] / DAYS[pa]
