"""The whiteboard in the round: run the candidate's stated limits through the simulator."""
from __future__ import annotations

import re

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
