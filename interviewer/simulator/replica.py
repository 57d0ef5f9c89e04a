"""One replica's scheduler, driven by events: continuous batching (vLLM-style) or static batching.

A replica is told about requests by :meth:`enqueue` (the router calls it at the arrival time)
and is woken by :meth:`on_event` at the end of each step it started. ``on_event`` applies the
step that just ended, then plans the next: a mixed step (decodes plus prefill chunks) or, when
only decodes run, a jump over many lock-step decode steps to the next completion (or to the step
where the KV cache runs out). An arrival that could be admitted at once cuts a jump short at the
first step boundary after it, so jumping gives the same timeline as stepping one by one.
"""
from __future__ import annotations

from heapq import heappop, heappush
from collections import OrderedDict, deque

from interviewer.capacity import BLOCK_TOKENS as BLOCK
from interviewer.simulator.cost import CostModel
from interviewer.simulator.request import DECODING, FINISHED, PREFILLING, WAITING, Request, Requests

MIXED, JUMP = "mixed", "jump"
INF = float("inf")


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
    """Iteration-level scheduling over a paged KV cache of ``total_blocks`` blocks.

    Per-request bookkeeping (admission, joining the decoders, retiring) is written out in the
    loops of :meth:`_start_mixed`, :meth:`_end_mixed` and :meth:`_retire` rather than in
    per-request methods: they run for every request, and a call there costs more than the work."""

    __slots__ = ("idx", "cost", "total_blocks", "max_seqs", "max_tokens", "jump", "wait_hi", "wait_lo", "running",
                 "prefilling", "finishing", "G", "n_dec", "sum_base", "sum_a", "cnt", "sum_shared", "prefill_blocks",
                 "cache", "pending", "chunks", "t0", "k", "T", "stop_any", "stop_prio", "busy", "version", "pull",
                 "outstanding", "wait_blocks", "steps", "batch_sum", "preemptions", "completed", "events", "busy_s",
                 "log")

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
        self.running: dict[Request, None] = {}  # prefilling and decoding, in admission order
        self.prefilling: list[Request] = []  # in admission order; a step's chunks are a prefix of it
        self.finishing: list = []  # heap of (step, rid, preemptions, request): a decoder's last-token step
        # Decoders' KV: one with `base` holds ceil((base + G) / BLOCK) blocks at step G. Sums and a
        # histogram of base mod BLOCK give the total for any G in O(BLOCK).
        self.G = 0
        self.n_dec = 0
        self.sum_base = 0
        self.sum_a = 0
        self.cnt = [0] * BLOCK
        self.sum_shared = 0  # cached-prefix tokens the decoders read but do not own
        self.prefill_blocks = 0
        self.cache = PrefixCache(prefix_blocks) if prefix_blocks > 0 else None
        # the step in flight
        self.pending = None
        self.chunks: list = []  # (request, tokens) prefilled by the mixed step in flight
        self.t0 = 0.0
        self.k = 0
        self.T = None
        self.stop_any = self.stop_prio = False
        self.busy = False
        self.version = 0  # bumped when a jump is cut short: the earlier wake-up is stale
        self.pull = None  # shared-queue hook, called at each event to take requests while there is room
        self.outstanding = 0  # routed here and not finished
        self.wait_blocks = 0  # KV blocks the waiting requests will need
        self.log: Requests | None = None  # where per-request results go (set by the event loop)
        # statistics
        self.steps = self.batch_sum = self.preemptions = self.completed = self.events = 0
        self.busy_s = 0.0

    # ------------------------------------------------------------------ KV block accounting

    def decode_blocks(self, g: int) -> int:
        """Blocks all decoders hold at step g (they grow one token per step)."""
        q, r = divmod(g + BLOCK - 1, BLOCK)
        return self.sum_a + self.n_dec * q + (sum(self.cnt[BLOCK - r:]) if r else 0)

    def free_kv(self, t: float) -> int:
        """Blocks free at time t, counting unpinned cached prefixes as free, less what the queue needs."""
        pinned = self.cache.pinned if self.cache is not None else 0
        g = self.G
        if self.pending is JUMP and self.k > 1:
            g += _steps_before(self.T, self.k, t - self.t0)  # the decoders have grown since the jump began
        return self.total_blocks - self.decode_blocks(g) - self.prefill_blocks - pinned - self.wait_blocks

    def _drop_decoder(self, req: Request) -> None:
        """Take a decoder out of the block accounting (it was preempted; :meth:`_retire` does the
        same for finished ones)."""
        b = req.base
        self.sum_base -= b
        self.sum_a -= b // BLOCK
        self.cnt[b % BLOCK] -= 1
        self.n_dec -= 1
        self.sum_shared -= req.shared

    # ------------------------------------------------------------------ arrivals

    def accept(self, req: Request) -> None:
        """Queue a request here (priority ones ahead)."""
        (self.wait_hi if req.priority else self.wait_lo).append(req)
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

    # ------------------------------------------------------------------ one event

    def on_event(self, t: float, next_arrival: float = INF):
        """The step that ends at t is applied; the next one is planned. Returns its end, or None (idle).

        ``next_arrival``: when the caller knows the next arrival comes here (one replica), a jump
        stops for it at once instead of being cut when it arrives."""
        self.events += 1
        pending = self.pending
        if pending is JUMP:
            k = self.k
            self.G = G = self.G + k
            self.steps += k
            self.batch_sum += self.n_dec * k
            self.busy_s += t - self.t0
            if self.finishing[0][0] <= G:
                self._retire(G, t)
        elif pending is MIXED:
            self._end_mixed(t)
        self.pending = None
        if self.pull is not None:
            self.pull(self)
        cache = self.cache
        # (1) only when the cheap bound says the decoders' next token might not fit
        # (a decoder holds at most base // BLOCK + (G + BLOCK - 1) // BLOCK + 1 blocks)
        if self.sum_a + self.n_dec * ((self.G + BLOCK - 1) // BLOCK + 1) + self.prefill_blocks \
                + (cache.blocks if cache is not None else 0) > self.total_blocks:
            self._make_room()
        if self.prefilling or self.wait_hi or self.wait_lo:
            end = self._start_mixed(t)
            if end is not None:
                return end
        elif not self.running:
            self.busy = False
            return None
        if not self.n_dec:  # pragma: no cover - lengths are clipped to the cache, so something always runs
            raise RuntimeError("simulator stalled: nothing runnable")
        return self._start_jump(t, next_arrival)

    def _retire(self, G: int, t: float) -> None:
        """Decoders whose last token came from step G leave the batch and free their KV."""
        heap, running, cnt, cache, log = self.finishing, self.running, self.cnt, self.cache, self.log
        finish, free = log.finish, log.free
        n = sum_base = sum_a = sum_shared = 0
        while heap and heap[0][0] <= G:
            _f, rid, ep, req = heappop(heap)
            if req.state is not DECODING or req.preemptions != ep:  # preempted since it was scheduled to finish
                continue
            b = req.base  # out of the decoders' block accounting
            sum_base += b
            sum_a += b // BLOCK
            cnt[b % BLOCK] -= 1
            n += 1
            req.state = FINISHED
            finish[rid] = t
            del running[req]
            shared = req.shared
            if shared:
                sum_shared += shared
                cache.unpin(req.prefix)
            if not ep:  # never preempted: no stale heap entry points at it, so it can be reused
                free.append(req)
        self.sum_base -= sum_base
        self.sum_a -= sum_a
        self.n_dec -= n
        self.sum_shared -= sum_shared
        self.outstanding -= n
        self.completed += n

    def _make_room(self) -> None:
        """(1) The cache must hold one more token for every decoder: evict unused prefixes, then
        preempt by recompute the lowest-priority, most recently admitted sequence."""
        cache = self.cache
        while self.n_dec:
            over = self.decode_blocks(self.G) + self.prefill_blocks + (cache.blocks if cache is not None else 0) \
                - self.total_blocks
            if over <= 0:
                return
            if cache is not None and cache.blocks > cache.pinned and cache.evict(over):
                continue
            victim = None
            for req in reversed(self.running):
                if not req.priority:
                    victim = req
                    break
            if victim is None:
                victim = next(reversed(self.running))
            self._preempt(victim)

    def _preempt(self, req: Request) -> None:
        if req.state is DECODING:
            req.generated = req.output - (req.fin - self.G)
            self._drop_decoder(req)
        else:
            self.prefilling.remove(req)
            self.prefill_blocks -= req.pf_blocks
        if req.shared:
            self.cache.unpin(req.prefix)
            req.shared = 0
        del self.running[req]
        req.state = WAITING
        req.preemptions += 1
        self.log.preemptions[req.rid] = req.preemptions
        self.preemptions += 1
        (self.wait_hi if req.priority else self.wait_lo).appendleft(req)
        self.wait_blocks += (req.prompt + req.generated + BLOCK) // BLOCK

    # ------------------------------------------------------------------ mixed steps

    def _start_mixed(self, t: float):
        """(2)-(4): decodes take one token each, partial prefills continue, then waiting requests
        are admitted (priority first, then FIFO; a head that does not fit blocks the rest). When
        there is any prefill, one step of every decode plus the prefill chunks starts: returns its
        end; else None."""
        n_dec = self.n_dec
        budget = self.max_tokens - n_dec
        chunks = []
        pf_tok = pf_kv = 0  # prefill tokens computed, and KV tokens they touch
        for req in self.prefilling:
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
        wait_hi, wait_lo, running, max_seqs = self.wait_hi, self.wait_lo, self.running, self.max_seqs
        if budget > 0 and (wait_hi or wait_lo) and len(running) < max_seqs:
            cache, log, prefilling = self.cache, self.log, self.prefilling
            free = self.total_blocks - self.decode_blocks(self.G) - self.prefill_blocks - (cache.blocks if cache else 0)
            reserved = queued = 0  # KV blocks reserved for the admitted prefills; their blocks in wait_blocks
            while budget > 0 and len(running) < max_seqs and (wait_hi or wait_lo):
                dq = wait_hi if wait_hi else wait_lo
                req = dq[0]
                full = req.prompt + req.generated
                shared = 0
                if cache is not None and req.prefix in cache.refs:
                    shared = cache.tokens  # a hit: its prefix is not prefilled again
                tgt = full - shared
                need = (tgt + BLOCK) // BLOCK  # ceil((tgt + 1) / BLOCK): room for the first output token
                if need > free and cache is not None:
                    free += cache.evict(need - free, keep=req.prefix if shared else -1)
                if need > free:
                    break
                dq.popleft()
                free -= need
                queued += (full + BLOCK) // BLOCK
                if cache is not None:
                    if shared:
                        cache.pin(req.prefix)
                    if not req.generated:  # this admission gives its first token
                        log.hit[req.rid] = shared > 0
                req.shared = shared
                req.state = PREFILLING
                req.pf_blocks = need
                reserved += need
                req.target = tgt
                req.done_pf = 0
                prefilling.append(req)
                running[req] = None
                if not req.preemptions:  # first time scheduled
                    log.first_sched[req.rid] = t
                c = tgt if tgt < budget else budget
                chunks.append((req, c))
                pf_tok += c
                pf_kv += c + shared
                budget -= c
            self.prefill_blocks += reserved
            self.wait_blocks -= queued
        if not chunks:
            return None
        ctx = self.sum_base + n_dec * self.G + self.sum_shared
        dt = self.cost.step(ctx + pf_kv, n_dec + pf_tok)
        self.batch_sum += n_dec + len(chunks)
        self.busy_s += dt
        self.chunks = chunks
        self.pending = MIXED
        return t + dt

    def _end_mixed(self, t: float) -> None:
        """The mixed step ended: finished decoders retire, finished prefills give their token and
        join the decoders (or finish, for a one-token output)."""
        G = self.G = self.G + 1
        self.steps += 1
        heap = self.finishing
        if heap and heap[0][0] <= G:
            self._retire(G, t)  # decoders that finished on this step
        cache, log, cnt, chunks = self.cache, self.log, self.cnt, self.chunks
        first_tok = log.first_tok
        going = []  # prefills that go on next step
        freed = done = 0  # prefill blocks released; requests finished
        n_dec = sum_base = sum_a = sum_shared = 0  # joining the decoders
        for req, c in chunks:
            d = req.done_pf + c
            if d < req.target:
                req.done_pf = d
                going.append(req)
                continue
            freed += req.pf_blocks
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
                log.finish[req.rid] = t
                del self.running[req]
                done += 1
                if shared:
                    cache.unpin(req.prefix)
                if not req.preemptions:
                    log.free.append(req)
                continue
            req.generated = gen
            b = req.prompt + gen - shared - G  # its own KV tokens at step G'' are b + G''
            req.base = b
            sum_base += b
            sum_a += b // BLOCK
            cnt[b % BLOCK] += 1
            n_dec += 1
            sum_shared += shared
            req.state = DECODING
            fin = req.fin = G + req.output - gen
            heappush(heap, (fin, req.rid, req.preemptions, req))
        self.prefilling = going + self.prefilling[len(chunks):] if going or len(self.prefilling) > len(chunks) else []
        self.prefill_blocks -= freed
        self.sum_base += sum_base
        self.sum_a += sum_a
        self.n_dec += n_dec
        self.sum_shared += sum_shared
        if done:
            self.outstanding -= done
            self.completed += done
        self.chunks = []

    # ------------------------------------------------------------------ decode-only jumps

    def _start_jump(self, t: float, next_arrival: float = INF) -> float:
        """Decoders advance in lock step: jump to the next completion, or to the last step the KV
        cache can hold; an admissible arrival may cut it short (:meth:`_cut_jump`)."""
        heap = self.finishing
        top = heap[0]
        while top[3].state is not DECODING or top[3].preemptions != top[2]:  # stale: preempted since
            heappop(heap)
            top = heap[0]
        G = self.G
        k = top[0] - G if self.jump else 1  # steps until the next completion
        n_dec = self.n_dec
        avail = self.total_blocks - self.prefill_blocks - (self.cache.blocks if self.cache is not None else 0)
        if k > 1 and self.sum_a + n_dec * ((G + k + BLOCK - 2) // BLOCK + 1) > avail \
                and self.decode_blocks(G + k - 1) > avail:
            lo, hi = 1, k - 1  # decode_blocks(G + lo - 1) <= avail holds for lo = 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if self.decode_blocks(G + mid - 1) <= avail:
                    lo = mid
                else:
                    hi = mid - 1
            k = lo
        T = self.cost.decode_run_fn(n_dec, self.sum_base + n_dec * G + self.sum_shared)
        self.T, self.t0, self.k = T, t, k
        # an arrival can be admitted at the next boundary when nobody waits (any arrival), or when
        # only normal requests wait (a priority one); a blocked queue head blocks the rest
        room = len(self.running) < self.max_seqs and n_dec < self.max_tokens
        wait_lo = self.wait_lo
        self.stop_any = stop_any = room and not self.wait_hi and not wait_lo
        self.stop_prio = room and not self.wait_hi and bool(wait_lo)
        self.pending = JUMP
        end = t + T(k)
        if stop_any and next_arrival < end and k > 1:
            self.stop_any = self.stop_prio = False
            self.k = k = _first_step_at(T, k, next_arrival - t)
            end = t + T(k)
        return end


class StaticReplica:
    """Static batching: take up to max_num_seqs waiting requests (as many as the KV cache holds at
    the padded size), prefill them together, decode until the longest is done, return them all."""

    stop_prio = False  # never cut short: a static batch runs to its end
    pending = None

    __slots__ = ("idx", "cost", "cache_tokens", "total_blocks", "max_seqs", "wait_hi", "wait_lo", "batch",
                 "batch_blocks", "busy", "version", "pull", "outstanding", "wait_blocks", "log", "steps",
                 "batch_sum", "preemptions", "completed", "events", "busy_s")

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
        self.outstanding = 0
        self.wait_blocks = 0
        self.log: Requests | None = None
        self.steps = self.batch_sum = self.preemptions = self.completed = self.events = 0
        self.busy_s = 0.0

    def free_kv(self, t: float) -> int:
        return self.total_blocks - self.batch_blocks - self.wait_blocks

    def accept(self, req: Request) -> None:
        (self.wait_hi if req.priority else self.wait_lo).append(req)
        self.outstanding += 1
        self.wait_blocks += (req.prompt + req.output + BLOCK - 1) // BLOCK

    def enqueue(self, req: Request, t: float):
        self.accept(req)
        if not self.busy:
            self.busy = True
            return t
        return None

    def on_event(self, t: float, next_arrival: float = INF):
        self.events += 1
        batch = self.batch
        if batch:
            for req in batch:
                req.state = FINISHED
            self.completed += len(batch)
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
        mp = mo = b = queued = 0
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
            queued += (rp + ro + BLOCK - 1) // BLOCK
        self.wait_blocks -= queued
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
