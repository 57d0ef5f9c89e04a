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
    """One request while it is in the system: its lengths and its scheduling state.

    Records are issued at arrival by :meth:`Requests.issue`; what a run reports per request (its
    timestamps, preemptions, replica, prefix hit) is written to the :class:`Requests` arrays by
    request id, so a finished, never-preempted record is reused for a later arrival.

    prompt: tokens, shared prefix included. prefix: the shared system prompt's id, -1 for none.
    generated: output tokens so far (kept across a preemption: they are recomputed on re-admission;
    0 at the end of a prefill means that prefill gives the first token). preemptions: how often it
    was preempted (0 at an admission means its first; stale finish entries carry the count they
    were pushed with). target / done_pf: tokens this admission prefills (prompt + generated - cached
    prefix), and how many of them are done; pf_blocks: KV blocks reserved meanwhile. base: while
    decoding, own KV tokens minus the replica's step counter (own tokens = base + G); fin: the step
    counter at its last token. shared: tokens of a cached prefix it reads but does not own.
    """

    __slots__ = ("rid", "arrival", "prompt", "output", "priority", "prefix", "state", "generated", "preemptions",
                 "target", "done_pf", "pf_blocks", "base", "fin", "shared")


def _lengths(rng: np.random.Generator, mean: int, dist: str, n: int) -> np.ndarray:
    if dist == "fixed":
        return np.full(n, mean, dtype=np.int64)
    if dist == "exponential":
        return np.maximum(1, np.rint(rng.exponential(mean, n))).astype(np.int64)
    return rng.integers(1, 2 * mean, size=n, endpoint=False).astype(np.int64)  # mean = mean


def _as_list(column: np.ndarray) -> list:
    """column.tolist(), quicker when every value is the same (fixed lengths, no priority, no prefix)."""
    if len(column) and (column == column[0]).all():
        return [column[0].item()] * len(column)
    return column.tolist()


class Requests:
    """A run's requests: the drawn columns (numpy, for the trace; lists, for the event loop), the
    records issued at arrival, and what the run reports per request, preallocated and indexed by
    request id: timestamps (lists, NaN until reached), preemptions and prefix hits (arrays: written
    rarely) and, with a router, the replica each went to (a list; None for one replica)."""

    __slots__ = ("n", "columns", "arrival", "prompt", "output", "priority", "prefix", "first_sched", "first_tok",
                 "finish", "preemptions", "replica", "hit", "free")

    def __init__(self, arrival_s: np.ndarray, prompt_tokens: np.ndarray, output_tokens: np.ndarray,
                 priority: np.ndarray, prefix: np.ndarray):
        n = self.n = len(arrival_s)
        self.columns = dict(arrival_s=arrival_s, prompt_tokens=prompt_tokens, output_tokens=output_tokens,
                            priority=priority, prefix=prefix)
        self.arrival = arrival_s.tolist()
        self.prompt, self.output, self.priority, self.prefix = map(_as_list, (prompt_tokens, output_tokens, priority,
                                                                             prefix))
        self.first_sched, self.first_tok, self.finish = [NAN] * n, [NAN] * n, [NAN] * n
        self.preemptions = np.zeros(n, dtype=np.int64)
        self.hit = np.zeros(n, dtype=bool)  # set on the first prefill of a request whose prefix was cached
        self.replica: list[int] | None = None  # the fleet's event loop fills it in
        self.free: list[Request] = []  # finished records, never preempted, ready for reuse

    def issue(self, i: int) -> Request:
        """Request i's record at its arrival: WAITING, nothing generated."""
        free = self.free
        req = free.pop() if free else Request()
        req.rid = i
        req.arrival = self.arrival[i]
        req.prompt = self.prompt[i]
        req.output = self.output[i]
        req.priority = self.priority[i]
        req.prefix = self.prefix[i]
        req.state = WAITING
        req.generated = req.preemptions = 0
        return req


def workload(config: SimConfig, max_context: int, cache_tokens: int) -> Requests:
    """Poisson arrivals with drawn lengths; prompts start with one of the shared prefixes, if any.

    Mean lengths that cannot fit (the context or one replica's KV cache) are refused, whatever the
    distribution; single drawn lengths beyond it are clipped.
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
    return Requests(arrivals, prompts, outputs, priority, prefix)
