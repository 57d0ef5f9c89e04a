"""What a figure is about: the model, GPU, dtypes and tensor-parallel degree in play.

The subject is carried across turns of either speaker: the interviewer's opening "Llama-3-70B in
FP16 on H100 80GB" makes a later "80 gig card" an H100 80GB and "the 70B" Llama-3-70B. A sentence
that names another model or GPU uses it for its own figures; it becomes the carried subject only
when the sentence is neither hypothetical ("if we had H200s") nor a comparison ("for comparison,
Llama-2-7B ...").
"""
from __future__ import annotations

import re

from interviewer import capacity
from interviewer.claims.attach import Found
from interviewer.claims.models import Subject, copied
from interviewer.claims.segments import Segment
from interviewer.claims.vocab import Vocab
from interviewer.quickre import folds, may_match

# (and the layout a figure is set beside: "the same ~68 as the FP16 four-GPU layout")
# a GPU count said as an amount of work, not a group of cards: "~11 GPUs' worth", "3 cards' worth of prefill"
_WORTH = re.compile(r"\s*(?:[a-z0-9-]+\s+){0,2}?(?:gpus?|cards?|h100s?|a100s?|l4s?)?\s*[\'’]?s?\s*worth\b", re.I)
# the per-GPU figure added up over the host, not a replica's GPUs: "~26 sequences per GPU, and eight GPUs give 208 for
# the whole host"
_HOST_TOTAL = re.compile(r"\s*(?:gives?|makes?|means?|=|→|->)\s+(?:about\s+|~)?\d[\d,.]*\s*(?:sequences?\s+|seqs?\s+)?"
                         r"(?:for\s+(?:the\s+)?(?:whole\s+)?(?:host|node|box|server)|in\s+total|total|host[- ]wide|"
                         r"across\s+(?:the\s+)?(?:host|node|box))\b", re.I)
_BASELINE = re.compile(r"\b(?:(?:vs\.?|versus|against|compared\s+(?:to|with)|than|relative\s+to)\s+(?:the\s+)?|as\s+the\s+)$", re.I)
_WEIGHED = re.compile(r"\s+(?:would|could|might)\b", re.I)
_CHOSEN = re.compile(r"\b(?:pick|use|run|go\s+with|choose|settle\s+on|deploy|prefer)\s+(?:a\s+|an\s+)?$", re.I)
_SIZED = re.compile(r"\d+\s*(?:gb|gib|g)\b", re.I)  # "A100 80GB" names its memory; a bare "A100" does not
_SIZE_MATCH = 0.12  # "the 70B" is Llama-3-70B (70.55B) when within 12%


def _shape_for_size(size_b: float) -> str | None:
    """A preset standing in for "a 13B model": only when every preset of about that size has the
    same attention shape (layers, KV heads, head dim), so the KV arithmetic does not depend on it."""
    models = capacity.load_presets().models.values()
    near = [m for m in models if abs(m.params_b - size_b) <= _SIZE_MATCH * size_b]
    shapes = {(m.layers, m.kv_heads, m.head_dim) for m in near}
    return near[0].id if len(shapes) == 1 else None


def _nearest(items: list[tuple[str, int, int]], pos: int, text: str | None = None) -> str | None:
    """The mention said last before `pos`, else the first after it - unless a clause break comes
    between ("40 layers, and I was about to say 8 KV heads, but that's the 70B")."""
    before = [p for p, s, _e in items if s <= pos]
    if before:
        return before[-1]
    if not items:
        return None
    if text is not None and _later_clause(text, pos, items[0][1]):
        return None
    return items[0][0]


def _nearest_size(said: dict, pos: int) -> float | None:
    """The model size said nearest the figure; one said after it across a clause break is another
    model's ("40 layers, ..., but that's the 70B; the 13B is ...")."""
    size, at = min(said["sizes"], key=lambda s: abs(s[1] - pos))
    if at > pos and said.get("text") is not None and _later_clause(said["text"], pos, at):
        before = [s for s in said["sizes"] if s[1] <= pos]
        return before[-1][0] if before else None
    return size


# "eight A100s, each holding its own copy of Qwen2.5-7B": a copy per GPU, not one replica across them (nor "its own
# FP16 copy")
_OWN_COPY = re.compile(r"\beach\s+(?:holding|with|running|serving|has|holds|keeps|keeping)\s+(?:its|their)\s+own\s+"
                       r"(?:[\w-]+\s+){0,2}?(?:copy|replica|instance)|\bone\s+(?:copy|replica)\s+(?:per|on\s+each)\s+(?:gpu|card)", re.I)
_LATER_CLAUSE = re.compile(r",\s*(?:and|but)\b|;", re.I)
_THATS_THE = re.compile(r",\s*but\s+that.s\s+(?:for\s+)?(?:the|a)\s+$", re.I)


