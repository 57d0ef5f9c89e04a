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

Tensor parallelism (``tp``) splits one replica over N GPUs: each holds 1/N of the weights and
1/N of the KV heads (a degree above the KV-head count replicates heads; multi-head latent
attention keeps the whole latent on every GPU). ``replicas`` multiplies a replica into a fleet.
A model that does not fit is an answer, not an error, when ``allow_no_fit`` is set: ``fits`` is
false and ``min_tp`` and the fp8/int4 ``alternatives`` say what would fit.

Presets come from ``hardware.yaml`` (published model configs and GPU datasheets; each entry names
its source). Any model or GPU can be plugged in with the overrides instead. Error messages name
settings in words (the CLI adds its flag), so the Whiteboard page can show them as they are.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from importlib.resources import files
from typing import Optional

import yaml
from pydantic import BaseModel, Field

from interviewer.errors import UserError

GIB = 2**30
BLOCK_TOKENS = 16  # vLLM's default KV block size; used for the paging lever and the simulator
HARDWARE_FILE = "hardware.yaml"  # package data, read with importlib.resources

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
    attention: str = Field(default="", description="'mla' for multi-head latent attention; else derived")
    kv_lora_rank: Optional[int] = Field(default=None, gt=0, description="MLA: compressed KV latent width")
    qk_rope_head_dim: Optional[int] = Field(default=None, gt=0, description="MLA: decoupled RoPE key width")
    aliases: list[str] = Field(default_factory=list)
    source: str = ""
    notes: str = ""

    @property
    def kind(self) -> str:
        """'mla', 'gqa' (fewer KV heads than query heads) or 'mha'."""
        if self.attention == "mla":
            return "mla"
        return "gqa" if self.kv_heads < self.attention_heads else "mha"

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
    tflops_fp8: Optional[float] = Field(default=None, gt=0, description="dense FP8 tensor TFLOPS, if any")
    interconnect: str = ""
    interconnect_gbs: float = Field(default=32.0, gt=0, description="GPU-to-GPU GB/s, one direction")
    aliases: list[str] = Field(default_factory=list)
    source: str = ""
    notes: str = ""


class Presets(BaseModel):
    models: dict[str, ModelSpec]
    gpus: dict[str, GPUSpec]
    assumptions: dict = Field(default_factory=dict)


class SettingError(UserError):
    """A bad value for one named setting. The message names it in words; ``setting`` is its key
    (as in the keyword arguments and the CLI's flag names), so a caller can point at its control."""

    def __init__(self, setting: str, message: str):
        super().__init__(message)
        self.setting = setting


class Lever(BaseModel):
    """One change to the deployment and what it does to max_sequences (computed, not prose)."""

    id: str
    description: str
    max_sequences: int = Field(description="max_sequences with the lever applied")
    baseline_sequences: int = Field(description="max_sequences it is compared against")
    delta: int = Field(description="max_sequences - baseline_sequences")
    detail: str = ""


class PerGPU(BaseModel):
    """One GPU of a tensor-parallel replica (its share of the replica's figures)."""

    gpu_bytes: int
    usable_bytes: int
    weights_bytes: int
    free_bytes: int
    kv_bytes_per_token: float = Field(description="KV bytes each GPU stores per token in the cache")
    kv_heads: Optional[float] = Field(default=None, description="KV heads held per GPU (None: custom/MLA)")


class Totals(BaseModel):
    """A replica's or the fleet's totals."""

    gpus: int
    gpu_bytes: int
    weights_bytes: int
    free_bytes: int
    max_tokens_in_cache: int
    max_sequences: int


class Alternative(BaseModel):
    """The same deployment with other weights: does it fit at this TP degree, and from which degree."""

    weights_dtype: str
    weights_bytes: int
    fits: bool
    max_sequences: int
    min_tp: Optional[int]


