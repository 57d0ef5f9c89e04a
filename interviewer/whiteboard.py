"""The whiteboard in the round: run the candidate's stated limits, or fleet design, through the simulator."""
from __future__ import annotations

import re

import numpy as np

from interviewer.checks import CapacityCheck
from interviewer.evidence import Evidence

# A chat-like workload for the check: 1,000-token prompts, 300-token answers of varied length.
PROMPT_TOKENS, OUTPUT_TOKENS, REQUESTS = 1000, 300, 600
_INT = re.compile(r"(\d[\d,]*)\s*([kK])?")
_DURATION = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(ms|msec|milliseconds?|s|sec|secs|seconds?)\b", re.I)


def _value(ev: Evidence, item: str, lo: int, hi: int) -> int | None:
    """The number inside the first match of `item` (e.g. 64 from 'max_num_seqs of 64')."""
    for hit in ev.hits.get(item, []):
        span = ev.texts[hit.turn][hit.start:hit.end]
        for m in _INT.finditer(span):
            v = int(m.group(1).replace(",", "")) * (1000 if m.group(2) else 1)
            if lo <= v <= hi:
                return v
    return None


def _target_s(ev: Evidence) -> float | None:
    for hit in ev.hits.get("tail_target", []):
        m = _DURATION.search(ev.texts[hit.turn][hit.start:hit.end])
        if m:
            v = float(m.group(1).replace(",", ""))
            return v / 1000 if m.group(2).lower().startswith("m") else v
    return None


def simulate_candidate_limits(ev: Evidence, check: CapacityCheck | None) -> tuple[list[str], str] | None:
    """Simulate the candidate's max_num_seqs (and token budget) at a base load and twice it.

    Returns (facts, question) or None when the limits cannot be read. The base load is 40% of
    the throughput the configuration saturates at, so "twice the load" is 80%: busy, not broken.
    """
    from interviewer.errors import UserError
    from interviewer.simulator import SimConfig, simulate

    max_seqs = _value(ev, "max_seqs", 1, 4096)
    target = _target_s(ev)
    if max_seqs is None or target is None:
        return None
    budget = _value(ev, "token_budget", 256, 1_000_000) or 8192
    model = check.model if check else "llama-3-8b"
    gpu = check.gpu if check else "h100-80gb"
    base = dict(prompt_tokens=PROMPT_TOKENS, output_tokens=OUTPUT_TOKENS, output_dist="exponential",
                max_num_seqs=max_seqs, max_num_batched_tokens=max(budget, PROMPT_TOKENS), requests=REQUESTS,
                model=model, gpu=gpu, seed=7)
    try:
        saturated = simulate(SimConfig(arrival_rate=1e4, **base))
        rate = 0.4 * saturated.requests_per_s
        low = simulate(SimConfig(arrival_rate=rate, **base))
        high = simulate(SimConfig(arrival_rate=2 * rate, **base))
    except UserError:
        return None
    facts = [
        f"Setup: {model} on one {gpu}, max_num_seqs={max_seqs}, max_num_batched_tokens={base['max_num_batched_tokens']:,}, "
        f"{PROMPT_TOKENS:,}-token prompts, about {OUTPUT_TOKENS} output tokens (exponential), Poisson arrivals.",
        f"At {rate:.1f} req/s: p50 TTFT {low.ttft_p50_s:.2f} s, p99 TTFT {low.ttft_p99_s:.2f} s.",
        f"At {2 * rate:.1f} req/s (twice the load): p50 TTFT {high.ttft_p50_s:.2f} s, p99 TTFT {high.ttft_p99_s:.2f} s, "
        f"{high.preemptions} preemptions.",
    ]
    if high.ttft_p99_s > target:
        ask = (f"At twice the load your p99 TTFT is {high.ttft_p99_s:.1f} s against your {target:g} s target. "
               "Which limit moves, and what does that cost you?")
    else:
        ask = (f"Your limits hold the {target:g} s p99 target even at twice the load (p99 {high.ttft_p99_s:.2f} s). "
               "What's left idle at that setting, and would you raise max_num_seqs?")
    return facts, ask


def _say(x: float) -> str:
    """A number as it is said aloud: two significant figures, no trailing zeros."""
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.2g}" if x < 10 else f"{x:.0f}"


def _seconds(s: float) -> str:
    return f"{s * 1000:.0f} milliseconds" if s < 1 else f"{_say(s)} seconds"