def _later_clause(text: str, pos: int, at: int) -> bool:
    """Is a mention at `at` in a later clause than a figure at `pos`? "8 KV heads, but that's the 70B"
    names the figure's own model; "40 layers, and I was about to say ..., but that's the 70B" does not."""
    breaks = list(_LATER_CLAUSE.finditer(text, pos, at))
    return bool(breaks) and not (len(breaks) == 1 and _THATS_THE.match(text, breaks[0].start(), at))


def _dtypes(seg: Segment, v: Vocab) -> tuple[str | None, str | None]:
    """(weights dtype, kv dtype) said in the segment, or None."""
    text = seg.text
    if not may_match(v.literals_needed["dtype"], text.lower(), folds(text)) or not v.dtype_re.search(text):
        return None, None
    kv = None
    kv_spans = []
    for p in v.kv_dtype_res:
        m = p.search(text)
        if m:
            d = v.dtype_re.search(m.group(0))
            if d:
                kv = v.dtype_names.get(" ".join(d.group(0).lower().split()))
                kv_spans.append((m.start() + d.start(), m.start() + d.end()))
                break
    weights = None
    for p in v.weights_dtype_res:
        for m in p.finditer(text):
            d = v.dtype_re.search(m.group(0))
            if not d:
                continue
            s = m.start() + d.start()
            if any(a <= s < b for a, b in kv_spans) or _BASELINE.search(text, max(0, s - 16), s):
                continue  # (nor the baseline a result is compared with: "benchmarks vs FP16")
            weights = v.dtype_names.get(" ".join(d.group(0).lower().split()))
            break
        if weights:
            break
    if weights is None and kv is not None and _BOTH_DTYPES.search(text):
        weights = kv  # "So I'd go FP8, weights and KV both": one dtype for the two
    return weights, kv


_BOTH_DTYPES = re.compile(r"\b(?:both\s+(?:the\s+)?)?weights\s+and\s+(?:the\s+)?(?:kv|kv[- ]cache|cache)(?:\s+both)?\b|"
                          r"\b(?:kv|kv[- ]cache|cache)\s+and\s+(?:the\s+)?weights\b", re.I)


_CARD_NOUN = re.compile(r"\s*(?:cards?|gpus?|parts?)\b", re.I)


def _a_card(seg: Segment, end: int) -> bool:
    """Is the memory ending at `end` said of a card ("the 80 GB parts", "80 GB A100s")? (GPU names are
    masked in the segment's text: the segment's own GPU spans say where they are.)"""
    return bool(_CARD_NOUN.match(seg.text, end)) or any(s >= end and not seg.text[end:s].strip() for _p, s, _e in seg.gpus)


def _pooled(mem_gb: float, card_gib: float | None) -> bool:
    """"Two cards is 160 GB", "0.9 x 160 GiB" on TP2 of 80 GB cards: a replica's pooled memory, not
    another card."""
    return bool(card_gib) and any(abs(mem_gb * f - k * card_gib) <= 0.12 * k * card_gib
                                  for k in (2, 4, 8) for f in (1.0, 1e9 / 2**30))


