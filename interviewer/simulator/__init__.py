"""Discrete-event simulation of one GPU serving a Poisson stream of LLM requests.

Two policies:

* ``continuous``: iteration-level scheduling as in vLLM. Before every model step the scheduler
  (1) makes sure the KV cache can hold one more token for every decoding sequence, preempting
  by recompute when it cannot: the victim is the lowest-priority, most recently admitted running
  sequence; its KV blocks are freed and it goes back to the *front* of the waiting queue, to be
  re-prefilled later over its prompt plus the tokens it had generated; (2) gives every decoding
  sequence one token of the step's budget (``max_num_batched_tokens``); (3) continues partly
  prefilled prompts (chunked prefill); (4) admits waiting requests, priority first then FIFO,
  while running < ``max_num_seqs``, the token budget is not spent, and the free KV blocks can
  hold the request's prompt + 1 token. The queue is strict: a head that does not fit blocks
  the ones behind it. A prompt longer than the remaining budget is prefilled in chunks over
  several steps, mixed with the decodes.
* ``static``: when the GPU is idle and requests wait, take up to ``max_num_seqs`` of them (as
  many as the KV cache holds at the padded size, longest prompt + longest output each), prefill
  them together (padded to the longest prompt), and decode until the longest output is done;
  the finished ones idle in the batch. The batch is returned together (a plain ``generate()``
  call); then the next batch forms from whoever waits.

Cost model (physical, per model step; no measured constants beyond the two efficiencies):

* memory time = (weights bytes + KV bytes touched) / (HBM bandwidth x ``hbm_efficiency``). A
  decode step reads all weights once and every running sequence's whole KV context (its
  tokens so far x KV bytes per token); a prefill chunk reads/writes KV for its prefix and
  chunk.
* compute time = 2 x (active) parameters x tokens in the step / (dense fp16 TFLOPS x ``mfu``),
  tokens = prefill tokens + one per decoding sequence. Attention FLOPs are left out.
* step time = max(memory time, compute time) + ``step_overhead_s`` (scheduler and kernel
  launches). A pure-decode step is memory bound at small batch; a prefill chunk is compute
  bound; a mixed step costs the larger of the two, as with vLLM's chunked prefill.

The first output token is produced by the step that finishes the prompt's prefill; each later
token by one decode step. TTFT = first token - arrival; e2e = last token - arrival; wait =
first scheduling - arrival. KV capacity comes from :func:`interviewer.capacity.compute`
(``max_tokens_in_cache``), counted in 16-token blocks; ``kv_cache_tokens`` overrides it.

Speed: when no prefill is in flight, the decoders advance in lock-step, so the simulator jumps
straight to the next event (a completion, an arrival that could be admitted, or the step at
which the KV cache runs out) and sums the step times in closed form. KV blocks held by all
decoders are tracked with a 16-bucket histogram, so every event costs O(log n).

With fixed lengths and ``max_num_seqs=1`` the continuous policy is an M/D/1 queue (Poisson
arrivals, one server, deterministic service time S = prefill step + (output - 1) decode steps),
so the mean wait must match Wq = rho S / (2 (1 - rho)); the tests check this.

Lengths: "fixed" uses the mean; "exponential" draws round(Exp(mean)) >= 1; "uniform" draws
integers in [1, 2 x mean - 1]. Drawn lengths are clipped so prompt + output fits both the
model's context and the KV cache; fixed lengths that do not fit raise UserError.
"""
from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass
from typing import Literal, Optional

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from interviewer import capacity
from interviewer.errors import UserError

BLOCK = capacity.BLOCK_TOKENS
Dist = Literal["fixed", "exponential", "uniform"]


class SimConfig(BaseModel):
    """One simulation run. Rates in requests/s, lengths in tokens, times in seconds."""

    policy: Literal["continuous", "static"] = "continuous"
    arrival_rate: float = Field(default=1.0, description="Poisson arrival rate, requests per second")
    prompt_tokens: int = 512
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
    kv_cache_tokens: Optional[int] = Field(default=None, description="override the KV cache size, in tokens")
    mfu: float = Field(default=0.5, description="fraction of peak FLOPs a prefill achieves")
    hbm_efficiency: float = Field(default=1.0, description="fraction of peak HBM bandwidth achieved")
    step_overhead_s: float = Field(default=0.0005, description="fixed cost per model step")


