"""From numbers to claims within one segment: arithmetic chains, kinds, and the flags around them.

A product said as a chain ("2 x 32 layers x 8 KV heads x 128 x 2 bytes = 128 KiB") makes one
claim, the result, whose kind the factors decide; the factors themselves are not claims (the
model-shape ones are: layers, KV heads, head dim, parameters). Each figure then gets its
percentile, bound ("under 800 ms"), approximation, scope ("per GPU"), and the negation and
hypothetical flags of its clause.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from interviewer.claims import arithmetic
from interviewer.claims.kinds import Possible, bound_of, classify, percentile_of
from interviewer.claims.numbers import A_UNIT, FEW_SIZE, Mention, find_mentions
from interviewer.claims.segments import Segment
from interviewer.claims.vocab import Vocab
from interviewer.quickre import folds, guarded, may_match

# an operand may carry a note in brackets: "2 (K and V) x 40 layers"
_OF = re.compile(r"\s+of\s+(?:the\s+)?", re.I)
# a shape's own noun may sit before the operator: "128 head dim x 2 bytes"
# the factor's noun may sit between it and the operator: "50M active users x 128 dims x 2 bytes"
# (a count per period times a period: "40 a day out, times 5 days is 200", "2.6/day * 7 days = ~180")
_OP = re.compile(r"\s*(?:(?:(?:gpus?|hosts?|nodes?|failures?|faults?|incidents?)\s+)?(?:a|per|/|each)\s*(?:day|week|month|hour)"
                 r"(?:\s+(?:out|in|coming\s+in|into\s+repair))?\s*,?\s*(?=times\b|x\b|×|\*|multiplied\b))?"
                 # ("two for K and V, times thirty-two layers": the factor's label said after it, read aloud - not "x 2
                 # for K and V x 2 bytes, about 1.97 GB", a product's explanation inside a longer one)
                 r"(?:\s*for\s+(?:k\s+and\s+v|keys\s+and\s+values|k\s*[,/&]\s*v)\b\s*(?=,\s*(?:times|multiplied)\b))?"
                 r"(?:,\s*(?=times\b|multiplied\b))?(?:\([^()\d]{1,30}\)\s*)?(?:(?:head[_ ]?dim(?:ension)?s?|dim(?:ension)?s?|(?:(?:active|unique|daily|monthly|distinct|total)\s+)?(?:users|rows|entries|items|ids|embeddings|vectors|features)|(?:active|running|live|concurrent)(?:\s+(?:seqs?|sequences|requests))?)\s*)?(x|×|\*|·|⋅|times|multiplied\s+by|/|over|divided\s+by|÷|minus|less|plus|\+|\s-\s|\s?[−–]\s)\s*"
                 # ... or the factor's label after the operator: "200M × dim 128 × 2 B"
                 r"(?:(?:head[_ ]?)?dim(?:ension)?s?\s*(?:=|of)?\s*)?",
                 re.I)
_COMMA_TIMES = re.compile(r",\s*times\b", re.I)
# a count a price or a rate is per: "$0.23 per 1M tokens"
_PER_BEFORE = re.compile(r"\bper\s+$", re.I)
_SUM_BETWEEN = re.compile(r"[+·×*⋅]|\bplus\b", re.I)
# a numbered step or part said before a dash: "Step 4 - 164 GB / 0.59 GB ≈ 278 seqs"
_STEP_LABEL = re.compile(r"\b(?:step|phase|stage|part|item|option|row|tier|level|point|round)\s*#?\s*$", re.I)
_WAS_RESULT = re.compile(r"(?:\bis|=|≈|\bthat.s|\bgives?|\bequals|\bcomes\s+to)\s*(?:about\s+|roughly\s+|~|exactly\s+)?$", re.I)
_PER_LAYER = guarded(re.compile(r"\b(?:per|each|a|every)[- ]layer\b", re.I))
_PER_LAYER_AFTER = re.compile(r"\s*(?:of\s+kv\s+)?(?:(?:per|a|each|/)\s*token\s+)?(?:per|a|each|/)\s*layer\b", re.I)
_LAYERS = guarded(re.compile(r"\blayers?\b", re.I))


def _per_layer(text: str, m: Mention) -> bool:
    """Is a per-token size said of one layer ("16 KB per token per layer"), with no layer count after it
    to multiply it back up ("... so 512 KB per token across 32 layers")?"""
    if _PER_LAYER_AFTER.match(text, m.end):
        return True
    said = list(_PER_LAYER.finditer(text, 0, m.start))
    if said and _SIZE_JUST_BEFORE.search(text, max(0, said[-1].start() - 24), said[-1].start()):
        return False  # the layer's share was an earlier figure's: "16 KiB per layer per token, so 512 KiB per token"
    return bool(said) and not _LAYERS.search(text, said[-1].end(), m.start) \
        and (not _LAYERS.search(text, m.end, m.end + 40) or bool(_TIMES_LAYERS.match(text, m.end)))


_SIZE_JUST_BEFORE = re.compile(r"\d[\d,.]*\s*(?:[kmg]i?b|bytes?|[kmg])\s*(?:of\s+(?:kv|cache)\s+)?$", re.I)
# the layer count said as the next factor: "... = 16K bytes; times 32 layers is 512K per token"
_TIMES_LAYERS = re.compile(r"[^.\d]{0,12}?(?:times|x|×|\*)\s*\d+\s*layers?\b", re.I)


_LEADING_TIMES = re.compile(r"^\W*(?:and\s+)?(?:times|multiplied\s+by|x|×)\s", re.I)
_SELF_CORRECTED = re.compile(r"\s*(?:[,;—–-]\s*|\.\s+)(?:no|wait|oops|sorry)\s*[,!—–-]", re.I)
# "another 13 GB for KV", "an extra 10k tokens": a difference, not the quantity itself
# ... "That frees 13 GB per card", "saves about 4 GB": what a change gives back (not "which frees 45 GB for
# the cache": what is then left for it)
_FOR_THE_CACHE = re.compile(r"\s*(?:of\s+\w+\s+)?for\s+(?:the\s+)?(?:kv\b|cache|kv[- ]cache)", re.I)
# ... or signed after an arrow: "frees 70G/node -> +~120 seqs"
_DELTA_BEFORE = guarded(re.compile(r"\b(?:another|an?\s+(?:extra|additional))\s*~?\s*$|(?:->|→|=>|:|,|\()\s*\+\s*~?\s*$", re.I))
FREED_BEFORE = guarded(re.compile(r"\b(?:frees?|freeing|saves?|saving)(?:\s+up)?(?:\s+(?:about|roughly|around))?\s*~?\s*$", re.I))
# a chain's result: looser than arithmetic.RESULT (":" and a bare "," close a chain for its operands' roles, not
# as a calculation the candidate stands behind), on the same pieces
_RESULT = re.compile(
    # ("4,096 x 45 ms p99 per token = about 18 seconds": the factor's label before the result's sign)
    arithmetic.OPERAND_TAIL + r"(?:(?:p\d{2,3}\s+)?per\s+(?:output\s+)?token\s*(?=[=≈→:]|->|is\b|comes\b|gives?\b))?"
    r"(?:,\s*(?:which\s+is|that's|that\s+is|yes|call\s+it)|=|≈|~=|->|→|:|,|#|is|are|gives|give|comes\s+to|makes|that's|that\s+is|which\s+is|so"
    r")?" + arithmetic.PAUSE
    + r"\s*(?:so\s+(?=about|roughly|around|approximately|~))?"  # "40 x 5,120 x 2, so about 0.4 MB"
    r"(?:" + arithmetic.APPROX + r"|so|that's|or|is)?[\s`*]*", re.I)  # "`20 GB / 1 GB/s ≈` **2 s**"
# "2,000 x 50 ms, which is 10 seconds" restates the product only in an operand's quantity: "250 hosts x 8,
# which is 48,000 GPU-hours a day" goes on to another one
_COMMA_RESULT = re.compile(r"[\s`*]*,")
# a result the next step goes on from after a comma ("10,000 x 0.1% per day, yes about 100 a day, times 5 days is
# 500"): each step is a calculation of its own, not a rewritten expression
_NEXT_STEP = re.compile(r"[^,;=≈]{0,14}[,;]\s*(?:and\s+|then\s+)?(?:times|x|×|\*|multiplied\s+by|divided\s+by|over)\b", re.I)
_MAY_HAVE_NUMBER = re.compile(r"\d")
_LABELLED = re.compile(r"[a-z)]\s*=\s*~?$", re.I)
_PLUS_GAP = re.compile(r"\s*(?:\+|plus)\s*", re.I)
_MUL, _DIV, _SUB, _ADD = arithmetic.MUL, arithmetic.DIV, arithmetic.SUB, arithmetic.ADD
_TIMES_PAREN = re.compile(r"\s*[×x*·]\s*\(")
# a quotient that counts machines: "... is about 7.5, so 8 replicas" (not "136 per replica": a share of one)
_MACHINES_AFTER = re.compile(r"[^.;!?\n]{0,24}?(?<!per\s)(?<!\ba\s)(?<!each\s)(?<!every\s)(?<!/)\b(?:replicas?|gpus?|nodes?|hosts?|"
                             r"servers?|machines?|pods?|instances?|cards?)\b", re.I)
_QUANTIFIED = guarded(re.compile(r"\b(?:a\s+few|several|many|some|a\s+couple\s+of|couple\s+of|two|three|four|five|six|seven|eight|"
                                 r"nine|ten)\s+$", re.I))
_SHAPE_DIMS = {"layers", "kv_heads", "attention_heads", "params"}
_DELTA = frozenset({"more", "extra", "additional", "fewer", "less"})
# the families whose next listed time keeps the family though a percentile is said with it ("fsync was about 60 µs at
# p50 and 400 µs at p99": both fsync times)
_TIME_FAMILIES_WITH_PCT = {"ttft", "tpot", "latency", "fsync"}
# a time that is the window a percentile is taken over, not a latency
_WINDOW_AFTER = re.compile(r"\s*(?:windows?\b|is\s+(?:built|computed|made|taken)\s+(?:from|over)\b|of\s+(?:data|traffic|requests|samples)\b)", re.I)
_BINARY_TOKEN_KINDS = {"seq_len", "prompt_tokens", "output_tokens", "token_budget", "prefix_tokens", "block_tokens",
                       "kv_cache_tokens"}


@dataclass
class Found:
    """A claim found in a segment, before its subject and check are known."""

    kind: str
    value: float | None
    mention: Mention | None
    start: int          # in segment text
    end: int
    low: float | None = None
    high: float | None = None
    approx: bool = False
    bound: str | None = None
    percentile: str | None = None
    scope: str | None = None
    scope_after: bool = False   # the scope words follow the figure ("58 per GPU"), not precede it
    negated: bool = False
    hypothetical: bool = False
    comparison: bool = False
    formula: list[str] = field(default_factory=list)
    family: str | None = None
    cue: str = ""


@dataclass
class _Chain:
    operands: list[int]
    ops: list[str]
    result: int | None = None


def _step_number(text: str, m: Mention) -> bool:
    """Is `m` a step's or a part's number ("Step 4 - 164 GB / 0.59 GB"), so the dash after it subtracts nothing?"""
    return _STEP_LABEL.search(text, max(0, m.start - 12), m.start) is not None


def _norm_op(op: str) -> str:
    op = " ".join(op.lower().split())
    return "-" if op in ("-", "−", "–") else op  # a minus sign or an en dash between spaces subtracts


def _chains(text: str, ms: list[Mention]) -> list[_Chain]:
    chains: list[_Chain] = []
    cur: _Chain | None = None
    # a product read aloud, a comma before each factor: "two for K and V, times thirty-two layers, times thirty-two heads"
    said_aloud = len(_COMMA_TIMES.findall(text)) >= 2
    for i in range(len(ms) - 1):
        gap = text[ms[i].end:ms[i + 1].start]
        om = _OP.fullmatch(gap)
        if om and gap.lstrip().startswith(",") and not (i and _WAS_RESULT.search(text, ms[i - 1].end, ms[i].start)) \
                and not (said_aloud and (cur is None or set(cur.ops) <= _MUL)):
            # ", times 512 KB" goes on from a result just said ("... is 16,384 tokens, times 512 KB is 8 GiB"), not
            # from one factor of a longer expression ("plus two, times 1.5": the whole sum)
            om = None
        if ms[i].dim == "percent" and _OF.fullmatch(gap) and not _AT_SHARE.search(text[max(0, ms[i].start - 40):ms[i].start]):
            op = "x"  # "50% of 4 x 989 TFLOPS": the share multiplies what follows (not "four H100s at 40% of ...")
        elif om and ms[i].dim not in ("time",) or (om and _norm_op(om.group(1)) in _SUB | _DIV):
            op = _norm_op(om.group(1))
            if op == "-" and _step_number(text, ms[i]):
                op = None  # "Step 4 - 164 GB / 0.59 GB ≈ 278": a step's number and a dash, not 4 minus 164
        else:
            op = None
        if op is not None:
            if cur is None:
                cur = _Chain([i], [])
            cur.operands.append(i + 1)
            cur.ops.append(op)
            continue
        if cur is not None:
            dims = {ms[k].dim for k in cur.operands}
            # ", which is" closes a calculation whose result is in an operand's quantity, or one of bare
            # factors ("40 times 40 times 128 times 2, which is 409,600 bytes"), not the next item of a list
            if _RESULT.fullmatch(gap) and arithmetic.short_gap(gap, 24) and not (
                    _COMMA_RESULT.match(gap) and dims != {"count"} and ms[i + 1].dim not in dims - {"count"}) \
                    and not _rest_of_share(ms, cur, ms[i + 1]):
                cur.result = i + 1
            chains.append(cur)
            cur = None
    if cur is not None:
        chains.append(cur)
    return chains


def _rest_of_share(ms: list[Mention], chain: _Chain, result: Mention) -> bool:
    """Is `result` the share left over, not the product: "256, which is about 95% of the 270, so ~5% of the pool is
    slack" says the 5% that 95% leaves, not 95% x 270?"""
    if result.dim != "percent" or result.value is None:
        return False
    return any(ms[k].dim == "percent" and ms[k].value is not None and abs(ms[k].value + result.value - 1.0) <= 0.02
               for k in chain.operands)