def fleet_knee(config, steps: int = 4) -> float:
    """The arrival rate (req/s) where the p99 TTFT of `config` turns up: the highest rate whose p99
    stays within 3x (and 0.25 s of) its light-load value, found by bisection around the fleet's
    drain rate with every request queued at once (the middle 80% of completions)."""
    from interviewer.simulator import simulate, simulate_detailed

    n = config.requests
    _res, trace = simulate_detailed(config.model_copy(update={"arrival_rate": 1e4}))
    done = np.sort(trace.finish_s)
    lo_i, hi_i = int(0.1 * n), int(0.9 * n)
    drain = (hi_i - lo_i) / max(done[hi_i] - done[lo_i], 1e-9)

    def p99(rate: float) -> float:
        return simulate(config.model_copy(update={"arrival_rate": rate})).ttft_p99_s

    light = p99(0.1 * drain)
    limit = max(3 * light, light + 0.25)
    lo, hi = 0.2 * drain, 1.5 * drain
    if p99(hi) <= limit:
        return hi
    for _ in range(steps):  # geometric bisection: the knee is a ratio, not a difference
        mid = (lo * hi) ** 0.5
        if p99(mid) <= limit:
            lo = mid
        else:
            hi = mid
    return lo


def simulate_fleet_design(model: str, gpu: str, tp: int = 1, replicas: int = 1, router: str = "least-outstanding",
                          rate_rps: float | None = None, prompt_tokens: int = PROMPT_TOKENS,
                          output_tokens: int = OUTPUT_TOKENS, weights_dtype: str = "fp16",
                          slo_ttft_s: float | None = None, prefixes: int = 0, prefix_tokens: int = 0,
                          max_num_seqs: int = 256, seed: int = 7) -> tuple[list[str], str] | None:
    """Run a candidate's stated fleet design at twice its stated load; say what happens.

    Returns (facts, ask): one or two short spoken sentences with the key figures (where the fleet
    saturates, p99 TTFT at twice the load) and a question, or None when the model or GPU is
    unknown. A design that cannot hold the model (weights too big for the TP degree, a degree
    that does not divide the heads) gets a fact and a question about that instead. Without a
    stated rate, the base load is 40% of the saturation rate, as for the one-GPU check.
    """
    from interviewer import capacity
    from interviewer.errors import UserError
    from interviewer.simulator import SimConfig, simulate

    try:
        mspec, gspec = capacity.find_model(model), capacity.find_gpu(gpu)
    except UserError:
        return None
    name = mspec.name or mspec.id
    card = (gspec.name or gspec.id).split(" (")[0].removeprefix("NVIDIA ")
    gpus = f"{tp} {card} GPUs" if tp > 1 else f"one {card}"
    try:
        cap = capacity.compute(mspec, gspec, weights_dtype=weights_dtype, tp=tp, allow_no_fit=True, levers=False)
    except capacity.SettingError as exc:
        if exc.setting != "tp":
            return None
        return ([f"A tensor-parallel degree of {tp} doesn't split {name}'s attention heads evenly."],
                "Which degree would you use, and what does the interconnect have to carry at that degree?")
    if not cap.fits:
        need = (f"the smallest tensor-parallel degree that fits is {cap.min_tp}" if cap.min_tp
                else "no sensible tensor-parallel degree holds it")
        return ([f"{name} in {weights_dtype} is {cap.weights_bytes / 2**30:,.0f} GiB of weights, so it doesn't fit on "
                 f"{gpus} with room for a sequence: {need}."],
                "Would you shard it further or quantize, and what does each cost you?")
    n = min(2000, max(400, 100 * replicas))
    base = dict(model=mspec.id, gpu=gspec.id, tp=tp, replicas=replicas, router=router, weights_dtype=weights_dtype,
                prompt_tokens=prompt_tokens, output_tokens=output_tokens, output_dist="exponential",
                max_num_seqs=max_num_seqs, max_num_batched_tokens=max(8192, max_num_seqs, prompt_tokens),
                prefixes=prefixes, prefix_tokens=prefix_tokens, requests=n, seed=seed,
                slo_ttft_s=slo_ttft_s or 1.0)
    try:
        knee = fleet_knee(SimConfig(**base))
        rate = float(rate_rps) if rate_rps else 0.4 * knee
        high = simulate(SimConfig(arrival_rate=2 * rate, **base))
    except (UserError, ValueError):
        return None
    fleet = f"fleet of {replicas} replicas of {name} on {gpus} each" if replicas > 1 else f"{name} on {gpus}"
    facts = [f"Your {fleet} hits its knee near {_say(knee)} requests per second.",
             f"At twice your {_say(rate)} requests per second, p99 time to first token is "
             f"{_seconds(high.ttft_p99_s)} and p50 {_seconds(high.ttft_p50_s)}."]
    if slo_ttft_s:
        over = high.ttft_p99_s > slo_ttft_s
        ask = (f"That's {'over' if over else 'inside'} your {_say(slo_ttft_s)}-second target. "
               + ("What gives first: more replicas, a bigger tensor-parallel degree, or shedding load?" if over
                  else "How much of that headroom would you keep, and what would you autoscale on?"))
    elif 2 * rate > 0.9 * knee:
        ask = "Twice your load is past the knee. What gives first: more replicas, a bigger tensor-parallel degree, or shedding load?"
    else:
        ask = "Twice your load is still below the knee. How much headroom would you keep, and what would you autoscale on?"
    return facts, ask
