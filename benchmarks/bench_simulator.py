"""Benchmark the serving simulator: requests and events simulated per second, one GPU and a fleet,
and agreement with queueing theory (M/D/1, Pollaczek-Khinchine per replica, Erlang C).

Run from the repository root:  python benchmarks/bench_simulator.py [--requests N] [--quick]

Times are CPU seconds of this process (time.process_time), best of --repeat runs: on a machine
shared with other work they move far less than wall time. The fleet target is checked against
the wall time of the same best run.
"""
from __future__ import annotations

import argparse
import math
import sys
import time

from interviewer.simulator import SimConfig, simulate, simulate_detailed

FLEET_TARGET_S = 15.0  # issue 14: 100,000 requests over 8 replicas on a 2-core machine


REPEAT = 1


def _timed(cfg: SimConfig):
    """The result, and the CPU and wall seconds of the run with the least CPU time."""
    best = None
    for _ in range(REPEAT):
        c0, w0 = time.process_time(), time.perf_counter()
        r = simulate(cfg)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        if best is None or cpu < best[1]:
            best = (r, cpu, wall)
    return best


def _line(label: str, n: int, r, cpu: float, wall: float) -> str:
    return (f"  {label:<44} {cpu:6.2f} s CPU ({wall:5.2f} s wall)  {n / cpu:>9,.0f} req/s  "
            f"{r.events / cpu:>10,.0f} events/s  (mean batch {r.mean_batch_size:.1f}; "
            f"TTFT p50 {r.ttft_p50_s * 1e3:.1f} ms, p99 {r.ttft_p99_s * 1e3:.1f} ms)")


def one_gpu(n: int) -> None:
    print(f"One GPU ({n:,} requests, llama-3-8b on h100-80gb; continuous batching unless said)")
    for label, kw in (
        ("fixed 512/256 tokens, 10 req/s", dict(arrival_rate=10, prompt_tokens=512, output_tokens=256)),
        ("exponential 512/256 tokens, 10 req/s", dict(arrival_rate=10, prompt_tokens=512, output_tokens=256,
                                                      prompt_dist="exponential", output_dist="exponential")),
        ("exponential outputs, 25 req/s", dict(arrival_rate=25, prompt_tokens=512, output_tokens=256,
                                               output_dist="exponential")),
        ("static, exponential outputs, 5 req/s", dict(policy="static", arrival_rate=5, prompt_tokens=512,
                                                      output_tokens=256, output_dist="exponential")),
    ):
        r, cpu, wall = _timed(SimConfig(requests=n, seed=1, **kw))
        print(_line(label, n, r, cpu, wall))


def fleet(n: int) -> None:
    print(f"\nFleet ({n:,} requests over 8 replicas of llama-3-8b on h100-80gb; 512-token prompts, "
          f"exponential 256-token outputs, 160 req/s: about 60% of the "
          f"fleet's saturation throughput of 8 x 34.6 req/s)")
    base = dict(requests=n, seed=1, replicas=8, arrival_rate=160, prompt_tokens=512, output_tokens=256,
                output_dist="exponential")
    worst = 0.0
    for router in ("round-robin", "least-outstanding", "most-free-kv", "shared-queue", "random"):
        r, cpu, wall = _timed(SimConfig(router=router, **base))
        worst = max(worst, wall)
        print(_line(router, n, r, cpu, wall))
    r, cpu, wall = _timed(SimConfig(router="prefix-affinity", prefixes=64, prefix_tokens=1024,
                                    **dict(base, prompt_tokens=256)))
    worst = max(worst, wall)
    print(_line("prefix-affinity, 64 prefixes of 1,024 tokens", n, r, cpu, wall) + f" hit rate {r.prefix_hit_rate:.2f}")
    verdict = "within" if worst < FLEET_TARGET_S else "OVER"
    print(f"  slowest fleet run {worst:.2f} s wall: {verdict} the {FLEET_TARGET_S:g} s target")


