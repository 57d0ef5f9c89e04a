"""build_ledger: a transcript's turns -> typed, checked claims."""
from __future__ import annotations

import functools
import re
from typing import Optional, Sequence

from text_to_num import text2num

from interviewer.claims.attach import clause_flags, find_claims, one_layer_after
from interviewer.claims.gqa import about_size, asks_about_gqa, shrink_factors
from interviewer.claims.models import Claim, Ledger, construct, copied
from interviewer.claims.numbers import writes_european
from interviewer.claims.periods import restated_rates
from interviewer.claims.physics import Ctx, check_all
from interviewer.claims.segments import blank_quoted, candidate_reading, segments
from interviewer.claims.subjects import Tracker
from interviewer.claims.vocab import load

_MAY_FOLLOW = re.compile(r"\d")  # a rate the sentence does not end on is not carried into the next
_ROLES = {"interviewer": "interviewer", "candidate": "candidate", "assistant": "interviewer", "user": "candidate"}


# an interviewer's question about another set-up: "If you quantize the weights to INT4, what gets faster?"
_ASKED_IF = re.compile(r"\s*(?:what\s+if|if|say|suppose|imagine)\b", re.I)


@functools.lru_cache(maxsize=4096)
def _found(text: str) -> tuple:
    """A turn's segments, the figures found in each, what each says about the subject and whether it
    is hypothetical or a comparison: a function of the text alone, so a round that rebuilds its
    ledger after every answer reads each earlier turn once."""
    v = load()
    tracker = Tracker(v)
    out = []
    rate = None
    layer = False
    for seg in segments(text):
        hyp_m, comp = flags = clause_flags(seg.text, v)
        found = tuple(find_claims(seg, v, rate, flags, layer))
        layer = one_layer_after(seg.text, layer)
        last = found[-1].mention if found else None
        rate = seg.text[last.start:last.end] if last is not None and last.dim == "bytes_rate" \
            and not _MAY_FOLLOW.search(seg.text, last.end) else None
        hyp = any(f.hypothetical for f in found) or hyp_m is not None
        out.append((seg, found, tracker.segment_subject(seg, list(found)), hyp, comp))
    return tuple(out)


# "How many concurrent sequences does that give one four-GPU replica?" - "About 270."
# ("So how many 2,000-token sequences on one card?")
_ASKED_HOW_MANY = re.compile(r"\bhow\s+many\s+(?:concurrent\s+|active\s+|live\s+|simultaneous\s+|[\d,.]+[kK]?-token\s+)?"
                            r"(?:sequences|requests|conversations|chats|users|streams)\b[^?]{0,80}\?", re.I)
# ("About 270.", "Twenty-six.", "Short version: about two dozen [2].": a footnote marker after it)
_BARE_COUNT = re.compile(r"\W*(?:(?:short|quick)\s+(?:version|answer)\s*:\s*)?(?P<approx>(?:about|roughly|around|approximately|"
                         r"maybe|probably|call\s+it)\s+|~)?~?(?P<n>\d[\d,]*|[a-z]+(?:[- ][a-z]+)?)\s*(?:\[\d+\])?\s*[.!]?\s*$", re.I)
_DOZENS = re.compile(r"(?:(?P<n>a|one|two|three|four|five|six)\s+)?dozen", re.I)


# "You preallocate the cache to max length: batch 8, 2,048 tokens, 32 layers ... How much?": the size the answer
# opens with is the batch's KV
_ASKED_HOW_MUCH = re.compile(r"\bhow\s+much\b", re.I)
_BATCH_ASKED = re.compile(r"\bbatch(?:\s+size)?(?:\s+of)?\s*(?:=\s*)?\d", re.I)
_CONCLUDES = re.compile(r"\s*(?:that.s|that\s+is|so|total|in\s+total|which\s+is|all\s+in|altogether)\b", re.I)
_CACHE_ASKED = re.compile(r"\b(?:kv|cache|memory|keys\s+and\s+values)\b", re.I)


def asks_batch_size_of_cache(text: str) -> bool:
    """Does an interviewer turn ask how much a batch's KV cache takes ("How much memory is that for batch
    8, 2,048 tokens, 32 layers ...")?"""
    return bool(_ASKED_HOW_MUCH.search(text) and _BATCH_ASKED.search(text) and _CACHE_ASKED.search(text)
                and re.search(r"\btokens?\b", text, re.I))