def _hint(chain: _Chain, ms: list[Mention]) -> str | None:
    ops = set(chain.ops)
    operands = [ms[i] for i in chain.operands]
    dims = [m.dim for m in operands]
    if ops <= _MUL:
        shape = any(d in ("layers", "kv_heads", "attention_heads") for d in dims)
        per_unit = [m for m in operands if m.dim == "bytes" and 4 < m.value <= 5e7]
        tokens = [m for m in operands if m.dim in ("tokens", "count") and m.value >= 64]
        if not shape and per_unit and tokens and len(operands) >= 3 and not any(d == "params" for d in dims):
            # "28 sequences x 2,048 tokens x 512 KiB = 30 GB": a batch's KV, not one sequence's
            return "kv_bytes_batch"
        if not shape and per_unit and tokens and len(operands) == 2:
            # "6,000 x 327,680 bytes, about 2 GB": one sequence's KV from its length and the per-token size
            return "kv_bytes_per_sequence"
        if shape or (
                len(operands) >= 4 and any(d == "bytes" and m.value <= 4 for d, m in zip(dims, operands))):
            if any(d == "tokens" for d in dims):
                return "kv_bytes_per_sequence"
            counts = [m for m in operands if m.dim == "count"]
            if any(d in ("kv_heads", "attention_heads") for d in dims) and any(64 <= m.value <= 256 for m in counts):
                # with the heads and the head dimension said, a bare count in the thousands is the tokens, and a
                # count besides them the sequences: "8 x 2,048 x 32 layers x 2 x 8 heads x 128 x 2 bytes is 2 GiB"
                tokens = [m for m in counts if m.value >= 512]
                if tokens:
                    rest = [m for m in counts if m not in tokens and not 64 <= m.value <= 256 and m.value != 2]
                    return "kv_bytes_batch" if rest else "kv_bytes_per_sequence"
            if any(m.value >= 512 for m in counts) and any(64 <= m.value <= 256 for m in counts):
                # bare counts with a length among them are no per-token size: "One tensor: 8 x 32 x 2048 x 128 x 2 B
                # = 128 MiB" is one layer's keys for the batch, a step of the sum, not a KV figure to check; nor,
                # with the layers named but the heads bare, "8 x 2,048 x 32 layers x 2 x 8 x 128 x 2 bytes = 2 GiB"
                # (batch or KV heads, the 8s do not say): the arithmetic alone is checked
                return None
            return "kv_bytes_per_token"
        # (a bare count is a parameter count only times its bytes: "~1e8 rows × 64 dims × 2 bytes" is a table)
        if any(d == "params" or (d == "count" and m.value >= 1e8 and len(operands) == 2) for d, m in zip(dims, operands)) \
                and any(d == "bytes" for d in dims):
            return "weights_bytes"
        if any(d == "bytes" for d in dims) and any(d in ("tokens",) for d in dims):
            return "kv_bytes_per_sequence"
    if ops & _DIV and dims and dims[0] == "bytes" and "bytes" in dims[1:]:
        divisor = next(m for m in operands[1:] if m.dim == "bytes")
        # free / (KV per token) is tokens; free / (KV per sequence, MB-scale) is sequences
        return "concurrent_sequences" if divisor.value >= 8e6 else "kv_cache_tokens"
    if ops & _DIV and dims and dims[0] in ("tokens", "count") and any(d == "tokens" for d in dims[1:]):
        return "concurrent_sequences"
    if ops & _SUB and dims and dims[0] == "bytes":
        return "free_kv_bytes"
    return None


