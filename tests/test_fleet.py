"""The fleet simulator: queueing theory per router, prefix caching trade-offs, tensor parallelism, CLI."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
from interviewer import capacity
from interviewer.simulator import SimConfig, simulate, simulate_detailed
from interviewer.simulator.replica import PrefixCache

# One sequence per replica and nearly exponential service: a 1-token prompt, then round(Exp(200))
# decode steps of ~5.3 ms whose KV reads barely grow (Cs^2 = 1.00).
MG1 = dict(prompt_tokens=1, output_tokens=200, output_dist="exponential", max_num_seqs=1, max_num_batched_tokens=16)


def _service(trace) -> np.ndarray:
    return trace.finish_s - trace.first_scheduled_s


def _mean_service() -> float:
    _res, trace = simulate_detailed(SimConfig(requests=20_000, arrival_rate=1e-3, seed=99, **MG1))
    return float(_service(trace).mean())


def erlang_c(c: int, a: float) -> float:
    """Probability that an arrival waits in M/M/c with offered load a = lambda / mu."""
    tail = a**c / math.factorial(c) * c / (c - a)
    return tail / (sum(a**k / math.factorial(k) for k in range(c)) + tail)


# --------------------------------------------------------------------------- queueing theory


def test_random_routing_makes_each_replica_mg1_pollaczek_khinchine():
    # Random routing splits a Poisson stream into R Poisson streams of rate lambda / R, so each
    # replica is M/G/1: Wq = lambda_r E[S^2] / (2 (1 - lambda_r E[S])).
    R, rho = 2, 0.35
    lam = rho * R / _mean_service()
    res, trace = simulate_detailed(SimConfig(requests=200_000, arrival_rate=lam, replicas=R, router="random",
                                             seed=0, **MG1))
    assert res.completed == 200_000 and res.preemptions == 0
    S = _service(trace)
    for r in range(R):
        mine = trace.replica == r
        lam_r = lam / R
        wq = lam_r * float((S[mine] ** 2).mean()) / (2 * (1 - lam_r * float(S[mine].mean())))
        assert trace.wait_s[mine].mean() == pytest.approx(wq, rel=0.05)
        assert res.per_replica[r].wait_mean_s == pytest.approx(float(trace.wait_s[mine].mean()))
        assert res.per_replica[r].share == pytest.approx(1 / R, abs=0.01)


def test_random_routing_follows_the_lindley_recursion_on_every_replica():
    lam = 0.7 * 3 / _mean_service()
    _res, trace = simulate_detailed(SimConfig(requests=3000, arrival_rate=lam, replicas=3, router="random", seed=5,
                                              **MG1))
    S = _service(trace)
    for r in range(3):
        idx = np.flatnonzero(trace.replica == r)
        a, s, w = trace.arrival_s[idx], S[idx], np.zeros(len(idx))
        for i in range(1, len(idx)):
            w[i] = max(0.0, w[i - 1] + s[i - 1] - (a[i] - a[i - 1]))
        np.testing.assert_allclose(trace.wait_s[idx], w, atol=1e-9)


def test_shared_queue_is_mmc_erlang_c():
    # One queue in front of c replicas, each taking the next request when it frees: M/M/c.
    c, rho = 4, 0.6
    ES = _mean_service()
    lam = rho * c / ES
    res, trace = simulate_detailed(SimConfig(requests=200_000, arrival_rate=lam, replicas=c,
                                             router="shared-queue", seed=0, **MG1))
    assert res.completed == 200_000
    S = float(_service(trace).mean())
    a = lam * S
    wq = erlang_c(c, a) * S / (c - a)
    assert res.wait_mean_s == pytest.approx(wq, rel=0.05)
    # and the shared queue beats random routing of the same stream (no replica idles while others queue)
    rnd = simulate(SimConfig(requests=20_000, arrival_rate=lam, replicas=c, router="random", seed=0, **MG1))
    assert rnd.wait_mean_s > 2 * res.wait_mean_s


# --------------------------------------------------------------------------- prefix caching


# 16 system prompts of 1,024 tokens; each replica's 8,192-token cache holds a quarter of them at most.
PREFIXED = dict(replicas=4, prefixes=16, prefix_tokens=1024, prompt_tokens=64, output_tokens=64,
                output_dist="exponential", kv_cache_tokens=8192, requests=4000, seed=3)


def test_prefix_affinity_beats_round_robin_on_a_shared_prefix_workload():
    rr = simulate(SimConfig(router="round-robin", arrival_rate=100, **PREFIXED))
    pa = simulate(SimConfig(router="prefix-affinity", arrival_rate=100, **PREFIXED))
    # round-robin asks every replica to cache all 16 prefixes: LRU thrashes; affinity gives each 4
    assert rr.prefix_hit_rate < 0.6 < 0.95 < pa.prefix_hit_rate
    assert pa.ttft_p50_s < rr.ttft_p50_s and pa.ttft_p99_s < rr.ttft_p99_s
    assert pa.goodput_rps > rr.goodput_rps
    for rep in pa.per_replica:
        assert rep.share == pytest.approx(0.25, abs=0.03) and rep.prefix_hit_rate > 0.95


def test_prefix_affinity_loses_to_least_outstanding_when_one_prefix_is_hot():
    hot = dict(PREFIXED, hot_prefix_fraction=0.9)
    pa = simulate(SimConfig(router="prefix-affinity", arrival_rate=200, **hot))
    lo = simulate(SimConfig(router="least-outstanding", arrival_rate=200, **hot))
    assert max(r.share for r in pa.per_replica) > 0.9  # the hot prefix's home replica takes it all
    assert pa.prefix_hit_rate > lo.prefix_hit_rate > 0.85  # the hot prefix is cached everywhere anyway
    assert lo.ttft_p50_s * 10 < pa.ttft_p50_s and lo.ttft_p99_s * 10 < pa.ttft_p99_s
    assert lo.goodput_rps > pa.goodput_rps


def test_a_hit_skips_the_prefix_prefill():
    one = dict(requests=2, arrival_rate=0.01, prompt_tokens=64, output_tokens=2, prefixes=1, prefix_tokens=2048, seed=1)
    _res, trace = simulate_detailed(SimConfig(**one))
    assert trace.prefix_hit.tolist() == [False, True]
    ttft = trace.ttft_s
    assert ttft[1] < ttft[0] / 5  # 64 tokens prefilled instead of 2,112


def test_prefix_cache_is_lru_and_pinned_prefixes_stay():
    cache = PrefixCache(blocks_per_prefix=4)
    for p in (1, 2, 3):
        cache.insert(p)
        cache.unpin(p)
    cache.pin(1)  # 1 is read again: 2 is now the least recently used
    assert (cache.blocks, cache.pinned) == (12, 4)
    assert cache.evict(4) == 4 and list(cache.refs) == [3, 1]
    assert cache.evict(100) == 4 and list(cache.refs) == [1]  # pinned: never evicted
    cache.unpin(1)
    assert cache.evict(4, keep=1) == 0 and cache.evict(4) == 4 and cache.blocks == 0


def test_prefix_cache_is_bounded_by_free_kv():
    # a cache of 8,192 tokens holds at most 8 prefixes of 1,024: round-robin must evict
    res = simulate(SimConfig(router="round-robin", arrival_rate=20, **PREFIXED))
    assert 0.2 < res.prefix_hit_rate < 0.7
    roomy = simulate(SimConfig(router="round-robin", arrival_rate=20, **dict(PREFIXED, kv_cache_tokens=65536)))
    assert roomy.prefix_hit_rate > 0.9


# --------------------------------------------------------------------------- the engine


@pytest.mark.parametrize("kwargs", [
    dict(replicas=3, router="least-outstanding", arrival_rate=60, prompt_tokens=300, output_tokens=150,
         prompt_dist="exponential", output_dist="exponential", requests=800, priority_fraction=0.2,
         kv_cache_tokens=4000, max_num_batched_tokens=512, max_num_seqs=16, prefixes=6, prefix_tokens=200),
    dict(replicas=3, router="most-free-kv", arrival_rate=60, prompt_tokens=300, output_tokens=150,
         output_dist="exponential", requests=800, kv_cache_tokens=4000, max_num_seqs=16),
    dict(replicas=4, router="prefix-affinity", arrival_rate=100, prompt_tokens=64, output_tokens=64,
         output_dist="exponential", requests=1000, kv_cache_tokens=8192, prefixes=16, prefix_tokens=1024,
         hot_prefix_fraction=0.5),
    dict(replicas=3, router="shared-queue", arrival_rate=20, prompt_tokens=200, output_tokens=100,
         output_dist="uniform", requests=800, max_num_seqs=4, priority_fraction=0.1),
    dict(replicas=2, router="round-robin", tp=2, model="llama-3-70b", arrival_rate=3, prompt_tokens=500,
         output_tokens=200, output_dist="exponential", requests=300),
])
def test_fleet_event_jumps_equal_step_by_step_execution(kwargs):
    cfg = SimConfig(**kwargs)
    fast, tf = simulate_detailed(cfg)
    slow, ts = simulate_detailed(cfg, _jump=False)
    for field in ("first_scheduled_s", "first_token_s", "finish_s"):
        np.testing.assert_allclose(getattr(tf, field), getattr(ts, field), rtol=1e-9, atol=1e-9)
    assert np.array_equal(tf.replica, ts.replica) and np.array_equal(tf.prefix_hit, ts.prefix_hit)
    assert (fast.preemptions, fast.steps) == (slow.preemptions, slow.steps)
    assert fast.events < slow.events


def test_one_replica_is_the_single_gpu_simulator():
    base = dict(arrival_rate=12, prompt_tokens=256, output_tokens=200, output_dist="exponential", requests=600, seed=2)
    one = simulate(SimConfig(**base))
    for router in ("least-outstanding", "shared-queue", "most-free-kv"):
        other = simulate(SimConfig(router=router, **base))
        assert other.ttft_p99_s == pytest.approx(one.ttft_p99_s, rel=1e-12) and other.steps == one.steps


def test_routers_balance_and_the_fleet_adds_up():
    res = simulate(SimConfig(replicas=4, router="round-robin", arrival_rate=40, prompt_tokens=512, output_tokens=128,
                             output_dist="exponential", requests=2000, seed=4))
    assert [r.requests for r in res.per_replica] == [500] * 4
    assert sum(r.completed for r in res.per_replica) == res.completed == 2000
    assert sum(r.share for r in res.per_replica) == pytest.approx(1.0)
    assert res.prefix_hit_rate is None and all(r.prefix_hit_rate is None for r in res.per_replica)
    assert 0 < res.goodput_rps <= res.requests_per_s and 0 < res.slo_attainment <= 1
    assert all(0 < r.busy_fraction <= 1 for r in res.per_replica)
    assert (res.replicas, res.router, res.tp) == (4, "round-robin", 1)


# --------------------------------------------------------------------------- tensor parallelism


def test_tensor_parallel_step_costs_follow_the_stated_cost_model():
    cfg = SimConfig(requests=1, arrival_rate=1.0, prompt_tokens=1000, output_tokens=2, model="llama-3-70b", tp=4)
    r = simulate(cfg)
    model, gpu = capacity.find_model("llama-3-70b"), capacity.find_gpu("h100-80gb")
    W = model.params * 2 / 4  # each GPU reads its quarter of the weights
    kv = capacity.kv_bytes_per_token(model) / 4  # and a quarter of every token's KV (2 of 8 heads)
    bw, link, lat = gpu.hbm_bandwidth_gbs * 1e9, gpu.interconnect_gbs * 1e9, 10e-6

    def allreduce(tokens):  # two per layer, ring: 2 (N - 1) / N of the activations each way
        return 2 * model.layers * (lat + 2 * 3 / 4 * tokens * model.hidden_size * 2 / link)

    prefill = max((W + kv * 1000) / bw, 2 * model.params * 1000 / (4 * gpu.tflops_fp16 * 1e12 * 0.5)) \
        + allreduce(1000) + 0.0005
    decode = (W + kv * 1001) / bw + allreduce(1) + 0.0005
    assert r.ttft_mean_s == pytest.approx(prefill, rel=1e-9)
    assert r.e2e_mean_s == pytest.approx(prefill + decode, rel=1e-9)
    assert any("all-reduce" in a and "450 GB/s" in a for a in r.assumptions)
    # more GPUs per replica: a faster decode step, and a bigger KV cache per replica
    tp8 = simulate(cfg.model_copy(update={"tp": 8}))
    assert tp8.decode_step_s < r.decode_step_s and tp8.kv_cache_tokens > r.kv_cache_tokens


def test_fp8_weights_halve_the_bytes_and_use_fp8_tensor_cores():
    base = dict(requests=1, arrival_rate=1.0, prompt_tokens=4000, output_tokens=2)
    fp16, fp8 = simulate(SimConfig(**base)), simulate(SimConfig(weights_dtype="fp8", **base))
    assert fp8.decode_step_s < 0.6 * fp16.decode_step_s  # memory bound: half the weight bytes
    assert fp8.prefill_s < 0.6 * fp16.prefill_s  # compute bound: twice the FP8 peak on an H100
    a100 = simulate(SimConfig(gpu="a100-80gb", weights_dtype="fp8", **base))
    assert any("fp16 tensor cores" in a for a in a100.assumptions)  # no FP8 on an A100


def test_a_70b_model_runs_on_two_gpus_per_replica():
    res = simulate(SimConfig(model="llama-2-70b", tp=2, replicas=4, router="least-outstanding", arrival_rate=2,
                             prompt_tokens=512, output_tokens=128, output_dist="exponential", requests=400))
    assert res.completed == 400 and res.kv_cache_tokens == 50_832  # the calculator's 50,838, in 16-token blocks
    assert "2 x h100-80gb" in res.terms[0]


# --------------------------------------------------------------------------- CLI

CLI_PRESENT = (ROOT / "interviewer" / "cli.py").exists()


@pytest.mark.skipif(not CLI_PRESENT, reason="interviewer/cli.py not written yet")
def test_cli_simulate_fleet_json_contract():
    p = subprocess.run([sys.executable, "-m", "interviewer", "simulate", "--arrival-rate", "6", "--prompt-tokens", "256",
                        "--output-tokens", "64", "--requests", "400", "--model", "llama-3-70b", "--tp", "2",
                        "--replicas", "4", "--router", "prefix-affinity", "--prefixes", "8", "--prefix-tokens", "512",
                        "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    for field in ("ttft_mean_s", "ttft_p50_s", "ttft_p95_s", "ttft_p99_s", "e2e_mean_s", "throughput_tokens_per_s"):
        assert isinstance(out[field], float)
    assert out["completed"] == 400 and out["replicas"] == 4 and out["router"] == "prefix-affinity"
    assert len(out["per_replica"]) == 4 and isinstance(out["prefix_hit_rate"], float)
    assert {"replica", "requests", "share", "ttft_p99_s", "prefix_hit_rate"} <= set(out["per_replica"][0])
    assert out["tp"] == 2 and "goodput_rps" in out and out["assumptions"]


# --------------------------------------------------------------------------- in the round


def test_a_stated_fleet_design_is_run_at_twice_its_load():
    from interviewer.whiteboard import simulate_fleet_design

    out = simulate_fleet_design("llama-3-70b", "h100-80gb", tp=2, replicas=4, router="least-outstanding", rate_rps=10)
    facts, ask = out
    assert 1 <= len(facts) <= 2 and all(len(f) < 160 and "\n" not in f for f in facts)
    assert facts[0].startswith("Your fleet of 4 replicas of Llama 3 70B on 2 H100 80GB GPUs each hits its knee near ")
    assert "At twice your 10 requests per second, p99 time to first token is" in facts[1]
    assert "past the knee" in ask and ask.endswith("?")
    calm = simulate_fleet_design("llama-3-70b", "h100-80gb", tp=2, replicas=4, rate_rps=2, slo_ttft_s=1.0)
    assert "inside your 1-second target" in calm[1]


def test_a_fleet_design_that_cannot_hold_the_model_is_told_so():
    from interviewer.whiteboard import simulate_fleet_design

    facts, ask = simulate_fleet_design("llama-2-70b", "h100-80gb", tp=1, replicas=8, rate_rps=5)
    assert "doesn't fit" in facts[0] and "smallest tensor-parallel degree that fits is 2" in facts[0]
    assert "quantize" in ask
    facts, _ask = simulate_fleet_design("llama-3-8b", "h100-80gb", tp=3)
    assert "tensor-parallel degree of 3" in facts[0]
    assert simulate_fleet_design("gpt-9", "h100-80gb") is None
