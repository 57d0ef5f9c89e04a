"""Checks of a candidate's numbers: capacity claims against the calculator.

The candidate's own assumptions are read from their words (model, GPU, GPU count, dtypes,
sequence length) and every plausible reading is tried; a claim passes when any reading lands
within 25% of it, so the check never punishes an assumption the candidate stated.
"""
from __future__ import annotations

import itertools
import re

from pydantic import BaseModel, Field

from interviewer import capacity
from interviewer.errors import UserError

TOLERANCE = 0.25
_WORD_NUMS = {"one": 1, "two": 2, "four": 4, "eight": 8, "sixteen": 16}
_UNIT_BYTES = {"b": 1, "byte": 1, "bytes": 1, "kb": 1e3, "kib": 1024, "kilobyte": 1e3, "kilobytes": 1e3,
               "mb": 1e6, "mib": 2**20, "megabyte": 1e6, "megabytes": 1e6,
               "gb": 1e9, "gib": 2**30, "gigabyte": 1e9, "gigabytes": 1e9, "tb": 1e12}
_NUM = r"(\d[\d,]*(?:\.\d+)?)\s*([kK])?"
SEQ_WORDS = (r"(?:sequences?|seqs?|requests?|reqs?|users?|streams?|conversations?|chats?|sessions?|slots?|generations?)"
             r"(?!\s*(?:per|/|a|an|each)\s*(?:s\b|sec|second|minute|min\b|hour|day))")  # a rate is not a concurrency
_CLAIM_SEQS = [
    re.compile(_NUM + r"\s+(?:concurrent\s+|active\s+|parallel\s+|simultaneous\s+|running\s+|in[- ]flight\s+|full[- ]length\s+)?" + SEQ_WORDS + r"\b", re.I),
    re.compile(r"concurrency\s+(?:of|is|around|about|roughly|=|:)\s*(?:about\s+|roughly\s+)?~?" + _NUM, re.I),
    re.compile(r"(?:=|≈|~|gives|gets|is)\s*(?:about\s+|roughly\s+)?" + _NUM + r"\s*(?:" + SEQ_WORDS + r"|of\s+them|at\s+(?:once|a\s+time))", re.I),
]
_CLAIM_KV_TOKEN = re.compile(_NUM + r"\s*(bytes?|kb|kib|mb|mib|kilobytes?|megabytes?)\b[^.\n\d=]{0,25}?(?:per|/|a|each|every)\s*token", re.I)
_SEQ_LEN = [
    re.compile(_NUM + r"\s*[- ]?(?:token|tok)s?\s*(?:context|sequences?|prompts?|window|each|per\s+(?:sequence|request)|long)?", re.I),
    re.compile(r"(?:context|sequence|seq)\s*(?:length|len|window)?\s*(?:of|=|:|is|at|capped\s+at)?\s*" + _NUM, re.I),
    re.compile(_NUM + r"\s+context", re.I),
]
_NUM_GPUS = [
    re.compile(r"(\d+|two|four|eight|sixteen)\s*[x×]?\s*(?:h100|h200|a100|l4|a10g|gpus?)\b", re.I),
    re.compile(r"tensor[- ]parallel\w*\s*(?:of|=|degree|across|over|size)?\s*(\d+|two|four|eight)", re.I),
    re.compile(r"\btp\s*[=:]?\s*(\d+)\b", re.I),
]
_WEIGHT_DTYPE = re.compile(r"\b(fp8|int8|int4|4[- ]bit|8[- ]bit|awq|gptq)\b", re.I)
_KV_FP8 = re.compile(r"fp8\s+kv|kv[- ]?cache\s+(?:in\s+)?fp8|kv\S*\s+(?:in\s+|at\s+)?fp8|fp8\s+(?:for\s+the\s+)?(?:kv|cache)", re.I)


class CapacityCheck(BaseModel):
    """The outcome of checking a candidate's capacity claims for a named model and GPU."""

    model: str
    gpu: str
    num_gpus: int = 1
    seq_len: int
    weights_dtype: str = "fp16"
    kv_dtype: str = "fp16"
    expected_sequences: int
    expected_kv_bytes_per_token: int
    claimed_sequences: list[int] = Field(default_factory=list)
    claimed_kv_bytes_per_token: list[int] = Field(default_factory=list)
    consistent: bool | None = None  # None: no figure to check
    off_by: float | None = None  # the claim's ratio to the nearest reading, when inconsistent
    arithmetic: list[str] = Field(default_factory=list)

    def summary(self) -> str:
        spec = f"{self.model} on {self.num_gpus} x {self.gpu}" if self.num_gpus > 1 else f"{self.model} on {self.gpu}"
        return (f"{spec}, {self.weights_dtype} weights, {self.kv_dtype} KV, {self.seq_len:,}-token sequences: "
                f"{self.expected_kv_bytes_per_token:,} KV bytes per token, about {self.expected_sequences} sequences")


