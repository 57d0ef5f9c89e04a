"""One replica's scheduler, driven by events: continuous batching (vLLM-style) or static batching.

A replica is told about requests by :meth:`enqueue` (the router calls it at the arrival time)
and is woken by ``on_event(t)`` at the end of each step it started. The wake-up applies the
step that just ended, then plans the next: a mixed
step (decodes plus prefill chunks) or, when only decodes run, a jump over many lock-step decode
steps to the next completion (or to the step where the KV cache runs out). An arrival that could
be admitted at once cuts a jump short at the first step boundary after it, so jumping gives the
same timeline as stepping one by one.

The continuous scheduler is a coroutine (a generator, as a process in SimPy): its accounting
lives in local variables from one step to the next, and it publishes on the replica only what
the event loop and the routers read (the step in flight; the KV figures and queue load when a
router looks at them).
"""
from __future__ import annotations

from collections import OrderedDict, deque
from heapq import heappop, heappush

from interviewer.capacity import BLOCK_TOKENS as BLOCK
from interviewer.simulator.cost import CostModel
from interviewer.simulator.request import DECODING, FINISHED, PREFILLING, WAITING, Request, Requests

MIXED, JUMP = "mixed", "jump"
INF = float("inf")


def _decode_blocks(sum_a: int, n_dec: int, cnt: list, g: int) -> int:
    """Blocks all decoders hold at step g (they grow one token per step): one with `base` holds
    ceil((base + g) / BLOCK); sum_a is the sum of base // BLOCK and cnt the histogram of base % BLOCK."""
    q, r = divmod(g + BLOCK - 1, BLOCK)
    return sum_a + n_dec * q + (sum(cnt[BLOCK - r:]) if r else 0)


def _first_step_at(T, k: int, D: float) -> int:
    """Smallest k2 <= k with T(k2) >= D, for T increasing and T(k) > D."""
    dt0 = T(1)
    if dt0 >= D:
        return 1
    lo, hi = 1, min(k, int(D / dt0) + 1)  # T(lo) < D <= T(hi): each step takes at least T(1)
    if hi - lo > 1 and T(hi - 1) < D:  # the usual case: steps grow slowly, so the bound is tight
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if T(mid) >= D:
            hi = mid
        else:
            lo = mid
    return hi


def _steps_before(T, k: int, D: float) -> int:
    """Steps of a k-step run that end strictly before D (at most k - 1: the run's end is still due)."""
    dt0 = T(1)
    if D <= dt0:
        return 0
    j = min(k - 1, int(D / dt0))  # T(j) >= j T(1), so no more than D / T(1) steps end before D
    if T(j) < D:
        return j
    lo, hi = 0, j  # T(lo) < D <= T(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if T(mid) < D:
            lo = mid
        else:
            hi = mid
    return lo


class PrefixCache:
    """Shared system prompts kept in one replica's KV cache: whole blocks, pinned while a running
    request reads them, evicted least recently used when admission or decode growth needs room."""

    __slots__ = ("refs", "size", "blocks", "pinned")

    def __init__(self, blocks_per_prefix: int):
        self.refs: OrderedDict[int, int] = OrderedDict()  # prefix -> running requests reading it; LRU first
        self.size = blocks_per_prefix
        self.blocks = 0  # held by cached prefixes
        self.pinned = 0  # of those, held by prefixes in use

    @property
    def tokens(self) -> int:
        return self.size * BLOCK

    def pin(self, prefix: int) -> None:
        n = self.refs[prefix]
        if n == 0:
            self.pinned += self.size
        self.refs[prefix] = n + 1
        self.refs.move_to_end(prefix)

    def unpin(self, prefix: int) -> None:
        n = self.refs[prefix] - 1
        self.refs[prefix] = n
        if n == 0:
            self.pinned -= self.size

    def insert(self, prefix: int) -> None:
        """A request's freshly prefilled prefix becomes the cached copy; that request reads it."""
        self.refs[prefix] = 1
        self.blocks += self.size
        self.pinned += self.size

    def evict(self, need: int, keep: int = -1) -> int:
        """Drop unpinned prefixes, least recently used first, until `need` blocks are freed; returns freed."""
        freed = 0
        victims = []
        for prefix, n in self.refs.items():
            if freed >= need:
                break
            if n == 0 and prefix != keep:
                victims.append(prefix)
                freed += self.size
        for prefix in victims:
            del self.refs[prefix]
        self.blocks -= freed
        return freed


