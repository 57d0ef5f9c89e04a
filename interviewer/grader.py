"""The deterministic grader: evidence and the claim ledger -> per-criterion scores with quotes ->
overall, level verdict and next steps.

A criterion's score is the highest level of its family reading (rubrics/families.yaml) whose
alternative holds on the evidence, where anything above level 1 needs substance - a value or a
stated rule, from the claim ledger or a rule said - never vocabulary alone. Then caps:

* a figure the ledger checks as wrong keeps its criterion below "derived and checked" (a badly
  wrong chain - an impossible figure, or one off by the configured ratio - lower still);
* a pitfall that contradicts a level caps it (continuous batching with no limits, a list of
  policies with no choice, averages only, a vendor's multiplier carrying the arithmetic).

The quotes are the sentences that earned the score: one per piece of evidence of the alternative
that reached it.
"""
from __future__ import annotations

import math
import re
from typing import Optional

from pydantic import BaseModel, Field

from interviewer.bank import Question, load_bank
from interviewer.checks import CapacityCheck, capacity_from_ledger
from interviewer.claims import Check, Claim, Ledger, build_ledger
from interviewer.claims.models import construct
from interviewer.errors import UserError
from interviewer.evidence import Evidence, Hit, extract, guessed_at, in_summary, quote_around, sentence_at
from interviewer.rubric import Rubric, load_rubric
from interviewer.transcript import Transcript

MAX_QUOTES = 4
VERDICTS = ("below-mid", "mid", "senior", "staff")


class Quote(BaseModel):
    turn: int
    quote: str


class CriterionResult(BaseModel):
    id: str
    title: str
    required: bool
    score: int
    evidence: list[Quote] = Field(default_factory=list)
    feedback: str
    missing: list[str] = Field(default_factory=list)
    reads_as: str = ""
    found: list[str] = Field(default_factory=list)  # labels of the evidence items present
    capped_by: list[str] = Field(default_factory=list)  # why the score is below what the evidence reached


class PitfallResult(BaseModel):
    id: str
    title: str
    turn: int
    quote: str
    feedback: str


class ClaimResult(BaseModel):
    """One figure the candidate said ("What we heard you claim"): `span` is an exact substring of
    turns[turn].text."""

    kind: str
    label: str = ""
    value: Optional[float] = None
    unit: str = ""
    subject: dict = Field(default_factory=dict)
    turn: int
    span: str
    negated: bool = False
    hypothetical: bool = False
    check: Optional[Check] = None  # the ledger's check: status, rule, explanation, expected, trace, ...


class Report(BaseModel):
    question_id: str
    question_title: str = ""
    company: str | None = None
    level: str | None = None
    family: str
    overall: int
    criteria: list[CriterionResult]
    pitfalls: list[PitfallResult] = Field(default_factory=list)
    level_verdict: str
    down_level_risk: str | None = None
    next_steps: list[str] = Field(default_factory=list)
    capacity_check: CapacityCheck | None = None
    ignored_instructions: list[Quote] = Field(default_factory=list)
    claims: list[ClaimResult] = Field(default_factory=list)
    judge: dict | None = None  # filled in when an LLM judge was reconciled (interviewer.judge)

    def criterion(self, cid: str) -> CriterionResult:
        return next(c for c in self.criteria if c.id == cid)


# ------------------------------------------------------------------------------------- analysis


def ledger_for(turns: list[tuple[int, str]], transcript_turns: list[tuple[str, str]] | None = None,
               family: str | None = None, question_id: str | None = None) -> Ledger:
    """The claim ledger of a round: from every turn when known (the interviewer's opening names the
    model and GPU the candidate's "80 gig card" refers to), else from the candidate's turns alone
    with their turn numbers kept."""
    if transcript_turns is None:
        n = max((i for i, _ in turns), default=-1) + 1
        full = [("interviewer", "")] * n
        for i, text in turns:
            full[i] = ("candidate", text)
        transcript_turns = full
    return build_ledger(transcript_turns, family=family, question_id=question_id)


# the budget's other figures name the model and the card too: "8 GiB for the batch. Next to ~13.5 GB of FP16 weights
# that's fine on an 80 GB card"
_NAMES_TOO = frozenset({"weights_bytes", "gpu_memory_bytes", "kv_bytes_batch", "params"})