def _num(text: str, k: str | None, pow2_k: bool = False) -> float:
    value = float(text.replace(",", ""))
    if k:
        value *= 1024 if pow2_k and value in (1, 2, 4, 8, 16, 32, 64, 128, 256) else 1000
    return value


def _num_gpus(text: str) -> set[int]:
    found = {1}
    for pat in _NUM_GPUS:
        for m in pat.finditer(text):
            raw = m.group(1).lower()
            n = _WORD_NUMS.get(raw) or (int(raw) if raw.isdigit() else 0)
            if 1 < n <= 16:
                found.add(n)
    return found


def _seq_lens(text: str) -> set[int]:
    out = set()
    for pat in _SEQ_LEN:
        for m in pat.finditer(text):
            v = int(_num(m.group(1), m.group(2), pow2_k=True))
            if 128 <= v <= 1_048_576:
                out.add(v)
    return out


def _claims(text: str) -> tuple[list[int], list[int]]:
    seqs: list[int] = []
    for pat in _CLAIM_SEQS:
        for m in pat.finditer(text):
            v = _num(m.group(1), m.group(2))
            if 1 <= v <= 100_000 and v == int(v):
                seqs.append(int(v))
    kv = [int(_num(m.group(1), m.group(2)) * _UNIT_BYTES[m.group(3).lower()]) for m in _CLAIM_KV_TOKEN.finditer(text)]
    return sorted(set(seqs)), sorted(set(kv))


def check_capacity(texts: list[str], claim_texts: list[str] | None = None) -> CapacityCheck | None:
    """Check capacity claims for the model and GPU the candidate names; None when none are named.

    Assumptions are read from all of `texts`; the figures checked come from `claim_texts` (the
    sentences the grader took as concurrency and per-token evidence), or from `texts` if omitted.
    """
    text = "\n".join(texts)
    models = capacity.match_models(text)
    gpus = capacity.match_gpus(text)
    if not models or not gpus:
        return None
    # Every model and GPU named counts (a candidate may size a 13B and a 70B option side by side).
    model_ids = list(dict.fromkeys(m[0] for m in models))[:3]
    gpu_ids = list(dict.fromkeys(g[0] for g in gpus))[:3]
    weight_dtypes = {"fp16"}
    for m in _WEIGHT_DTYPE.finditer(text):
        raw = m.group(1).lower().replace(" ", "-")
        weight_dtypes.add({"4-bit": "int4", "awq": "int4", "gptq": "int4", "8-bit": "int8"}.get(raw, raw))
    kv_dtypes = {"fp16", "fp8"} if _KV_FP8.search(text) else {"fp16"}
    lens = set(sorted(_seq_lens(text))[:8])  # a long round names many token counts; the first few suffice
    claimed_seqs, claimed_kv = _claims("\n".join(claim_texts) if claim_texts is not None else text)
    readings = []
    # max_sequences is tokens-in-cache // seq_len, so one budget per setting serves every length.
    for model, gpu, wd, kd, n, util in itertools.product(model_ids, gpu_ids, sorted(weight_dtypes), sorted(kv_dtypes),
                                                         sorted(_num_gpus(text)), (0.9, 1.0)):
        try:
            base = capacity.compute(model, gpu, weights_dtype=wd, kv_dtype=kd, gpu_memory_utilization=util,
                                    num_gpus=n, levers=False)
        except UserError:  # e.g. 70B fp16 weights on one 80 GB GPU: not a reading the candidate meant
            continue
        for seq_len in sorted(lens) or [base.seq_len]:
            seqs = base.max_tokens_in_cache // seq_len
            readings.append((wd, kd, n, base.model_copy(update={"seq_len": seq_len, "max_sequences": seqs})))
    if not readings:
        return None
    # Prefer the reading closest to the candidate's own figure; else the plainest one.
    def distance(reading) -> float:
        r = reading[3]
        if claimed_seqs:
            return min(abs(c - r.max_sequences) / max(r.max_sequences, 1) for c in claimed_seqs)
        return 0.0
    wd, kd, n, best = min(readings, key=distance)
    if distance((wd, kd, n, best)) > TOLERANCE:  # wrong under every reading: show the standard one
        standard = [r for r in readings if r[3].gpu_memory_utilization == 0.9] or readings
        wd, kd, n, best = min(standard, key=distance)
    best = capacity.compute(best.model, best.gpu, weights_dtype=wd, kv_dtype=kd, seq_len=best.seq_len,
                            gpu_memory_utilization=best.gpu_memory_utilization, num_gpus=n, levers=False)
    check = CapacityCheck(
        model=best.model, gpu=best.gpu, num_gpus=n, seq_len=best.seq_len, weights_dtype=wd, kv_dtype=kd,
        expected_sequences=best.max_sequences, expected_kv_bytes_per_token=best.kv_bytes_per_token,
        claimed_sequences=claimed_seqs, claimed_kv_bytes_per_token=claimed_kv,
        arithmetic=list(best.terms),
    )
    kv_ok = [any(abs(c - r.kv_bytes_per_token) <= TOLERANCE * r.kv_bytes_per_token for _, _, _, r in readings)
             for c in claimed_kv]
    if claimed_seqs:
        d = distance((wd, kd, n, best))
        check.consistent = d <= TOLERANCE and all(kv_ok)
        if d > TOLERANCE:
            nearest = min(claimed_seqs, key=lambda c: abs(c - best.max_sequences))
            check.off_by = round(nearest / max(best.max_sequences, 1), 2)
    elif claimed_kv:
        check.consistent = all(kv_ok)
    return check


