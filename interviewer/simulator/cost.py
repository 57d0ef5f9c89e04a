"""The cost of one model step on one replica (``tp`` GPUs), from physics and stated assumptions.

* memory time = (weights per GPU + KV bytes per GPU x context tokens touched) / (HBM bandwidth x
  ``hbm_efficiency``): the GPUs of a replica read their shards in parallel.
* compute time = 2 x active parameters x tokens / (tp x dense TFLOPS x ``mfu``); fp8 weights use
  the FP8 tensor-core peak where the GPU has one (W8A8), everything else the FP16 peak.
* all-reduce time (tp > 1) = 2 per layer x (latency + 2 (tp - 1) / tp x tokens x hidden x 2 bytes /
  interconnect bandwidth): a ring all-reduce after attention and after the MLP, as in Megatron-LM.
* step time = max(memory, compute) + all-reduce + ``step_overhead_s``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from interviewer import capacity


@dataclass
class CostModel:
    weights: float  # bytes one GPU reads per step (its shard of the weights)
    kv: float  # KV bytes one GPU reads per context token
    bw: float  # bytes/s one GPU's HBM delivers
    flops: float  # FLOP/s the replica achieves (all its GPUs)
    p2: float  # FLOPs per token: 2 x active parameters
    ovh: float  # fixed cost per step: scheduler and launches
    comm0: float  # all-reduce cost per step that does not grow with tokens (latency)
    comm1: float  # all-reduce cost per token in the step

    def step(self, ctx: float, tokens: int) -> float:
        """One step that touches `ctx` KV tokens and computes `tokens` tokens."""
        mem = (self.weights + self.kv * ctx) / self.bw
        comp = self.p2 * tokens / self.flops
        return max(mem, comp) + self.ovh + self.comm0 + self.comm1 * tokens

    def decode_run(self, n: int, ctx0: float, k: int) -> float:
        """Time of k decode steps of `n` sequences whose contexts total `ctx0` tokens at the first
        step (each step adds n): the closed-form sum of :meth:`step`."""
        return self.decode_run_fn(n, ctx0)(k) if k > 0 else 0.0

    def decode_run_fn(self, n: int, ctx0: float):
        """T(k) of :meth:`decode_run` for fixed n and ctx0, with its constants worked out once."""
        kv, bw = self.kv, self.bw
        a = (self.weights + kv * ctx0) / bw
        b = kv * n / bw
        c = self.p2 * n / self.flops
        ovh = self.ovh + self.comm0 + self.comm1 * n
        if a >= c:  # memory bound from the first step: k (a + ovh) + b k (k - 1) / 2
            a_ovh = a + ovh

            def T(k: int) -> float:
                return k * a_ovh + b * (k * (k - 1) // 2)
        else:  # compute bound for the first js steps, until the growing KV reads overtake it
            js = math.ceil((c - a) / b) if b > 0 else 1 << 62

            def T(k: int) -> float:
                j = js if js < k else k
                return j * c + (k - j) * a + b * ((k * (k - 1) - j * (j - 1)) // 2) + k * ovh
        return T

    def bound(self):
        """(step, decode_run_fn) as plain functions with the model's constants bound once, for the
        scheduler's loop: the same arithmetic in the same order as the methods, so the same floats
        (without tensor parallelism the all-reduce terms are exactly zero and are left out)."""
        W, KV, BW, P2, FL, OVH, C0, C1 = self.weights, self.kv, self.bw, self.p2, self.flops, self.ovh, \
            self.comm0, self.comm1
        OVH0 = OVH + C0  # ovh + comm0 + comm1 * n evaluates (ovh + comm0) first
        comm = C0 != 0 or C1 != 0
        ceil = math.ceil

        def step(ctx: float, tokens: int) -> float:
            mem = (W + KV * ctx) / BW
            comp = P2 * tokens / FL
            if comm:
                return (comp if comp > mem else mem) + OVH + C0 + C1 * tokens
            return (comp if comp > mem else mem) + OVH  # max(mem, comp) + OVH

        def decode_run_fn(n: int, ctx0: float):
            a = (W + KV * ctx0) / BW
            b = KV * n / BW
            c = P2 * n / FL
            ovh = OVH0 + C1 * n if comm else OVH0
            if a >= c:
                a_ovh = a + ovh

                def T(k: int) -> float:
                    return k * a_ovh + b * (k * (k - 1) // 2)
            else:
                js = ceil((c - a) / b) if b > 0 else 1 << 62

                def T(k: int) -> float:
                    j = js if js < k else k
                    return j * c + (k - j) * a + b * ((k * (k - 1) - j * (j - 1)) // 2) + k * ovh
            return T

        return step, decode_run_fn


def build(model: capacity.ModelSpec, gpu: capacity.GPUSpec, cap: capacity.CapacityResult, *, tp: int,
          weights_dtype: str, mfu: float, hbm_efficiency: float, step_overhead_s: float,
          interconnect_gbs: float | None, allreduce_latency_s: float | None) -> tuple[CostModel, list[str]]:
    """The cost model of one replica and the assumptions it rests on, in words."""
    presets = capacity.load_presets().assumptions
    lat = float(presets.get("allreduce_latency_us", 10)) * 1e-6 if allreduce_latency_s is None else allreduce_latency_s
    act = float(presets.get("activation_bytes", 2))
    link = (gpu.interconnect_gbs if interconnect_gbs is None else interconnect_gbs) * 1e9
    fp8 = weights_dtype == "fp8" and gpu.tflops_fp8
    peak = (gpu.tflops_fp8 if fp8 else gpu.tflops_fp16) * 1e12
    hidden = model.hidden_size or model.attention_heads * model.head_dim
    comm0 = comm1 = 0.0
    if tp > 1:
        comm0 = 2 * model.layers * lat
        comm1 = 2 * model.layers * 2 * (tp - 1) / tp * hidden * act / link
    kv_gpu = cap.kv_bytes_per_token * cap.kv_replication / tp
    cost = CostModel(weights=cap.weights_bytes / tp, kv=kv_gpu, bw=gpu.hbm_bandwidth_gbs * 1e9 * hbm_efficiency,
                     flops=tp * peak * mfu, p2=2.0 * model.active_params, ovh=float(step_overhead_s),
                     comm0=comm0, comm1=comm1)
    link_name = gpu.interconnect or "interconnect"
    notes = [
        f"HBM efficiency {hbm_efficiency:g} of {gpu.hbm_bandwidth_gbs:g} GB/s per GPU; MFU {mfu:g} of "
        f"{peak / 1e12:g} TFLOPS ({'fp8' if fp8 else 'fp16'} tensor cores) per GPU; "
        f"{step_overhead_s * 1e3:g} ms fixed overhead per step",
        "attention FLOPs and activation memory are left out; weights and KV are sharded evenly across the "
        "tensor-parallel GPUs",
    ]
    if tp > 1:
        notes.append(
            f"tensor parallel {tp}: 2 all-reduces per layer x {model.layers} layers, each {lat * 1e6:g} us + "
            f"2 x ({tp} - 1) / {tp} x tokens x {hidden} hidden x {act:g} bytes / {link / 1e9:g} GB/s "
            f"({link_name}, one direction); all-reduces are not overlapped with compute")
    return cost, notes