_HINT_DIMS = {"kv_bytes_per_token": {"bytes"}, "kv_bytes_per_sequence": {"bytes"}, "weights_bytes": {"bytes"},
              "kv_bytes_batch": {"bytes"},
              "free_kv_bytes": {"bytes"}, "kv_cache_tokens": {"tokens", "count"},
              "concurrent_sequences": {"sequences", "count"}}


def _negated(text: str, start: int, v: Vocab) -> bool:
    left = text[max(0, start - 80):start]
    last = None
    for nm in v.negation.finditer(left):
        last = nm
    if last is None:
        return False
    for ex in v.negation_exempt.finditer(left):
        if ex.start() <= last.start() < ex.end():
            return False
    between = left[last.end():]
    return not v.negation_breaks.search(between)


def _scope(text: str, m_start: int, m_end: int, v: Vocab, limit: int | None = None) -> tuple[str | None, bool]:
    """(scope, said after the figure). A scope after the figure belongs to it only up to the next
    figure ("284 each, ~568 per node")."""
    right = text[m_end:min(m_end + 45, limit if limit is not None else len(text))]
    best, pos = None, 10**6
    for label, pat in v.scopes.items():
        sm = pat.search(right)
        if sm and sm.start() < pos:
            best, pos = label, sm.start()
    if best:
        return best, True
    left = text[max(0, m_start - 60):m_start]
    pos, theirs = -1, -1
    for label, pat in v.scopes.items():
        for sm in pat.finditer(left):
            if _FIGURE_BEFORE.search(left, 0, sm.start()):
                theirs = max(theirs, sm.end())
            elif sm.end() > pos:
                best, pos = label, sm.end()
    if theirs > pos and _FIGURE_BETWEEN.search(left, max(pos, 0)):
        # the nearest scope is another figure's, with a figure of its own clause between: "400 in flight on the host,
        # 50 per GPU, against 24 that fit" (the host is the 400's, the GPU the 50's)
        return None, False
    return best, False


# a scope said right after another figure is that figure's: "about 4 GB per GPU for activations, that's about 81 GB"
_FIGURE_BEFORE = re.compile(r"\d[\d,.]*\s*(?:[a-z]{1,5}\s*)?$", re.I)
# a figure in a clause of its own
_FIGURE_BETWEEN = re.compile(r"\d(?:[\d.]|,\d{3})*\s*[^\d\s,;][^,;]*[,;]")


def _to_unit(kind: str, mention: Mention, v: Vocab) -> tuple[float, float | None, float | None]:
    """The mention's value (and range) in the kind's unit."""
    scale = 1.0
    unit = v.unit_of(kind)
    if mention.dim == "time" and unit == "s":
        scale = 1e-3
    if mention.k_suffix and kind in _BINARY_TOKEN_KINDS:
        mant = mention.raw
        if mant in v.binary_k:
            scale *= 1.024
    val = mention.value * scale
    low = mention.low * scale if mention.low is not None else None
    high = mention.high * scale if mention.high is not None else None
    return val, low, high


def clause_flags(text: str, v: Vocab) -> tuple[re.Match | None, bool]:
    """A segment's first hypothetical cue ("if we had H200s"), and whether it draws a comparison."""
    return v.hypothetical.search(text), bool(v.comparison.search(text))


def one_layer_after(text: str, carried: bool) -> bool:
    """Does a sentence end on one layer's share ("Per token per layer: ..., 16 KiB at two bytes."), so that
    a product carried on in the next ("Times 2,048 tokens, 32 MiB.") is still one layer's? `carried`: the
    sentence before ended so, and this one carries its product on."""
    said = list(_PER_LAYER.finditer(text))
    if said:
        return not _LAYERS.search(text, said[-1].end())
    return carried and bool(_LEADING_TIMES.match(text)) and not _LAYERS.search(text)