class CapacityResult(BaseModel):
    """Result of :func:`compute`. Bytes are integers; GB in text means GiB (2**30).

    The top-level byte and token figures are one replica's (all its ``tp`` GPUs together);
    ``per_gpu`` is one GPU's share and ``fleet`` is ``replicas`` replicas.
    """

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
    tp: int = 1
    replicas: int = 1
    fits: bool = True
    min_tp: Optional[int] = None
    attention: str = "custom"
    kv_formula: str = ""
    kv_replication: float = Field(default=1.0, description="copies of each token's KV a replica stores")
    per_gpu: Optional[PerGPU] = None
    replica: Optional[Totals] = None
    fleet: Optional[Totals] = None
    alternatives: list[Alternative] = Field(default_factory=list)


# --------------------------------------------------------------------------- presets and names


@lru_cache(maxsize=1)
def load_presets() -> Presets:
    """Read and validate ``hardware.yaml`` once (cached)."""
    try:
        raw = yaml.safe_load(files("interviewer").joinpath(HARDWARE_FILE).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:  # pragma: no cover - packaging error
        raise UserError(f"cannot read {HARDWARE_FILE}: {exc}") from exc
    models = {k: ModelSpec(id=k, **v) for k, v in (raw.get("models") or {}).items()}
    gpus = {k: GPUSpec(id=k, **v) for k, v in (raw.get("gpus") or {}).items()}
    return Presets(models=models, gpus=gpus, assumptions=raw.get("assumptions") or {})


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


def _names(spec: ModelSpec | GPUSpec) -> list[str]:
    return [spec.id, *spec.aliases]


# "an L4 load balancer", "L4/L7": a network layer, not the GPU
GPU_NOT_A_LAYER = r"(?!\s*(?:/\s*l\d\b|load[\s-]*balanc|lbs?\b|proxy|switch))"


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
                text_re = rf"(?:(?<![a-z0-9])|(?<=\dx)){body}s?(?![a-z0-9]){GPU_NOT_A_LAYER}"
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
    hint = (" (or describe a custom model by its KV bytes per token and weights size)" if kind == "model"
            else " (or describe a custom GPU by its memory size)")
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


MAX_GIB = 1_000_000  # a million GiB: far beyond any GPU or model, small enough for exact integer bytes
MAX_KV_BYTES_PER_TOKEN = 10**9
MAX_SEQ_LEN = 100_000_000
MAX_TP = 1024
MAX_REPLICAS = 100_000
TP_SEARCH = 128  # min_tp looks at tensor-parallel degrees up to this


def _dtype_bytes(dtype: str, allowed: tuple[str, ...], what: str) -> float:
    d = str(dtype).lower()
    if d not in allowed:
        raise SettingError(f"{what.lower()}_dtype", f"unknown {what} dtype {dtype!r}; use one of: {', '.join(allowed)}")
    return DTYPE_BYTES[d]


def _kv_formula(spec: ModelSpec, kb: float) -> tuple[int, str]:
    """(KV bytes per token, the formula with its numbers) for a preset model."""
    if spec.kind == "mla":
        width = spec.kv_lora_rank + spec.qk_rope_head_dim
        bpt = int(round(spec.layers * width * kb))
        return bpt, (f"{spec.layers} layers x ({spec.kv_lora_rank} latent + {spec.qk_rope_head_dim} RoPE key) x "
                     f"{kb:g} bytes")
    bpt = int(round(2 * spec.layers * spec.kv_heads * spec.head_dim * kb))
    return bpt, f"2 (K and V) x {spec.layers} layers x {spec.kv_heads} KV heads x {spec.head_dim} head dim x {kb:g} bytes"


def kv_bytes_per_token(model: ModelSpec | str, kv_dtype: str = "fp16") -> int:
    """2 (K and V) x layers x KV heads x head dim x bytes per element, for one token.

    Multi-head latent attention (DeepSeek-V3) caches one compressed latent and a RoPE key per
    layer instead: layers x (kv_lora_rank + qk_rope_head_dim) x bytes, with no factor 2.
    """
    spec = find_model(model) if isinstance(model, str) else model
    return _kv_formula(spec, _dtype_bytes(kv_dtype, KV_DTYPES, "KV"))[0]


def _gib(b: float) -> str:
    return f"{b / GIB:,.2f} GiB"


def _n(b: float) -> str:
    return f"{int(b):,}"


def _number(value, setting: str, words: str, maximum: float, whole: bool = False) -> Optional[float]:
    """None, or a finite positive number up to `maximum`; else a SettingError naming it in words."""
    if value is None:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise SettingError(setting, f"{words} must be a number, got {value!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise SettingError(setting, f"{words} must be a positive number, got {value}")
    if v > maximum:
        raise SettingError(setting, f"{words} must be at most {maximum:,.0f}, got {value}")
    if whole and v != int(v):
        raise SettingError(setting, f"{words} must be a whole number, got {value}")
    return v


def _core(kv_bpt: float, weights: float, gpu_bytes: float, util: float, seq_len: int):
    usable = int(gpu_bytes * util)
    free = usable - int(weights)
    tokens = max(0, free) // max(1, int(kv_bpt))
    return usable, free, int(tokens), int(tokens // seq_len)


def _replication(spec: Optional[ModelSpec], tp: int) -> float:
    """Copies of each token's KV a replica of `tp` GPUs stores (1 when the heads shard evenly)."""
    if spec is None or tp == 1:
        return 1.0
    if spec.kind == "mla":
        return float(tp)  # every GPU keeps the whole latent (it is not split by head)
    return max(1.0, tp / spec.kv_heads)  # more GPUs than KV heads: each GPU holds a copy of one head


def valid_tp(spec: Optional[ModelSpec], tp: int) -> bool:
    """Can a replica shard `spec` over `tp` GPUs? Query heads must split evenly; KV heads must
    split evenly or be replicated a whole number of times (as vLLM does)."""
    if spec is None:
        return tp >= 1
    if spec.attention_heads % tp:
        return False
    return spec.kind == "mla" or spec.kv_heads % tp == 0 or tp % spec.kv_heads == 0


def tp_degrees(spec: Optional[ModelSpec], up_to: int = TP_SEARCH) -> list[int]:
    """The tensor-parallel degrees a model allows, smallest first."""
    return [t for t in range(1, up_to + 1) if valid_tp(spec, t)]


def _check_tp(spec: Optional[ModelSpec], tp: int) -> None:
    if valid_tp(spec, tp):
        return
    ok = ", ".join(str(t) for t in tp_degrees(spec, min(spec.attention_heads, TP_SEARCH)))
    if spec.kind != "mla" and spec.attention_heads % tp == 0:
        why = f"does not divide {spec.id}'s {spec.kv_heads} KV heads (nor is it a multiple of them)"
    else:
        why = f"does not divide {spec.id}'s {spec.attention_heads} attention heads"
    raise SettingError("tp", f"tensor-parallel degree {tp} {why}; use one of {ok}")


def _min_tp(spec, gspec_bytes: float, weights: float, kv_bpt: float, util: float, seq_len: int,
            strict: bool) -> Optional[int]:
    """Smallest TP degree at which the weights and one full sequence fit, or None."""
    for t in (tp_degrees(spec) if strict else range(1, TP_SEARCH + 1)):
        rep = _replication(spec, t) if strict else 1.0
        if _core(kv_bpt * rep, weights, gspec_bytes * t, util, seq_len)[3] >= 1:
            return t
    return None


def compute(
    model: ModelSpec | str | None = None,
    gpu: GPUSpec | str | None = None,
    weights_dtype: str = "fp16",
    kv_dtype: str = "fp16",
    seq_len: Optional[int] = None,
    kv_bytes_per_token: Optional[int] = None,
    weights_gb: Optional[float] = None,
    gpu_gb: Optional[float] = None,
    gpu_memory_utilization: float = 0.9,
    num_gpus: int = 1,
    levers: bool = True,
    *,
    tp: Optional[int] = None,
    replicas: int = 1,
    allow_no_fit: bool = False,
) -> CapacityResult:
    """Weights plus KV cache against GPU memory, turned into a concurrency figure.

    ``model`` / ``gpu`` are preset names (or specs), or None when overrides cover them:
    ``kv_bytes_per_token`` and ``weights_gb`` replace the model's numbers, ``gpu_gb`` the GPU's
    memory. ``weights_gb`` and ``gpu_gb`` are GiB (2**30 bytes). ``weights_gb`` is taken to be
    the size at ``weights_dtype`` and ``kv_bytes_per_token`` at ``kv_dtype`` (the levers scale
    them from there). ``seq_len`` defaults to min(model max context, 4096).

    ``tp`` shards one replica over that many GPUs (checked against the model's heads);
    ``num_gpus`` is the older, unchecked form that only pools memory. ``replicas`` gives fleet
    totals. Weights that do not fit raise UserError unless ``allow_no_fit``, which returns
    ``fits=False`` with ``min_tp`` and the fp8/int4 ``alternatives`` instead.

    Raises UserError (a SettingError naming the setting) on bad numbers or unknown names.
    """
    mspec = find_model(model) if isinstance(model, str) else model
    gspec = find_gpu(gpu) if isinstance(gpu, str) else gpu
    wb = _dtype_bytes(weights_dtype, WEIGHT_DTYPES, "weights")
    kb = _dtype_bytes(kv_dtype, KV_DTYPES, "KV")
    _number(kv_bytes_per_token, "kv_bytes_per_token", "KV bytes per token", MAX_KV_BYTES_PER_TOKEN, whole=True)
    _number(weights_gb, "weights_gb", "weights size (GiB)", MAX_GIB)
    _number(gpu_gb, "gpu_gb", "GPU memory (GiB)", MAX_GIB)
    _number(seq_len, "seq_len", "sequence length (tokens)", MAX_SEQ_LEN, whole=True)
    try:
        util = float(gpu_memory_utilization)
    except (TypeError, ValueError):
        raise SettingError("gpu_memory_utilization",
                           f"GPU memory utilization must be a number, got {gpu_memory_utilization!r}") from None
    if not (0 < util <= 1):
        raise SettingError("gpu_memory_utilization",
                           f"GPU memory utilization must be in (0, 1], got {gpu_memory_utilization}")
    strict = tp is not None
    if strict:
        _number(tp, "tp", "tensor-parallel degree", MAX_TP, whole=True)
        if num_gpus not in (1, tp):
            raise SettingError("tp", f"give the tensor-parallel degree once (tp {tp}, num_gpus {num_gpus})")
        num_gpus = int(tp)
    if isinstance(num_gpus, bool) or not isinstance(num_gpus, (int, float)) or int(num_gpus) != num_gpus \
            or not 1 <= num_gpus <= MAX_TP:
        raise SettingError("num_gpus", f"num_gpus must be a whole number from 1 to {MAX_TP}, got {num_gpus}")
    num_gpus = int(num_gpus)
    _number(replicas, "replicas", "replica count", MAX_REPLICAS, whole=True)
    replicas = int(replicas)
    if mspec is None and (kv_bytes_per_token is None or weights_gb is None):
        raise SettingError("model", "a custom model needs both its KV bytes per token and its weights size (GiB); "
                                    "or name a model preset")
    if gspec is None and gpu_gb is None:
        raise SettingError("gpu", "a custom GPU needs its memory size (GiB); or name a GPU preset")
    if strict and kv_bytes_per_token is None:
        _check_tp(mspec, num_gpus)
    if seq_len is None:
        seq_len = min(mspec.max_context, DEFAULT_SEQ_LEN) if mspec else DEFAULT_SEQ_LEN
    seq_len = int(seq_len)

    terms: list[str] = []
    wdt, kdt = weights_dtype.lower(), kv_dtype.lower()
    tpn = num_gpus
    kv_spec = mspec if (strict and kv_bytes_per_token is None) else None  # heads known: sharding is checked
    rep = _replication(kv_spec, tpn)

    # KV bytes per token
    if kv_bytes_per_token is not None:
        kv_bpt = int(kv_bytes_per_token)
        attention, kv_formula = "custom", "given"
        terms.append(f"KV bytes per token = {_n(kv_bpt)} bytes (given; {kv_bpt / 2**20:,.3f} MiB)")
    else:
        kv_bpt, kv_formula = _kv_formula(mspec, kb)
        attention = mspec.kind
        if attention == "mla":
            terms.append(
                f"KV bytes per token (multi-head latent attention: one compressed latent and one RoPE key per layer, "
                f"not K and V per head, so no factor 2) = {kv_formula} ({kdt}) = {_n(kv_bpt)} bytes "
                f"({kv_bpt / 2**10:,.1f} KiB)")
        else:
            terms.append(f"KV bytes per token = {kv_formula} ({kdt}) = {_n(kv_bpt)} bytes ({kv_bpt / 2**10:,.1f} KiB)")
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
    one_gpu = int(round(per_gpu_gib * GIB))
    gpu_bytes = one_gpu * num_gpus
    gname = gspec.id if (gspec is not None and gpu_gb is None) else "custom"
    terms.append(
        f"GPU memory = {num_gpus} x {per_gpu_gib:g} GiB ({gname}; GB read as GiB, 2^30 bytes) = "
        f"{_n(gpu_bytes)} bytes"
    )
    kv_rep = int(round(kv_bpt * rep))  # what the replica stores per token
    usable, free, tokens, max_seqs = _core(kv_rep, weights, gpu_bytes, util, seq_len)
    reserved = gpu_bytes - usable
    terms.append(
        f"usable = GPU memory x {util:g} (gpu_memory_utilization; the other {_gib(reserved)} is kept for "
        f"activations and the CUDA context) = {_n(usable)} bytes ({_gib(usable)})"
    )
    # per GPU of a tensor-parallel replica
    w_gpu, u_gpu = math.ceil(weights / tpn), usable // tpn
    kv_gpu = kv_rep / tpn
    heads_gpu = None if kv_spec is None or attention == "mla" else max(1.0, kv_spec.kv_heads / tpn)
    if tpn > 1:
        if attention == "mla":
            shard = "the whole KV latent is kept on every GPU (it is not split by head)"
        elif heads_gpu is not None:
            shard = (f"{heads_gpu:g} of the {kv_spec.kv_heads} KV heads"
                     + (f" (each head copied to {rep:g} GPUs: the degree exceeds the KV heads)" if rep > 1 else ""))
        else:
            shard = f"1/{tpn} of every token's KV"
        terms.append(f"tensor parallel: {tpn} GPUs per replica; each holds 1/{tpn} of the weights and {shard}")
        if rep > 1:
            terms.append(f"the replica stores {rep:g} copies of each token's KV: {_n(kv_bpt)} x {rep:g} = "
                         f"{_n(kv_rep)} bytes per token")
        terms.append(
            f"per GPU: weights = {_n(weights)} / {tpn} = {_n(w_gpu)} bytes ({_gib(w_gpu)}); usable = {_n(u_gpu)} bytes "
            f"({_gib(u_gpu)}); KV per token per GPU = {_n(kv_rep)} / {tpn} = {kv_gpu:,.0f} bytes")
    fits = weights < usable and max_seqs >= 1
    min_tp = _min_tp(kv_spec, one_gpu, weights, kv_bpt, util, seq_len, strict)
    if weights >= usable:
        if not allow_no_fit:
            hint = (f"across at least {min_tp} GPUs" if min_tp else f"across more than {TP_SEARCH} GPUs")
            raise UserError(
                f"weights ({_gib(weights)}) do not fit in usable GPU memory ({_gib(usable)} = "
                f"{num_gpus} x {per_gpu_gib:g} GiB x {util:g}); use smaller weights (fp8 or int4) or shard "
                f"them with tensor parallelism {hint}"
            )
        terms.append(f"free for KV cache = usable - weights = {_n(usable)} - {_n(weights)} = {_n(free)} bytes: "
                     f"the weights do not fit ({_gib(weights - usable)} short)")
    else:
        terms.append(f"free for KV cache = usable - weights = {_n(usable)} - {_n(weights)} = {_n(free)} bytes "
                     f"({_gib(free)})")
    kv_div = f"{_n(kv_rep)}" + (" (KV bytes the replica stores per token)" if rep > 1 else "")
    terms.append(f"tokens in cache = floor(free / KV bytes per token) = floor({_n(max(free, 0))} / {kv_div}) = "
                 f"{_n(tokens)} tokens")
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
    if max_seqs == 0 and weights < usable:
        terms.append("note: not even one full-length sequence fits; shorten seq_len or free memory")

    # does not fit: the smallest TP degree, and the fp8 / int4 weights that would
    alternatives: list[Alternative] = []
    if allow_no_fit or not fits:
        for dt in ("fp8", "int4"):
            w2 = int(round(weights * DTYPE_BYTES[dt] / wb))
            n2 = _core(kv_rep, w2, gpu_bytes, util, seq_len)[3]
            t2 = _min_tp(kv_spec, one_gpu, w2, kv_bpt, util, seq_len, strict)
            alternatives.append(Alternative(weights_dtype=dt, weights_bytes=w2, fits=w2 < usable and n2 >= 1,
                                            max_sequences=n2, min_tp=t2))
    if not fits:
        where = f"{tpn} GPU" + ("s" if tpn > 1 else "")
        first = (f"smallest tensor-parallel degree that fits one {_n(seq_len)}-token sequence at {wdt}: {min_tp}"
                 if min_tp else f"no tensor-parallel degree up to {TP_SEARCH} fits one {_n(seq_len)}-token "
                                f"sequence at {wdt}")
        alts = "; ".join(f"{a.weights_dtype} weights ({_gib(a.weights_bytes)}): "
                         + (f"fits on {where}, {a.max_sequences} sequences" if a.fits
                            else f"from tensor parallel {a.min_tp}" if a.min_tp else "does not fit")
                         for a in alternatives)
        terms.append(f"fits: no, on {where}; {first}; {alts}")

    # replica and fleet totals
    replica = Totals(gpus=tpn, gpu_bytes=gpu_bytes, weights_bytes=weights, free_bytes=free,
                     max_tokens_in_cache=tokens, max_sequences=max_seqs)
    fleet = Totals(gpus=tpn * replicas, gpu_bytes=gpu_bytes * replicas, weights_bytes=weights * replicas,
                   free_bytes=free * replicas, max_tokens_in_cache=tokens * replicas,
                   max_sequences=max_seqs * replicas)
    per_gpu = PerGPU(gpu_bytes=one_gpu, usable_bytes=u_gpu, weights_bytes=w_gpu, free_bytes=u_gpu - w_gpu,
                     kv_bytes_per_token=kv_gpu, kv_heads=heads_gpu)
    if replicas > 1:
        terms.append(
            f"fleet = {replicas} replicas x {tpn} GPU{'s' if tpn > 1 else ''} = {fleet.gpus} GPUs; max sequences = "
            f"{replicas} x {max_seqs} = {fleet.max_sequences:,}; tokens in cache = {replicas} x {_n(tokens)} = "
            f"{_n(fleet.max_tokens_in_cache)}")
    extra = dict(tp=tpn, replicas=replicas, fits=fits, min_tp=min_tp, attention=attention, kv_formula=kv_formula,
                 kv_replication=rep, per_gpu=per_gpu, replica=replica, fleet=fleet, alternatives=alternatives)

    # ------------------------------------------------------------------ levers (computed)
    computed_levers: list[Lever] = []
    if not levers:  # the grader's checks need only the budget itself
        return _result(locals(), computed_levers)

    def lever(lid: str, desc: str, n: int, detail: str) -> None:
        computed_levers.append(Lever(id=lid, description=desc, max_sequences=n, baseline_sequences=max_seqs,
                            delta=n - max_seqs, detail=detail))

    for lid, dt, desc in (("fp8_weights", "fp8", "fp8 weights"), ("int4_weights", "int4", "int4 weights (e.g. AWQ/GPTQ)")):
        w2 = int(round(weights * DTYPE_BYTES[dt] / wb))
        _u, f2, t2, n2 = _core(kv_rep, w2, gpu_bytes, util, seq_len)
        lever(lid, desc, n2, f"weights {_gib(weights)} -> {_gib(w2)}; free {_gib(max(free, 0))} -> {_gib(max(f2, 0))}; "
              f"{_n(t2)} tokens / {_n(seq_len)} = {n2} sequences")
    kv2 = max(1, int(round(kv_rep * DTYPE_BYTES["fp8"] / kb)))
    _u, _f, t2, n2 = _core(kv2, weights, gpu_bytes, util, seq_len)
    lever("fp8_kv", "fp8 KV cache", n2, f"KV per token {_n(kv_rep)} -> {_n(kv2)} bytes; {_n(t2)} tokens / {_n(seq_len)} = {n2} sequences")
    if mspec is not None and attention in ("gqa", "mha"):
        h, kvh = mspec.attention_heads, mspec.kv_heads
        if kvh < h:
            kv_mha = int(round(kv_rep * h / kvh))
            _u, _f, t2, n2 = _core(kv_mha, weights, gpu_bytes, util, seq_len)
            computed_levers.append(Lever(
                id="gqa", description=f"grouped-query attention ({kvh} KV heads) vs multi-head ({h} KV heads)",
                max_sequences=max_seqs, baseline_sequences=n2, delta=max_seqs - n2,
                detail=f"with kv_heads = attention_heads = {h}: KV per token {_n(kv_mha)} bytes, {_n(t2)} tokens, "
                       f"{n2} sequences; GQA gives {max_seqs} ({h // kvh}x less KV per token)",
            ))
        elif h > 8:
            kv_gqa = int(round(kv_rep * 8 / h))
            _u, _f, t2, n2 = _core(kv_gqa, weights, gpu_bytes, util, seq_len)
            lever("gqa", f"grouped-query attention with 8 KV heads (the model has {h}, multi-head)", n2,
                  f"KV per token {_n(kv_rep)} -> {_n(kv_gqa)} bytes; {_n(t2)} tokens / {_n(seq_len)} = {n2} "
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
        **v["extra"],
    )


def format_result(result: CapacityResult) -> str:
    """A readable table: every term of the arithmetic, the summary, and the levers."""
    shape = f"{result.tp} x {result.gpu}" if result.tp > 1 else result.gpu
    if result.replicas > 1:
        shape = f"{result.replicas} replicas of {shape}"
    lines = [f"Capacity: {result.model} on {shape} (weights {result.weights_dtype}, KV {result.kv_dtype}; "
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
        ("fits", "yes" if result.fits else "no"),
        ("min_tp", str(result.min_tp) if result.min_tp else "none up to " + str(TP_SEARCH)),
    ]
    if result.per_gpu is not None and result.tp > 1:
        g = result.per_gpu
        rows += [("per GPU: weights_bytes", f"{_n(g.weights_bytes)}  ({_gib(g.weights_bytes)})"),
                 ("per GPU: free_bytes", f"{_n(g.free_bytes)}  ({_gib(g.free_bytes)})"),
                 ("per GPU: KV bytes/token", f"{g.kv_bytes_per_token:,.0f}")]
    if result.fleet is not None and result.replicas > 1:
        f = result.fleet
        rows += [("fleet: GPUs", _n(f.gpus)), ("fleet: max_sequences", _n(f.max_sequences)),
                 ("fleet: max_tokens_in_cache", _n(f.max_tokens_in_cache))]
    width = max(len(k) for k, _ in rows)
    lines += [f"  {k.ljust(width)}  {v}" for k, v in rows]
    lines += ["", "Levers (max sequences with the lever; change vs what it is compared with):"]
    for lv in result.levers:
        sign = "+" if lv.delta >= 0 else ""
        lines.append(f"  {lv.description}: {lv.max_sequences} ({sign}{lv.delta}) - {lv.detail}")
    return "\n".join(lines)
