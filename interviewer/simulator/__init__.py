"""Discrete-event simulation of LLM serving: a fleet of replicas (each ``tp`` GPUs) behind a
router, serving a Poisson stream of requests.

Two policies per replica (:mod:`.replica`):

* ``continuous``: iteration-level scheduling as in vLLM. Before every model step the scheduler
  (1) makes sure the KV cache can hold one more token for every decoding sequence, evicting
  unused cached prefixes and then preempting by recompute when it cannot: the victim is the
  lowest-priority, most recently admitted running sequence; its KV blocks are freed and it goes
  back to the *front* of the waiting queue, to be re-prefilled later over its prompt plus the
  tokens it had generated; (2) gives every decoding sequence one token of the step's budget
  (``max_num_batched_tokens``); (3) continues partly prefilled prompts (chunked prefill); (4)
  admits waiting requests, priority first then FIFO, while running < ``max_num_seqs``, the token
  budget is not spent, and the free KV blocks can hold the request's prompt + 1 token. The queue
  is strict: a head that does not fit blocks the ones behind it.
* ``static``: when the replica is idle and requests wait, take up to ``max_num_seqs`` of them
  (as many as the KV cache holds at the padded size), prefill them together (padded to the
  longest prompt), and decode until the longest output is done; the batch is returned together.

Cost model (:mod:`.cost`): memory time (weights and KV shards over HBM bandwidth), compute time
(2 x active parameters x tokens over the replica's TFLOPS), a per-layer all-reduce for tensor
parallelism from the interconnect bandwidth, and a fixed step overhead; every assumption is
listed in ``SimResult.assumptions``.

Fleet (:mod:`.fleet`): routers round-robin, random, least-outstanding, most-free-kv,
prefix-affinity and shared-queue. Prefix caching: with ``prefixes`` K and ``prefix_tokens`` P,
every prompt starts with one of K shared system prompts of P tokens (then ``prompt_tokens`` of
its own). A replica that holds that prefix in its KV cache (whole 16-token blocks) skips its
prefill; cached prefixes live in the KV blocks, pinned while read, evicted least recently used.

The first output token is produced by the step that finishes the prompt's prefill; each later
token by one decode step. TTFT = first token - arrival; e2e = last token - arrival; wait =
first scheduling - arrival. KV capacity per replica comes from :func:`interviewer.capacity.compute`
(``max_tokens_in_cache`` at the TP degree), counted in 16-token blocks; ``kv_cache_tokens``
overrides it.

Speed: when no prefill is in flight, a replica's decoders advance in lock-step, so it jumps to
its next event (a completion, or the step at which the KV cache runs out) and sums the step times
in closed form; an arrival it could admit cuts the jump at the next step boundary. KV blocks held
by all decoders are tracked with a 16-bucket histogram, so every event costs O(log n).

Queueing theory, checked by the tests: with fixed lengths and ``max_num_seqs=1`` one replica is
M/D/1 (Wq = rho S / (2 (1 - rho))); with exponential lengths, random routing makes each replica
M/G/1 (Pollaczek-Khinchine) and a shared queue makes the fleet M/M/c (Erlang C).

Lengths: "fixed" uses the mean; "exponential" draws round(Exp(mean)) >= 1; "uniform" draws
integers in [1, 2 x mean - 1]. Mean lengths that do not fit the context or the KV cache are
refused; single drawn lengths beyond them are clipped.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
from pydantic import ValidationError

from interviewer import capacity
from interviewer.errors import UserError
from interviewer.simulator import cost as cost_model
from interviewer.simulator import fleet
from interviewer.simulator.config import ROUTERS, ReplicaStats, SimConfig, SimResult, validate  # noqa: F401
from interviewer.simulator.replica import ContinuousReplica, StaticReplica
from interviewer.simulator.request import Request, Requests, State, workload  # noqa: F401

BLOCK = capacity.BLOCK_TOKENS

__all__ = ["SimConfig", "SimResult", "ReplicaStats", "RequestTrace", "ROUTERS", "simulate", "simulate_detailed",
           "sweep", "make_config", "format_result", "validate", "State", "Request"]


@dataclass
class RequestTrace:
    """Per-request arrays (seconds, tokens) for plots; index = request id in arrival order."""

    arrival_s: np.ndarray
    first_scheduled_s: np.ndarray
    first_token_s: np.ndarray
    finish_s: np.ndarray
    prompt_tokens: np.ndarray
    output_tokens: np.ndarray
    priority: np.ndarray
    preemptions: np.ndarray
    replica: Optional[np.ndarray] = None
    prefix: Optional[np.ndarray] = None
    prefix_hit: Optional[np.ndarray] = None

    @property
    def ttft_s(self) -> np.ndarray:
        return self.first_token_s - self.arrival_s

    @property
    def e2e_s(self) -> np.ndarray:
        return self.finish_s - self.arrival_s

    @property
    def wait_s(self) -> np.ndarray:
        return self.first_scheduled_s - self.arrival_s


# --------------------------------------------------------------------------- setup


def _setup(config: SimConfig):
    """Model, GPU, the replica's KV budget and cost model, and the cost-model terms."""
    model = capacity.find_model(config.model)
    gpu = capacity.find_gpu(config.gpu)
    cap = capacity.compute(model, gpu, weights_dtype=config.weights_dtype, kv_dtype=config.kv_dtype,
                           gpu_memory_utilization=config.gpu_memory_utilization, tp=config.tp, levers=False)
    cache_tokens = cap.max_tokens_in_cache if config.kv_cache_tokens is None else int(config.kv_cache_tokens)
    total_blocks = cache_tokens // BLOCK
    if total_blocks < 1:
        raise capacity.SettingError("tp", f"{model.id} on {config.tp} x {gpu.id} leaves no room for a KV cache "
                                          f"block; use more GPUs per replica or smaller weights")
    cost, assumptions = cost_model.build(
        model, gpu, cap, tp=config.tp, weights_dtype=config.weights_dtype, mfu=config.mfu,
        hbm_efficiency=config.hbm_efficiency, step_overhead_s=config.step_overhead_s,
        interconnect_gbs=config.interconnect_gbs, allreduce_latency_s=config.allreduce_latency_s)
    on = f"{config.tp} x {gpu.id}" if config.tp > 1 else gpu.id
    terms = [
        f"{model.id} on {on}: weights {cap.weights_bytes / 2**30:,.2f} GiB ({config.weights_dtype}), "
        f"KV {cap.kv_bytes_per_token:,} bytes/token ({config.kv_dtype})"
        + (f", {cost.weights / 2**30:,.2f} GiB and {cost.kv:,.0f} KV bytes/token per GPU" if config.tp > 1 else ""),
        f"KV cache per replica: {total_blocks * BLOCK:,} tokens = {total_blocks:,} blocks of {BLOCK}"
        + (" (override)" if config.kv_cache_tokens is not None
           else f" (capacity at utilization {config.gpu_memory_utilization:g})"),
        f"step = max((weights + KV read) per GPU / ({gpu.hbm_bandwidth_gbs:g} GB/s x {config.hbm_efficiency:g}), "
        f"2 x {model.active_params / 1e9:g}e9 x tokens / ({config.tp} GPU x peak TFLOPS x MFU {config.mfu:g}))"
        + (" + all-reduce" if config.tp > 1 else "") + f" + {config.step_overhead_s * 1e3:g} ms overhead",
    ]
    return model, cap, cost, total_blocks, terms, assumptions