class Tracker:
    """Walks the segments in order, keeping the carried subject."""

    def __init__(self, vocab: Vocab) -> None:
        self.v = vocab
        self.carried = Subject()

    def segment_subject(self, seg: Segment, found: list[Found]) -> dict:
        """What the segment itself says about the subject (each field None when it says nothing)."""
        v = self.v
        out: dict = {"models": list(seg.models), "gpus": list(seg.gpus), "text": seg.text,
                     "gpu_sized": {s for _p, s, e in seg.gpus if _SIZED.search(seg.plain[s:e])}}
        sizes = [(f.value / 1e9, f.start) for f in found if f.kind == "params" and f.value and not f.negated]
        out["sizes"] = sizes
        mems = []
        if may_match(v.literals_needed["gpu_by_memory"], seg.text.lower(), folds(seg.text)):
            for m in v.gpu_by_memory_re.finditer(seg.text):
                mems.append((float(m.group(1)), m.start()))
        out["card_mems"] = set()
        for f in found:
            if f.kind == "gpu_memory_bytes" and f.value and f.scope != "fleet" and f.value < 300e9:
                mems.append((round(f.value / 1e9), f.start))
                if _a_card(seg, f.end):
                    out["card_mems"].add(f.start)  # "the 80 GB parts": one card's memory, never a pool
        out["mems"] = mems
        w, kv = _dtypes(seg, v)
        out["weights_dtype"], out["kv_dtype"] = w, kv
        # (not an alternative weighed and passed over: "I'd use TP4 ... TP8 would shrink the weight stream, but ...")
        tps = [(int(f.value), f.start) for f in found if f.kind == "tensor_parallel" and f.value and not f.negated
               and not _WEIGHED.match(seg.text, f.end)]
        out["tp"] = tps[0][0] if tps else None
        out["tps"] = tps
        # the degree chosen over another weighed beside it: "I'd pick TP=4 rather than TP=2: TP=2 leaves only ~20 GB"
        out["chosen_tp"] = next((t for t, at in tps if _CHOSEN.search(seg.text, max(0, at - 24), at)), None)
        # (not the fleet's count: "... ~76 sequences per GPU and the fleet drops to about 30 GPUs")
        # (nor a compute equivalent: "Prefill alone is ~11 GPUs' worth", "~3 GPUs' worth of decode")
        gpus = [int(f.value) for f in found
                if f.kind in ("tensor_parallel", "gpu_count", "fits_on_gpus") and f.value and not f.negated
                and f.value <= 64 and f.scope != "fleet" and not _WORTH.match(seg.text, f.end)
                and not _HOST_TOTAL.match(seg.text, f.end)]
        if any(f.kind == "replicas" and f.value and f.value > 1 and not f.negated for f in found):
            gpus = []  # "With 20 GPUs we're at 5 replicas": the GPUs are the pool's, not one replica's
        out["gpu_counts"] = gpus
        return out

    def resolve(self, said: dict, pos: int, base: Subject | None = None) -> Subject:
        """The subject for a figure at `pos` in a segment that said `said`, on top of `base`."""
        cur = copied(base or self.carried)
        presets = capacity.load_presets()
        model = _nearest(said["models"], pos, said.get("text"))
        if model:
            if model != cur.model:  # another model: its parallelism and dtypes are its own
                cur.tp = None
                if cur.model is not None:
                    cur.weights_dtype = cur.kv_dtype = None
            cur.model, cur.model_inferred = model, False
            cur.params_b = presets.models[model].params_b
        elif said["sizes"] and (sized := _nearest_size(said, pos)) is not None:
            size = sized
            named = presets.models.get(cur.model) if cur.model and not cur.model_inferred else None
            active = named.active_params_b if named is not None else None
            # "people call Mixtral a 13B model": its active parameters, not another model
            if not (cur.params_b and abs(cur.params_b - size) <= _SIZE_MATCH * cur.params_b) \
                    and not (active and abs(active - size) <= _SIZE_MATCH * active):
                if cur.model is not None or cur.params_b:
                    cur.weights_dtype = cur.kv_dtype = None
                cur.model, cur.params_b, cur.tp = _shape_for_size(size), size, None
                cur.model_inferred = cur.model is not None
        gpu = _nearest(said["gpus"], pos)
        if gpu:
            # another card's memory said after the named GPU and before the figure: "on an 80 GB H100 ... about 60;
            # on my laptop's 16 GB GPU you'd fit the weights and about two"
            named_at = max((st for p_, st, _e in said["gpus"] if st <= pos), default=-1)
            other = [(m, at) for m, at in said["mems"] if named_at < at <= pos and at in said.get("card_mems", ())
                     and abs(m - presets.gpus[gpu].memory_gib) > 0.1 * m]
            if other:
                gpu = None
                cur.gpu, cur.gpu_memory_gib = None, other[-1][0]
        if gpu and cur.gpu and gpu != cur.gpu and gpu.split("-")[0] == cur.gpu.split("-")[0]:
            # a bare "A100" after "A100 80GB" is the same card
            hit = [s for p, s, _e in said["gpus"] if p == gpu]
            if hit and not any(s in said["gpu_sized"] for s in hit):
                gpu = cur.gpu
        if gpu:
            cur.gpu = gpu
            cur.gpu_memory_gib = presets.gpus[gpu].memory_gib
        elif said["mems"]:
            mem, at = min(said["mems"], key=lambda s: abs(s[1] - pos))
            if not (cur.gpu_memory_gib and abs(cur.gpu_memory_gib - mem) <= 0.1 * mem):
                if 8 <= mem <= 300 and (at in said.get("card_mems", ()) or not _pooled(mem, cur.gpu_memory_gib)):
                    cur.gpu, cur.gpu_memory_gib = None, mem
        if said["weights_dtype"]:
            cur.weights_dtype = said["weights_dtype"]
        if said["kv_dtype"]:
            cur.kv_dtype = said["kv_dtype"]
        if said["tp"]:
            # "TP=2 would leave 13 GB, so TP=4: ...": the degree said last before the figure (the first when
            # the figure comes before them all)
            before = [t for t, at in said.get("tps", ()) if at <= pos]
            cur.tp = before[-1] if before else said["tp"]
        cur.gpus_in_sentence = said["gpu_counts"][0] if said["gpu_counts"] else None
        return cur

    def advance(self, said: dict, carry: bool) -> None:
        """Move the carried subject past a segment (unless it was hypothetical or a comparison)."""
        if not carry:
            return
        end = 10**9
        new = self.resolve(said, end)
        if said.get("chosen_tp"):
            new.tp = said["chosen_tp"]
        if said["models"] and said["gpu_counts"] and not said["tp"] and new.gpus_in_sentence \
                and not _OWN_COPY.search(said.get("text") or ""):
            new.tp = new.gpus_in_sentence  # "Llama-2-70B on 4 x H100": the model's replica is those GPUs
        new.gpus_in_sentence = None
        self.carried = new
