"""`python -m interviewer capacity` and `python -m interviewer simulate` (wired in by interviewer.cli).

Both raise interviewer.errors.UserError on bad input; the main CLI prints it as `error: ...`
and exits 2. The library names a bad setting in words (the Whiteboard page shows the same
message); here the flag is put in front. A bad flag value (not a number, NaN, inf) is one line
too, never the usage text. Without --json they print a readable table with every term of the
arithmetic; with --json, one JSON object (the contract's fields plus more).
"""
from __future__ import annotations

import argparse
import json
import math
import sys

from interviewer.errors import UserError


def _float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return v


def _int(text: str) -> int:
    try:
        return int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def _one_line_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Argument errors as one `error: ...` line and exit 2, like the library's errors."""
    def error(message: str):
        print(f"error: {parser.prog.split()[-1]}: {' '.join(str(message).split())}", file=sys.stderr)
        sys.exit(2)

    parser.error = error  # type: ignore[method-assign]
    return parser


def _with_flag(parser: argparse.ArgumentParser, exc: UserError) -> UserError:
    """A library SettingError, with the flag that sets it in front when this command has one."""
    setting = getattr(exc, "setting", None)
    flag = f"--{setting.replace('_', '-')}" if setting else None
    if flag and parser is not None and flag in parser._option_string_actions:
        return UserError(f"{flag}: {exc}")
    return exc


# --------------------------------------------------------------------------- capacity