def _answered_size(seg, found: list, v) -> tuple:
    """The size that ends the answer's first sentence to "how much memory for batch 8 ...?", given no kind
    ("2,048 x 32 x 32 x 128 x 2 bytes = 536,870,912 bytes, so 512 MB", "4 GiB."): that batch's KV."""
    from interviewer.claims.attach import Found
    from interviewer.claims.numbers import find_mentions

    taken = {(f.start, f.end) for f in found}
    sizes = [m for m in find_mentions(seg.text, v) if m.dim == "bytes" and m.value and m.value >= 1e6
             and m.start >= seg.map_from]
    if not sizes or any(f.kind.startswith("kv_") or f.kind in ("weights_bytes", "free_kv_bytes") for f in found):
        return ()
    m = sizes[-1]
    if (m.start, m.end) in taken:
        return ()
    return (Found(kind="kv_bytes_batch", value=m.value, mention=m, start=m.start, end=m.end, approx=m.approx,
                  low=m.low, high=m.high, cue="answered"),)


def _count_of(said: str) -> float:
    """A count in digits or words ("270", "Twenty-six"); 0 when it is neither."""
    if said[0].isdigit():
        return float(said.replace(",", ""))
    dozens = _DOZENS.fullmatch(said)
    if dozens:
        n = (dozens.group("n") or "a").lower()
        return 12.0 * (1 if n in ("a", "one") else ["two", "three", "four", "five", "six"].index(n) + 2)
    try:
        return float(text2num(said.lower().replace("-", " "), "en"))
    except (ValueError, TypeError):
        return 0.0


def _answered_count(seg, asked: re.Match) -> tuple:
    """A bare number that opens the answer to "how many sequences?" is that count: ("About 270." after
    "How many concurrent sequences does that give one replica?")."""
    from interviewer.claims.attach import Found

    m = _BARE_COUNT.fullmatch(seg.text)
    value = _count_of(m.group("n")) if m else 0.0
    if not 10 <= value <= 100_000 or re.fullmatch(r"\s*\d{1,2}\.\s*", seg.text):
        return ()  # (not a numbered list's "3.")
    scope = "per_replica" if re.search(r"\breplica\b", asked.group(0), re.I) else (
        "per_gpu" if re.search(r"\b(?:gpu|card)\b", asked.group(0), re.I) else None)
    return (Found(kind="concurrent_sequences", value=value, mention=None, start=m.start("n"), end=m.end("n"),
                  approx=m.group("approx") is not None or "~" in seg.text[:m.start("n")], scope=scope, cue="answered"),)


# the question's own scope: "how many 2,000-token sequences can that GPU hold?", "... does that give one four-GPU replica?"
_ONE_GPU_ASKED = re.compile(r"\b(?:that|one|each|a|a\s+single|the|per)\s+(?:gpu|card)\b(?!s)", re.I)
_ONE_REPLICA_ASKED = re.compile(r"\b(?:that|one|each|a|a\s+single|the|per)\s+(?:[\w-]+\s+)?replica\b(?!s)", re.I)


def _asked_scope(asked: re.Match | None) -> str | None:
    """The scope "how many ...?" asks about: one GPU's or one replica's count, or None where it names neither."""
    if asked is None:
        return None
    return "per_replica" if _ONE_REPLICA_ASKED.search(asked.group(0)) else (
        "per_gpu" if _ONE_GPU_ASKED.search(asked.group(0)) else None)


_OVERHEAD_BEFORE = re.compile(r"\b(?:activations?|cuda\s+graphs?|nccl|buffers?|overhead|workspace|reserve|headroom)\b"
                             r"[^.;\d]{0,40}$", re.I)
# the count answered with its scope and no noun: "So roughly 30 per GPU, 240 across the host."
_PER_SCOPE = re.compile(r"\s*(?:per|a|each|on\s+(?:each|one|a))\s+(?:gpu|card|replica)\b", re.I)


def _answered_per(seg, found, asked: re.Match, v) -> list:
    """Counts said per GPU or replica with no noun, in the answer to "how many sequences ...?": that count."""
    from interviewer.claims.attach import Found
    from interviewer.claims.numbers import find_mentions

    taken = [(f.start, f.end) for f in found]
    out = []
    for m in find_mentions(seg.text, v):
        per = _PER_SCOPE.match(seg.text, m.end)
        if m.dim != "count" or not 2 <= m.value <= 100_000 or m.start < seg.map_from or per is None \
                or any(s <= m.start < e for s, e in taken) or _OVERHEAD_BEFORE.search(seg.text, 0, m.start):
            continue  # (not memory set aside, its unit in a table's header: "activations, NCCL buffers (~8 per card)")
        scope = "per_replica" if "replica" in per.group(0).lower() else "per_gpu"
        out.append(Found(kind="concurrent_sequences", value=m.value, mention=m, start=m.start, end=m.end,
                         approx=m.approx, scope=scope, scope_after=True, cue="answered"))
    return out


