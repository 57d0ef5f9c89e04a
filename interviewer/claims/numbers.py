"""Numbers as said, with their units: "16G", "128K byte", "~56 GiB", "fifty thousand puts a second",
"80-100 sequences", "half a MB", "4k context", "TP4".

`find_mentions(text)` returns every number in a (masked) segment with its dimension (bytes, time,
tokens, sequences, a rate, ...), its value normalised to the dimension's base unit (bytes, ms,
tokens, counts, fractions for percentages) and the span it covers, number and unit together.
Spelled-out numbers are read with text2num. Units and nouns come from units.yaml.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace

from text_to_num import text2num

from interviewer.claims.vocab import Vocab, load
from interviewer.quickre import folds, guarded, may_match

_DIGITS = guarded(re.compile(
    # (not after a slash - "tokens/s", "1/2" - except a decimal divisor: "20/1.5 ≈ 1.3 s" divides)
    r"(?<![\w.,§¶$£€:])(?:(?<!/)|(?<=\d/)(?=\d+\.\d))(?P<approx>[~≈]\s*)?(?P<n>"
    r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?![\d,.]?\d)"   # "2 048", "50 000": thousands set apart by spaces
    r"|[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?"               # "1,024"
    r"|(?P<dc>0,\d+|\d+,\d{1,2})(?!\d|,\d)"              # "0,035", "72,5": a decimal comma
    # "50.000", "409.600 Byte", "2.250 Token": a dot between thousands (three digits ending in 0 - a
    # decimal said to three places with a trailing zero is rare; "1.125" stays a decimal)
    r"|(?P<dt>[1-9]\d{0,2}(?:\.\d{3})*\.\d{2}0)(?![\d.,]?\d)"
    r"|\d+(?:\.\d+)?|\.\d+)(?![\d,]\d)"
))
_SCI = re.compile(r"e[-+]?\d+", re.I)
_TIMES_TEN = re.compile(r"\s*[x×*·]\s*10\s*(?:\^|\*\*)\s*([-+]?\d{1,2})(?![\d.,])")
_TP = guarded(re.compile(r"(?<![\w])tp\s*[-=:]?\s*(\d{1,2})(?!\d)|(\d{1,2})-way\s+(?:tensor|tp)\b", re.I))
# every _TP match holds one of these (too short for quickre.needed_literals): most segments say neither,
# and a substring test spares them the scan
_TP_NEEDS = ("-way", "tp")
_RANGE_JOIN = re.compile(r"\s*(?:-|–|—|to|or|through)\s*(?=[~≈\d]|[a-z])", re.I)
# (only before a unit: "a few hundred requests" is no figure to check, "a few hundred MB/s" is a drive's speed)
# (... or "a couple of thousand GPUs", a fleet said back loosely: two thousand, not a vague few)
_FEW_HUNDRED = re.compile(r"\b(a\s+few|a\s+couple(?:\s+of)?|several)\s+(hundred|thousand)\b"
                          r"(?=\s*(?:[kmgt]i?b\b|[kmgt]b/s|megabytes?|gigabytes?|ms\b|milliseconds?|microseconds?|us\b|µs))"
                          r"|\b(a\s+couple(?:\s+of)?)\s+(hundred|thousand)\s+(?=(?:[ahlb]\d+\w*\s+)?(?:gpus?|hosts?|nodes?|machines?)\b"
                          # ... or a guess at what fits: "I'd guess a couple hundred sequences per GPU"
                          r"|(?:concurrent\s+|active\s+)?(?:sequences|requests|users)\s+(?:per|a|on\s+(?:each|one|an?|the))\s+(?:gpu|card)\b)",
                          re.I)
# ... and "a few" straight before a size: "the KV for 6,000 tokens is only a few megabytes" is about three
FEW_SIZE = re.compile(r"\b(a\s+few|a\s+couple(?:\s+of)?)(?=\s+(?:[kmgt]i?b\b|kilobytes?\b|megabytes?\b|gigabytes?\b|megs?\b|gigs?\b))", re.I)
# a capital multiplier set apart before a counted noun: "1.5 M scores per second", "250 K candidates" (or ending the
# text, as a calculation's operand is re-read: "20 M")
_SPACED_MULT = re.compile(r" ([MK])(?= [a-z]|$)")
_SPELLED_MULT = re.compile(r"[\s-]*(thousand|million|billion|trillion)(?![a-z])", re.I)
_SPELLED_FACTORS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_GPU_AFTER = re.compile(r"\s*(?:x\s*)?(?:\d+\s*(?:gb|gib|g)\s+)?(?:nvidia\s+)?§+(?:\s*(?:gpus?|cards?|devices?))?", re.I)
_MULTIPLIER = re.compile(r"(?:x|×)(?=\s+[a-z(]|\s*$|[,.;)])|\s+times\s+(?=(?:faster|slower|more|fewer|less|higher|lower|larger|smaller|the|bigger|cheaper|over)\b)", re.I)
_GAP = re.compile(r"[\s-]*")
_HEAD_DIM = re.compile(r"[\s_-]*dim", re.I)
_MACHINE_ADJ = re.compile(r"(?:whole|full|empty|spare|idle|reserved|dedicated|healthy|physical)\s+", re.I)
_PRONOUN_BEFORE = guarded(re.compile(r"\b(?:this|that|the|which|each|every|any|no|another|only|next|last|first|a|new|old|right|wrong|big|small|same)\s+$", re.I))
_PRONOUN_LONGEST = 7  # "another"


def _pronoun_before(text: str, end: int) -> re.Match | None:
    """_PRONOUN_BEFORE.search(text, 0, end), tried only where a match can start: its word (seven
    letters at most) then the whitespace run that ends at `end` (whitespace as str.isspace reads it)."""
    head = text[:end]
    return _PRONOUN_BEFORE.search(text, max(0, end - (len(head) - len(head.rstrip())) - _PRONOUN_LONGEST), end)


_PRONOUN_AFTER = re.compile(r"\s+(?:of|another|by|at\s+a\s+time|way|thing|reason|side|hand)\b|[-]", re.I)
_OPERAND_NEXT = re.compile(r"\s*(?:[~\d(]|(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|half|eleven|twelve|"
                           r"\w+teen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)\b)", re.I)
# cheap substrings that every number word or fraction contains one of
_WORD_HINTS = ("one", "two", "thr", "four", "five", "six", "seven", "eight", "nine", "ten", "elev", "twel", "teen",
               "twenty", "thirty", "forty", "fifty", "sixty", "ninety", "hundred", "thousand", "million",
               "billion", "zero", "half", "quarter", "tenth", "couple", "dozen", "single")
# (one scan for any of them: a regex alternation, not a substring test per hint)
_WORD_HINT = re.compile("|".join(_WORD_HINTS))
_SCALE_WORDS = {"hundred", "thousand", "million", "billion", "trillion"}
# billions said per a period are a count, not a model's parameters: "1.3B an hour"
_PER_PERIOD_AFTER = re.compile(r"\s*(?:tokens?\s+|requests?\s+|writes?\s+)?(?:a|an|per|each|every|/)\s*"
                               r"(?:hour|hr|day|second|sec|s\b|minute|min|month|week|year)\b", re.I)
# "thirteen and a half", "six and three-quarter seconds": a whole number and a fraction said after it
_AND_A_HALF = re.compile(r"\s+and\s+(a\s+half|one[- ]half|a\s+quarter|one[- ]quarter|three[- ]quarters?)\b", re.I)


def _and_part(m: re.Match) -> float:
    """The fraction an _AND_A_HALF match adds."""
    said = m.group(1).lower()
    return 0.5 if "half" in said else 0.75 if said.startswith("three") else 0.25


# a bare B that is bytes: per parameter, per token or element ("2B/param", "4B per value")
_BYTES_PER_ELEMENT = re.compile(r"\s*(?:/|per\s+|a\s+)(?:param|parameter|weight|value|element|elem|token|tok)\b", re.I)
# ... or given to the symbol for bytes: "b = 2B", "bytes = 2B"
_BYTES_SYMBOL = re.compile(r"(?:\bb|\bbytes?(?:_per_\w+)?)\s*=\s*~?$", re.I)
_BYTES_NOT_BILLIONS = re.compile(r"\s*(?:=|≈)\s*~?\d[\d.,]*\s*(?:[kmgt]i?b|bytes)\b", re.I)
# a round figure said loosely: "fifty-odd", "50-odd", "fiftyish", "120-ish"
_ODD = re.compile(r"-?(?:odd|ish)\b", re.I)
# a share written as a fraction of what follows: "1/4 of 250 ≈ 62 hosts", "8/32 of 512 KiB" (not a split: "60/40 of 2,000")
# (or alone, as a calculation's operand is re-read: "1/4")
_SLASH_SHARE = re.compile(r"/([1-9]\d?)(?=\s+of\b|\s*$)")
_AND_BEFORE = re.compile(r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|teen|ty|hundred|thousand|\d)"
                         r"\s+and\s+$", re.I)
_DIGIT_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                "seven": "7", "eight": "8", "nine": "9"}
_TENS_AND_UNITS = (r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-]+(?:one|two|three|four|five|"
                   r"six|seven|eight|nine))?|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                   r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)")
_POINT = guarded(re.compile(r"(?<![\w-])((?:(?:one|two|three|four|five|six|seven|eight|nine)\s+hundred(?:\s+and)?\s+)?"
                            + _TENS_AND_UNITS + r")[\s-]+point[\s-]+((?:(?:zero|one|two|three|four|five|six|seven|eight|nine)[\s-]*)+?)"
                            r"(?:\s+(thousand|million|billion|trillion))?(?![\w-])", re.I))
_WEAK_WORDS = {"one", "a single", "single", "a couple", "a couple of"}

# dimension of a noun counted per second
_RATE_DIM = {"tokens": "rate_tokens", "sequences": "rate_sequences", "writes": "rate_writes",
             "fsyncs": "rate_fsyncs", "items": "rate_items", "count": "rate_count", "bytes": "bytes_rate"}


@dataclass
class Mention:
    start: int
    end: int
    value: float
    dim: str
    low: float | None = None
    high: float | None = None
    unit: str = ""            # the unit or noun as said
    raw: float = 0.0          # the number as said, before the unit's factor
    approx: bool = False
    weak: bool = False        # "one", "a single": a claim only with an explicit cue
    spelled: bool = False
    k_suffix: bool = False    # "4k": binary thousands when it turns out to count tokens
    qualifiers: set[str] = field(default_factory=set)

    @property
    def is_range(self) -> bool:
        return self.low is not None and self.high is not None and self.low != self.high


@dataclass
class _Atom:
    start: int
    end: int
    value: float
    approx: bool = False
    weak: bool = False
    spelled: bool = False
    fraction: bool = False


A_UNIT = guarded(re.compile(r"\b(?:about|around|roughly|approximately|under|below|within|only|just|than|to|takes?|took|costs?|is|was)\s+"
                            r"(an?)\s+(?=(?:microsecond|millisecond|second|minute|hour)s?\b)", re.I))
# every match of A_UNIT looks ahead to one of these, and holds the second pattern (its "a" or "an" between
# spaces, the unit after): a lower-cased text without either holds no "a <unit>"
_TIME_UNITS = ("second", "minute", "hour")
_A_TIME_UNIT = re.compile(r"(?<=\s)an?\s+(?:micro|milli)?(?:second|minute|hour)")
_POW = re.compile(r"\s*(?:\^|\*\*)\s*(\d{1,2})(?![\d.,])")  # a power of two or ten: "2^19", "2**17"


_SEPARATORS = re.compile(r"[,\s]")  # between a number's thousands
_SPACES = re.compile(r"\s+")
_PARAMS_WORD = re.compile(r"[\s-]*(?:param(?:eter)?s?|parameter)(?![a-z])", re.I)
_RANGE_GAP = re.compile(r"\s*(?:-|–|—|to|or|through)\s*", re.I)


def _atoms(text: str, v: Vocab, skip: list[tuple[int, int]], digits: bool = True) -> list[_Atom]:
    """The numbers in `text`: spelled ones first, then (with `digits`) the ones in digits, where no
    spelled one already is."""
    atoms: list[_Atom] = []

    def free(s: int, e: int) -> bool:
        for a, b in skip:
            if s < b and a < e:
                return False
        for x in atoms:
            if s < x.end and x.start < e:
                return False
        return True

    low = text.lower()
    words = _WORD_HINT.search(low) is not None
    folded = folds(text)
    # (the hints are substrings - "ten" is in "latency", "one" in "done": most segments pass them; a
    # fraction also needs one of its literals)
    fractions = words and may_match(v.literals_needed["fraction"], low, folded)
    for m in (v.fraction_re.finditer(text) if fractions else ()):
        if _AND_BEFORE.search(text, 0, m.start()) and _AND_A_HALF.match(" and " + m.group(0)):
            continue  # "thirteen and a half", "six and three-quarter": the fraction belongs to the number before it
        if _FEW_HUNDRED.match(text, m.start()):
            continue  # "a couple of thousand GPUs": read whole below
        if free(m.start(), m.end()):
            phrase = " ".join(m.group(0).lower().split())
            atoms.append(_Atom(m.start(), m.end(), v.fractions[phrase], spelled=True, weak=phrase in _WEAK_WORDS,
                               fraction=v.fractions[phrase] < 1))
    for m in (A_UNIT.finditer(text) if " a" in low and may_match(_TIME_UNITS, low, folded)
               and (folded or _A_TIME_UNIT.search(low)) else ()):
        # "fsync came back in about a microsecond", "takes under a millisecond": one of the unit
        if free(m.start(1), m.end(1)):
            atoms.append(_Atom(m.start(1), m.end(1), 1.0, spelled=True))
    for m in (_FEW_HUNDRED.finditer(text) if ("few" in low or "couple" in low or "several" in low) else ()):
        # "a few hundred MB/s": about three hundred, said as an estimate
        if free(m.start(), m.end()):
            few, scale_word = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            scale = 100.0 if scale_word.lower() == "hundred" else 1000.0
            atoms.append(_Atom(m.start(), m.start() + len(m.group(0).rstrip()),
                               (2.0 if "couple" in few.lower() else 3.0) * scale, approx=True, spelled=True))
    for m in (FEW_SIZE.finditer(text) if ("few" in low or "couple" in low) else ()):
        if free(m.start(), m.end()):
            atoms.append(_Atom(m.start(), m.end(), 2.0 if "couple" in m.group(1).lower() else 3.0, approx=True, spelled=True))
    for m in (_POINT.finditer(text) if words and "point" in low else ()):
        # "seventy point six billion": a decimal said in words
        try:
            whole = float(text2num(" ".join(m.group(1).lower().split()), "en"))
        except (ValueError, TypeError):
            continue
        # ("one-point-eight-four": said aloud, the digits joined by hyphens)
        digits = [_DIGIT_WORDS[w] for w in re.split(r"[\s-]+", m.group(2).lower().strip(" -")) if w]
        value = whole + float("0." + "".join(digits))
        if m.group(3):
            value *= _SPELLED_FACTORS[m.group(3).lower()]
        if free(m.start(), m.end()):
            atoms.append(_Atom(m.start(), m.end(), value, spelled=True))
    for m in (v.number_word_re.finditer(text) if words else ()):
        phrase = " ".join(m.group(0).lower().split())
        body = phrase[2:] if phrase.startswith("a ") else phrase
        if body.split()[0].split("-")[0] in _SCALE_WORDS and not phrase.startswith("a "):
            continue  # "70.6 billion": the scale word belongs to the digits before it
        try:
            value = float(text2num(body, "en"))
        except (ValueError, TypeError):
            value = _hundreds_elided(body)
            if value is None or (body.startswith("one ") and _ONE_CARD.match(text, m.end())):
                continue  # "one eighty gig card" is one 80 GB card, not 180 GB
            if _PRICE_AFTER.match(text, m.end()):
                continue  # "at two-fifty an hour": a price said aloud ($2.50), not 250
        if body == "one" and (_pronoun_before(text, m.start()) or _PRONOUN_AFTER.match(text, m.end())):
            continue  # "this one", "one of them": not a quantity
        end = m.end()
        half = _AND_A_HALF.match(text, end)
        if half:
            value, end = value + _and_part(half), half.end()
        odd = _ODD.match(text, end) if not half else None
        if odd:
            end = odd.end()  # "fifty-odd", "fiftyish": about fifty
        if free(m.start(), end):
            # ("one percent of the fleet" is a figure, as "a single GPU" is not)
            atoms.append(_Atom(m.start(), end, value, spelled=True, approx=bool(odd),
                               weak=body == "one" and not half and not odd and not _PERCENT_AFTER.match(text, end)))
    for m in _DIGITS.finditer(text) if digits else ():
        s = m.start("n")
        if not free(s, m.end()):
            continue
        if m.group("n") in _HTTP_CODES and (_HTTP_BEFORE.search(text, max(0, s - 40), s) or _HTTP_AFTER.match(text, m.end())):
            continue  # "reject with 429 and a Retry-After", "return a 503": a status code, not a quantity
        n = m.group("n")
        value = float(n.replace(",", ".") if m.group("dc") else n.replace(".", "") if m.group("dt")
                      else _SEPARATORS.sub("", n))
        end = m.end()
        sci = _SCI.match(text, end)
        if sci and not text[sci.end():sci.end() + 1].isalpha():
            value *= 10 ** int(sci.group(0)[1:])
            end = sci.end()
        pw = _POW.match(text, end) if not sci and value in (2, 10) else None
        if pw and int(pw.group(1)) <= 64:
            value, end = value ** int(pw.group(1)), pw.end()  # "2^19 B", "2**17 bytes", "10^9"
        ten = _TIMES_TEN.match(text, end) if not sci and not pw else None
        if ten:
            # one number in scientific notation: "989 × 10^12 / 3.35 × 10^12 ≈ 295" divides two numbers
            value, end = value * 10 ** int(ten.group(1)), ten.end()
        half = _AND_A_HALF.match(text, end) if not sci and not pw and "." not in n else None
        if half:
            value, end = value + _and_part(half), half.end()  # "33 and a half gigabytes"
        odd = _ODD.match(text, end) if not sci and not pw and not ten and not half else None
        if odd:
            end = odd.end()  # "50-odd sequences", "120-ish": about that many
        share = _SLASH_SHARE.match(text, end) if not (sci or pw or ten or half or odd) and n.isdigit() else None
        if share and 0 < value < int(share.group(1)):
            atoms.append(_Atom(m.start(), share.end(), value / int(share.group(1)), approx=bool(m.group("approx")),
                               fraction=True))
            continue
        atoms.append(_Atom(m.start(), end, value, approx=bool(m.group("approx")) or bool(odd)))
    atoms.sort(key=lambda a: a.start)
    return atoms


BITS_RATE = re.compile(r"[KMGT]b(?:/s|ps)")


def _unit_at(text: str, pos: int, v: Vocab) -> tuple[str, str, float, int] | None:
    """(dim, alias, factor, end) of a unit or counted noun starting at `pos` (after spaces/hyphen)."""
    gap = _GAP.match(text, pos)
    p = gap.end()
    if gap.group(0).count("-") > 1:
        return None
    best = None
    um = v.unit_re.match(text, p)
    if um:
        u = v.unit_by_alias[" ".join(um.group(0).lower().split())]
        # a capital prefix on a small b is bits: "50 Gb/s on the wire", "3 Gbps off NVMe" (an eighth of GB/s)
        best = (u.dim, um.group(0), u.factor / 8 if BITS_RATE.fullmatch(um.group(0)) else u.factor, um.end())
    nm = v.noun_re.match(text, p)
    if nm and nm.group(0).lower() == "times" and _OPERAND_NEXT.match(text, nm.end()):
        nm = None  # "128 times 2 bytes" multiplies; "retries 3 times" counts
    if nm and nm.group(0).lower() == "head" and _HEAD_DIM.match(text, nm.end()):
        nm = None  # "128 head dim" is the head dimension, not 128 heads
    if nm is None and best is None:
        # "8 whole hosts", "10 spare GPUs": a count of machines with a word about them in between
        adj = _MACHINE_ADJ.match(text, p)
        nm = v.noun_re.match(text, adj.end()) if adj else None
        if nm and v.noun_dim[" ".join(nm.group(0).lower().split())] not in ("hosts", "gpus", "replicas"):
            nm = None
    if nm and (best is None or nm.end() > best[3]):
        alias = " ".join(nm.group(0).lower().split())
        best = (v.noun_dim[alias], nm.group(0), 1.0, nm.end())
    return best


# a number right after a multiplication sign ("x 2B", "×2B", "* 2B"), the last factor of a product
_AFTER_TIMES = re.compile(r"(?:\d\s*[x×*·⋅]|\s[x×*·⋅])\s*$")


_PER_TOKEN = re.compile(r"\s*(?:per|a|/)\s*(?:token|tok)\b", re.I)  # ("512K/tok")
_PER_SEQ = re.compile(r"\s*(?:per|a|/)\s*(?:token|seq|seqs|sequence|request|conversation)\b", re.I)


def _parse_after(text: str, atom: _Atom, v: Vocab) -> Mention:
    """Read the suffix, unit or noun and rate after one number."""
    pos = atom.end
    value = atom.value
    dim = "count"
    unit = ""
    k_suffix = False
    quals: set[str] = set()

    # glued multiplier: 430k, 16G, 1.5M, 70B (billions of parameters), 8x (a count of GPUs or a speed-up)
    ch = text[pos:pos + 1]
    nxt = text[pos + 1:pos + 2]
    if not atom.spelled and ch and ch in "bB" and not nxt.isalpha():
        # bytes written with a bare B, not billions of parameters: a factor of a product ("40×40×128×2B"), a size per
        # parameter or token or given to the symbol for bytes ("b = 2B/param"), or one said again in other units
        # ("327,680B = 320KiB"; a model's size is never said in thousands)
        if (value in (1, 2, 4, 8) and (_AFTER_TIMES.search(text, 0, atom.start) or _BYTES_PER_ELEMENT.match(text, pos + 1)
                                       or _BYTES_SYMBOL.search(text, max(0, atom.start - 12), atom.start))) \
                or _BYTES_NOT_BILLIONS.match(text, pos + 1) or ("," in text[atom.start:pos] and value >= 1000):
            return Mention(atom.start, pos + 1, value, "bytes", unit="B", raw=atom.value, approx=atom.approx)
        value *= 1e9
        pos += 1
        if _PER_PERIOD_AFTER.match(text, pos):
            # billions of something a period, not a model: "360k tokens/s through it, 1.3B an hour"
            return Mention(atom.start, pos, value, "count", unit="B", raw=atom.value, approx=atom.approx)
        dim, unit = "params", "B"
        pm = _PARAMS_WORD.match(text, pos)
        if pm:
            pos = pm.end()
        return Mention(atom.start, pos, value, dim, unit=unit, raw=atom.value, approx=atom.approx)
    if not atom.spelled and ch and ch in v.suffixes and not nxt.isalpha() or (text[pos:pos + 2].lower() == "bn" and not text[pos + 2:pos + 3].isalpha()):
        if text[pos:pos + 2].lower() == "bn":
            value *= 1e9
            pos += 2
        else:
            value *= v.suffixes[ch]
            k_suffix = ch in "kK"
            pos += 1
            if ch in "gG":
                dim, unit = "bytes", "G"
            elif (ch in "mM" and _PER_SEQ.match(text, pos)) or (ch in "kK" and atom.value >= 16 and _PER_TOKEN.match(text, pos)):
                # terse bytes: "~410K per token", "~820M per seq" (a count per token or per sequence is its KV)
                dim, unit, k_suffix = "bytes", ch.upper(), False
    elif not atom.spelled and (spaced := _SPACED_MULT.match(text, pos)):
        value *= v.suffixes[spaced.group(1)]
        pos = spaced.end()
        if spaced.group(1) == "K" and atom.value >= 16 and _PER_TOKEN.match(text, pos):
            dim, unit = "bytes", "K"  # ... said apart: "times 32 layers is 512 K per token"
    sm = _SPELLED_MULT.match(text, pos)
    if sm:
        value *= _SPELLED_FACTORS[sm.group(1).lower()]
        pos = sm.end()
        if sm.group(1).lower() == "billion":
            dim, unit = "params", "billion"

    gm = _GPU_AFTER.match(text, pos)
    if gm and dim == "count":
        return Mention(atom.start, gm.end(), value, "gpus", unit=text[pos:gm.end()].strip(), raw=atom.value,
                       approx=atom.approx, weak=atom.weak, spelled=atom.spelled)
    mm = _MULTIPLIER.match(text, pos) if dim == "count" and not atom.spelled else None
    if mm:
        return Mention(atom.start, pos + 1 if mm.group(0).lower() in ("x", "×") else pos, value, "multiplier",
                       unit="x", raw=atom.value, approx=atom.approx)

    u = _unit_at(text, pos, v)
    if u is None:
        # qualifiers before the noun: "256 active sequences", "1,500 prompt tokens"
        q_pos = pos
        found: set[str] = set()
        for _ in range(2):
            qm = _SPACES.match(text, q_pos)
            if not qm:
                break
            qq = v.qualifier_re.match(text, qm.end())
            if not qq:
                break
            found.add(" ".join(qq.group(0).lower().split()))
            q_pos = qq.end()
            u2 = _unit_at(text, q_pos, v)
            if u2 and u2[0] not in ("bytes", "time", "percent", "bytes_rate", "flops"):
                u = u2
                quals = found
                break
            g2 = _GPU_AFTER.match(text, q_pos)
            if g2:
                return Mention(atom.start, g2.end(), value, "gpus", unit="gpus", raw=atom.value, approx=atom.approx,
                               weak=atom.weak, spelled=atom.spelled, qualifiers=found)
    if u is not None:
        udim, alias, factor, uend = u
        if udim == "bytes" and dim == "bytes" and unit == "G":
            value /= 1e9  # "16G bytes" is 16 GB: the suffix and the unit are one
            factor = 1e9
        if dim == "params" and udim not in ("params", "tokens", "items", "writes", "sequences"):
            pass  # "13 billion times ...": keep params, ignore what follows (not "158 billion output tokens")
        elif dim == "bytes" and unit == "G" and udim == "gpus":
            pass  # "a 24G card" is the card's memory, not 24 billion cards
        else:
            value *= factor
            dim = udim
            unit = alias
            pos = uend
    elif atom.fraction and dim == "count":
        dim, unit = "percent", "fraction"

    if dim in ("tokens", "sequences", "writes", "fsyncs", "items", "count", "bytes"):
        rm = v.per_second_re.match(text, pos)
        if rm:
            dim = _RATE_DIM[dim]
            unit = (unit + " " if unit else "") + "per second"
            pos = rm.end()
        elif dim == "count":
            rs = v.rate_suffix_re.match(text, pos)
            if rs:
                dim = _RATE_DIM[v.rate_suffix[" ".join(rs.group(0).strip().lower().split())]]
                unit = rs.group(0).strip()
                pos = rs.end()
    return Mention(atom.start, pos, value, dim, unit=unit, raw=atom.value, approx=atom.approx, weak=atom.weak,
                   spelled=atom.spelled, k_suffix=k_suffix, qualifiers=quals)


# a tensor's axis in code is an index, not a quantity: "the write axis ... dim=2 here, not the heads"
_AXIS_ARG = guarded(re.compile(r"(?<![\w.])(?:dim|axis)\s*=\s*-?\d\b"))


def _percentile_zones(text: str, v: Vocab) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in v.percentile_any.finditer(text)] + \
        [(m.start(), m.end()) for m in _AXIS_ARG.finditer(text)]


def find_mentions(text: str, vocab: Vocab | None = None) -> list[Mention]:
    """Every number in `text` (a masked segment), with unit, dimension and normalised value."""
    v = vocab or load()
    skip = _percentile_zones(text, v)
    out: list[Mention] = []
    for m in _TP.finditer(text) if may_match(_TP_NEEDS, text.lower(), folds(text)) else ():
        n = int(m.group(1) or m.group(2))
        out.append(Mention(m.start(), m.end(), float(n), "tp", unit="tp", raw=float(n)))
        skip.append((m.start(), m.end()))
    atoms = _atoms(text, v, skip)
    mentions = [_parse_after(text, a, v) for a in atoms]
    # ranges: "80-100 sequences", "2,000 to 2,400 in flight", "eight or nine copies"
    merged: list[Mention] = []
    i = 0
    while i < len(mentions):
        a = mentions[i]
        if i + 1 < len(mentions):
            b = mentions[i + 1]
            gap = text[a.end:b.start]
            is_join = bool(_RANGE_GAP.fullmatch(gap)) and not (
                gap.strip() == "-" and gap != gap.strip())  # "80 - 16" is a subtraction
            after_from = "from" in text[max(0, a.start - 6):a.start].lower()
            if is_join and not after_from and (a.dim == b.dim or a.dim == "count"):
                low = a.value if a.dim == b.dim else a.raw * (b.value / b.raw if b.raw else 1.0)
                if a.dim == b.dim == "count" and a.raw and a.value == a.raw and b.raw and b.value / b.raw in (1e3, 1e6, 1e9) \
                        and a.raw <= b.raw:
                    low = a.raw * (b.value / b.raw)  # "150-200k": the multiplier is both ends'
                high = b.value
                if 0 < low <= high:
                    merged.append(Mention(a.start, b.end, (low + high) / 2, b.dim, low=low, high=high, unit=b.unit,
                                          raw=b.raw, approx=a.approx or b.approx, spelled=a.spelled or b.spelled,
                                          k_suffix=a.k_suffix or b.k_suffix, qualifiers=a.qualifiers | b.qualifiers))
                    i += 2
                    continue
        merged.append(a)
        i += 1
    out.extend(merged)
    out.sort(key=lambda m: m.start)
    if "L" in text or "H" in text:
        out = [_shape_letter(text, m) for m in out]
    for k in range(len(out) - 1):
        a, b = out[k], out[k + 1]
        # (sequences counted, not an example's prompts: "one card has three 8K prompts and another ten tiny ones")
        km = _K_LENGTH.match(text, b.start) if a.dim == "count" and b.dim == "sequences" \
            and b.unit.lower() in ("sequences", "seqs") else None
        if km and _COUNT_THEN_LENGTH.fullmatch(text, a.end, b.start):
            # "about thirty 4K sequences", "~30 of those 4K sequences": thirty sequences, each 4K tokens long
            gap = text[a.end:b.start].split()
            out[k] = replace(a, dim="sequences", unit=b.unit,
                             qualifiers=a.qualifiers | frozenset(w.lower() for w in gap[:1] if w.lower() in _MORE_OR_FEWER))
            out[k + 1] = replace(b, end=km.end(), dim="tokens", unit="",
                                 value=b.raw * (1024.0 if b.raw in v.binary_k else 1000.0), k_suffix=True)
    return out


# a model's shape in shorthand inside a product: "2 (K,V) x 32 L x 32 H x 128 x 2 B" - L for layers, H for heads (not
# hours: a time is written "2 h" or "2 hrs", and is no factor of a KV product)
_SHAPE_LETTER = re.compile(r"\s*([LH])\b(?!')")
_TIMES_NEAR = re.compile(r"(?:[x×*]\s*$)")
_TIMES_AFTER = re.compile(r"\s*[x×*]\s*\d")


def _shape_letter(text: str, m: Mention) -> Mention:
    """A count or an "hours" figure that is a layer or head count written as one capital letter in a product."""
    if m.dim not in ("count", "time"):
        return m
    at = m.start
    while at < m.end and (text[at].isdigit() or text[at] in ",."):
        at += 1  # the digits; the unit (if any) follows
    lm = _SHAPE_LETTER.match(text, at)
    if lm is None or lm.end() < m.end or (m.dim == "time" and lm.group(1) != "H"):
        return m
    # (a factor re-read on its own, as a formula's part is: "32 H" from "... x 32 H x ...")
    alone = m.start == len(text) - len(text.lstrip()) and not text[lm.end():].strip()
    if not (alone or _TIMES_NEAR.search(text, max(0, m.start - 4), m.start) or _TIMES_AFTER.match(text, lm.end())):
        return m
    dim, unit = ("layers", "layers") if lm.group(1) == "L" else ("attention_heads", "heads")
    raw = m.raw if m.raw else m.value
    return replace(m, end=lm.end(), value=raw, dim=dim, unit=unit, raw=raw)


_K_LENGTH = re.compile(r"(\d+(?:\.\d+)?)\s*[kK](?=[\s-]+\w)")
# ... "so ~5 more 4k sequences": five more, each 4K tokens long
_MORE_OR_FEWER = frozenset({"more", "extra", "additional", "fewer"})
_COUNT_THEN_LENGTH = re.compile(r"\s+(?:(?:" + "|".join(sorted(_MORE_OR_FEWER)) + r")\s+)?(?:of\s+(?:those|these|the|such)\s+)?",
                                re.I)


_ONE_CARD = re.compile(r"[\s-]*(?:gigs?|gb|gib|g)\b[\s-]*(?:\w+[\s-]+)?(?:cards?|gpus?|devices?|[ahl]\d+\w*)\b", re.I)
_HTTP_CODES = frozenset({"400", "404", "408", "413", "429", "500", "502", "503", "504"})
_HTTP_BEFORE = guarded(re.compile(r"\b(?:with|a|an|return\w*|send\w*|repl\w*|respond\w*|answer\w*|gets?|http|status|error|code|"
                                  r"fail\w*|throw\w*|rais\w*)\s+(?:an?\s+)?(?:http\s+)?~?$", re.I))
_HTTP_AFTER = re.compile(r"\s*(?:(?:status|error|response|code)\b|and\s+a\s+retry|with\s+(?:a\s+)?retry|\(?too\s+many|"
                         r"\(?service\s+unavailable)", re.I)
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")


_PRICE_AFTER = re.compile(r"\s*(?:an?|per|/)\s*(?:gpu[- ]?)?(?:hour|hr|h|month|day|year)\b|\s*(?:dollars|bucks|cents)\b", re.I)


_UNITS = "|".join(w for w in _DIGIT_WORDS if w != "zero")
# "twenty-two-fifty": a tens word and a unit, then ten..ninety-nine
_TENS_PAIR = re.compile(rf"((?:{'|'.join(_TENS)})-(?:{_UNITS}))[ -]((?:{'|'.join(_TEENS + _TENS)})(?:-(?:{_UNITS}))?)$")
_FIRST_WORD = re.compile(r"([a-z]+)([ -])(.*)")


def _split_elided(body: str) -> tuple[str, str, str]:
    """"two fifty" and "two-fifty-six" split after their first word: ("two", " ", "fifty-six")."""
    m = _FIRST_WORD.match(body)
    return (m.group(1), m.group(2), m.group(3)) if m else (body, "", "")


def _hundreds_elided(body: str) -> float | None:
    """A figure said as people say them aloud, with "hundred" left out: "two fifty" (250), "five
    twelve" (512), "one twenty-eight" (128), hyphenated too ("two-fifty-six", "one-twenty-eight"). Only a digit word
    then ten..ninety-nine: "nineteen ninety" stays unread."""
    thousands, sep, below = body.partition(" thousand ")
    if sep and thousands and below:
        # "eight thousand one-ninety-two" (8,192): the thousands said whole, the rest with "hundred" left out
        try:
            high = text2num(thousands, "en")
        except (ValueError, TypeError):
            return None
        low = _hundreds_elided(below)
        return float(high * 1000 + low) if low is not None and 1 <= high <= 999 else None
    pair = _TENS_PAIR.match(body)
    if pair:
        # "twenty-two-fifty tokens" (2,250): a two-word head, then ten..ninety-nine
        try:
            head_value, tail = text2num(pair.group(1).replace("-", " "), "en"), text2num(pair.group(2), "en")
        except (ValueError, TypeError):
            return None
        return float(head_value * 100 + tail) if 10 <= tail <= 99 else None
    head, _, rest = _split_elided(body)
    if head not in _DIGIT_WORDS or head == "zero" or not (rest.startswith(_TENS) or rest in _TEENS):
        return None
    try:
        tail = text2num(rest, "en")
    except (ValueError, TypeError):
        return None
    return float(int(_DIGIT_WORDS[head]) * 100 + tail) if 10 <= tail <= 99 else None


def spelled_digits(text: str) -> list[tuple[int, int, str]]:
    """(start, end, digits) for each number said in words in `text` ("thirteen hundred" -> "1300"): how the
    cue scan and the restated-rate reading both write them."""
    return [(s, e, f"{v:g}" if v < 1e6 else f"{v:.0f}") for s, e, v in spelled_numbers(text)]


_PERCENT_AFTER = re.compile(r"\s*(?:%|per\s*cent\b)", re.I)


def spelled_numbers(text: str, vocab: Vocab | None = None) -> list[tuple[int, int, float]]:
    """(start, end, value) of the numbers said in words in `text` ("thirteen hundred", "two point
    four", "a hundred and twenty-eight"), not the weak ones ("one", "a single"). The grader's cues
    read them as digits."""
    v = vocab or load()
    low = text.lower()
    if _WORD_HINT.search(low) is None:
        return []
    # the figures in digits come after the spelled ones and cannot change them: not read here
    return [(a.start, a.end, a.value) for a in _atoms(text, v, [], digits=False)
            if a.spelled and not a.weak and not a.fraction]


# Numbers written the European way: "13,5 GB" (a decimal comma, which the parser reads already) and
# "524.288 byte", "2.048 tokens" (a dot between thousands, which reads as a decimal point).
_DECIMAL_COMMA = guarded(re.compile(r"(?<![\d,.])\d{1,3},\d{1,2}(?![\d,])"))
_THOUSANDS_COMMA = guarded(re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d,]|\.\d)"))
_THOUSANDS_DOT = guarded(re.compile(r"(?<![\d,.])\d{1,3}(?:\.\d{3})+(?![\d.,])"))


# two or more dotted thousands groups can only be thousands: "6.000.000 scores per second"
_MILLIONS_DOT = guarded(re.compile(r"(?<![\d,.])\d{1,3}(?:\.\d{3}){2,}(?![\d.,])"))


def writes_european(texts: list[str]) -> bool:
    """Does a speaker write numbers the European way: a decimal comma somewhere ("13,5 GB") or a
    number in dotted thousands no decimal point could be ("6.000.000"), and no comma between
    thousands anywhere ("1,500")?"""
    return _writes_european(tuple(texts))


@functools.lru_cache(maxsize=256)
def _writes_european(texts: tuple[str, ...]) -> bool:
    # cached by the texts: the ledger and the cue scan both ask it of the same candidate turns
    return any(_DECIMAL_COMMA.search(t) or _MILLIONS_DOT.search(t) for t in texts) \
        and not any(_THOUSANDS_COMMA.search(t) for t in texts)


def restated_thousands(text: str) -> str:
    """`text` with a dotted thousands group written with commas where the same digits are also written
    with commas in it: "524.288 bytes - in English notation 524,288 bytes" says one number twice (the
    same length, so every offset holds)."""
    if "." not in text or "," not in text:
        return text
    said = {m.group(0) for m in _THOUSANDS_COMMA.finditer(text)}
    if not said:
        return text
    return _THOUSANDS_DOT.sub(lambda m: m.group(0).replace(".", ",") if m.group(0).replace(".", ",") in said
                              else m.group(0), text)


# thousands grouped with spaces: "20 000 requests", "2 048 tokens", "8 000 000 scores" (not "batch 8, 128 tokens")
_THOUSANDS_SPACE = guarded(re.compile(r"(?<![\w,.])\d{1,3}(?: \d{3})+(?![\d,.]|\s\d)"))


# ... or with an apostrophe, the Swiss way ("4'096", "1’500"), or a thin or narrow no-break space ("16\u2009000"): no
# list or decimal is written so, wherever commas appear
_THOUSANDS_MARK = re.compile(r"(?<![\w,.'’])\d{1,3}(?:['’\u2009\u202f]\d{3})+(?![\d'’\u2009\u202f])")


def spaced_thousands(text: str) -> str:
    """`text` with thousands grouped by spaces written with commas ("20 000" -> "20,000"), where it writes no
    thousands with commas, and grouped by apostrophes or thin spaces ("4'096") anywhere: the same length, so every
    offset holds."""
    if "'" in text or "’" in text or "\u2009" in text or "\u202f" in text:
        text = _THOUSANDS_MARK.sub(lambda m: re.sub(r"['’\u2009\u202f]", ",", m.group(0)), text)
    if " " not in text or _THOUSANDS_COMMA.search(text):
        return text
    return _THOUSANDS_SPACE.sub(lambda m: m.group(0).replace(" ", ","), text)


def european_to_english(text: str) -> str:
    """`text` with each dotted thousands group written with commas ("524.288" -> "524,288"): the same
    length, so every offset into it is an offset into the original."""
    return _THOUSANDS_DOT.sub(lambda m: m.group(0).replace(".", ","), text)

