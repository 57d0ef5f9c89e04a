"""Physics checks of the candidate's figures, against the presets in interviewer/hardware.yaml.

* weights = parameters x bytes per parameter; a model whose weights exceed the GPUs it is said to
  fit on is impossible;
* KV bytes per token = 2 x layers x KV heads x head dim x bytes (forgetting the 2, or counting
  attention heads instead of KV heads, is named);
* free memory = GPU memory (x GPUs per replica) - weights, with a 0-10% reserve;
* tokens in the cache = free / KV per token; sequences = tokens / sequence length (only when a
  sequence length is known);
* max_num_seqs far beyond what the KV cache holds at the stated length is flagged;
* a per-step token budget whose prefill compute (2 x parameters x tokens at a realistic share of
  peak) takes longer than the stated TTFT target is flagged;
* a TTFT, prefill or per-token time below the physical floor (peak FLOPs, weights over memory
  bandwidth) is impossible.

Every check accepts a figure within 25% of any reasonable reading (GB or GiB, 90% or 100% of
memory usable, a dtype the candidate said), and explains itself in one or two spoken sentences.
Interviewer figures are context, never checked. Where no preset covers the model, a figure is
checked against the speaker's own earlier figures instead (their arithmetic), or left unchecked.
"""
from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass

from text_to_num import text2num

from interviewer import capacity
from interviewer.claims import say
from interviewer.claims.models import Check, Claim, Subject, construct
from interviewer.claims.segments import blank_fillers, model_ids_named
from interviewer.claims.vocab import Vocab
from interviewer.quickre import guarded

GIB = 2**30


@dataclass
class Ctx:
    """All claims in order, with the sentence each sits in, for looking up related figures."""

    claims: list[Claim]
    sentence_of: list[tuple[int, int]]  # (turn, segment index) of each claim
    v: Vocab
    texts: list[str] | None = None      # each turn's text (for what follows a figure: a correction)

    def __post_init__(self) -> None:
        self.by_sentence: dict[tuple[int, int], list[int]] = {}
        self.by_kind: dict[str, list[int]] = {}
        self._dtypes: list[frozenset] = []
        # the turns the interviewer said a figure in (where a model named again resets a variant's shape)
        self.interviewer_turns = frozenset(c.turn for c in self.claims if c.speaker == "interviewer")
        seen: set[str] = set()
        for j, c in enumerate(self.claims):
            self.by_sentence.setdefault(self.sentence_of[j], []).append(j)
            self.by_kind.setdefault(c.kind, []).append(j)
            if c.subject.weights_dtype:
                seen.add(c.subject.weights_dtype)
            self._dtypes.append(frozenset(seen))

    def in_sentence(self, i: int) -> list[int]:
        """Indexes of the claims in claim i's sentence (i included)."""
        return self.by_sentence.get(self.sentence_of[i], [])

    def related(self, i: int, kinds: tuple[str, ...], same_sentence_first: bool = True) -> Claim | None:
        """The figure of one of `kinds` that claim i most plausibly uses: in its own sentence (nearest),
        else the latest one before it (either speaker), skipping negated ones."""
        me = self.claims[i]
        if same_sentence_first:
            same = [self.claims[j] for j in self.in_sentence(i)
                    if j != i and self.claims[j].kind in kinds and self.claims[j].value and not self.claims[j].negated]
            if same:
                return min(same, key=lambda c: abs(c.start - me.start))
        best = -1
        for kind in kinds:
            idx = self.by_kind.get(kind, [])
            for k in range(bisect.bisect_left(idx, i) - 1, -1, -1):
                j = idx[k]
                if j <= best:
                    break
                c = self.claims[j]
                if c.value and not c.negated and (me.hypothetical or not c.hypothetical):
                    best = j
                    break
        return self.claims[best] if best >= 0 else None

    def said_before(self, i: int, kinds: tuple[str, ...], where=None) -> Claim | None:
        """The nearest figure of one of `kinds` said before claim i in its own sentence (and passing
        `where`, when given): the operand a figure is the result of."""
        for j in reversed(self.in_sentence(i)):
            c = self.claims[j]
            if j < i and c.kind in kinds and c.value and (where is None or where(c)):
                return c
        return None

    def earlier(self, i: int, kinds: tuple[str, ...], same_turn: bool = False) -> list[Claim]:
        """Figures of `kinds` said before claim i by its speaker (with `same_turn`, in its answer), in the order said."""
        me = self.claims[i]
        return [self.claims[j] for j in sorted(j for k in kinds for j in self.by_kind.get(k, ()) if j < i)
                if self.claims[j].speaker == me.speaker and self.claims[j].value
                and (not same_turn or self.claims[j].turn == me.turn)]

    def memories(self, i: int) -> set[float]:
        """GPU memory sizes of every subject named up to claim i."""
        if not hasattr(self, "_mems"):
            self._mems, seen = [], set()
            for c in self.claims:
                m = _mem(c.subject)
                if m:
                    seen.add(m)
                self._mems.append(frozenset(seen))
        return set(self._mems[i])

    def own_dtypes(self, i: int) -> set[str]:
        """Weights dtypes the candidate has mentioned up to claim i (any of them is a fair reading)."""
        return set(self._dtypes[i])


def _within(claimed: float, expected: float, tol: float) -> bool:
    return expected > 0 and abs(claimed - expected) <= tol * expected


def _claimed_values(c: Claim) -> list[float]:
    vals = [c.value] if c.value is not None else []
    if c.low is not None and c.high is not None:
        vals += [c.low, c.high]
    return vals


def _best(c: Claim, readings: list[float], tol: float) -> tuple[bool, float]:
    """Whether any claimed value is within tolerance of any reading; the reading nearest the claim."""
    vals = _claimed_values(c)
    best_r, best_d = readings[0], math.inf
    ok = False
    for r in readings:
        for v in vals:
            d = abs(math.log(max(v, 1e-12) / max(r, 1e-12)))
            if d < best_d:
                best_d, best_r = d, r
            if _within(v, r, tol):
                ok = True
    return ok, best_r


def _pos(c: Claim) -> int:
    """Where the claim's span sits in its sentence (-1 when not there): found by its text, else by the place
    recorded when the sentence was read with LaTeX or decimal commas normalised."""
    pos = c.sentence.find(c.span)
    if pos < 0 and 0 <= c.at <= len(c.sentence) - len(c.span):
        return c.at
    return pos


def _check(status: str, rule: str, expected: float | None, unit: str, claim: Claim, explanation: str,
           trace: list[str], assumptions: list[str] | None = None, low=None, high=None) -> Check:
    assumptions = list(assumptions or [])
    if claim.subject.model_inferred and claim.subject.model:
        assumptions.append(f"a {claim.subject.params_b:g}B model taken to have the shape of {claim.subject.model}")
    ratio = None
    if expected and claim.value is not None:
        ratio = round(claim.value / expected, 3)
    return construct(Check, status=status, rule=rule, expected=expected, expected_low=low, expected_high=high,
                     unit=unit, ratio=ratio, explanation=explanation, trace=trace, assumptions=assumptions or [])


# ----------------------------------------------------------------------------------- the hardware


def _model(s: Subject):
    return capacity.load_presets().models.get(s.model) if s.model else None


@dataclass
class Arch:
    name: str
    layers: int
    kv_heads: int
    attention_heads: int
    head_dim: int
    hidden: int
    preset: capacity.ModelSpec | None = None  # the model's preset when no shape was said over it

    @property
    def latent(self) -> bool:
        """Multi-head latent attention (DeepSeek-V3): one compressed latent a layer, no K and V per head."""
        return self.preset is not None and self.preset.kind == "mla"

    def kv_bytes(self, dtype: str | None) -> int:
        if self.latent:
            return capacity.kv_bytes_per_token(self.preset, dtype or "fp16")  # the calculator's formula
        b = capacity.DTYPE_BYTES.get(dtype or "fp16", 2.0)
        return int(round(2 * self.layers * self.kv_heads * self.head_dim * b))


def _kv_per_token_step(a: Arch, b: float, kv: int) -> str:
    """The trace line that works out a shape's KV bytes per token (`b` bytes an element, `kv` the result)."""
    if a.latent:
        p = a.preset
        return (f"KV per token = {a.layers} layers x ({p.kv_lora_rank} latent + {p.qk_rope_head_dim} RoPE key) x "
                f"{b:g} bytes = {kv:,} bytes ({say.nbytes(kv)}): latent attention caches no separate K and V")
    return (f"KV per token = 2 (K and V) x {a.layers} layers x {a.kv_heads} KV heads x {a.head_dim} head dim x "
            f"{b:g} bytes = {kv:,} bytes ({say.nbytes(kv)})")


def _arch(c: Claim, ctx: Ctx, i: int, mine: str | None = None) -> Arch | None:
    """The model's attention shape: its preset, with any shape the interviewer stated on top
    ("the model switches to 8 KV heads"), or the interviewer's shape alone for an unnamed model. `mine`: a kind
    whose earlier figures by the same speaker are left out (a shape figure is not judged by the slip it corrects)."""
    m = _model(c.subject)
    said: dict[str, float] = {}
    # a model named only by size ("a 13B model"): the shape the candidate assumes for it counts too
    own = c.subject.model_inferred or m is None
    for kind in ("layers", "kv_heads", "attention_heads", "head_dim"):
        idx = ctx.by_kind.get(kind, [])
        for k in range(bisect.bisect_left(idx, i) - 1, -1, -1):  # the latest one before claim i
            x = ctx.claims[idx[k]]
            if kind == mine and m is not None and x.speaker == c.speaker:
                continue
            if (x.speaker == "interviewer" or (own and x.speaker == c.speaker and not x.hypothetical)) \
                    and x.value and not x.negated and x.subject.model == c.subject.model:
                if m is not None and x.speaker == "interviewer" and _named_again(ctx, m.id, x.turn, c.turn):
                    break  # "The model switches to 8 KV heads" ... "say this served Llama-2-7B": the preset again
                if m is not None and x.speaker == "interviewer" and _shape_rebutted(ctx, x.turn, c):
                    break  # "Note the 13B uses GQA with 8 KV heads" - "I don't think Llama-2-13B has GQA": the preset
                said[kind] = x.value
                break
    if m is None and not {"layers", "head_dim"} <= set(said) | ({"head_dim"} if "hidden_size" in said else set()):
        return None
    if m is None and not ("kv_heads" in said or "attention_heads" in said):
        return None
    layers = int(said.get("layers", m.layers if m else 0))
    heads = int(said.get("attention_heads", m.attention_heads if m else said.get("kv_heads", 0)))
    # the model's own head count said ("a 70B has 64 attention heads") leaves its GQA KV heads as they are
    own_heads = m is not None and said.get("attention_heads", m.attention_heads) == m.attention_heads
    kv = int(said.get("kv_heads", m.kv_heads if own_heads else heads))
    head_dim = int(said.get("head_dim", m.head_dim if m else 0))
    if not (layers and kv and head_dim):
        return None
    name = m.name if m and not said else (f"{m.name} as described" if m else "the model as described")
    return Arch(name, layers, kv, heads, head_dim, (m.hidden_size if m and m.hidden_size else heads * head_dim),
                m if m is not None and not said else None)


# the interviewer's word on the model's attention denied: "I don't think Llama-2-13B has GQA", "it's plain multi-head"
_SHAPE_DENIED = re.compile(r"\b(?:don.t|do\s+not|doesn.t|does\s+not|didn.t|isn.t|is\s+not|wasn.t|no)\b[^.;\n]{0,40}?"
                           r"\b(?:gqa|mqa|grouped[- ]query|kv\s+heads)\b|\bplain\s+multi[- ]head\b|\bno\s+gqa\b", re.I)


def _shape_rebutted(ctx: Ctx, said: int, c: Claim) -> bool:
    """Did the candidate deny the shape the interviewer gave a named model, after it was said and before claim c?"""
    if ctx.texts is None or c.speaker != "candidate":
        return False
    answers = {x.turn for x in ctx.claims if x.speaker == "candidate" and said < x.turn <= c.turn}
    return any(_SHAPE_DENIED.search(ctx.texts[t][:c.start] if t == c.turn else ctx.texts[t]) for t in answers)


def _named_again(ctx: Ctx, model: str, after: int, upto: int) -> bool:
    """Does the interviewer name `model` again in a turn after `after`, up to `upto`?"""
    if ctx.texts is None:
        return False
    return any(model in model_ids_named(ctx.texts[t]) for t in ctx.interviewer_turns if after < t <= upto)


def _gpu(s: Subject):
    return capacity.load_presets().gpus.get(s.gpu) if s.gpu else None


def _params(s: Subject) -> float | None:
    m = _model(s)
    if m:
        return m.params
    return s.params_b * 1e9 if s.params_b else None


def _active_params(s: Subject) -> float | None:
    m = _model(s)
    if m:
        return m.active_params
    return _params(s)


def _mem(s: Subject) -> float | None:
    g = _gpu(s)
    if g:
        return g.memory_gib * GIB
    return s.gpu_memory_gib * GIB if s.gpu_memory_gib else None


def _gpu_label(s: Subject) -> str:
    g = _gpu(s)
    if g:
        return g.name.replace("NVIDIA ", "").split(" (")[0]
    return f"{s.gpu_memory_gib:g} GB card" if s.gpu_memory_gib else "GPU"


def _model_label(s: Subject) -> str:
    m = _model(s)
    if m:
        return m.name
    return f"a {s.params_b:g}B model" if s.params_b else "the model"


def _bpp(dtype: str | None, v: Vocab) -> float:
    return float(v.physics["bytes_per_param"].get(dtype or "fp16", 2))


def _dtype_words(b: float) -> str:
    return {2.0: "two bytes", 1.0: "one byte", 0.5: "half a byte", 4.0: "four bytes"}.get(b, f"{b:g} bytes")


def _replica_gpus(s: Subject, weights: float | None, mem: float | None) -> tuple[list[int], str]:
    """GPUs per replica: the count said beside the figure, else the carried tensor-parallel degree,
    else every power of two from the fewest the weights fit on up to a full 8-GPU node (the
    candidate did not say, so any of them is a fair reading; the first is the one explained)."""
    if s.gpus_in_sentence and s.tp and s.tp != s.gpus_in_sentence:
        # both said: "I was going to say all eight GPUs in a box, but actually, let me say four: TP=4 gives 320 GB"
        return [s.gpus_in_sentence, s.tp], "GPU count said in the sentence (or the tensor-parallel degree said)"
    if s.gpus_in_sentence:
        return [s.gpus_in_sentence], "GPU count said in the sentence"
    if s.tp:
        return [s.tp], "tensor-parallel degree said earlier"
    if weights and mem:
        n = 1
        while weights > 0.9 * n * mem and n < 64:
            n *= 2
        if n == 1:
            return [1], "one GPU"
        ns = [n]
        while ns[-1] < 8:
            ns.append(ns[-1] * 2)
        return ns, f"assumed: no GPU count was said, so {n} to {max(ns)} GPUs per replica"
    return [1], "one GPU"


def _n_gpus(s: Subject, weights: float | None, mem: float | None, scope: str | None = None) -> tuple[int, str]:
    if scope == "per_gpu":
        return 1, "per GPU"
    ns, why = _replica_gpus(s, weights, mem)
    return ns[0], why


def _weights_readings(c: Claim, ctx: Ctx, i: int) -> list[tuple[float, str]]:
    p = _params(c.subject)
    if not p:
        return []
    dtypes = [c.subject.weights_dtype or "fp16"]
    # the format said just before the figure in its sentence ("in FP16 it's 141 GB; in FP8 it's about 70.6 GB")
    said = list(ctx.v.dtype_re.finditer(c.sentence, 0, max(0, _pos(c))))
    near = ctx.v.dtype_names.get(said[-1].group(0).lower()) if said else None
    for d in ([near] if near else []) + sorted(ctx.own_dtypes(i)) + ["fp16"]:
        if d not in dtypes:
            dtypes.append(d)
    return [(p * _bpp(d, ctx.v), d) for d in dtypes]


def _capacity(c: Claim, ctx: Ctx, i: int, scope: str | None = None):
    """Readings of free KV memory for the claim's subject (None without a model preset and a GPU).

    `free` lists every reading (GPUs per replica x usable share x weights dtype); `primary_free`
    is the one explained (fewest GPUs, 90% usable, the dtype in play); `generous_free` the
    largest replica considered (used before flagging a limit on an assumption)."""
    s = c.subject
    a = _arch(c, ctx, i)
    mem = _mem(s)
    wr = _weights_readings(c, ctx, i)
    if not a or not mem or not wr:
        return None
    m = a
    weights, wdt = wr[0]
    kv_dt = s.kv_dtype or "fp16"
    kv = a.kv_bytes(kv_dt)
    ns, why = _replica_gpus(s, weights, mem)
    # a "per GPU" nearby cannot make a figure larger than one card one GPU's share ("minus 4 GB per GPU for
    # activations, which leaves about 163 GB for cache" is the replica's)
    per_gpu = scope == "per_gpu" and max(ns) > 1 and (c.value is None or c.value <= mem)

    def free(n: int, util: float, w: float) -> float:
        f = n * mem * util - w
        return f / n if per_gpu else f

    readings_n = [(n, free(n, u, w)) for n in ns for u in ctx.v.physics["reserve_readings"] for w, _d in wr]
    # GPUs counted beside a model one card holds are copies as often as one replica: "~512 slots -> 20 cards" is
    # twenty cards with a copy of the weights each, each card's share of the slots its own
    k = s.gpus_in_sentence
    if k and k > 1 and not s.tp and not per_gpu and weights < 0.9 * mem:
        readings_n += [(k, k * (mem * u - w)) for u in ctx.v.physics["reserve_readings"] for w, _d in wr]
    # a KV dtype carried from an earlier sentence (not said with this figure) may not apply: fp16 is fair too
    kvs = [kv]
    if s.kv_dtype and s.kv_dtype != "fp16" and not any(p.search(c.sentence) for p in ctx.v.kv_dtype_res):
        kvs.append(a.kv_bytes("fp16"))
    return {"free": [f for _n, f in readings_n], "free_n": readings_n, "primary_free": free(ns[0], 0.9, weights),
            "generous_free": free(ns[-1], 0.9, weights), "kv": kv, "kvs": kvs, "n": ns[0], "ns": ns, "why": why,
            "weights": weights, "wdt": wdt, "mem": mem, "model": m, "kv_dtype": kv_dt, "per_gpu": per_gpu}


# ----------------------------------------------------------------------------------- the checks


# ... or written as a rate: "a step reads ~35G weights/gpu"
_PER_SHARD = re.compile(r"\b(?:per|each|a|every)\s+(?:gpu|card|device|shard|rank|chip|accelerator)\b|\bon\s+each\b"
                        r"|/\s*(?:gpu|card|device|shard|rank|chip)\b", re.I)


def _per_shard(c: Claim) -> bool:
    """Is the figure one GPU's share under tensor parallelism ("35 GB of weights per GPU", "Per GPU
    that's about 33 GiB of weight shards", "80 KiB per token per GPU")?"""
    pos = _pos(c)
    return pos >= 0 and bool(_PER_SHARD.search(c.sentence[max(0, pos - 40):pos + len(c.span) + 40])
                             or re.search(r"\bshards?\b", c.sentence[pos:pos + len(c.span) + 30], re.I))


def check_weights(c: Claim, ctx: Ctx, i: int) -> Check | None:
    readings = _weights_readings(c, ctx, i)
    if not readings:
        return None
    tol = ctx.v.physics["tolerance"]
    values = [r for r, _ in readings]
    tp = c.subject.tp or c.subject.gpus_in_sentence or 1
    if tp > 1 and _per_shard(c):
        values += [r / tp for r in values]  # "35 GB of weights per GPU" at TP=4: one shard
    elif _per_shard(c):
        # a shard said with the split said elsewhere ("four cards at ~40% MFU ... ~35 GB of weights per GPU"):
        # the usual tensor-parallel widths
        values += [r / k for r in values for k in (2, 4, 8)]
    ok, best = _best(c, values, tol)
    expected, dt = readings[0]
    p = _params(c.subject)
    b = _bpp(dt, ctx.v)
    trace = [f"weights = {say.params(p)} parameters x {b:g} bytes ({dt}) = {expected:,.0f} bytes ({say.nbytes(expected)})"]
    if ok:
        shard = best not in [r for r, _ in readings]
        said = (f"{say.nbytes(best * tp)}, {say.nbytes(best)} on each of {say.small(tp)} GPUs" if shard
                else say.nbytes(best))
        # the precision of the reading that matched, not of the first one tried ("70B params x 2 bytes = 140 GB"
        # where an FP8 phase was named earlier in the round)
        dt = next((d for r, d in readings if best in (r, r / tp, r / 2, r / 4, r / 8)), dt)
        if dt != readings[0][1]:
            b = _bpp(dt, ctx.v)
            trace = [f"weights = {say.params(p)} parameters x {b:g} bytes ({dt}) = {p * b:,.0f} bytes "
                     f"({say.nbytes(p * b)})"]
        return _check("ok", "weights", best, "bytes", c,
                      f"Right: {say.params(p)} parameters at {_dtype_words(b)} each is about {said}.", trace)
    mem = _mem(c.subject)
    extra = ""
    if mem and expected > 0.9 * mem:
        need = math.ceil(expected / (0.9 * mem))
        extra = f", so it needs at least {say.small(need)} {say.nbytes(mem).replace('.0 ', ' ')} cards"
        extra = f", so it needs at least {say.small(need)} {round(mem / GIB):g} GB cards"
    return _check("wrong", "weights", expected, "bytes", c,
                  f"{say.params(p)} parameters at {_dtype_words(b)} each is about {say.nbytes(expected)}, "
                  f"not {say.nbytes(c.value)}{extra}.", trace)