def find_claims(seg: Segment, v: Vocab, carried_rate: str | None = None,
                flags: tuple[re.Match | None, bool] | None = None, one_layer: bool = False) -> list[Found]:
    """Every claim in one segment (prose sentence or table cell), in text order. `carried_rate` is a
    byte rate the previous sentence ended on ("... about 55 MB/s."): a size over a period that opens
    this one ("So roughly 180 GB a day.") is that rate carried over the period. `flags`: the
    segment's clause_flags, when the caller has them already. `one_layer`: the sentence before ended on one
    layer's share (one_layer_after), so a product this one carries on from it is one layer's too."""
    text = seg.text
    hyp_m, comp = flags if flags is not None else clause_flags(text, v)
    if not _MAY_HAVE_NUMBER.search(text) and not v.number_word_re.search(text) and not v.fraction_re.search(text) \
            and not A_UNIT.search(text) and not FEW_SIZE.search(text):
        return _settings(seg, [], v, hyp_m is not None, comp)
    # a table row's label and header are context; the numbers come from the cell only
    ms = [m for m in find_mentions(text, v) if m.start >= seg.map_from]
    found: list[Found] = []
    chains = _chains(text, ms)
    role: dict[int, str] = {}
    hints: dict[int, tuple[str, list[str]]] = {}
    sums: list[_Chain] = []
    for ch in chains:
        mul_only = set(ch.ops) <= _MUL
        for i in ch.operands:
            if mul_only:
                role[i] = "factor"
        if ch.result is not None and set(ch.ops) <= _ADD | _SUB and ms[ch.result].dim != "count":
            # "1,500 + 300 = 1,800 tok": bare terms of a sum are of its result's quantity, not counts
            for i in ch.operands:
                if ms[i].dim == "count":
                    role[i] = "term"
        bytes_over_bytes = (ch.result is not None and set(ch.ops) <= _DIV and len(ch.operands) == 2
                            and all(ms[i].dim == "count" for i in ch.operands) and ms[ch.operands[0]].value >= 1e8)
        if bytes_over_bytes:
            # "1.47e11 / 3.28e5 ≈ 4.5e5": free bytes over bytes per token, said without units - the
            # result is the cache's tokens (a row label or cue tells), the operands are no counts
            for i in ch.operands:
                role[i] = "term"
        elif ch.result is not None and set(ch.ops) & _DIV and ms[ch.result].dim in ("sequences", "count") \
                and not _MACHINES_AFTER.match(text, ms[ch.result].end):
            # "525,000 over 1,800 gives about 870 sequences": the divisor is the sequence length (not
            # "2,000 over 270 is about 7.5, so 8 replicas": requests in flight over each replica's share)
            last = ms[ch.operands[-1]]
            if last.dim == "count" and any(ms[k].dim == "bytes" and ms[k].raw == last.value
                                           for k in range(ch.operands[0])):
                # the division said again in one unit: "156 GiB / 562.5 MiB = 159,744 / 562.5 = ~284" (both MiB)
                for k in ch.operands:
                    role[k] = "operand"
            elif ms[ch.operands[0]].dim == "bytes" and last.dim == "count" and last.value >= 1e5:
                # "50G / 360M is about 135 sequences": bytes over a sequence's bytes said bare, no token count
                role[ch.operands[-1]] = "operand"
            elif last.dim in ("count", "tokens") and last.value >= 128:
                role[ch.operands[-1]] = "seq_len"
                # ... and the dividend the tokens the cache holds ("Fewer seqs fit: 1.1M / 8K = 136"), as many as
                # a cache holds (not a prompt grown: "compute per request grows by 8 000 / 1 500 ≈ 5,3")
                first = ms[ch.operands[0]]
                if first.dim in ("count", "tokens") and first.value >= 20000 and len(ch.operands) == 2:
                    role[ch.operands[0]] = "cache_tokens"
        if ch.result is not None and _LABELLED.search(text, max(0, ms[ch.operands[0]].start - 6), ms[ch.operands[0]].start):
            # "seqs = 61.5 / 2.15 ≈ 28": the label before "=" names the calculation's result, not its bare operands
            for i in ch.operands:
                if ms[i].dim == "count":
                    role.setdefault(i, "operand")
        if set(ch.ops) & _SUB and ch.ops[0] in _SUB and ms[ch.operands[0]].dim == "bytes":
            role.setdefault(ch.operands[0], "minuend")  # "Free memory: 320 GB − 140 GB of weights − ...": the whole
        if ch.result is None and set(ch.ops) <= _ADD and ms[ch.operands[-1]].dim == "tokens" \
                and all(ms[k].dim in ("tokens", "count") and not ms[k].weak for k in ch.operands):
            # "per sequence (2,000 + 250 tokens)": a sequence said as its prompt plus its reply, no total given
            for k in ch.operands:
                role[k] = "sum_part"
            sums.append(ch)
        if ch.result is not None:
            h = _hint(ch, ms)
            if h and ms[ch.result].dim in _HINT_DIMS.get(h, set()):
                hints[ch.result] = (h, [text[ms[i].start:ms[i].end] for i in ch.operands] if mul_only else [])
            elif mul_only:
                hints[ch.result] = ("", [text[ms[i].start:ms[i].end] for i in ch.operands])
    if _LEADING_TIMES.match(text):
        # a product carried on from the sentence before ("... 256 KB per token. Times 2,048 tokens times batch 8,
        # that's 4 GiB"): its tokens (and sequences) times that figure, a sequence's or a batch's KV
        toks = [k for k, mm in enumerate(ms) if mm.dim == "tokens"]
        first_size = next((k for k, mm in enumerate(ms) if mm.dim == "bytes"), len(ms))
        # (the tokens multiplied come before the product's size: not "Times 2,048 positions is 1 GiB per slot ... (a
        # slot holding a 100-token prompt still owns its full 1 GiB ...)", an aside after it)
        res = [k for k, mm in enumerate(ms) if mm.dim == "bytes" and toks and toks[0] < first_size and k > toks[0]]
        if res and res[-1] not in hints and not one_layer:
            # (the sequences may come first: "Times 8 x 2,048 = 16,384 token slots: ... 8 GiB")
            many = any(mm.dim in ("sequences", "count") and mm.value >= 2 for mm in ms[:res[-1]] if mm is not ms[toks[0]])
            hints[res[-1]] = ("kv_bytes_batch" if many else "kv_bytes_per_sequence", [])
    prev_time: Found | None = None
    possible = Possible(text, v.cue_literals)
    unpacked = _unpacked(text) if "=" in text else {}
    if seg.map_from:
        # a table cell that is a calculation ("sequences per GPU | 48 / 1.84 = about 26"): the row's label
        # names its result; its bare operands are no figures of that kind
        for ch in chains:
            if ch.result is not None:
                for k in ch.operands:
                    if ms[k].dim == "count":
                        role.setdefault(k, "operand")
    for i, m in enumerate(ms):
        if role.get(i) in ("sum_part", "operand"):
            continue
        if role.get(i) == "factor" and m.dim not in _SHAPE_DIMS and m.dim != "count":
            continue
        if (m.weak or role.get(i) == "term" or _TIMES_PAREN.match(text, m.end)) and m.dim == "count":
            continue  # a bare "one" is a word, not a figure; "1.5 × (1 + 0.14 + 164)" is a multiplier
        if m.dim == "sequences" and _QUANTIFIED.search(text, max(0, m.start - 24), m.start):
            continue  # "a few 2k prompts": the prompts' size, counted by "a few"
        if m.dim == "tokens" and _PER_BEFORE.search(text, max(0, m.start - 6), m.start):
            continue  # "$0.23 per 1M tokens": a price's unit, not tokens anywhere
        if m.qualifiers & _DELTA or _DELTA_BEFORE.search(text, max(0, m.start - 24), m.start) or (
                FREED_BEFORE.search(text, max(0, m.start - 24), m.start) and not _FOR_THE_CACHE.match(text, m.end)):
            continue  # "~2e4 more tokens", "another 13 GB": a difference, not the quantity itself
        # the previous number of the same dimension blocks cues that lie beyond it
        block = 0
        for j in range(i - 1, -1, -1):
            if ms[j].dim == m.dim or ms[j].dim == "count" or m.dim == "count":
                block = ms[j].end
                break
        nxt = len(text)
        for j in range(i + 1, len(ms)):
            if ms[j].dim == m.dim:
                nxt = ms[j].start
                break
        named = unpacked.get(m.start)
        if named is not None:
            # a value unpacked from a tuple is read with its own name before it, at the same place
            ctext, block = named
            decision = classify(ctext, m, v.rules_by_dim.get(m.dim, []), block, nxt, m.value)
        else:
            decision = classify(text, m, v.rules_by_dim.get(m.dim, []), block, nxt, m.value, possible=possible)
        if role.get(i) == "seq_len":
            decision = None
            hints[i] = ("seq_len", [])
        if role.get(i) == "cache_tokens":
            decision = None
            hints[i] = ("kv_cache_tokens", [])
        if role.get(i) == "factor":
            if decision is None or decision.rule.kind not in ("layers", "kv_heads", "attention_heads", "params",
                                                              "head_dim", "hidden_size"):
                continue
        kind = None
        family = None
        cue = ""
        if decision is not None:
            family = decision.rule.family
            cue = decision.cue
        hint = hints.get(i)
        # tokens x KV per token is those tokens' KV, whatever it is said to save ("490 MB of cache")
        if hint and hint[0] and (decision is None or decision.score > 1.0 or role.get(i) == "seq_len"
                                 or hint[0] == "kv_bytes_batch"
                                 or (hint[0] == "kv_bytes_per_sequence" and decision.rule.kind == "free_kv_bytes")):
            kind, family, cue = hint[0], None, "formula"
        pct = None
        if m.dim == "time":
            pct = percentile_of(text, m, block, v)
            # (a list holds no other figure between its items: "25 ms, so 250 tokens is about 6.3 s" is no list)
            # (nor a term of a sum: "0.1s prefill + r·30ms ≈ 9.1s" adds the reply's tokens, each at 30 ms)
            listed = prev_time is not None and prev_time.mention is not None and m.start - prev_time.mention.end <= 25 \
                and i > 0 and ms[i - 1] is prev_time.mention \
                and not _SUM_BETWEEN.search(text, prev_time.mention.end, m.start)
            if (decision is None or decision.cue == "default") and _WINDOW_AFTER.match(text, m.end):
                continue  # "a p99 over one minute is built from very few requests": the window a percentile is taken over
            if decision is None or decision.cue == "default":
                if listed and prev_time.family and (pct is None or prev_time.family in _TIME_FAMILIES_WITH_PCT):
                    family = prev_time.family  # "p50 TTFT 250 ms and p99 800 ms"; "retrieval 20 ms, fetch 30 ms"
                elif pct is not None:
                    family = "latency"
                else:
                    continue
            if pct is None and listed and prev_time.family == family and decision is None:
                pct = prev_time.percentile
            rule = next((r for r in v.rules if r.family == family), None)
            if rule is None or (rule.max_value is not None and m.value > rule.max_value):
                continue  # ("~40 ms a token is 8 seconds": the reply's time follows, not another token's)
            if rule.by_percentile:
                key = {"p999": "p99"}.get(pct or "none", pct or "none")
                kind = rule.by_percentile.get(key) or rule.by_percentile["none"]
            else:
                kind = rule.kind
        elif kind is None:
            if decision is None:
                continue
            kind = decision.rule.kind
        if kind is None or (kind == "free_kv_bytes" and role.get(i) == "minuend"):
            continue
        if kind == "kv_bytes_per_token" and _per_layer(text, m):
            continue  # "Per token per layer, K and V: 2 x 32 x 128 x 2 bytes = 16 KB": one layer's share
        value, low, high = _to_unit(kind, m, v)
        bound, approx = bound_of(text, m, v)
        f = Found(kind=kind, value=value, mention=m, start=m.start, end=m.end, low=low, high=high, approx=approx,
                  bound=bound, percentile=pct if m.dim == "time" else None, family=family, cue=cue,
                  negated=_negated(text, m.start, v),
                  hypothetical=bool(hyp_m and (hyp_m.start() <= m.start or ";" not in text[m.end:hyp_m.start()])
                                    and not (hyp_m.end() <= m.start and v.back_to_plan.search(text, hyp_m.end(), m.start))),
                  comparison=comp, formula=hint[1] if hint and (kind == hint[0] or not hint[0]) else [])
        if kind in v.scoped_kinds:
            f.scope, f.scope_after = _scope(text, m.start, m.end, v, ms[i + 1].start if i + 1 < len(ms) else None)
        if m.dim == "time":
            prev_time = f
        if kind == "output_tokens" and _is_total(found, value):
            f.kind = "seq_len"  # "1,500 prompt plus 300 reply, so about 1,800 tokens": the whole sequence
        if _SELF_CORRECTED.match(text, m.end):
            f.negated = True  # "= 160 KiB, no, times two because K and V are both stored": taken back at once
        found.append(f)
    for ch in sums:
        first, last = ms[ch.operands[0]], ms[ch.operands[-1]]
        found.append(Found(kind="seq_len", value=sum(ms[k].value for k in ch.operands), mention=last,
                           start=first.start, end=last.end, approx=any(ms[k].approx for k in ch.operands),
                           negated=_negated(text, first.start, v), hypothetical=bool(hyp_m and hyp_m.start() <= first.start),
                           comparison=comp, cue="sum"))
    found.extend(_calculations(text, ms, chains, v, hyp_m, comp))
    if carried_rate and ms and ms[0].dim == "bytes" and _CARRIED_LEAD.fullmatch(text, 0, ms[0].start) \
            and (pm := _PERIOD.match(text, ms[0].end)) is not None:
        found.append(Found(kind="arithmetic", value=ms[0].value, mention=ms[0], start=ms[0].start, end=pm.end(),
                           approx=ms[0].approx, negated=_negated(text, ms[0].start, v),
                           hypothetical=hyp_m is not None, comparison=comp,
                           formula=[carried_rate, "x", pm.group(1)], cue="calculation"))
    found.extend(_settings(seg, found, v, hyp_m is not None, comp))
    found.sort(key=lambda x: x.start)
    return found