def _computed_items(ev: Evidence, rubric: Rubric, family: str) -> None:
    """named_hardware and capacity_checked, from the ledger (memory-budget families)."""
    if ev.ledger is None or not rubric.families[family].memory_capacity:
        return
    main = ("concurrent_sequences", "kv_cache_tokens", "kv_bytes_per_token", "kv_bytes_per_sequence", "free_kv_bytes")
    present = ev.present
    # (an answer a pitfall taints - the KV cache taken for a key-value store - earns nothing here either)
    tainted = ev.tainted_turns(rubric)
    # the question's own model, given by its shape ("32 layers, 32 heads of dimension 128"), and a card the
    # candidate names for the round ("On the 24 GiB A10G I'm testing on", "on a 24G dev card"): a cache checked on that shape is
    # sized for a model and a GPU both named
    # ... or, where no card is named in the round at all (a coding drill: "How much memory is that for batch 8, 2,048
    # tokens, 32 layers and 32 heads of dimension 128 in FP16?"), the shape alone: the bytes are checked without one
    stated = {c.kind for c in ev.ledger.claims if c.speaker == "interviewer" and c.value and not c.negated}
    card = {"layers", "head_dim"} <= stated and bool({"kv_heads", "attention_heads"} & stated) and (any(
        c.speaker == "candidate" and (c.subject.gpu or c.subject.gpu_memory_gib) and not c.hypothetical and not c.negated
        and c.turn not in tainted
        for c in ev.ledger.claims) or not any(c.subject.gpu or c.subject.gpu_memory_gib for c in ev.ledger.claims))
    for c in ev.ledger.claims:
        if c.turn not in ev.texts or c.speaker != "candidate" or c.value is None or c.negated or c.hypothetical \
                or c.turn in tainted:
            continue
        if c.kind not in main and c.kind not in _NAMES_TOO:
            continue
        s = c.subject
        # (ev.present is a set made afresh from every item's hits: read once, kept up to date by hand)
        right = c.kind in main and c.check is not None and c.check.status == "ok"
        named = (bool((s.model or s.params_b) and (s.gpu or s.gpu_memory_gib)) or card and not s.model and right) \
            and "named_hardware" not in present
        # (a figure guessed that happens to land right checks nothing: "I'd guess that's around 40 users per GPU")
        checked = right and "capacity_checked" not in present and not guessed_at(ev.texts[c.turn], c.start, c.end)
        if not (named or checked):
            continue
        quote = quote_around(ev.texts[c.turn], c.start, c.end)
        if named:
            ev.add(Hit("named_hardware", c.turn, c.start, c.end, quote, "computed"))
            present.add("named_hardware")
        if checked:
            ev.add(Hit("capacity_checked", c.turn, c.start, c.end, quote, "computed"))
            present.add("capacity_checked")


_CAP_BEFORE = re.compile(r"\b(?:max[_ ]?(?:new[_ ]?)?tokens?|max(?:imum)?\s+output|output\s+cap|token\s+cap)\b[^.\d]{0,8}$", re.I)
_TYPICAL = re.compile(r"\b(?:average|typical(?:ly)?|mean|median|usually|most\s+(?:replies|answers|responses))\b", re.I)


_PER_TOKEN_KINDS = frozenset({"tpot_ms", "tpot_p50_ms", "tpot_p95_ms", "tpot_p99_ms", "tpot_mean_ms", "decode_step_ms"})


def _worked_duration(ev: Evidence, rubric: Rubric, family: str) -> None:
    """expected_duration from the ledger: a time said in an answer that is a token count said in it times its
    per-token time ("Max tokens 4,096. ~40 ms a token for the 70B ... 164 seconds. Prefill on top"), however
    terse - the work multiplied out, not a phrase."""
    spec = rubric.families[family].criteria.get("capacity_number")
    if ev.ledger is None or spec is None or "expected_duration" not in spec.items or "expected_duration" in ev.present:
        return
    from interviewer.claims.numbers import find_mentions
    from interviewer.claims.vocab import load

    v = load()
    for turn, text in sorted(ev.texts.items()):
        per_token = [(c.start, c.value) for c in ev.ledger.claims
                     if c.turn == turn and c.kind in _PER_TOKEN_KINDS and _planned(c)]
        if not per_token:
            continue
        ms = find_mentions(text, v)
        # the reply's cap, said as tokens ("Max tokens 4,096."), not a typical reply ("about 300 tokens on average":
        # a timeout from the average kills healthy long answers) nor a count of token-times a watchdog waits
        counts = [(m.start, m.value) for m in ms if m.value and 64 <= m.value <= 1_000_000
                  and (m.dim == "tokens" or _CAP_BEFORE.search(text, max(0, m.start - 20), m.start))
                  and not _TYPICAL.search(sentence_at(text, m.start))]
        for m in ms:
            if m.dim != "time" or not m.value or m.value < 1000:
                continue
            if any(abs(math.log(m.value / (n * t))) <= math.log(1.1)
                   for at_n, n in counts for at_t, t in per_token if at_n < m.start and at_t < m.start):
                ev.add(Hit("expected_duration", turn, m.start, m.end, quote_around(text, m.start, m.end), "computed"))
                return