class SimResult(BaseModel):
    """Summary of a run. Percentiles over completed requests; all times in seconds."""

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
    kv_cache_tokens: int
    prefill_s: float = Field(description="time of one lone prefill of a mean-length prompt")
    decode_step_s: float = Field(description="time of one decode step at batch 1, short context")
    ttft_priority_mean_s: Optional[float] = None
    ttft_normal_mean_s: Optional[float] = None
    ttft_priority_p99_s: Optional[float] = None
    ttft_normal_p99_s: Optional[float] = None
    terms: list[str] = Field(default_factory=list)


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

    @property
    def ttft_s(self) -> np.ndarray:
        return self.first_token_s - self.arrival_s

    @property
    def e2e_s(self) -> np.ndarray:
        return self.finish_s - self.arrival_s

    @property
    def wait_s(self) -> np.ndarray:
        return self.first_scheduled_s - self.arrival_s


@dataclass
class _Env:
    weights: float
    kv: float
    bw: float
    flops: float
    p2: float
    ovh: float
    total_blocks: int
    cache_tokens: int
    max_context: int
    terms: list


# --------------------------------------------------------------------------- setup


def _fail(msg: str) -> None:
    raise UserError(msg)


def validate(config: SimConfig) -> None:
    """Raise UserError (one line) for numbers that make no sense."""
    c = config
    if not (math.isfinite(c.arrival_rate) and c.arrival_rate > 0):
        _fail(f"--arrival-rate must be a positive number of requests per second, got {c.arrival_rate:g}")
    for flag, v in (("--prompt-tokens", c.prompt_tokens), ("--output-tokens", c.output_tokens),
                    ("--max-num-seqs", c.max_num_seqs), ("--max-num-batched-tokens", c.max_num_batched_tokens),
                    ("--requests", c.requests)):
        if v < 1:
            _fail(f"{flag} must be at least 1, got {v}")
    if c.max_num_batched_tokens < c.max_num_seqs and c.policy == "continuous":
        _fail(f"--max-num-batched-tokens ({c.max_num_batched_tokens}) must be at least --max-num-seqs "
              f"({c.max_num_seqs}): every running sequence needs one token of the step budget")
    if not (0 <= c.priority_fraction <= 1):
        _fail(f"priority_fraction must be between 0 and 1, got {c.priority_fraction:g}")
    if not (0 < c.gpu_memory_utilization <= 1):
        _fail(f"--gpu-memory-utilization must be in (0, 1], got {c.gpu_memory_utilization:g}")
    for name, v in (("mfu", c.mfu), ("hbm_efficiency", c.hbm_efficiency)):
        if not (0 < v <= 1):
            _fail(f"{name} must be in (0, 1], got {v:g}")
    if c.step_overhead_s < 0:
        _fail(f"step_overhead_s must not be negative, got {c.step_overhead_s:g}")
    if c.kv_cache_tokens is not None and c.kv_cache_tokens < BLOCK:
        _fail(f"kv_cache_tokens must be at least one {BLOCK}-token block, got {c.kv_cache_tokens}")
    if c.requests > 10_000_000:
        _fail(f"--requests must be at most 10,000,000, got {c.requests}")


def _env(config: SimConfig) -> _Env:
    model = capacity.find_model(config.model)
    gpu = capacity.find_gpu(config.gpu)
    cap = capacity.compute(model, gpu, weights_dtype=config.weights_dtype, kv_dtype=config.kv_dtype,
                           gpu_memory_utilization=config.gpu_memory_utilization)
    cache_tokens = cap.max_tokens_in_cache if config.kv_cache_tokens is None else int(config.kv_cache_tokens)
    total_blocks = cache_tokens // BLOCK
    bw = gpu.hbm_bandwidth_gbs * 1e9 * config.hbm_efficiency
    flops = gpu.tflops_fp16 * 1e12 * config.mfu
    env = _Env(weights=float(cap.weights_bytes), kv=float(cap.kv_bytes_per_token), bw=bw, flops=flops,
               p2=2.0 * model.active_params, ovh=float(config.step_overhead_s), total_blocks=total_blocks,
               cache_tokens=total_blocks * BLOCK, max_context=model.max_context, terms=[])
    env.terms = [
        f"{model.id} on {gpu.id}: weights {cap.weights_bytes / 2**30:,.2f} GiB ({config.weights_dtype}), "
        f"KV {cap.kv_bytes_per_token:,} bytes/token ({config.kv_dtype})",
        f"KV cache: {env.cache_tokens:,} tokens = {total_blocks:,} blocks of {BLOCK}"
        + (" (override)" if config.kv_cache_tokens is not None else f" (capacity at utilization {config.gpu_memory_utilization:g})"),
        f"decode step = max((weights + KV read) / ({gpu.hbm_bandwidth_gbs:g} GB/s x {config.hbm_efficiency:g}), "
        f"2 x {model.active_params / 1e9:g}e9 x tokens / ({gpu.tflops_fp16:g} TFLOPS x MFU {config.mfu:g})) "
        f"+ {config.step_overhead_s * 1e3:g} ms overhead",
    ]
    return env


