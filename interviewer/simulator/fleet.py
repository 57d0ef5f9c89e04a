"""R replicas behind a router, run by one event loop in time order.

Routers (chosen at each arrival, from the replicas' state at that moment):

* ``round-robin``: replicas in turn.
* ``random``: uniformly at random (each replica then sees a Poisson stream of rate/R).
* ``least-outstanding``: fewest requests routed and not finished (ties: the next in turn).
* ``most-free-kv``: most free KV blocks, counting unused cached prefixes as free and subtracting
  what its queue will need.
* ``prefix-affinity``: every request with shared prefix k goes to replica k mod R, so each replica
  caches only its own prefixes; requests without a prefix go to the least outstanding.
* ``shared-queue``: one queue in front of the fleet; a request goes to a replica only when that
  replica has room (fewer than max_num_seqs outstanding), else it waits in the shared queue and
  the first replica to free a slot takes it.
"""
from __future__ import annotations

import heapq
from collections import deque

import numpy as np

from interviewer.simulator.replica import JUMP
from interviewer.simulator.request import WAITING, Request, Requests


class _Router:
    central = None  # the shared queue, for shared-queue only

    def __init__(self, replicas: list, seed: int, requests: Requests):
        self.reps = replicas
        self.R = len(replicas)
        self.turn = 0

    def least_outstanding(self):
        reps, R, start = self.reps, self.R, self.turn
        best, best_o = start, reps[start].outstanding
        for j in range(1, R):
            i = start + j
            if i >= R:
                i -= R
            o = reps[i].outstanding
            if o < best_o:
                best, best_o = i, o
        self.turn = best + 1 if best + 1 < R else 0
        return reps[best]


class RoundRobin(_Router):
    def pick(self, req: Request):
        i = self.turn
        self.turn = i + 1 if i + 1 < self.R else 0
        return self.reps[i]


class Random(_Router):
    def __init__(self, replicas, seed, requests):
        super().__init__(replicas, seed, requests)
        # a stream of its own, so the workload's draws do not depend on the router
        self.choice = iter(np.random.default_rng([seed, 7]).integers(0, self.R, requests.n).tolist())

    def pick(self, req):
        return self.reps[next(self.choice)]


class LeastOutstanding(_Router):
    def pick(self, req):
        return self.least_outstanding()


class MostFreeKV(_Router):
    def pick(self, req):
        reps, R, start, t = self.reps, self.R, self.turn, req.arrival
        best, best_f = start, reps[start].free_kv(t)
        for j in range(1, R):
            i = (start + j) % R
            f = reps[i].free_kv(t)
            if f > best_f:
                best, best_f = i, f
        self.turn = (best + 1) % R
        return reps[best]


class PrefixAffinity(_Router):
    def pick(self, req):
        if req.prefix >= 0:
            return self.reps[req.prefix % self.R]
        return self.least_outstanding()


class SharedQueue(_Router):
    def __init__(self, replicas, seed, requests):
        super().__init__(replicas, seed, requests)
        self.central = (deque(), deque())  # priority, normal
        hi, lo = self.central
        where = requests.replica = requests.replica or [0] * requests.n
        for rep in replicas:
            limit = rep.max_seqs

            def pull(r, hi=hi, lo=lo, limit=limit):
                while r.outstanding < limit and (hi or lo):
                    req = hi.popleft() if hi else lo.popleft()
                    where[req.rid] = r.idx
                    r.accept(req)

            rep.pull = pull

    def pick(self, req):
        if self.central[0] or (self.central[1] and not req.priority):
            return None  # others wait ahead of it
        rep = self.least_outstanding()
        return rep if rep.outstanding < rep.max_seqs else None


ROUTER_CLASSES = {"round-robin": RoundRobin, "random": Random, "least-outstanding": LeastOutstanding,
                  "most-free-kv": MostFreeKV, "prefix-affinity": PrefixAffinity, "shared-queue": SharedQueue}


def run(requests: Requests, replicas: list, router: str, seed: int = 0) -> int:
    """Play the arrivals through the router and the replicas' steps in time order (an arrival
    before a step boundary at the same instant). Each request's record is issued at its arrival;
    the replicas write what happens to it into ``requests``. Returns the number of events processed."""
    for rep in replicas:
        rep.log = requests
    try:
        if len(replicas) == 1 and router != "shared-queue":
            return _run_one(requests, replicas[0])
        return _run_fleet(requests, replicas, router, seed)
    finally:
        for rep in replicas:
            rep.close()


def _run_fleet(requests: Requests, replicas: list, router: str, seed: int) -> int:
    """Several replicas (or a shared queue): the router picks at each arrival; wake-ups on a heap."""
    requests.replica = [0] * requests.n
    route = ROUTER_CLASSES[router](replicas, seed, requests)
    pick = route.pick
    central = route.central
    heap: list = []
    push, pop = heapq.heappush, heapq.heappop
    n = requests.n
    arrival, issue, where = requests.arrival, requests.issue, requests.replica
    i = 0
    events = 0
    inf = float("inf")
    while True:
        te = heap[0][0] if heap else inf
        if i < n:
            t = arrival[i]
            if t <= te:
                req = issue(i)
                rep = pick(req)
                if rep is None:
                    central[0 if req.priority else 1].append(req)
                    i += 1
                    continue
                where[i] = rep.idx
                i += 1
                nt = rep.enqueue(req, t)
                if nt is not None:
                    push(heap, (nt, rep.idx, rep.version))
                continue
        elif not heap:
            break
        t, idx, ver = pop(heap)
        rep = replicas[idx]
        if ver != rep.version:
            continue
        events += 1
        nt = rep.on_event(t)
        if nt is not None:
            push(heap, (nt, idx, rep.version))
    return events + n


def _run_one(requests: Requests, rep) -> int:
    """One replica: no routing and no event heap; the next arrival is known, so jumps stop for it.

    Arrivals are issued and queued here without calls (as :meth:`Requests.issue` and the
    replica's ``accept``, less the load figures only a router reads)."""
    n = requests.n
    inf = float("inf")
    arrival = requests.arrival + [inf]  # after the last arrival: none
    prompt, output, priority, prefix, free = requests.prompt, requests.output, requests.priority, requests.prefix, \
        requests.free
    rep.routed = False  # no router reads its load
    wait_hi, wait_lo, on_event = rep.wait_hi, rep.wait_lo, rep.on_event
    i = events = 0
    te = inf  # the end of the step in flight; inf while idle
    while True:
        t = arrival[i]
        rep.next_arrival = t
        while te < t:  # the steps that end before the next arrival (one at the same instant comes first)
            events += 1
            te = on_event(te)
            if te is None:
                te = inf
        if i == n:
            return events + n
        req = free.pop() if free else Request()
        req.rid = i
        req.arrival = t
        req.prompt = prompt[i]
        req.output = output[i]
        req.priority = prio = priority[i]
        req.prefix = prefix[i]
        req.state = WAITING
        req.generated = req.preemptions = 0
        i += 1
        (wait_hi if prio else wait_lo).append(req)
        if te == inf:
            rep.busy = True
            te = t
        elif prio and rep.stop_prio and rep.pending is JUMP:  # jumps already stop for any next arrival
            nt = rep._cut_jump(t)
            if nt is not None:
                te = nt