_WORST_CASE = re.compile(r"\bworst[- ]case\b|\bwcet\b|\bhard\s+deadlines?\b", re.I)
_OF_MEANS = re.compile(r"\bon\s+average\b|\b(?:the\s+)?averages\s+(?:add|sum|come)\b|\bmean\s+(?:latenc|time)", re.I)
_TAIL_KINDS = frozenset({"latency_p99_ms", "latency_p95_ms", "ttft_p99_ms", "ttft_p95_ms"})


def _split_of_the_target(ev: Evidence, rubric: Rubric, family: str) -> None:
    """tail_target from the ledger: a stage split whose parts add up to the p99 budget the interviewer set ("Split that
    150 ms for me" - "network 20 ms, retrieval 30 ms, feature fetch 40 ms, ranking 50 ms, slack 10 ms") takes that
    budget on as the target, though the answer never says "p99" again."""
    spec = rubric.families[family].criteria.get("tail_latency_tradeoff")
    if ev.ledger is None or spec is None or "tail_target" not in spec.items or "tail_target" in ev.present:
        return
    budgets = [c.value for c in ev.ledger.claims if c.speaker == "interviewer" and c.kind in _TAIL_KINDS and c.value]
    if not budgets:
        return
    from interviewer.claims.numbers import find_mentions
    from interviewer.claims.vocab import load

    for hit in ev.hits.get("stage_split", []):
        text = ev.texts.get(hit.turn, "")
        parts = [m for m in find_mentions(text, load()) if m.dim == "time" and m.value and m.value < min(budgets)]
        total = sum(m.value for m in parts)
        # (a split of worst cases is a deadline, not the percentile: "a worst-case execution budget: network 20 ms, ...")
        # (nor a split of averages: "retrieval takes about 20 ms on average, feature fetch about 15 ms, ...")
        if len(parts) >= 3 and any(abs(total - b) <= 0.05 * b for b in budgets) and not _WORST_CASE.search(text) \
                and not _OF_MEANS.search(text):
            ev.add(Hit("tail_target", hit.turn, hit.start, hit.end, hit.quote, "computed"))
            return


def analyse(turns: list[tuple[int, str]], rubric: Rubric, family: str,
            transcript_turns: list[tuple[str, str]] | None = None,
            ledger: Ledger | None = None) -> tuple[Evidence, CapacityCheck | None]:
    """Evidence from the candidate turns ((index, text) pairs), read with the claim ledger, plus the
    capacity check the report shows.

    `transcript_turns` ((role, text) for every turn) lets the ledger carry the model and GPU the
    interviewer named; `ledger` passes one already built from them. Without either, the ledger is
    built from the candidate's turns alone."""
    if ledger is None:
        ledger = ledger_for(turns, transcript_turns, family)
    context = {}
    if transcript_turns is not None:
        context = {i: text for i, (role, text) in enumerate(transcript_turns) if role != "candidate"}
    ev = extract(turns, rubric, family, ledger, context)
    _computed_items(ev, rubric, family)
    _worked_duration(ev, rubric, family)
    _split_of_the_target(ev, rubric, family)
    check = capacity_from_ledger(ledger) if rubric.families[family].memory_capacity else None
    return ev, check


# ------------------------------------------------------------------------------------- scoring


def _planned(c: Claim) -> bool:
    return c.speaker == "candidate" and c.value is not None and not c.negated and not c.hypothetical


# checks that do not depend on which model stands in for one named only by size ("a 70B model")
_MODEL_FREE = frozenset({"arithmetic", "fleet_share", "write_rate", "fsync_rate", "request_rate_rps", "timeout_s"})
_SHAPE_KINDS = frozenset({"layers", "kv_heads", "hidden_size", "attention_heads"})
# sizes that are one input where capacity is a timeout or a throughput, however far off
_MEMORY_KINDS = frozenset({"kv_bytes_per_token", "kv_bytes_per_sequence", "kv_bytes_batch", "weights_bytes", "free_kv_bytes"})
# inputs a derivation is built on (a per-token time, a token rate, an fsync time): one that is off,
# even impossibly, caps capacity at "the arithmetic is off" unless it is off by the badly-wrong ratio
_INPUT_KINDS = frozenset({"tpot_ms", "tpot_p50_ms", "tpot_p95_ms", "tpot_p99_ms", "tpot_mean_ms", "decode_step_ms",
                          "tokens_per_s", "fsync_latency_ms"})


# totals checked against the question's shape, whose right value may come back as a bare product ("So it's 524,288
# bytes per token x 16,384 token slots = 8,589,934,592 bytes, exactly 8 GiB")
_REDONE_RULES = frozenset({"kv_batch"})