def _step_time(env: _Env, ctx_tokens: float, tokens: int) -> float:
    mem = (env.weights + env.kv * ctx_tokens) / env.bw
    comp = env.p2 * tokens / env.flops
    return max(mem, comp) + env.ovh


def _lengths(rng: np.random.Generator, mean: int, dist: str, n: int) -> np.ndarray:
    if dist == "fixed":
        return np.full(n, mean, dtype=np.int64)
    if dist == "exponential":
        return np.maximum(1, np.rint(rng.exponential(mean, n))).astype(np.int64)
    return rng.integers(1, 2 * mean, size=n, endpoint=False).astype(np.int64)  # mean = mean


def _workload(config: SimConfig, env: _Env):
    rng = np.random.default_rng(config.seed)
    n = config.requests
    arrivals = np.cumsum(rng.exponential(1.0 / config.arrival_rate, n))
    prompts = _lengths(rng, config.prompt_tokens, config.prompt_dist, n)
    outputs = _lengths(rng, config.output_tokens, config.output_dist, n)
    priority = rng.random(n) < config.priority_fraction
    cap = min(env.max_context, env.cache_tokens)
    if config.prompt_dist == "fixed" and config.output_dist == "fixed" and config.prompt_tokens + config.output_tokens > cap:
        what = "the model's context" if env.max_context <= env.cache_tokens else "the KV cache"
        _fail(f"prompt + output = {config.prompt_tokens + config.output_tokens} tokens does not fit {what} "
              f"({cap:,} tokens)")
    prompts = np.minimum(prompts, cap - 1)
    outputs = np.maximum(1, np.minimum(outputs, cap - prompts))
    return arrivals, prompts, outputs, priority


# --------------------------------------------------------------------------- continuous batching