_THE_BEFORE = re.compile(r"\bthe\s+(?:same\s+)?~?$", re.I)
_ECHO_BEFORE = re.compile(r"\b(?:that|this|your|the)\s+~?$", re.I)
_BARE = re.compile(r"~?\d[\d,.]*\s*[kmg]?", re.I)


def _referred_kind(f, text: str, claims: list[Claim], v) -> str:
    """A figure said again with "the" is the one said before ("... say 62 gigs" then "so the 62 gigs holds
    sequences by their actual length"): it keeps that figure's kind, whatever its new sentence suggests. So does a bare
    figure either speaker points back at ("Does that 400K cover both the keys and the values?")."""
    unit = v.unit_of(f.kind)
    # (large figures only: "the 8" is as often a new count as the old one)
    if f.value is not None and abs(f.value) >= 1000 and _BARE.fullmatch(text[f.start:f.end]) \
            and _ECHO_BEFORE.search(text, max(0, f.start - 8), f.start):
        # a bare figure pointed back at ("Does that 400K cover both the keys and the values?" after "KV/token |
        # 400K byte") is the candidate's figure, unit and all - not a new quantity the question's words suggest
        # (a calculation's result pointed back at, "That 2,160 is fleet-wide", is the quantity, not another calculation)
        said = _said_before(claims, f.value, lambda c: c.kind != "arithmetic")
        if said is not None:
            return said.kind
    # a bare count read as a length that is the cap set before: "max_num_seqs = 256 ... at 256 it would thrash"
    if f.kind == "seq_len" and f.value is not None and _BARE.fullmatch(text[f.start:f.end]) \
            and _said_before(claims, f.value, lambda c: c.kind == "max_num_seqs" and c.speaker == "candidate") is not None:
        return "max_num_seqs"
    # (sizes and times only: a small count said again, "the 8 slots", is as often a new quantity as the old one;
    # "that's 125 times the 40 ms p99" is the inter-token p99 measured before, not a request's)
    if f.value is None or unit not in ("bytes", "ms") or not _THE_BEFORE.search(text, max(0, f.start - 12), f.start):
        return f.kind
    said = _said_before(claims, f.value, lambda c: c.kind != f.kind and c.unit == unit and not c.hypothetical
                        and (unit == "bytes" or "_p9" in c.kind))
    return f.kind if said is None else said.kind


# a figure taken back by name, its replacement said after it: "Scratch the 40 ms I used, that was our old A100 number;
# on H100 at TP=4 it's more like 25 ms at p99", "scratch the 500: 50,000 x 1 KB is 50 MB a second"
_SCRATCH = re.compile(r"\b(?:scratch|forget|ignore)\s+(?:the|my|that)\s+~?(\d[\d,]*(?:\.\d+)?)(?!\s*(?:x\b|×|%))", re.I)
_PERCENTILE_SUFFIX = re.compile(r"_(?:p50|p95|p99|mean)(?=_ms$)")


def _said_number(span: str) -> float | None:
    """The number a span opens with, as written ("500 MB a second" -> 500)."""
    m = re.search(r"\d[\d,]*(?:\.\d+)?", span)
    try:
        return float(m.group(0).replace(",", "")) if m else None
    except ValueError:
        return None


def _revised(t: int, text: str, claims: list[Claim], v) -> None:
    """A figure the candidate takes back by name ("scratch the 40 ms I used ... more like 25 ms at p99") is replaced by
    the next figure of its unit in the same answer: that one is the same quantity, whatever its own words suggest
    (at its own percentile: the 40 ms per token revised to 25 ms at p99 is a p99 per token)."""
    for m in _SCRATCH.finditer(text):
        try:
            value = float(m.group(1).replace(",", ""))
        except ValueError:
            continue
        # (by its value, or by the number as said: "scratch the 500" takes back "500 MB a second")
        old = next((c for c in reversed(claims) if c.speaker == "candidate" and not c.negated
                    and (c.value == value or _said_number(c.span) == value)
                    and (c.turn < t or c.end <= m.start())), None)
        if old is None:
            continue
        new = next((c for c in claims if c.turn == t and c.speaker == "candidate" and c.start >= m.end()
                    and c.start - m.end() <= 200 and c.unit == old.unit and c.value != value), None)
        if new is None or new.kind == old.kind:
            continue
        kind = old.kind
        if new.percentile and _PERCENTILE_SUFFIX.search(kind) is None and kind.endswith("_ms"):
            kind = kind[:-3] + f"_{new.percentile}_ms"
        elif new.percentile:
            kind = _PERCENTILE_SUFFIX.sub(f"_{new.percentile}", kind)
        if kind in v.kinds:
            new.kind = kind