# code that unpacks a tuple of numbers: "layers, kv_heads, head_dim = 80, 8, 128" (each name is its value's, in order)
_TUPLE_ASSIGN = re.compile(r"(?m)^[ \t]*([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)+)[ \t]*=[ \t]*"
                           r"([\d.e_,]+(?:[ \t]*,[ \t]*[\d.e_,]+)+)[ \t]*(?=#|$)")
_TUPLE_VALUE = re.compile(r"[\d.e_]+(?:,\d{3}(?!\d))*")


# a worksheet's row: its name, a formula over other rows, then the value ("X   weights = W x 2 = 26G",
# "Z   KV pool = 80 - X - Y = 48G", "N   seqs/card = Z / Q = 26"): the value is the name's
_SHEET_ROW = re.compile(r"(?m)^[ \t]*(?:[-*•][ \t]+)?(?:[A-Z][A-Z0-9]{0,2}[ \t]+)?(?P<name>[A-Za-z][\w /%.,()-]{0,30}?)[ \t]*="
                        r"(?P<formula>[^=≈\n]{1,60}?[ \t]*)(?:=|≈)[ \t]*(?P<value>~?\d)")
_FORMULA_OP = re.compile(r"\s[x×*/÷+\-]\s|[×*/÷]")
_GOES_ON = re.compile(r"[=≈]|\s[+x×*/÷-]\s*~?\d")