# ------------------------------------------------------------------------------------- from the ledger

# Figures that make up a capacity number: a wrong one keeps the criterion below "derived and checked".
CAPACITY_KINDS = ("weights_bytes", "kv_bytes_per_token", "kv_bytes_per_sequence", "kv_bytes_batch", "free_kv_bytes",
                  "usable_memory_bytes", "kv_cache_tokens", "concurrent_sequences", "fits_on_gpus", "tensor_parallel")
_MAIN_KINDS = ("concurrent_sequences", "kv_cache_tokens", "kv_bytes_per_token", "kv_bytes_per_sequence", "free_kv_bytes")


def _planned(c) -> bool:
    return c.speaker == "candidate" and c.value is not None and not c.negated and not c.hypothetical


def capacity_from_ledger(ledger) -> CapacityCheck | None:
    """The capacity check the report shows, read from the claim ledger's checks (so the verdict is
    the one the score uses): the candidate's main capacity figure, the calculator's reading of its
    model and GPU, and consistent = no capacity figure wrong and at least one checked right."""
    from interviewer import capacity as cap

    claims = [c for c in ledger.claims if _planned(c) and c.kind in CAPACITY_KINDS]
    checked = [c for c in claims if c.check is not None and c.check.status in ("ok", "wrong", "impossible")]
    with_subject = [c for c in checked if c.subject.model and c.subject.gpu and c.kind in _MAIN_KINDS]
    if not with_subject:
        return None
    order = {k: i for i, k in enumerate(_MAIN_KINDS)}
    wrong = [c for c in checked if c.check.status in ("wrong", "impossible")]
    main = min(wrong or with_subject, key=lambda c: (c.subject.model is None, order.get(c.kind, 9), c.turn, c.start))
    if main.subject.model is None or main.subject.gpu is None:
        main = min(with_subject, key=lambda c: (order.get(c.kind, 9), c.turn, c.start))
    s = main.subject
    seq = next((x.value for x in reversed(ledger.claims[:ledger.claims.index(main) + 1])
                if x.kind == "seq_len" and x.value and not x.negated), None)
    r, n = None, 1
    for n in dict.fromkeys([s.tp or s.gpus_in_sentence or 1, 1, 2, 4, 8]):
        try:
            r = cap.compute(s.model, s.gpu,
                            weights_dtype=s.weights_dtype if s.weights_dtype in cap.DTYPE_BYTES else "fp16",
                            kv_dtype=s.kv_dtype if s.kv_dtype in ("fp16", "fp8") else "fp16",
                            seq_len=int(seq) if seq else None, num_gpus=n, levers=False)
            break
        except UserError:
            continue
    if r is None:
        return None
    seqs = sorted({int(round(c.value)) for c in claims if c.kind == "concurrent_sequences"})
    kvs = sorted({int(round(c.value)) for c in claims if c.kind == "kv_bytes_per_token"})
    expected = r.max_sequences
    if main.kind == "concurrent_sequences" and main.check.expected:
        expected = int(round(main.check.expected))
    check = CapacityCheck(model=r.model, gpu=r.gpu, num_gpus=n, seq_len=r.seq_len, weights_dtype=r.weights_dtype,
                          kv_dtype=r.kv_dtype, expected_sequences=expected,
                          expected_kv_bytes_per_token=r.kv_bytes_per_token, claimed_sequences=seqs,
                          claimed_kv_bytes_per_token=kvs, arithmetic=list(main.check.trace or r.terms))
    if wrong:
        check.consistent = False
        if main.check.ratio:
            check.off_by = round(main.check.ratio, 2)
    elif any(c.check.status == "ok" for c in checked if c.kind in _MAIN_KINDS):
        check.consistent = True
    return check
