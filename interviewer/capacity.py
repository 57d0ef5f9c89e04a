"""KV-cache capacity calculator: how many sequences fit on a GPU next to the model's weights.

The arithmetic, every step of which is echoed in ``CapacityResult.terms``:

* KV bytes per token = 2 (a K and a V vector) x layers x KV heads x head dim x bytes per element.
* weights = parameters x bytes per weight (fp16/bf16 2, fp8/int8 1, int4 0.5).
* usable memory = GPU memory x gpu_memory_utilization (like vLLM's ``--gpu-memory-utilization``;
  the rest is left for activations, the CUDA context and allocator slack).
* free for KV cache = usable - weights; tokens in cache = floor(free / KV bytes per token).
* max sequences = floor(tokens in cache / seq_len): each sequence reserves its full length, as a
  server without paging must. The ``levers`` show what paging and the other levers change.

Units: every "GB" in this module, in ``hardware.yaml`` and in the overrides (``weights_gb``,
``gpu_gb``) means GiB, 2**30 bytes: a GPU sold as "80GB" is treated as 80 GiB of HBM. Byte
counts in results are plain integers. Parameter counts are in units of 1e9 (``params_b``).

Presets come from ``hardware.yaml`` (published model configs and GPU datasheets; each entry names
its source). Any model or GPU can be plugged in with the overrides instead.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Optional, Union

import yaml
from pydantic import BaseModel, Field

from interviewer.errors import UserError

GIB = 2**30
BLOCK_TOKENS = 16  # vLLM's default KV block size; used for the paging lever and the simulator
HARDWARE_FILE = Path(__file__).with_name("hardware.yaml")

DTYPE_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
}
WEIGHT_DTYPES = ("fp16", "bf16", "fp8", "int8", "int4")
KV_DTYPES = ("fp16", "bf16", "fp8", "int8")
DEFAULT_SEQ_LEN = 4096


class ModelSpec(BaseModel):
    """A transformer's shape, as published in its config.json."""

    id: str
    name: str = ""
    layers: int = Field(gt=0)
    attention_heads: int = Field(gt=0)
    kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0)
    hidden_size: Optional[int] = None
    params_b: float = Field(gt=0, description="total parameters, in billions (1e9)")
    active_params_b: Optional[float] = Field(
        default=None, description="parameters used per token (mixture of experts); defaults to params_b"
    )
    max_context: int = Field(gt=0)
    aliases: list[str] = Field(default_factory=list)
    source: str = ""

    @property
    def active_params(self) -> float:
        return (self.active_params_b or self.params_b) * 1e9

    @property
    def params(self) -> float:
        return self.params_b * 1e9


class GPUSpec(BaseModel):
    """One accelerator: memory (GiB), peak memory bandwidth (GB/s) and dense fp16 TFLOPS."""

    id: str
    name: str = ""
    memory_gib: float = Field(gt=0, description="GPU memory in GiB (2**30 bytes)")
    hbm_bandwidth_gbs: float = Field(gt=0, description="peak memory bandwidth, GB/s (1e9 bytes/s)")
    tflops_fp16: float = Field(gt=0, description="dense FP16/BF16 tensor TFLOPS")
    aliases: list[str] = Field(default_factory=list)
    source: str = ""
    notes: str = ""


class Presets(BaseModel):
    models: dict[str, ModelSpec]
    gpus: dict[str, GPUSpec]


class Lever(BaseModel):
    """One change to the deployment and what it does to max_sequences (computed, not prose)."""

    id: str
    description: str
    max_sequences: int = Field(description="max_sequences with the lever applied")
    baseline_sequences: int = Field(description="max_sequences it is compared against")
    delta: int = Field(description="max_sequences - baseline_sequences")
    detail: str = ""