def _unpacked(text: str) -> dict[int, tuple[str, int]]:
    """For each value a tuple assignment unpacks, or a worksheet row works out, where it starts -> (the text with
    its own name and "=" written just before it over the line's start, the same length; where that name starts).
    Read one to one, "head_dim = 80" in "layers, kv_heads, head_dim = 80, 8, 128" would name the wrong value; read
    as written, "weights = W x 2 = 26G" gives the 26G no name at all."""
    out: dict[int, tuple[str, int]] = {}
    for m in _SHEET_ROW.finditer(text):
        if not _FORMULA_OP.search(m.group("formula")):
            continue  # a value said twice, not worked out
        end = text.find("\n", m.start("value"))
        if _GOES_ON.search(text, m.start("value"), len(text) if end < 0 else end):
            continue  # the row's calculation goes on ("= ~0.6 s + 4,096 x 45 ms = ~185 s"): no value of its own yet
        line, label = m.start(), f"{m.group('name').strip()} = "
        for at in {m.start("value"), m.start("value") + (text[m.start("value")] == "~")}:
            pad = at - line - len(label)
            if pad >= 0:
                out[at] = (text[:line] + " " * pad + label + text[at:], line + pad)
    for m in _TUPLE_ASSIGN.finditer(text):
        names = [n.strip() for n in m.group(1).split(",")]
        values = list(_TUPLE_VALUE.finditer(text, m.start(2), m.end(2)))
        if len(names) != len(values):
            continue
        line = m.start()
        for name, val in zip(names, values):
            label = f"{name} = "
            pad = val.start() - line - len(label)
            if pad < 0:
                continue
            out[val.start()] = (text[:line] + " " * pad + label + text[val.start():], line + pad)
    return out


def _is_total(found: list[Found], value: float | None) -> bool:
    """Is `value` the prompt plus the reply said before it in the segment?"""
    p = next((f.value for f in reversed(found) if f.kind == "prompt_tokens" and f.value), None)
    o = next((f.value for f in reversed(found) if f.kind == "output_tokens" and f.value), None)
    return bool(p and o and value and abs(value - (p + o)) <= 0.02 * value)


def _per_token_result(text: str, b: Mention, t: Mention) -> bool:
    """"at ~25 ms/tok that's about 10 s": a time per token, then the result."""
    if b.dim != "time":
        return False
    m = _PER_TOKEN_WORDS.match(text, b.end)
    if m is None:
        return False
    # (the comma the per-token words took back for the result's ", so": "40 ms a token, so 8 seconds")
    gap = text[m.end() - (text[m.end() - 1:m.end()] == ","):t.start]
    return len(gap) <= 28 and bool(arithmetic.RESULT.fullmatch(gap))


_PER_UNIT_AFTER = re.compile(r"\s*(?:/\s*[a-z]|per\s|a\s+(?:gpu|card|token|sequence|request)\b|each\b)", re.I)
_RESTATED = re.compile(r"\s*,?\s*(?:which|that)(?:.s|\s+is|\s+(?:on\s+the\s+(?:wire|network|link)|in\s+bits)\s+is)\s+"
                       r"(?:on\s+the\s+(?:wire|network|link)\s+|in\s+(?:bits|network\s+terms)\s+)?(?:about\s+|roughly\s+|~)?|\s*\(\s*(?:=\s*|i\.e\.\s*|about\s+|~)?", re.I)
# a size said again: "1.6e6 KiB, which is ~156 MiB", "80 GB (~74.5 GiB)" - not "4 bytes, that's 12.8 GB", a result
_SIZE_RESTATED = re.compile(r"\s*,?\s*(?:which\s+is|i\.e\.)\s+(?:about\s+|roughly\s+|~)?|\s*\(\s*(?:=\s*|i\.e\.\s*|about\s+|~|≈\s*)?",
                            re.I)
_OPEN_PAREN = re.compile(r"\s*\(")
_CLOSE_PAREN = re.compile(r"\s*\)")
_NOT_THE_SAME = re.compile(r"\s*(?:more|less|extra|left|free|spare|smaller|bigger|larger|over|under|short|above|below|"
                           r"of\s+(?:headroom|slack|margin))\b", re.I)
_PER_TOKEN_WORDS = re.compile(r"\s*(?:p\d{2,3}\s+)?(?:per|a|each|/)\s*(?:output\s+)?tok(?:en)?s?\b,?", re.I)


def _spread_over(ch: _Chain, ms: list[Mention]) -> bool:
    """Is the chain's first "over" a size spread across the product after it, whose total is the result ("1.4e11 bytes
    over 4 x 80 = 3.2e11": the cards' memory, not 140 GB divided by 320)?"""
    if len(ch.operands) < 3 or ch.ops[0] != "over" or not all(op in _MUL for op in ch.ops[1:]):
        return False
    said, dims = ms[ch.result].value, {ms[i].dim for i in ch.operands}
    across = math.prod(ms[i].value for i in ch.operands[1:])
    divided = arithmetic.evaluate([ms[i].value for i in ch.operands], ch.ops)
    return arithmetic.consistent(said, across, 0.1, dims) and not (divided and arithmetic.consistent(said, divided, 0.25, dims))


