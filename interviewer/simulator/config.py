"""What a simulation run is given (SimConfig) and what it reports (SimResult), with validation."""
from __future__ import annotations

import math
from typing import Literal, Optional

from pydantic import BaseModel, Field

from interviewer.capacity import SettingError

Dist = Literal["fixed", "exponential", "uniform"]
Router = Literal["round-robin", "least-outstanding", "most-free-kv", "prefix-affinity", "shared-queue", "random"]
ROUTERS: tuple[str, ...] = Router.__args__  # type: ignore[attr-defined]

MIN_RATE, MAX_RATE = 1e-6, 1e9  # requests/s: below one a week-and-a-half the clock overflows nothing useful
MAX_REQUESTS = 10_000_000
MAX_REPLICAS = 4096
MAX_TP = 1024
MAX_TOKENS = 100_000_000


class SimConfig(BaseModel):
    """One simulation run. Rates in requests/s, lengths in tokens, times in seconds."""

    policy: Literal["continuous", "static"] = "continuous"
    arrival_rate: float = Field(default=1.0, description="Poisson arrival rate, requests per second")
    prompt_tokens: int = Field(default=512, description="mean prompt length after any shared prefix")
    output_tokens: int = 128
    prompt_dist: Dist = "fixed"
    output_dist: Dist = "fixed"
    max_num_seqs: int = 256
    max_num_batched_tokens: int = 8192
    requests: int = 2000
    seed: int = 0
    model: str = "llama-3-8b"
    gpu: str = "h100-80gb"
    weights_dtype: str = "fp16"
    kv_dtype: str = "fp16"
    priority_fraction: float = Field(default=0.0, description="fraction of requests marked high priority")
    gpu_memory_utilization: float = 0.9
    kv_cache_tokens: Optional[int] = Field(default=None, description="override the KV cache size per replica, in tokens")
    mfu: float = Field(default=0.5, description="fraction of peak FLOPs a prefill achieves")
    hbm_efficiency: float = Field(default=1.0, description="fraction of peak HBM bandwidth achieved")
    step_overhead_s: float = Field(default=0.0005, description="fixed cost per model step")
    # fleet
    tp: int = Field(default=1, description="tensor-parallel degree: GPUs per replica")
    replicas: int = Field(default=1, description="model replicas behind the router")
    router: Router = "round-robin"
    interconnect_gbs: Optional[float] = Field(default=None, description="GPU-to-GPU GB/s one way; default: the GPU's")
    allreduce_latency_s: Optional[float] = Field(default=None, description="fixed cost per all-reduce; default: hardware.yaml")
    # prefix caching
    prefixes: int = Field(default=0, description="K shared system prompts; each request starts with one")
    prefix_tokens: int = Field(default=0, description="P: length of each shared system prompt, tokens")
    hot_prefix_fraction: float = Field(default=0.0, description="fraction of requests that use prefix 0 (a hot one)")
    # service-level objective for goodput
    slo_ttft_s: float = Field(default=1.0, description="TTFT a request must meet to count as goodput")
    slo_tpot_s: Optional[float] = Field(default=None, description="optional time-per-output-token bound as well")


class ReplicaStats(BaseModel):
    """One replica's share of the run."""

    replica: int
    requests: int
    completed: int
    share: float = Field(description="fraction of all requests routed here")
    ttft_p50_s: float
    ttft_p99_s: float
    wait_mean_s: float
    mean_batch_size: float
    busy_fraction: float = Field(description="fraction of the run this replica spent stepping")
    preemptions: int
    prefix_hit_rate: Optional[float] = None


class SimResult(BaseModel):
    """Summary of a run. Percentiles over completed requests; all times in seconds. With several
    replicas every top-level figure is the fleet's; ``per_replica`` splits them."""

    policy: str
    arrival_rate: float
    requests: int
    completed: int
    ttft_mean_s: float
    ttft_p50_s: float
    ttft_p95_s: float
    ttft_p99_s: float
    e2e_mean_s: float
    e2e_p50_s: float
    e2e_p99_s: float
    wait_mean_s: float
    wait_p99_s: float
    throughput_tokens_per_s: float
    requests_per_s: float
    makespan_s: float
    preemptions: int
    mean_batch_size: float
    steps: int
    kv_cache_tokens: int = Field(description="KV cache per replica, tokens")
    prefill_s: float = Field(description="time of one lone prefill of a mean-length prompt")
    decode_step_s: float = Field(description="time of one decode step at batch 1, short context")
    ttft_priority_mean_s: Optional[float] = None
    ttft_normal_mean_s: Optional[float] = None
    ttft_priority_p99_s: Optional[float] = None
    ttft_normal_p99_s: Optional[float] = None
    tp: int = 1
    replicas: int = 1
    router: str = "round-robin"
    per_replica: list[ReplicaStats] = Field(default_factory=list)
    prefix_hit_rate: Optional[float] = Field(default=None, description="None without a shared-prefix workload")
    tpot_mean_s: float = 0.0
    slo_ttft_s: float = 1.0
    slo_tpot_s: Optional[float] = None
    slo_attainment: float = Field(default=0.0, description="fraction of requests meeting the SLO")
    goodput_rps: float = Field(default=0.0, description="requests per second that met the SLO")
    goodput_tokens_per_s: float = 0.0
    events: int = Field(default=0, description="scheduler events the engine processed")
    assumptions: list[str] = Field(default_factory=list)
    terms: list[str] = Field(default_factory=list)


