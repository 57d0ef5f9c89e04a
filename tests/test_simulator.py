"""The serving simulator: queueing theory, policies, preemption, priority, determinism, CLI."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
from interviewer import capacity
from interviewer.errors import UserError
from interviewer.simulator import SimConfig, simulate, simulate_detailed, sweep

MD1 = dict(prompt_tokens=256, output_tokens=32, max_num_seqs=1)


def _service_time() -> tuple[float, float]:
    """(prefill, service) of one request alone: S = prefill step + (output - 1) decode steps."""
    alone = simulate(SimConfig(requests=1, arrival_rate=1.0, **MD1))
    return alone.ttft_mean_s, alone.e2e_mean_s


# --------------------------------------------------------------------------- queueing theory


@pytest.mark.parametrize("rho, n", [(0.5, 200_000), (0.8, 400_000)])
def test_single_sequence_server_is_md1(rho, n):
    # max_num_seqs=1 and fixed lengths: Poisson arrivals, one server, deterministic service S.
    prefill, S = _service_time()
    res = simulate(SimConfig(requests=n, arrival_rate=rho / S, seed=11, **MD1))
    wq_theory = rho * S / (2 * (1 - rho))
    # TTFT = wait + prefill; the wait before first scheduling is the queueing delay
    assert res.ttft_mean_s - prefill == pytest.approx(res.wait_mean_s, rel=1e-6)
    assert res.wait_mean_s == pytest.approx(wq_theory, rel=0.05)
    assert res.preemptions == 0 and res.completed == n


def test_single_sequence_server_matches_lindley_recursion_exactly():
    prefill, S = _service_time()
    res, trace = simulate_detailed(SimConfig(requests=3000, arrival_rate=0.7 / S, seed=5, **MD1))
    a = trace.arrival_s
    w = np.zeros_like(a)
    for i in range(1, len(a)):
        w[i] = max(0.0, w[i - 1] + S - (a[i] - a[i - 1]))
    np.testing.assert_allclose(trace.wait_s, w, atol=1e-9)
    np.testing.assert_allclose(trace.ttft_s, w + prefill, atol=1e-9)
    np.testing.assert_allclose(trace.e2e_s, w + S, atol=1e-9)


def test_cost_model_is_physical():
    r = simulate(SimConfig(requests=1, arrival_rate=1.0, prompt_tokens=1000, output_tokens=2))
    model, gpu = capacity.find_model("llama-3-8b"), capacity.find_gpu("h100-80gb")
    weights = model.params * 2
    kv = capacity.kv_bytes_per_token(model)
    prefill = max((weights + kv * 1000) / (gpu.hbm_bandwidth_gbs * 1e9),
                  2 * model.params * 1000 / (gpu.tflops_fp16 * 1e12 * 0.5)) + 0.0005
    decode = (weights + kv * 1001) / (gpu.hbm_bandwidth_gbs * 1e9) + 0.0005
    assert r.ttft_mean_s == pytest.approx(prefill, rel=1e-9)
    assert r.e2e_mean_s == pytest.approx(prefill + decode, rel=1e-9)
    assert prefill > decode  # 1000-token prefill is compute bound, a decode step memory bound


# --------------------------------------------------------------------------- the event-skipping engine


@pytest.mark.parametrize("kwargs", [
    dict(arrival_rate=30, prompt_tokens=300, output_tokens=200, prompt_dist="exponential",
         output_dist="exponential", requests=400, priority_fraction=0.2, kv_cache_tokens=3000,
         max_num_batched_tokens=512, max_num_seqs=32),
    dict(arrival_rate=3, prompt_tokens=2000, output_tokens=50, requests=200, max_num_batched_tokens=700,
         max_num_seqs=4),
    dict(arrival_rate=12, prompt_tokens=256, output_tokens=200, output_dist="uniform", requests=400),
])
def test_event_jumps_equal_step_by_step_execution(kwargs):
    cfg = SimConfig(**kwargs)
    fast, tf = simulate_detailed(cfg)
    slow, ts = simulate_detailed(cfg, _jump=False)
    for field in ("first_scheduled_s", "first_token_s", "finish_s"):
        np.testing.assert_allclose(getattr(tf, field), getattr(ts, field), rtol=1e-9, atol=1e-9)
    assert (fast.preemptions, fast.steps) == (slow.preemptions, slow.steps)


# --------------------------------------------------------------------------- policies


def test_continuous_beats_static_on_p99_ttft_with_varied_outputs():
    common = dict(arrival_rate=5, prompt_tokens=512, output_tokens=256, output_dist="exponential",
                  requests=3000, seed=1)
    cont = simulate(SimConfig(policy="continuous", **common))
    stat = simulate(SimConfig(policy="static", **common))
    assert cont.completed == stat.completed == 3000
    assert cont.ttft_p99_s * 10 < stat.ttft_p99_s
    assert cont.ttft_p50_s < stat.ttft_p50_s
    assert cont.e2e_mean_s < stat.e2e_mean_s


def test_static_batch_waits_for_its_longest_sequence():
    # request 0 starts alone on the idle GPU; 1-4 arrive during its batch and form the next one,
    # which starts when batch 0 ends and is returned together when its longest output is done
    res, trace = simulate_detailed(SimConfig(policy="static", arrival_rate=1000, requests=5, prompt_tokens=100,
                                             output_tokens=100, output_dist="uniform", seed=3))
    assert trace.first_scheduled_s[0] == trace.arrival_s[0]
    assert np.all(trace.first_scheduled_s[1:] == trace.finish_s[0])
    assert np.all(trace.finish_s[1:] == trace.finish_s[1])
    assert len(set(trace.output_tokens[1:].tolist())) > 1  # varied lengths, one finish time
    assert res.mean_batch_size > 1


def test_preemption_happens_when_the_cache_is_tiny_and_everyone_still_finishes():
    tiny = SimConfig(arrival_rate=20, prompt_tokens=256, output_tokens=512, requests=300, kv_cache_tokens=4096, seed=3)
    res, trace = simulate_detailed(tiny)
    assert res.preemptions > 0
    assert trace.preemptions.sum() == res.preemptions
    assert res.completed == 300 and np.all(trace.finish_s >= trace.first_token_s)
    roomy = simulate(tiny.model_copy(update={"kv_cache_tokens": None}))
    assert roomy.preemptions == 0
    assert roomy.ttft_p99_s < res.ttft_p99_s


def test_priority_requests_get_lower_ttft_under_load():
    res = simulate(SimConfig(arrival_rate=30, prompt_tokens=512, output_tokens=256, max_num_seqs=32,
                             requests=3000, priority_fraction=0.2, seed=2))
    assert res.ttft_priority_mean_s is not None
    assert res.ttft_priority_mean_s * 5 < res.ttft_normal_mean_s
    assert res.ttft_priority_p99_s < res.ttft_normal_p99_s


def test_limits_are_respected():
    res = simulate(SimConfig(arrival_rate=50, prompt_tokens=128, output_tokens=128, max_num_seqs=8, requests=1000))
    assert res.mean_batch_size <= 8 + 1e-9
    # chunked prefill: a prompt bigger than the step budget still completes, over several steps
    long = simulate(SimConfig(requests=1, arrival_rate=1, prompt_tokens=4000, output_tokens=1,
                              max_num_batched_tokens=1000, max_num_seqs=4))
    one = simulate(SimConfig(requests=1, arrival_rate=1, prompt_tokens=4000, output_tokens=1))
    assert long.completed == 1 and long.steps == 4 and one.steps == 1
    assert long.ttft_mean_s > one.ttft_mean_s


def test_light_load_throughput_is_the_offered_load():
    res = simulate(SimConfig(arrival_rate=2, prompt_tokens=128, output_tokens=64, requests=2000, seed=4))
    assert res.throughput_tokens_per_s == pytest.approx(2 * 64, rel=0.1)
    assert res.wait_mean_s < res.ttft_mean_s


def test_sweep_shows_the_tail_growing_with_load():
    base = SimConfig(prompt_tokens=512, output_tokens=128, max_num_seqs=16, requests=1500, seed=7)
    results = sweep(base, [2, 10, 30])
    assert [r.arrival_rate for r in results] == [2, 10, 30]
    assert results[0].ttft_p99_s < results[-1].ttft_p99_s
    assert results[0].mean_batch_size < results[-1].mean_batch_size


def test_kv_cache_comes_from_the_capacity_calculator():
    res = simulate(SimConfig(requests=5, arrival_rate=1, model="llama-2-13b", gpu="a100-40gb"))
    cap = capacity.compute("llama-2-13b", "a100-40gb")
    assert res.kv_cache_tokens == cap.max_tokens_in_cache // 16 * 16


def test_determinism_by_seed():
    cfg = SimConfig(arrival_rate=15, prompt_tokens=200, output_tokens=100, output_dist="exponential",
                    requests=800, priority_fraction=0.1, seed=42)
    assert simulate(cfg) == simulate(cfg)
    assert simulate(cfg).ttft_p99_s != simulate(cfg.model_copy(update={"seed": 43})).ttft_p99_s


@pytest.mark.parametrize("update, setting, needle", [
    (dict(arrival_rate=0), "arrival_rate", "arrival rate"),
    (dict(arrival_rate=-3), "arrival_rate", "arrival rate"),
    (dict(arrival_rate=float("nan")), "arrival_rate", "arrival rate"),
    (dict(arrival_rate=1e-308), "arrival_rate", "arrival rate must be between"),  # was NaN results
    (dict(prompt_tokens=0), "prompt_tokens", "prompt length"),
    (dict(output_tokens=-1), "output_tokens", "output length"),
    (dict(requests=0), "requests", "number of requests"),
    (dict(max_num_seqs=0), "max_num_seqs", "max_num_seqs"),
    (dict(max_num_batched_tokens=8, max_num_seqs=16), "max_num_batched_tokens", "max_num_batched_tokens"),
    (dict(priority_fraction=1.5), "priority_fraction", "priority"),
    (dict(priority_fraction=float("nan")), "priority_fraction", "priority"),
    (dict(mfu=float("inf")), "mfu", "MFU"),
    (dict(prompt_tokens=8000, output_tokens=500), "prompt_tokens", "does not fit"),
    # exponential lengths averaging beyond the context were accepted and clipped
    (dict(prompt_tokens=8000, output_tokens=500, prompt_dist="exponential"), "prompt_tokens", "on average does not fit"),
    (dict(tp=0), "tp", "tensor-parallel degree"),
    (dict(tp=3), "tp", "does not divide"),
    (dict(replicas=0), "replicas", "replica count"),
    (dict(prefixes=4), "prefix_tokens", "shared prefixes need both"),
    (dict(router="prefix-affinity"), "router", "prefix-affinity router needs"),
])
def test_invalid_settings_are_one_line_user_errors(update, setting, needle):
    cfg = SimConfig(requests=10).model_copy(update=update)
    with pytest.raises(UserError) as exc:
        simulate(cfg)
    assert needle in str(exc.value) and "\n" not in str(exc.value)
    assert exc.value.setting == setting and "--" not in str(exc.value)  # worded for the page and the CLI


def test_unknown_model_and_weights_that_do_not_fit_are_user_errors():
    with pytest.raises(UserError, match="known models"):
        simulate(SimConfig(requests=10, model="gpt-9"))
    with pytest.raises(UserError, match="across at least 2 GPUs"):
        simulate(SimConfig(requests=10, model="llama-3-70b"))


# --------------------------------------------------------------------------- CLI

CLI_PRESENT = (ROOT / "interviewer" / "cli.py").exists()


@pytest.mark.skipif(not CLI_PRESENT, reason="interviewer/cli.py not written yet")
def test_cli_simulate_json_contract():
    p = subprocess.run([sys.executable, "-m", "interviewer", "simulate", "--arrival-rate", "4",
                        "--prompt-tokens", "256", "--output-tokens", "64", "--requests", "300", "--json"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    for field in ("ttft_mean_s", "ttft_p50_s", "ttft_p95_s", "ttft_p99_s", "e2e_mean_s",
                  "throughput_tokens_per_s"):
        assert isinstance(out[field], float)
    assert out["completed"] == 300


@pytest.mark.skipif(not CLI_PRESENT, reason="interviewer/cli.py not written yet")
def test_cli_simulate_bad_rate_is_one_line_error():
    p = subprocess.run([sys.executable, "-m", "interviewer", "simulate", "--arrival-rate", "0",
                        "--prompt-tokens", "256", "--output-tokens", "64"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.startswith("error: ") and p.stderr.count("\n") == 1


@pytest.mark.skipif(not CLI_PRESENT, reason="interviewer/cli.py not written yet")
@pytest.mark.parametrize("args, needle", [
    (("--arrival-rate", "1e-308"), "--arrival-rate: arrival rate must be between"),
    (("--arrival-rate", "nan"), "not a finite number"),
    (("--arrival-rate", "inf"), "not a finite number"),
    (("--arrival-rate", "1", "--prompt-tokens", "8000", "--output-tokens", "500", "--prompt-dist", "exponential"),
     "on average does not fit"),
    (("--arrival-rate", "1", "--tp", "3"), "--tp: tensor-parallel degree 3"),
    (("--arrival-rate", "1", "--replicas", "-2"), "--replicas"),
    (("--arrival-rate", "1", "--router", "fastest"), "invalid choice"),
])
def test_cli_simulate_edge_cases_are_one_line_errors(args, needle):
    full = ["--prompt-tokens", "256", "--output-tokens", "64", "--requests", "50", *args]
    p = subprocess.run([sys.executable, "-m", "interviewer", "simulate", *full],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stdout
    assert p.stderr.startswith("error: ") and p.stderr.count("\n") == 1, p.stderr
    assert needle in p.stderr and "usage:" not in p.stderr and "Traceback" not in p.stderr