def _put_right_later(c: Claim, ev: Evidence) -> bool:
    """Is a total checked wrong against the shape said right later by the candidate, as any figure of the
    value physics expects (a slip put right: "that's 16 GiB on my sheet; no ... It's 8 GiB")?"""
    if c.check is None or c.check.rule not in _REDONE_RULES or not c.check.expected:
        return False
    from interviewer.claims.numbers import find_mentions
    from interviewer.claims.vocab import load

    want = c.check.expected
    for t in sorted(x for x in ev.texts if x >= c.turn):
        text = ev.texts[t]
        if any(m.dim == "bytes" and m.value and (t > c.turn or m.start >= c.end)
               and abs(math.log(m.value / want)) <= math.log(1.1) for m in find_mentions(text, load())):
            return True
    return False


def _uses_shape(c: Claim) -> bool:
    """A product whose factors are the stand-in's layers, KV (or attention) heads and head size ("40 x 40
    x 128 x 2" or "40 x 5,120 x 2" for a 13B): the candidate assumes that shape, unlabelled."""
    from interviewer import capacity
    from interviewer.claims.arithmetic import MUL

    m = capacity.load_presets().models.get(c.subject.model) if c.subject.model else None
    if m is None or not MUL & set(c.formula):
        return False
    factors = [f.replace(",", "") for f in c.formula]
    if str(m.layers) not in factors:
        return False
    # the heads and head size, or their product, the model's width ("40 x 5,120 x 2")
    return (str(m.head_dim) in factors and (str(m.kv_heads) in factors or str(m.attention_heads) in factors)) \
        or str(m.attention_heads * m.head_dim) in factors or str(m.kv_heads * m.head_dim) in factors


def _divides(c: Claim) -> bool:
    """A calculation that is a division ("50 over 1.8", "180G / 160KB")."""
    from interviewer.claims.arithmetic import DIV

    return bool(DIV & set(c.formula))


# counts the candidate works out from their own figures: a slip in them is the arithmetic being off
_WORKED_RULES = frozenset({"in_repair", "gpus_from_rate", "fsync_count", "record_count"})


_OWN_COUNT_RULES = frozenset({"host_gpus", "gpu_hosts", "in_repair"})