def _replicas(config: SimConfig, cost, total_blocks: int, jump: bool) -> list:
    if config.policy == "static":
        return [StaticReplica(i, cost, total_blocks * BLOCK, config.max_num_seqs) for i in range(config.replicas)]
    prefix_blocks = config.prefix_tokens // BLOCK if config.prefixes else 0
    return [ContinuousReplica(i, cost, total_blocks, config.max_num_seqs, config.max_num_batched_tokens, jump,
                              prefix_blocks) for i in range(config.replicas)]


# --------------------------------------------------------------------------- summary


def _pct(x: np.ndarray, q: float) -> float:
    return float(np.percentile(x, q)) if len(x) else float("nan")


def _pcts(x: np.ndarray, qs: list) -> list[float]:
    """Several percentiles of x in one pass (the same values as one _pct each)."""
    return [float(v) for v in np.percentile(x, qs)] if len(x) else [float("nan")] * len(qs)


def _trace(requests: Requests) -> RequestTrace:
    """The per-request arrays: the workload's columns and what the run wrote for each request."""
    f = np.array
    n = requests.n
    return RequestTrace(
        first_scheduled_s=f(requests.first_sched), first_token_s=f(requests.first_tok),
        finish_s=f(requests.finish), preemptions=requests.preemptions,
        replica=np.zeros(n, dtype=np.int64) if requests.replica is None else f(requests.replica, dtype=np.int64),
        prefix_hit=requests.hit, **requests.columns)