class ContinuousReplica:
    """Iteration-level scheduling over a paged KV cache of ``total_blocks`` blocks."""

    __slots__ = ("idx", "cost", "total_blocks", "max_seqs", "max_tokens", "jump", "wait_hi", "wait_lo", "cache",
                 "G", "n_dec", "sum_a", "cnt", "prefill_blocks", "pending", "t0", "k", "T", "stop_any",
                 "stop_prio", "busy", "version", "pull", "routed", "outstanding", "wait_blocks", "log",
                 "next_arrival", "process", "on_event", "steps", "batch_sum", "preemptions", "completed", "busy_s")

    def __init__(self, idx: int, cost: CostModel, total_blocks: int, max_num_seqs: int,
                 max_num_batched_tokens: int, jump: bool = True, prefix_blocks: int = 0):
        self.idx = idx
        self.cost = cost
        self.total_blocks = total_blocks
        self.max_seqs = max_num_seqs
        self.max_tokens = max_num_batched_tokens
        self.jump = jump
        self.wait_hi: deque[Request] = deque()
        self.wait_lo: deque[Request] = deque()
        self.cache = PrefixCache(prefix_blocks) if prefix_blocks > 0 else None
        # Decoders' KV, as published for free_kv: G is the step counter, sum_a and the histogram cnt
        # give the blocks they hold (see _decode_blocks); prefill_blocks are reserved by prefills.
        self.G = self.n_dec = self.sum_a = self.prefill_blocks = 0
        self.cnt = [0] * BLOCK
        # the step in flight (a jump: it started at t0 and runs k steps whose end times are t0 + T(j))
        self.pending = None
        self.t0 = 0.0
        self.k = 0
        self.T = None
        self.stop_any = self.stop_prio = False  # an arrival (any, or a priority one) cuts the jump short
        self.busy = False
        self.version = 0  # bumped when a jump is cut short: the earlier wake-up is stale
        self.pull = None  # shared-queue hook, called at each event to take requests while there is room
        self.routed = True  # a router reads outstanding and free_kv; one replica alone keeps neither
        self.outstanding = 0  # routed here and not finished
        self.wait_blocks = 0  # KV blocks the waiting requests will need
        self.log: Requests | None = None  # where per-request results go (set by the event loop before any event)
        # when the event loop knows the next arrival comes here (one replica), it keeps its time here,
        # and a jump stops for it at once instead of being cut when it arrives
        self.next_arrival = INF
        # statistics, published when the replica goes idle
        self.steps = self.batch_sum = self.preemptions = self.completed = 0
        self.busy_s = 0.0
        self.process = self._scheduler()
        next(self.process)
        # on_event(t): the step that ends at t is applied and the next one planned; returns its end, or None (idle)
        self.on_event = self.process.send

    def close(self) -> None:
        """End the scheduler once the run is over (it and the replica refer to each other)."""
        self.process.close()

    # ------------------------------------------------------------------ what routers read

    def decode_blocks(self, g: int) -> int:
        """Blocks all decoders hold at step g."""
        return _decode_blocks(self.sum_a, self.n_dec, self.cnt, g)

    def free_kv(self, t: float) -> int:
        """Blocks free at time t, counting unpinned cached prefixes as free, less what the queue needs."""
        g = self.G
        k = self.k
        if k > 1 and self.pending is JUMP:
            g += _steps_before(self.T, k, t - self.t0)  # the decoders have grown since the jump began
        cache = self.cache
        return self.total_blocks - _decode_blocks(self.sum_a, self.n_dec, self.cnt, g) - self.prefill_blocks \
            - (cache.pinned if cache is not None else 0) - self.wait_blocks

    # ------------------------------------------------------------------ arrivals

    def accept(self, req: Request) -> None:
        """Queue a request here (priority ones ahead)."""
        (self.wait_hi if req.priority else self.wait_lo).append(req)
        if self.routed:
            self.outstanding += 1
            self.wait_blocks += (req.prompt + req.generated + BLOCK) // BLOCK  # what its admission needs

    def enqueue(self, req: Request, t: float):
        """A request routed here at time t. Returns a new wake-up time, or None."""
        self.accept(req)
        if not self.busy:
            self.busy = True
            return t
        if self.pending is JUMP and (self.stop_any or (self.stop_prio and req.priority)):
            return self._cut_jump(t)
        return None

    def _cut_jump(self, t: float):
        """End the jump in flight at the first step boundary at or after t (admission happens there)."""
        self.stop_any = self.stop_prio = False  # later arrivals come later: this cut is the earliest
        k, T = self.k, self.T
        D = t - self.t0
        if k <= 1:
            return None
        Tk = T(k)
        if Tk <= D:
            return None
        self.k = k = _first_step_at(T, k, D)
        self.version += 1
        return self.t0 + T(k)

    # ------------------------------------------------------------------ the scheduler

    def _scheduler(self):
        """Each resumption gets the time t at which the step in flight ends, applies that step, plans
        and starts the next one and yields its end (None when idle).

        Running requests are in ``running`` (admission order); ``prefilling`` holds those still
        prefilling (a mixed step's chunks are a prefix of it); ``finishing`` is a heap of
        (step, rid, preemptions, request): a decoder's last-token step, stale once it is preempted.
        A decoder with ``base`` holds its own base + G tokens at step G: sum_base, sum_a, the cnt
        histogram and sum_shared (cached-prefix tokens read, not owned) give the decoders' KV."""
        t = yield None
        # ---- read once: the replica's settings and shared objects (the event loop has set log and pull)
        step_time, decode_run_fn = self.cost.bound()
        total_blocks, max_seqs, max_tokens, jump = self.total_blocks, self.max_seqs, self.max_tokens, self.jump
        wait_hi, wait_lo, cache, cnt, pull, routed = \
            self.wait_hi, self.wait_lo, self.cache, self.cnt, self.pull, self.routed
        log = self.log
        first_sched, first_tok, finish, hit, reuse = log.first_sched, log.first_tok, log.finish, log.hit, log.free
        running: dict[Request, None] = {}
        prefilling: list[Request] = []
        finishing: list = []
        chunks: list = []  # (request, tokens) prefilled by the mixed step in flight
        G = n_dec = sum_base = sum_a = sum_shared = prefill_blocks = 0
        steps = batch_sum = preemptions = completed = 0
        busy_s = t0 = 0.0
        pending = None
        while True:
            if pending is not None:
                # ---------------------------------------------- the step that ended at t
                if pending is JUMP:
                    k = self.k  # an arrival may have cut the jump short
                    G += k
                    steps += k
                    batch_sum += n_dec * k
                    busy_s += t - t0
                else:
                    G += 1
                    steps += 1
                # decoders whose last token came from step G leave the batch and free their KV
                done = 0
                while finishing and finishing[0][0] <= G:
                    _f, rid, ep, req = heappop(finishing)
                    if req.state is not DECODING or req.preemptions != ep:  # preempted since it was pushed
                        continue
                    b = req.base
                    sum_base -= b
                    sum_a -= b // BLOCK
                    cnt[b % BLOCK] -= 1
                    n_dec -= 1
                    req.state = FINISHED
                    finish[rid] = t
                    del running[req]
                    shared = req.shared
                    if shared:
                        sum_shared -= shared
                        cache.unpin(req.prefix)
                    if not ep:  # never preempted: no stale heap entry points at it, so it can be reused
                        reuse.append(req)
                    done += 1
                if done:
                    completed += done
                    if routed:
                        self.outstanding -= done
                if pending is MIXED:
                    # prefills that finished give their first (or next) token and join the decoders
                    going = []
                    for req, c in chunks:
                        d = req.done_pf + c
                        if d < req.target:
                            req.done_pf = d
                            going.append(req)
                            continue
                        prefill_blocks -= req.pf_blocks
                        gen = req.generated
                        if not gen:
                            first_tok[req.rid] = t
                        gen += 1
                        if cache is not None and req.prefix >= 0 and not req.shared and req.prefix not in cache.refs:
                            cache.insert(req.prefix)  # its prefix blocks become the replica's cached copy
                            req.shared = cache.tokens
                        shared = req.shared
                        if gen >= req.output:
                            req.state = FINISHED
                            finish[req.rid] = t
                            del running[req]
                            completed += 1
                            if routed:
                                self.outstanding -= 1
                            if shared:
                                cache.unpin(req.prefix)
                            if not req.preemptions:
                                reuse.append(req)
                            continue
                        req.generated = gen
                        b = req.prompt + gen - shared - G  # its own KV tokens at step G' are b + G'
                        req.base = b
                        sum_base += b
                        sum_a += b // BLOCK
                        cnt[b % BLOCK] += 1
                        n_dec += 1
                        sum_shared += shared
                        req.state = DECODING
                        fin = req.fin = G + req.output - gen
                        heappush(finishing, (fin, req.rid, req.preemptions, req))
                    del prefilling[:len(chunks)]
                    if going:
                        prefilling[:0] = going
            if pull is not None:
                pull(self)
            # ---------------------------------------------- plan the next step
            # (1) the cache must hold one more token for every decoder: evict unused prefixes, then
            # preempt by recompute the lowest-priority, most recently admitted sequence. Only when
            # the cheap bound `held` (a decoder holds at most base // BLOCK + (G + BLOCK - 1) // BLOCK
            # + 1 blocks) says it might not fit.
            held = sum_a + n_dec * ((G + BLOCK - 1) // BLOCK + 1)
            if held + prefill_blocks + (cache.blocks if cache is not None else 0) > total_blocks:
                while n_dec:
                    over = _decode_blocks(sum_a, n_dec, cnt, G) + prefill_blocks \
                        + (cache.blocks if cache is not None else 0) - total_blocks
                    if over <= 0:
                        break
                    if cache is not None and cache.blocks > cache.pinned and cache.evict(over):
                        continue
                    req = None
                    for r in reversed(running):
                        if not r.priority:
                            req = r
                            break
                    if req is None:
                        req = next(reversed(running))
                    if req.state is DECODING:
                        req.generated = req.output - (req.fin - G)
                        b = req.base
                        sum_base -= b
                        sum_a -= b // BLOCK
                        cnt[b % BLOCK] -= 1
                        n_dec -= 1
                        sum_shared -= req.shared
                    else:
                        prefilling.remove(req)
                        prefill_blocks -= req.pf_blocks
                    if req.shared:
                        cache.unpin(req.prefix)
                        req.shared = 0
                    del running[req]
                    req.state = WAITING  # back to the head of its queue, to be prefilled again
                    req.preemptions += 1
                    log.preemptions[req.rid] = req.preemptions
                    preemptions += 1
                    (wait_hi if req.priority else wait_lo).appendleft(req)
                    if routed:
                        self.wait_blocks += (req.prompt + req.generated + BLOCK) // BLOCK
                held = sum_a + n_dec * ((G + BLOCK - 1) // BLOCK + 1)
            if prefilling or ((wait_hi or wait_lo) and len(running) < max_seqs):
                # (2) decodes take one token each of the step's budget; (3) partial prefills continue;
                # (4) waiting requests are admitted, priority first, then FIFO; a head that does not
                # fit blocks the rest (with every seat taken and nothing prefilling, only decodes run)
                budget = max_tokens - n_dec
                chunks = []
                pf_tok = pf_kv = 0  # prefill tokens computed, and KV tokens they touch
                for req in prefilling:
                    if budget <= 0:
                        break
                    d = req.done_pf
                    c = req.target - d
                    if c > budget:
                        c = budget
                    chunks.append((req, c))
                    pf_tok += c
                    pf_kv += d + c + req.shared
                    budget -= c
                if budget > 0 and (wait_hi or wait_lo) and len(running) < max_seqs:
                    # free blocks, at first from the cheap bound on the decoders' blocks (a lower bound),
                    # made exact the first time a request would not fit it
                    room = total_blocks - held - prefill_blocks - (cache.blocks if cache is not None else 0)
                    exact = False
                    queued = 0  # the admitted requests' share of wait_blocks
                    while True:
                        dq = wait_hi if wait_hi else wait_lo
                        req = dq[0]
                        full = req.prompt + req.generated
                        shared = 0
                        if cache is not None and req.prefix in cache.refs:
                            shared = cache.tokens  # a hit: its prefix is not prefilled again
                        tgt = full - shared
                        need = (tgt + BLOCK) // BLOCK  # ceil((tgt + 1) / BLOCK): room for the first output token
                        if need > room and not exact:
                            room += held - _decode_blocks(sum_a, n_dec, cnt, G)
                            exact = True
                        if need > room and cache is not None:
                            room += cache.evict(need - room, keep=req.prefix if shared else -1)
                        if need > room:
                            break
                        dq.popleft()
                        room -= need
                        if routed:
                            queued += (full + BLOCK) // BLOCK
                        if cache is not None:
                            if shared:
                                cache.pin(req.prefix)
                            if not req.generated:  # this admission gives its first token
                                hit[req.rid] = shared > 0
                        req.shared = shared
                        req.state = PREFILLING
                        req.pf_blocks = need
                        prefill_blocks += need
                        req.target = tgt
                        req.done_pf = 0
                        prefilling.append(req)
                        running[req] = None
                        if not req.preemptions:  # first time scheduled
                            first_sched[req.rid] = t
                        c = tgt if tgt < budget else budget
                        chunks.append((req, c))
                        pf_tok += c
                        pf_kv += c + shared
                        budget -= c
                        if budget <= 0 or len(running) >= max_seqs or not (wait_hi or wait_lo):
                            break
                    if queued:
                        self.wait_blocks -= queued
                if chunks:
                    # one mixed step: every decode plus the prefill chunks
                    dt = step_time(sum_base + n_dec * G + sum_shared + pf_kv, n_dec + pf_tok)
                    batch_sum += n_dec + len(chunks)
                    busy_s += dt
                    pending = self.pending = MIXED
                    if routed:
                        self.G, self.n_dec, self.sum_a, self.prefill_blocks = G, n_dec, sum_a, prefill_blocks
                    t = yield t + dt
                    continue
            elif not running:
                # idle until the event loop sends the next arrival's time
                self.steps, self.batch_sum, self.busy_s = steps, batch_sum, busy_s
                self.preemptions, self.completed = preemptions, completed
                self.busy = False
                pending = self.pending = None
                if routed:
                    self.G, self.n_dec, self.sum_a, self.prefill_blocks = G, n_dec, sum_a, prefill_blocks
                t = yield None
                continue
            if not n_dec:  # pragma: no cover - lengths are clipped to the cache, so something always runs
                raise RuntimeError("simulator stalled: nothing runnable")
            # ---------------------------------------------- a decode-only jump
            # decoders advance in lock step: jump to the next completion, or to the last step the KV
            # cache can hold; an admissible arrival may cut it short (_cut_jump)
            top = finishing[0]
            if preemptions:  # entries of preempted decoders are stale
                while top[3].state is not DECODING or top[3].preemptions != top[2]:
                    heappop(finishing)
                    top = finishing[0]
            k = top[0] - G if jump else 1  # steps until the next completion
            avail = total_blocks - prefill_blocks - (cache.blocks if cache is not None else 0)
            if k > 1 and sum_a + n_dec * ((G + k + BLOCK - 2) // BLOCK + 1) > avail \
                    and _decode_blocks(sum_a, n_dec, cnt, G + k - 1) > avail:
                lo, hi = 1, k - 1  # _decode_blocks(G + lo - 1) <= avail holds for lo = 1
                while lo < hi:
                    mid = (lo + hi + 1) // 2
                    if _decode_blocks(sum_a, n_dec, cnt, G + mid - 1) <= avail:
                        lo = mid
                    else:
                        hi = mid - 1
                k = lo
            T = decode_run_fn(n_dec, sum_base + n_dec * G + sum_shared)
            # an arrival can be admitted at the next boundary when nobody waits (any arrival), or when
            # only normal requests wait (a priority one); a blocked queue head blocks the rest
            if not wait_hi and len(running) < max_seqs and n_dec < max_tokens:
                stop_any = not wait_lo
                stop_prio = not stop_any
            else:
                stop_any = stop_prio = False
            end = t + T(k)
            if stop_any and k > 1 and self.next_arrival < end:  # the next arrival is known: stop for it now
                stop_any = stop_prio = False
                k = _first_step_at(T, k, self.next_arrival - t)
                end = t + T(k)
            self.T = T
            self.t0 = t
            self.k = k
            self.stop_any = stop_any
            self.stop_prio = stop_prio
            t0 = t
            pending = self.pending = JUMP
            if routed:
                self.G, self.n_dec, self.sum_a, self.prefill_blocks = G, n_dec, sum_a, prefill_blocks
            t = yield end


class StaticReplica:
    """Static batching: take up to max_num_seqs waiting requests (as many as the KV cache holds at
    the padded size), prefill them together, decode until the longest is done, return them all."""

    stop_prio = False  # never cut short: a static batch runs to its end
    pending = None

    __slots__ = ("idx", "cost", "cache_tokens", "total_blocks", "max_seqs", "wait_hi", "wait_lo", "batch",
                 "batch_blocks", "busy", "version", "pull", "routed", "outstanding", "wait_blocks", "log",
                 "next_arrival", "steps", "batch_sum", "preemptions", "completed", "busy_s")

    def __init__(self, idx: int, cost: CostModel, cache_tokens: int, max_num_seqs: int):
        self.idx = idx
        self.cost = cost
        self.cache_tokens = cache_tokens
        self.total_blocks = cache_tokens // BLOCK
        self.max_seqs = max_num_seqs
        self.wait_hi: deque[Request] = deque()
        self.wait_lo: deque[Request] = deque()
        self.batch: list[Request] = []
        self.batch_blocks = 0
        self.busy = False
        self.version = 0
        self.pull = None
        self.routed = True
        self.outstanding = 0
        self.wait_blocks = 0
        self.log: Requests | None = None
        self.next_arrival = INF  # unused: a static batch is never cut short
        self.steps = self.batch_sum = self.preemptions = self.completed = 0
        self.busy_s = 0.0

    def free_kv(self, t: float) -> int:
        return self.total_blocks - self.batch_blocks - self.wait_blocks

    def close(self) -> None:
        """Nothing to end: a static replica keeps no scheduler between batches."""

    def accept(self, req: Request) -> None:
        (self.wait_hi if req.priority else self.wait_lo).append(req)
        if self.routed:
            self.outstanding += 1
            self.wait_blocks += (req.prompt + req.output + BLOCK - 1) // BLOCK

    def enqueue(self, req: Request, t: float):
        self.accept(req)
        if not self.busy:
            self.busy = True
            return t
        return None

    def on_event(self, t: float):
        """The batch that ends at t is returned; the next one starts. Returns its end, or None (idle)."""
        batch = self.batch
        if batch:
            for req in batch:
                req.state = FINISHED
            self.completed += len(batch)
            if self.routed:
                self.outstanding -= len(batch)
            self.log.free.extend(batch)  # a static batch is never preempted: its records can be reused
            self.batch = batch = []
        if self.pull is not None:
            self.pull(self)
        wait_hi, wait_lo = self.wait_hi, self.wait_lo
        if not wait_hi and not wait_lo:
            self.busy = False
            self.batch_blocks = 0
            return None
        max_seqs, cache_tokens = self.max_seqs, self.cache_tokens
        mp = mo = b = 0
        while b < max_seqs and (wait_hi or wait_lo):
            dq = wait_hi if wait_hi else wait_lo
            req = dq[0]
            rp, ro = req.prompt, req.output
            p = rp if rp > mp else mp
            o = ro if ro > mo else mo
            if b and (b + 1) * (p + o) > cache_tokens:
                break
            dq.popleft()
            batch.append(req)
            b += 1
            mp, mo = p, o
        if self.routed:
            self.wait_blocks -= sum((r.prompt + r.output + BLOCK - 1) // BLOCK for r in batch)
        self.batch_blocks = b * ((mp + mo + BLOCK - 1) // BLOCK)
        t_first = t + self.cost.step(b * mp, b * mp)  # padded prefill
        end = t_first + self.cost.decode_run(b, b * (mp + 1), mo - 1)
        log = self.log
        first_sched, first_tok, finish = log.first_sched, log.first_tok, log.finish
        for req in batch:
            req.state = DECODING
            rid = req.rid
            first_sched[rid] = t
            first_tok[rid] = t_first
            finish[rid] = end
        self.steps += mo
        self.batch_sum += b * mo
        self.busy_s += end - t
        return end