def _claim_cap(cid: str, family: str, ev: Evidence, rubric: Rubric) -> tuple[int, list[Claim]]:
    """The highest score the ledger's checks allow `cid`, and the wrong claims that set it."""
    rule = rubric.claim_caps.get(cid)
    if rule is None or ev.ledger is None:
        return 3, []
    # (a load the candidate sets up to work with is no position on what fits: it neither holds down nor excuses)
    side = set(rubric.families[family].side_kinds)
    # (a prefill time is held to the candidate's own work and rate when they give both - "8.4e14 FLOPs ... at 400 TFLOPS
    # a card that's about 5 seconds" is arithmetic off; against physics alone its floor says only "too fast")
    claims = [c for c in ev.ledger.claims if _planned(c) and c.turn in ev.texts
              and (c.kind in rule.kinds or c.check is not None and c.check.rule == "prefill_rate")
              and c.kind not in side and c.check is not None and c.check.rule != "load"]

    def key(c: Claim) -> tuple:
        # a calculation is its own figure: another sum done right does not excuse it; "it fits on a single
        # H100" is answered by a later "TP4" for the same model (the replica's size, said right)
        if c.kind == "arithmetic":
            return c.kind, tuple(c.formula)
        if c.kind in ("fleet_share", "period_rate"):
            # each share is of its own count, each restatement of its own rate: one said right excuses no other ("150 a
            # month, which is like 50 a day" after "1,800 a year, i.e. 150 a month")
            return c.kind, c.turn, c.start
        if c.kind in ("gpu_count", "host_count") and c.check.rule in _OWN_COUNT_RULES:
            # GPUs worked out from hosts, or in repair from a rate: "~15 GPUs are in repair" said right excuses
            # no "15 hosts, so about 12 GPUs of capacity out"
            return c.kind, c.check.rule, c.turn, c.start
        if c.kind == "concurrent_sequences" and c.check.rule == "host_sequences":
            return c.kind, c.subject.model, c.check.rule  # one GPU's figure said right excuses no host total
        return ("fits_on_gpus" if c.kind == "tensor_parallel" else c.kind), c.subject.model

    # each kind said right, and where it was last said right
    last_right: dict[tuple, tuple[int, int]] = {}
    for c in claims:
        if c.check.status == "ok":
            last_right[key(c)] = max(last_right.get(key(c), (-1, -1)), (c.turn, c.start))
    right = set(last_right)
    # a calculation whose result physics checks as right ("40 x 40 x 128 x 2 B = 819,200 B", the K-and-V
    # 2 left unsaid) is judged by the quantity, not by how it was written down
    # (a quantity the criterion weighs: "... a token that's about 12 seconds" read as a TTFT excuses no sum)
    sound = {(c.turn, c.end) for c in ev.ledger.claims if c.kind != "arithmetic" and c.check is not None
             and c.check.status == "ok" and c.kind in rule.kinds}
    # (a product may leave a factor unsaid; a quotient of the candidate's own figures cannot: "50 over 1.8 is
    # roughly 40 sequences" is a slip however near 40 lies to what the card holds)
    claims = [c for c in claims if not (c.kind == "arithmetic" and (c.turn, c.end) in sound and not _divides(c))]
    # a figure of a kind the candidate also gets right for the same model is a slip they corrected,
    # or a number the ledger took for that kind: it does not hold the criterion down; of several
    # wrong ones, the last said is where the candidate stands ("5,000 ... no, more like 240")
    standing: dict[tuple, Claim] = {}
    for c in sorted(claims, key=lambda c: (c.turn, c.start)):
        standing[key(c)] = c
    # a model named only by size ("a 13B") is confirmed by the shape the candidate gives for it ("40 x
    # 5,120"), or by the stand-in's KV bytes per token said right: their wrong figures for it are then
    # theirs, not the stand-in's
    confirmed = {c.subject.model for c in ev.ledger.claims if _planned(c) and c.subject.model_inferred
                 and ((c.kind in _SHAPE_KINDS | {"kv_bytes_per_token"} and c.check is not None and c.check.status == "ok")
                      or (c.kind == "arithmetic" and _uses_shape(c)))}
    # a shape said wrong and then redone right when put right ("8 KV heads" ... "then it's four times bigger:
    # 2 x 32 x 32 x 128 x 2 = 512 KB") is where the candidate ended up: the per-token bytes said right later
    redone = [c.turn for c in ev.ledger.claims if _planned(c) and c.kind == "kv_bytes_per_token"
              and c.check is not None and c.check.status == "ok"]
    # (a figure restated wrong in a closing summary, after it was said right, is where the round ends: "## Summary
    # ... KV is 0.5 KB per token")
    wrong = [c for k, c in standing.items() if c.check.status in ("wrong", "impossible")
             and (k not in right or ((c.turn, c.start) > last_right[k] and in_summary(ev.texts.get(c.turn, ""), c.start)))
             and not (c.subject.model_inferred and c.subject.model not in confirmed and c.check.status == "wrong"
                      and c.kind not in _MODEL_FREE)
             and not (c.kind in _SHAPE_KINDS and any(t > c.turn for t in redone))
             and not _put_right_later(c, ev)]
    if not wrong:
        return 3, []

    kv_right = any(c.kind == "kv_bytes_per_token" and c.check is not None and c.check.status == "ok"
                   for c in ev.ledger.claims if _planned(c) and c.turn in ev.texts)

    def badly(c: Claim) -> bool:
        if in_summary(ev.texts.get(c.turn, ""), c.start) and key(c) in right:
            return False  # a figure said right in the round and restated wrong in the summary: a slip (2)
        if c.kind in ("arithmetic", "writes_per_fsync", "write_bandwidth", "other_bytes", "recovery_time_s") \
                and c.check.status != "impossible":
            # a sum said wrong (a group commit's size, a log's growth) is "the arithmetic is off" (2), however far off
            return False
        if c.check.rule in _WORKED_RULES:
            return False  # likewise a count worked out from the candidate's own rate ("... so that's 12 L4s")
        if c.check.rule == "timeout" and any(x.kind == "arithmetic" and x.turn == c.turn and x.check is not None
                                             and x.check.status == "wrong" for x in ev.ledger.claims if _planned(x)):
            # a deadline set from the candidate's own sum, the sum slipped ("4,096 x 60 ms ≈ 24.6 seconds ... the
            # deadline is 30 seconds"): derived, the arithmetic off (2)
            return False
        if c.kind in ("fits_on_gpus", "tensor_parallel") and (kv_right or not rubric.families[family].memory_capacity):
            # "fits on one H100" beside KV bytes per token done right: a budget derived on a wrong fit (2); where
            # capacity is a fleet or a throughput, a wrong fit is one input of a sizing built on it (2)
            return False
        if c.kind in _MEMORY_KINDS and not rubric.families[family].memory_capacity:
            # where capacity is a timeout or a throughput, a memory size is one input to it, however far off (2):
            # "the KV for 6,000 tokens is only a few megabytes" beside a timeout derived from the work
            return False
        if c.kind == "period_rate":
            # a rate said again per another period, the conversion slipped ("~100 a month, about 3 an hour"): a slip of
            # units in a derivation (2), however many periods it is off by
            return False
        if _worked_out(c, ev):
            # the figure is the result of a calculation said with it ("2k tok * 819KB ≈ 1.6MB", then "54 gig / 1.6MB
            # -> ~33k seqs"): derived, the arithmetic off (a unit slipped, carried into the next step) - 2, however far
            return False
        r = c.check.ratio
        if c.kind in _INPUT_KINDS:
            # a per-token time under the bare weight read, or an fsync faster than a drive, is an input
            # that is off (2): the derivation built on it still stands
            return r is not None and r > 0 and abs(math.log(r)) >= math.log(rule.badly_wrong_ratio)
        return c.check.status == "impossible" or (r is not None and r > 0 and abs(math.log(r)) >= math.log(rule.badly_wrong_ratio))

    if any(badly(c) for c in wrong):
        return rule.badly_wrong, [c for c in wrong if badly(c)]
    return rule.wrong, wrong