class CapacityResult(BaseModel):
    """Result of :func:`compute`. Bytes are integers; GB in text means GiB (2**30)."""

    model: str
    gpu: str
    weights_dtype: str
    kv_dtype: str
    num_gpus: int
    gpu_memory_utilization: float
    seq_len: int
    kv_bytes_per_token: int
    kv_bytes_per_sequence: int
    weights_bytes: int
    gpu_bytes: int
    usable_bytes: int
    reserved_bytes: int
    free_bytes: int
    max_tokens_in_cache: int
    max_sequences: int
    terms: list[str]
    levers: list[Lever]


# --------------------------------------------------------------------------- presets and names


@lru_cache(maxsize=1)
def load_presets() -> Presets:
    """Read and validate ``hardware.yaml`` once (cached)."""
    try:
        raw = yaml.safe_load(HARDWARE_FILE.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:  # pragma: no cover - packaging error
        raise UserError(f"cannot read {HARDWARE_FILE.name}: {exc}") from exc
    models = {k: ModelSpec(id=k, **v) for k, v in (raw.get("models") or {}).items()}
    gpus = {k: GPUSpec(id=k, **v) for k, v in (raw.get("gpus") or {}).items()}
    return Presets(models=models, gpus=gpus)


_SEP = r"[\s\-_/(),]*"


def _alias_pattern(alias: str) -> str:
    """Regex for an alias: separators optional and interchangeable, a gap allowed after digits."""
    parts = [p for p in re.split(r"[\s\-_/]+", alias.lower().strip()) if p]
    out = []
    for part in parts:
        # allow "40 gb", "13 b", "8 x 7b": optional separators where a digit meets a letter
        pieces = re.split(r"(?<=\d)(?=[a-z])", part)
        out.append(_SEP.join(re.escape(p) for p in pieces))
    return _SEP.join(out)


def _names(spec: Union[ModelSpec, GPUSpec]) -> list[str]:
    return [spec.id, *spec.aliases]


@lru_cache(maxsize=2)
def _patterns(kind: str) -> list[tuple[str, re.Pattern, re.Pattern, str]]:
    presets = load_presets()
    specs = presets.models if kind == "model" else presets.gpus
    out = []
    for pid, spec in specs.items():
        for alias in _names(spec):
            body = _alias_pattern(alias)
            if kind == "gpu":
                # "8xH100", "H100s" are mentions too
                text_re = rf"(?:(?<![a-z0-9])|(?<=\dx)){body}s?(?![a-z0-9])"
            else:
                text_re = rf"(?<![a-z0-9.]){body}(?![a-z0-9])"
            key = tuple(dict.fromkeys(re.findall(r"[a-z]+|\d+", alias.lower())))
            # body is built from the lower-cased alias, so it matches lower-cased text without
            # re.IGNORECASE (much faster on a long transcript); _match lowers the text once.
            out.append((pid, re.compile(text_re), re.compile(body, re.IGNORECASE), key))
    return out


_SUFFIXES = re.compile(r"(-(hf|chat|instruct|base|it))+$")


def _find(kind: str, name: str):
    presets = load_presets()
    specs = presets.models if kind == "model" else presets.gpus
    label = "model" if kind == "model" else "GPU"
    cleaned = " ".join(str(name or "").split()).strip()
    candidates = [cleaned]
    if "/" in cleaned:  # a Hugging Face repo id such as meta-llama/Llama-2-13b-hf
        candidates.append(cleaned.rsplit("/", 1)[1])
    candidates += [_SUFFIXES.sub("", c.lower()) for c in list(candidates)]
    for cand in candidates:
        if not cand:
            continue
        if cand.lower() in specs:
            return specs[cand.lower()]
        for pid, _text_re, full_re, _key in _patterns(kind):
            if full_re.fullmatch(cand.lower()):
                return specs[pid]
    known = ", ".join(specs)
    hint = " (or give --kv-bytes-per-token and --weights-gb)" if kind == "model" else " (or give --gpu-gb)"
    raise UserError(f"unknown {label} {name!r}; known {label}s: {known}{hint}")


def find_model(name: str) -> ModelSpec:
    """Preset by exact id or alias, case-insensitive; unknown -> UserError listing the known ids."""
    return _find("model", name)


def find_gpu(name: str) -> GPUSpec:
    """Preset by exact id or alias, case-insensitive; unknown -> UserError listing the known ids."""
    return _find("gpu", name)


def _match(kind: str, text: str) -> list[tuple[str, int, int]]:
    hits = []
    low = (text or "").lower()
    if len(low) != len(text or ""):  # lowering changed offsets (rare scripts): keep positions exact
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    for order, (pid, text_re, _full, key) in enumerate(_patterns(kind)):
        if not all(k in low for k in key):  # cheap literal pre-check: most texts name one or two presets
            continue
        for m in text_re.finditer(low):
            hits.append((m.end() - m.start(), m.start(), order, pid, m.end()))
    # longest mention wins; then the earlier one; then the preset listed first
    hits.sort(key=lambda h: (-h[0], h[1], h[2]))
    taken: list[tuple[str, int, int]] = []
    for _length, start, _order, pid, end in hits:
        if all(end <= s or start >= e for _p, s, e in taken):
            taken.append((pid, start, end))
    return sorted(taken, key=lambda t: t[1])


def match_models(text: str) -> list[tuple[str, int, int]]:
    """Model presets mentioned in free text: [(preset_id, start, end)], in text order.

    Overlapping mentions resolve to the longest ("Llama-2-13B" is llama-2-13b, not llama-13b).
    """
    return _match("model", text)


def match_gpus(text: str) -> list[tuple[str, int, int]]:
    """GPU presets mentioned in free text: [(preset_id, start, end)], in text order.

    "A100 80GB" is a100-80gb; a bare "A100" is a100-40gb; "8xH100" and "H100s" count.
    """
    return _match("gpu", text)


# --------------------------------------------------------------------------- arithmetic


def _dtype_bytes(dtype: str, allowed: tuple[str, ...], what: str) -> float:
    d = str(dtype).lower()
    if d not in allowed:
        raise UserError(f"unknown {what} dtype {dtype!r}; use one of: {', '.join(allowed)}")
    return DTYPE_BYTES[d]


def kv_bytes_per_token(model: Union[ModelSpec, str], kv_dtype: str = "fp16") -> int:
    """2 (K and V) x layers x KV heads x head dim x bytes per element, for one token."""
    spec = find_model(model) if isinstance(model, str) else model
    b = _dtype_bytes(kv_dtype, KV_DTYPES, "KV")
    return int(round(2 * spec.layers * spec.kv_heads * spec.head_dim * b))


def _gib(b: float) -> str:
    return f"{b / GIB:,.2f} GiB"


def _n(b: float) -> str:
    return f"{int(b):,}"


def _positive(value, what: str, allow_zero: bool = False) -> None:
    if value is None:
        return
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise UserError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise UserError(f"{what} must be a positive number, got {value}")


def _core(kv_bpt: float, weights: float, gpu_bytes: float, util: float, seq_len: int):
    usable = int(gpu_bytes * util)
    free = usable - int(weights)
    tokens = max(0, free) // max(1, int(kv_bpt))
    return usable, free, int(tokens), int(tokens // seq_len)


def compute(
    model: Union[ModelSpec, str, None] = None,
    gpu: Union[GPUSpec, str, None] = None,
    weights_dtype: str = "fp16",
    kv_dtype: str = "fp16",
    seq_len: Optional[int] = None,
    kv_bytes_per_token: Optional[int] = None,
    weights_gb: Optional[float] = None,
    gpu_gb: Optional[float] = None,
    gpu_memory_utilization: float = 0.9,
    num_gpus: int = 1,
    levers: bool = True,
) -> CapacityResult:
    """Weights plus KV cache against GPU memory, turned into a concurrency figure.

    ``model`` / ``gpu`` are preset names (or specs), or None when overrides cover them:
    ``kv_bytes_per_token`` and ``weights_gb`` replace the model's numbers, ``gpu_gb`` the GPU's
    memory. ``weights_gb`` and ``gpu_gb`` are GiB (2**30 bytes). ``weights_gb`` is taken to be
    the size at ``weights_dtype`` and ``kv_bytes_per_token`` at ``kv_dtype`` (the levers scale
    them from there). ``seq_len`` defaults to min(model max context, 4096). ``num_gpus`` pools
    memory across a tensor-parallel group (weights and KV are both sharded).

    Raises UserError on bad numbers, unknown names, or weights that do not fit.
    """
    mspec = find_model(model) if isinstance(model, str) else model
    gspec = find_gpu(gpu) if isinstance(gpu, str) else gpu
    wb = _dtype_bytes(weights_dtype, WEIGHT_DTYPES, "weights")
    kb = _dtype_bytes(kv_dtype, KV_DTYPES, "KV")
    _positive(kv_bytes_per_token, "--kv-bytes-per-token")
    _positive(weights_gb, "--weights-gb")
    _positive(gpu_gb, "--gpu-gb")
    _positive(seq_len, "--seq-len")
    try:
        util = float(gpu_memory_utilization)
    except (TypeError, ValueError):
        raise UserError(f"--gpu-memory-utilization must be a number, got {gpu_memory_utilization!r}") from None
    if not (0 < util <= 1):
        raise UserError(f"--gpu-memory-utilization must be in (0, 1], got {gpu_memory_utilization}")
    if int(num_gpus) != num_gpus or num_gpus < 1:
        raise UserError(f"num_gpus must be a whole number >= 1, got {num_gpus}")
    num_gpus = int(num_gpus)
    if mspec is None and (kv_bytes_per_token is None or weights_gb is None):
        raise UserError("give --model, or both --kv-bytes-per-token and --weights-gb for a custom model")
    if gspec is None and gpu_gb is None:
        raise UserError("give --gpu, or --gpu-gb for a custom GPU")
    if seq_len is None:
        seq_len = min(mspec.max_context, DEFAULT_SEQ_LEN) if mspec else DEFAULT_SEQ_LEN
    if int(seq_len) != seq_len:
        raise UserError(f"--seq-len must be a whole number of tokens, got {seq_len}")
    seq_len = int(seq_len)

    terms: list[str] = []
    wdt, kdt = weights_dtype.lower(), kv_dtype.lower()

    # KV bytes per token
    if kv_bytes_per_token is not None:
        kv_bpt = int(kv_bytes_per_token)
        terms.append(f"KV bytes per token = {_n(kv_bpt)} bytes (given; {kv_bpt / 2**20:,.3f} MiB)")
    else:
        kv_bpt = int(round(2 * mspec.layers * mspec.kv_heads * mspec.head_dim * kb))
        terms.append(
            f"KV bytes per token = 2 (K and V) x {mspec.layers} layers x {mspec.kv_heads} KV heads x "
            f"{mspec.head_dim} head dim x {kb:g} bytes ({kdt}) = {_n(kv_bpt)} bytes ({kv_bpt / 2**10:,.1f} KiB)"
        )
    # weights
    if weights_gb is not None:
        weights = int(round(float(weights_gb) * GIB))
        terms.append(f"weights = {float(weights_gb):g} GiB (given, at {wdt}) = {_n(weights)} bytes")
    else:
        weights = int(round(mspec.params * wb))
        terms.append(
            f"weights = {mspec.params_b:g}e9 params x {wb:g} bytes ({wdt}) = {_n(weights)} bytes ({_gib(weights)})"
        )
    # GPU
    per_gpu_gib = float(gpu_gb) if gpu_gb is not None else gspec.memory_gib
    gpu_bytes = int(round(per_gpu_gib * GIB)) * num_gpus
    gname = gspec.id if (gspec is not None and gpu_gb is None) else "custom"
    terms.append(
        f"GPU memory = {num_gpus} x {per_gpu_gib:g} GiB ({gname}; GB read as GiB, 2^30 bytes) = "
        f"{_n(gpu_bytes)} bytes"
    )
    usable, free, tokens, max_seqs = _core(kv_bpt, weights, gpu_bytes, util, seq_len)
    reserved = gpu_bytes - usable
    terms.append(
        f"usable = GPU memory x {util:g} (gpu_memory_utilization; the other {_gib(reserved)} is kept for "
        f"activations and the CUDA context) = {_n(usable)} bytes ({_gib(usable)})"
    )
    if weights >= usable:
        need = weights / (usable / num_gpus)
        tp = 1
        while tp < need * 1.1:  # headroom for some KV cache; tensor-parallel sizes are powers of two
            tp *= 2
        raise UserError(
            f"weights ({_gib(weights)}) do not fit in usable GPU memory ({_gib(usable)} = "
            f"{num_gpus} x {per_gpu_gib:g} GiB x {util:g}); use smaller weights (fp8 or int4) or shard "
            f"them with tensor parallelism across at least {tp} GPUs"
        )
    terms.append(f"free for KV cache = usable - weights = {_n(usable)} - {_n(weights)} = {_n(free)} bytes ({_gib(free)})")
    terms.append(f"tokens in cache = floor(free / KV bytes per token) = floor({_n(free)} / {_n(kv_bpt)}) = {_n(tokens)} tokens")
    kv_seq = kv_bpt * seq_len
    terms.append(
        f"KV per sequence = {_n(seq_len)} tokens x {_n(kv_bpt)} bytes = {_n(kv_seq)} bytes "
        f"({_gib(kv_seq)}, {kv_seq / 1e9:,.2f} GB decimal)"
    )
    terms.append(
        f"max sequences = floor(tokens in cache / seq_len) = floor({_n(tokens)} / {_n(seq_len)}) = {max_seqs} "
        f"(each sequence reserves its full {_n(seq_len)} tokens)"
    )
    if mspec is not None and seq_len > mspec.max_context:
        terms.append(f"note: seq_len {seq_len} exceeds {mspec.id}'s max context of {mspec.max_context} tokens")
    if max_seqs == 0:
        terms.append("note: not even one full-length sequence fits; shorten seq_len or free memory")

    # ------------------------------------------------------------------ levers (computed)
    computed_levers: list[Lever] = []
    if not levers:  # the grader's checks need only the budget itself
        return _result(locals(), computed_levers)

    def lever(lid: str, desc: str, n: int, detail: str) -> None:
        computed_levers.append(Lever(id=lid, description=desc, max_sequences=n, baseline_sequences=max_seqs,
                            delta=n - max_seqs, detail=detail))

    for lid, dt, desc in (("fp8_weights", "fp8", "fp8 weights"), ("int4_weights", "int4", "int4 weights (e.g. AWQ/GPTQ)")):
        w2 = int(round(weights * DTYPE_BYTES[dt] / wb))
        _u, f2, t2, n2 = _core(kv_bpt, w2, gpu_bytes, util, seq_len)
        lever(lid, desc, n2, f"weights {_gib(weights)} -> {_gib(w2)}; free {_gib(free)} -> {_gib(max(f2, 0))}; "
              f"{_n(t2)} tokens / {_n(seq_len)} = {n2} sequences")
    kv2 = max(1, int(round(kv_bpt * DTYPE_BYTES["fp8"] / kb)))
    _u, _f, t2, n2 = _core(kv2, weights, gpu_bytes, util, seq_len)
    lever("fp8_kv", "fp8 KV cache", n2, f"KV per token {_n(kv_bpt)} -> {_n(kv2)} bytes; {_n(t2)} tokens / {_n(seq_len)} = {n2} sequences")
    if mspec is not None:
        h, kvh = mspec.attention_heads, mspec.kv_heads
        if kvh < h:
            kv_mha = int(round(kv_bpt * h / kvh))
            _u, _f, t2, n2 = _core(kv_mha, weights, gpu_bytes, util, seq_len)
            computed_levers.append(Lever(
                id="gqa", description=f"grouped-query attention ({kvh} KV heads) vs multi-head ({h} KV heads)",
                max_sequences=max_seqs, baseline_sequences=n2, delta=max_seqs - n2,
                detail=f"with kv_heads = attention_heads = {h}: KV per token {_n(kv_mha)} bytes, {_n(t2)} tokens, "
                       f"{n2} sequences; GQA gives {max_seqs} ({h // kvh}x less KV per token)",
            ))
        elif h > 8:
            kv_gqa = int(round(kv_bpt * 8 / h))
            _u, _f, t2, n2 = _core(kv_gqa, weights, gpu_bytes, util, seq_len)
            lever("gqa", f"grouped-query attention with 8 KV heads (the model has {h}, multi-head)", n2,
                  f"KV per token {_n(kv_bpt)} -> {_n(kv_gqa)} bytes; {_n(t2)} tokens / {_n(seq_len)} = {n2} "
                  f"sequences (needs a model trained with GQA)")
    avg = max(1, math.ceil(seq_len / 2))
    per_seq_paged = math.ceil(avg / BLOCK_TOKENS) * BLOCK_TOKENS
    n2 = tokens // per_seq_paged
    lever("paging", f"paged KV cache: only tokens actually used (average {avg} = half of {seq_len})", n2,
          f"{_n(tokens)} tokens / {per_seq_paged} tokens per sequence (rounded up to {BLOCK_TOKENS}-token blocks) "
          f"= {n2} sequences")

    return _result(locals(), computed_levers)


def _result(v: dict, levers: list[Lever]) -> CapacityResult:
    mspec = v["mspec"]
    overridden = v["kv_bytes_per_token"] is not None or v["weights_gb"] is not None
    return CapacityResult(
        model=mspec.id if (mspec is not None and not overridden)
        else (f"{mspec.id} (with overrides)" if mspec is not None else "custom"),
        gpu=v["gname"], weights_dtype=v["wdt"], kv_dtype=v["kdt"], num_gpus=v["num_gpus"],
        gpu_memory_utilization=v["util"], seq_len=v["seq_len"], kv_bytes_per_token=v["kv_bpt"],
        kv_bytes_per_sequence=v["kv_seq"], weights_bytes=v["weights"], gpu_bytes=v["gpu_bytes"],
        usable_bytes=v["usable"], reserved_bytes=v["reserved"], free_bytes=v["free"],
        max_tokens_in_cache=v["tokens"], max_sequences=v["max_seqs"], terms=v["terms"], levers=levers,
    )


def format_result(result: CapacityResult) -> str:
    """A readable table: every term of the arithmetic, the summary, and the levers."""
    lines = [f"Capacity: {result.model} on {result.gpu} (weights {result.weights_dtype}, KV {result.kv_dtype}; "
             f"GB means GiB = 2^30 bytes)", ""]
    lines += [f"  {t}" for t in result.terms]
    lines.append("")
    rows = [
        ("kv_bytes_per_token", _n(result.kv_bytes_per_token)),
        ("weights_bytes", f"{_n(result.weights_bytes)}  ({_gib(result.weights_bytes)})"),
        ("usable_bytes", f"{_n(result.usable_bytes)}  ({_gib(result.usable_bytes)})"),
        ("free_bytes", f"{_n(result.free_bytes)}  ({_gib(result.free_bytes)})"),
        ("max_tokens_in_cache", _n(result.max_tokens_in_cache)),
        ("seq_len", _n(result.seq_len)),
        ("max_sequences", _n(result.max_sequences)),
    ]
    width = max(len(k) for k, _ in rows)
    lines += [f"  {k.ljust(width)}  {v}" for k, v in rows]
    lines += ["", "Levers (max sequences with the lever; change vs what it is compared with):"]
    for lv in result.levers:
        sign = "+" if lv.delta >= 0 else ""
        lines.append(f"  {lv.description}: {lv.max_sequences} ({sign}{lv.delta}) - {lv.detail}")
    return "\n".join(lines)