def _said_before(claims: list[Claim], value: float, keep) -> Claim | None:
    """The candidate's latest figure of this value, not negated, that `keep` accepts."""
    for c in reversed(claims):
        if c.speaker == "candidate" and c.value is not None and not c.negated \
                and abs(c.value - value) <= 1e-9 * max(abs(value), 1.0) and keep(c):
            return c
    return None


def _add_shrinks(t: int, text: str, read: str, claims: list[Claim], where: list, tracker: Tracker, v) -> None:
    """The answer to "8 KV heads for 32 query heads: what changes?" says how much the cache shrinks
    ("4x smaller", "8 GiB becomes 2 GiB"): one `kv_shrink_factor` claim each, in place of the bare
    "4x" the kinds read as a speed-up."""
    for si, (seg, _found_, _said, hyp, _comp) in enumerate(_found(read)):
        for s, e, value in shrink_factors(seg.text):
            if not about_size(seg.text, s, e):
                continue
            start, end = seg.to_turn(s), seg.to_turn(e)
            for k in range(len(claims) - 1, -1, -1):
                c = claims[k]
                if c.turn != t:
                    break
                if c.kind == "speedup" and c.start < end and start < c.end:
                    del claims[k], where[k]
            at = next((k for k, c in enumerate(claims) if c.turn == t and c.start > start), len(claims))
            claims.insert(at, construct(
                Claim, kind="kv_shrink_factor", value=value, unit=v.unit_of("kv_shrink_factor"), subject=copied(tracker.carried),
                turn=t, span=text[start:end], start=start, end=end, sentence=seg.sentence, at=s - seg.map_from,
                speaker="candidate", hypothetical=hyp, source=seg.source))
            where.insert(at, (t, si))


def _add_restated(t: int, text: str, read: str, claims: list[Claim], where: list, tracker: Tracker, v) -> None:
    """A count per period said again per another ("200 GPUs a month, which is about 20 a day"): one
    `period_rate` claim for the figure restated (physics checks the division)."""
    found = restated_rates(read)
    if not found:
        return
    segs = _found(read)
    for s, e, value, first, period in found:
        si = next((k for k, (seg, *_r) in enumerate(segs) if seg.to_turn(seg.map_from) <= s < seg.to_turn(len(seg.text))),
                  None)
        if si is None:
            continue
        seg, _f, _said, hyp, _comp = segs[si]
        at = next((k for k, c in enumerate(claims) if c.turn == t and c.start > s), len(claims))
        claims.insert(at, construct(
            Claim, kind="period_rate", value=value, unit=v.unit_of("period_rate"), subject=copied(tracker.carried),
            turn=t, span=text[s:e], start=s, end=e, sentence=seg.sentence, at=s - seg.to_turn(seg.map_from),
            speaker="candidate", hypothetical=hyp, source=seg.source, formula=[first, period]))
        where.insert(at, (t, si))