def _calculations(text: str, ms: list[Mention], chains: list[_Chain], v: Vocab, hyp_m, comp: bool) -> list[Found]:
    """Each calculation said with an explicit result: one `arithmetic` claim spanning it, whose
    formula is the operands and operators as said (physics re-does it)."""
    out: list[Found] = []

    def calc(start: int, result: Mention, formula: list[str], end: int | None = None) -> None:
        out.append(Found(kind="arithmetic", value=result.value, mention=result, start=start,
                         end=result.end if end is None else end, approx=result.approx,
                         negated=_negated(text, start, v), hypothetical=bool(hyp_m and hyp_m.start() <= start),
                         comparison=comp, formula=formula, cue="calculation"))

    starts = {ch.operands[0]: ch for ch in chains}
    for ch in chains:
        if ch.result is None or not (arithmetic.result_gap(text, ms[ch.operands[-1]], ms[ch.result])
                                     or _per_token_result(text, ms[ch.operands[-1]], ms[ch.result])):
            continue  # ("max_tokens 2,048 x ~35 ms p99 per token is about 40 seconds": the last factor's "per token")
        if "#" in text[ms[ch.operands[-1]].end:ms[ch.result].start] and _PER_UNIT_AFTER.match(text, ms[ch.result].end):
            continue  # a code comment naming a factor, not the value: "overhead = 4 * 5  # ~5 GB/GPU ... -> 20 GB"
        if ch.result in starts and not _NEXT_STEP.match(text, ms[ch.result].end, ms[starts[ch.result].operands[1]].start):
            # "a + b x c ≈ a + d = e": the "result" is a rewritten expression, checked in its turn; with no total
            # after it, the product it rewrote is checked as said: "0.4 s + 2,048 x 45 ms = 0.4 + 9.2 s"
            rw, first = starts[ch.result], ch.operands[0]
            if set(ch.ops) <= _MUL and rw.result is None and len(rw.operands) == 2 and rw.ops[0] in _ADD and first \
                    and _PLUS_GAP.fullmatch(text, ms[first - 1].end, ms[first].start) \
                    and ms[first - 1].raw == ms[rw.operands[0]].raw \
                    and not any(ms[k].weak for k in (*ch.operands, *rw.operands)):
                formula: list[str] = []
                for k, i in enumerate(ch.operands):
                    formula += ([ch.ops[k - 1]] if k else []) + [text[ms[i].start:ms[i].end]]
                calc(ms[first].start, ms[rw.operands[1]], formula)
            continue
        if any(ms[i].weak for i in [*ch.operands, ch.result]):
            continue  # "192 decode tokens plus one ~500-token prefill": a bare "one" is a word, not a figure
        first = ch.operands[0]
        if first and _OP.fullmatch(text[ms[first - 1].end:ms[first].start]) and not _step_number(text, ms[first - 1]):
            lead = ms[first - 1]
            # "~1 s + 4,096 x 30 ms = ~12 s": a time plus a product of times, the whole sum checked (a time does not
            # open a chain, so its "+" is read here)
            if lead.dim == "time" and ms[ch.result].dim == "time" and set(ch.ops) <= _MUL and not lead.weak \
                    and any(ms[i].dim == "time" for i in ch.operands) \
                    and _PLUS_GAP.fullmatch(text, lead.end, ms[first].start) \
                    and not (first > 1 and _OP.fullmatch(text[ms[first - 2].end:lead.start])):
                formula = [text[lead.start:lead.end], "+"]
                for k, i in enumerate(ch.operands):
                    formula += ([ch.ops[k - 1]] if k else []) + [text[ms[i].start:ms[i].end]]
                calc(lead.start, ms[ch.result], formula)
            continue  # "~32 s x 50k x 4 KB is ~6.5 GB": a factor the chain left out; the product cannot be judged
        if _TIMES_BEFORE.search(text, ms[first - 1].end if first else 0, ms[first].start):
            continue  # "2 million stores and dishes × 64 dims × 4 bytes ≈ 512 MB": likewise, its words in between
        if first and _TERM_BEFORE.search(text, ms[first - 1].end, ms[first].start):
            continue  # "~1 s to first token plus 50 x ~50 ms, call it 3.5 s": one term of a sum, its words in between
        if first and (_AT_BEFORE.search(text, ms[first - 1].end, ms[first].start) or (
                ms[first - 1].dim == "percent" and _OF.fullmatch(text, ms[first - 1].end, ms[first].start))):
            # ... or a share of it: "one TP4 replica at ~50% of 4 × 989 TFLOPS is ~2e15"
            continue  # "300,000 tokens a second at 2 × 70.6 GFLOP each, about 42 PFLOP/s": the rate is a factor too
        if first and ms[first - 1].dim.startswith("rate") and _EACH_BEFORE.search(text, ms[first - 1].end, ms[first].start):
            continue  # "... 300,000 prompt tokens per second, each is 2 x 70.6 GFLOP, so about 42 PFLOP/s": likewise
        if set(ch.ops) <= _ADD | _SUB and ms[ch.result].dim not in {ms[k].dim for k in ch.operands} | {"count"} \
                and not arithmetic.share_added(ch.ops, [ms[k].dim for k in ch.operands]):
            continue  # "6,000 + 300, which is ~0.6 s of prefill": what the sum costs, not the sum
        if any(_UNKNOWN_UNIT.match(text, ms[i].end) for i in [*ch.operands, ch.result] if ms[i].dim == "count"):
            continue  # "8 x 312 TFLOPS ≈ 2.5 PF": a unit the ledger does not read; the sum cannot be judged
        operands, ops = ch.operands, ch.ops
        if _spread_over(ch, ms):
            operands, ops = operands[1:], ops[1:]
        formula: list[str] = []
        for k, i in enumerate(operands):
            if k:
                formula.append(ops[k - 1])
            formula.append(text[ms[i].start:ms[i].end])
        calc(ms[operands[0]].start, ms[ch.result], formula)
    # a rate said again in other units: "50 MB/s, which on the wire is 50 Gb/s" (the same rate, so the same bytes); a
    # size too: "1.6e6 KiB, which is ~156 MiB" (1,562), not a difference said after it ("that's 2 GB more")
    for a, b in zip(ms, ms[1:]):
        if a.dim == b.dim and a.dim in ("bytes_rate", "bytes") and a.unit and b.unit and a.unit != b.unit and not a.weak \
                and _RESTATED.fullmatch(text, a.end, b.start) and not any(f.mention is b for f in out) \
                and (a.dim == "bytes_rate" or _SIZE_RESTATED.fullmatch(text, a.end, b.start) and (a.value or 0) >= 1024
                     and not _NOT_THE_SAME.match(text, b.end)
                     and (not _OPEN_PAREN.match(text, a.end) or _CLOSE_PAREN.match(text, b.end))):
            calc(a.start, b, [text[a.start:a.end]])
    # "20 GB at 500 MB/s is about 40 s", "at 500 MB/s, 20 GB is about four seconds": a time from a rate
    for k in range(len(ms) - 2):
        a, b, t = ms[k], ms[k + 1], ms[k + 2]
        if t.dim != "time" or not (arithmetic.result_gap(text, b, t) or _per_token_result(text, b, t)
                                   or _READ_IS.fullmatch(text, b.end, t.start)):
            continue
        op = "/"
        if _AT.fullmatch(text[a.end:b.start]) and _RATE_OF.get(b.dim, set()) & {a.dim, "count"}:
            q, r = a, b
        elif _AT.fullmatch(text[a.end:b.start]) and a.dim in ("count", "tokens") and b.dim == "time" \
                and _PER_TOKEN.match(text, b.end) and not a.weak:
            q, r, op = a, b, "x"  # "4,096 at 45 ms that's about 18 seconds": tokens times the time per token
        elif _RATE_OF.get(a.dim, set()) & {b.dim, "count"} and _AT_BEFORE.search(text[max(0, a.start - 6):a.start]) \
                and (_COMMA.fullmatch(text[a.end:b.start]) or _RATE_WORDS.fullmatch(text, a.end, b.start)):
            q, r = b, a
        else:
            continue
        calc(min(a.start, b.start), t, [text[q.start:q.end], op, text[r.start:r.end]])
    # "55 MB/s means a 20 GB log is about 40 seconds of writes": the rate said first
    for k in range(len(ms) - 2):
        a, b, t = ms[k], ms[k + 1], ms[k + 2]
        # ... or as the read's rate: "at ~1 GB/s sequential read a 20 GB log takes about 2 seconds"
        if a.dim == "bytes_rate" and b.dim == "bytes" and t.dim == "time" \
                and (_RATE_THEN.fullmatch(text, a.end, b.start) or _RATE_READ.fullmatch(text, a.end, b.start)) \
                and (arithmetic.result_gap(text, b, t) or _NOUN_IS.fullmatch(text, b.end, t.start)) \
                and not any(f.mention is t for f in out):  # "at 500 MB/s, 20 GB is ...": read above
            calc(a.start, t, [text[b.start:b.end], "/", text[a.start:a.end]])
    # "~55 MB/s of log; per hour that's roughly 20 GB": the period said first
    for k, b in enumerate(ms):
        pb = _PERIOD_FIRST.search(text, max(0, b.start - 40), b.start) if b.dim == "bytes" else None
        if pb is None:
            continue
        a = next((ms[j] for j in range(k - 1, -1, -1) if ms[j].dim == "bytes_rate" and b.start - ms[j].end <= 200), None)
        if a is not None:
            calc(a.start, b, [text[a.start:a.end], "x", pb.group(1)])
    # "50 MB/s, which is about 180 GB a day": a rate over a period said by its word
    for a, b in zip(ms, ms[1:]):
        if not (_RATE_OF.get(a.dim, set()) & {b.dim}) \
                or not (arithmetic.result_gap(text, a, b) or _WHICH_IS.fullmatch(text, a.end, b.start)):
            continue
        pm = _PERIOD.match(text, b.end)
        if pm is not None:
            calc(a.start, b, [text[a.start:a.end], "x", pm.group(1)], end=pm.end())
    return out