def theory(quick: bool) -> None:
    print("\nQueueing theory (mean wait in queue, simulated vs formula)")
    md1 = dict(prompt_tokens=256, output_tokens=32, max_num_seqs=1)
    S = simulate(SimConfig(requests=1, arrival_rate=1.0, **md1)).e2e_mean_s
    for rho, count in ((0.5, 200_000), (0.8, 400_000)):
        count //= 4 if quick else 1
        t0 = time.perf_counter()
        r = simulate(SimConfig(requests=count, arrival_rate=rho / S, seed=11, **md1))
        wq = rho * S / (2 * (1 - rho))
        print(f"  M/D/1, one GPU, rho={rho}: simulated {r.wait_mean_s * 1e3:.2f} ms, theory {wq * 1e3:.2f} ms, "
              f"error {100 * (r.wait_mean_s / wq - 1):+.2f}% ({count:,} requests, {time.perf_counter() - t0:.2f} s)")

    mg1 = dict(prompt_tokens=1, output_tokens=200, output_dist="exponential", max_num_seqs=1,
               max_num_batched_tokens=16)
    _r, tr = simulate_detailed(SimConfig(requests=20_000, arrival_rate=1e-3, seed=99, **mg1))
    ES = float((tr.finish_s - tr.first_scheduled_s).mean())
    count = 50_000 if quick else 200_000
    R, rho = 2, 0.35
    lam = rho * R / ES
    t0 = time.perf_counter()
    res, tr = simulate_detailed(SimConfig(requests=count, arrival_rate=lam, replicas=R, router="random", seed=0, **mg1))
    S = tr.finish_s - tr.first_scheduled_s
    errs = []
    for k in range(R):
        m = tr.replica == k
        wq = lam / R * float((S[m] ** 2).mean()) / (2 * (1 - lam / R * float(S[m].mean())))
        errs.append(100 * (float(tr.wait_s[m].mean()) / wq - 1))
    print(f"  M/G/1 per replica (Pollaczek-Khinchine), random routing, {R} replicas, rho={rho}: errors "
          + ", ".join(f"{e:+.2f}%" for e in errs) + f" ({count:,} requests, {time.perf_counter() - t0:.2f} s)")

    c, rho = 4, 0.6
    lam = rho * c / ES
    t0 = time.perf_counter()
    res, tr = simulate_detailed(SimConfig(requests=count, arrival_rate=lam, replicas=c, router="shared-queue", seed=0,
                                          **mg1))
    S = float((tr.finish_s - tr.first_scheduled_s).mean())
    a = lam * S
    tail = a**c / math.factorial(c) * c / (c - a)
    wq = tail / (sum(a**k / math.factorial(k) for k in range(c)) + tail) * S / (c - a)
    print(f"  M/M/c (Erlang C), shared queue, c={c}, rho={rho}: simulated {res.wait_mean_s * 1e3:.1f} ms, theory "
          f"{wq * 1e3:.1f} ms, error {100 * (res.wait_mean_s / wq - 1):+.2f}% ({count:,} requests, "
          f"{time.perf_counter() - t0:.2f} s)")


def policies() -> None:
    print("\nContinuous vs static batching (exponential outputs, mean 256; 5 req/s; 3,000 requests)")
    common = dict(arrival_rate=5, prompt_tokens=512, output_tokens=256, output_dist="exponential",
                  requests=3000, seed=1)
    for policy in ("continuous", "static"):
        r = simulate(SimConfig(policy=policy, **common))
        print(f"  {policy:<10} TTFT p50 {r.ttft_p50_s:8.3f} s  p99 {r.ttft_p99_s:8.3f} s  "
              f"e2e mean {r.e2e_mean_s:7.2f} s  {r.throughput_tokens_per_s:8.0f} tokens/s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--quick", action="store_true", help="smaller theory checks")
    ap.add_argument("--repeat", type=int, default=1, help="runs per one-GPU and fleet line; the best CPU time counts")
    args = ap.parse_args(argv)
    global REPEAT
    REPEAT = max(1, args.repeat)
    one_gpu(args.requests)
    fleet(args.requests)
    theory(args.quick)
    policies()
    return 0


if __name__ == "__main__":
    sys.exit(main())
