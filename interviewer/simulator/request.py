"""One request's record as it moves through a replica, and the workload that creates them."""
from __future__ import annotations

import enum

import numpy as np

from interviewer.simulator.config import SettingError, SimConfig


class State(enum.Enum):
    """Where a request is. A preempted request goes back to WAITING (at the head of its queue)."""

    WAITING = "waiting"  # routed to a replica (or a shared queue), not admitted yet
    PREFILLING = "prefilling"  # admitted; its prompt (plus any tokens it had generated) is being prefilled
    DECODING = "decoding"  # produces one token per step
    FINISHED = "finished"


WAITING, PREFILLING, DECODING, FINISHED = State.WAITING, State.PREFILLING, State.DECODING, State.FINISHED
NAN = float("nan")


class Request:
    """A request's lengths, its scheduling state and its timestamps (seconds; NaN until reached).

    prompt: tokens, shared prefix included. prefix: the shared system prompt's id, -1 for none.
    epoch: bumped at each admission and preemption, so stale finish entries are skipped.
    generated: output tokens so far (kept across a preemption: they are recomputed on re-admission).
    target / done_pf: tokens this admission prefills (prompt + generated - cached prefix), and
    how many of them are done; pf_blocks: KV blocks reserved meanwhile. base: while decoding, own
    KV tokens minus the replica's step counter (own tokens = base + G); fin: the step counter at
    its last token. shared: tokens of a cached prefix it reads but does not own. need: KV blocks
    its next admission needs (for the most-free-KV router). hit: its first prefill found its
    prefix cached.
    """

    __slots__ = ("rid", "arrival", "prompt", "output", "priority", "prefix", "state", "epoch", "generated",
                 "target", "done_pf", "pf_blocks", "base", "fin", "shared", "need", "replica", "hit",
                 "first_sched", "first_tok", "finish", "preemptions")

    def __init__(self, rid: int, arrival: float, prompt: int, output: int, priority: bool, prefix: int):
        self.rid, self.arrival, self.prompt, self.output, self.priority, self.prefix = \
            rid, arrival, prompt, output, priority, prefix
        self.state = WAITING
        self.epoch = self.generated = self.shared = self.preemptions = 0
        self.replica = -1
        # target, done_pf, pf_blocks (admission), base, fin (decoding) and need (queueing) are set
        # by the replica before they are read: leaving them out here keeps 100,000 requests cheap
        self.hit = False
        self.first_sched = self.first_tok = self.finish = NAN


def _lengths(rng: np.random.Generator, mean: int, dist: str, n: int) -> np.ndarray:
    if dist == "fixed":
        return np.full(n, mean, dtype=np.int64)
    if dist == "exponential":
        return np.maximum(1, np.rint(rng.exponential(mean, n))).astype(np.int64)
    return rng.integers(1, 2 * mean, size=n, endpoint=False).astype(np.int64)  # mean = mean


def workload(config: SimConfig, max_context: int, cache_tokens: int) -> tuple[list[Request], dict]:
    """Poisson arrivals with drawn lengths; prompts start with one of the shared prefixes, if any.

    Mean lengths that cannot fit (the context or one replica's KV cache) are refused, whatever the
    distribution; single drawn lengths beyond it are clipped. Returns the requests and the same
    columns as arrays (arrival_s, prompt_tokens, output_tokens, priority, prefix).
    """
    rng = np.random.default_rng(config.seed)
    n = config.requests
    arrivals = np.cumsum(rng.exponential(1.0 / config.arrival_rate, n))
    if not np.isfinite(arrivals[-1]):
        raise SettingError("arrival_rate", f"arrival rate {config.arrival_rate:g} req/s spreads {n:,} requests "
                                           "beyond any finite time; use a higher rate or fewer requests")
    own = _lengths(rng, config.prompt_tokens, config.prompt_dist, n)
    outputs = _lengths(rng, config.output_tokens, config.output_dist, n)
    priority = rng.random(n) < config.priority_fraction
    cap = min(max_context, cache_tokens)
    pre = config.prefix_tokens if config.prefixes else 0
    mean_total = pre + config.prompt_tokens + config.output_tokens
    if mean_total > cap:
        what = "the model's context" if max_context <= cache_tokens else "one replica's KV cache"
        parts = f"{pre} prefix + " if pre else ""
        avg = "" if config.prompt_dist == config.output_dist == "fixed" else " on average"
        raise SettingError("prompt_tokens", f"prompt + output = {parts}{config.prompt_tokens} + {config.output_tokens} "
                                            f"= {mean_total:,} tokens{avg} does not fit {what} ({cap:,} tokens)")
    own = np.minimum(own, cap - 1 - pre)
    prompts = own + pre
    outputs = np.maximum(1, np.minimum(outputs, cap - prompts))
    if config.prefixes:
        # drawn after the other streams, so a workload without prefixes is unchanged by this code
        prefix = rng.integers(0, config.prefixes, size=n)
        if config.hot_prefix_fraction > 0:
            prefix[rng.random(n) < config.hot_prefix_fraction] = 0
    else:
        prefix = np.full(n, -1, dtype=np.int64)
    reqs = list(map(Request, range(n), arrivals.tolist(), prompts.tolist(), outputs.tolist(), priority.tolist(),
                    prefix.tolist()))
    return reqs, dict(arrival_s=arrivals, prompt_tokens=prompts, output_tokens=outputs, priority=priority,
                      prefix=prefix)