def _worked_out(c: Claim, ev: Evidence) -> bool:
    """Is `c` the result of a calculation said with it whose arithmetic slipped ("2k tok * 819KB ≈ 1.6MB"), or of one
    done right on such a slip's result ("54 gig / 1.6MB -> ~33k seqs")? (Not a product done right on a wrong formula:
    "8 KB per token" with the layers left out is no derivation.)"""
    sums = [x for x in ev.ledger.claims if _planned(x) and x.kind == "arithmetic" and x.turn == c.turn
            and x.check is not None and x.formula]
    over = next((x for x in sums if x.value and c.value and abs(x.value - c.value) <= 1e-6 * abs(c.value)
                 and x.start < c.end and c.start < x.end), None)
    if over is None:
        return False
    if over.check.status == "wrong":
        return True
    return any(y.check.status == "wrong" and y.end <= over.start and any(y.span.rstrip().endswith(f.strip())
                                                                         for f in over.formula[::2])
               for y in sums)


def _pitfall_caps(cid: str, ev: Evidence, rubric: Rubric) -> list[tuple[int, str]]:
    out = []
    for pid in ev.pitfalls:
        p = rubric.pitfalls[pid]
        kind = ev.pitfall_kinds.get(pid, "")
        if cid in p.caps and (not p.caps_when or kind in p.caps_when):
            out.append((p.caps[cid], pid))
        elif cid in p.kind_caps.get(kind, {}):
            out.append((p.kind_caps[kind][cid], pid))
    return out


def _quotes(hits: list[Hit], texts: dict[int, str]) -> list[Quote]:
    """Distinct quotes in transcript order; a quote overlapping one already taken adds nothing."""
    taken: list[tuple[int, int, int]] = []
    out = []
    for h in sorted(hits, key=lambda h: (h.turn, h.start)):
        if not h.quote:
            continue
        text = texts[h.turn]
        pos = text.find(h.quote, max(0, h.start - len(h.quote)))
        pos = pos if pos >= 0 else text.find(h.quote)
        span = (h.turn, pos, pos + len(h.quote))
        if any(t == span[0] and s < span[2] and span[1] < e for t, s, e in taken):
            continue
        taken.append(span)
        out.append(Quote(turn=h.turn, quote=h.quote))
    return out[:MAX_QUOTES]


def _earning_hits(alt, ev: Evidence, spec) -> list[Hit]:
    """One hit per item of the alternative that reached the score (substance first)."""
    if alt is None:
        return []
    items = [*alt.all, *alt.any, *(i for g in alt.groups for i in g)]
    hits = []
    for item in dict.fromkeys(items):
        hs = ev.hits.get(item) or ev.named_hits.get(item) or []
        if hs:
            hits.append(hs[0])
    return hits


def _level_verdict(scores: dict[str, int], rubric: Rubric) -> str:
    req = [scores[c] for c in rubric.required]
    verdict = "below-mid"
    for name in ("mid", "senior", "staff"):
        bar = rubric.levels[name]
        if (min(req) >= bar.min_each_required and sum(req) >= bar.min_required_sum
                and scores["scheduling_policy"] >= bar.min_scheduling
                and scores.get("operating_model", 0) >= bar.min_operating_model):
            verdict = name
    return verdict


def _feedback(score: int, spec, present: set[str], rubric: Rubric, cid: str) -> tuple[str, list[str]]:
    criterion = rubric.criteria[cid]
    if score == 3:
        return f"Full marks: {criterion.anchors[3]}", []
    lacking = spec.lacking_for(score + 1, present)
    missing = [rubric.items[i].missing or rubric.items[i].label for i in lacking]
    head = f"Scored {score} ({criterion.anchors[score]})"
    if not missing:
        return head, []
    return f"{head} To reach {score + 1}: " + "; ".join(missing) + ".", missing


_LATENCY_SAID = re.compile(r"\b(?:p\d{2}|tail|latenc\w*|ttft|time\s+to\s+(?:first|schedule)|waits?|waiting|queue\w*|slower|slowly|"
                           r"takes?\s+longer|"
                           r"stalls?|\d+\s*(?:ms|milliseconds?|seconds?|s)\b|headroom|idle|utili[sz]ation)", re.I)