def _per_replica(config: SimConfig, trace: RequestTrace, done: np.ndarray, reps: list, makespan: float,
                 whole: dict) -> list[ReplicaStats]:
    """Each replica's figures; ``whole`` holds the fleet's, which are one replica's when it is alone."""
    n = len(trace.arrival_s)
    out = []
    with_prefix = trace.prefix >= 0
    for rep in reps:
        if len(reps) == 1:
            figures = dict(whole, requests=n, share=1.0)
        else:
            mine = trace.replica == rep.idx
            ok = mine & done
            ttft, wait = trace.ttft_s[ok], trace.wait_s[ok]
            hits = ok & with_prefix
            p50, p99 = _pcts(ttft, [50, 99])
            figures = dict(
                requests=int(mine.sum()), completed=int(ok.sum()), share=float(mine.sum() / n),
                ttft_p50_s=p50, ttft_p99_s=p99, wait_mean_s=float(wait.mean()) if len(wait) else float("nan"),
                prefix_hit_rate=float(trace.prefix_hit[hits].mean()) if config.prefixes and hits.any() else None)
        out.append(ReplicaStats(
            replica=rep.idx, mean_batch_size=rep.batch_sum / rep.steps if rep.steps else 0.0,
            busy_fraction=min(1.0, rep.busy_s / makespan) if makespan > 0 else 0.0,
            preemptions=int(rep.preemptions), **figures))
    return out


def simulate_detailed(config: SimConfig, _jump: bool = True) -> tuple[SimResult, RequestTrace]:
    """Run one simulation; return the summary and the per-request arrays.

    ``_jump=False`` (for tests) executes every decode step one by one instead of jumping
    between events; the results must be the same.
    """
    validate(config)
    model, cap, cost, total_blocks, terms, assumptions = _setup(config)
    requests = workload(config, model.max_context, total_blocks * BLOCK)
    reps = _replicas(config, cost, total_blocks, _jump)
    events = fleet.run(requests, reps, config.router, config.seed)
    trace = _trace(requests)
    arr = trace.arrival_s
    done = ~np.isnan(trace.finish_s)
    outl = trace.output_tokens
    if done.all():  # the usual case: no masks to apply
        ttft, e2e, wait, fin, out_done = trace.ttft_s, trace.e2e_s, trace.wait_s, trace.finish_s, outl
    else:
        ttft, e2e, wait = trace.ttft_s[done], trace.e2e_s[done], trace.wait_s[done]
        fin, out_done = trace.finish_s[done], outl[done]
    makespan = float(np.max(fin) - arr[0]) if len(fin) else 0.0
    out_tokens = int(out_done.sum())
    prompt_mean = config.prompt_tokens + (config.prefix_tokens if config.prefixes else 0)
    lone_prefill = cost.step(prompt_mean, prompt_mean)
    step1 = cost.step(prompt_mean, 1)
    tpot = np.where(out_done > 1, (e2e - ttft) / np.maximum(out_done - 1, 1), 0.0)
    good = ttft <= config.slo_ttft_s
    if config.slo_tpot_s is not None:
        good &= tpot <= config.slo_tpot_s
    steps = sum(r.steps for r in reps)
    batch_sum = sum(r.batch_sum for r in reps)
    with_prefix = done & (trace.prefix >= 0)
    prio = trace.priority
    hi, lo = done & prio, done & ~prio
    fleet_note = ""
    if config.replicas > 1:
        fleet_note = f"; {config.replicas} replicas behind a {config.router} router"
    prefix_note = ""
    if config.prefixes:
        prefix_note = (f"; {config.prefixes} shared prefixes of {config.prefix_tokens} tokens"
                       + (f" ({config.hot_prefix_fraction:.0%} of requests on prefix 0)" if config.hot_prefix_fraction
                          else "")
                       + ("" if config.policy == "continuous" else " (static batching caches no prefixes)"))
    completed = int(done.sum())
    ttft_p50, ttft_p95, ttft_p99 = _pcts(ttft, [50, 95, 99])
    e2e_p50, e2e_p99 = _pcts(e2e, [50, 99])
    hit_rate = float(trace.prefix_hit[with_prefix].mean()) if config.prefixes and with_prefix.any() else None
    whole = dict(completed=completed, ttft_p50_s=ttft_p50, ttft_p99_s=ttft_p99,
                 wait_mean_s=float(wait.mean()) if len(wait) else float("nan"), prefix_hit_rate=hit_rate)
    res = SimResult(
        policy=config.policy, arrival_rate=config.arrival_rate, requests=config.requests,
        completed=completed,
        ttft_mean_s=float(ttft.mean()), ttft_p50_s=ttft_p50, ttft_p95_s=ttft_p95,
        ttft_p99_s=ttft_p99, e2e_mean_s=float(e2e.mean()), e2e_p50_s=e2e_p50,
        e2e_p99_s=e2e_p99, wait_mean_s=float(wait.mean()), wait_p99_s=_pct(wait, 99),
        throughput_tokens_per_s=out_tokens / makespan if makespan > 0 else 0.0,
        requests_per_s=completed / makespan if makespan > 0 else 0.0,
        makespan_s=makespan, preemptions=int(sum(r.preemptions for r in reps)),
        mean_batch_size=batch_sum / steps if steps else 0.0, steps=int(steps),
        kv_cache_tokens=total_blocks * BLOCK, prefill_s=lone_prefill, decode_step_s=step1,
        tp=config.tp, replicas=config.replicas, router=config.router,
        per_replica=_per_replica(config, trace, done, reps, makespan, whole),
        prefix_hit_rate=hit_rate,
        tpot_mean_s=float(tpot.mean()) if len(tpot) else 0.0,
        slo_ttft_s=config.slo_ttft_s, slo_tpot_s=config.slo_tpot_s,
        slo_attainment=float(good.mean()) if len(good) else 0.0,
        goodput_rps=float(good.sum()) / makespan if makespan > 0 else 0.0,
        goodput_tokens_per_s=float(out_done[good].sum()) / makespan if makespan > 0 else 0.0,
        events=events, assumptions=assumptions,
        terms=terms + [
            f"one prefill of {prompt_mean} tokens alone: {lone_prefill * 1e3:,.2f} ms; "
            f"one decode step at batch 1: {step1 * 1e3:,.2f} ms",
            f"load: {config.arrival_rate:g} req/s x (prompt {config.prompt_tokens} {config.prompt_dist}, "
            f"output {config.output_tokens} {config.output_dist}); {config.requests:,} requests, seed {config.seed}"
            + fleet_note + prefix_note,
        ],
    )
    if prio.any() and (~prio).any():
        t_hi = trace.ttft_s[hi]
        t_lo = trace.ttft_s[lo]
        res.ttft_priority_mean_s = float(t_hi.mean())
        res.ttft_normal_mean_s = float(t_lo.mean())
        res.ttft_priority_p99_s = _pct(t_hi, 99)
        res.ttft_normal_p99_s = _pct(t_lo, 99)
    return res, trace