def _run_continuous(config: SimConfig, env: _Env, arr, prom, outl, prio, jump: bool = True):
    n = len(arr)
    nan = float("nan")
    first_sched = [nan] * n
    first_tok = [nan] * n
    finish = [nan] * n
    npre = [0] * n
    generated = [0] * n
    state = [0] * n  # 0 waiting / not arrived, 1 prefilling, 2 decoding, 3 done
    epoch = [0] * n
    base = [0] * n
    fin = [0] * n
    target = [0] * n
    done_pf = [0] * n
    pf_blocks = [0] * n

    W, KV, BW, FL, P2, OVH = env.weights, env.kv, env.bw, env.flops, env.p2, env.ovh
    total_blocks = env.total_blocks
    max_seqs = config.max_num_seqs
    max_tokens = config.max_num_batched_tokens

    wait_hi: deque = deque()
    wait_lo: deque = deque()
    running: dict = {}  # rid -> None, in admission order
    prefilling: list = []
    heap: list = []

    G = 0
    now = 0.0
    ai = 0
    n_dec = 0
    sum_base = 0
    sum_a = 0
    cnt = [0] * BLOCK
    prefill_blocks = 0
    steps = 0
    batch_sum = 0
    preemptions = 0
    completed = 0

    def drop_decoder(rid: int) -> None:
        """Take a decoding sequence out of the block accounting (it finished or was preempted)."""
        nonlocal sum_base, sum_a, n_dec
        b = base[rid]
        a, m = divmod(b, BLOCK)
        sum_base -= b
        sum_a -= a
        cnt[m] -= 1
        n_dec -= 1

    def retire_finished(step: int, at: float) -> None:
        """Sequences whose last token was produced by `step` leave the batch and free their KV."""
        nonlocal completed
        while heap and heap[0][0] <= step:
            _f, rid, ep = heapq.heappop(heap)
            if state[rid] != 2 or epoch[rid] != ep:  # preempted since it was scheduled to finish
                continue
            drop_decoder(rid)
            state[rid] = 3
            finish[rid] = at
            generated[rid] = outl[rid]
            del running[rid]
            completed += 1

    next_prio = [n] * (n + 1)  # index of the first priority request at or after i
    for i in range(n - 1, -1, -1):
        next_prio[i] = i if prio[i] else next_prio[i + 1]

    def decode_blocks(g: int) -> int:
        q, r = divmod(g + BLOCK - 1, BLOCK)
        return sum_a + n_dec * q + (sum(cnt[BLOCK - r:]) if r else 0)

    while True:
        while ai < n and arr[ai] <= now:
            (wait_hi if prio[ai] else wait_lo).append(ai)
            ai += 1
        if not running and not wait_hi and not wait_lo:
            if ai >= n:
                break
            now = arr[ai]
            continue

        # (1) the KV cache must hold one more token for every decoder; else preempt by recompute
        while n_dec and decode_blocks(G) + prefill_blocks > total_blocks:
            victim = None
            for rid in reversed(running):
                if not prio[rid]:
                    victim = rid
                    break
            if victim is None:
                victim = next(reversed(running))
            if state[victim] == 2:
                generated[victim] = outl[victim] - (fin[victim] - G)
                drop_decoder(victim)
            else:
                prefilling.remove(victim)
                prefill_blocks -= pf_blocks[victim]
            del running[victim]
            state[victim] = 0
            epoch[victim] += 1
            npre[victim] += 1
            preemptions += 1
            (wait_hi if prio[victim] else wait_lo).appendleft(victim)

        # (2)-(3) decodes take one token each; partial prefills continue
        budget = max_tokens - n_dec
        chunks = []
        for rid in prefilling:
            if budget <= 0:
                break
            c = min(target[rid] - done_pf[rid], budget)
            chunks.append((rid, c, done_pf[rid]))
            budget -= c
        # (4) admit: priority first, then FIFO; strict head-of-line
        if budget > 0 and (wait_hi or wait_lo) and len(running) < max_seqs:
            free = total_blocks - decode_blocks(G) - prefill_blocks
            while budget > 0 and len(running) < max_seqs and (wait_hi or wait_lo):
                dq = wait_hi if wait_hi else wait_lo
                rid = dq[0]
                tgt = prom[rid] + generated[rid]
                need = (tgt + BLOCK) // BLOCK  # ceil((tgt + 1) / BLOCK)
                if need > free:
                    break
                dq.popleft()
                free -= need
                state[rid] = 1
                epoch[rid] += 1
                pf_blocks[rid] = need
                prefill_blocks += need
                target[rid] = tgt
                done_pf[rid] = 0
                prefilling.append(rid)
                running[rid] = None
                if first_sched[rid] != first_sched[rid]:  # NaN: first time scheduled
                    first_sched[rid] = now
                c = min(tgt, budget)
                chunks.append((rid, c, 0))
                budget -= c

        if chunks:
            # one mixed step: decodes + prefill chunks
            pf_tok = 0
            pf_kv = 0
            for _rid, c, d in chunks:
                pf_tok += c
                pf_kv += d + c
            ctx = sum_base + n_dec * G
            mem = (W + KV * (ctx + pf_kv)) / BW
            comp = P2 * (n_dec + pf_tok) / FL
            now += (mem if mem > comp else comp) + OVH
            G += 1
            steps += 1
            batch_sum += n_dec + len(chunks)
            retire_finished(G, now)  # decoders that finished on this step
            for rid, c, _d in chunks:
                done_pf[rid] += c
                if done_pf[rid] < target[rid]:
                    continue
                prefilling.remove(rid)
                prefill_blocks -= pf_blocks[rid]
                generated[rid] += 1
                if first_tok[rid] != first_tok[rid]:
                    first_tok[rid] = now
                if generated[rid] >= outl[rid]:
                    state[rid] = 3
                    finish[rid] = now
                    del running[rid]
                    completed += 1
                    continue
                # join the decoders: L = target + 1 tokens, needs ceil(L / 16) blocks next step
                b = target[rid] + 1 - G
                a, m = divmod(b, BLOCK)
                base[rid] = b
                sum_base += b
                sum_a += a
                cnt[m] += 1
                n_dec += 1
                state[rid] = 2
                fin[rid] = G + outl[rid] - generated[rid]
                heapq.heappush(heap, (fin[rid], rid, epoch[rid]))
            continue

        if not n_dec:  # pragma: no cover - lengths are clipped to the cache, so something always runs
            raise RuntimeError("simulator stalled: nothing runnable")

        # pure decode: jump to the next event
        while heap and (state[heap[0][1]] != 2 or epoch[heap[0][1]] != heap[0][2]):
            heapq.heappop(heap)
        k = heap[0][0] - G if jump else 1  # steps until the next completion
        avail = total_blocks - prefill_blocks
        if k > 1 and decode_blocks(G + k - 1) > avail:
            lo, hi = 1, k - 1  # decode_blocks(G + lo - 1) <= avail holds for lo = 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if decode_blocks(G + mid - 1) <= avail:
                    lo = mid
                else:
                    hi = mid - 1
            k = lo
        S0 = sum_base + n_dec * G
        A = (W + KV * S0) / BW
        B = KV * n_dec / BW
        C = P2 * n_dec / FL
        if A >= C:
            def T(kk, A=A, B=B):
                return kk * (A + OVH) + B * (kk * (kk - 1) // 2)
        else:
            js = math.ceil((C - A) / B) if B > 0 else 1 << 62

            def T(kk, A=A, B=B, C=C, js=js):
                j = js if js < kk else kk
                return j * C + (kk - j) * A + B * ((kk * (kk - 1) - j * (j - 1)) // 2) + kk * OVH
        # stop at the next arrival that could be admitted at once: any arrival when nobody waits,
        # a priority one when only normal requests wait (a blocked queue head blocks the rest)
        nxt = n
        if ai < n and not wait_hi and len(running) < max_seqs and n_dec < max_tokens:
            nxt = ai if not wait_lo else next_prio[ai]
        if nxt < n:
            D = arr[nxt] - now
            if T(k) > D:
                dt0 = T(1)
                if dt0 >= D:
                    k = 1
                else:
                    lo, hi = 1, min(k, int(D / dt0) + 1)  # T(lo) < D <= T(hi)
                    while hi - lo > 1:
                        mid = (lo + hi) // 2
                        if T(mid) >= D:
                            hi = mid
                        else:
                            lo = mid
                    k = hi
        now += T(k)
        G += k
        steps += k
        batch_sum += n_dec * k
        retire_finished(G, now)

    return first_sched, first_tok, finish, npre, steps, batch_sum, preemptions


# --------------------------------------------------------------------------- static batching


def _decode_run_time(env: _Env, batch: int, ctx0: int, k: int) -> float:
    """Sum of k decode steps for `batch` sequences whose context starts at ctx0 tokens each."""
    if k <= 0:
        return 0.0
    A = (env.weights + env.kv * batch * ctx0) / env.bw
    B = env.kv * batch / env.bw
    C = env.p2 * batch / env.flops
    js = 0 if A >= C else min(k, math.ceil((C - A) / B))
    return js * C + (k - js) * A + B * ((k * (k - 1) - js * (js - 1)) / 2) + k * env.ovh


def _run_static(config: SimConfig, env: _Env, arr, prom, outl, prio):
    n = len(arr)
    nan = float("nan")
    first_sched = [nan] * n
    first_tok = [nan] * n
    finish = [nan] * n
    wait_hi: deque = deque()
    wait_lo: deque = deque()
    now = 0.0
    ai = 0
    done = 0
    steps = 0
    batch_sum = 0
    while done < n:
        while ai < n and arr[ai] <= now:
            (wait_hi if prio[ai] else wait_lo).append(ai)
            ai += 1
        if not wait_hi and not wait_lo:
            now = arr[ai]
            continue
        batch: list = []
        mp = mo = 0
        while len(batch) < config.max_num_seqs and (wait_hi or wait_lo):
            dq = wait_hi if wait_hi else wait_lo
            rid = dq[0]
            p, o = max(mp, prom[rid]), max(mo, outl[rid])
            if batch and (len(batch) + 1) * (p + o) > env.cache_tokens:
                break
            dq.popleft()
            batch.append(rid)
            mp, mo = p, o
        b = len(batch)
        t_pf = _step_time(env, b * mp, b * mp)
        t_first = now + t_pf
        end = t_first + _decode_run_time(env, b, mp + 1, mo - 1)
        for rid in batch:
            first_sched[rid] = now
            first_tok[rid] = t_first
            finish[rid] = end
        steps += mo
        batch_sum += b * mo
        done += b
        now = end
    return first_sched, first_tok, finish, [0] * n, steps, batch_sum, 0


# --------------------------------------------------------------------------- public API


def _pct(x: np.ndarray, q: float) -> float:
    return float(np.percentile(x, q)) if len(x) else float("nan")


def simulate_detailed(config: SimConfig, _jump: bool = True) -> tuple[SimResult, RequestTrace]:
    """Run one simulation; return the summary and the per-request arrays.

    ``_jump=False`` (for tests) executes every decode step one by one instead of jumping
    between events; the results must be the same.
    """
    validate(config)
    env = _env(config)
    arr, prom, outl, prio = _workload(config, env)
    lists = (arr.tolist(), prom.tolist(), outl.tolist(), prio.tolist())
    if config.policy == "continuous":
        out = _run_continuous(config, env, *lists, jump=_jump)
    else:
        out = _run_static(config, env, *lists)
    fs, ft, fi, npre, steps, batch_sum, preemptions = out
    trace = RequestTrace(arrival_s=arr, first_scheduled_s=np.array(fs), first_token_s=np.array(ft),
                         finish_s=np.array(fi), prompt_tokens=prom, output_tokens=outl, priority=prio,
                         preemptions=np.array(npre, dtype=np.int64))
    done = ~np.isnan(trace.finish_s)
    ttft, e2e, wait = trace.ttft_s[done], trace.e2e_s[done], trace.wait_s[done]
    makespan = float(np.max(trace.finish_s[done]) - arr[0]) if done.any() else 0.0
    out_tokens = int(outl[done].sum())
    lone_prefill = _step_time(env, config.prompt_tokens, config.prompt_tokens)
    step1 = _step_time(env, config.prompt_tokens, 1)
    hi, lo = done & prio, done & ~prio
    res = SimResult(
        policy=config.policy, arrival_rate=config.arrival_rate, requests=config.requests,
        completed=int(done.sum()),
        ttft_mean_s=float(ttft.mean()), ttft_p50_s=_pct(ttft, 50), ttft_p95_s=_pct(ttft, 95),
        ttft_p99_s=_pct(ttft, 99), e2e_mean_s=float(e2e.mean()), e2e_p50_s=_pct(e2e, 50),
        e2e_p99_s=_pct(e2e, 99), wait_mean_s=float(wait.mean()), wait_p99_s=_pct(wait, 99),
        throughput_tokens_per_s=out_tokens / makespan if makespan > 0 else 0.0,
        requests_per_s=int(done.sum()) / makespan if makespan > 0 else 0.0,
        makespan_s=makespan, preemptions=int(preemptions),
        mean_batch_size=batch_sum / steps if steps else 0.0, steps=int(steps),
        kv_cache_tokens=env.cache_tokens, prefill_s=lone_prefill, decode_step_s=step1,
        terms=list(env.terms) + [
            f"one prefill of {config.prompt_tokens} tokens alone: {lone_prefill * 1e3:,.2f} ms; "
            f"one decode step at batch 1: {step1 * 1e3:,.2f} ms",
            f"load: {config.arrival_rate:g} req/s x (prompt {config.prompt_tokens} {config.prompt_dist}, "
            f"output {config.output_tokens} {config.output_dist}); {config.requests:,} requests, seed {config.seed}",
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
    """A readable table: the cost-model terms, then the latency and throughput figures."""
    lines = [f"Simulation: {result.policy} batching, {result.arrival_rate:g} req/s, "
             f"{result.completed:,}/{result.requests:,} requests completed", ""]
    lines += [f"  {t}" for t in result.terms]
    lines.append("")
    rows = [
        ("ttft_mean_s", result.ttft_mean_s), ("ttft_p50_s", result.ttft_p50_s),
        ("ttft_p95_s", result.ttft_p95_s), ("ttft_p99_s", result.ttft_p99_s),
        ("wait_mean_s (queueing)", result.wait_mean_s), ("e2e_mean_s", result.e2e_mean_s),
        ("e2e_p99_s", result.e2e_p99_s), ("throughput_tokens_per_s", result.throughput_tokens_per_s),
        ("mean_batch_size", result.mean_batch_size), ("preemptions", result.preemptions),
        ("makespan_s", result.makespan_s),
    ]
    if result.ttft_priority_mean_s is not None:
        rows += [("ttft_priority_mean_s", result.ttft_priority_mean_s),
                 ("ttft_normal_mean_s", result.ttft_normal_mean_s)]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        val = f"{v:,}" if isinstance(v, int) else f"{v:,.4f}"
        lines.append(f"  {k.ljust(width)}  {val}")
    return "\n".join(lines)