def _fail(setting: str, msg: str) -> None:
    raise SettingError(setting, msg)


def _real(v: float, setting: str, words: str, lo: float, hi: float, lo_open: bool = False) -> None:
    """A finite number in [lo, hi] ((lo, hi] with lo_open)."""
    ok = isinstance(v, (int, float)) and math.isfinite(v) and (v > lo if lo_open else v >= lo) and v <= hi
    if not ok:
        bound = f"({lo:g}, {hi:g}]" if lo_open else f"[{lo:g}, {hi:g}]"
        _fail(setting, f"{words} must be a number in {bound}, got {v:g}" if isinstance(v, (int, float))
              else f"{words} must be a number, got {v!r}")


def validate(config: SimConfig) -> None:
    """Raise a one-line SettingError (a UserError) for numbers that make no sense."""
    c = config
    r = c.arrival_rate
    if not (isinstance(r, (int, float)) and math.isfinite(r) and r > 0):
        _fail("arrival_rate", f"arrival rate must be a positive number of requests per second, got {r:g}")
    if not MIN_RATE <= r <= MAX_RATE:
        _fail("arrival_rate", f"arrival rate must be between {MIN_RATE:g} and {MAX_RATE:g} requests per second, "
                              f"got {r:g}")
    for setting, words, v, hi in (
            ("prompt_tokens", "prompt length (tokens)", c.prompt_tokens, MAX_TOKENS),
            ("output_tokens", "output length (tokens)", c.output_tokens, MAX_TOKENS),
            ("max_num_seqs", "max_num_seqs", c.max_num_seqs, MAX_TOKENS),
            ("max_num_batched_tokens", "max_num_batched_tokens", c.max_num_batched_tokens, MAX_TOKENS),
            ("requests", "number of requests", c.requests, MAX_REQUESTS),
            ("tp", "tensor-parallel degree", c.tp, MAX_TP),
            ("replicas", "replica count", c.replicas, MAX_REPLICAS)):
        if v < 1:
            _fail(setting, f"{words} must be at least 1, got {v}")
        if v > hi:
            _fail(setting, f"{words} must be at most {hi:,}, got {v:,}")
    if c.max_num_batched_tokens < c.max_num_seqs and c.policy == "continuous":
        _fail("max_num_batched_tokens",
              f"max_num_batched_tokens ({c.max_num_batched_tokens}) must be at least max_num_seqs "
              f"({c.max_num_seqs}): every running sequence needs one token of the step budget")
    _real(c.priority_fraction, "priority_fraction", "priority fraction", 0, 1)
    _real(c.hot_prefix_fraction, "hot_prefix_fraction", "hot-prefix fraction", 0, 1)
    _real(c.gpu_memory_utilization, "gpu_memory_utilization", "GPU memory utilization", 0, 1, lo_open=True)
    _real(c.mfu, "mfu", "MFU (fraction of peak FLOPs)", 0, 1, lo_open=True)
    _real(c.hbm_efficiency, "hbm_efficiency", "HBM efficiency (fraction of peak bandwidth)", 0, 1, lo_open=True)
    _real(c.step_overhead_s, "step_overhead_s", "step overhead (s)", 0, 10)
    _real(c.slo_ttft_s, "slo_ttft_s", "TTFT objective (s)", 0, 1e6, lo_open=True)
    if c.slo_tpot_s is not None:
        _real(c.slo_tpot_s, "slo_tpot_s", "time-per-token objective (s)", 0, 1e6, lo_open=True)
    if c.interconnect_gbs is not None:
        _real(c.interconnect_gbs, "interconnect_gbs", "interconnect bandwidth (GB/s)", 0, 1e6, lo_open=True)
    if c.allreduce_latency_s is not None:
        _real(c.allreduce_latency_s, "allreduce_latency_s", "all-reduce latency (s)", 0, 1)
    if c.kv_cache_tokens is not None and not 16 <= c.kv_cache_tokens <= 10**12:
        _fail("kv_cache_tokens", f"KV cache size must be at least one 16-token block, got {c.kv_cache_tokens}")
    if c.prefixes < 0 or c.prefix_tokens < 0:
        _fail("prefixes" if c.prefixes < 0 else "prefix_tokens",
              f"shared prefixes and their length must not be negative, got {c.prefixes} and {c.prefix_tokens}")
    if (c.prefixes > 0) != (c.prefix_tokens > 0):
        _fail("prefix_tokens" if c.prefixes else "prefixes",
              "shared prefixes need both a count and a length in tokens "
              f"(got {c.prefixes} prefixes of {c.prefix_tokens} tokens)")
    if c.prefixes > 1_000_000:
        _fail("prefixes", f"shared prefixes must be at most 1,000,000, got {c.prefixes:,}")
    if c.router == "prefix-affinity" and not c.prefixes:
        _fail("router", "the prefix-affinity router needs a shared-prefix workload (a count of prefixes and "
                        "their length)")