def build_ledger(turns: Sequence[tuple[str, str]], family: Optional[str] = None,
                 question_id: Optional[str] = None) -> Ledger:
    """Every figure said in `turns` ((role, text) pairs; role "interviewer" or "candidate"), typed,
    normalised, given its subject, flagged, and (for the candidate's) checked against physics.

    Turn numbers are positions in `turns`. Spans are exact substrings of their turn's text.
    """
    v = load()
    tracker = Tracker(v)
    claims: list[Claim] = []
    where: list[tuple[int, int]] = []
    subjects = []
    texts = [text or "" for _role, text in turns]
    # a candidate who writes "13,5 GB" means "524.288 byte" as 524,288 bytes (same length: spans stay exact)
    european = writes_european([t for (r, _x), t in zip(turns, texts) if _ROLES.get(str(r).lower(), "candidate") == "candidate"])
    what_if = None  # "What if we had H200s instead?": the next answer is about those
    for t, (role, _text) in enumerate(turns):
        speaker = _ROLES.get(str(role).lower(), "candidate")
        text = texts[t]
        saved = None
        if speaker == "candidate" and what_if is not None:
            saved, tracker.carried = tracker.carried, what_if
        what_if = None
        read = text
        if speaker == "candidate":
            earlier = (texts[k] for k in range(t) if _ROLES.get(str(turns[k][0]).lower(), "candidate") != "candidate")
            read = candidate_reading(blank_quoted(text, earlier), european)
        asked = _ASKED_HOW_MANY.search(texts[t - 1]) if speaker == "candidate" and t > 0 else None
        asked_scope = _asked_scope(asked)
        sized = speaker == "candidate" and t > 0 and asks_batch_size_of_cache(texts[t - 1])
        prose = -1  # the answer's sentences counted without its tables: a table of factors opens the answer, its sum
        # follows ("| layers | 32 | ... 8 x 2,048 x 32 x 4,096 x 2 = 4,294,967,296 bytes, so 4 GiB.")
        for si, (seg, found, said, hyp, comp) in enumerate(_found(read)):
            tabular = seg.source == "table" or seg.text.lstrip().startswith("|")  # (a table's header row reads as prose)
            prose += not tabular
            if asked is not None and si == 0 and not found:
                found = _answered_count(seg, asked)
            if asked is not None and not hyp and not comp:
                extra = _answered_per(seg, found, asked, v)
                if extra:
                    found = tuple(sorted([*found, *extra], key=lambda f: f.start))
            if sized and not tabular and (prose == 0 or prose < 3 and _CONCLUDES.match(seg.text)) and not hyp:
                # (the answer's first sentence, or its sum: "8 x 2,048 x 2 x ... x 2 bytes. That's 8 GiB.")
                extra = _answered_size(seg, list(found), v)
                if extra:
                    found, sized = sorted([*found, *extra], key=lambda f: f.start), False
            # "What if we had H200s?", "If you quantize the weights to INT4, what gets faster?": the answer is about those
            if speaker == "interviewer" and (hyp or _ASKED_IF.match(seg.text) and "?" in seg.text) \
                    and (said["gpus"] or said["models"] or said["weights_dtype"]):
                what_if = tracker.resolve(said, 10**9)
                what_if.gpus_in_sentence = None
            base = tracker.carried
            for f in found:
                f.kind = _referred_kind(f, seg.text, claims, v)
                subject = tracker.resolve(said, f.start, base)
                start, end = seg.to_turn(f.start), seg.to_turn(f.end)
                scope, stated, scope_asked = f.scope, f.scope is not None, False
                if f.kind == "concurrent_sequences" and scope is None and not f.hypothetical and asked_scope:
                    # the answer to "how many ... can that GPU hold?" is that GPU's count, whatever GPUs the round
                    # named before ("spread over eight GPUs ... 54 GB over 200 MB is 270 sequences")
                    scope, scope_asked = asked_scope, True
                if f.kind == "concurrent_sequences" and scope is None:
                    scope = "per_replica" if (subject.tp or subject.gpus_in_sentence or 1) > 1 else "per_gpu"
                elif f.kind == "fleet_in_flight" and scope is None:
                    scope = "fleet"
                claims.append(construct(
                    Claim,
                    kind=f.kind, value=f.value, unit=v.unit_of(f.kind), low=f.low, high=f.high, approx=f.approx,
                    bound=f.bound, percentile=f.percentile, scope=scope, scope_stated=stated, scope_asked=scope_asked,
                    scope_after=f.scope_after,
                    subject=subject,
                    turn=t, span=text[start:end], start=start, end=end, sentence=seg.sentence, at=f.start - seg.map_from,
                    speaker=speaker,
                    said_by_interviewer=speaker == "interviewer", negated=f.negated, hypothetical=f.hypothetical,
                    source="formula" if f.formula else seg.source, formula=f.formula,
                ))
                where.append((t, si))
            tracker.advance(said, carry=not hyp and not comp)
        if speaker == "candidate" and t > 0 and asks_about_gqa(texts[t - 1]):
            _add_shrinks(t, text, read, claims, where, tracker, v)
        if speaker == "candidate":
            _add_restated(t, text, read, claims, where, tracker, v)
            _revised(t, read, claims, v)
        if saved is not None:
            tracker.carried = saved  # the hypothetical answer's subject does not outlive it
        subjects.append(copied(tracker.carried))
    check_all(Ctx(claims=claims, sentence_of=where, v=v, texts=texts))
    return Ledger(claims=claims, family=family, question_id=question_id, subjects=subjects)