def add_capacity_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "capacity", help="KV-cache capacity: weights + KV per sequence against GPU memory",
        description="How many sequences fit: KV bytes per token = 2 x layers x KV heads x head dim x "
                    "bytes (multi-head latent attention: layers x (latent + RoPE key) x bytes); free = "
                    "GPU x utilization - weights; sequences = floor(free / KV per token / seq_len). "
                    "--tp shards one replica over N GPUs, --replicas gives fleet totals. GB means GiB "
                    "(2^30 bytes) throughout. Overrides plug in any model (--kv-bytes-per-token with "
                    "--weights-gb) or GPU (--gpu-gb). A model that does not fit prints fits: false, "
                    "min_tp and the fp8/int4 alternatives (exit 0).")
    p.add_argument("--model", help="model preset or alias, e.g. llama-2-13b (see hardware.yaml)")
    p.add_argument("--gpu", help="GPU preset or alias, e.g. h100-80gb")
    p.add_argument("--weights-dtype", choices=["fp16", "bf16", "fp8", "int8", "int4"], default="fp16")
    p.add_argument("--kv-dtype", choices=["fp16", "bf16", "fp8"], default="fp16")
    p.add_argument("--seq-len", type=_int, help="tokens per sequence (default min(model context, 4096))")
    p.add_argument("--kv-bytes-per-token", type=_int, help="override the model's KV bytes per token")
    p.add_argument("--weights-gb", type=_float, help="override the weights size, in GiB")
    p.add_argument("--gpu-gb", type=_float, help="override the GPU memory, in GiB")
    p.add_argument("--gpu-memory-utilization", type=_float, default=0.9,
                   help="fraction of GPU memory the server may use, as vLLM's flag (default 0.9)")
    p.add_argument("--tp", type=_int, default=1, help="tensor-parallel degree: GPUs per replica (default 1)")
    p.add_argument("--replicas", type=_int, default=1, help="replicas in the fleet (default 1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_capacity, _parser=p)
    return _one_line_errors(p)


def run_capacity(args: argparse.Namespace) -> int:
    from interviewer import capacity

    if not args.model and args.kv_bytes_per_token is None and args.weights_gb is None:
        raise UserError("give --model NAME (or --kv-bytes-per-token and --weights-gb for a custom model)")
    if not args.gpu and args.gpu_gb is None:
        raise UserError("give --gpu NAME (or --gpu-gb for a custom GPU)")
    try:
        result = capacity.compute(
            args.model or None, args.gpu or None, weights_dtype=args.weights_dtype, kv_dtype=args.kv_dtype,
            seq_len=args.seq_len, kv_bytes_per_token=args.kv_bytes_per_token, weights_gb=args.weights_gb,
            gpu_gb=args.gpu_gb, gpu_memory_utilization=args.gpu_memory_utilization,
            tp=getattr(args, "tp", 1), replicas=getattr(args, "replicas", 1), allow_no_fit=True,
        )
    except capacity.SettingError as exc:
        raise _with_flag(getattr(args, "_parser", None), exc) from None
    if args.json:
        print(json.dumps(result.model_dump(), indent=2))
    else:
        print(capacity.format_result(result))
    return 0


# --------------------------------------------------------------------------- simulate


def add_simulate_parser(subparsers) -> argparse.ArgumentParser:
    from interviewer.simulator import ROUTERS

    p = subparsers.add_parser(
        "simulate", help="simulate a batching policy and a fleet under Poisson arrivals (TTFT percentiles)",
        description="Discrete-event simulation of a fleet of replicas (each --tp GPUs) behind a router, "
                    "serving a request stream: vLLM-style continuous batching (token budget, max "
                    "sequences, KV blocks, preemption by recompute, prefix caching) or static batching. "
                    "Step times come from weights and KV bytes over HBM bandwidth, FLOPs over peak "
                    "TFLOPS, and a per-layer all-reduce over the interconnect; the assumptions are printed.")
    p.add_argument("--policy", choices=["continuous", "static"], default="continuous")
    p.add_argument("--arrival-rate", type=_float, required=True, help="requests per second (Poisson)")
    p.add_argument("--prompt-tokens", type=_int, required=True, help="mean prompt length (after any shared prefix)")
    p.add_argument("--output-tokens", type=_int, required=True, help="mean output length")
    p.add_argument("--prompt-dist", choices=["fixed", "exponential", "uniform"], default="fixed")
    p.add_argument("--output-dist", choices=["fixed", "exponential", "uniform"], default="fixed")
    p.add_argument("--max-num-seqs", type=_int, default=256)
    p.add_argument("--max-num-batched-tokens", type=_int, default=8192)
    p.add_argument("--requests", type=_int, default=2000)
    p.add_argument("--seed", type=_int, default=0)
    p.add_argument("--model", default="llama-3-8b")
    p.add_argument("--gpu", default="h100-80gb")
    p.add_argument("--weights-dtype", choices=["fp16", "bf16", "fp8", "int8", "int4"], default="fp16")
    p.add_argument("--kv-dtype", choices=["fp16", "bf16", "fp8"], default="fp16")
    p.add_argument("--priority-fraction", type=_float, default=0.0,
                   help="fraction of requests marked high priority (scheduled first)")
    p.add_argument("--gpu-memory-utilization", type=_float, default=0.9)
    p.add_argument("--tp", type=_int, default=1, help="tensor-parallel degree: GPUs per replica")
    p.add_argument("--replicas", type=_int, default=1, help="replicas behind the router")
    p.add_argument("--router", choices=list(ROUTERS), default="round-robin")
    p.add_argument("--prefixes", type=_int, default=0, help="K shared system prompts (prefix caching)")
    p.add_argument("--prefix-tokens", type=_int, default=0, help="P: tokens in each shared system prompt")
    p.add_argument("--hot-prefix-fraction", type=_float, default=0.0,
                   help="fraction of requests that use prefix 0 (one hot prefix)")
    p.add_argument("--slo-ttft-s", type=_float, default=1.0, help="TTFT objective for goodput (default 1 s)")
    p.add_argument("--slo-tpot-s", type=_float, help="time-per-output-token objective for goodput")
    p.add_argument("--mfu", type=_float, help="fraction of peak FLOPs achieved (default 0.5)")
    p.add_argument("--hbm-efficiency", type=_float, help="fraction of peak HBM bandwidth achieved (default 1.0)")
    p.add_argument("--interconnect-gbs", type=_float, help="GPU-to-GPU GB/s one way (default: the GPU's)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_simulate, _parser=p)
    return _one_line_errors(p)


def run_simulate(args: argparse.Namespace) -> int:
    from interviewer import simulator
    from interviewer.capacity import SettingError

    try:
        config = simulator.make_config(
            policy=args.policy, arrival_rate=args.arrival_rate, prompt_tokens=args.prompt_tokens,
            output_tokens=args.output_tokens, prompt_dist=args.prompt_dist, output_dist=args.output_dist,
            max_num_seqs=args.max_num_seqs, max_num_batched_tokens=args.max_num_batched_tokens,
            requests=args.requests, seed=args.seed, model=args.model, gpu=args.gpu,
            weights_dtype=getattr(args, "weights_dtype", None), kv_dtype=getattr(args, "kv_dtype", None),
            priority_fraction=getattr(args, "priority_fraction", None),
            gpu_memory_utilization=getattr(args, "gpu_memory_utilization", None),
            tp=getattr(args, "tp", None), replicas=getattr(args, "replicas", None),
            router=getattr(args, "router", None), prefixes=getattr(args, "prefixes", None),
            prefix_tokens=getattr(args, "prefix_tokens", None),
            hot_prefix_fraction=getattr(args, "hot_prefix_fraction", None),
            slo_ttft_s=getattr(args, "slo_ttft_s", None), slo_tpot_s=getattr(args, "slo_tpot_s", None),
            mfu=getattr(args, "mfu", None), hbm_efficiency=getattr(args, "hbm_efficiency", None),
            interconnect_gbs=getattr(args, "interconnect_gbs", None),
        )
        result = simulator.simulate(config)
    except SettingError as exc:
        raise _with_flag(getattr(args, "_parser", None), exc) from None
    if args.json:
        out = result.model_dump()
        out["config"] = config.model_dump()
        print(json.dumps(out, indent=2))
    else:
        print(simulator.format_result(result))
    return 0
