"""The capacity calculator: published figures, presets, levers, overrides, errors, CLI."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from interviewer import capacity  # noqa: E402
from interviewer.errors import UserError  # noqa: E402

GIB = 2**30


def lever(result, lever_id):
    return next(lv for lv in result.levers if lv.id == lever_id)


# --------------------------------------------------------------------------- published figures


def test_vllm_llama_13b_sequence_of_2048_tokens_holds_about_1_7_gb():
    # vLLM's PagedAttention post: one LLaMA-13B sequence of 2,048 tokens takes up to ~1.7 GB.
    assert capacity.kv_bytes_per_token("llama-13b") == 819_200  # 2 x 40 x 40 x 128 x 2
    r = capacity.compute("llama-13b", "a100-40gb", seq_len=2048)
    assert r.kv_bytes_per_token == 819_200
    assert r.kv_bytes_per_sequence == 819_200 * 2048 == 1_677_721_600
    assert r.kv_bytes_per_sequence / 1e9 == pytest.approx(1.7, abs=0.05)


def test_anyscale_40gb_gpu_26gb_weights_1mb_per_token_gives_28_sequences_of_512():
    # Anyscale's continuous-batching post: 40 GB GPU, 26 GB of weights, ~1 MB of KV per token,
    # 512-token sequences -> 14 GB / 1 MB = 14k tokens -> 28 sequences.
    r = capacity.compute(None, None, gpu_gb=40, weights_gb=26, kv_bytes_per_token=1_048_576,
                         seq_len=512, gpu_memory_utilization=1.0)
    assert r.free_bytes == 14 * GIB
    assert r.max_tokens_in_cache == 14_336
    assert r.max_sequences == 28


def test_gb_means_gib_and_utilization_reserves_the_rest():
    r = capacity.compute("llama-3-8b", "h100-80gb")
    assert r.gpu_bytes == 80 * GIB
    assert r.usable_bytes == int(80 * GIB * 0.9)
    assert r.reserved_bytes == r.gpu_bytes - r.usable_bytes
    assert r.weights_bytes == round(8.03e9 * 2)
    assert r.free_bytes == r.usable_bytes - r.weights_bytes
    assert r.max_tokens_in_cache == r.free_bytes // r.kv_bytes_per_token
    assert r.seq_len == 4096  # min(8192, 4096)
    assert r.max_sequences == r.max_tokens_in_cache // 4096
    assert any("GiB" in t for t in r.terms)


def test_every_term_of_the_arithmetic_is_shown():
    r = capacity.compute("llama-2-13b", "a100-80gb", seq_len=4096)
    text = "\n".join(r.terms)
    for needle in ("2 (K and V) x 40 layers x 40 KV heads x 128 head dim x 2 bytes", "819,200",
                   "13.02e9 params", "x 0.9", "usable - weights", f"{r.max_tokens_in_cache:,}",
                   f"= {r.max_sequences}"):
        assert needle in text


@pytest.mark.parametrize("model, expected", [
    ("llama-2-7b", 2 * 32 * 32 * 128 * 2),
    ("llama-2-70b", 2 * 80 * 8 * 128 * 2),
    ("llama-3-8b", 2 * 32 * 8 * 128 * 2),
    ("mistral-7b", 2 * 32 * 8 * 128 * 2),
    ("mixtral-8x7b", 2 * 32 * 8 * 128 * 2),
    ("qwen2.5-7b", 2 * 28 * 4 * 128 * 2),
    ("llama-3.1-405b", 2 * 126 * 8 * 128 * 2),
])
def test_kv_bytes_per_token_from_published_configs(model, expected):
    assert capacity.kv_bytes_per_token(model) == expected
    assert capacity.kv_bytes_per_token(model, "fp8") == expected // 2


def test_presets_are_complete_and_sourced():
    p = capacity.load_presets()
    for mid in ("llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b", "mistral-7b",
                "mixtral-8x7b", "qwen2.5-7b", "llama-13b", "llama-3.1-8b", "llama-3.1-70b",
                "llama-3.1-405b", "qwen2.5-72b"):
        m = p.models[mid]
        assert m.source and m.aliases
        assert m.attention_heads % m.kv_heads == 0
        if m.hidden_size:
            assert m.attention_heads * m.head_dim == m.hidden_size
    assert p.models["mixtral-8x7b"].params_b == 46.7
    assert p.models["qwen2.5-7b"].params_b == pytest.approx(7.6, abs=0.05)
    for gid in ("a100-40gb", "a100-80gb", "h100-80gb", "h200", "l4", "a10g"):
        g = p.gpus[gid]
        assert g.source and g.memory_gib > 0 and g.hbm_bandwidth_gbs > 0 and g.tflops_fp16 > 0
    assert (p.gpus["h100-80gb"].hbm_bandwidth_gbs, p.gpus["h100-80gb"].tflops_fp16) == (3350, 989)
    assert (p.gpus["h200"].memory_gib, p.gpus["h200"].hbm_bandwidth_gbs) == (141, 4800)
    assert capacity.load_presets() is p  # cached


# --------------------------------------------------------------------------- levers


def test_gqa_lever_compares_with_multi_head_attention():
    r = capacity.compute("llama-3-8b", "h100-80gb", seq_len=4096)
    gqa = lever(r, "gqa")
    mha_kv = r.kv_bytes_per_token * 32 // 8  # kv_heads = attention_heads
    assert gqa.max_sequences == r.max_sequences
    assert gqa.baseline_sequences == (r.free_bytes // mha_kv) // 4096
    assert gqa.delta == r.max_sequences - gqa.baseline_sequences > 0
    # about 4x more sequences with 8 KV heads than with 32
    assert r.max_sequences / gqa.baseline_sequences == pytest.approx(4, rel=0.1)


def test_gqa_lever_on_a_multi_head_model_proposes_8_kv_heads():
    r = capacity.compute("llama-2-13b", "a100-80gb", seq_len=4096)
    gqa = lever(r, "gqa")
    assert gqa.max_sequences == (r.free_bytes // (r.kv_bytes_per_token * 8 // 40)) // 4096
    assert gqa.delta > 0


def test_dtype_and_paging_levers_are_computed():
    r = capacity.compute("llama-2-13b", "a100-80gb", seq_len=2048)
    fp8w, int4w, fp8kv, paging = (lever(r, i) for i in ("fp8_weights", "int4_weights", "fp8_kv", "paging"))
    free_fp8 = r.usable_bytes - r.weights_bytes // 2
    assert fp8w.max_sequences == (free_fp8 // r.kv_bytes_per_token) // 2048
    assert r.max_sequences < fp8w.max_sequences < int4w.max_sequences
    assert fp8kv.max_sequences == (r.free_bytes // (r.kv_bytes_per_token // 2)) // 2048
    assert paging.max_sequences == r.max_tokens_in_cache // 1024  # half of 2048, block-aligned
    for lv in r.levers:
        assert lv.delta == lv.max_sequences - lv.baseline_sequences


def test_levers_for_override_models_scale_the_given_sizes():
    r = capacity.compute(None, None, gpu_gb=40, weights_gb=26, kv_bytes_per_token=1_048_576,
                         seq_len=512, gpu_memory_utilization=1.0)
    assert lever(r, "fp8_weights").max_sequences == (27 * 1024) // 512  # 13 GiB of weights
    assert lever(r, "fp8_kv").max_sequences == 56
    assert not any(lv.id == "gqa" for lv in r.levers)  # no head counts to compare


# --------------------------------------------------------------------------- overrides and errors


def test_custom_model_and_gpu_via_overrides():
    r = capacity.compute(None, "h100", kv_bytes_per_token=100_000, weights_gb=10, seq_len=1000)
    assert r.model == "custom" and r.gpu == "h100-80gb"
    assert r.weights_bytes == 10 * GIB
    assert r.max_tokens_in_cache == (int(80 * GIB * 0.9) - 10 * GIB) // 100_000
    r2 = capacity.compute("llama-2-7b", None, gpu_gb=48)
    assert r2.gpu_bytes == 48 * GIB and r2.gpu == "custom"
    with pytest.raises(UserError, match="kv-bytes-per-token"):
        capacity.compute(None, "h100", weights_gb=10)
    with pytest.raises(UserError, match="gpu-gb"):
        capacity.compute("llama-2-7b", None)


def test_unknown_model_lists_the_known_ones_on_one_line():
    with pytest.raises(UserError) as exc:
        capacity.find_model("gpt-7-mega")
    msg = str(exc.value)
    assert "\n" not in msg and "gpt-7-mega" in msg
    for mid in ("llama-2-7b", "mixtral-8x7b", "qwen2.5-7b"):
        assert mid in msg
    with pytest.raises(UserError) as exc:
        capacity.find_gpu("tpu-v5")
    assert "h100-80gb" in str(exc.value) and "a10g" in str(exc.value)


def test_weights_larger_than_the_gpu_say_so():
    with pytest.raises(UserError) as exc:
        capacity.compute("llama-2-70b", "a100-80gb")
    msg = str(exc.value)
    assert msg.startswith("weights (128.49 GiB) do not fit in usable GPU memory (72.00 GiB")
    assert "tensor parallel" in msg
    # int4 weights (~32 GiB) do fit
    assert capacity.compute("llama-2-70b", "a100-80gb", weights_dtype="int4").max_sequences > 0
    # and so does a tensor-parallel group
    assert capacity.compute("llama-2-70b", "a100-80gb", num_gpus=2).max_sequences > 0


@pytest.mark.parametrize("kwargs, needle", [
    (dict(seq_len=0), "seq-len"),
    (dict(seq_len=-5), "seq-len"),
    (dict(gpu_memory_utilization=1.5), "utilization"),
    (dict(gpu_memory_utilization=0), "utilization"),
    (dict(weights_dtype="fp4"), "weights dtype"),
    (dict(kv_dtype="int3"), "KV dtype"),
    (dict(gpu_gb=-1), "gpu-gb"),
    (dict(num_gpus=0), "num_gpus"),
])
def test_invalid_numbers_are_user_errors(kwargs, needle):
    with pytest.raises(UserError, match=needle):
        capacity.compute("llama-2-7b", "a100-80gb", **kwargs)


# --------------------------------------------------------------------------- names and mentions


@pytest.mark.parametrize("name, expected", [
    ("llama-2-13b", "llama-2-13b"), ("Llama 2 13B", "llama-2-13b"), ("llama2-13b", "llama-2-13b"),
    ("13B LLaMA", "llama-2-13b"), ("meta-llama/Llama-2-13b-hf", "llama-2-13b"), ("LLaMA-13B", "llama-13b"),
    ("Meta-Llama-3-8B-Instruct", "llama-3-8b"), ("llama 3.1 8b", "llama-3.1-8b"),
    ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"), ("Mixtral 8x7B", "mixtral-8x7b"), ("MISTRAL-7B", "mistral-7b"),
])
def test_find_model_by_id_or_alias(name, expected):
    assert capacity.find_model(name).id == expected


@pytest.mark.parametrize("name, expected", [
    ("H100", "h100-80gb"), ("a100 40gb", "a100-40gb"), ("A100", "a100-40gb"), ("A100-80GB", "a100-80gb"),
    ("h200", "h200"), ("L4", "l4"), ("A10G", "a10g"),
])
def test_find_gpu_by_id_or_alias(name, expected):
    assert capacity.find_gpu(name).id == expected


def test_match_mentions_in_free_text():
    text = ("We run Llama-2-13B on 8xH100s, compare with LLaMA 13B on an A100 80GB, "
            "and maybe Llama 3.1 70B or qwen2.5-7b on L4 later. Not a 70 byte thing.")
    models = capacity.match_models(text)
    assert [m[0] for m in models] == ["llama-2-13b", "llama-13b", "llama-3.1-70b", "qwen2.5-7b"]
    assert [text[s:e] for _, s, e in models] == ["Llama-2-13B", "LLaMA 13B", "Llama 3.1 70B", "qwen2.5-7b"]
    gpus = capacity.match_gpus(text)
    assert [g[0] for g in gpus] == ["h100-80gb", "a100-80gb", "l4"]
    assert [text[s:e] for _, s, e in gpus] == ["H100s", "A100 80GB", "L4"]
    assert capacity.match_models("a 7-layer cake, llama-3-8bit") == []
    assert capacity.match_models("Llama 3 70B") == [("llama-3-70b", 0, 11)]


# --------------------------------------------------------------------------- CLI

CLI_PRESENT = (ROOT / "interviewer" / "cli.py").exists()


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "interviewer", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.skipif(not CLI_PRESENT, reason="interviewer/cli.py not written yet")
def test_cli_capacity_json_contract():
    p = _cli("capacity", "--model", "llama-2-13b", "--gpu", "a100-80gb", "--seq-len", "2048", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    for field in ("kv_bytes_per_token", "weights_bytes", "free_bytes", "max_tokens_in_cache", "max_sequences"):
        assert isinstance(out[field], int)
    assert out["kv_bytes_per_token"] == 819_200


@pytest.mark.skipif(not CLI_PRESENT, reason="interviewer/cli.py not written yet")
def test_cli_capacity_overrides_and_table():
    p = _cli("capacity", "--gpu-gb", "40", "--weights-gb", "26", "--kv-bytes-per-token", "1048576",
             "--seq-len", "512", "--gpu-memory-utilization", "1.0")
    assert p.returncode == 0, p.stderr
    assert "max_sequences        28" in p.stdout and "floor(14,336 / 512) = 28" in p.stdout


@pytest.mark.skipif(not CLI_PRESENT, reason="interviewer/cli.py not written yet")
@pytest.mark.parametrize("args, needle", [
    (("--model", "gpt-9", "--gpu", "h100"), "known models: llama-2-7b"),
    (("--model", "llama-2-70b", "--gpu", "l4"), "do not fit"),
    (("--model", "llama-2-7b", "--gpu", "h100", "--seq-len", "-1"), "seq-len"),
])
def test_cli_capacity_errors_are_one_line(args, needle):
    p = _cli("capacity", *args)
    assert p.returncode == 2
    assert p.stderr.startswith("error: ") and needle in p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


def test_run_capacity_directly(capsys):
    import argparse

    from interviewer import cli_tools

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    cli_tools.add_capacity_parser(sub)
    args = parser.parse_args(["capacity", "--model", "mistral-7b", "--gpu", "l4", "--json"])
    assert cli_tools.run_capacity(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["max_sequences"] == math.floor(out["max_tokens_in_cache"] / 4096)