def simulate(config: SimConfig) -> SimResult:
    """Run one simulation and return its summary (see the module docstring for the model)."""
    return simulate_detailed(config)[0]


def sweep(config: SimConfig, rates) -> list[SimResult]:
    """The same configuration at each arrival rate (req/s), e.g. for TTFT-percentile-vs-load plots."""
    return [simulate(config.model_copy(update={"arrival_rate": float(r)})) for r in rates]


def make_config(**kwargs) -> SimConfig:
    """SimConfig from keyword arguments, with pydantic's errors turned into a one-line UserError."""
    try:
        return SimConfig(**{k: v for k, v in kwargs.items() if v is not None})
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err.get("loc", ()))
        raise UserError(f"invalid simulation setting {loc}: {err.get('msg', 'invalid value')}") from None


def format_result(result: SimResult) -> str:
    """A readable table: the cost-model terms and assumptions, then the latency and throughput figures."""
    fleet_txt = f", {result.replicas} replicas ({result.router})" if result.replicas > 1 else ""
    lines = [f"Simulation: {result.policy} batching, {result.arrival_rate:g} req/s{fleet_txt}, "
             f"{result.completed:,}/{result.requests:,} requests completed", ""]
    lines += [f"  {t}" for t in result.terms]
    lines += ["", "Assumptions:"] + [f"  {a}" for a in result.assumptions]
    lines.append("")
    rows = [
        ("ttft_mean_s", result.ttft_mean_s), ("ttft_p50_s", result.ttft_p50_s),
        ("ttft_p95_s", result.ttft_p95_s), ("ttft_p99_s", result.ttft_p99_s),
        ("wait_mean_s (queueing)", result.wait_mean_s), ("e2e_mean_s", result.e2e_mean_s),
        ("e2e_p99_s", result.e2e_p99_s), ("throughput_tokens_per_s", result.throughput_tokens_per_s),
        (f"goodput_rps (TTFT <= {result.slo_ttft_s:g} s)", result.goodput_rps),
        ("mean_batch_size", result.mean_batch_size), ("preemptions", result.preemptions),
        ("makespan_s", result.makespan_s),
    ]
    if result.prefix_hit_rate is not None:
        rows.append(("prefix_hit_rate", result.prefix_hit_rate))
    if result.ttft_priority_mean_s is not None:
        rows += [("ttft_priority_mean_s", result.ttft_priority_mean_s),
                 ("ttft_normal_mean_s", result.ttft_normal_mean_s)]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        val = f"{v:,}" if isinstance(v, int) else f"{v:,.4f}"
        lines.append(f"  {k.ljust(width)}  {val}")
    if result.replicas > 1:
        lines += ["", "  replica  share  TTFT p50 / p99 (s)  batch  busy  hit rate"]
        for r in result.per_replica:
            hit = "-" if r.prefix_hit_rate is None else f"{r.prefix_hit_rate:.2f}"
            lines.append(f"  {r.replica:>7}  {r.share:5.2f}  {r.ttft_p50_s:8.3f} / {r.ttft_p99_s:<8.3f}  "
                         f"{r.mean_batch_size:5.1f}  {r.busy_fraction:4.2f}  {hit}")
    return "\n".join(lines)