def check_fit(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A model said to fit on (or to need) N GPUs, or a tensor-parallel degree: can the weights fit?"""
    readings = _weights_readings(c, ctx, i)
    mem = _mem(c.subject)
    if not readings or not mem or not c.value:
        return None
    n = int(c.value)
    weights, dt = readings[0]
    b = _bpp(dt, ctx.v)
    need = max(1, math.ceil(weights / mem))
    need_room = max(1, math.ceil(weights / (0.9 * mem)))
    p = _params(c.subject)
    gl = f"{round(mem / GIB):g} GB"
    trace = [f"weights = {say.params(p)} x {b:g} bytes ({dt}) = {say.nbytes(weights)}",
             f"GPU memory = {n} x {mem / GIB:g} GiB = {say.nbytes(n * mem)}"]
    if c.bound == "lower" and n >= need:
        return _check("ok", "fit", need, "gpus", c,
                      f"Yes: about {say.nbytes(weights)} of weights needs at least {say.small(need)} {gl} cards.", trace)
    if weights > n * mem:
        return _check("impossible", "fit", need_room, "gpus", c,
                      f"{say.params(p)} parameters at {_dtype_words(b)} each is about {say.nbytes(weights)}, "
                      f"so it needs at least {say.small(need_room)} {gl} cards, not {say.small(n)}.", trace)
    if weights > 0.95 * n * mem:
        return _check("wrong", "fit", need_room, "gpus", c,
                      f"About {say.nbytes(weights)} of weights on {say.small(n)} {gl} card{'s' if n > 1 else ''} "
                      f"leaves almost nothing for the KV cache.", trace)
    return _check("ok", "fit", n, "gpus", c,
                  f"Fits: about {say.nbytes(weights)} of weights on {say.nbytes(n * mem)} of GPU memory.", trace)


def _kv_diagnosis(claimed: float, m, kv: int, bytes_el: float) -> str:
    r = claimed / kv
    h, kvh, layers = m.attention_heads, m.kv_heads, m.layers
    hidden = m.hidden
    if abs(r - 0.5) <= 0.06:
        return " It looks like the factor of two for keys and values is missing."
    if kvh != h and abs(r - h / kvh) <= 0.1 * h / kvh:
        return f" That counts all {h} attention heads; it caches only {kvh} KV heads."
    if kvh != h and abs(r - h / kvh / 2) <= 0.1 * h / kvh / 2:
        return f" That counts {h} attention heads instead of {kvh} KV heads and drops the factor of two."
    if abs(claimed - hidden * bytes_el) <= 0.25 * hidden * bytes_el or abs(claimed - 2 * hidden * bytes_el) <= 0.25 * 2 * hidden * bytes_el:
        return " That is one layer's hidden vector; the cache keeps a key and a value in every layer."
    if abs(r - 1 / layers) <= 0.25 / layers or abs(r - 2 / layers) <= 0.5 / layers:
        return f" That is one layer's worth; there are {layers} layers."
    return ""


def check_kv_per_token(c: Claim, ctx: Ctx, i: int) -> Check | None:
    s = c.subject
    a = _arch(c, ctx, i)
    tol = ctx.v.physics["tolerance"]
    if not a:
        return _arith_check(c, ctx)
    said_fp8 = any(ctx.claims[j].subject.kv_dtype == "fp8" for j in range(i + 1))
    dtypes = [s.kv_dtype or "fp16"] + [d for d in ("fp16",) + (("fp8",) if said_fp8 else ())
                                       if d != (s.kv_dtype or "fp16")]
    readings = [a.kv_bytes(d) for d in dtypes]
    tp = s.tp or s.gpus_in_sentence or 1
    if tp > 1 and _per_shard(c):
        readings += [r / tp for r in readings]  # "80 KiB per token per GPU" at TP=4: each GPU holds its KV heads
    ok, best = _best(c, readings, tol)
    kv = readings[0]
    b = capacity.DTYPE_BYTES.get(dtypes[0], 2.0)
    trace = [_kv_per_token_step(a, b, kv)]
    if ok:
        return _check("ok", "kv_per_token", best, "bytes", c,
                      f"Right: {a.name} stores about {say.nbytes(best)} of keys and values per token.", trace)
    if a.latent:
        return _check("wrong", "kv_per_token", kv, "bytes", c,
                      f"{a.name} uses latent attention: it caches one {a.preset.kv_lora_rank}-wide latent and a "
                      f"{a.preset.qk_rope_head_dim}-wide RoPE key per layer for {a.layers} layers at {_dtype_words(b)} "
                      f"each, about {say.nbytes(kv)} per token, not {say.nbytes(c.value)}.", trace)
    return _check("wrong", "kv_per_token", kv, "bytes", c,
                  f"{a.name} keeps a key and a value for {a.layers} layers and {a.kv_heads} KV heads of {a.head_dim} "
                  f"dimensions at {_dtype_words(b)} each: about {say.nbytes(kv)} per token, not {say.nbytes(c.value)}."
                  + _kv_diagnosis(c.value, a, kv, b), trace)


def _seq_len(c: Claim, ctx: Ctx, i: int) -> tuple[float | None, str]:
    lens = _seq_lens(c, ctx, i)
    return lens[0] if lens else (None, "")


_IF_AFTER = re.compile(r"\b(?:if|were|had)\b", re.I)


_NEXT_CASE = re.compile(r"(?:[,;]\s*(?:and|but|while|whereas)?|\b(?:while|whereas)\b)\s+(?:at|with|for|on)\b"
                        # ... or a count of its own said first: "about 260 sequences per replica at the normal mix,
                        # mid-fifties at 8K" (the 8K is the mid-fifties')
                        r"|[,;]\s*(?:and\s+|but\s+)?(?:~|about\s+|roughly\s+|around\s+)?"
                        r"(?:(?:mid|low|high|upper|lower)[- ]\w+|\d[\d,.]*|\w+(?:ty|ties|teens?|hundreds?|dozen))\s+(?:at|with|for|on)\b", re.I)
_ADDEND_BEFORE = re.compile(r"(?<![\d,.])(\d[\d,]*)\s*(?:tokens?\s+)?(?:\+|plus)\s*$", re.I)


def _with_addend(sl: Claim, ctx: Ctx) -> float:
    """A length said as a sum, "a full sequence of 2,000 plus 250 tokens": the whole sum, not its last term."""
    pos = sl.sentence.find(sl.span)
    m = _ADDEND_BEFORE.search(sl.sentence, max(0, pos - 24), pos) if pos > 0 else None
    if m is None:
        return sl.value
    try:
        return sl.value + float(m.group(1).replace(",", ""))
    except ValueError:
        return sl.value


_CODE_TOKENS = re.compile(r"\bkv\w*\s*\*\s*(\d[\d_,]*)\s*(?:#|$)")


def _seq_lens(c: Claim, ctx: Ctx, i: int) -> list[tuple[float, str]]:
    """Sequence lengths the figure may be for, the most likely first.

    A length said in the figure's own sentence is the only reading. Otherwise every fair reading:
    the latest length said (either speaker), prompt plus reply, and the first length of the round
    (a figure "spread across turns" may refer back to it)."""
    code = _CODE_TOKENS.search(c.sentence)
    if code is not None and 16 <= int(code.group(1).replace("_", "").replace(",", "")) <= 2_000_000:
        # the length multiplied in the code line the figure comments on: "kv_6k = kv_per_tok * 6000  # ~1.97 GB"
        n = float(code.group(1).replace("_", "").replace(",", ""))
        return [(n, f"sequence length {n:,.0f} tokens (the code line: {code.group(0).split('#')[0].strip()!r})")]
    same = [ctx.claims[j] for j in ctx.in_sentence(i) if ctx.claims[j].kind == "seq_len" and ctx.claims[j].value
            and not ctx.claims[j].negated and j != i]
    # ... not one that belongs to another figure of the same kind said between them ("between 230 and 250
    # sequences of average length - and only about 55 if every request used the full 8K context")
    others = [ctx.claims[j].start for j in ctx.in_sentence(i) if j != i and ctx.claims[j].kind == c.kind]
    same = [x for x in same if not any(min(x.start, c.start) < o < max(x.start, c.start) for o in others)
            and not (x.hypothetical and not c.hypothetical)
            and not (x.start > c.end and _IF_AFTER.search(c.sentence, max(0, _pos(c)),
                                                          max(0, c.sentence.find(x.span))))
            # ... nor one that opens the next case ("At 4,096-token sequences that's ~28 sequences, and at 2k it's ~56":
            # the 2k is the 56's)
            and not (x.start > c.end and _NEXT_CASE.search(c.sentence, max(0, _pos(c)) + len(c.span),
                                                            max(0, c.sentence.find(x.span))))]
    # ... nor the round's reply length said as what a sequence grows to ("room to grow to 250 tokens" when prompts are
    # 2,000): no sequence is shorter than its prompt
    replies = {ctx.claims[j].value for j in ctx.by_kind.get("output_tokens", []) if j < i}
    prompt = max((ctx.claims[j].value or 0 for j in ctx.by_kind.get("prompt_tokens", []) if j < i), default=0)
    same = [x for x in same if not (x.value in replies and x.value < prompt)]
    if same:
        sl = min(same, key=lambda x: abs(x.start - c.start))
        total = _with_addend(sl, ctx)
        if total != sl.value:
            return [(total, f"sequence length {total:,.0f} tokens (turn {sl.turn}: {sl.sentence[:120]!r})")]
        return [(sl.value, f"sequence length {sl.value:,.0f} tokens (turn {sl.turn}: {sl.span!r})")]
    out: list[tuple[float, str]] = []
    # "a six thousand token prompt is about two gigs of KV": the prompt said with the figure
    prompts = [ctx.claims[j] for j in ctx.in_sentence(i) if ctx.claims[j].kind == "prompt_tokens"
               and ctx.claims[j].value and not ctx.claims[j].negated]
    for pr in prompts[:1]:
        out.append((pr.value, f"the {pr.value:,.0f}-token prompt (turn {pr.turn}: {pr.span!r})"))
    sl = ctx.related(i, ("seq_len",))
    if sl:
        out.append((sl.value, f"sequence length {sl.value:,.0f} tokens (turn {sl.turn}: {sl.span!r})"))
    p = ctx.related(i, ("prompt_tokens",))
    o = ctx.related(i, ("output_tokens",))
    if p and o:
        out.append((p.value + o.value, f"sequence length = {p.value:,.0f} prompt + {o.value:,.0f} reply tokens"))
    first = next((ctx.claims[j] for j in ctx.by_kind.get("seq_len", []) if j < i and ctx.claims[j].value
                  and not ctx.claims[j].negated and not ctx.claims[j].hypothetical), None)
    if first:
        out.append((first.value, f"sequence length {first.value:,.0f} tokens (turn {first.turn}: {first.span!r})"))
    seen, uniq = set(), []
    for v, why in out:
        if v not in seen:
            seen.add(v)
            uniq.append((v, why))
    return uniq


# Figures that rest on a shared prefix stored once: the calculator does not know the shared share.
_SHARED_PREFIX = re.compile(r"\bprefix(?:es)?\s+(?:shar|cach|reuse)\w*|\bshared\s+(?:system\s+)?(?:prefix|prompt)"
                            r"|\bprefix[- ]shar\w*|\bstored\s+once\b", re.I)


def _rests_on_shared_prefix(c: Claim) -> bool:
    return bool(_SHARED_PREFIX.search(c.sentence))


def _formula_tokens(c: Claim, ctx: Ctx) -> float | None:
    """A token count among the factors of a product ("6,000 x 320 KB"), if one was said."""
    from interviewer.claims.numbers import find_mentions

    for f in c.formula:
        for m in find_mentions(f, ctx.v):
            if m.dim in ("count", "tokens") and m.value >= 64:
                return m.value
    # ... or before it in its sentence, the product's working set off in brackets: "That KV is 6,000 x 327,680 B
    # (2 x 80 layers x 8 KV heads x 128 x 2 B per token), ≈ 1.97 GB per sequence"
    said = list(_TOKENS_TIMES_SIZE.finditer(c.sentence, 0, max(_pos(c), 0))) if not c.formula else []
    if said:
        size = find_mentions(said[-1].group(2), ctx.v)
        n = float(said[-1].group(1).replace(",", ""))
        # a token count times a token's KV, not the last factors of the per-token product ("... x 128 x 2 bytes")
        if size and size[0].dim == "bytes" and 1e4 <= size[0].value <= 5e7 and n >= 64:
            return n
    return None


_TOKENS_TIMES_SIZE = re.compile(r"(?<![\d.,])(?<![x×*]\s)(?<![x×*])(\d[\d,]*)\s*(?:tokens?\s*)?(?:x|×|\*|times)\s*"
                                r"(~?\d[\d,.]*\s*(?:b|bytes|kb|kib|mb|mib))\b(?!\s*(?:x|×|\*|times)\s*\d)", re.I)


def check_kv_per_sequence(c: Claim, ctx: Ctx, i: int) -> Check | None:
    ft = _formula_tokens(c, ctx)
    seq, why = (ft, f"sequence length {ft:,.0f} tokens (a factor of the product said)") if ft else _seq_len(c, ctx, i)
    if not seq:
        return None
    tol = ctx.v.physics["tolerance"]
    a = _arch(c, ctx, i)
    if a:
        kv = a.kv_bytes(c.subject.kv_dtype)
        who = a.name
    else:
        own = ctx.related(i, ("kv_bytes_per_token",))
        if not own:
            return None
        kv, who = own.value, "your per-token figure"
    expected = kv * seq
    trace = [why, f"KV per sequence = {kv:,.0f} bytes x {seq:,.0f} tokens = {say.nbytes(expected)}"]
    # (with no length in its sentence, any length the round gave is a fair reading: "a full sequence is ~590 MB"
    # after both a 1,800-token request and a 300-token reply)
    lens = [seq] if ft else [s for s, _w in _seq_lens(c, ctx, i)] or [seq]
    ok, best = _best(c, [kv * s for s in lens] + [kv * 2 ** math.ceil(math.log2(seq))], tol)
    if ok:
        seq = best / kv if best / kv in lens else seq
        return _check("ok", "kv_per_sequence", best, "bytes", c,
                      f"Right: {say.nbytes(kv)} per token over {seq:,.0f} tokens is about {say.nbytes(best)}.", trace)
    # a per-token figure said right earlier in the same answer, for the model it was worked out for ("KV per token:
    # 2 × 80 × 8 × 128 × 2 = 327,680 bytes ... less than the old 13B's 800 KiB ... 1,800 tokens, so ~590 MB"): the
    # sequence is that model's, whichever model was named last
    for x in ctx.earlier(i, ("kv_bytes_per_token",), same_turn=True):  # (the same speaker's, in this answer)
        if x.check is not None and x.check.status == "ok" and x.subject.model != c.subject.model:
            ok, best = _best(c, [x.value * s for s in lens], tol)
            if ok:
                return _check("ok", "kv_per_sequence", best, "bytes", c,
                              f"Right: {say.nbytes(x.value)} per token over {best / x.value:,.0f} tokens is about "
                              f"{say.nbytes(best)}.", trace)
    return _check("wrong", "kv_per_sequence", expected, "bytes", c,
                  f"At {say.nbytes(kv)} per token ({who}), a {seq:,.0f}-token sequence holds about "
                  f"{say.nbytes(expected)} of KV, not {say.nbytes(c.value)}.", trace)


def _freed_by_a_change(c: Claim, ctx: Ctx, i: int) -> bool:
    """Is a figure said as what a change frees ("INT4 ... three and a half gigs instead of fourteen, ...
    you free ten gigs for KV") the difference of two sizes said before it - in its sentence, or the
    weights said earlier in the round ("INT4 weights are ~3.4 GB ... you free ~10 GB for KV" after
    "13.5 GB" of FP16 weights): a saving, not the memory left?"""
    from interviewer.claims.attach import FREED_BEFORE
    from interviewer.claims.numbers import find_mentions

    pos = _pos(c)
    if pos <= 0 or not c.value or not FREED_BEFORE.search(c.sentence, max(0, pos - 24), pos):
        return False
    said = [m.value for m in find_mentions(c.sentence[:pos], ctx.v) if m.dim == "bytes" and m.value]
    weights = [x.value for x in ctx.claims[:i] if x.kind == "weights_bytes" and x.speaker == c.speaker and x.value]
    # (or two weights said before it: "FP16 weights 13.5 GB ... INT4 weights ~3.5 GB ... It also frees ~10 GB for KV")
    return any(a > b and abs((a - b) - c.value) <= 0.15 * c.value for a in said + weights for b in said + weights)


def check_free(c: Claim, ctx: Ctx, i: int) -> Check | None:
    if _freed_by_a_change(c, ctx, i):
        return None
    cap = _capacity(c, ctx, i, c.scope if c.scope_stated else None)
    if not cap:
        return None
    tol = ctx.v.physics["tolerance"]
    readings = list(cap["free"])
    if cap["n"] > 1:
        readings += [r / cap["n"] for r in cap["free"]]  # a per-GPU figure for a sharded replica
    readings += _left_after_a_total(c, ctx, list(cap["free"]), cap["weights"])
    after_cache = _left_after_the_cache(c, ctx, i, cap)
    readings += after_cache
    ok, best = _best(c, readings, tol)
    n, mem, w = cap["n"], cap["mem"], cap["weights"]
    if not ok and c.value:
        # the usable memory the candidate set (and was right to): "we never plan past 85% of HBM ... So 68 GB usable
        # per card, minus 35 of weights, minus about 5 for activations: 28 GB a card, 112 GB a replica" - a chosen
        # reserve, with up to a tenth of the card more held back for the runtime
        for u in _usable_said(c, ctx, i, mem):
            per_card = [u - w / n - x * mem for x in (0.0, 0.1)]
            lo, hi = max(min(per_card), 0.0), max(per_card)
            if lo <= c.value <= hi * (1 + tol) or n > 1 and lo * n <= c.value <= hi * n * (1 + tol):
                ok, best = True, c.value
                break
    expected = cap["primary_free"]
    cards = _cards_said(c, ctx, i, mem)
    if not ok and cards and cards != n and c.value and 0.9 * cards * mem - w - 0.1 * mem <= c.value <= cards * mem - w:
        # the cards said as the minuend of its own sum: "Why not two? 160 GB minus 140 leaves ~20 GB"
        ok, best, n = True, c.value, cards
    if not ok and c.value and any(max(lo, 0) <= c.value <= hi for lo, hi in
                                  [(0.9 * n * mem - w, n * mem - w), ((0.9 * n * mem - w) / n, (n * mem - w) / n)]):
        ok, best = True, c.value  # "160 GB ... leave about 20 GB for KV after the weights": a reserve under a tenth
    trace = [f"GPU memory = {n} x {mem / GIB:g} GiB = {say.nbytes(n * mem)} ({cap['why']})",
             f"usable at 90-100% = {say.nbytes(0.9 * n * mem)} to {say.nbytes(n * mem)}",
             f"free = usable - weights {say.nbytes(w)} = {say.nbytes(0.9 * n * mem - w)} to {say.nbytes(n * mem - w)}"]
    if expected <= 0 and n * mem - w <= 0:
        return _check("impossible", "free", 0, "bytes", c,
                      f"The weights alone, about {say.nbytes(w)}, are more than the {say.nbytes(n * mem)} of GPU memory, "
                      f"so nothing is left for the cache.", trace)
    gl = f"{say.small(n)} {round(mem / GIB):g} GB card{'s' if n > 1 else ''}"
    if ok:
        also = " and the cache worked out before it" if best in after_cache else ""
        return _check("ok", "free", best, "bytes", c,
                      f"Right: {gl} less about {say.nbytes(w)} of weights{also} leaves roughly {say.nbytes(best)}.", trace,
                      low=0.9 * n * mem - w, high=n * mem - w)
    return _check("wrong", "free", expected, "bytes", c,
                  f"{gl[0].upper() + gl[1:]} less about {say.nbytes(w)} of weights leaves roughly "
                  f"{say.nbytes(0.9 * n * mem - w)} to {say.nbytes(n * mem - w)}, not {say.nbytes(c.value)}.", trace,
                  low=0.9 * n * mem - w, high=n * mem - w)


_MINUEND_AFTER = re.compile(r"\s*[;,]?\s*(?:minus|less|-|−)\s*~?\d", re.I)


def _as_said(mem: float) -> float:
    """A card's memory in bytes as its name says it ("80 GB" is 80e9), not its GiB."""
    return round(mem / GIB) * 1e9


def _cards_said(c: Claim, ctx: Ctx, i: int, mem: float) -> int | None:
    """How many cards a GPU-memory total said before the figure in its sentence, as the minuend of a sum, holds."""
    from interviewer.claims.numbers import find_mentions

    nominal = _as_said(mem)
    for m in find_mentions(c.sentence[:max(_pos(c), 0)], ctx.v):
        if m.dim == "bytes" and m.value and _MINUEND_AFTER.match(c.sentence, m.end):
            for k in (1, 2, 4, 8, 16):
                if abs(m.value / (k * nominal) - 1) <= 0.08 or abs(m.value / (k * mem) - 1) <= 0.08:
                    return k
    return None


def _usable_said(c: Claim, ctx: Ctx, i: int, mem: float) -> list[float]:
    """Usable memory per card the candidate said before the figure (and found right), in bytes."""
    out = []
    for j in ctx.by_kind.get("usable_memory_bytes", []):
        u = ctx.claims[j]
        if j < i and u.speaker == c.speaker and u.value and u.check is not None and u.check.status == "ok" \
                and 0.5 * mem <= u.value <= 1.05 * mem:
            out.append(u.value)
    return out


def _left_after_a_total(c: Claim, ctx: Ctx, readings: list[float], weights: float) -> list[float]:
    """What is left once a total said before the figure is set aside too: "weights ~13.5 GB + 8 GiB
    cache = ~22 GB, ~1.5 GB runtime -> ~17 GB left" is the card less that 22 GB and the 1.5 GB, not
    less the weights alone."""
    from interviewer.claims.numbers import find_mentions

    pos = _pos(c)
    if pos <= 0 or not readings:
        return []
    card = max(readings) + weights
    # (not the card itself: "On A100 40G: weights ...")
    said = [m for m in find_mentions(c.sentence[:pos], ctx.v) if m.dim == "bytes" and 0 < m.value < 0.9 * card]
    out = []
    for k, total in enumerate(said):
        if k == 0 or total.value <= said[0].value:
            continue  # a total follows the parts it sums: the weights said first, then what they add up to
        rest = total.value + sum(m.value for m in said[k + 1:])
        out += [r + weights - rest for r in readings]  # (each reading is the card less the weights)
    if len(said) >= 2 and _PLUS.fullmatch(c.sentence, said[0].end, said[1].start):
        # ... or the parts added with no total: "~12.5 GiB weights + 8 GiB cache fits with ~17 GiB spare"
        out += [r - sum(m.value for m in said[1:]) for r in readings]
    return [x for x in out if x > 0]


_PLUS = re.compile(r"\s*(?:of\s+)?(?:weights?|model)?\s*(?:\+|plus|and)\s*~?\s*", re.I)


# "that leaves ~2 GB": what the sentence before set aside is subtracted too
_THAT_LEAVES = re.compile(r"\b(?:that|this|which|it)\s+(?:still\s+)?leaves\s+(?:about\s+|roughly\s+|only\s+|~)?$", re.I)


def _left_after_the_cache(c: Claim, ctx: Ctx, i: int, cap: dict) -> list[float]:
    """What is left once the cache worked out just before is set aside too: "Total = ... = 8 GiB. On a 24 GB A10G
    holding 13.5 GB of weights, that leaves ~2 GB" is the card (as said, in GB, or in GiB) less the weights and the
    8 GiB."""
    pos = _pos(c)
    if pos <= 0 or not _THAT_LEAVES.search(c.sentence[:pos]):
        return []
    totals = [x.value for x in ctx.earlier(i, ("kv_bytes_per_sequence", "kv_bytes_batch"), same_turn=True)
              if x.sentence != c.sentence]
    if not totals:
        return []
    n, mem, w = cap["n"], cap["mem"], cap["weights"]
    cards = [n * mem, n * _as_said(mem)]
    return [x for card in cards for x in (card - w - totals[-1], 0.95 * card - w - totals[-1]) if x > 0]


def check_usable(c: Claim, ctx: Ctx, i: int) -> Check | None:
    mem = _mem(c.subject)
    if not mem:
        return None
    ns, why = _replica_gpus(c.subject, (_weights_readings(c, ctx, i) or [(None, "")])[0][0], mem)
    n = ns[0]
    readings = [k * mem * u for k in {*ns, 1} for u in (0.85, 0.9, 0.95, 1.0)]
    ok, best = _best(c, readings, ctx.v.physics["tolerance"])
    trace = [f"GPU memory = {n} x {mem / GIB:g} GiB = {say.nbytes(n * mem)} ({why}); usable 85-100%"]
    if ok:
        return _check("ok", "usable", best, "bytes", c, f"Right: about {say.nbytes(best)} usable.", trace)
    return _check("wrong", "usable", 0.9 * n * mem, "bytes", c,
                  f"{say.small(n).capitalize()} {round(mem / GIB):g} GB card{'s' if n > 1 else ''} with a tenth held back "
                  f"is about {say.nbytes(0.9 * n * mem)} usable, not {say.nbytes(c.value)}.", trace)


def check_gpu_memory(c: Claim, ctx: Ctx, i: int) -> Check | None:
    mem = _mem(c.subject)
    if not mem:
        return None
    counts = _gpu_counts(c.subject)
    # any GPU the round has named is a fair reading ("if we had H200s ... with 80 gig cards"), and any named in
    # the figure's own sentence ("On an A100 80GB that's nothing, but on a 24 GB L4 ...")
    mems = {mem} | ctx.memories(i) | _sentence_gpu_memories(c.sentence)
    if _pos(c) >= 0 and _MINUEND_AFTER.match(c.sentence, _pos(c) + len(c.span)):
        counts = counts | {2, 4, 8}  # a few cards' memory set against the weights: "Why not two? 160 GB minus 140 ..."
    readings = {k * m: (k, m) for k in sorted(counts) for m in sorted(mems)}
    ok, best = _best(c, list(readings), ctx.v.physics["tolerance"])
    trace = [f"{_gpu_label(c.subject)}: {mem / GIB:g} GiB each"]
    if ok:
        # the card's size as it is sold (GiB), not the same bytes in decimal GB: "80 gig" on an A100 80GB is 80 GiB
        k, m = readings[best]
        said = f"{m / GIB:g} GiB a card" if k == 1 else f"{k} cards of {m / GIB:g} GiB, {k * m / GIB:g} GiB"
        return _check("ok", "gpu_memory", best, "bytes", c, f"Right: {said}.", trace)
    return _check("wrong", "gpu_memory", mem, "bytes", c,
                  f"The {_gpu_label(c.subject)} has {mem / GIB:g} GB, not {say.nbytes(c.value)}.", trace)


def _gpu_counts(s: Subject) -> set[int]:
    """The GPUs a per-GPU figure may be said over: one card, the GPUs of its sentence, the replica's TP."""
    return {1, s.gpus_in_sentence or 1, s.tp or 1}


def _sentence_gpu_memories(sentence: str) -> set[float]:
    from interviewer.claims.segments import _names

    gpus = capacity.load_presets().gpus
    return {gpus[g].memory_gib * GIB for g, _s, _e in _names(sentence)[1] if g in gpus}


def check_bandwidth(c: Claim, ctx: Ctx, i: int) -> Check | None:
    g = _gpu(c.subject)
    if not g:
        return None
    bw = g.hbm_bandwidth_gbs * 1e9
    # the replica's GPUs together ("across four GPUs' 13.4 TB/s") read at the sum of their bandwidths
    counts = _gpu_counts(c.subject)
    ok, _ = _best(c, [bw * k for k in counts], ctx.v.physics["tolerance"])
    trace = [f"{g.id}: {g.hbm_bandwidth_gbs:,.0f} GB/s peak"]
    if ok:
        return _check("ok", "bandwidth", bw, "bytes/s", c, f"Right: about {bw / 1e12:.2g} TB/s.", trace)
    return _check("wrong", "bandwidth", bw, "bytes/s", c,
                  f"The {_gpu_label(c.subject)} reads memory at about {bw / 1e12:.2g} TB/s, "
                  f"not {c.value / 1e12:.2g}.", trace)


_PEAK_WORD = re.compile(r"\b(?:datasheet|data\s+sheet|spec(?:s|\s+sheet)?|peak|on\s+paper)\b", re.I)
_FP8_WORD = re.compile(r"\b(?:fp8|int8|8-bit)\b", re.I)


def check_peak_flops(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A named GPU's peak tensor rate said as its dense figure: the with-sparsity peak (twice the dense one) quoted
    for FP16 ("An L4 is ~240 TFLOPS FP16 on the datasheet") halves every compute-bound estimate built on it. Only
    that slip is judged; any other rate (a delivered share, a measured one) is the candidate's to choose."""
    g = _gpu(c.subject)
    pos = _pos(c)
    if not g or pos < 0 or not c.value or re.search(r"spars", c.sentence, re.I):
        return None
    before, after = c.sentence[max(0, pos - 50):pos], c.sentence[pos + len(c.span):pos + len(c.span) + 40]
    names = [re.escape(a) for a in [g.id, *g.aliases] if a]
    named = re.search(r"\b(?:" + "|".join(names) + r")\b(?:'s)?[^.;,\d]{0,25}$", before, re.I)
    if not named or not (_PEAK_WORD.search(before + " " + after) or re.match(r"\s*(?:fp16|bf16)\b", after, re.I)):
        return None
    fp8 = bool(_FP8_WORD.search(after[:20]) or _FP8_WORD.search(before[-20:]))
    dense = g.tflops_fp8 if fp8 else g.tflops_fp16
    if not dense:
        return None
    sparse = 2 * dense * 1e12
    if abs(c.value / sparse - 1) > 0.12:
        return None
    dt = "FP8" if fp8 else "FP16"
    return _check("wrong", "peak_flops", dense * 1e12, "flop", c,
                  f"{c.value / 1e12:,.0f} TFLOPS is the {_gpu_label(c.subject)}'s {dt} peak with 2:4 sparsity; its "
                  f"dense {dt} peak is about {dense:,.0f} TFLOPS, so a compute-bound estimate built on it is twice too "
                  f"kind.", [f"{g.id}: dense {dt} {dense:,.0f} TFLOPS, with sparsity {2 * dense:,.0f} ({g.source})"])


def check_cache_tokens(c: Claim, ctx: Ctx, i: int) -> Check | None:
    cap = _capacity(c, ctx, i, c.scope if c.scope_stated else None)
    tol = ctx.v.physics["tolerance"]
    if not cap:
        free = ctx.related(i, ("free_kv_bytes",))
        kv = ctx.related(i, ("kv_bytes_per_token",))
        if not (free and kv) or c.speaker != free.speaker:
            return None
        expected = free.value / kv.value
        ok, _ = _best(c, [expected], tol)
        trace = [f"{say.nbytes(free.value)} / {say.nbytes(kv.value)} per token = {expected:,.0f} tokens (your figures)"]
        return _check("ok" if ok else "wrong", "cache_tokens", expected, "tokens", c,
                      f"By your own figures, {say.nbytes(free.value)} over {say.nbytes(kv.value)} per token is about "
                      f"{say.count(expected)} tokens" + ("." if ok else f", not {say.count(c.value)}."), trace)
    if _rests_on_shared_prefix(c):
        return _check("unchecked", "cache_tokens", None, "tokens", c,
                      "This figure rests on a shared prefix stored once; how much is shared decides it.", [])
    readings = [f / kv for f in cap["free"] if f > 0 for kv in cap["kvs"]]
    if not readings:
        return _no_room(c, cap, "cache_tokens", "tokens")
    ok, best = _best(c, readings, tol)
    expected = max(cap["primary_free"], 0) / cap["kv"]
    trace = [f"free = {say.nbytes(cap['primary_free'])}; KV per token = {cap['kv']:,} bytes",
             f"tokens = free / KV per token = {expected:,.0f}"]
    if ok:
        return _check("ok", "cache_tokens", best, "tokens", c,
                      f"Right: about {say.nbytes(cap['primary_free'])} at {say.nbytes(cap['kv'])} per token holds "
                      f"roughly {say.count(best)} tokens.", trace)
    return _check("wrong", "cache_tokens", expected, "tokens", c,
                  f"About {say.nbytes(cap['primary_free'])} free at {say.nbytes(cap['kv'])} per token holds roughly "
                  f"{say.count(expected)} tokens, not {say.count(c.value)}.", trace)


def _scope_for_sequences(c: Claim) -> str | None:
    if c.scope_stated:
        return c.scope
    return None


def _host_from_per_gpu(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A host's sequences said right after one GPU's ("about 27 sequences per GPU, and across the host
    that's about 430"): the host's GPUs times the per-GPU figure, whatever the sequence length."""
    if not (c.scope == "per_host" and c.scope_stated and c.value):
        return None
    per_gpu = ctx.said_before(i, ("concurrent_sequences",), lambda x: x.scope == "per_gpu" and x.scope_stated
                              and x.speaker == c.speaker)
    if per_gpu is None:
        return None
    host = ctx.related(i, ("gpu_count",), same_sentence_first=False)
    n = int(host.value) if host and host.value and 2 <= host.value <= 16 else 8
    expected = per_gpu.value * n
    ok, _ = _best(c, [expected], ctx.v.physics["tolerance"])
    trace = [f"{say.count(per_gpu.value)} a GPU x {n} GPUs a host = {say.count(expected)}"]
    return _check("ok" if ok else "wrong", "host_sequences", expected, "sequences", c,
                  f"{say.count(per_gpu.value).capitalize()} sequences a GPU across a host of {n} GPUs is about "
                  f"{say.count(expected)}" + ("." if ok else f", not {say.count(c.value)}."), trace)


def check_sequences(c: Claim, ctx: Ctx, i: int) -> Check | None:
    if c.scope == "fleet" and c.scope_stated:
        return None
    if any(x.value == c.value and x.turn < c.turn and not x.negated and (x.check is None or x.check.status in ("ok", "unchecked"))
           for x in ctx.earlier(i, (c.kind,))):
        # the figure of an earlier answer said again ("... ~60 at once", then "max 48 per GPU, below the ~60 that fit"):
        # judged where it was worked out, with that answer's sequence length
        return None
    if any(ctx.claims[j].value == c.value and ctx.claims[j].speaker == c.speaker
           for kind in ("max_num_seqs", "max_batch_size") for j in ctx.by_kind.get(kind, ()) if j < i):
        return None  # "at 128 sequences" after "max num seqs 128": the limit said again, not what fits
    if any(ctx.claims[j].value == c.value and ctx.claims[j].speaker == "interviewer"
           for kind in ("batch_size", "concurrent_sequences") for j in ctx.by_kind.get(kind, ()) if j < i):
        # "Eight slots" after the interviewer's "batch 8", "serve all four sequences" after "decode four prompts in one
        # batch": the load given, not what fits
        return None
    pooled = _in_pool_said(c, ctx, i)
    if pooled is not None:
        return pooled
    if _weights_over_kv(c, ctx, i):
        return _check("unchecked", "sequences", None, "sequences", c,
                      "The weights over one sequence's KV: where the KV read matches the weight read, not how many "
                      "sequences fit in memory.", [])
    scaled = _host_from_per_gpu(c, ctx, i)
    if scaled is not None:
        return scaled
    lens = _seq_lens(c, ctx, i)
    seq, why = lens[0] if lens else (None, "")
    if seq and _rests_on_shared_prefix(c):
        return _check("unchecked", "sequences", None, "sequences", c,
                      "This figure rests on a shared prefix stored once; how much is shared decides it.", [])
    if not seq:
        return _check("unchecked", "sequences", None, "sequences", c,
                      "No sequence length was given, so the number of sequences cannot be checked.", [])
    tol = ctx.v.physics["tolerance"]
    scope = _scope_for_sequences(c)
    per_host = scope == "per_host"
    cap = _capacity(c, ctx, i, None if per_host else scope)
    if not cap:
        free = ctx.related(i, ("free_kv_bytes",))
        kv = ctx.related(i, ("kv_bytes_per_token",))
        if not (free and kv) or free.speaker != c.speaker or kv.speaker != c.speaker:
            return None
        expected = free.value / (kv.value * seq)
        ok, _ = _best(c, [expected], tol)
        trace = [why, f"{say.nbytes(free.value)} / ({kv.value:,.0f} bytes x {seq:,.0f} tokens) = {expected:,.1f} (your figures)"]
        return _check("ok" if ok else "wrong", "sequences", expected, "sequences", c,
                      f"By your own figures, {say.nbytes(free.value)} at {say.nbytes(kv.value * seq)} per "
                      f"{seq:,.0f}-token sequence is about {say.count(expected)}" + ("." if ok else f", not {say.count(c.value)}."),
                      trace)
    if cap["primary_free"] <= 0 and max(cap["free"]) <= 0:
        return _no_room(c, cap, "sequences", "sequences")
    host_gpus = 1
    if per_host:
        host = ctx.related(i, ("gpu_count",), same_sentence_first=False)
        host_gpus = int(host.value) if host and host.value and host.value <= 16 else 8

    def per_scope(n: int) -> list[float]:
        # per host: as many replicas as fit on the host; the scope said before the figure may be the replica's
        if not per_host:
            return [1.0]
        return [max(host_gpus / n, 1.0)] + ([] if c.scope_after else [1.0])

    # every fair reading: (sequences, free, GPUs per replica, KV per token, length, multiplier, where)
    cands = []
    for n, f in cap["free_n"]:
        for kv in cap["kvs"]:
            for s_len, _w in lens:
                for k in per_scope(n):
                    where = (f"per host of {host_gpus} GPUs" if per_host and k > 1 else
                             "per GPU" if cap["per_gpu"] or n == 1 else f"per {say.small(n)}-GPU replica")
                    cands.append((max(f, 0) / (kv * s_len) * k, f, n, kv, s_len, where))
    if not c.scope_stated and not c.scope_asked:
        # no scope said: the figure may be the fleet's ("~10k sequence slots" over 36 replicas), unless the question
        # set it ("how many ... can that GPU hold?")
        reps = ctx.related(i, ("replicas",), same_sentence_first=True)
        gpus = ctx.related(i, ("gpu_count",), same_sentence_first=True)
        fleets = [(reps.value, f"across {reps.value:,.0f} replicas")] if reps and reps.value and reps.value > 1 else []
        if gpus and gpus.value and gpus.value > 1:
            fleets += [(gpus.value / n, f"across {gpus.value:,.0f} GPUs") for n in cap["ns"]]
        for n, f in cap["free_n"]:
            for kv in cap["kvs"]:
                for s_len, _w in lens:
                    for k, where in fleets:
                        if k >= 1:
                            cands.append((max(f, 0) / (kv * s_len) * k, f, n, kv, s_len, where))
    hosts = per_scope(cap["n"])[0]
    expected = max(cap["primary_free"], 0) / (cap["kv"] * seq) * hosts
    positive = [x for x in cands if x[0] > 0]
    ok, best = _best(c, [x[0] for x in positive] or [expected or 1e-9], tol)
    if not ok and c.value and cap["kv"] and seq:
        # between what the card gives with a tenth held back and with none ("leave about 20 GB for KV ... 34
        # sequences"): a reserve under a tenth, not a slip
        n, mem, w = cap["n"], cap["mem"], cap["weights"]
        lo, hi = (0.9 * n * mem - w) / (cap["kv"] * seq), (n * mem - w) / (cap["kv"] * seq)
        if 0 < lo <= c.value <= hi:
            ok, best = True, c.value
    where = "per GPU" if cap["per_gpu"] or cap["n"] == 1 else f"per {say.small(cap['n'])}-GPU replica"
    if per_host:
        where = f"per host of {host_gpus} GPUs"
    trace = [why, f"free = {say.nbytes(cap['primary_free'])} ({cap['why']}); KV per token = {cap['kv']:,} bytes",
             f"sequences = free / (KV per token x {seq:,.0f}) = {expected:,.1f} {where}"]
    assumptions = [cap["why"]] if cap["why"].startswith("assumed") else []
    if not ok and _load_chosen(c) and positive and c.value <= max(x[0] for x in positive) * (1 + tol):
        # "With 32 sequences at 1,024 tokens of context, the KV is 16 GiB": a load the candidate works with, not a
        # claim of what fits; it is wrong only if it could not fit
        most = max(x[0] for x in positive)
        return _check("unchecked", "load", most, "sequences", c,
                      f"A load you chose to work with; it fits (about {say.count(most)} would).", trace, assumptions)
    own = _own_free(c, ctx, i, same_sentence=not ok) if not per_host else None
    if own is not None and not ok and cap["kv"]:
        # the free memory said in the answer for another set-up the sentence names ("Two-way gives 160 GB; minus 140 of
        # weights and ~10 of overhead that's ~10 GB of KV, ~17 sequences"): the count follows from it
        mine = [own / (cap["kv"] * s_len) for s_len, _w in lens]
        good, got = _best(c, mine, tol)
        if good:
            return _check("ok", "sequences", got, "sequences", c,
                          f"Right by the free memory you said: {say.nbytes(own)} at {say.nbytes(cap['kv'])} a token is "
                          f"about {say.count(got)} sequences.", trace + [f"the free memory said: {say.nbytes(own)}"],
                          assumptions)
    if own is not None and ok:
        _v, f, n, kv, s_len, where = min(positive, key=lambda x: abs(math.log(max(x[0], 1e-9) / max(c.value, 1e-9))))
        frees = [own] + ([own * n] if n > 1 else [])
        if all(abs(f / x - 1) > 0.15 for x in frees):
            # the count passes only on a kinder reading of the card than the free memory said in the same answer ("80
            # minus 70 leaves about 10 gigs ... 10 GB divided by 320K is about 30 thousand, so roughly 30 sequences"):
            # it is judged on the figure said
            mine = [x / (kv * s_len) for x in frees]
            ok, best = _best(c, mine, tol)
            if not ok:
                per = _seq_bytes(kv * s_len)
                expected = min(mine, key=lambda x: abs(math.log(max(x, 1e-9) / max(c.value, 1e-9))))
                return _check("wrong", "sequences", expected, "sequences", c,
                              f"By the free memory you said, {say.nbytes(own)}, at {per} per {s_len:,.0f}-token sequence "
                              f"that is about {say.count(expected)} sequences {where}, not {say.count(c.value)}.",
                              trace + [f"the free memory said: {say.nbytes(own)}; {say.nbytes(own)} / ({kv:,} bytes x "
                                       f"{s_len:,.0f} tokens) = {expected:,.1f}"], assumptions)
    whole = _whole_card_divided(c, cap) if ok and own is None else None
    if whole is not None and not _best(c, [expected], tol)[0]:
        # "80 GB ÷ 1.84 GB ≈ 43 sequences" on a card that also holds 26 GB of weights: the count passes only on a
        # kinder reading of the card, but the division said uses the whole card, so the weights were never taken off
        return _check("wrong", "sequences", expected, "sequences", c,
                      f"That divides the whole {say.nbytes(whole)} of the card; about {say.nbytes(cap['weights'])} of "
                      f"it holds the weights, so about {say.nbytes(cap['primary_free'])} is free: roughly "
                      f"{say.count(expected)} sequences {where}, not {say.count(c.value)}.",
                      trace + [f"the memory divided: {say.nbytes(whole)}, the whole card"], assumptions)
    if ok:
        _v, f, n, kv, s_len, where = min(positive, key=lambda x: abs(math.log(max(x[0], 1e-9) / max(c.value, 1e-9))))
        per = _seq_bytes(kv * s_len)
        if (f, n, kv, s_len) != (cap["primary_free"], cap["n"], cap["kv"], seq):
            trace.append(f"the reading that matches: free = {say.nbytes(f)} on {n} GPU{'s' if n > 1 else ''}, "
                         f"{kv:,} bytes per token, {s_len:,.0f} tokens: {best:,.1f} {where}")
        return _check("ok", "sequences", best, "sequences", c,
                      f"Right: about {say.nbytes(f)} free at {per} per {s_len:,.0f}-token sequence is "
                      f"roughly {say.count(best)} sequences {where}.", trace, assumptions)
    per = _seq_bytes(cap["kv"] * seq)
    return _check("wrong", "sequences", expected, "sequences", c,
                  f"About {say.nbytes(cap['primary_free'])} free at {per} per {seq:,.0f}-token sequence is roughly "
                  f"{say.count(expected)} sequences {where}, not {say.count(c.value)}.", trace, assumptions)


# the memory a count is put in, said right after it: "we could run 32 slots in the same 8 GiB instead of 8"
_IN_POOL = re.compile(r"\s*(?:[\w-]+\s+){0,2}?in\s+(?:the\s+same\s+|those\s+|that\s+|these\s+|the\s+)?(?:~|about\s+)?"
                      r"(\d[\d,]*(?:\.\d+)?)\s*(GiB|GB|G|gigs?)\b", re.I)


def _in_pool_said(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A count of sequences put in a memory the sentence names right after it ("32 slots in the same 8 GiB"), judged
    against that memory and the answer's own KV per token, not against the card's free memory."""
    at = c.at if c.at >= 0 else c.sentence.find(c.span)
    m = _IN_POOL.match(c.sentence, at + len(c.span)) if at >= 0 else None
    if m is None:
        return None
    kv = ctx.related(i, ("kv_bytes_per_token",))
    lens = _seq_lens(c, ctx, i)
    if kv is None or kv.speaker != c.speaker or not kv.value or not lens:
        return None
    said = float(m.group(1).replace(",", ""))
    pools = [said * 2**30, said * 1e9]
    ok, got = _best(c, [p / (kv.value * s_len) for p in pools for s_len, _w in lens], ctx.v.physics["tolerance"])
    s_len = lens[0][0]
    trace = [lens[0][1], f"the memory said: {m.group(1)} {m.group(2)}; KV per token = {kv.value:,.0f} bytes",
             f"sequences = {m.group(1)} {m.group(2)} / ({kv.value:,.0f} bytes x {s_len:,.0f}) = {got:,.1f}"]
    if ok:
        return _check("ok", "sequences", got, "sequences", c,
                      f"Right: {m.group(1)} {m.group(2)} at {_seq_bytes(kv.value * s_len)} per {s_len:,.0f}-token "
                      f"sequence holds about {say.count(got)}.", trace)
    return _check("wrong", "sequences", got, "sequences", c,
                  f"{m.group(1)} {m.group(2)} at {_seq_bytes(kv.value * s_len)} per {s_len:,.0f}-token sequence holds "
                  f"about {say.count(got)}, not {say.count(c.value)}.", trace)


def _seq_bytes(n: float) -> str:
    """A sequence's KV as the checks say it: "1.1 GB", "590 MB"."""
    return f"{n / 1e9:.2g} GB" if n >= 1e9 else say.nbytes(n)


def _weights_over_kv(c: Claim, ctx: Ctx, i: int) -> bool:
    """Is the count worked out in its sentence as the weights over one sequence's KV ("It starts to bite when KV reads
    match weight reads: 1.4e10 / 5.4e8 is ~26 sequences")? That is where decode's reads double, not what fits."""
    from interviewer.claims.arithmetic import DIV
    from interviewer.claims.numbers import find_mentions

    weights = [x.value for x in ctx.earlier(i, ("weights_bytes",))]
    if not weights:
        return False
    # (a free memory near the weights - "141 GB of weights ... leaves about 147 GB for KV" - is what was divided)
    frees = [x.value for x in ctx.earlier(i, ("free_kv_bytes", "usable_memory_bytes"))]
    for j in ctx.in_sentence(i):
        a = ctx.claims[j]
        if a.kind != "arithmetic" or len(a.formula) < 3 or a.formula[1] not in DIV or not a.value \
                or abs(a.value / c.value - 1) > 0.05:
            continue
        first = find_mentions(a.formula[0], ctx.v)
        if first and any(abs(first[0].value / w - 1) <= 0.1 for w in weights) \
                and not any(abs(first[0].value / f - 1) <= 0.1 for f in frees):
            return True
    return False


def _restates(c: Claim, value: float, ctx: Ctx) -> bool:
    """Does the count's sentence, before the count, say this many bytes again?"""
    from interviewer.claims.numbers import find_mentions

    pos = _pos(c)
    return pos > 0 and any(m.dim == "bytes" and m.value and abs(m.value / value - 1) <= 0.02
                           for m in find_mentions(c.sentence[:pos], ctx.v))


def _own_free(c: Claim, ctx: Ctx, i: int, same_sentence: bool = False) -> float | None:
    """The free memory for the cache said (and found right) in the same answer as a count of sequences, if any (with
    `same_sentence`, also one said in the count's own sentence when the count names no scope)."""
    said = ctx.related(i, ("free_kv_bytes",))
    if said is not None and said.turn != c.turn and said.speaker == c.speaker and said.value \
            and said.check is not None and said.check.status == "ok" and _restates(c, said.value, ctx):
        # said in an earlier answer and divided again in this one: "112 GB over 0.59 GB gives about 190"
        return said.value
    if said is None or said.speaker != c.speaker or said.turn != c.turn or not said.value \
            or not (c.scope_stated or same_sentence and said.sentence == c.sentence) \
            or said.check is None or said.check.status != "ok":
        return None
    if said.subject is None or c.subject is None or (said.subject.tp, said.subject.gpu) != (c.subject.tp, c.subject.gpu):
        return None  # another set-up's ("TP=2: ... ~12.5 GiB of cache ... TP=4: ... ~285 seqs per replica")
    return said.value


# a load set up to work with: "With 32 sequences at 1,024 tokens", "At 64 sequences of 2,000 tokens the KV read adds",
# "~20 ms at 200 live sequences", "and at our usual ~100 live sequences", "a replica doing ~200 sequences per step",
# "a GPU with 10 requests at 2K tokens is fuller than one with 20 short ones", "running replicas at ~50 active sequences"
_LOAD_BEFORE = re.compile(r"(?:(?:^|[.;:,]\s*|\b(?:and|so|then)\s+|\b(?:ms|milliseconds?|seconds?)\s+)"
                          r"(?:with|at|say|suppose|assume|assuming|given|for)\s+(?:a\s+batch\s+of\s+)?"
                          r"(?:(?:our|the)\s+)?(?:(?:usual|typical|current|expected|steady[- ]state)\s+)?"
                          r"|\b(?:doing|running|decoding)\s+|\b(?:two|three|four|a\s+couple\s+of|several|\d+)\s+(?:gpus|replicas|cards|nodes|workers)\s+with\s+"
                          r"|\b(?:a|one|the)\s+(?:whole\s+)?(?:gpu|replica|card|node|worker|host|server)\s+"
                          r"(?:(?:dying|failing|crashing|going\s+down|that\s+dies|that\s+fails)\s+)?with\s+"
                          r"|\b(?:reads?|reading|plus)\s+(?:the\s+)?kv\s+(?:cache\s+)?of\s+"
                          r"|\b(?:run(?:ning)?|keep(?:ing)?|operat\w*)\s+(?:the\s+|our\s+)?(?:replicas?|gpus?|cards?|engines?)\s+at\s+"
                          # the fleet's load shared out: "each replica sits at $2500 / 28 \approx$ 90 live sequences"
                          r"|\b(?:sits?|sitting)\s+at\b[^.;]{0,30}?"
                          # a step's time worked at a load: "decode step at ~27 seqs on an A100: weights 26 GB plus ..."
                          r"|\b(?:decode\s+)?(?:step|steps|iteration|forward\s+pass)\s+(?:at|with)\s+)"
                          r"(?:about\s+|roughly\s+|~)?$", re.I)


# the memory divided by one sequence's KV just before the count: "80 GB ÷ 1.84 GB ≈ 43 sequences"
_DIVIDED_BEFORE = re.compile(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)\s*(?:GB|GiB|G|gigs?)\s*(?:÷|/|divided\s+by)\s*~?\d[\d,]*(?:\.\d+)?"
                             r"\s*(?:GB|GiB|MB|MiB|G|M)\b\s*(?:(?:≈|=|~|is|gives)\s*(?:about\s+|roughly\s+|~)?)?$", re.I)


def _whole_card_divided(c: Claim, cap: dict) -> float | None:
    """The memory a count of sequences was divided from, in bytes, when it is the whole card (or replica) although the
    weights sit on it too; None otherwise."""
    pos = _pos(c)
    m = _DIVIDED_BEFORE.search(c.sentence[max(0, pos - 60):pos]) if pos >= 0 else None
    if m is None or not cap["mem"] or cap["weights"] < 0.1 * cap["mem"]:
        return None
    said = float(m.group(1).replace(",", ""))
    for total in (cap["mem"], cap["n"] * cap["mem"]):
        for unit in (1e9, GIB):
            if abs(said * unit / total - 1) <= 0.08:
                return said * 1e9
    return None


def _load_chosen(c: Claim) -> bool:
    """Is the concurrency figure a load the candidate sets up ("With 32 sequences at 1,024 tokens, the KV
    is ..."), rather than a claim of how many fit?"""
    pos = _pos(c)
    return pos >= 0 and bool(_LOAD_BEFORE.search(c.sentence[max(0, pos - 40):pos]))


def _no_room(c: Claim, cap: dict, rule: str, unit: str) -> Check:
    n, mem, w = cap["n"], cap["mem"], cap["weights"]
    return _check("impossible", rule, 0, unit, c,
                  f"About {say.nbytes(w)} of weights leaves no room for a KV cache on {say.small(n)} "
                  f"{round(mem / GIB):g} GB card{'s' if n > 1 else ''}.",
                  [f"weights {say.nbytes(w)} vs GPU memory {say.nbytes(n * mem)} ({cap['why']})"])


def check_max_num_seqs(c: Claim, ctx: Ctx, i: int) -> Check | None:
    lens = _seq_lens(c, ctx, i)
    cap = _capacity(c, ctx, i, c.scope if c.scope_stated else None)
    if not lens or not cap:
        return None
    seq, why = min(lens, key=lambda x: x[0])  # flag a cap only when it is too big at the shortest fair length
    fits = max(cap["generous_free"], 0) / (min(cap["kvs"]) * seq)
    flag = float(ctx.v.physics["max_num_seqs_flag_ratio"])
    trace = [why, f"free = {say.nbytes(cap['generous_free'])} on {cap['ns'][-1]} GPUs ({cap['why']}); "
                  f"KV per token = {cap['kv']:,} bytes",
             f"sequences that fit = {fits:,.1f}; a cap of {c.value:,.0f} is {c.value / max(fits, 1e-9):.1f}x that"]
    assumptions = [cap["why"]] if cap["why"].startswith("assumed") else []
    if c.value > flag * max(fits, 1):
        return _check("wrong", "max_num_seqs", fits, "sequences", c,
                      f"At {seq:,.0f} tokens each, the KV cache holds only about {say.count(fits)} sequences, so a cap "
                      f"of {say.count(c.value)} would admit far more than fit and the scheduler would keep preempting.",
                      trace, assumptions)
    return _check("ok", "max_num_seqs", fits, "sequences", c,
                  f"Fine: about {say.count(fits)} sequences of {seq:,.0f} tokens fit, and the cap of "
                  f"{say.count(c.value)} stays within reach of that.", trace, assumptions)


def _ttft_target(c: Claim, ctx: Ctx, i: int) -> Claim | None:
    for kinds in (("ttft_p99_ms",), ("ttft_p95_ms",), ("ttft_ms",), ("ttft_p50_ms",)):
        t = ctx.related(i, kinds, same_sentence_first=False)
        if t is None:
            # a target said later in the round still applies to a budget
            t = next((x for x in ctx.claims if x.kind in kinds and x.value and not x.negated), None)
        if t is not None:
            return t
    return None


def _compute(c: Claim, ctx: Ctx, i: int):
    s = c.subject
    act = _active_params(s)
    g = _gpu(s)
    if not act or not g:
        return None
    wr = _weights_readings(c, ctx, i)
    # a floor is judged on the lightest weights the candidate's dtypes allow (an FP32 reference snippet
    # beside "~13.5 GB of weights" does not make a 6.6 ms step too fast)
    weights = min(w for w, _d in wr) if wr else None
    ns, why = _replica_gpus(s, weights, g.memory_gib * GIB)
    return act, g, ns[-1], why, weights


def check_token_budget(c: Claim, ctx: Ctx, i: int) -> Check | None:
    comp = _compute(c, ctx, i)
    if not comp:
        return None
    act, g, n, why, _w = comp
    mfu = float(ctx.v.physics["realistic_mfu"])
    flops = 2 * act * c.value
    step_ms = flops / (n * g.tflops_fp16 * 1e12 * mfu) * 1000
    target = _ttft_target(c, ctx, i)
    trace = [f"prefill compute = 2 x {say.params(act)} active parameters x {c.value:,.0f} tokens = {flops:.3g} FLOP",
             f"at {mfu:.0%} of {n} x {g.tflops_fp16:g} TFLOPS ({why}): {step_ms:,.0f} ms per step"]
    if target is None:
        return _check("unchecked", "token_budget", step_ms, "ms", c,
                      f"A full {c.value:,.0f}-token step takes about {say.ms(step_ms)}; no TTFT target was given to "
                      f"compare it with.", trace)
    trace.append(f"TTFT target: {target.value:,.0f} ms ({target.kind}, turn {target.turn})")
    gl = say.gpus(n, _gpu_label(c.subject))
    if step_ms * mfu > target.value:  # out of reach even at full peak
        return _check("wrong", "token_budget", target.value, "ms", c,
                      f"A {c.value:,.0f}-token step on {_model_label(c.subject)} is about {flops / 1e15:.2g} PFLOP; "
                      f"even at the full peak of {gl} that's about {say.ms(step_ms * mfu)}, longer than the "
                      f"{say.ms(target.value)} first-token target on its own.", trace)
    if step_ms > target.value:
        return _check("ok", "token_budget", target.value, "ms", c,
                      f"Tight: a full {c.value:,.0f}-token step is about {say.ms(step_ms)} on {gl} at half of peak, "
                      f"more than the {say.ms(target.value)} target, so a full step only fits the target near peak "
                      f"compute; chunk prefills or lower the budget if TTFT suffers.", trace)
    return _check("ok", "token_budget", target.value, "ms", c,
                  f"Fine: a full {c.value:,.0f}-token step is about {say.ms(step_ms)} on {gl}, inside the "
                  f"{say.ms(target.value)} target.", trace)


def _floor_ms(c: Claim, ctx: Ctx, i: int, tokens: float | None):
    comp = _compute(c, ctx, i)
    if not comp:
        return None
    act, g, n, why, weights = comp
    compute = 2 * act * (tokens or 0) / (n * g.tflops_fp16 * 1e12) * 1000
    read = (weights or 0) / (n * g.hbm_bandwidth_gbs * 1e9) * 1000
    return max(compute, read), compute, read, n, g, why


def check_ttft(c: Claim, ctx: Ctx, i: int) -> Check | None:
    p = ctx.related(i, ("prompt_tokens",))
    tokens = p.value if p else None
    # a long prompt said as an example ("a 6k-token prompt and a 500-token one aren't the same load") does not set the
    # target's workload: the floor is judged at the shorter of it and the prompt the interviewer set
    given = _given(ctx, i, "prompt_tokens")
    if given and p is not None and p.speaker != "interviewer" and p.sentence != c.sentence:
        tokens = min([tokens, *given])
    fl = _floor_ms(c, ctx, i, tokens)
    if not fl:
        return None
    floor, compute, read, n, g, why = fl
    gl = say.gpus(n, _gpu_label(c.subject))
    trace = [f"prefill floor at 100% of peak = 2 x {say.params(_active_params(c.subject))} x {tokens or 0:,.0f} tokens / "
             f"({n} x {g.tflops_fp16:g} TFLOPS) = {compute:,.1f} ms ({why})",
             f"one pass over the weights at {n} x {g.hbm_bandwidth_gbs:,.0f} GB/s = {read:,.1f} ms"]
    if c.value < floor / 1.25:
        what = (f"Prefilling a {tokens:,.0f}-token prompt" if tokens else "Even one forward pass") + \
               f" on {_model_label(c.subject)} takes at least about {say.ms(floor)} on {gl} at full peak"
        return _check("impossible", "ttft_floor", floor, "ms", c, f"{what}, so {say.ms(c.value)} is not reachable.", trace)
    return _check("ok", "ttft_floor", floor, "ms", c,
                  f"Reachable: the physical floor is about {say.ms(floor)} on {gl}.", trace)


_PER_TOKENS = re.compile(r"\s*(?:(?:per|for\s+(?:every|each))\s+|/\s*)(~?\d[\d,]*)\s*(k\b)?", re.I)  # ("~90ms/1k")


def _per_tokens(c: Claim) -> float | None:
    """"90 ms per 1,000 tokens", "~90ms/1k": the token count a time is quoted for."""
    pos = _pos(c)
    if pos < 0:
        return None
    m = _PER_TOKENS.match(c.sentence, pos + len(c.span))
    if not m:
        return None
    return float(m.group(1).lstrip("~").replace(",", "")) * (1000 if m.group(2) else 1)


_FLOP_RATE = re.compile(r"[tpe]flop/?s\b|flop/s\b", re.I)
_PER_TOKEN_AFTER = re.compile(r"\s*(?:per|a|/|each|for\s+(?:each|every|one|a))\s*(?:output\s+|generated\s+|new\s+)?token\b", re.I)


def _prefill_by_own_rate(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A prefill time worked from the candidate's own compute and rate in its sentence ("8.4e14 FLOPs; on a TP4 replica
    at maybe 400 TFLOPS effective per card that's about 5 seconds"): the work over the rate, on one card or on all of
    the replica's."""
    said = [ctx.claims[j] for j in ctx.in_sentence(i) if j < i and ctx.claims[j].kind == "flops" and ctx.claims[j].value]
    rates = [x for x in said if _FLOP_RATE.search(x.span)]
    # (a prompt's work, not one token's: "2 x 70B = 140 GFLOP per token")
    work = [x for x in said if not _FLOP_RATE.search(x.span) and x.value >= 1e13
            and not _PER_TOKEN_AFTER.match(x.sentence, _pos(x) + len(x.span))]
    if not rates or not work:
        return None
    w, r = work[-1].value, rates[-1].value
    n = c.subject.tp or c.subject.gpus_in_sentence or 1
    from interviewer.claims.numbers import find_mentions

    # a utilisation said in the sentence ("at ~40% MFU") scales the rate
    shares = [m.value for m in find_mentions(c.sentence, ctx.v) if m.dim == "percent" and m.value and 0.05 <= m.value <= 1]
    # (a rate said per card is for each of the replica's cards; otherwise it may be the replica's)
    per_card = re.search(r"\b(?:per|each|a)\s+(?:card|gpu|device|chip)\b", c.sentence, re.I) is not None
    plain = sorted({w / (r * n) * 1000} if per_card else {w / r * 1000, w / (r * n) * 1000})
    readings = sorted({x / u for x in plain for u in [1.0, *shares]})
    ok, best = _best(c, readings, ctx.v.physics["tolerance"])
    trace = [f"{w:.3g} FLOP / ({n:g} x {r / 1e12:,.0f} TFLOPS) = {say.ms(plain[0])}"]
    if ok:
        return _check("ok", "prefill_rate", best, "ms", c,
                      f"Right: {w:.2g} FLOP at {r / 1e12:,.0f} TFLOPS a card takes about {say.ms(best)}.", trace)
    # (an efficiency left unsaid - half of peak, a third - may stand between: only a time far off is the arithmetic)
    if min(abs(math.log(c.value / x)) for x in readings) < math.log(4):
        return None
    return _check("wrong", "prefill_rate", plain[0], "ms", c,
                  f"{w:.2g} FLOP at {r / 1e12:,.0f} TFLOPS on each of {n:g} cards is about {say.ms(plain[0])}, "
                  f"not {say.ms(c.value)}.", trace)


def check_prefill(c: Claim, ctx: Ctx, i: int) -> Check | None:
    own = _prefill_by_own_rate(c, ctx, i)
    if own is not None:
        return own
    per = _per_tokens(c)
    p = ctx.related(i, ("prompt_tokens", "seq_len"))
    if per:
        p = c.model_copy(update={"value": per, "kind": "prompt_tokens"})
    if not p:
        return None
    fl = _floor_ms(c, ctx, i, p.value)
    if not fl:
        return None
    floor, compute, read, n, g, why = fl
    mfu = float(ctx.v.physics["realistic_mfu"])
    realistic = compute / mfu
    gl = say.gpus(n, _gpu_label(c.subject))
    trace = [f"prefill = 2 x {say.params(_active_params(c.subject))} x {p.value:,.0f} tokens / ({n} x {g.tflops_fp16:g} TFLOPS)"
             f" = {compute:,.1f} ms at peak, {realistic:,.0f} ms at {mfu:.0%} ({why})"]
    if c.value < floor / 1.25:
        return _check("impossible", "prefill_floor", floor, "ms", c,
                      f"A {p.value:,.0f}-token prefill on {_model_label(c.subject)} needs at least about {say.ms(floor)} "
                      f"on {gl} even at full peak, so {say.ms(c.value)} is too fast.", trace)
    return _check("ok", "prefill_floor", realistic, "ms", c,
                  f"Plausible: about {say.ms(realistic)} at half of peak on {gl}.", trace)


def check_decode(c: Claim, ctx: Ctx, i: int) -> Check | None:
    fl = _floor_ms(c, ctx, i, 0)
    if not fl:
        return None
    floor, _compute, read, n, g, why = fl
    gl = say.gpus(n, _gpu_label(c.subject))
    trace = [f"one decode step reads every weight: {say.nbytes(min(w for w, _d in _weights_readings(c, ctx, i)))} / "
             f"({n} x {g.hbm_bandwidth_gbs:,.0f} GB/s) = {read:,.2f} ms ({why})"]
    if c.value < read / 1.25:
        return _check("impossible", "decode_floor", read, "ms", c,
                      f"Each decode step has to read all the weights; on {gl} that takes at least about "
                      f"{say.ms(read)}, so {say.ms(c.value)} per token is too fast.", trace)
    return _check("ok", "decode_floor", read, "ms", c,
                  f"Plausible: reading the weights alone takes about {say.ms(read)} per step on {gl}.", trace)


# (not "even at infinite batch one GPU makes at most ~1.2e3 tokens/s": one GPU's, at any batch)
_ONE_STREAM = re.compile(r"(?<!infinite\s)(?<!unlimited\s)(?<!any\s)\bbatch(?:\s+size)?\s*(?:of\s+|=\s*)?(?:1|one)\b"
                         r"(?!\s+(?:gpu|card|replica|node|host|device|[ahlb]\d{2,3})s?\b)|\b(?:a\s+)?single\s+(?:sequence|stream|user|request)\b|"
                         r"\bfor\s+one\s+(?:sequence|stream|user|request)\b", re.I)


# a batch larger than one said after "batch 1": "at 32", "batch of 64", "32 tokens a step", "48 sequences"
_MANY_STREAMS = re.compile(r"\b(?:at|batch(?:\s+size)?(?:\s+of)?|bs\s*=?)\s*(?:[2-9]|\d\d+)\b|"
                           r"\b(?:[2-9]|\d\d+)\s+(?:tokens\s+(?:a|per)\s+step|sequences|seqs|concurrent|streams|users)\b|"
                           # ... or the batch over the step time: "throughput ~48/0.019 ≈ 2,500 tok/s"
                           r"(?<![\d.])(?:[2-9]|\d\d+)\s*/\s*0?\.\d+\b", re.I)
_VERSUS = re.compile(r"\s*(?:vs\.?|versus|compared\s+(?:to|with)|against)\s", re.I)
# the rate moving from batch 1's to the batch's: "throughput rises from ~240 to ~1,270 tokens/s"
_FROM_TO = re.compile(r"\bfrom\s+~?\d[\d,.]*\s*(?:k\s*)?(?:tokens?\s*/\s*s|tok/s|tokens?\s+(?:a|per)\s+second)?\s+to\s+$", re.I)
# a rate said of the whole batch: "~2,600 tokens/s aggregate"
_AGGREGATE = re.compile(r"\s*(?:in\s+)?(?:aggregate|total|combined|overall|across\s+(?:the\s+)?(?:batch|all))\b", re.I)


def check_single_stream_rate(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """Tokens a second for one sequence ("~240 tokens/s at batch 1"): each token reads every weight,
    so bandwidth over the weights is the ceiling."""
    ones = list(_ONE_STREAM.finditer(c.sentence))
    at = _pos(c)
    if not ones:
        return None
    if at > ones[-1].end() and _MANY_STREAMS.search(c.sentence, ones[-1].end(), at):
        return None  # "at batch 1 it's ~4 ms; at 32 ... 32 tokens a step: ~2,200 tokens/s": the batch's rate
    if at >= 0 and _AGGREGATE.match(c.sentence, at + len(c.span)):
        return None  # "~2,600 tokens/s aggregate - ten times batch 1": the whole batch's rate
    if at >= 0 and _VERSUS.match(c.sentence, at + len(c.span)) and _MANY_STREAMS.search(c.sentence, 0, at):
        return None  # "At 96 seqs ... ~19ms a token vs ~4ms at batch 1, for ~5k tok/s vs ~250": the batch's rate first
    if at >= 0 and at + len(c.span) <= ones[0].start() and _VERSUS.match(c.sentence, at + len(c.span)):
        return None  # "~2.3K tokens/s against 250 at batch 1": batch 1's is the figure after it
    if at > 0 and _FROM_TO.search(c.sentence, 0, at) and _MANY_STREAMS.search(c.sentence, 0, at):
        return None  # "At batch 28 ... ~4.2 ms at batch 1: throughput rises from ~240 to ~1,270 tokens/s": the batch's
    fl = _floor_ms(c, ctx, i, 0)
    if not fl or not fl[2]:
        return None
    _floor, _compute, read, n, g, why = fl
    ceiling = 1000.0 / read
    gl = say.gpus(n, _gpu_label(c.subject))
    trace = [f"one sequence: every token reads every weight, {read:,.2f} ms on {gl} ({why}) -> at most "
             f"{ceiling:,.0f} tokens/s"]
    if c.value > ceiling * 1.25:
        return _check("impossible", "single_stream_ceiling", ceiling, "tokens/s", c,
                      f"One sequence reads all the weights for every token: on {gl} that allows at most about "
                      f"{ceiling:,.0f} tokens a second, not {c.value:,.0f}.", trace)
    return _check("ok", "single_stream_ceiling", ceiling, "tokens/s", c,
                  f"Within the ceiling of about {ceiling:,.0f} tokens a second for one sequence on {gl}.", trace)


def check_shape(c: Claim, ctx: Ctx, i: int) -> Check | None:
    # ("... 8 kv heads ..." then, asked, "13B is plain MHA, 40 KV heads": the correction is judged by the model)
    a = _arch(c, ctx, i, mine=c.kind)
    if not a:
        return None
    actual = {"layers": a.layers, "kv_heads": a.kv_heads, "attention_heads": a.attention_heads,
              "head_dim": a.head_dim, "hidden_size": a.hidden}.get(c.kind)
    if not actual:
        return None
    label = ctx.v.label_of(c.kind)
    trace = [f"{a.name}: {c.kind} = {actual}"]
    if c.value == actual or (c.kind == "attention_heads" and c.value == a.kv_heads):
        return _check("ok", "shape", actual, c.unit, c, f"Right: {a.name} has {actual} {label}.", trace)
    if c.kind == "kv_heads" and any(x.kind == "kv_heads" and x.speaker == "interviewer" and x.value == c.value
                                    and x.turn < c.turn for x in ctx.claims):
        return None  # the interviewer's premise taken up ("switches to grouped-query attention with 8 KV heads")
    return _check("wrong", "shape", actual, c.unit, c, f"{a.name} has {actual} {label}, not {c.value:g}.", trace)


def check_params(c: Claim, ctx: Ctx, i: int) -> Check | None:
    m = _model(c.subject)
    if not m:
        return None
    # a mixture of experts has two sizes: all experts (what sits in memory) and the active ones per token
    tol = ctx.v.physics["tolerance"]
    moe = m.active_params_b is not None and m.active_params != m.params
    trace = [f"{m.id}: {m.params_b:g}B parameters" + (f", {m.active_params_b:g}B active per token" if moe else "")]
    if moe and _best(c, [m.active_params], tol)[0]:
        return _check("ok", "params", m.active_params, "params", c,
                      f"{m.name} uses about {m.active_params_b:g} billion parameters per token, of "
                      f"{m.params_b:g} billion in all.", trace)
    ok, _ = _best(c, [m.params], tol)
    return _check("ok" if ok else "wrong", "params", m.params, "params", c,
                  f"{m.name} has about {m.params_b:g} billion parameters" + ("." if ok else f", not {say.params(c.value)}."),
                  trace)


def check_in_flight(c: Claim, ctx: Ctx, i: int) -> Check | None:
    if c.scope_stated and c.scope != "fleet":
        return None  # "per replica ... 92 in flight": a share of the fleet's, not Little's law itself
    said = " ".join(ctx.texts[:c.turn + 1]) if ctx.texts and c.value and c.value == int(c.value) else ""
    if said and re.search(rf"(?<![\d,.]){int(c.value)}\s+(?:per|a|each|on\s+each)\s+(?:replica|gpu|card)\b", said, re.I):
        return None  # the share said again: "... only ~95 per replica" then "preemption should be rare at ~95 in flight"
    rate = ctx.related(i, ("request_rate_rps",))
    dur = ctx.related(i, ("request_duration_s",))
    if not rate or not dur:
        return None
    readings = [r * d for r in _claimed_values(rate) for d in _claimed_values(dur)]
    expected = rate.value * dur.value
    ok, best = _best(c, readings, ctx.v.physics["tolerance"])
    trace = [f"Little's law: in flight = {rate.value:,.0f} requests/s x {dur.value:g} s = {expected:,.0f}"]
    if ok:
        return _check("ok", "littles_law", best, "sequences", c,
                      f"Right: {rate.value:,.0f} a second, each alive about {dur.value:g} seconds, is about "
                      f"{say.count(best)} in flight.", trace)
    return _check("wrong", "littles_law", expected, "sequences", c,
                  f"By Little's law, {rate.value:,.0f} requests a second each alive about {dur.value:g} seconds is about "
                  f"{say.count(expected)} in flight, not {say.count(c.value)}.", trace)


def _arith_check(c: Claim, ctx: Ctx) -> Check | None:
    """A figure given as a product: does the product of the factors said come to it?"""
    if not c.formula:
        return None
    from interviewer.claims.numbers import find_mentions

    prod = 1.0
    for f in c.formula:
        ms = find_mentions(f, ctx.v)
        if not ms:
            return None
        prod *= ms[0].value
    ok = _within(c.value, prod, ctx.v.physics["tolerance"])
    trace = [" x ".join(c.formula) + f" = {prod:,.0f}"]
    return _check("ok" if ok else "wrong", "arithmetic", prod, c.unit, c,
                  f"{' times '.join(c.formula)} comes to {prod:,.0f}" + ("." if ok else f", not {c.value:,.0f}."), trace)


_PERIOD_MS = {"minute": 6e4, "hour": 3.6e6, "day": 8.64e7, "week": 6.048e8}


def _every_unit_said(c: Claim, ctx: Ctx, said: str, expected: float, trace: list[str], slack: float) -> Check:
    """A calculation into bytes whose every unit is said: only the tolerance and a binary-decimal mix
    (`slack`: GiB vs GB) may separate the result from the product, never a change of unit."""
    r = c.value / expected if expected else None
    if r is not None and abs(math.log(r)) <= math.log(1 + ctx.v.physics["tolerance"]) + math.log(slack):
        return _check("ok", "arithmetic", expected, c.unit, c, f"{said} checks out.", trace)
    check = _check("wrong", "arithmetic", expected, c.unit, c,
                   f"{said} is {say.nbytes(expected)}, not {say.nbytes(c.value)}: redo it ({' '.join(c.span.split())}).",
                   trace)
    check.ratio = round(r, 4) if r is not None else None
    return check

def formula_end(c: Claim) -> int:
    """Where the factors said end in the claim's span: each found after the one before (the last factor's
    digits can recur in the result - "20 × 8 = 180" - so it is not looked for from the end)."""
    at = 0
    for part in c.formula:
        k = c.span.find(part, at)
        if k < 0:
            return c.span.rfind(c.formula[-1]) + len(c.formula[-1])
        at = k + len(part)
    return at


# the product said for one of K and V, the result for both: "Per token per layer it's K and V, 32 heads × 128 × 2 bytes
# each = 16 KiB" (the pair named just before the factors, "each" after them)
_KV_PAIR_BEFORE = re.compile(r"\b(?:k\s*(?:and|&|/)\s*v|keys?\s+and\s+values?)\b[^.\n]{0,40}$", re.I)
_EACH_AFTER = re.compile(r"\s*each\s*(?:=|≈|is\b|comes\s+to\b)", re.I)


def _each_of_k_and_v(c: Claim) -> bool:
    if not c.formula or not c.sentence:
        return False
    if not _EACH_AFTER.match(c.span, formula_end(c)):
        return False
    head = c.sentence.find(c.span)
    return head > 0 and _KV_PAIR_BEFORE.search(c.sentence, 0, head) is not None


# the product said for one device, the result for the devices named just before it: "four H100s at, say, 40% of ~1,000
# TFLOPs each is 1.6 × 10^15 per second"
_DEVICES_BEFORE = re.compile(r"\b(\d+|two|three|four|six|eight|sixteen)\s+(?:gpus|cards|h100s|a100s|h200s|l4s|devices|chips)\s+"
                             r"(?:at|with|running\s+at|doing)\b[^.\n\d]{0,20}$", re.I)


def _devices_each(c: Claim) -> float | None:
    """The devices a product said "each" is for, when named just before it ("four H100s at ... each is ..."), or None."""
    if not c.formula or not c.sentence or not _EACH_AFTER.match(c.span, formula_end(c)):
        return None
    head = c.sentence.find(c.span)
    m = _DEVICES_BEFORE.search(c.sentence, 0, head) if head > 0 else None
    if m is None:
        return None
    n = m.group(1).lower()
    return float(n) if n.isdigit() else float(text2num(n, "en"))


_WHOLE = frozenset({"count", "gpus", "hosts", "replicas", "tokens"})  # things counted one by one
_SAID_EQUAL = re.compile(r"\s*(?:=|equals|is|makes|gives)\s*", re.I)


def _whole_product_off(c: Claim, ops: list[str], parts: list, result: list, expected: float) -> bool:
    """A product of whole counts (or a share of one) said equal to a whole count, off by more than the
    result's own rounding ("20 × 8 = 180": 160; "24 x 80 = 2,000" is 1,920 rounded)."""
    from interviewer.claims import arithmetic

    if not result or not ops or not set(ops) <= arithmetic.MUL or c.approx:
        return False
    res = result[-1]
    if res.approx or res.dim not in _WHOLE or not res.raw or res.raw != int(res.raw) or any(
            m is None or m.approx or not (m.dim == "percent" and 0 < m.value < 1 and i == 0
                                          or m.dim in _WHOLE and m.value == int(m.value) and m.value >= 2)
            for i, m in enumerate(parts)):
        return False  # (a share said first counts too: "Thirty percent of 2,000 is 500 GPUs" is 600)
    after = c.span[formula_end(c):]
    if not _SAID_EQUAL.fullmatch(after[:res.start]):
        return False
    if not 0.5 < res.value / expected < 2:
        return False  # a change of unit or scale ("4 x 80 = 3.2e11" bytes, "20,000 x 400 = 8 M"): read as before
    digits = str(int(res.raw))
    unit = 10 ** (len(digits) - len(digits.rstrip("0")))
    return abs(res.raw - expected * res.raw / res.value) > unit / 2


_EXPONENT_BEFORE = re.compile(r"\d\s*(?:\^|\*\*)\s*$")  # (not Markdown bold: "**Sizing:** 30,000 x 500")


# a utilisation target said before a product: "I want them at 60% so there's room for spikes"
_AT_UTILISATION = re.compile(r"\b(?:at|to)\s+(?:about\s+|~)?(\d{1,2})\s*%", re.I)
_MACHINES_NEXT = re.compile(r"^[^.;,\n]{0,20}?\b(?:gpus|cards|l4s|t4s|a10s?|a100s|h100s|replicas|hosts|nodes|servers|machines)\b", re.I)


def _utilisation_inverted(c: Claim, ctx: Ctx) -> Check | None:
    """A fleet sized for a utilisation target by multiplying by it: "I want them at 60% so there's room for spikes,
    so 53 x 0.6 = 32 GPUs" - at 60% busy, 53 GPUs' worth of work needs 53 / 0.6, about 88."""
    from interviewer.claims import arithmetic
    from interviewer.claims.numbers import find_mentions

    if len(c.formula) != 3 or c.formula[1] not in arithmetic.MUL or not c.sentence:
        return None
    head = c.sentence.find(c.span)
    # (the sentence's words first: most products say no utilisation target, and need no number read again)
    target = _AT_UTILISATION.search(c.sentence, 0, head) if head > 0 else None
    tail = c.span[formula_end(c):] + c.sentence[head + len(c.span):] if head > 0 else ""
    if target is None or not _MACHINES_NEXT.search(tail):
        return None
    said = [find_mentions(p, ctx.v) for p in (c.formula[0], c.formula[2])]
    if any(len(m) != 1 for m in said):
        return None
    work, share = said[0][0].value, said[1][0].value
    if not (0 < share < 1) or abs(int(target.group(1)) / 100.0 - share) > 0.005 or not work:
        return None
    expected = work / share
    if abs(c.value - expected) / expected <= ctx.v.physics["tolerance"]:
        return None
    return _check("wrong", "arithmetic", expected, c.unit, c,
                  f"Run at {target.group(1)}% busy, {work:,.0f} machines' worth of work needs {work:,.0f} / {share:g} = "
                  f"about {expected:,.0f}, not {work:,.0f} x {share:g}: a utilisation target divides.",
                  [f"{work:,.0f} / {share:g} = {expected:,.1f}"])


def check_calculation(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A calculation said aloud ("20,000 x 300 is 600,000"): re-done in base units, a change of unit
    allowed between the operands and the result."""
    from interviewer.claims import arithmetic
    from interviewer.claims.numbers import BITS_RATE, find_mentions

    if not c.formula:
        return None  # nothing said to re-do
    inverted = _utilisation_inverted(c, ctx)
    if inverted is not None:
        return inverted
    head = c.sentence.find(c.span) if c.sentence else -1
    if head > 0 and _EXPONENT_BEFORE.search(c.sentence, 0, head):
        return None  # "12 x 4,096^2 x 32 = 6.4B": the sum starts at an exponent, not a factor of its own
    values, ops, dims, parts = [], [], set(), []
    for k, part in enumerate(c.formula):
        if k % 2:
            ops.append(part)
            continue
        period = _PERIOD_MS.get(part.lower().lstrip("/ ").split()[-1]) if k == len(c.formula) - 1 else None
        if period:
            values.append(period / 1000.0)  # "... 180 GB a day": the rate (per second) times a day, in seconds
            parts.append(None)
            dims.add("time")
            continue
        ms = find_mentions(part, ctx.v)
        if len(ms) != 1:
            return None
        values.append(ms[0].value)
        parts.append(ms[0])
        dims.add(ms[0].dim)
    result = find_mentions(c.span[formula_end(c):], ctx.v) if c.formula else []
    if result and result[-1].dim == "time" and "params" in dims and not dims & {"time", "flops", "flop_rate"}:
        return None  # "one chunk ≈ 2 × 6.74B × 2,048 ≈ 46 ms": FLOPs over a speed left unsaid, not a product
    if result and result[-1].dim in ("gpu_hours", "gpu_seconds") and "flops" in dims and not dims & {"time", "flop_rate"}:
        return None  # "~1,800 tokens x 140 GFLOP is about half a GPU-second": FLOPs over a GPU's speed left unsaid
    if result:
        dims.add(result[-1].dim)
        res = result[-1]
        # "14 + 32 × 2,048 × 0.5 MB ≈ 48 GB": a bare term of a sum beside terms with units is in the
        # result's unit (not "~1 + 1,000 × 0.04 = 41 s", all bare, where a change of unit is allowed)
        if res.dim not in ("count", "percent") and res.raw and set(ops) & (arithmetic.ADD | arithmetic.SUB) \
                and any(m is not None and m.dim == res.dim for m in parts):
            for k, m in enumerate(parts):
                left = ops[k - 1] if k else None
                right = ops[k] if k < len(ops) else None
                adds = (left is None or left in arithmetic.ADD | arithmetic.SUB) and \
                    (right is None or right in arithmetic.ADD | arithmetic.SUB)
                if m is not None and m.dim == "count" and not m.unit and adds:
                    values[k] = m.value * res.value / res.raw
    # (the log's own "per period" reading, _PER_PERIOD and _PERIOD_NAME below: "a day", "/day", "per hour")
    per = _PER_PERIOD.search(c.span)
    if per and result and result[-1].dim not in ("time", "bytes", "bytes_rate", "percent", "rate_tokens") and sum(1 for m in parts if m is not None and m.dim == "time") == 1:
        # a count per period times a period, into a count: "40 a day out, times 5 days is 200", "2.6/day * 7 days"
        k = next(k for k, m in enumerate(parts) if m is not None and m.dim == "time")
        word = per.group(1).lower()
        values[k] = parts[k].value / _PERIOD_MS[_PERIOD_NAME.get(word, word)]
        dims = {m.dim for m in parts if m is not None and m.dim != "time"} | {result[-1].dim}
    share_added = arithmetic.share_added(ops, [m.dim if m is not None else None for m in parts])
    if share_added:
        # "30 plus 40% is 36 L4s": the share is of the figure it is added to (30 x 1.4 = 42)
        values, ops = [values[0], 1 + values[1] if ops[0] in arithmetic.ADD else 1 - values[1]], ["x"]
        dims.discard("percent")
    expected = arithmetic.evaluate(values, ops)
    if expected is None or c.value is None:
        return None
    said = " ".join(c.formula)
    if _each_of_k_and_v(c) and set(ops) <= arithmetic.MUL:
        expected *= 2  # "K and V, 32 heads × 128 × 2 bytes each = 16 KiB": the product is one of the pair's
        said = f"2 (K and V) x {said}"
    devices = _devices_each(c) if set(ops) <= arithmetic.MUL else None
    if devices:
        expected *= devices  # "four H100s at, say, 40% of ~1,000 TFLOPs each is 1.6 × 10^15": one card's, times the cards
        said = f"{devices:g} x {said}"
    if not ops and result and parts[0] is not None and parts[0].dim == result[-1].dim:
        # the same rate said again in other units ("50 MB/s, which on the wire is 50 Gb/s"): no change of unit can
        # explain a gap, it is the change of unit
        r = c.value / expected if expected else None
        # (a size said again in other units, "1.6e6 KiB, which is ~156 MiB", reads the same way)
        what, per = ("rate", " bytes/s") if parts[0].dim == "bytes_rate" else ("size", " bytes")
        if r is not None and abs(math.log(r)) <= math.log(1 + ctx.v.physics["tolerance"]) + math.log(1.0995):
            return _check("ok", "arithmetic", expected, c.unit, c, f"{said} is the same {what} as {result[-1].raw:g} {result[-1].unit}.",
                          [f"{said} = {expected:,.6g}{per}"])
        bits = " (a byte is 8 bits: a rate in Gb/s is an eighth of one in GB/s)" \
            if any(BITS_RATE.fullmatch(u) for u in (parts[0].unit, result[-1].unit)) else ""
        check = _check("wrong", "arithmetic", expected, c.unit, c,
                       f"{said} is not {result[-1].raw:g} {result[-1].unit}: that is about {max(r, 1 / r):.3g} times "
                       f"{'more' if r > 1 else 'less'}{bits}.", [f"{said} = {expected:,.6g}{per}; "
                                                                 f"{result[-1].raw:g} {result[-1].unit} = {c.value:,.6g}{per}"])
        check.ratio = round(r, 4)
        return check
    # in bytes where the result is bytes and the operands are in bytes too ("55 MB/s x an hour = 198 GB")
    said_as = result or [m for m in find_mentions(c.span, ctx.v) if m.value == c.value][-1:]
    in_bytes = bool(said_as) and said_as[-1].dim == "bytes" and any(m is not None and m.dim in ("bytes", "bytes_rate")
                                                                  for m in parts)
    trace = [f"{said} = {say.nbytes(expected) if in_bytes else f'{expected:,.6g}'}"]
    rated = [k for k, m in enumerate(parts) if m is not None and m.dim == "bytes_rate"]
    if in_bytes and set(ops) <= arithmetic.MUL and len(values) == 2 and len(rated) == 1 \
            and (parts[1 - rated[0]] is None or parts[1 - rated[0]].dim == "time"):
        # a byte rate over a time, both with their units, into bytes: every unit is said, so no change of
        # unit can explain a gap ("55 MB/s times 86,400 seconds is a bit under 5 GB" is 1,000 times low)
        other = parts[1 - rated[0]]
        expected = values[rated[0]] * (values[1 - rated[0]] if other is None else other.value / 1000.0)
        return _every_unit_said(c, ctx, said, expected, [f"{said} = {say.nbytes(expected)}"], 1.0737)
    if result and result[-1].dim == "time" and ops == ["/"] and parts[0] is not None and parts[1] is not None \
            and parts[0].dim == "bytes" and parts[1].dim == "bytes_rate" and parts[0].unit and parts[1].unit:
        # a size over a byte rate, into a time: every unit is said, so no change of unit (seconds to hours) can explain a
        # gap ("20 GB at 2 GB/s is 40 seconds" is four times the 10 s it takes)
        secs = values[0] / values[1]
        r = c.value / (secs * 1000.0) if secs else None
        trace = [f"{said} = {secs:,.3g} s"]
        if r is not None and abs(math.log(r)) <= math.log(1 + ctx.v.physics["tolerance"]) + math.log(1.0737):
            return _check("ok", "arithmetic", secs, c.unit, c, f"{said} checks out.", trace)
        check = _check("wrong", "arithmetic", secs, c.unit, c,
                       f"{said} is about {secs:,.3g} seconds, not {c.value / 1000.0:,.3g}: redo it "
                       f"({' '.join(c.span.split())}).", trace)
        check.ratio = round(r, 4) if r is not None else None
        return check
    sized = [m for m in parts if m is not None and m.dim == "bytes" and m.unit]
    if result and result[-1].dim in ("bytes", "bytes_rate") and set(ops) <= arithmetic.MUL and len(sized) == 1 \
            and all(m is not None and (m is sized[0] or m.dim not in ("bytes", "bytes_rate", "time")) for m in parts):
        # a count times a size said with its unit, into bytes: every unit is said, so no change of unit can explain
        # a gap ("50,000 writes x 1 KB is 50 GB per second of log" is 1,000 times high)
        return _every_unit_said(c, ctx, said, expected, trace, 1.0995)
    if share_added and result and result[-1].dim in _WHOLE and result[-1].raw and not (c.approx or result[-1].approx) \
            and abs(result[-1].raw - expected * result[-1].raw / result[-1].value) >= 1:
        # a share added to a count said exactly: nothing is estimated, so only the rounding to a whole is allowed
        check = _check("wrong", "arithmetic", expected, c.unit, c,
                       f"{said} is {expected:,.3g}, not {result[-1].raw:,.0f}: the share is of the figure it is added to "
                       f"({' '.join(c.span.split())}).", trace)
        check.ratio = round(c.value / expected, 3)
        return check
    if _whole_product_off(c, ops, parts, result, expected):
        # "20 × 8 = 180 GPUs": whole counts multiplied, nothing estimated - the tolerance kept for estimates is no excuse
        check = _check("wrong", "arithmetic", expected, c.unit, c,
                       f"{said} is {expected:,.0f}, not {result[-1].raw:,.0f}: redo it ({' '.join(c.span.split())}).", trace)
        check.ratio = round(c.value / expected, 3)
        return check
    if arithmetic.consistent(c.value, expected, ctx.v.physics["tolerance"], dims):
        return _check("ok", "arithmetic", expected, c.unit, c, f"{said} checks out.", trace)
    grouped = arithmetic.divisor_grouped(values, ops)
    if grouped is not None and arithmetic.consistent(c.value, grouped, ctx.v.physics["tolerance"], dims):
        # "~280 GB over 4 x 3.35 TB/s ≈ 21 ms": said aloud, what follows "over" is the whole divisor
        return _check("ok", "arithmetic", grouped, c.unit, c, f"{said} checks out.",
                      [f"{said} = {grouped:,.6g} (all after the division is the divisor)"])
    if result and result[-1].dim == "bytes" and len(values) == 2 and all(m is not None and m.dim in ("count", "tokens")
                                                                         for m in parts):
        return None  # "28 x 4k, that's ~56 GiB of KV", "128 × 1,800 tokens is ~70 GiB": the bytes per token left unsaid
    flops_said = {x.value for x in ctx.claims[:i] if x.kind == "flops" and x.turn == c.turn and x.value}
    if result and result[-1].dim == "flops" and all(m is not None and m.dim in ("count", "tokens", "rate_tokens")
                                                    for m in parts) \
            and not any(m is not None and m.value in flops_said for m in parts) \
            and not (set(ops) <= arithmetic.MUL and len(parts) >= 2 and all(m.dim == "count" for m in parts)):
        # "300,000 prompt tokens a second plus 60,000 generated tokens is about 51 PFLOP/s": the FLOPs per
        # token left unsaid (not "... 4e7 FLOPs per candidate, so 6e6 × 4e7 = 2.4e13 FLOP/s": said just before; nor bare
        # counts multiplied out, "6 × 10^6 × 5 × 10^7 = 3 × 10^13 FLOPs", whose product is what was said)
        return None
    r = arithmetic.nearest_ratio(c.value, expected, dims)
    off = f" - about {max(r, 1 / r):.3g} times too {'high' if r > 1 else 'low'}" if r and (r >= 2 or r <= 0.5) else ""
    check = _check("wrong", "arithmetic", expected, c.unit, c,
                   f"{said} does not come to what you said{off}: redo it ({' '.join(c.span.split())}).", trace)
    check.ratio = round(r, 3) if r is not None else None
    return check


_THAT_IS = re.compile(r"\s*(?:that.s|that\s+is|this\s+is|it.s|which\s+is)\b", re.I)
_SAID_AS_SHARE = re.compile(r"\s*(?:\w+\s*){0,3}[,;:]?\s*(?:that.s|that\s+is|which\s+is|i\.e\.|=|≈|~)\s*(?:about\s+|roughly\s+|~)?", re.I)
_SHAPE_OF = re.compile(r"\s*(?:gang\s+|training\s+)?(?:jobs?|gangs?|hosts?|nodes?|boxes|servers?|machines?|slices?|pods?)\b", re.I)
_SHARE_OF_A_COST = re.compile(r"\b(?:churn|cost|waste|overhead|idle\s+time|loss|losses)\s+(?:on|of|across|in|from)\s+(?:those|these|the|its|their|our)\s+$", re.I)
# (nor across a table's cells: "reserve 8 hosts | ~1% of fleet | < 30 min", the share in its own column - a cost)
_NOT_A_SHARE_OF = re.compile(r"\d|%|\||\b(?:plus|together|total|combined|altogether|handful|and\s+the)\b", re.I)
_GPU_HOURS = re.compile(r"^[^.;,]{0,12}?\b(?:gpu[- ]?)?(?:hours?|hrs?|h)\b|gpu[- ]?hours?", re.I)


# ... or as what it comes to: "runs 3-5% of the fleet, so 60 to 100 GPUs"
_SHARE_THEN_COUNT = re.compile(r"\s*(?:of\s+(?:the|our|a)\s+(?:fleet|cluster)\s*)?(?:,|\(|—|–|-|:)\s*(?:so\s+)?(?:about\s+|roughly\s+|~|or\s+)?",
                               re.I)


_BARE_THEN_SHARE = re.compile(r"\s*,\s*(?:about\s+|roughly\s+|around\s+|~|so\s+)?$", re.I)


def _bare_count_before(c: Claim, ctx: Ctx, i: int, gpus) -> list:
    """A bare count said just before the share, in a sentence that has counted GPUs: "80 GPUs out per day,
    over 5 days that's 400, about 0.4% of the fleet" (the 400 is GPUs too)."""
    from types import SimpleNamespace

    from interviewer.claims.numbers import find_mentions

    pos = _pos(c)
    if pos <= 0 or not any(j < i and gpus(j) for j in ctx.in_sentence(i)):
        return []
    said = [m for m in find_mentions(c.sentence[:pos], ctx.v) if m.value]
    if not said or said[-1].dim != "count" or not _BARE_THEN_SHARE.fullmatch(c.sentence, said[-1].end, pos):
        return []
    m = said[-1]
    return [SimpleNamespace(value=m.value, turn=c.turn, start=c.start - (pos - m.start), end=c.start - (pos - m.end))]


# the division said outright: "which is 160 of 2,000, so about 0.8% of the fleet"
_OF_WHOLE = re.compile(r"\s*(?:gpus?|hosts?|nodes?|cards?)?\s*(?:out\s+)?of\s+(?:the\s+|our\s+|a\s+)?$", re.I)
_WHOLE_THEN_SHARE = re.compile(r"\s*(?:gpus?|hosts?|nodes?|cards?|h100s?|a100s?)?\s*[,;:=≈(—–-]?\s*(?:so|that.s|that\s+is|which\s+is|"
                               r"i\.e\.|or)?\s*(?:about\s+|roughly\s+|around\s+|~|≈\s*)?$", re.I)


def _share_said_of(c: Claim, ctx: Ctx) -> Check | None:
    """A share with both its counts said just before it ("160 of 2,000, so about 0.8%"): checked as that division."""
    from interviewer.claims.numbers import find_mentions

    pos = _pos(c)
    if pos <= 0 or c.value is None:
        return None
    before = c.sentence[:pos]
    said = [m for m in find_mentions(before, ctx.v) if m.value and m.dim == "count"]
    if len(said) < 2:
        return None
    part, whole = said[-2], said[-1]
    if not (_OF_WHOLE.fullmatch(before, part.end, whole.start) and _WHOLE_THEN_SHARE.fullmatch(before, whole.end)) \
            or part.value >= whole.value:
        return None
    return _share_of_counts(c, ctx, part.value, whole.value, "")


def _share_of_counts(c: Claim, ctx: Ctx, n: float, whole: float, what: str) -> Check:
    """A share said of two counts the candidate gave (`what` names their unit, " GPUs" or ""): a division, right within
    the share tolerance or its rounding."""
    expected = n / whole
    of = f"{say.count(n)} of {say.count(whole)}{what}"
    trace = [f"{say.count(n)} / {say.count(whole)}{what} = {expected:.1%}"]
    if _within(c.value, expected, ctx.v.physics["share_tolerance"]) or abs(c.value - expected) <= ctx.v.physics["share_rounding"]:
        return _check("ok", "fleet_share", expected, "fraction", c, f"Right: {of} is about {expected:.1%}.", trace)
    check = _check("wrong", "fleet_share", expected, "fraction", c, f"{of} is about {expected:.1%}, not {c.value:.1%}.", trace)
    check.ratio = round(c.value / expected, 3)
    return check


_OF_A_CLUSTER = re.compile(r"\s*of\s+(?:the|our|that|this|a)\s+(?:lab\s+|test\s+|old\s+|small\s+)?(?:cluster|pool|partition|rack|pod)\b",
                           re.I)


# ... "one GPU a week, roughly 0.2%"
_COUNT_THEN_SHARE = re.compile(r"(?:\s+(?:a|per|each)\s+(?:day|week|month|quarter|year))?\s*,\s*(?:about\s+|roughly\s+|around\s+|~|so\s+)?$",
                               re.I)


def _share_of_own_cluster(c: Claim, ctx: Ctx, i: int, gpus) -> Check | None:
    """A share of a cluster whose size the candidate gives (a count of GPUs before it in the turn, not the question's
    fleet), of the count said just before the share."""
    from interviewer.claims.numbers import find_mentions

    sizes = [ctx.claims[j] for j in ctx.by_kind.get("gpu_count", []) if j < i and gpus(j) and ctx.claims[j].turn == c.turn
             and ctx.claims[j].speaker == "candidate"]
    pos = _pos(c)
    said = [m for m in find_mentions(c.sentence[:max(pos, 0)], ctx.v) if m.value and m.dim in ("count", "gpus")]
    if not sizes or pos <= 0 or not said or not _COUNT_THEN_SHARE.fullmatch(c.sentence, said[-1].end, pos):
        return None
    n, whole = said[-1].value, sizes[-1].value
    return None if n >= whole else _share_of_counts(c, ctx, n, whole, " GPUs")


_PER_OWNER = re.compile(r"\s*(?:per|a|each|for\s+each)\s+(?:team|tenant|org|user|job|customer|group|project)\b", re.I)


def check_fleet_share(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A share of the fleet ("15 hosts = 120 GPUs ≈ 12% of the fleet"): the GPUs said just before it
    over the fleet's size said earlier in the round (either speaker)."""
    if c.value is None:
        return None

    def gpus(j: int, linked: bool = False) -> bool:  # GPUs, not GPU-hours
        g = ctx.claims[j]
        after = ctx.texts[g.turn][g.end:g.end + 12] if ctx.texts is not None else ""
        return bool(g.kind == "gpu_count" and g.value and not g.negated
                    and (linked or g.scope not in ("per_host", "per_gpu")
                         # "since we pull the whole host, 25 x 8 = 200 GPUs out": more than a host holds
                         or (g.scope == "per_host" and g.value > ctx.v.physics["host_gpus_max"]))
                    and not re.search(r"-\s*gpus?$", g.span, re.I)   # "8-GPU jobs" is a job's shape
                    and not _SHAPE_OF.match(after)                       # ... and so is "eight GPU gang jobs"
                    and not _PER_OWNER.match(after)                      # "fifty GPUs per team on average": one team's
                    and not _GPU_HOURS.search(g.span + after))

    def linked(j: int) -> bool:
        # the count the share is said of, whatever the sentence is about: "cordon the whole host: 33 x 8 =
        # 264 GPUs out, that's 26% of the fleet"
        g = ctx.claims[j]
        return ctx.texts is not None and g.turn == c.turn and _SAID_AS_SHARE.fullmatch(ctx.texts[c.turn][g.end:c.start]) is not None

    share = _share_of_gpu_time(c, ctx, i) or _share_said_of(c, ctx)
    if share is not None:
        return share
    if ctx.texts is not None and _OF_A_CLUSTER.match(ctx.texts[c.turn], c.end):
        # a share of a cluster said in the sentence, not of the fleet: "Our lab cluster is 512 A100s ... we pulled about
        # one GPU a week, roughly 0.2% of the cluster per week" (1 of 512)
        return _share_of_own_cluster(c, ctx, i, gpus)
    part = [ctx.claims[j] for j in ctx.in_sentence(i) if j < i and gpus(j, linked(j))]
    # ... or said right after it: "stranded GPUs stay around 2-3% of the fleet, 40-60 GPUs"
    after = [ctx.claims[j] for j in ctx.in_sentence(i) if j > i and gpus(j) and ctx.texts is not None
             and ctx.claims[j].turn == c.turn and _SHARE_THEN_COUNT.fullmatch(ctx.texts[c.turn][c.end:ctx.claims[j].start])]
    if after:
        part = after[:1]
    if not part and ctx.texts is not None and _THAT_IS.match(c.sentence):
        # "... 84 GPUs out at any moment. That's 8.4% of the fleet": the GPUs of the sentence before
        part = [ctx.claims[j] for j in ctx.by_kind.get("gpu_count", []) if j < i and gpus(j)
                and ctx.claims[j].turn == c.turn and 0 <= c.start - ctx.claims[j].end <= 120]
    bare = [] if after else _bare_count_before(c, ctx, i, gpus)
    if bare:
        part = bare
    earlier = [ctx.claims[j].value for j in ctx.by_kind.get("gpu_count", [])
               if j < i and gpus(j) and not ctx.claims[j].hypothetical]
    # the fleet the question set ("We operate around 10,000 GPUs"), not one cited from elsewhere ("Meta's 16K H100s")
    given = [ctx.claims[j].value for j in ctx.by_kind.get("gpu_count", []) if j < i and gpus(j)
             and ctx.claims[j].speaker == "interviewer" and ctx.claims[j].value >= 100]
    what, least = "GPUs", 100
    if not part:
        # hosts said, with the fleet's hosts: "Holding 25 hosts back is about 1% of the fleet" (of 250 hosts)
        def hosts(j: int) -> bool:
            h = ctx.claims[j]
            return h.kind == "host_count" and bool(h.value) and not h.negated and not h.hypothetical

        part = [ctx.claims[j] for j in ctx.in_sentence(i) if j < i and hosts(j)]
        earlier = [ctx.claims[j].value for j in ctx.by_kind.get("host_count", []) if j < i and hosts(j)]
        given = [ctx.claims[j].value for j in ctx.by_kind.get("host_count", []) if j < i and hosts(j)
                 and ctx.claims[j].speaker == "interviewer" and ctx.claims[j].value >= 10]
        what, least = "hosts", 10
    if not part or not earlier:
        return None
    n, fleet = part[-1].value, (max(given) if given else max(earlier))
    if fleet < least or n >= fleet:
        return None
    # a share of something said of the GPUs, not of the GPUs: "the churn on those 140 GPUs, call it 2-3%"
    if ctx.texts is not None and _SHARE_OF_A_COST.search(ctx.texts[part[-1].turn], 0, part[-1].start):
        return None
    # only the gap's last sentence: the one that says the share
    # (an "i.e." or "e.g." ends no sentence: "... lose ~15-20% of it to preemption, i.e. ~1% of the fleet")
    gap = _FULL_STOP.split(ctx.texts[c.turn][part[-1].end:c.start])[-1] if ctx.texts is not None else ""
    if _NOT_A_SHARE_OF.search(gap) and not _PART_OF_IT.search(gap):
        return None  # "48 GPUs at 50% utilisation, ~1.2% of the fleet", "plus the drain, together ~6%": not N / fleet
    expected = n / fleet
    tol = ctx.v.physics["share_tolerance"]
    trace = [f"{say.count(n)} / {say.count(fleet)} {what} = {expected:.1%}"]
    cut = _PART_OF_IT.search(gap)
    if cut is not None:
        # a share of those GPUs' work said first: "those 120 GPUs ... lose ~15-20% of it to preemption, i.e. ~1% of the
        # fleet's useful throughput" is 120 x 15-20% over 2,000
        lo = float(cut.group(1)) / 100
        hi = float(cut.group(2)) / 100 if cut.group(2) else lo
        shares = [n * lo / fleet, n * hi / fleet, n * (lo + hi) / 2 / fleet]
        ok, best = _best(c, shares, tol)
        expected = best if ok else shares[-1]
        pct = cut.group(1) + (f"-{cut.group(2)}" if cut.group(2) else "") + "%"
        trace = [f"{say.count(n)} {what} x {pct} / {say.count(fleet)} = {expected:.1%}"]
        if ok or abs(c.value - expected) <= ctx.v.physics["share_rounding"]:
            return _check("ok", "fleet_share", expected, "fraction", c, f"Right: {pct} of {say.count(n)} {what} is about "
                          f"{expected:.1%} of {say.count(fleet)}.", trace)
        return _check("wrong", "fleet_share", expected, "fraction", c, f"{pct} of {say.count(n)} {what} is about "
                      f"{expected:.1%} of {say.count(fleet)}, not {c.value:.1%}.", trace)
    # "under one percent of the fleet": a bound holds when the share is below it
    rounding = ctx.v.physics["share_rounding"]
    if _within(c.value, expected, tol) or abs(c.value - expected) <= rounding or (c.bound == "upper" and expected <= c.value * (1 + tol)) \
            or (c.bound == "lower" and expected >= c.value * (1 - tol)):  # "just over 1% of the fleet"
        return _check("ok", "fleet_share", expected, "fraction", c, f"Right: {say.count(n)} of {say.count(fleet)} {what} "
                      f"is about {expected:.1%}.", trace)
    check = _check("wrong", "fleet_share", expected, "fraction", c,
                   f"{say.count(n)} of {say.count(fleet)} {what} is about {expected:.1%} of the fleet, not {c.value:.1%}.",
                   trace)
    check.ratio = round(c.value / expected, 3)
    return check


_FULL_STOP = re.compile(r"(?<!\bi\.e)(?<!\be\.g)(?<!\bviz)\.(?=\s|$)")
_PART_OF_IT = re.compile(r"~?(\d+(?:\.\d+)?)\s*(?:[-–]\s*(\d+(?:\.\d+)?))?\s*%\s+of\s+(?:it|that|them|their\s+\w+)\b", re.I)


def _share_of_gpu_time(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A share of GPU time worked from two GPU-day (or GPU-hour) figures said before it in the sentence:
    "4,000 gpu-days out per month against 300k gpu-days, roughly 13% of the fleet" is 4,000 / 300,000."""
    if ctx.texts is None or c.value is None:
        return None
    text = ctx.texts[c.turn]
    said = [ctx.claims[j] for j in ctx.in_sentence(i) if j < i and ctx.claims[j].kind == "gpu_count"
            and ctx.claims[j].turn == c.turn and ctx.claims[j].value and not ctx.claims[j].negated
            and _GPU_TIME.match(text, ctx.claims[j].end)]
    if len(said) < 2:
        return None
    part, whole = said[-2], said[-1]
    if part.value >= whole.value or not _AGAINST.search(text, part.end, whole.start):
        return None
    expected = part.value / whole.value
    unit = "GPU-hours" if _GPU_TIME.match(text, whole.end).group(1).lower().startswith("h") else "GPU-days"
    of = f"{say.count(part.value)} of {say.count(whole.value)} {unit}"
    trace = [f"{say.count(part.value)} / {say.count(whole.value)} {unit} = {expected:.1%}"]
    if _within(c.value, expected, ctx.v.physics["tolerance"]):
        return _check("ok", "fleet_share", expected, "fraction", c, f"Right: {of} is about {expected:.1%}.", trace)
    check = _check("wrong", "fleet_share", expected, "fraction", c, f"{of} is about {expected:.1%}, not {c.value:.1%}.",
                   trace)
    check.ratio = round(c.value / expected, 3)
    return check


_GPU_TIME = re.compile(r"\s*-?\s*(days?|hours?|hrs?)\b", re.I)
_AGAINST = re.compile(r"\b(?:against|out\s+of|over|of)\b|/", re.I)


# (not a timer: "fsync every 10 ms")
_ONE_FSYNC_EACH = re.compile(r"\b(?:every|each|per|one|an)\s+(?:put|write|fsync|request|record)s?\b|\bfsync\s+(?:on\s+)?(?:every|each)\b(?!\s+~?\d)", re.I)
# group commit said in the sentence, with its size when given ("~50 records per fsync", "each fsync carries 50")
_GROUP_SIZE = re.compile(r"~?(\d[\d,]*)\s+(?:records|puts|writes|requests|entries)\s+(?:per|each|in\s+(?:one|each|a))\s+"
                         r"(?:fsync|flush|batch)|(?:(?:fsync|flush)\w*|(?:each|every)\s+one)\s+(?:(?:has\s+to|must|needs\s+to|would\s+have\s+to)\s+)?(?:carries|covers|holds|takes|batches|groups|carry|cover|hold|take|batch|group)\s+(?:about\s+|roughly\s+|around\s+)?~?"
                         r"(\d[\d,]*)(?![\d,.]|\s*(?:ms|µs|us|s|secs?|seconds?|milli\w*|micro\w*)\b)", re.I)  # not "an fsync takes ~2 ms"
_WORKED_ON = re.compile(r"\s*(?:[x×*]|/|÷)\s*~?\d", re.I)  # a calculation that goes on from a figure
_PRODUCT_RESULT = re.compile(r"(?:[^.;=]|\.(?=\d)){0,40}?(?:=|≈)\s*~?(\d[\d,]*(?:\.\d+)?)")
_GROUPED = re.compile(r"\bbatch\w*|\bgroup(?:ed|\s+commit)|\bcoalesc\w*", re.I)
_RESULT_WORDS = re.compile(r"\b(?:that.s|that\s+is|so|gives?|giving|means|which\s+is|i\.e\.)\b|=|→|->", re.I)


_FAST_MEDIA = re.compile(r"\b(?:pmem|optane|persistent\s+memory|nvram|nvdimm|battery|capacitor|power[- ]loss\s+protect\w*|plp)\b",
                         re.I)
FSYNC_FLOOR_MS = 0.05  # a durable flush is a round trip to the drive: ~0.1-2 ms on NVMe, tens of µs only with PLP


def check_fsync_latency(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """An fsync time below what a drive can do ("10 microseconds per fsync") unless the candidate names
    media that acknowledge from protected memory (PMEM, power-loss-protected NVMe)."""
    if not c.value or _FAST_MEDIA.search(c.sentence):
        return None
    if ctx.texts is not None and any(_FAST_MEDIA.search(t) for t in ctx.texts[:c.turn + 1]):
        return None  # the media named earlier in the round ("NVMe with power-loss protection ... about 25 µs")
    trace = [f"a durable fsync on NVMe: about 0.1-2 ms, rarely under {FSYNC_FLOOR_MS * 1000:g} µs"]
    if c.value < FSYNC_FLOOR_MS:
        return _check("impossible", "fsync_floor", FSYNC_FLOOR_MS, "ms", c,
                      f"An fsync has to reach the drive and come back: on NVMe that is about 0.1 to 2 ms, not "
                      f"{c.value * 1000:g} microseconds.", trace)
    return _check("ok", "fsync_floor", FSYNC_FLOOR_MS, "ms", c,
                  "Plausible: a durable fsync on NVMe takes about 0.1 to 2 ms.", trace)


def check_fsync_rate(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A write rate said as the result of one fsync at a time ("at ~2 ms an fsync, that's 500 a second"):
    one synchronous fsync per write allows 1 / fsync time writes a second."""
    # the fsync times said before it in the sentence, in the order said: a figure said first and an aside
    # after it ("Call it 1 ms (an enterprise drive is more like 100-200 µs), so ... 1,000 puts a second")
    # are found in separate passes, so the claims' order is not the sentence's
    lat = sorted((ctx.claims[j] for j in ctx.in_sentence(i) if ctx.claims[j].start < c.start
                  and ctx.claims[j].kind == "fsync_latency_ms" and ctx.claims[j].value and not ctx.claims[j].negated),
                 key=lambda x: x.start)
    carried = False
    here = set(ctx.in_sentence(i))
    group = _GROUP_SIZE.search(c.sentence) if c.kind != "fsync_rate" else None
    if not lat and group is not None and not any(
            ctx.claims[j].unit == "ms" and -1 < c.sentence.find(ctx.claims[j].span) < group.end()
            for j in here):  # a time said with the group ("with a ~2 ms flush cycle each fsync covers ...")
        # "Assume an fsync takes about 2 ms. ... at 50,000 a second each fsync covers about 25 writes": the
        # fsync times assumed earlier in the answer ("p50 0.4 ms, p99 1.8 ms"), the group's size said here
        lat = [x for j, x in enumerate(ctx.claims[:i]) if j not in here and x.turn == c.turn
               and x.kind == "fsync_latency_ms" and x.value and not x.negated]
        carried = bool(lat)
    if not lat or not _ONE_FSYNC_EACH.search(c.sentence):
        return None
    L = lat[-1]
    between = c.sentence[c.sentence.find(L.span) + len(L.span):_pos(c)] \
        if L.span in c.sentence and c.span in c.sentence else ""
    if not carried and not _RESULT_WORDS.search(between):
        return None
    if not carried and any(x.kind in ("write_rate", "request_rate_rps", "fsync_rate") and L.start < x.start < c.start
           for x in (ctx.claims[j] for j in ctx.in_sentence(i))):
        # the one-at-a-time rate was said before it; this is the load the group is sized for: "one at a time is
        # ~1,000 a second; to do 50,000 writes a second each fsync has to cover about fifty puts"
        return None
    # "each fsync carries ~50 records, so 50,000/s": a group of G writes per fsync (fsyncs a second are not grouped)
    sized = group
    if sized is None and c.kind != "fsync_rate" and _GROUPED.search(c.sentence):
        return None  # grouped, but the group's size is not said: nothing to re-do
    size = float((sized.group(1) or sized.group(2)).replace(",", "")) if sized else 1.0
    if sized is not None and _WORKED_ON.match(c.sentence, sized.end()):
        # "each fsync covers 50,000 x 0.4 ms = ~20 records", "each fsync has to cover 50,000 / 500 = 100 writes": the
        # group is the calculation's result, not its first term
        result = _PRODUCT_RESULT.match(c.sentence, sized.end())
        if result is None:
            return None
        size = float(result.group(1).replace(",", ""))
    expected = size * 1000.0 / L.value
    # every fsync time said before it ("~0.5 ms median and 1-2 ms at p99"), ranges by their ends
    readings = [size * 1000.0 / x for f in lat for x in (f.value, f.low, f.high) if x]
    pos = _pos(c)
    if sized is not None and 0 <= pos < sized.start():
        # the rate said before the group is one fsync per write, the group its consequence: "one fsync per
        # put caps us around 1,000 puts a second, so we need roughly 50 puts per fsync"
        readings += [1000.0 / x for f in lat for x in (f.value, f.low, f.high) if x]
    if c.kind != "fsync_rate" and sized is not None:
        # the group times the fsyncs said with it: "At 80k/s that's ~80 records per fsync, ~1k fsyncs/s"
        readings += [size * f.value for f in (ctx.claims[j] for j in ctx.in_sentence(i))
                     if f.kind == "fsync_rate" and f.value and not f.negated]
    windows = [w for w in ctx.claims[:i] if w.kind == "max_wait_ms" and w.turn == c.turn and w.value and not w.negated]
    if c.kind == "fsync_rate":
        # one fsync per commit window: "cap the window at 1 ms ... only 1,000 fsyncs a second"
        readings += [1000.0 / w.value for w in windows]
    elif sized is not None:
        # a group flushed once a window: "a background thread fsyncs every 5 ms. That gets the full 50,000/s
        # with ~250 writes per fsync"
        readings += [size * 1000.0 / w.value for w in windows]
    tol = ctx.v.physics["tolerance"]
    ok, best = _best(c, readings, tol)
    if not ok and c.low and c.high and L.low and L.high:
        # "0.5-2 ms ... maybe 500-2,000 puts/s": the range's ends match
        ok = _within(c.low, 1000.0 / L.high, tol) and _within(c.high, 1000.0 / L.low, tol)
        best = c.value
    how = "One fsync at a time" if size == 1 else f"{size:g} writes per fsync"
    trace = [f"one fsync at a time: 1 s / {L.value:g} ms = {expected:,.0f} writes a second"] if size == 1 else \
        [f"{size:g} writes per fsync x 1 s / {L.value:g} ms = {expected:,.0f} writes a second"]
    if ok:
        return _check("ok", "fsync_rate", best, c.unit, c,
                      f"Right: {how.lower()} at {L.span} each is about {say.count(best)} a second.", trace)
    return _check("wrong", "fsync_rate", expected, c.unit, c,
                  f"{how} at {L.value:g} ms each is about {say.count(expected)} writes a second, "
                  f"not {say.count(c.value)}.", trace)


def _loosely(said: float, expected: float) -> bool:
    """Within half to twice: the reading of a sum said in passing (a group commit's size, fsyncs a second,
    a log's records), where only a slip of units or orders of magnitude is called wrong."""
    return 0.5 <= said / expected <= 2.0


def check_fsync_count(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """Fsyncs a second said beside the write rate and the group each covers ("At fifty thousand a second
    that's two hundred fifty writes per fsync and about two thousand fsyncs a second"): the rate over
    the group. Read loosely - half to twice - so only a slip of units or orders of magnitude is wrong."""
    if c.kind != "fsync_rate" or c.negated or c.hypothetical or c.bound or not c.value:
        return None
    here = [ctx.claims[j] for j in ctx.in_sentence(i) if j != i]
    groups = [x for x in here if x.kind == "writes_per_fsync" and x.value and x.value >= 2 and not x.bound
              and not x.negated and not x.hypothetical and x.start < c.start]
    rates = [x for x in here if x.kind in ("write_rate", "request_rate_rps") and x.value and not x.negated
             and not x.hypothetical and groups and x.start < groups[-1].start]
    if not groups or not rates:
        return None
    # the load may be said earlier ("50k puts/s"), and a rate in the sentence may be a cap ("one fsync per put
    # would cap us around 2,000 to 5,000 puts/s, so ... one fsync covers about 50 writes"): any one will do
    earlier = [x for x in ctx.claims[:i] if x.kind in ("write_rate", "request_rate_rps") and x.value
               and not x.negated and not x.hypothetical and x.sentence != c.sentence]
    G = groups[-1]
    matching = [r for x in rates + earlier for r in (x.value, x.low, x.high) if r and _loosely(c.value * G.value, r)]
    if matching:
        trace = [f"{say.count(matching[0])} writes a second / {say.count(G.value)} writes per fsync = "
                 f"{say.count(matching[0] / G.value)} fsyncs a second"]
        return _check("ok", "fsync_count", matching[0] / G.value, c.unit, c,
                      f"Right: {say.count(matching[0])} writes a second in groups of {say.count(G.value)}.", trace)
    R = max(rates + earlier, key=lambda x: x.value)  # the load, the largest rate said
    expected = R.value / G.value
    trace = [f"{say.count(R.value)} writes a second / {say.count(G.value)} writes per fsync = {say.count(expected)} fsyncs a second"]
    return _check("wrong", "fsync_count", expected, c.unit, c,
                  f"{say.count(R.value).capitalize()} writes a second in groups of {say.count(G.value)} is about "
                  f"{say.count(expected)} fsyncs a second, not {say.count(c.value)}.", trace)


def check_fsyncs(c: Claim, ctx: Ctx, i: int) -> Check | None:
    return check_fsync_count(c, ctx, i) or check_fsync_rate(c, ctx, i)


# another hour of the day than the peak the rates were said for
_OFF_PEAK = re.compile(r"\bat\s+(?:\d{1,2}(?::\d\d)?\s*(?:am|pm)\b|\d\d:\d\d\b)|\boff[- ]peak\b|\bovernight\b|\bat\s+night\b|"
                       r"\bin\s+the\s+(?:trough|small\s+hours)\b", re.I)


def check_group_size(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """Group commit's size ("at 50k a second and a 1 ms fsync, that's 50 writes per fsync"): the writes that
    arrive while one fsync runs (or one commit interval lasts) are the write rate times that time. Read
    loosely - within 2x either way, against every rate and fsync time said - so only a slip of units or
    orders of magnitude is called wrong; a cap on the group ("up to 256 per fsync") is a choice, not a sum."""
    if c.bound or c.hypothetical or c.value < 2:
        return None
    if any(ctx.claims[j].kind == "arithmetic" and ctx.claims[j].start <= c.start and ctx.claims[j].end >= c.end
           for j in ctx.in_sentence(i)):
        return None  # "50,000 x 2 ms = 100 records per fsync": the sum said is re-done as a calculation
    # the figures said before the group, or after it in its sentence
    near = [x for x in ctx.claims[:i] + [ctx.claims[j] for j in ctx.in_sentence(i) if j > i]
            if x.value and not x.negated and not x.hypothetical]
    rates = [x for x in near if x.kind in ("write_rate", "request_rate_rps")]
    # the fsync times of this answer, before or after the group ("25 to 100 writes ... at 1 to 4 ms"), and earlier ones
    times = [x for x in ctx.claims if x.kind in ("fsync_latency_ms", "max_wait_ms") and x.speaker == "candidate"
             and x.value and not x.negated and not x.hypothetical and x.turn <= c.turn]
    # ... and, read loosely, one from a war story the answer builds on ("at my last job fsync was 400 µs at p99", then
    # "50,000 / 2,500 = 20 writes per fsync")
    told = [x for x in ctx.claims if x.kind == "fsync_latency_ms" and x.speaker == "candidate" and x.value
            and not x.negated and x.hypothetical and x.turn <= c.turn]
    if not rates or not times:
        return None
    readings = [r * t / 1000.0 for rc in rates for r in (rc.value, rc.low, rc.high) if r
                for tc in times + told for t in (tc.value, tc.low, tc.high) if t]
    # ... or the write rate over the fsync rate said beside it: "c. 50 writes per fsync, c. 1,000 fsyncs/s"
    fsyncs = [x for x in near if x.kind == "fsync_rate" and x.speaker == "candidate"]
    readings += [r / f for rc in rates for r in (rc.value, rc.low, rc.high) if r for fc in fsyncs
                 for f in (fc.value, fc.low, fc.high) if f]
    if any(_loosely(said, x) for x in readings if x >= 1 for said in (c.value, c.low, c.high) if said):
        return None
    if not any(x >= 1 for x in readings):
        return None
    R, T = rates[-1], times[-1]
    expected = R.value * T.value / 1000.0
    if c.value < expected and _OFF_PEAK.search(c.sentence):
        return None  # "At 4am it's only 7 per fsync": a quieter hour's rate, which may not have been read
    trace = [f"{R.value:,.0f} writes a second x {T.value:g} ms = {expected:,.0f} writes arrive per fsync"]
    return _check("wrong", "group_size", expected, "writes", c,
                  f"At {say.count(R.value)} writes a second and {T.value:g} ms per fsync, one fsync covers about "
                  f"{say.count(expected)} writes, not {say.count(c.value)}.", trace)


_READ_AT = re.compile(r"\b(?:read|reads|reading|replay\w*|scan\w*|sequential\w*|disk|drive|nvme|ssd)\b[^.;,]*$", re.I)
_LOG_GROWTH = re.compile(r"\b(?:log|wal)\s+(?:grows|growth|is\s+growing|will\s+grow)\b|\bgrows?\s+(?:at\s+)?(?:about\s+|roughly\s+|~)?\d", re.I)


def check_write_bandwidth(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """The log's growth in bytes a second ("at 50,000 writes a second the log grows at about 50 MB a
    second"): the write rate times a record's size, both said earlier in the round (either speaker) or
    in this sentence. Read loosely - from half to three times the bare product, for headers and keys -
    so only a slip of units or orders of magnitude is called wrong."""
    return _log_growth(c, ctx, i, None)


# a rate said as what something can do, not the load: "fsync-per-put tops out at 5,000 a second"
_CEILING = re.compile(r"\btops?\s+out\b|\bcaps?\s+(?:us\s+)?(?:at|near|around)\b|\bceiling\b|\bat\s+most\b|\bmax(?:es)?\s+out\b", re.I)
# a size said over a period: "the log grows about 20 GB an hour"
_PER_PERIOD = re.compile(r"\s*(?:an?|per|each|every|/)\s*(hours?|hrs?|h|days?|minutes?|mins?)\b", re.I)
_PERIOD_NAME = {"h": "hour", "hr": "hour", "hrs": "hour", "hours": "hour", "days": "day", "min": "minute",
                "mins": "minute", "minutes": "minute"}


def check_log_size(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A log's growth said as a size over a period ("the log grows about 20 GB an hour"): checked as
    the write rate times a record's size, like a growth said a second."""
    m = _PER_PERIOD.match(ctx.texts[c.turn], c.end) if ctx.texts is not None else None
    if m is None:
        pos = _pos(c)
        m = _PERIOD_FIRST.search(c.sentence, 0, pos) if pos > 0 else None
    if m is None:
        return None
    word = m.group(1).lower()
    return _log_growth(c, ctx, i, _PERIOD_NAME.get(word, word))


# the period said before the size: "and a day is, um, like 1.8 terabytes"
_PERIOD_FIRST = re.compile(r"\b(?:a|per|each|one)\s+(hour|day|minute)\s+(?:is|comes\s+to|would\s+be|that.s)\s*,?\s*"
                           r"(?:about\s+|roughly\s+|like\s+|~)?$", re.I)


# (a size per period needs only the log named: "Per hour that's about 198 GB of log, so roughly 2 TB a day")
_LOG_NAMED = re.compile(r"\b(?:log|wal)\b", re.I)
# a rate said as the log's: "50,000 writes of 1 KB is 5 GB a second of log"
_OF_LOG = re.compile(r"\s+of\s+(?:log|wal|appends)\b", re.I)


# a part of a record, not its size: "the 1 KB value plus key and a 64-byte header"
_RECORD_PART = re.compile(r"[\s-]*(?:record\s+)?(?:header|checksum|crc|footer|trailer|length\s+prefix)s?\b", re.I)


def _log_growth(c: Claim, ctx: Ctx, i: int, period: str | None) -> Check | None:
    """A log's growth a second (`period` None) or over a minute, an hour or a day, against the write
    rate times a record's size."""
    period_s = _PERIOD_MS[period] / 1000.0 if period else 1.0
    pos = _pos(c)
    growth = _LOG_NAMED if period else _LOG_GROWTH
    # (the log may be named by the question the figure answers: "How fast does the log grow?")
    asked = ctx.texts[c.turn - 1] if period and ctx.texts is not None and c.turn > 0 else ""
    if c.bound or c.hypothetical or not (growth.search(c.sentence) or _LOG_NAMED.search(asked)
                                         or (not period and _OF_LOG.match(c.sentence, pos + len(c.span)))) or (
            pos > 0 and _READ_AT.search(c.sentence[max(0, pos - 50):pos])):
        return None  # a drive's or a replay's bandwidth is no product of the write rate
    later = [ctx.claims[j] for j in ctx.in_sentence(i) if j > i]
    known = [x for x in ctx.claims[:i] + later if x.value and not x.negated and not x.hypothetical
             and not _CEILING.search(x.sentence)]
    # the write rate the log takes (a request rate only when none is said: "fsync-per-put tops out at 5,000
    # a second" is a ceiling, not the load)
    rates = [x for x in known if x.kind == "write_rate"] or [x for x in known if x.kind == "request_rate_rps"]
    sizes = [x for x in known if x.kind == "other_bytes" and 16 <= x.value <= 1e6
             and not (ctx.texts is not None and _RECORD_PART.match(ctx.texts[x.turn], x.end))]
    if not rates or not sizes:
        return None
    readings = [r.value * s.value * period_s for r in rates for s in sizes]
    if any(0.5 <= said / x <= 3.0 for x in readings for said in (c.value, c.low, c.high) if said):
        return None
    R, S = rates[-1], sizes[-1]
    expected = R.value * S.value * period_s
    per = f"{'an' if period == 'hour' else 'a'} {period}" if period else "a second"
    trace = [f"{R.value:,.0f} writes a second x {say.nbytes(S.value)} a record = {say.nbytes(R.value * S.value)} a second"]
    if period:
        trace.append(f"x {period_s:,.0f} s = {say.nbytes(expected)} {per}")
    return _check("wrong", "write_bandwidth", expected, "bytes" if period else "bytes/s", c,
                  f"At {say.count(R.value)} writes a second of about {say.nbytes(S.value)} each, the log grows about "
                  f"{say.nbytes(expected)} {per}, not {say.nbytes(c.value)}.", trace)


def check_batch_kv(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A batch's KV ("28 x 2,048 x 512 KiB = 30 GB"): the product of the factors said; a bare total, the
    model's shape times the length and the batch. Factors with no size among them carry on from the
    per-token KV said just before ("262,144 bytes per token, times 2,048 tokens times 8 is about 4.3 GB"):
    their product is tokens, times that size."""
    from interviewer.claims.numbers import find_mentions

    if not c.formula:
        # a bare total ("4 GiB." for batch 8 at 2,048 tokens) is checked against the shape: its product, said
        # in the next answer ("8 x 2,048 x 32 x 32 x 128 x 2 bytes"), may leave the K-and-V factor out
        return _batch_from_shape(c, ctx, i)
    if not any(m.dim == "bytes" for f in c.formula for m in find_mentions(f, ctx.v)[:1]):
        per = [ctx.claims[j] for j in ctx.in_sentence(i) if ctx.claims[j].kind == "kv_bytes_per_token"
               and ctx.claims[j].start < c.start and ctx.claims[j].value and not ctx.claims[j].negated]
        if not per:
            return None
        return _arith_check(c.model_copy(update={"formula": [per[-1].span, *c.formula]}), ctx)
    return _arith_check(c, ctx)


def _asked(ctx: Ctx, i: int, kind: str) -> Claim | None:
    """The latest figure of `kind` the interviewer set before claim i ("batch 8, 2,048 tokens")."""
    for j in reversed(ctx.by_kind.get(kind, [])):
        x = ctx.claims[j]
        if j < i and x.speaker == "interviewer" and x.value and not x.negated:
            return x
    return None


# the batch a total is said of, right before it: "batch 32 is", "at 32 sequences of 2K that's" (the numbers
# captured; kinds.yaml's BATCH_N / SEQS_N are the same phrases where a batch's KV is told from free memory)
_BATCH_SAID = re.compile(r"(?:\bbatch(?:\s+size)?(?:\s+of)?\s+(~?\d[\d,]*)|(?<![\d,.])(~?\d[\d,]*)\s+(?:sequences|seqs|requests|users|"
                         r"conversations|streams))(?:\s+(?:at|of)\s+(\d+(?:\.\d+)?)\s*[kK]\b)?\s*,?\s*(?:is|are|=|≈|that.s|"
                         r"it.s)\s*(?:about\s+|roughly\s+|~)?$", re.I)


def _batch_from_shape(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A batch's KV against the shape, at the batch and length the question set: KV per token x the length x
    the batch (the candidate's own "token slots" or later batches are other quantities)."""
    if not c.value:
        return None
    a = _arch(c, ctx, i)
    batch, length = _asked(ctx, i, "batch_size"), _asked(ctx, i, "seq_len")
    if a is None or length is None:
        return None
    pos = _pos(c)
    own = _BATCH_SAID.search(c.sentence, 0, pos) if pos > 0 else None
    if own is not None:
        # the batch the sentence names ("at 32 sequences of 2K that's 32 GiB of KV"): a what-if beside the asked one
        n = float((own.group(1) or own.group(2)).lstrip("~").replace(",", ""))
        seq = float(own.group(3)) * 1024 if own.group(3) else length.value
    elif batch is None:
        return None
    else:
        n, seq = batch.value, length.value
    kv = a.kv_bytes(c.subject.kv_dtype)
    expected = kv * seq * n
    trace = [f"batch {n:g} and {seq:,.0f} tokens (turn {length.turn}: {length.span!r})",
             _kv_per_token_step(a, capacity.DTYPE_BYTES.get(c.subject.kv_dtype or "fp16", 2.0), kv),
             f"batch KV = {say.nbytes(kv)} x {seq:,.0f} tokens x {n:g} sequences = {say.nbytes(expected)}"]
    ok, _best_r = _best(c, [expected], ctx.v.physics["tolerance"])
    if ok:
        return _check("ok", "kv_batch", expected, "bytes", c,
                      f"Right: {say.nbytes(kv)} per token over {seq:,.0f} tokens and {n:g} sequences is about "
                      f"{say.nbytes(expected)}.", trace)
    return _check("wrong", "kv_batch", expected, "bytes", c,
                  f"For {a.name}, {n:g} sequences of {seq:,.0f} tokens hold about {say.nbytes(expected)} of keys and "
                  f"values ({say.nbytes(kv)} per token), not {say.nbytes(c.value)}.", trace)


def check_kv_shrink(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """How much the cache shrinks with fewer KV heads ("4x smaller", "8 GiB becomes 2 GiB"): only the KV
    heads are stored, so by the query heads over the KV heads the question set."""
    if c.value is None:
        return None
    # the heads the question set ("8 KV heads for 32 query heads"), over any the answer says back wrong
    said = {kind: x.value for kind in ("kv_heads", "attention_heads") if (x := _asked(ctx, i, kind)) is not None}
    arch = _arch(c, ctx, i)
    if arch is not None and arch.latent:
        return None
    heads = said.get("attention_heads") or (arch.attention_heads if arch else 0)
    kv = said.get("kv_heads") or (arch.kv_heads if arch else 0)
    if not 0 < kv < heads:
        return None
    want = heads / kv
    step = f"{heads:g} query heads, {kv:g} KV heads stored: the cache is {kv:g}/{heads:g} of its size, {want:g}x smaller"
    if abs(math.log(c.value / want)) <= math.log(1.25):
        return _check("ok", "kv_shrink", want, c.unit, c, f"Right: {step}.", [step])
    return _check("wrong", "kv_shrink", want, c.unit, c,
                  f"With {kv:g} KV heads for {heads:g} query heads the cache shrinks {want:g}x, not {c.value:g}x: "
                  f"only the KV heads' keys and values are stored.", [step])


_WHOLE_GENERATION = re.compile(r"\b(?:whole|total|overall|entire|end[- ]to[- ]end)\b|\bmargin\b", re.I)
_NOT_WHOLE = re.compile(r"\b(?:watchdog|no\s+(?:new\s+)?tokens?|first\s+token|ttft|idle|stall\w*|progress|heartbeat|between\s+tokens)\b",
                        re.I)


# a figure the formula goes on from: "3.8 s + 0.05 s x max_tokens", "0.05 s x max_tokens"
_A_TERM = re.compile(r"\s*(?:\+|[x×*]\s*(?:max_tokens|tokens|output|the\s+(?:output|reply)|\d))", re.I)


def check_timeout(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A whole-generation timeout against the work it must allow, said in the same answer: the reply's tokens times
    the time per token ("1,000 tokens at roughly 40 ms a token, so that's 40 s ... whole generation about 30 s" cuts
    off every full-length reply). Only a shortfall is judged: how much margin to add is the candidate's call."""
    def said(*kinds: str) -> list[float]:
        return [x.value for x in ctx.earlier(i, kinds, same_turn=True) if not x.negated and not x.hypothetical]

    tokens, per = said("output_tokens"), said("tpot_ms", "tpot_p99_ms")
    pos = _pos(c)
    near = re.split(r"[,;:]", c.sentence[max(0, pos - 60):max(pos, 0)])[-1]  # the figure's own clause
    if not tokens or not per or c.value is None or pos < 0 or not _WHOLE_GENERATION.search(near) \
            or _NOT_WHOLE.search(near):
        return None  # (a watchdog's "no token for 5 s", or a first-token timeout, is no whole generation's)
    if _A_TERM.match(c.sentence, pos + len(c.span)):
        return None  # a term of the deadline's formula ("deadline ~ 3.8 s + 0.05 s x max_tokens, about 106 s"), not its value
    work = tokens[-1] * per[-1] / 1000.0
    step = f"{tokens[-1]:,.0f} tokens x {per[-1]:g} ms = {work:,.0f} s of decoding"
    if c.value >= 0.9 * work:
        return _check("ok", "timeout", work, "s", c, f"Covers the work: {step}.", [step])
    return _check("wrong", "timeout", work, "s", c,
                  f"A {c.value:g} s timeout cuts off the work you worked out in the same answer: {step}.", [step])


_SIZE_SAID = re.compile(r"~?[\d,.]+\s*([kmgtp]i?b|[a-z]*bytes?|gigs?|megs?)\b", re.I)


def check_restated_rate(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A count per period said again per another ("200 GPUs a month, which is about 20 a day"): the
    first rate over the periods' ratio (a month is 365/12 days)."""
    from interviewer.claims.periods import expected

    if c.value is None or len(c.formula) != 2:
        return None
    first, period = c.formula
    want = expected(first, period)
    if not want:
        return None
    value = c.value
    per = f"{'an' if period == 'hour' else 'a'} {period}"  # "about 0.1 an hour"
    sized = _SIZE_SAID.match(first)
    if sized:
        per = f"{sized.group(1)} {per}"  # "180 GB an hour is about 4,300 GB a day"
    step = f"{first} is about {say.count(want)} {per}"
    # (the checks' own tolerance: "150 tickets a month, which is about 50 a week" is 40% high, not a rounding)
    tol = 1 + ctx.v.physics["tolerance"]
    if 1 / tol <= value / want <= tol:
        return _check("ok", "per_period", want, c.unit, c, f"Right: {step}.", [step])
    return _check("wrong", "per_period", want, c.unit, c,
                  f"{first} is about {say.count(want)} {per}, not {say.count(value)}.", [step])


# Facts about a named model or GPU: a hypothetical ("if it had 8 KV heads") describes another one.
_FACT_KINDS = frozenset({"layers", "kv_heads", "attention_heads", "head_dim", "hidden_size", "params",
                         "gpu_memory_bytes", "memory_bandwidth"})


# a model described, not named: "a modern 13B with", "any model with", "a GQA model with"
_OTHER_MODEL = guarded(re.compile(r"\b(?:a|an|another|any|other)\s+(?:[\w-]+\s+){0,3}?with\s+(?:only\s+|just\s+)?~?$"
                                  # ... or the variant switched to: "Switching to grouped-query attention with 8 KV heads"
                                  r"|\b(?:switch\w*|mov\w*|go(?:ing)?|chang\w*)\s+to\s+(?:grouped[- ]query(?:\s+attention)?|gqa|mqa)"
                                  r"\s+with\s+(?:only\s+|just\s+)?~?$", re.I))


# between a share and the count drawn from it: "10 to 15 percent of the fleet, so like 200 to 300 hosts"
_SHARE_TO_COUNT = re.compile(r"[^.;\d]{0,60}?(?:\bso\b|that.s|which\s+is|=|→|->|≈|\bmeans\b|\bgives\b),?\s*"
                             r"(?:(?:like|about|roughly|around|maybe|only|just|some|um|uh)\s+|~)*", re.I)


def _drawn_from(c: Claim, ctx: Ctx, i: int, kind: str, gap: re.Pattern) -> Claim | None:
    """The figure of `kind` said just before claim i in its sentence when claim i is worked out from it
    ("10 percent of the fleet, so 200 hosts", "25 hosts, so a hundred GPUs"): the words between them
    match `gap`."""
    if c.value is None or c.negated or c.hypothetical or c.speaker != "candidate":
        return None
    said = [ctx.claims[j] for j in ctx.in_sentence(i) if j < i and ctx.claims[j].kind == kind
            and ctx.claims[j].value and not ctx.claims[j].negated]
    if not said or said[-1].span not in c.sentence or c.span not in c.sentence:
        return None
    a, b = c.sentence.find(said[-1].span) + len(said[-1].span), _pos(c)
    return said[-1] if a <= b and gap.fullmatch(c.sentence[a:b]) else None


def _given(ctx: Ctx, i: int, kind: str) -> list[float]:
    """The fleet figures of `kind` the interviewer set before claim i."""
    return [ctx.claims[j].value for j in ctx.by_kind.get(kind, []) if j < i and ctx.claims[j].value
            and ctx.claims[j].speaker == "interviewer"]


_SHAPE_WORD = re.compile(r"(?:\d+|one|two|four|eight|sixteen|thirty-two|sixty-four)-(?:gpus?|hosts?|nodes?|cards?)", re.I)  # ("an eight-GPU gang")


def check_share_count(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """GPUs or hosts worked out from a share of the fleet just said: the share times the fleet's
    size in the same unit (hosts from hosts, GPUs from GPUs) that the question set."""
    share = _drawn_from(c, ctx, i, "fleet_share", _SHARE_TO_COUNT)
    if share is None or _SHAPE_WORD.fullmatch(c.span):
        return None  # (nor a job's shape: "~10 hosts, 4% of the fleet, that the scheduler steers toward empty so 8-GPU jobs")
    # any fleet said before it, by either speaker (the question's, or "at my last company ... 600 A100s")
    fleet = [ctx.claims[j].value for j in ctx.by_kind.get(c.kind, []) if j < i and ctx.claims[j].value
             and ctx.claims[j].value > c.value and not ctx.claims[j].negated]  # a war story's fleet too
    given = _given(ctx, i, c.kind)
    if not fleet and not given:
        return None
    n = max(given) if given else max(fleet)
    readings = [x * f for f in {*fleet, *given} for x in (share.value, share.low, share.high) if x]
    tol = ctx.v.physics["share_tolerance"]
    ok, best = _best(c, readings, tol)
    what = "hosts" if c.kind == "host_count" else "GPUs"
    trace = [f"{share.span} of {say.count(n)} {what} = {say.count(share.value * n)} {what}"]
    if ok:
        return _check("ok", "fleet_share", best, c.unit, c, f"Right: {share.span} of {say.count(n)} {what}.", trace)
    check = _check("wrong", "fleet_share", share.value * n, c.unit, c,
                   f"{share.span} of {say.count(n)} {what} is about {say.count(share.value * n)} {what}, "
                   f"not {say.count(c.value)}.", trace)
    check.ratio = round(c.value / (share.value * n), 3)
    return check


# "twenty-five hosts, so we're leaving a hundred GPUs idle", "8 hosts = 64 GPUs", "take 17 hosts out: about 1,300 GPUs"
# (a colon only right after the hosts: not "250 hosts each with one busy GPU: 1,750 GPUs 'free'", the others' share)
_A_COMMA = re.compile(r"\s*,\s*(?:about\s+|roughly\s+|~)?", re.I)
_RESTATED = re.compile(r"(?:that.s|that\s+is|i\.e\.|=)\s*(?:about\s+|roughly\s+|~)?$", re.I)
# ... or said again in the other unit: "which is 120 GPUs, or 12 hosts"
# ("20 hosts is 120 GPUs, so 6% of the fleet": the hosts said again in GPUs)
_HOSTS_TO_GPUS = re.compile(r"(?:\s+is\b|[^.;\d]{0,30}?(?:\bso\b|that.s|which\s+is|=|→|->|≈|\bmeans\b|\bgives\b|,\s*or\b)"
                            r"|(?:\s+(?:out|down|offline|drained|cordoned))?\s*:),?"
                            r"(?:\s+(?!of\b|per\b)[\w'’]+){0,3}?\s*(?:(?:like|about|roughly|around|maybe|only|just|some)\s+|~)*",
                            re.I)


# a count worked out from counts ("800 GPUs - that's 100 hosts") is exact: only rounding is allowed for
_EXACT_TOLERANCE = 0.1


def _exact_count(c: Claim, rule: str, expected: float, step: str, right: str, wrong: str) -> Check:
    """A count worked out from counts, checked with only rounding allowed; a wrong one carries its ratio."""
    if _best(c, [expected], _EXACT_TOLERANCE)[0]:
        return _check("ok", rule, expected, c.unit, c, right, [step])
    check = _check("wrong", rule, expected, c.unit, c, wrong, [step])
    check.ratio = round(c.value / expected, 3)
    return check


def _gpus_per_host(ctx: Ctx, i: int, in_words: bool = False) -> int | None:
    """The GPUs per host the round set (its fleet's GPUs over its hosts), when that is a host's shape; with
    `in_words`, else the shape said in words."""
    gpus, nodes = [x for x in _given(ctx, i, "gpu_count") if x >= 10], [x for x in _given(ctx, i, "host_count") if x >= 10]
    if gpus and nodes:
        per = round(max(gpus) / max(nodes))
        return per if per in (2, 4, 8, 16) else None
    if not in_words or not ctx.texts:
        return None
    # ... or the host's shape said in words up to here: "eight-GPU hosts", "hand out the other seven"
    m = _HOST_SHAPE.search(" ".join(ctx.texts[:ctx.claims[i].turn + 1]))
    return None if m is None else _SHAPE_WORDS[next(g for g in m.groups() if g).lower()]


_SHAPE_WORDS = {"eight": 8, "8": 8, "four": 4, "4": 4, "sixteen": 16, "16": 16, "seven": 8, "three": 4, "fifteen": 16}
# ... "eight-GPU hosts", "hand out the other seven", "8 GPUs a host", "hosts of eight GPUs"
_HOST_SHAPE = re.compile(r"\b(eight|8|four|4|sixteen|16)[- ]gpu\s+(?:hosts?|nodes?|boxes|box|servers?|machines?)\b"
                         r"|\bthe\s+other\s+(seven|three|fifteen)\b"
                         r"|\b(eight|8|four|4|sixteen|16)\s+gpus\s+(?:a|per|each|in\s+(?:a|each))\s+(?:host|node|box|server|machine)\b"
                         r"|\b(?:hosts?|nodes?|boxes|servers?|machines?)\s+(?:of|with)\s+(eight|8|four|4|sixteen|16)\s+gpus\b", re.I)


_WHOLE_OF = re.compile(r"\bof\s+(?:a|an|the|its|their|our)\s+(?:[\w-]+\s+)?(?:run|job|cluster|fleet|pool|reservation|allocation)\b", re.I)
_OTHER_PER_HOST = re.compile(r"\bhost\s+(?:averages|has|holds|leaves|keeps|strands)\s+(?:about\s+|~)?\d|"
                             r"\b\d+\s+(?:idle\s+|free\s+|stranded\s+)?gpus?\s+(?:per|a|each)\s+(?:draining\s+)?host\b", re.I)
_CAPACITY_OUT = re.compile(r"\s*(?:gpus?\s+)?of\s+(?:\w+\s+)?capacity\b", re.I)


def check_host_gpus(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """GPUs worked out from hosts just said ("twenty-five hosts, so a hundred GPUs idle"): hosts times
    the GPUs per host the round set (its fleet's GPUs over its hosts)."""
    h = _drawn_from(c, ctx, i, "host_count", _HOSTS_TO_GPUS)
    if h is None:
        # a chain of restatements: "10% of hosts, that's 25 hosts, 250 GPUs"
        h = _drawn_from(c, ctx, i, "host_count", _A_COMMA)
        if h is not None and not _RESTATED.search(c.sentence, 0, max(c.sentence.find(h.span), 0)):
            h = None
    if h is None and ctx.texts is not None and _THAT_IS.match(c.sentence):
        # ... or the hosts of the sentence before: "Keep 30 hosts empty for eight-GPU gangs. That's 120 GPUs"
        text = ctx.texts[c.turn]
        prev = [ctx.claims[j] for j in ctx.by_kind.get("host_count", []) if j < i and ctx.claims[j].turn == c.turn
                and ctx.claims[j].value and not ctx.claims[j].negated and 0 <= c.start - ctx.claims[j].end <= 120]
        if prev and not re.search(r"\d", text[prev[-1].end:c.start]) and text.count(".", prev[-1].end, c.start) <= 1:
            h = prev[-1]
    if _SHAPE_WORD.match(c.span):
        return None  # a job's shape, not the hosts' GPUs: "12 whole hosts kept empty so an 8-GPU or 64-GPU job can start"
    # ("25 hosts ... ~6 idle GPUs", "250 hosts, g = 8 GPUs/host" are not the hosts' GPUs; "That's 15 hosts, so about 12
    # GPUs of capacity out" is, miscounted)
    if h is None or (c.value < h.value and not _CAPACITY_OUT.match(c.sentence, _pos(c) + len(c.span))):
        return None
    h_at = c.sentence.find(h.span)
    if 0 <= h_at < _pos(c) and _WHOLE_OF.search(c.sentence, h_at + len(h.span), _pos(c)):
        return None  # "64 GPUs is 8 hosts of a run that's probably 512 GPUs": the whole the hosts are part of
    per = _gpus_per_host(ctx, i, in_words=True)
    if per is None:
        return None
    for m in _OTHER_PER_HOST.finditer(c.sentence, 0, _pos(c)):
        said = re.search(r"\d+", m.group(0))
        if said is None or int(said.group(0)) != per:
            # "a draining host averages ~4 idle GPUs; with ~10 hosts draining that's ~40 GPUs idle": their share (not
            # the host's shape said again: "we drain at host level, 8 GPUs a host, so ... 17 hosts out: about 1,300 GPUs")
            return None
    expected = h.value * per
    return _exact_count(c, "host_gpus", expected,
                        f"{say.count(h.value)} hosts x {per} GPUs a host = {say.count(expected)} GPUs",
                        f"Right: {say.count(h.value)} hosts of {per} GPUs.",
                        f"{say.count(h.value)} hosts of {per} GPUs is {say.count(expected)} GPUs, not {say.count(c.value)}.")


def check_gpu_hosts(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """Hosts worked out from GPUs just said ("800 GPUs of inference - that's 100 hosts"): the GPUs over
    the GPUs per host the round set."""
    g = _drawn_from(c, ctx, i, "gpu_count", _HOSTS_TO_GPUS)
    # (nor from a host's shape: "keeping 8-GPU hosts whole ... means ~5-10 hosts are partly drained")
    if g is None or c.value >= g.value or _SHAPE_WORD.fullmatch(g.span):
        return None
    per = _gpus_per_host(ctx, i)
    return None if per is None else _hosts_of(c, g.value, per)


def _hosts_of(c: Claim, gpus: float, per: int) -> Check:
    """A host count checked as `gpus` over `per` GPUs a host."""
    expected = gpus / per
    return _exact_count(c, "gpu_hosts", expected, f"{say.count(gpus)} GPUs / {per} GPUs a host = {say.count(expected)} hosts",
                        f"Right: {say.count(gpus)} GPUs on hosts of {per}.",
                        f"{say.count(gpus)} GPUs on hosts of {per} GPUs is {say.count(expected)} hosts, "
                        f"not {say.count(c.value)}.")


# "1,200 GPUs training = 150 hosts, 800 serving = 80 hosts": the unit left off the second of two parallel clauses
_GPUS_TO_HOSTS = re.compile(r"\d[\d,]*\s*gpus?\s+[a-z]+\s*(?:=|→|->)\s*~?\d[\d,]*\s*hosts?\b", re.I)
_ELIDED_GPUS = re.compile(r"(?:^|[,;]\s*)(\d[\d,]*)\s+[a-z]+\s*(?:=|→|->)\s*~?$", re.I)


def _elided_gpu_hosts(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """Hosts said after a bare count whose unit a parallel clause just before gave ("800 serving = 80 hosts" after
    "1,200 GPUs training = 150 hosts"): that count over the GPUs per host."""
    pos = _pos(c)
    m = _ELIDED_GPUS.search(c.sentence, 0, max(pos, 0)) if pos > 0 else None
    if m is None or not _GPUS_TO_HOSTS.search(c.sentence, 0, m.start(1)):
        return None
    per = _gpus_per_host(ctx, i, in_words=True)
    return None if per is None else _hosts_of(c, float(m.group(1).replace(",", "")), per)


def check_host_count(c: Claim, ctx: Ctx, i: int) -> Check | None:
    # the GPUs said right before it are what it is worked out from, not a share said earlier in the sentence
    return check_gpu_hosts(c, ctx, i) or _elided_gpu_hosts(c, ctx, i) or check_share_count(c, ctx, i)


def check_items_rate(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """Items scored a second said after the request rate and the items a request carries ("20,000
    requests a second at 400 candidates each is 800,000 scores a second"): their product."""
    from interviewer.claims.numbers import find_mentions

    pos = _pos(c)
    rate = ctx.said_before(i, ("request_rate_rps",))
    if rate is None or pos <= 0:
        return None
    start = c.sentence.find(rate.span)
    if start < 0 or start >= pos:
        return None
    between = [m for m in find_mentions(c.sentence[start + len(rate.span):pos], ctx.v) if m.value]
    if len(between) != 1 or between[0].dim != "items" or between[0].value < 2:
        return None  # exactly one count of items a request between the rate and the product
    per = between[0].value
    expected = rate.value * per
    ok, _ = _best(c, [expected], ctx.v.physics["tolerance"])
    trace = [f"{say.count(rate.value)} requests a second x {say.count(per)} items each = {say.count(expected)} a second"]
    return _check("ok" if ok else "wrong", "items_rate", expected, c.unit, c,
                  f"{say.count(rate.value).capitalize()} requests a second at {say.count(per)} each is about "
                  f"{say.count(expected)} a second" + ("." if ok else f", not {say.count(c.value)}."), trace)


def check_record_count(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A log's records worked out from its size and a record's ("20 GB at 1 KB a record is about 20
    million records"): the size over the record. Read loosely - half to twice, for headers and GB vs
    GiB - so only a slip of units or orders of magnitude is called wrong."""
    from interviewer.claims.numbers import find_mentions

    pos = _pos(c)
    if pos <= 0 or not c.value or c.negated or c.hypothetical:
        return None
    sizes = [m for m in find_mentions(c.sentence[:pos], ctx.v) if m.dim == "bytes" and m.value]
    if len(sizes) < 2 or not sizes[-2].value > 100 * sizes[-1].value:
        return None
    log, record = sizes[-2], sizes[-1]
    expected = log.value / record.value
    trace = [f"{say.nbytes(log.value)} / {say.nbytes(record.value)} a record = {say.count(expected)} records"]
    if _loosely(c.value, expected):
        return _check("ok", "record_count", expected, c.unit, c,
                      f"Right: {say.nbytes(log.value)} at {say.nbytes(record.value)} a record.", trace)
    return _check("wrong", "record_count", expected, c.unit, c,
                  f"{say.nbytes(log.value)} at {say.nbytes(record.value)} a record is about {say.count(expected)} "
                  f"records, not {say.count(c.value)}.", trace)


_BANDWIDTH_KINDS = ("memory_bandwidth", "write_bandwidth", "link_bandwidth")
# a speed said of the log's growth ("~55 MB/s of log"), and a sentence about reading it back
_OF_LOG = re.compile(r"\s*(?:of\s+(?:log|wal|appends|writes)\b|(?:log|wal)\s+growth\b)", re.I)
_A_READ = re.compile(r"\b(?:read\w*|replay\w*|scan\w*|load\w*)\b", re.I)
# the words from a read's speed to its time, and nothing else: " is about ", ", so ", " takes "
_READ_IS = re.compile(r"\s*(?:sequential\w*\s+)?(?:,\s*)?(?:is|takes|=|≈|so|that.s|it.s|gives)\s+(?:about\s+|roughly\s+|around\s+|~)?", re.I)
# ("20 GB at 200 MB/s", "200 GB, and replay reads at maybe 500 MB a second", "20 GB, a sequential read at ~2 GB/s")
_READ_AT_SPEED = re.compile(r"\s*(?:(?:of\s+)?(?:log|wal|data|records|snapshot)\s+)?(?:,?\s*(?:and|so)\s+(?:the\s+)?(?:replay|recovery|restart|"
                            r"reading|it|we)\s+(?:reads?|replays?|streams?|loads?|runs?|goes)\s+(?:it\s+)?)?(?:read\s+(?:sequentially\s+|back\s+)?|"
                            # ("For 20 GB, reading at ~500 MB/s is about 4 seconds")
                            r",?\s*(?:a\s+)?(?:sequential\s+)?(?:read(?:ing)?|scan(?:ning)?|replay(?:ing)?)\s+)?(?:at|@)\s*"
                            r"(?:about\s+|roughly\s+|maybe\s+|~)?", re.I)


# ... or "... 500 MB/s sequential, so 20 GB is about 4 seconds"
_REPLAYS_IN = re.compile(r"\s*(?:(?:of\s+)?(?:log|wal)\s+)?(?:(?:(?:replays?|reads?|loads?|recovers?|is\s+read|is\s+replayed)\s+)?in\s+"
                         r"|(?:is|takes|=|→|->)\s*)(?:about\s+|roughly\s+|around\s+|under\s+|~)?", re.I)


_OF_READING = re.compile(r"\s+(?:of\s+(?:sequential\s+|raw\s+)?(?:reading|read\s+time|disk\s+reads?)|just\s+to\s+read\b|to\s+read\s+(?:it|the\s+log)\b)", re.I)
_READS_IT = re.compile(r"\b(?:replay\w*|recovery|restart\w*|it|we)\s+(?:reads?|replays?|streams?|scans?)\s+(?:it|the\s+(?:whole\s+)?(?:log|wal|file))\b"
                       # ... or the read opening its own sentence: "20 GB ≈ 18.6 GiB, ... Sequential read at ~1.5 GB/s → ~1.3 s"
                       r"|^\W*(?:a\s+)?(?:sequential(?:ly)?\s+)?(?:read|reads|reading|replay|replaying|scan)\s+(?:it\s+)?(?:at|@)\s*$", re.I)


def check_recovery_time(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A replay or load time said after the size read and the speed it is read at ("replay reads 20 GB
    at 200 MB/s, so about 10 seconds"): it cannot be shorter than the size over the speed (applying the
    records may make it longer, so only a time too short is wrong)."""
    from interviewer.claims.numbers import find_mentions

    pos = _pos(c)
    if pos <= 0 or not c.value:
        return None
    speed = ctx.said_before(i, _BANDWIDTH_KINDS)
    earlier = False
    if speed is None:
        # ... or the speed set out earlier in the answer: "A9. ... I'd expect about 200 MB/s through that loop. ... Given
        # A9, a 20 GB log replays in about 10 seconds"
        said = [x for x in ctx.earlier(i, _BANDWIDTH_KINDS, same_turn=True)
                if _A_READ.search(x.sentence) and not _LOG_GROWTH.search(x.sentence)]
        if not said:
            return _replay_by_records(c, ctx, i)
        speed, earlier = said[-1], True
    at = c.sentence.find(speed.span) if not earlier else -1
    if at < 0 and not earlier:
        return None
    said = [m for m in find_mentions(c.sentence[:pos], ctx.v) if m.value]
    # ... or the speed first and the size right before the time: "reads are a few hundred MB/s, so 20 GB
    # replays in about 2 seconds"
    last = said[-1] if said else None
    read_alone = False
    if last is not None and last.start > at and last.dim == "bytes" and last.value >= 1e8 \
            and _REPLAYS_IN.fullmatch(c.sentence, last.end, pos) \
            and not (at >= 0 and _OF_LOG.match(c.sentence, at + len(speed.span))):
        # (not the log's growth said beside it: "~55 MB/s of log, a 20 GB log replays in under half a minute")
        sizes = [last]
    elif earlier:
        return None
    elif not said[:-1] and 0 <= pos - (at + len(speed.span)) <= 30 and _READS_IT.search(c.sentence[:at]) \
            and not any(ch.isdigit() for ch in c.sentence[at + len(speed.span):pos]):
        # ... or the size in the sentence before, pointed back to: "a 20 GB log is roughly 400 seconds of
        # writes. Replay reads it sequentially, say at 200 MB/s, so about 10 seconds"
        before = [x for x in ctx.claims[:i] if x.turn == c.turn and x.unit == "bytes" and x.value
                  and x.sentence != c.sentence]
        if before and before[-1].value >= 1e8:
            sizes = [before[-1]]
        else:
            # (a size the ledger files under no kind, said to open the sentence before: "20 GB ≈ 18.6 GiB, ~1.8e7 records")
            text = ctx.texts[c.turn] if ctx.texts else ""
            at_s = text.find(c.sentence)
            prev = [m for m in find_mentions(text[max(0, at_s - 240):at_s], ctx.v) if m.dim == "bytes" and m.value] \
                if at_s > 0 else []
            if not prev or max(m.value for m in prev) < 1e8:
                return None
            sizes = [max(prev, key=lambda m: m.value)]
    else:
        if at <= 0 or not 0 <= pos - (at + len(speed.span)) <= 30 or any(ch.isdigit() for ch in c.sentence[at + len(speed.span):pos]):
            return None  # the time right after the speed, nothing counted in between
        said = [m for m in find_mentions(c.sentence[:at], ctx.v) if m.value]
        # ... and the size right before it: "20 GB at 200 MB/s", "reading 20 GB of log at 2 GB/s"
        sizes = said[-1:] if said and said[-1].dim == "bytes" and said[-1].value >= 1e8 else []
        if not sizes or not _READ_AT_SPEED.fullmatch(c.sentence, sizes[0].end, at):
            return None
        read_alone = bool(_READ_IS.fullmatch(c.sentence, at + len(speed.span), pos))
    floor_s = sizes[0].value / speed.value
    trace = [f"{say.nbytes(sizes[0].value)} / {say.nbytes(speed.value)} a second = {floor_s:,.1f} s at least"]
    # the read's time by name: "so 20 GB is 40 seconds of reading" leaves nothing else in it
    named_read = _OF_READING.match(c.sentence, pos + len(c.span)) is not None
    if read_alone and c.value > 4 * floor_s or named_read and c.value > 1.6 * floor_s:
        # the read's own time, said right after its size and speed ("A 20 GB log read sequentially at ~1 GB/s
        # is about 200 seconds"): an order of magnitude off, whatever applying the records adds after
        return _check("wrong", "recovery_time", floor_s, c.unit, c,
                      f"Reading {say.nbytes(sizes[0].value)} at {say.nbytes(speed.value)} a second takes about "
                      f"{floor_s:,.0f} seconds, not {c.value:g}.", [trace[0].replace(" at least", "")])
    if c.value * 1.5 >= floor_s:
        return None  # at least the read, maybe plus applying it: not judged further
    return _check("wrong", "recovery_time", floor_s, c.unit, c,
                  f"Reading {say.nbytes(sizes[0].value)} at {say.nbytes(speed.value)} a second takes at least about "
                  f"{floor_s:,.0f} seconds, not {c.value:g}.", trace)


# the words between a figure and what it gives: "so", "that's", "=", "→", "which is", "means", "gives"
_GIVES = r"(?:\bso\b|that.s|which\s+is|=|→|->|≈|\bmeans\b|\bgives\b)"
# "... is maybe a million a second on one thread, so replay is about 2 seconds": the rate, then the time it gives
_RATE_TO_TIME = re.compile(r"[^.;!?\d]{0,40}?" + _GIVES + r"[^.;!?\d]{0,30}$", re.I)
_RECORD_RATES = ("request_rate_rps", "write_rate", "items_per_s")


def _replay_by_records(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """A replay time said right after the rate records are applied at, with the log's record count
    worked out before it in the same answer ("20 GB of 1 KB records is about 20 million records.
    Inserting into a hash map is maybe a million a second, so replay is about 2 seconds"): it cannot
    be shorter than the records over the rate."""
    rate = ctx.said_before(i, _RECORD_RATES)
    if rate is None:
        return None
    at, pos = c.sentence.find(rate.span), _pos(c)
    if at < 0 or pos <= at or not _RATE_TO_TIME.search(c.sentence[at + len(rate.span):pos]):
        return None
    counts = [x for x in ctx.claims[:i] if x.turn == c.turn and x.kind == "record_count" and x.value]
    if not counts:
        return None
    floor_s = counts[-1].value / rate.value
    if c.value * 1.5 >= floor_s:
        return None  # at least the records at that rate: not judged further
    trace = [f"{counts[-1].value:,.0f} records / {rate.value:,.0f} a second = {floor_s:,.1f} s at least"]
    return _check("wrong", "recovery_time", floor_s, c.unit, c,
                  f"Applying {counts[-1].value:,.0f} records at {rate.value:,.0f} a second takes at least about "
                  f"{floor_s:,.0f} seconds, not {c.value:g}.", trace)


# "50,000 scores a second each at batch 256, so that's 12 L4s": one GPU's rate, then the count it gives
_RATE_TO_GPUS = re.compile(r"\s*(?:each|per\s+(?:gpu|card|replica|l4|t4|a10g?|a100|h100))\b[^.;!?]{0,30}?"
                           + _GIVES + r",?(?:\s+(?:that.s|we\s+need|you\s+need))?"
                           r"\s*(?:(?:about|roughly|around|only|just)\s+|~)*", re.I)


def check_gpus_from_rate(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """GPUs worked out from the demand and one GPU's rate ("6 million scores a second ... our L4s do
    50,000 a second each, so that's 12 L4s"): the demand over the rate (rounding up, not a tenth)."""
    per = _drawn_from(c, ctx, i, "items_per_s", _RATE_TO_GPUS)
    if per is None:
        return None
    demand = [ctx.claims[j] for j in ctx.by_kind.get("items_per_s", []) if j < i and ctx.claims[j].value
              and ctx.claims[j].value >= 2 * per.value and not ctx.claims[j].negated and ctx.claims[j].turn <= c.turn]
    if not demand:
        return None
    d = max(demand, key=lambda x: x.value)  # the whole demand, not another GPU's rate said on the way ("~3.3M per L4")
    expected = d.value / per.value
    step = f"{say.count(d.value)} a second / {say.count(per.value)} a second per GPU = {say.count(expected)} GPUs"
    # rounding up, and a little headroom said in the same breath, are not slips; a tenth of the count is
    if expected * (1 - ctx.v.physics["tolerance"]) <= c.value <= expected * 2:
        return _check("ok", "gpus_from_rate", expected, c.unit, c,
                      f"Right: {say.count(d.value)} a second at {say.count(per.value)} per GPU.", [step])
    check = _check("wrong", "gpus_from_rate", expected, c.unit, c,
                   f"{say.count(d.value)} a second at {say.count(per.value)} per GPU needs about {say.count(expected)} "
                   f"GPUs, not {say.count(c.value)}.", [step])
    check.ratio = round(c.value / expected, 3)
    return check


# Little's law for a repair pipeline: "10 a day ... with a 5-day repair turnaround, that's about 50 GPUs in repair"
_FAILURES_PER_PERIOD = re.compile(r"\s*(?:(?:sick|bad|broken|failed|failing|faulty|unhealthy|dead|hard|soft)\s+)?"
                                  r"(?:(?:gpus?|hosts?|nodes?|cards?|machines?|failures?|repairs?|suspects?|faults?|incidents?|tickets?|"
                                  r"of\s+them)\s+)?(?:a|per|each|every|/)\s*"
                                  r"(day|week|wk|month|year)\b", re.I)
_SHARE_OF = re.compile(r"\b(?:the\s+other\s+|about\s+|roughly\s+|around\s+)?(half|a\s+third|a\s+quarter|two\s+thirds)\b(?!\s+(?:a|an|of\s+an?)\s+(?:day|hour|week))", re.I)
_SHARE_WORDS = {"half": 0.5, "third": 1 / 3, "quarter": 0.25, "thirds": 2 / 3}
_PERIOD_DAYS = {"day": 1.0, "week": 7.0, "wk": 7.0, "month": 30.0, "year": 365.0}
_IN_REPAIR = re.compile(r"[^.;!?\d]{0,24}?\b(?:in\s+(?:repair|the\s+shop|the\s+(?:repair\s+)?pipeline|rma|flight)|out\s+of\s+service|"
                        # "each drains its 8-GPU host for about 5 days, so ~240 GPUs sidelined"
                        r"sidelined|(?:taken\s+)?offline|drained|parked|"
                        r"being\s+repaired|at\s+any\s+(?:time|moment|one\s+time|given\s+time)|"
                        # "about a hundred GPUs are out at the vendor": away for the RMA
                        r"(?:out\s+)?(?:at|with)\s+the\s+(?:vendor|oem|manufacturer)\b)", re.I)
_DAY_MS = _PERIOD_MS["day"]
_STEADY_STATE = re.compile(r"\b(?:steady[- ]state|little.s\s+law|at\s+any\s+(?:one\s+|given\s+)?(?:time|moment)|on\s+average)\b", re.I)
# ... or said before it, the count its result: "in repair ≈ 50 × 10 = 500 GPUs"
_REPAIR_LEAD = re.compile(r"\b(?:in\s+repair|in\s+the\s+(?:repair\s+)?(?:pipeline|shop)|out\s+of\s+service)\s*(?:≈|=|~|:|is|are|would\s+be)?"
                          r"[^.;!?a-z]{0,30}$", re.I)
_SUM_SIGN = re.compile(r"\+|\bplus\b", re.I)
_HOST_UNIT = re.compile(r"\b(?:hosts?|nodes?|servers?|machines?)\b", re.I)
# "one interruption per 2,000 GPUs per day": the population a rate is of, not the rate
_OF_POPULATION = re.compile(r"\b(?:per|in|every|out\s+of|of)\s+(?:about\s+|~)?$", re.I)
_REVISED = re.compile(r"\b(?:call\s+it|make\s+it|say|round\s+(?:it\s+)?(?:up\s+)?to)\s+(?:about\s+|~)?$", re.I)
_TURNAROUND_WORD = re.compile(r"\b(?:turn-?around|repairs?|rma|in\s+the\s+shop|door\s+to\s+door|end\s+to\s+end|swap|drains?)\b", re.I)
_WHOLE_HOST = re.compile(r"\b(?:whole|entire)\s+(?:[\w-]+\s+)?(?:host|node|server|board|box|machine)s?\b|\b(?:host|node)[- ]granularity|"
                         r"\b(?:takes?|drains?|draining|pulls?|pull)\s+(?:down\s+|out\s+)?(?:the|its|a)\s+(?:[\w-]+\s+)?(?:host|node)\b|"
                         r"\b(?:8|eight)\s+gpus?\s+(?:each|per\s+(?:fault|failure|incident))|(?:\bx|×|\btimes)\s+(?:8|eight)\b", re.I)


def check_in_repair(c: Claim, ctx: Ctx, i: int) -> Check | None:
    """GPUs in repair at once, worked out from a failure rate said before it in the turn and a repair time
    said in its sentence ("100 GPUs a month ... with a 7-day turnaround that's about 700 in the shop"): the
    rate a day times the days (Little's law), a host's eight where whole hosts are drained."""
    from interviewer.claims.numbers import find_mentions

    if c.value is None or c.negated or c.hypothetical or c.speaker != "candidate":
        return None
    text = ctx.texts[c.turn] if ctx.texts and c.turn < len(ctx.texts) else ""
    start = text.find(c.sentence)  # where the count's sentence begins in its turn
    pos = start + _pos(c) if start >= 0 and c.span in c.sentence else -1
    if pos < 0 or not (_IN_REPAIR.match(text, pos + len(c.span)) or _REPAIR_LEAD.search(c.sentence, 0, max(_pos(c), 0))):
        return None
    rates: list[tuple[float, str, int, int]] = []  # (a day, as said, where, which rate it restates)
    period = 1.0
    days: list[float] = []
    carried: list[float] = []  # repair times said in the sentence before the count's
    before = max(text.rfind(". ", 0, max(start - 2, 0)) + 2, 0) if start > 0 else 0
    for m in find_mentions(text[:pos], ctx.v):
        if not m.value:
            continue
        pm = _FAILURES_PER_PERIOD.match(text, m.end)
        if pm and m.dim not in ("time", "percent", "bytes", "bytes_rate") \
                and not _OF_POPULATION.search(text, max(0, m.start - 12), m.start):
            period = _PERIOD_DAYS[pm.group(1).lower()]
            rates.append((m.value / period, text[m.start:pm.end()].strip(), m.start, m.start))
        elif rates and m.dim != "time" and _REVISED.search(text, max(0, m.start - 12), m.start):
            # "about 3 a day ... call it 5": the same period
            rates.append((m.value / period, text[m.start:m.end].strip(), m.start, rates[-1][3]))
        elif m.dim == "time" and m.value >= _DAY_MS / 2 and m.start >= start:
            days.append(m.value / _DAY_MS)  # any of the stages or their total ("1 day ... 5 days ..., 7 in all")
        elif m.dim == "time" and m.value >= _DAY_MS / 2 and m.start >= before:
            carried.append(m.value / _DAY_MS)
    # the repair time said in the count's own sentence; a sum of flows ("20/wk x 1 day + 10/wk x 14 days")
    # is a calculation, checked as one
    lead = c.sentence[:_pos(c)]
    if not days and carried and _STEADY_STATE.search(c.sentence) and _TURNAROUND_WORD.search(text, before, start):
        # ... or in the sentence before, the count drawn from it: "A vendor repair takes about 5 days round trip.
        # So at steady state we have 500 GPUs in the repair pipeline", "Turnaround ... is ~5 days. Therefore: roughly
        # five hundred GPUs sit in the repair pipeline at any moment"
        days = carried
    elif not _TURNAROUND_WORD.search(lead):
        return None
    if not rates or not days or _SUM_SIGN.search(lead):
        return None
    # the rate said in the count's own sentence, else the last one said before it ("... 300 a week. With a
    # 5-day turnaround, that's 1,500"), with its restatement ("about 3 a day ... call it 5")
    own = [r for r in rates if r[2] >= start]
    named = own or [r for r in rates if r[3] == rates[-1][3]]
    # a host drained for one bad GPU takes its eight out of service ("7 a day x 8 x 5 days ≈ 270 GPUs")
    # (or counted in hosts: "~6 nodes a day ... ~19 nodes, ~150 GPUs")
    hosts = (1.0, 8.0) if _WHOLE_HOST.search(text) or any(_HOST_UNIT.search(r[1]) for r in named) else (1.0,)

    # a share of the failures that goes to repair, said after the rate: "Roughly half clear with a reset ...; the other
    # half are real hardware and go to RMA ... three weeks turnaround. So ... around seventy GPUs"
    first_rate = min(r[2] for r in named)
    shares = (1.0, *{_SHARE_WORDS[w.group(1).lower().split()[-1]] for w in _SHARE_OF.finditer(text, first_rate, pos)})

    def closest(rs):
        """(out at once, the rate as said, a day, days, GPUs a host): the reading of `rs` nearest the count."""
        return min(((r * d * h * f, said, r * f, d, h) for r, said, _at, _of in rs for d in days for h in hosts
                    for f in shares),
                   key=lambda x: abs(math.log(c.value / x[0])))

    def near(out: float) -> bool:
        return 1 / 1.5 <= c.value / out <= 1.5

    best, said, per_day, d, h = closest(named)
    if not own and not near(best):
        # with no rate in its own sentence, any of several said before it may be the one it is drawn from: "hard: ~50 a
        # month, soft: ~200 a month, together ~250, about 8 a day ... Hard repairs took about 6 days, so ~10 GPUs in
        # hardware repair" (not past the one it names: "2 a day x 8 GPUs x 3 days is about 480")
        best, said, per_day, d, h = closest(rates)
    host = " x 8 GPUs a host" if h > 1 else ""
    rate = said if re.search(r"\bday\b", said, re.I) else f"{said} (about {say.count(per_day)} a day)"
    step = f"{rate} x {d:g} days in repair{host} = {say.count(best)} out at once"
    if near(best):
        return _check("ok", "in_repair", best, c.unit, c, f"Right: {step}.", [step])
    return _check("wrong", "in_repair", best, c.unit, c,
                  f"At {rate} and {d:g} days each{host}, about {say.count(best)} are out at once, not "
                  f"{say.count(c.value)} (Little's law: the rate a day times the days in repair).", [step])


def check_fleet_count(c: Claim, ctx: Ctx, i: int) -> Check | None:
    return (check_share_count(c, ctx, i) or check_host_gpus(c, ctx, i) or check_gpus_from_rate(c, ctx, i)
            or check_in_repair(c, ctx, i))


CHECKS = {
    "arithmetic": check_calculation,
    "items_per_s": check_items_rate,
    "recovery_time_s": check_recovery_time,
    "record_count": check_record_count,
    "host_count": check_host_count,
    "gpu_count": check_fleet_count,
    "fleet_share": check_fleet_share,
    "kv_bytes_batch": check_batch_kv,
    "kv_shrink_factor": check_kv_shrink,
    "period_rate": check_restated_rate,
    "timeout_s": check_timeout,
    "fsync_latency_ms": check_fsync_latency,
    "write_rate": check_fsync_rate,
    "fsync_rate": check_fsyncs,
    "writes_per_fsync": check_group_size,
    "write_bandwidth": check_write_bandwidth,
    "other_bytes": check_log_size,
    "request_rate_rps": check_fsync_rate,
    "weights_bytes": check_weights,
    "fits_on_gpus": check_fit,
    "tensor_parallel": check_fit,
    "kv_bytes_per_token": check_kv_per_token,
    "kv_bytes_per_sequence": check_kv_per_sequence,
    "free_kv_bytes": check_free,
    "usable_memory_bytes": check_usable,
    "gpu_memory_bytes": check_gpu_memory,
    "memory_bandwidth": check_bandwidth,
    "flops": check_peak_flops,
    "kv_cache_tokens": check_cache_tokens,
    "concurrent_sequences": check_sequences,
    "max_num_seqs": check_max_num_seqs,
    "token_budget": check_token_budget,
    "ttft_p99_ms": check_ttft,
    "ttft_p95_ms": check_ttft,
    "ttft_p50_ms": check_ttft,
    "ttft_ms": check_ttft,
    "ttft_mean_ms": check_ttft,
    "prefill_time_ms": check_prefill,
    "tokens_per_s": check_single_stream_rate,
    "tpot_ms": check_decode,
    "tpot_p50_ms": check_decode,
    "tpot_p95_ms": check_decode,
    "tpot_p99_ms": check_decode,
    "tpot_mean_ms": check_decode,
    "decode_step_ms": check_decode,
    "layers": check_shape,
    "kv_heads": check_shape,
    "attention_heads": check_shape,
    "head_dim": check_shape,
    "hidden_size": check_shape,
    "params": check_params,
    "fleet_in_flight": check_in_flight,
}


_COMPARE_BEFORE = guarded(re.compile(r"(?:\b(?:fewer|more|less|greater|higher|lower)\s+than|\b(?:above|below|over|under|exceeds?|"
                                     r"passes|past|crosses|drops\s+(?:below|under)|goes\s+(?:above|over|below))|[<>]=?)\s*(?:~|about\s+)?$", re.I))
_CONDITION = guarded(re.compile(r"\b(?:if|when|while|whenever|unless|once|alert|alerts|page|pages|alarm)\b", re.I))


# a slip named by the speaker, the working then put right ("I forgot the K and V", "I dropped a zero"); the cue
# scan reads a retraction followed by one as a figure fixed, not a rule taken back (evidence._FIGURE_FIX)
SLIP_NAMED = r"forgot|dropped|missed|left\s+out|mixed\s+up|double[- ]counted"
# "... is two thousand a month... no, sorry, two hundred", "300 L4s... wait, no, that's 30"
# (read on the filler-blanked text the ledger and the cue scan share: "512 KB, um, no, 256" is "512 KB     no, 256")
# (not "no" as a determiner: "60 to 100 GPUs that no eight-GPU job can use")
_CORRECTION = re.compile(r"[^.!?\n\d]{0,24}?(?:\.\.\.|…|—|–|\s-|,|;|\.)?\s*(?:(?:oh|ah)\b[\s,.!]*)?(?<!\bthat\s)(?<!\bwhich\s)(?<!\bwho\s)(?:no|wait|sorry|oops|scratch\s+that|i\s+mean|"
                         r"correction|make\s+that)\b[\s,.!:—–-]*(?:(?:no|wait|sorry|scratch\s+that|that.s|it.s|i\s+mean|actually|rather|"
                         r"more\s+like|make\s+that)\b[\s,.!:—–-]*){0,3}", re.I)  # ("55 GB/s -> hmm, no: 55 MB/s")


# the slip's reason, then the right figure: "sorry, that's GPU-days; it's 50 GPUs"
_REDONE_AFTER = re.compile(r"[^.!?\n\d]{0,40}?[;,:]\s*(?:it.s|that.s|it\s+is|so\s+it.s|so)\s+(?:about\s+|roughly\s+|~)?\d", re.I)
# the right figure said straight after a dash, then the slip owned: "about 200 TB an hour - 200 GB, sorry, 198 GB"
# ... or the unit put right alone, then the figure again: "13 billion times 2 bytes, 26 MB - GB, 26 GB"
_DASH_REDO = re.compile(r"[^.!?\n\d]{0,24}?(?:—|–|\s-)\s*(?:~?\d[\d,.]*\s*[a-z/]{0,6}\s*,?\s*(?:sorry|no|i\s+mean|oops|wait)\b"
                        r"|(?:[kmgt]i?b|bytes?|gigs?)\s*,\s*~?\d)", re.I)


def _corrected(text: str, end: int, v: Vocab) -> bool:
    """Is the figure ending at `end` taken back at once, with another figure in its place? (`text`: the
    turn's text with its fillers blanked)"""
    if _DASH_REDO.match(text, end):
        return True  # "about 200 TB an hour - 200 GB, sorry, 198 GB"
    m = _CORRECTION.match(text, end)
    if not m:
        return False
    rest = text[m.end():m.end() + 30]
    if _SELF_CRITIQUE.match(text, m.end()):
        return True  # "256 KiB - no, that's only the keys; times two for K and V, so 512 KiB"
    if _REDONE_AFTER.match(text, m.end()):
        return True  # "10 x 5 = 500 - sorry, that's GPU-days; it's 50 GPUs in the pipeline"
    return bool(rest[:1].isdigit() or rest.startswith("~") or v.number_word_re.match(rest))


# the figure judged wrong by the speaker, with the right one said after it in the same sentence
# ... or the slip named: "scratch that, I forgot the K and V, it's twice that, 320 KB", "no, I dropped a zero, 123 seconds"
_SELF_CRITIQUE = re.compile(r"(?:(?:(?:that.s|that\s+(?:was|is)|it.s)\s+)?(?:[\w-]+\s+)?(?:only|just|wrong|not\s+right|off|missing)|(?:i\s+)?(?:"
                            + SLIP_NAMED + r"|slipped))\b[^.!?\n]{0,80}?\d", re.I)


def _threshold(c: Claim) -> bool:
    """A figure that is the threshold of a condition ("alert if fewer than 30 are running")."""
    pos = _pos(c)
    if pos < 0:
        return False
    before = c.sentence[:pos]
    return bool(_COMPARE_BEFORE.search(before[-40:])) and bool(_CONDITION.search(before))


def check_all(ctx: Ctx) -> None:
    """Set `check` on every candidate claim that physics (or the candidate's own figures) can check."""
    first: dict[tuple[str, float], Claim] = {}
    blanked: dict[int, str] = {}  # each turn's filler-blanked text, made once for all its claims
    redone: list[int] = []  # calculations taken back at once: their new result is checked below
    for i, c in enumerate(ctx.claims):
        if c.speaker != "candidate" or c.value is None or c.negated or c.value <= 0:
            continue
        fn = CHECKS.get(c.kind)
        if fn is None:
            continue
        if c.kind in _FACT_KINDS and (c.hypothetical or (ctx.texts is not None and _OTHER_MODEL.search(
                ctx.texts[c.turn], max(0, c.start - 60), c.start))):
            continue  # "if it had 8 KV heads", "what a modern 13B with 8 KV heads would cost": another model
        if _threshold(c):
            continue  # "alert if fewer than 30 requests are running": a threshold, not a claim
        if ctx.texts is not None and c.turn not in blanked:
            blanked[c.turn] = blank_fillers(ctx.texts[c.turn])
        if ctx.texts is not None and _corrected(blanked[c.turn], c.end, ctx.v):
            c.check = Check(status="unchecked", rule="corrected",
                            explanation="Corrected by you right after; the figure you settled on is the one checked.")
            if c.kind == "arithmetic":
                redone.append(i)
            continue
        said = first.get((c.kind, c.value))
        if said is not None and said.turn != c.turn and said.check is not None and not said.hypothetical:
            # the same figure said again ("the 128 cap") refers back to the first; it was checked there
            c.check = said.check
            continue
        if not c.hypothetical:
            first.setdefault((c.kind, c.value), c)
        try:
            c.check = fn(c, ctx, i)
        except (ZeroDivisionError, ValueError, KeyError) as exc:  # pragma: no cover - defensive
            c.check = Check(status="unchecked", rule=c.kind, explanation="", trace=[f"check failed: {exc}"])
    for i in reversed(redone):
        _check_redone(ctx, i, blanked[ctx.claims[i].turn])
    _corrected_later(ctx)


# a correction that changes the factors, not the result: "I forgot the K and V", "times 2", "per layer"
_FACTOR_CHANGED = re.compile(r"\b(?:forgot|missed|left\s+out|omitted|times|twice|double[ds]?|doubling|both|per\s+layer|layers?|heads?|keys|values|total|same\s+size|(?:just|only)\s+the)\b"
                             r"|\bk\s+and\s+v\b|\bx\s*\d|×|\*\s*\d|\bdropped\s+(?!a\s+(?:zero|decimal|digit))", re.I)


_OPERATOR_NEXT = re.compile(r"\s*(?:[x×*/÷]|times\b|over\b|divided\s+by\b|multiplied\s+by\b)\s*~?\d", re.I)


_NAMES_THE_SLIP = re.compile(r"\s*(?:is|are|was|were)\s+(?:the|my|a|an)\b", re.I)


def _check_redone(ctx: Ctx, i: int, text: str) -> None:
    """A calculation taken back at once for another result ("4,096 × 40 ms is 163 seconds - wait, no, that's
    16.4 seconds, I slipped a decimal"): the result settled on is a claim of its own, checked against the
    same factors (here 163.84 s: the slip is in the correction)."""
    from interviewer.claims.numbers import find_mentions

    c = ctx.claims[i]
    m = _CORRECTION.match(text, c.end)
    if not c.formula or (m is None and not _DASH_REDO.match(text, c.end)):
        return
    start = m.end() if m is not None else c.end
    # the figure settled on, not a word of the slip named ("I forgot the eight again, so it's 1,600")
    new = next((x for x in find_mentions(text[start:start + 60], ctx.v) if text[start + x.start] in "0123456789~"), None)
    said = [x for x in find_mentions(c.span, ctx.v) if x.value == c.value][-1:] or find_mentions(c.span, ctx.v)[-1:]
    if new is None or not new.value or not said:
        return
    if _OPERATOR_NEXT.match(text, start + new.end):
        return  # "- hmm, no: 4,096 x 0.05 is 204.8 s": the working redone in full, a calculation of its own
    if _FACTOR_CHANGED.search(text, c.end, start + new.start):
        return  # "- no, I forgot K and V, times 2 is 524,288": other factors, not the same ones redone
    if _NAMES_THE_SLIP.match(text, start + new.end):
        return  # "- no wait, 64 is the query heads": the factor that slipped, named, not a result
    value = new.value
    if not new.unit and said[-1].unit and said[-1].raw:
        value = new.raw * said[-1].value / said[-1].raw  # "163 seconds - no, 16.4": in the unit first said
    elif said[-1].unit and new.dim != said[-1].dim:
        return
    a, b = start + new.start, start + new.end
    head = c.span[:formula_end(c)]
    check = check_calculation(c.model_copy(update={"value": value, "span": f"{head} = {text[a:b]}"}), ctx, i)
    if check is None:
        return
    ctx.claims.insert(i + 1, construct(
        Claim, kind="arithmetic", value=value, unit=c.unit, subject=c.subject, turn=c.turn,
        span=ctx.texts[c.turn][a:b] if ctx.texts is not None else text[a:b], start=a, end=b, sentence=c.sentence,
        speaker=c.speaker, source="formula", formula=list(c.formula), check=check))
    ctx.sentence_of.insert(i + 1, ctx.sentence_of[i])


def _corrected_later(ctx: Ctx) -> None:
    """A wrong figure put right in the candidate's next answer (the interviewer pushed back, or the
    candidate caught it: "8%" then "80 of 2,000 is 4%, sorry") stands corrected: the figure they
    settled on is the one that counts, as the report says."""
    slips: set[tuple[int, str]] = set()  # (turn, sentence) of each slip put right
    mentions: dict[int, list] = {}  # each owning answer's figures, read once
    for i, c in enumerate(ctx.claims):
        chk = c.check
        if c.speaker != "candidate" or chk is None or chk.status != "wrong" or not chk.expected:
            continue
        fix = None
        for d in ctx.claims[i + 1:]:
            if d.turn > c.turn + 2:
                break
            # ... by a figure of its kind, or by the sum redone ("No, 4%. 80 / 2,000 = 0.04"), checked right or
            # (where nothing checks it) said as the correction it is ("that's 4%, not 8, sorry, I divided wrong")
            if d.speaker != "candidate" or d.kind not in (c.kind, "arithmetic") or d.value is None \
                    or (d.turn == c.turn and d.start <= c.end):
                continue
            if d.kind != "arithmetic" and d.subject.weights_dtype != c.subject.weights_dtype \
                    and d.subject.weights_dtype is not None:
                continue  # the figure for another precision ("Go INT4 ... that's like 27 sequences") puts nothing right
            said_right = d.check is not None and d.check.status == "ok"
            owned = d.check is None and _OWNED_SLIP.search(ctx.texts[d.turn] if ctx.texts is not None else d.sentence) is not None
            if (said_right or owned) and abs(d.value - chk.expected) <= 0.25 * abs(chk.expected):
                fix = repr(d.span)
                break
        if fix is None and ctx.texts is not None and c.turn + 2 < len(ctx.texts) \
                and (c.kind == "arithmetic" or c.unit == "bytes") and _OWNED_SLIP.search(ctx.texts[c.turn + 2]):
            # ... or a sum's right result said back as a plain number ("Oh - that's 163,840 ms, so about 164 seconds"),
            # or a size put right in words another kind reads ("Two - my mistake. So 14 GB per token"); only an answer
            # that owns a slip is read for it (its figures read once for every slip it may put right)
            text = ctx.texts[c.turn + 2]
            if c.turn + 2 not in mentions:
                from interviewer.claims.numbers import find_mentions

                mentions[c.turn + 2] = find_mentions(text, ctx.v)
            if c.kind == "arithmetic":
                redo = next((m for m in mentions[c.turn + 2]
                             if m.raw and abs(m.raw - chk.expected) <= 0.02 * abs(chk.expected)), None)
            else:
                redo = next((m for m in mentions[c.turn + 2] if m.dim == "bytes"
                             and abs(m.value - chk.expected) <= 0.1 * abs(chk.expected)), None)
            if redo is not None:
                fix = repr(text[redo.start:redo.end])
        if fix is not None:
            c.check = Check(status="unchecked", rule="corrected",
                            explanation=f"Put right by you later ({fix}); the figure you settled on is the one checked.")
            slips.add((c.turn, c.sentence))
    # ... and what the slip gave in its own sentence with it ("52 MB/s x 3,600 s ≈ 19 GB an hour, so ~450 GB a day")
    for c in ctx.claims:
        if c.check is not None and c.check.status in ("wrong", "impossible") and (c.turn, c.sentence) in slips:
            c.check = Check(status="unchecked", rule="corrected",
                            explanation="Put right by you later, with the slip it rested on; the figure you settled on "
                                        "is the one checked.")


# a slip owned in so many words: "not 8, sorry", "I divided wrong", "I dropped a zero", "my mistake"
_OWNED_SLIP = re.compile(r"\bnot\s+~?\d[\d,.]*\b|\bsorry\b|\bi\s+(?:divided|multiplied|added|dropped|forgot|missed|mixed|slipped)"
                         r"|\bmy\s+(?:mistake|bad|error)\b|\bi\s+was\s+(?:off|wrong)\b|\boops\b", re.I)