# (or a time budget named: "What do you give up to hold the 200 ms?")
_LATENCY_ASKED = re.compile(r"\b(?:p\d{2}|tail|latency|ttft|time\s+to\s+first|slo|percentile|wait|slow|stall|"
                            r"\d+\s*(?:ms|milliseconds?)\b)", re.I)


_RECOVERY_ASKED = re.compile(r"\b(?:restart\w*|replay\w*|recover\w*|reboot\w*|crash\w*|come\s+back|start[- ]?up)\b", re.I)


def _speed_of_the_request(ev: Evidence) -> bool:
    """Is latency named anywhere but in an answer to a question about a restart or recovery (where "it should be
    quick" is the restart's speed, not the requests' latency)?"""
    for h in ev.hits.get("latency_named", []):
        asked = ev.asked_before(h.turn)
        if asked is None or not _RECOVERY_ASKED.search(ev.context[asked]) or _LATENCY_SAID.search(h.quote):
            return True
    return False


def _said_of_latency(ev: Evidence, spec, item: str, rubric: Rubric) -> bool:
    """Is `item` (a trade-off, or the metric that shows the choice wrong) said in an answer about latency (one with a
    latency item or a latency figure, or answering a question about it)?"""
    latency = set(spec.items) - {"tradeoff", "wrong_metric"}
    # a latency figure counts though the item it would feed needs more ("re-prefill costs a known ~200 ms": one part of
    # the split, which needs two said together)
    kinds = {k for x in latency if x in rubric.items and rubric.items[x].ledger for k in rubric.items[x].ledger.kinds}
    figured = {c.turn for c in (ev.ledger.claims if ev.ledger else []) if c.kind in kinds and c.speaker == "candidate"
               and not c.negated}
    for h in ev.hits.get(item, []):
        if _LATENCY_SAID.search(h.quote):
            return True  # "what I pay is latency, since a put now waits up to 2 ms"
        if h.turn in figured or any(x.turn == h.turn for item in latency for x in ev.hits.get(item, [])):
            return True
        asked = ev.asked_before(h.turn)
        # (the question put back to itself is no answer: "And what do you give up to hold that 500 ms?" - "What would I
        # give up? I'd want to measure before deciding that.")
        if asked is not None and _LATENCY_ASKED.search(ev.context[asked]) and not h.quote.rstrip().endswith("?"):
            return True
    return False


def score_criterion(cid: str, family: str, ev: Evidence, rubric: Rubric,
                    check: CapacityCheck | None = None) -> CriterionResult:
    """One criterion's result: the level its evidence reaches, the caps, quotes and feedback."""
    spec = rubric.spec(family, cid)
    present = ev.present
    level1_only = ev.unchosen | (ev.guessed - present)
    named = ev.named
    if cid == "tail_latency_tradeoff":
        for item in ("tradeoff", "wrong_metric"):
            if item in present and not _said_of_latency(ev, spec, item, rubric):
                # a cost accepted in an answer about something else (placement, a fleet's money) names a trade, not
                # the tail's; "that's the number that tells you FP16 is the wrong call", said of capacity, is no alarm;
                # alone it mentions no latency at all ("the cost is that short prompts hold memory they don't use")
                present, named = present - {item}, named - {item}
        if "latency_named" in present and not _speed_of_the_request(ev):
            # "Walk me through a restart with a 20 GB log" - "Should be pretty quick on SSD": a restart's speed
            # waved at, not the requests' latency
            present, named = present - {"latency_named"}, named - {"latency_named"}
    reached, alt = spec.best(present, named, level1_only)
    score = reached
    feedback, missing = _feedback(reached, spec, present, rubric, cid)
    capped_by: list[str] = []
    cap, wrong = _claim_cap(cid, family, ev, rubric)
    if wrong:
        c = wrong[0]
        said = " ".join(c.span.split())
        why = f"The figure does not check out: you said {said} (turn {c.turn}). {c.check.explanation}"
        if check is not None and check.arithmetic:
            why += " Recheck the arithmetic: " + " ".join(check.arithmetic[:4])
        if cap < score:
            score = cap
            feedback = f"Scored {score} ({rubric.criteria[cid].anchors[score]}) {why}"
            missing = [rubric.items["capacity_checked"].missing] if "capacity_checked" in rubric.items else []
            capped_by += [f"claim:{x.kind}:turn {x.turn}" for x in wrong]
        else:  # the score is already below what the figure would cap: still say the figure is wrong
            feedback = f"{feedback} {why}"
    for limit, pid in sorted(_pitfall_caps(cid, ev, rubric)):
        if limit < score:
            score = limit
            feedback = (f"Scored {score} ({rubric.criteria[cid].anchors[score]}) "
                        f"{rubric.pitfalls[pid].feedback}")
            missing = [rubric.pitfalls[pid].feedback]
            capped_by.append(f"pitfall:{pid}")
    hits = _earning_hits(alt, ev, spec) if score else []
    for pid in ev.pitfalls:
        # a pitfall that is an anchor's level ("several policies are listed without choosing one" is 1) earns it
        floor = rubric.pitfalls[pid].floors.get(cid, 0)
        if floor > score:
            score = floor
            feedback = f"Scored {score} ({rubric.criteria[cid].anchors[score]}) {rubric.pitfalls[pid].feedback}"
            missing = [rubric.pitfalls[pid].feedback]
            hits = [ev.pitfalls[pid]]
    if score and wrong and cap == score:
        text = ev.texts[wrong[0].turn]
        hits.append(Hit("wrong_figure", wrong[0].turn, wrong[0].start, wrong[0].end,
                        quote_around(text, wrong[0].start, wrong[0].end)))
    return CriterionResult(
        id=cid, title=rubric.criteria[cid].title, required=cid in rubric.required, score=score,
        evidence=_quotes(hits, ev.texts) if score else [], feedback=feedback, missing=missing,
        reads_as=spec.reads_as or rubric.criteria[cid].summary,
        found=[rubric.items[i].label for i in spec.items if i in present],
        capped_by=capped_by,
    )