_CARRIED_LEAD = re.compile(r"\s*(?:so|that.s|that\s+is|which\s+is|i\.e\.|or)\s*,?\s*(?:about|roughly|around|~|≈)?\s*", re.I)
_NOUN_IS = re.compile(r"\s+(?:of\s+)?(?:log|wal|data|writes)?\s*(?:is|takes|=|≈)\s*(?:about|roughly|around|only|~)?\s*", re.I)
# (a clause on the rate may come before the "so": "say 500 MB a second to be conservative with the parsing, so 20 GB
# takes about four seconds")
_RATE_THEN = re.compile(r"(?:[^\d.;:!?]{0,6}?\s*(?:means|so|gives|,)?|[^\d.;:!?,]{0,50},\s*so)\s*(?:an?|the|our|that)?\s*", re.I)
_PERIOD_FIRST = re.compile(r"\b((?:per|an?|each|every)\s+(?:day|hour|minute|week))\s*,?\s*(?:that.s|that\s+is|it.s|is|gives|"
                           r"comes\s+to|you\s+get)\s*(?:about|roughly|around|~|≈)?\s*$", re.I)
# "a day", "per hour", "each week": the period a rate is carried over
_PERIOD = re.compile(r"\s*(?:of\s+\w+\s+)?((?:a|an|per|each|every|/)\s*(?:day|hour|minute|week))\b", re.I)
# "50 MB/s into the log\n- that's ≈ 180 GB/day": a few words, then the result
# ("At 50 MB/s the log grows about 18 GB an hour": the growth is the result)
_WHICH_IS = re.compile(r"[^\d.;:!?]{0,40}?(?:\bwhich\s+is|\bthat.s|\bthat\s+is|\bso|\bor|\bi\.e\.|\bgrows?(?:\s+by)?|≈|~|=|->|→)\s*"
                       r"(?:about|roughly|around|~|≈)?\s*", re.I)
_AT = re.compile(r"\s*,?\s*(?:at|@)\s*(?:about\s+|around\s+|roughly\s+)?", re.I)
# "20 GB at ~2 GB/s sequential read is about 100 seconds", "... at ~500 MB/s of disk read is about 4 seconds": what
# the time is, then the result
_RATE_READ = re.compile(r"\s+(?:sequential(?:ly)?\s+)?(?:read|reads|reading|replay|scan)\w*\s*,?\s*(?:an?|the|our|that)?\s*", re.I)
_READ_IS = re.compile(r"\s+(?:of\s+)?(?:disk\s+|nvme\s+|ssd\s+|log\s+)?(?:sequential(?:ly)?\s+)?(?:read(?:ing)?|replay(?:ing)?|scan)\s*(?:is|takes|=|≈|->|→)\s*"
                      r"(?:about\s+|roughly\s+|around\s+|~)?", re.I)
# after a time: per token, or nothing more before the result ("at 45 ms that's ...")
# ("4,000 tokens at about 30 ms each, which is 12 seconds")
_PER_TOKEN = re.compile(r"\s*(?:(?:per|a|each|/)\s*(?:output\s+)?tok(?:en)?s?\b|each\b|(?=\s*(?:,|that|this|which|is|=|≈|->|→|gives)))", re.I)
# a word glued or next to a bare number that is no operator, result word or plain noun: an unread unit
_UNKNOWN_UNIT = re.compile(r"\s?(?!(?:x|times|over|minus|plus|less|is|are|gives?|comes|makes|that|which|equals|so|and|or|"
                           r"per|a|an|the|of|for|to|in|on|at|by|with|from|each|more|"
                           # a plain count's own noun ("128 dims x 2 bytes"): still a count
                           r"dims?|dimensions?|rows|entries|items|ids|users|vectors|features|embeddings|"
                           # ... or things counted ("10,000 x 0.5% = 500 failures a week")
                           r"failures?|faults?|events?|tickets?|repairs?|errors?|crashes|jobs?|teams?|tenants?|"
                           r"gpus?|hosts?|nodes?|boxes|cards?|servers?|machines?|puts|writes|calls|queries|records)\b)[A-Za-z]{1,8}\b")
# ... or the divisor of a figure said before it: "141 gigs of weights over two times 4.8 TB/s is about 15 ms"
# (a bullet may open with the operator: "- x 2,048 tokens x 8 sequences = 8 GiB" goes on from the line before)
# (or a factor's label between: "... x 8 KV heads (GQA) x dim 128 x 2 B = 327,680 B")
_TIMES_BEFORE = re.compile(r"(?:(?:^|\s)[x×*·/÷]|\btimes|\bover|\bdivided\s+by)\s*(?:(?:head\s+)?dim|d_?head|d_?model)?\s*$", re.I)
# ... or one term of a sum said with words between: "~1 s to first token plus 50 x ~50 ms, call it 3.5 s"
_TERM_BEFORE = re.compile(r"(?:\bplus|\+)\s*~?\s*$", re.I)
_AT_BEFORE = re.compile(r"(?:\bat|@)\s*$", re.I)
_EACH_BEFORE = re.compile(r"\beach\b[^.;:\d]{0,24}$", re.I)
# "eight A100s at a generous 50% of 312 TFLOP/s": the share is of each of the cards said before it
# ("four H100s at somewhere between 30 and 50% of ~1,000 TFLOPs each": a range's top, the cards said before it)
_AT_SHARE = re.compile(r"(?:\bat|@)\s*(?:(?:a|an|the|some|only|roughly|about|maybe)\s+)?(?:[a-z]+\s+)?"
                       r"(?:between\s+~?\d+(?:\.\d+)?\s*%?\s+and\s+)?$", re.I)
_COMMA = re.compile(r"\s*,?\s*")
# "At 200 MB/s reading from disk, 20 GB is about 10 seconds": a few words on the rate, then the size
_RATE_WORDS = re.compile(r"(?:\s+[a-z]+){1,4}\s*,\s*", re.I)
# a rate's dimension -> the quantities it moves
_RATE_OF = {"bytes_rate": {"bytes"}, "rate_writes": {"writes"}, "rate_tokens": {"tokens"},
            "rate_sequences": {"sequences"}, "rate_items": {"items"}, "rate_count": {"count"}}


def _settings(seg: Segment, found: list[Found], v: Vocab, hyp: bool, comp: bool) -> list[Found]:
    """Settings named without a value ("we won't cap max_num_seqs"): claims with value None."""
    out = []
    text = seg.text
    have = {f.kind for f in found}
    low, folded = text.lower(), folds(text)
    for kind, pat in v.settings.items():
        if kind in have or not may_match(v.settings_needs[kind], low, folded):
            continue  # (a setting's words are not in the sentence)
        sm = pat.search(text, seg.map_from)
        if not sm:
            continue
        out.append(Found(kind=kind, value=None, mention=None, start=sm.start(), end=sm.end(),
                         negated=_negated(text, sm.start(), v), hypothetical=hyp, comparison=comp, cue="setting"))
    return out
