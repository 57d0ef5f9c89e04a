"""Benchmark the serving simulator: requests simulated per second, and agreement with M/D/1.

Run from the repository root:  python benchmarks/bench_simulator.py [--requests N]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from interviewer.simulator import SimConfig, simulate  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=100_000)
    args = ap.parse_args(argv)
    n = args.requests

    print(f"Throughput of the simulator ({n:,} requests, llama-3-8b on h100-80gb, continuous batching)")
    for label, kw in (
        ("fixed 512/256 tokens, 10 req/s", dict(arrival_rate=10, prompt_tokens=512, output_tokens=256)),
        ("exponential 512/256 tokens, 10 req/s", dict(arrival_rate=10, prompt_tokens=512, output_tokens=256,
                                                      prompt_dist="exponential", output_dist="exponential")),
        ("exponential outputs, 25 req/s", dict(arrival_rate=25, prompt_tokens=512, output_tokens=256,
                                               output_dist="exponential")),
    ):
        t0 = time.perf_counter()
        r = simulate(SimConfig(requests=n, seed=1, **kw))
        dt = time.perf_counter() - t0
        print(f"  {label:<40} {dt:6.2f} s  {n / dt:>10,.0f} requests/s simulated  "
              f"({r.steps:,} model steps; mean batch {r.mean_batch_size:.1f}; TTFT p99 {r.ttft_p99_s * 1e3:.1f} ms)")

    print("\nM/D/1 check (max_num_seqs=1, fixed 256/32 tokens): mean wait vs rho S / (2 (1 - rho))")
    md1 = dict(prompt_tokens=256, output_tokens=32, max_num_seqs=1)
    S = simulate(SimConfig(requests=1, arrival_rate=1.0, **md1)).e2e_mean_s
    for rho, count in ((0.5, 200_000), (0.8, 400_000)):
        t0 = time.perf_counter()
        r = simulate(SimConfig(requests=count, arrival_rate=rho / S, seed=11, **md1))
        wq = rho * S / (2 * (1 - rho))
        print(f"  rho={rho}: S={S * 1e3:.2f} ms, simulated Wq={r.wait_mean_s * 1e3:.2f} ms, "
              f"theory {wq * 1e3:.2f} ms, error {100 * (r.wait_mean_s / wq - 1):+.2f}% "
              f"({count:,} requests, {time.perf_counter() - t0:.2f} s)")

    print("\nContinuous vs static batching (exponential outputs, mean 256; 5 req/s; 3,000 requests)")
    common = dict(arrival_rate=5, prompt_tokens=512, output_tokens=256, output_dist="exponential",
                  requests=3000, seed=1)
    for policy in ("continuous", "static"):
        r = simulate(SimConfig(policy=policy, **common))
        print(f"  {policy:<10} TTFT p50 {r.ttft_p50_s:8.3f} s  p99 {r.ttft_p99_s:8.3f} s  "
              f"e2e mean {r.e2e_mean_s:7.2f} s  {r.throughput_tokens_per_s:8.0f} tokens/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