def _claim_results(ledger: Ledger, texts: dict[int, str]) -> list[ClaimResult]:
    from interviewer.claims.vocab import load

    v = load()
    out = []
    for c in ledger.claims:
        if c.speaker != "candidate" or c.turn not in texts or c.value is None:
            continue
        subject = {k: val for k, val in vars(c.subject).items() if val not in (None, False)}
        if subject:
            subject["label"] = c.subject.label()
        out.append(construct(ClaimResult, kind=c.kind, label=v.label_of(c.kind), value=c.value, unit=c.unit,
                             subject=subject, turn=c.turn, span=c.span, negated=c.negated,
                             hypothetical=c.hypothetical, check=c.check))
    return out


def grade(transcript: Transcript, question: Question | None = None, rubric: Rubric | None = None) -> Report:
    """Grade a transcript against the rubric for its question's family."""
    rubric = rubric or load_rubric()
    question = question or load_bank().question(transcript.question_id)
    if question.family == "coding":
        raise UserError(f"{question.id} is a coding question; the rubric grades design and knowledge rounds")
    turns = transcript.candidate_turns()
    if not turns:
        raise UserError("no candidate turns to grade")
    family = question.family
    all_turns = [(t.role, t.text) for t in transcript.turns]
    ledger = build_ledger(all_turns, family=family, question_id=question.id)
    ev, check = analyse(turns, rubric, family, all_turns, ledger)

    results, scores = [], {}
    for cid in rubric.criteria_for(family):
        r = score_criterion(cid, family, ev, rubric, check)
        results.append(r)
        scores[cid] = r.score

    pitfalls = [PitfallResult(id=pid, title=rubric.pitfalls[pid].title, turn=h.turn, quote=h.quote,
                              feedback=rubric.pitfalls[pid].feedback)
                for pid, h in sorted(ev.pitfalls.items(), key=lambda kv: kv[1].turn)]
    report = _assemble(transcript, question, rubric, results, scores, pitfalls, check, ev)
    report.claims = _claim_results(ledger, ev.texts)
    return report


def _assemble(transcript, question, rubric, results, scores, pitfalls, check, ev) -> Report:
    s = rubric.scoring
    supporting = rubric.families[question.family].supporting
    overall = sum(scores[c] / 3 * s.required_weight for c in rubric.required)
    if supporting:
        overall += sum(scores[c] for c in supporting) / (3 * len(supporting)) * s.supporting_weight
    overall -= min(len(pitfalls) * s.pitfall_penalty, s.max_pitfall_penalty)
    verdict = _level_verdict(scores, rubric)
    risk = None
    target = transcript.level
    if target and VERDICTS.index(verdict) < VERDICTS.index(target):
        gaps = [rubric.criteria[c].title.lower() for c in rubric.required if scores[c] < 2]
        risk = (f"Below the {target} bar ({rubric.levels[target].bar})"
                + (f"; weakest: {', '.join(gaps)}. " if gaps else ". ") + rubric.down_level_risk)
    ordered = sorted(results, key=lambda r: (not r.required, r.score))
    next_steps = [rubric.criteria[r.id].next_step for r in ordered if r.score < 3][:4]
    next_steps += [p.feedback for p in pitfalls][: max(0, 5 - len(next_steps))]
    return Report(
        question_id=question.id, question_title=question.title, company=transcript.company,
        level=transcript.level, family=question.family, overall=max(0, min(100, round(overall))),
        criteria=results, pitfalls=pitfalls, level_verdict=verdict, down_level_risk=risk,
        next_steps=next_steps, capacity_check=check,
        ignored_instructions=[Quote(turn=h.turn, quote=h.quote) for h in ev.ignored],
    )
