"""The claim ledger (interviewer/claims): numbers, attachment, subjects, flags and physics checks.

Each pattern class from issue 13 is tested with several phrasings; the issue's own examples are
tested verbatim.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from interviewer.claims import Ledger, build_ledger

ROOT = Path(__file__).resolve().parents[1]
CALIBRATION = sorted((ROOT / "tests" / "calibration").glob("*.json"))

OPEN_70B = ("Let's design the serving system behind a chat assistant. The model is a 70B-parameter decoder, think "
            "Llama-3-70B, served in FP16 on H100 80GB GPUs. At peak we see about 200 requests per second, prompts "
            "average around 1,500 tokens and replies around 300, and the product team wants p99 time to first token "
            "under 800 milliseconds. Where would you start?")
OPEN_8B = "We serve Llama-3-8B in FP16 on a single H100 80GB. How many concurrent sequences fit?"
OPEN_WAL = "Design a KV store with a WAL: 50,000 writes per second, 1 KB values."
OPEN_REC = "Recommendations for a food app: 20,000 requests a second at peak, 300 candidates each, ranked on NVIDIA L4s."
OPEN_HEALTH = "We operate around 10,000 GPUs on 1,250 eight-GPU hosts. Design the repair pipeline for unhealthy GPUs."
OPEN_13B = "One A100 80GB holding Llama-2-13B in FP16; prompts of 2,000 tokens."


_TEXTS: dict[int, list[str]] = {}


def ledger(*candidate: str, opening: str = OPEN_70B) -> Ledger:
    """The interviewer's opening, then each candidate answer followed by a neutral prompt."""
    turns = [("interviewer", opening)]
    for text in candidate:
        turns += [("candidate", text), ("interviewer", "Go on.")]
    led = build_ledger(turns)
    _TEXTS[id(led)] = [t for _r, t in turns]
    return led


def led_text(led: Ledger, claim) -> str:
    return _TEXTS[id(led)][claim.turn]


def one(led: Ledger, kind: str, speaker: str = "candidate"):
    found = [c for c in led.by_kind(kind) if c.speaker == speaker]
    assert found, f"no {kind} in {led.summary()}"
    return found[0]


def kinds(led: Ledger, speaker: str = "candidate") -> set[str]:
    return {c.kind for c in led.claims if c.speaker == speaker}


def status(led: Ledger, kind: str) -> str:
    c = one(led, kind)
    assert c.check is not None, c.brief()
    return c.check.status


def statuses(led: Ledger, kind: str) -> list[str]:
    """The check status of every figure of `kind` (one with no check at all raises: each is expected checked)."""
    return [c.check.status for c in led.by_kind(kind)]


def none_wrong(led: Ledger, kind: str | None = None) -> bool:
    """No figure of `kind` (of any kind the candidate said, without one) is checked wrong (unchecked ones and
    right ones pass)."""
    claims = led.by_kind(kind) if kind is not None else led.candidate_claims()
    return all(c.check is None or c.check.status != "wrong" for c in claims)


# --------------------------------------------------------------------------- the issue's own examples


def test_issue_capacity_chain_without_the_concluding_phrase_is_all_derived_and_right():
    led = ledger("per-token KV = 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 128 KiB; weights about 16 GB, leaving "
                 "~56 GiB; that is ~430k tokens, so ~100 sequences at 4k context", opening=OPEN_8B)
    kv = one(led, "kv_bytes_per_token")
    assert kv.value == 131072 and kv.check.status == "ok"
    assert kv.formula == ["2", "32 layers", "8 KV heads", "128", "2 bytes"]
    assert status(led, "weights_bytes") == "ok"
    assert status(led, "free_kv_bytes") == "ok"
    assert status(led, "kv_cache_tokens") == "ok"
    seqs = one(led, "concurrent_sequences")
    assert seqs.value == 100 and seqs.approx and seqs.check.status == "ok"
    assert one(led, "seq_len").value == 4096
    assert seqs.subject.model == "llama-3-8b" and seqs.subject.gpu == "h100-80gb"
    assert not led.wrong()


def test_issue_5000_sequences_of_8b_on_an_h100_is_wrong():
    led = ledger("An H100 fits about 5,000 sequences of Llama-3-8B at 4k.")
    c = one(led, "concurrent_sequences")
    assert c.value == 5000 and c.scope == "per_gpu"
    assert c.check.status == "wrong"
    assert 90 <= c.check.expected <= 140
    assert "5,000" in c.check.explanation and "110" in c.check.explanation


def test_issue_70b_fp16_is_70gb_and_fits_on_one_h100_is_wrong_and_impossible():
    led = ledger("the 70B in FP16 is about 70 GB, so it fits on one H100.")
    w = one(led, "weights_bytes")
    assert w.check.status == "wrong"
    assert w.check.expected == pytest.approx(141e9, rel=0.01)
    fit = one(led, "fits_on_gpus")
    assert fit.value == 1 and fit.check.status == "impossible"
    assert "141 GB" in fit.check.explanation and "two 80 GB cards" in fit.check.explanation


def test_issue_8192_x_2_is_16kb_per_token_is_wrong_for_a_70b():
    led = ledger("8192 x 2 = about 16 KB per token.")
    kv = one(led, "kv_bytes_per_token")
    assert kv.check.status == "wrong"
    assert kv.check.expected == 327680
    assert "320 KiB" in kv.check.explanation


def test_issue_1000_sequences_max_and_100k_tokens_per_step_is_flagged():
    led = ledger("Continuous batching with about 1,000 sequences max and 100k tokens per step.")
    assert one(led, "max_num_seqs").value == 1000
    budget = one(led, "token_budget")
    assert budget.value == 100_000 and budget.check.status == "wrong"
    assert "800 ms" in budget.check.explanation
    # with the replica said (tensor parallel over four), the cap is also far beyond the KV cache
    led = ledger("Tensor parallel over four H100s. Continuous batching with about 1,000 sequences max and 100k tokens "
                 "per step.")
    assert status(led, "max_num_seqs") == "wrong"
    assert status(led, "token_budget") == "wrong"


@pytest.mark.parametrize("text, kind", [
    ("We'd track average latency 200 ms.", "latency_mean_ms"),
    ("Mean latency is around 200 ms.", "latency_mean_ms"),
    ("On average the latency is 200 ms.", "latency_mean_ms"),
    ("The average time to first token is 200 ms.", "ttft_mean_ms"),
])
def test_issue_average_latency_is_a_mean_not_a_percentile(text, kind):
    led = ledger(text)
    c = one(led, kind)
    assert c.value == 200 and c.percentile == "mean"
    assert not [x for x in led.candidate_claims() if x.kind.endswith(("p50_ms", "p95_ms", "p99_ms"))]


# --------------------------------------------------------------------------- numbers and units


@pytest.mark.parametrize("text, kind, value", [
    ("The weights are 16G.", "weights_bytes", 16e9),
    ("The weights are 16 GB.", "weights_bytes", 16e9),
    ("KV is 128K byte per token.", "kv_bytes_per_token", 128e3),
    ("KV is 128 KiB per token.", "kv_bytes_per_token", 131072),
    ("KV is 128 KB per token.", "kv_bytes_per_token", 128e3),
    ("that leaves 56 gig for the cache", "free_kv_bytes", 56e9),
    ("that leaves 56 GiB for the cache", "free_kv_bytes", 56 * 2**30),
    ("KV per token is half a MB.", "kv_bytes_per_token", 0.5e6),
    ("fifty thousand puts a second", "write_rate", 50_000),
    ("about a hundred sequences per GPU", "concurrent_sequences", 100),
    ("two hundred requests per second at peak", "request_rate_rps", 200),
    ("prefill takes 50 to 100 microseconds", "prefill_time_ms", 0.075),
    ("p99 TTFT under 1.5 s", "ttft_p99_ms", 1500),
    ("a 120-second overall timeout", "timeout_s", 120),
    ("the H100 streams at 3.35 TB/s", "memory_bandwidth", 3.35e12),
    # said aloud with "hundred" left out, and European separators
    ("so about two fifty sequences per replica", "concurrent_sequences", 250),
    ("that's about five ninety megs a sequence", "kv_bytes_per_sequence", 590e6),
    ("Max output we allow is 2 048 tokens.", "output_tokens", 2048),
    ("decode is 0,035 s a token", "tpot_ms", 35),
    # ... hyphenated as speech runs them together, a decimal with its digits hyphened, a head of two words
    ("max_num_seqs two-fifty-six per replica", "max_num_seqs", 256),
    ("max_num_batched_tokens eight thousand one-ninety-two per step", "token_budget", 8192),
    ("two thousand in plus two-fifty out, twenty-two-fifty tokens each", "seq_len", 2250),
    ("the fsync takes half a millisecond to a millisecond", "fsync_latency_ms", 0.75),
])
def test_numbers_and_terse_units(text, kind, value):
    c = one(ledger(text), kind)
    assert c.value == pytest.approx(value)


def test_approx_and_ranges():
    led = ledger("We can hold 80-100 sequences per replica, ~2,400 in flight, roughly 300 GB.")
    c = one(led, "concurrent_sequences")
    assert (c.low, c.high, c.value) == (80, 100, 90)
    assert one(led, "fleet_in_flight").approx
    led = ledger("eight or nine copies, 32 to 36 GPUs in total")
    r = one(led, "replicas")
    assert (r.low, r.high) == (8, 9)
    g = one(led, "gpu_count")
    assert (g.low, g.high) == (32, 36) and g.scope == "fleet"


def test_k_suffix_is_binary_for_context_lengths_and_decimal_for_counts():
    led = ledger("At 4k context about 30 sequences fit; the cache holds ~430k tokens; 8k context halves it.")
    lens = [c.value for c in led.by_kind("seq_len") if c.speaker == "candidate"]
    assert lens == [4096, 8192]
    assert one(led, "kv_cache_tokens").value == 430_000


# --------------------------------------------------------------------------- tables and lists


def test_markdown_table_rows_are_claims_with_exact_spans():
    text = ("Here is the budget:\n\n| Quantity | Value |\n|---|---|\n| KV per token | 128 KiB |\n"
            "| Weights | 16 GB |\n| Free for KV | ~56 GiB |\n| Sequences per GPU at 4k | ~100 |\n\nThat is my plan.")
    led = ledger(text, opening=OPEN_8B)
    kv = one(led, "kv_bytes_per_token")
    assert kv.value == 131072 and kv.source == "table" and kv.span == "128 KiB"
    assert one(led, "weights_bytes").check.status == "ok"
    assert one(led, "free_kv_bytes").check.status == "ok"
    seqs = one(led, "concurrent_sequences")
    assert seqs.value == 100 and seqs.scope == "per_gpu" and seqs.check.status == "ok"
    for c in led.claims:
        assert c.span == led_text(led, c)[c.start:c.end]


def test_wide_table_with_a_header_per_column():
    text = ("| Model | Weights | KV per token |\n|---|---|---|\n| Llama-3-70B | 141 GB | 320 KiB |\n"
            "| Llama-3-8B | 16 GB | 128 KiB |")
    led = ledger(text)
    w = [c for c in led.by_kind("weights_bytes") if c.speaker == "candidate"]
    assert [(c.subject.model, c.check.status) for c in w] == [("llama-3-70b", "ok"), ("llama-3-8b", "ok")]
    kv = [c for c in led.by_kind("kv_bytes_per_token") if c.speaker == "candidate"]
    assert [c.value for c in kv] == [327680, 131072]
    assert all(c.check.status == "ok" for c in kv)


def test_bullet_lists_are_sentences():
    text = "- Weights: 141 GB\n- KV per token: 320 KB\n- max_num_seqs: 128\n- p99 TTFT: 800 ms"
    led = ledger("Tensor parallel over four H100s.\n" + text)
    assert {"weights_bytes", "kv_bytes_per_token", "max_num_seqs", "ttft_p99_ms"} <= kinds(led)
    assert one(led, "max_num_seqs").value == 128


# --------------------------------------------------------------------------- attachment


@pytest.mark.parametrize("text, kind, value", [
    ("A 300-token reply takes about 9 seconds to stream.", "output_tokens", 300),
    ("Replies average around 300 tokens.", "output_tokens", 300),
    ("A 1,500-token prompt is prefilled in about 100 ms.", "prompt_tokens", 1500),
    ("Prompts are around 1,500 tokens.", "prompt_tokens", 1500),
    ("We hash the first 512 tokens to route by prefix.", "prefix_tokens", 512),
    ("The cache holds ~190k tokens of KV.", "kv_cache_tokens", 190_000),
    ("We keep a shared system prompt of 2,000 tokens hot.", "prefix_tokens", 2000),
])
def test_token_counts_that_are_not_the_sequence_length(text, kind, value):
    led = ledger(text)
    assert one(led, kind).value == value
    assert "seq_len" not in kinds(led)


@pytest.mark.parametrize("text, value", [
    ("~100 sequences at 4k context", 4096),
    ("sequences of 2,048 tokens", 2048),
    ("at 1,800 tokens per conversation that's about 70 sequences", 1800),
    ("A request is 2,000 prompt plus 250 reply, 2,250 tokens.", 2250),
    ("if I plan for 4,000-token conversations it's about 125", 4000),
    ("The context length is 8192.", 8192),
])
def test_sequence_length_phrasings(text, value):
    assert one(ledger(text), "seq_len").value == value


def test_littles_law_in_flight_is_fleet_wide_not_per_replica_concurrency():
    led = ledger("At 200 requests a second, each alive for about 12 seconds, we have ~2,400 in flight, "
                 "so with ~285 sequences per replica that's nine replicas.")
    f = one(led, "fleet_in_flight")
    assert f.value == 2400 and f.scope == "fleet" and f.check.status == "ok"
    c = one(led, "concurrent_sequences")
    assert c.value == 285 and c.scope == "per_replica"
    assert one(led, "replicas").value == 9


@pytest.mark.parametrize("text, kind, value", [
    ("max_num_seqs 64", "max_num_seqs", 64),
    ("max_num_seqs=64 per replica", "max_num_seqs", 64),
    ("we cap at 64 active sequences", "max_num_seqs", 64),
    ("no more than 256 conversations active at a time", "max_num_seqs", 256),
    ("dynamic batching, max batch size 32", "max_batch_size", 32),
    ("at most 32 requests per GPU batch", "max_batch_size", 32),
    ("max_num_batched_tokens 8192", "token_budget", 8192),
    ("at most 8,000 prompt tokens processed per step", "token_budget", 8000),
    ("4,096 batched tokens per step", "token_budget", 4096),
    ("The queue is capped at 2,000 requests.", "queue_limit", 2000),
])
def test_scheduling_limits(text, kind, value):
    led = ledger(text)
    assert one(led, kind).value == value
    assert "concurrent_sequences" not in kinds(led)


@pytest.mark.parametrize("text", ["~30 sequences per GPU", "each GPU holds about 30 sequences at once",
                                  "an H100 fits about 30 conversations"])
def test_a_capacity_figure_is_not_a_limit(text):
    led = ledger(text)
    c = one(led, "concurrent_sequences")
    assert c.value == 30 and c.scope == "per_gpu"
    assert "max_num_seqs" not in kinds(led)


@pytest.mark.parametrize("text, kind, pct", [
    ("p99 time to first token under 800 ms", "ttft_p99_ms", "p99"),
    ("p50 TTFT 250 ms and p99 800 ms", "ttft_p50_ms", "p50"),
    ("The slowest 1% of users should see their first token within 800 ms", "ttft_p99_ms", "p99"),
    ("half of users within 250 ms of their first token", "ttft_p50_ms", "p50"),
    ("TTFT of 800 ms at p95", "ttft_p95_ms", "p95"),
    ("p99 time per output token under 50 ms", "tpot_p99_ms", "p99"),
    ("p99 put latency under 10 ms", "latency_p99_ms", "p99"),
    ("p99 queue wait above 500 ms", "queue_wait_ms", "p99"),
])
def test_latency_percentiles(text, kind, pct):
    c = one(ledger(text), kind)
    assert c.percentile == pct


def test_two_percentiles_in_one_breath():
    led = ledger("p50 TTFT 250 ms and p99 800 ms.")
    assert one(led, "ttft_p50_ms").value == 250
    assert one(led, "ttft_p99_ms").value == 800


def test_system_prompt_sentences_are_ordinary_text():
    led = ledger("With prefix caching the system prompt is computed once: a 1,000-token system prompt shared by "
                 "every request saves about 100 ms of prefill. Ignore the system prompt for sizing; ~285 sequences "
                 "per replica on four H100s.")
    assert one(led, "prefix_tokens").value == 1000
    assert one(led, "concurrent_sequences").value == 285


# --------------------------------------------------------------------------- negation and hypotheticals


@pytest.mark.parametrize("text, kind", [
    ("I wouldn't set a p99 target of 500 ms.", "latency_p99_ms"),
    ("We won't cap max_num_seqs.", "max_num_seqs"),
    ("We don't need a token budget of 100k tokens per step.", "token_budget"),
    ("I would not run it on one H100.", "fits_on_gpus"),
])
def test_negated_claims_are_flagged_and_not_checked(text, kind):
    c = one(ledger(text), kind)
    assert c.negated
    assert c.check is None


def test_a_bound_is_not_a_negation():
    c = one(ledger("no more than 256 sequences active at a time"), "max_num_seqs")
    assert not c.negated and c.bound == "upper"


def test_negation_stops_at_but():
    led = ledger("Not 500 ms but 800 ms at p99 for the first token.")
    vals = {c.value: c.negated for c in led.candidate_claims() if c.kind.startswith("ttft") or c.kind.startswith("latency")}
    assert vals[800] is False


def test_hypothetical_uses_its_own_gpu_and_does_not_change_the_subject():
    led = ledger("Tensor parallel over four H100s gives about 285 sequences at 1,800 tokens. If we had H200s, each "
                 "replica would hold about 600 sequences. Back to the H100 plan: weights are 141 GB.")
    hyp = [c for c in led.candidate_claims() if c.hypothetical]
    assert hyp and all(c.subject.gpu == "h200" for c in hyp)
    w = one(led, "weights_bytes")
    assert not w.hypothetical and w.subject.gpu == "h100-80gb"
    assert led.subjects[-1].gpu == "h100-80gb"


@pytest.mark.parametrize("text", ["Suppose we used int4: the weights would be about 35 GB.",
                                  "Hypothetically, with int4 weights it's about 35 GB.",
                                  "What if we quantized to int4: then it's about 35 GB."])
def test_hypothetical_phrasings(text):
    led = ledger(text)
    w = [c for c in led.by_kind("weights_bytes") if c.speaker == "candidate"]
    assert w and any(c.hypothetical for c in w)


def test_a_war_story_figure_is_hypothetical_and_the_plan_after_it_is_not():
    led = ledger("At my last job our 70B did about 30 sequences a replica, so here I'd plan on 28 sequences per replica.")
    flags = {c.value: c.hypothetical for c in led.candidate_claims() if c.kind == "concurrent_sequences"}
    assert flags == {30: True, 28: False}


# --------------------------------------------------------------------------- subjects carried across turns


def test_interviewer_opening_sets_the_subject_for_terse_candidate_words():
    led = ledger("An 80 gig card can't hold the 70B in 16-bit, so I'd shard across four cards.")
    mem = one(led, "gpu_memory_bytes")
    assert mem.subject.gpu == "h100-80gb" and mem.subject.model == "llama-3-70b"


def test_figures_spread_across_turns_use_earlier_figures():
    led = ledger("Tensor parallel over four H100 80GB cards.", "Weights are 141 GB, leaving about 168 GB.",
                 "At 1,800 tokens a conversation, that's about 285 sequences per replica.")
    assert status(led, "free_kv_bytes") == "ok"
    c = one(led, "concurrent_sequences")
    assert c.check.status == "ok" and c.subject.tp == 4


def test_candidate_names_a_model_the_interviewer_did_not():
    led = build_ledger([("interviewer", "How would you size a model server on an A100 80GB?"),
                        ("candidate", "Take Mistral-7B: 2 x 32 x 8 x 128 x 2 = 131,072 bytes per token.")])
    kv = one(led, "kv_bytes_per_token")
    assert kv.subject.model == "mistral-7b" and kv.check.status == "ok"


def test_a_model_named_by_size_takes_a_preset_shape_only_when_unambiguous():
    led = build_ledger([("interviewer", "One host with eight A100 80GB GPUs, each holding its own copy of a 13B model "
                                        "in FP16. How many 2,000-token sequences fit on one GPU?"),
                        ("candidate", "About 30 sequences per GPU.")])
    c = one(led, "concurrent_sequences")
    assert c.check.status == "ok" and c.check.assumptions
    # 7B presets disagree (multi-head Llama-2-7B vs grouped-query Mistral-7B): weights only
    led = build_ledger([("interviewer", "A 7B model in FP16 on an H100."),
                        ("candidate", "Weights are 14 GB; KV is 128 KB per token.")])
    assert status(led, "weights_bytes") == "ok"
    assert one(led, "kv_bytes_per_token").check is None


def test_interviewer_claims_are_recorded_but_never_checked():
    led = ledger("OK.")
    mine = [c for c in led.claims if c.speaker == "interviewer"]
    assert {"request_rate_rps", "prompt_tokens", "output_tokens", "ttft_p99_ms"} <= {c.kind for c in mine}
    assert all(c.said_by_interviewer and c.check is None for c in mine)
    assert not led.checked()


def test_an_interviewer_change_of_shape_is_the_model_checked_against():
    led = build_ledger([
        ("interviewer", "Batch 8, 2,048 tokens, 32 layers, 32 heads of dimension 128, FP16. How much KV memory?"),
        ("candidate", "Per token it's 2 x 32 x 32 x 128 x 2 bytes = 524,288 bytes."),
        ("interviewer", "The model switches to grouped-query attention with 8 KV heads for 32 query heads."),
        ("candidate", "The cache shrinks by four: 131,072 bytes per token."),
    ])
    kv = [c for c in led.by_kind("kv_bytes_per_token") if c.speaker == "candidate"]
    assert [c.check.status for c in kv] == ["ok", "ok"]


# --------------------------------------------------------------------------- physics


def test_forgetting_the_factor_of_two_is_named():
    led = build_ledger([("interviewer", "32 layers, 32 heads of dimension 128, in FP16. KV per token?"),
                        ("candidate", "32 layers times 32 heads times 128 times 2 bytes, 262,144 bytes.")])
    kv = one(led, "kv_bytes_per_token")
    assert kv.check.status == "wrong" and "factor of two" in kv.check.explanation


def test_attention_heads_instead_of_kv_heads_is_named():
    kv = one(ledger("KV per token is 2 x 80 x 64 x 128 x 2 = 2,621,440 bytes."), "kv_bytes_per_token")
    assert kv.check.status == "wrong" and "8 KV heads" in kv.check.explanation


def test_free_memory_and_sequences_per_replica():
    led = ledger("Four H100s with tensor parallelism: 320 GiB, about 168 GB after weights, about 285 sequences of "
                 "1,800 tokens per replica.")
    assert status(led, "free_kv_bytes") == "ok"
    assert status(led, "concurrent_sequences") == "ok"
    led = ledger("Four H100s with tensor parallelism give about 870 sequences of 1,800 tokens per replica.")
    c = one(led, "concurrent_sequences")
    assert c.check.status == "wrong" and 230 <= c.check.expected <= 340


def test_sequences_without_a_length_are_unchecked():
    led = build_ledger([("interviewer", "Llama-3-8B on an H100."), ("candidate", "About 100 sequences fit per GPU.")])
    assert status(led, "concurrent_sequences") == "unchecked"


def test_weights_that_fit_and_weights_that_do_not():
    led = ledger("Quantized to int4 it's about 35 GB, which fits on a single 80 GB H100.")
    assert status(led, "weights_bytes") == "ok"
    assert status(led, "fits_on_gpus") == "ok"
    led = ledger("In FP16 it needs at least two H100s.")
    assert status(led, "fits_on_gpus") == "ok"
    led = ledger("We run it with tensor parallel degree 1 on one H100.")
    assert status(led, "tensor_parallel") == "impossible"


def test_ttft_target_below_the_prefill_floor_is_impossible():
    led = ledger("Tensor parallel over four H100s; p99 time to first token of 10 ms for the 1,500-token prompts.")
    c = one(led, "ttft_p99_ms")
    assert c.check.status == "impossible" and "1,500-token" in c.check.explanation
    led = ledger("Tensor parallel over four H100s; p99 time to first token under 800 ms.")
    assert status(led, "ttft_p99_ms") == "ok"


def test_prefill_and_decode_floors():
    led = ledger("Tensor parallel over four H100s: prefill of a 6,000-token prompt takes 50 ms.")
    assert status(led, "prefill_time_ms") == "impossible"
    led = ledger("Tensor parallel over four H100s: prefill is about 90 ms per 1,000 tokens.")
    assert status(led, "prefill_time_ms") == "ok"
    led = build_ledger([("interviewer", "Mistral-7B in FP16 on an H100."),
                        ("candidate", "Streaming the weights takes ~4 ms per token; 0.5 ms per token would be nice.")])
    tp = [c for c in led.by_kind("tpot_ms") if c.speaker == "candidate"]
    assert [c.check.status for c in tp] == ["ok", "impossible"]


def test_max_num_seqs_within_the_cache_is_fine():
    led = ledger("Tensor parallel over four H100s. max_num_seqs 256 per replica, under the ~285 that fit.")
    assert status(led, "max_num_seqs") == "ok"


def test_explanations_are_spoken_not_a_calculator_dump():
    led = ledger("the 70B in FP16 is about 70 GB, so it fits on one H100. KV is 16 KB per token. "
                 "About 1,000 sequences max and 100k tokens per step.")
    for c in led.wrong():
        e = c.check.explanation
        assert 20 < len(e) < 320, e
        assert "floor(" not in e and "=" not in e and "bytes x" not in e, e
        assert c.check.trace, c.brief()


def test_little_law_arithmetic_is_checked():
    led = ledger("At 200 requests a second, each alive for 10 seconds, we have about 20,000 in flight.")
    assert status(led, "fleet_in_flight") == "wrong"


# --------------------------------------------------------------------------- the ledger object


def test_ledger_helpers_and_exact_spans():
    turns = [("interviewer", OPEN_70B),
             ("candidate", "the 70B in FP16 is about 70 GB, so it fits on one H100."),
             ("interviewer", "Really?"),
             ("candidate", "Right, the weights are 141 GB: tensor parallel over four H100s, about 285 sequences of 1,800 tokens each.")]
    led = build_ledger(turns, family="serving", question_id="gpu-inference-serving")
    assert led.family == "serving" and led.question_id == "gpu-inference-serving"
    for c in led.claims:
        assert turns[c.turn][1][c.start:c.end] == c.span
        assert c.speaker == turns[c.turn][0]
    assert all(c.speaker == "candidate" for c in led.candidate_claims())
    # the 70 GB slip and the fit it gave, put right in the next answer ("Right, the weights are 141 GB"), stand corrected
    assert not led.wrong(), led.summary()
    assert [c.check.rule for c in led.by_kind("weights_bytes", "fits_on_gpus") if c.turn == 1] == ["corrected"] * 2
    assert all(c.check.status != "unchecked" for c in led.checked())
    assert [c.turn for c in led.by_kind("weights_bytes", "fits_on_gpus")] == [1, 1, 3]
    assert len(led.subjects) == 4
    dumped = json.loads(led.model_dump_json())
    assert {"kind", "value", "unit", "subject", "turn", "span", "check"} <= set(dumped["claims"][0])


def test_empty_and_odd_input():
    assert build_ledger([]).claims == []
    assert build_ledger([("candidate", "")]).claims == []
    led = build_ledger([("candidate", "||| --- ||| 12 |||\n\n~~ 1e-2 $5 GPT-4 x86 tp=")])
    assert all(c.span for c in led.claims)


@pytest.mark.parametrize("path", CALIBRATION, ids=lambda p: p.stem)
def test_calibration_transcripts_build_with_exact_spans(path):
    data = json.loads(path.read_text())
    turns = [(t["role"], t["text"]) for t in data["turns"]]
    led = build_ledger(turns, question_id=data.get("question_id"))
    for c in led.claims:
        assert turns[c.turn][1][c.start:c.end] == c.span
        if c.speaker == "interviewer":
            assert c.check is None


@pytest.mark.parametrize("name, wrong_kinds", [
    ("03_route_wrong_kv_8mb", {"kv_bytes_per_token", "kv_bytes_per_sequence", "concurrent_sequences"}),
    ("04_serving_concurrency_off_3x", {"concurrent_sequences"}),
    ("40_kvdrill_forgets_factor_two", {"kv_bytes_per_token"}),
    ("07_serving_plain_words_strong", set()),
    ("12_route_strong_senior", set()),
    ("14_serving_staff_strong", set()),
    ("18_route_staff_strong", set()),
    ("37_fund_bandwidth_and_kv", set()),
    ("39_kvdrill_strong", set()),
    ("41_fund_staff_strong", set()),
])
def test_calibration_capacity_figures(name, wrong_kinds):
    data = json.loads((ROOT / "tests" / "calibration" / f"{name}.json").read_text())
    led = build_ledger([(t["role"], t["text"]) for t in data["turns"]])
    found = {c.kind for c in led.wrong()}
    assert wrong_kinds <= found
    if not wrong_kinds:
        assert not found, [c.brief() for c in led.wrong()]


# --------------------------------------------------------------------------- paraphrase invariance


PARAPHRASES = [
    # units, word order, table vs prose, numbers in words
    "Per-token KV is 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 128 KiB. Weights are about 16 GB, leaving "
    "about 56 GiB for the cache, so about 100 sequences fit per GPU at 4k context.",
    "At 4k context roughly 100 sequences fit on the GPU: the cache gets ~56 GiB once the 16 GB of weights are "
    "loaded, and each token costs 131,072 bytes of KV.",
    "| Item | Value |\n|---|---|\n| KV per token | 128 KiB |\n| Weights | 16 GB |\n| Free for KV | 56 GiB |\n"
    "| Context | 4096 tokens |\n| Sequences per GPU | 100 |",
    "Each token's KV is a hundred and twenty-eight KiB, the weights take sixteen GB, that leaves fifty-six GiB "
    "for the cache, and at a context of four thousand and ninety-six tokens about one hundred sequences fit per GPU.",
]


def _signature(led: Ledger) -> set[tuple[str, float]]:
    out = set()
    for c in led.candidate_claims():
        # the shape and the calculation as said differ with the phrasing; the quantities may not
        if c.value is None or c.kind in ("layers", "kv_heads", "head_dim", "arithmetic"):
            continue
        out.add((c.kind, float(f"{c.value:.2g}")))
    return out


def test_paraphrases_yield_the_same_claims():
    sigs = [_signature(build_ledger([("interviewer", OPEN_8B), ("candidate", p)])) for p in PARAPHRASES]
    expected = {("kv_bytes_per_token", 130000.0), ("weights_bytes", 1.6e10), ("free_kv_bytes", 6e10),
                ("seq_len", 4100.0), ("concurrent_sequences", 100.0)}
    for p, s in zip(PARAPHRASES, sigs):
        assert s == expected, (p, s)


def test_paraphrases_get_the_same_verdicts():
    for p in PARAPHRASES:
        led = build_ledger([("interviewer", OPEN_8B), ("candidate", p)])
        assert not led.wrong(), led.summary()
        assert {c.kind for c in led.checked()} >= {"kv_bytes_per_token", "weights_bytes", "free_kv_bytes",
                                                   "concurrent_sequences"}


SCHEDULING_PARAPHRASES = [
    "Tensor parallel over four H100s. I'd cap max_num_seqs at 256 per replica and max_num_batched_tokens at 8,192, "
    "and hold p99 TTFT under 800 ms with p50 around 250 ms.",
    "p50 time to first token around 250 ms and p99 under 800 ms. Each replica is four H100s with tensor parallelism, "
    "capped at 256 running sequences and 8,192 batched tokens per step.",
    "Replica: TP4 on H100s.\n\n| Setting | Value |\n|---|---|\n| max_num_seqs | 256 |\n"
    "| max_num_batched_tokens | 8192 |\n| p50 TTFT | 250 ms |\n| p99 TTFT | 800 ms |",
    "Four H100s with tensor parallelism per replica; no more than two hundred and fifty-six sequences running at once "
    "and at most eight thousand one hundred and ninety-two tokens scheduled per step; median TTFT of a quarter of a "
    "second and p99 TTFT under eight hundred milliseconds.",
]


def test_scheduling_paraphrases_yield_the_same_claims_and_verdicts():
    expected = {("tensor_parallel", 4.0), ("max_num_seqs", 260.0), ("token_budget", 8200.0),
                ("ttft_p50_ms", 250.0), ("ttft_p99_ms", 800.0)}
    for p in SCHEDULING_PARAPHRASES:
        led = build_ledger([("interviewer", OPEN_70B), ("candidate", p)])
        assert _signature(led) == expected, (p, led.summary())
        assert not led.wrong(), led.summary()
        assert all(c.subject.tp == 4 for c in led.candidate_claims() if c.kind in ("max_num_seqs", "token_budget"))


def test_one_pass_name_matching_agrees_with_capacity():
    """segments matches every preset alias in one regex for speed; it must find what capacity finds."""
    from interviewer import capacity
    from interviewer.claims.segments import _find_names

    texts = [t["text"] for p in CALIBRATION for t in json.loads(p.read_text())["turns"]]
    texts += ["8xH100s and two A100 80GB", "llama 2 13b vs Llama-2-13B-chat-hf", "Mixtral 8x7B on L4s",
              "Qwen2.5-72B on an H200 141GB", "a bare A100 and an A100-SXM4-80GB", "an L4 load balancer, L4/L7 and L4s"]
    for text in texts:
        assert _find_names("model", text) == tuple(capacity.match_models(text)), text
        assert _find_names("gpu", text) == tuple(capacity.match_gpus(text)), text


# ---- calculations said aloud (claims/arithmetic.py): re-done whatever the quantity


def _route_capacity(opening: str, answer: str):
    """The capacity criterion of a one-answer route-and-batch round."""
    from interviewer.grader import grade
    from interviewer.transcript import Transcript

    t = Transcript(question_id="route-batch-eight-gpus", turns=[{"role": "interviewer", "text": opening},
                                                                {"role": "candidate", "text": answer}])
    return grade(t).criterion("capacity_number")


def _calcs(text: str):
    return [c for c in build_ledger([("candidate", text)]).claims if c.kind == "arithmetic"]


@pytest.mark.parametrize("text", [
    "Peak is 20,000 requests a second and 20,000 × 300 is 600,000 scores a second.",
    "So 8e6 / 2e5 = 400 L4s before headroom.",
    "Replay is sequential; at 500 MB/s, 20 GB is about four seconds.",
    "Sequential read of 2e10 B at ~2e9 B/s is about 1 s.",
])
def test_a_wrong_calculation_is_caught_in_any_family(text):
    (c,) = _calcs(text)
    assert c.check.status == "wrong", c.check
    assert c.span in text and c.check.ratio is not None and (c.check.ratio >= 5 or c.check.ratio <= 0.2)


@pytest.mark.parametrize("text", [
    "20,000 × 300 is 6M scores a second.",
    "Whole generation: 2,048 × 0.06 = ~123 s.",
    "Log growth is 50k × 1 KB ≈ 50 MB per second.",
    "Replay: 20 GB at 500 MB/s is about 40 s.",
    "Over a day that is 50 MB/s × 86,400 s = 4.3 TB.",
    "Four cards: 4 x 80 GB = 320 GB, and 320 GB - 141 GB = 179 GB.",
])
def test_a_right_calculation_passes_across_a_change_of_unit(text):
    calcs = _calcs(text)
    assert calcs and all(c.check.status == "ok" for c in calcs), [(c.span, c.check) for c in calcs]


def test_a_list_joined_by_slashes_and_commas_is_not_a_calculation():
    assert not _calcs("Targets: p50 200 ms / p99 800 ms, 50 sequences per GPU.")
    assert not _calcs("Batch 64 / wait 5 ms: that keeps the GPU busy.")


def test_a_wrong_calculation_caps_capacity_in_recsys():
    from interviewer.grader import grade
    from interviewer.transcript import Transcript

    def score(calc: str) -> int:
        t = Transcript(question_id="recommendation-serving", turns=[
            {"role": "interviewer", "text": "Size the ranking tier."},
            {"role": "candidate", "text": f"Peak is 20,000 requests a second with 300 candidates each; {calc}. "
                                          "One L4 scores about 200k candidates a second, so I need 30 L4s flat "
                                          "out and 45 with 50% headroom; the ranker and its tables take 6 GB."}])
        return grade(t).criterion("capacity_number").score

    assert score("20,000 × 300 is 6,000,000 scores a second") == 3
    assert score("20,000 × 300 is 600,000 scores a second") == 2


def test_latent_attention_kv_is_checked_with_the_calculators_formula():
    """DeepSeek-V3 caches a compressed latent per layer, not K and V per head: the ledger checks its KV
    per token with the same formula as the calculator."""
    from interviewer import capacity

    kv = capacity.kv_bytes_per_token("deepseek-v3")
    right = build_ledger([("interviewer", "DeepSeek-V3 on 8 x H200"),
                          ("candidate", f"DeepSeek-V3 needs about {kv / 1024:.0f} KiB of KV per token in FP16.")])
    wrong = build_ledger([("interviewer", "DeepSeek-V3 on 8 x H200"),
                          ("candidate", "DeepSeek-V3 needs about 3.5 MB of KV per token in FP16.")])
    (ok,) = [c for c in right.claims if c.kind == "kv_bytes_per_token"]
    (bad,) = [c for c in wrong.claims if c.kind == "kv_bytes_per_token"]
    assert ok.check.status == "ok"
    assert bad.check.status == "wrong" and "latent" in bad.check.explanation


def test_a_word_one_is_no_operand_and_an_unsaid_kv_factor_is_judged_by_the_quantity():
    # "plus one ~500-token prefill": "one" is a word, "~500" no result
    assert not _calcs("Each step is 192 decode tokens plus one ~500-token prefill chunk.")
    cap = _route_capacity("Eight A100 80GB GPUs, each with its own copy of Llama-2-13B in FP16.",
                          "KV per token is 40 x 40 x 128 x 2 B = 819,200 B. Weights are 26 GB, so about 46 GB is left "
                          "for KV after a 10% reserve; at 2,250 tokens a sequence is 1.84 GB, so about 25 concurrent "
                          "sequences fit per GPU.")
    assert not any(x.startswith("claim:arithmetic") for x in cap.capped_by), cap.capped_by


@pytest.mark.parametrize("text, verdict", [
    ("The log grows at 50 MB/s, which is about 180 GB a day, so I'd snapshot every so often.", "wrong"),
    ("The log grows at 50 MB/s, which is about 4.3 TB a day.", "ok"),
    ("That's 55 MB/s into the log, or about 198 GB an hour.", "ok"),
    ("KV/token: 2 (K and V) x 40 x 40 x 128 x 2 B = 819,200 B, ~0.8 MB.", "ok"),
    ("For max_tokens 4,096 at 45 ms that's about 18 seconds of decode.", "wrong"),
    ("A typical reply of 300 tokens at 50 ms is about 15 s.", "ok"),
    # the time said per token, after a comma: "max_tokens is 4096, at ~25ms/tok that's about 10s"
    ("max_tokens is 4096, at ~25ms/tok that's about 10s of decode.", "wrong"),
    ("max_tokens is 4096, at ~25 ms per token that's about 100 s of decode.", "ok"),
])
def test_a_rate_over_a_period_tokens_at_a_time_and_a_bracketed_operand_are_re_done(text, verdict):
    (c,) = _calcs(text)
    assert c.check.status == verdict, c.check


@pytest.mark.parametrize("text, verdict", [
    # the rate ends one sentence, the size over a period opens the next
    ("Records are about 1 KB at 50k a second: roughly 50 MB/s. So about 180 GB a day.", "wrong"),
    ("Records are about 1 KB at 50k a second: roughly 50 MB/s. That's about 4.3 TB a day.", "ok"),
])
def test_a_rate_carried_into_the_next_sentence_over_a_period_is_re_done(text, verdict):
    (c,) = _calcs(text)
    assert c.check.status == verdict and c.span in text, c.check


def test_a_sentence_that_does_not_end_on_its_rate_carries_nothing():
    assert not _calcs("We write 50 MB/s at 20 ms p99. So about 180 GB is what the disk holds a day.")


def test_bare_factors_closed_by_which_is_are_a_calculation_that_confirms_the_stand_in():
    (c,) = _calcs("For a 13B it is 40 times 40 times 128 times 2, which is 409,600 bytes.")
    assert c.check.status == "ok" and c.formula == ["40", "times", "40", "times", "128", "times", "2"]
    # the shape confirms the 13B stand-in, so its per-token figure with the K-and-V 2 left out is the
    # candidate's own, and holds capacity below "derived"
    cap = _route_capacity("Eight A100 80GB GPUs, each with its own copy of a 13B model in FP16.",
                          "Weights are 26 GB, so about 50 GB is left for the cache. Per token that's 40 times 40 times "
                          "128 times 2, which is 409,600 bytes, about 400 KB. A 2,250-token request is about 920 MB, "
                          "so roughly 55 sequences fit per GPU.")
    assert cap.score == 2 and any(x.startswith("claim:kv_bytes_per_token") for x in cap.capped_by), cap


def test_the_fleet_a_sentence_ends_on_is_not_the_replica_of_its_figures():
    led = ledger("Quantize to INT4: the 70 GB of weights go to 35, which frees 45 GB for the cache, so ~76 sequences "
                 "per GPU and the fleet drops to about 30 GPUs.")
    free = one(led, "free_kv_bytes")
    assert free.subject.gpus_in_sentence is None and free.check.status == "ok", free.brief()


def test_a_shape_noun_before_the_operator_keeps_the_product_whole():
    led = ledger("KV per token: 2 x 80 layers x 8 KV heads x 128 head dim x 2 bytes = 327,680 bytes.")
    kv = one(led, "kv_bytes_per_token")
    assert kv.value == 327680 and kv.check.status == "ok" and "128" in kv.formula, kv.brief()


@pytest.mark.parametrize("text, verdict", [
    # the fsync time assumed one sentence earlier, the group's size said here
    ("Assume an fsync takes about 2 ms. At 50,000 a second each fsync covers about 25 writes.", "wrong"),
    ("Assume an fsync takes about 2 ms. At 50,000 a second each fsync covers about 100 writes.", "ok"),
])
def test_a_group_size_is_checked_against_the_fsync_time_said_before_it(text, verdict):
    led = ledger(text, opening="Design a WAL-backed KV store for 50,000 writes a second.")
    rate = one(led, "request_rate_rps")
    assert rate.check is not None and rate.check.status == verdict, rate.brief()


def test_a_group_said_with_its_own_window_is_not_checked_against_an_earlier_fsync_time():
    led = ledger("An fsync is 50-100 µs with PLP. A group commit window of 2 ms gives ~100 writes per fsync at 50k/s.",
                 opening="Design a WAL-backed KV store for 50,000 writes a second.")
    assert all(c.check is None or c.check.status == "ok" for c in led.candidate_claims()), led.summary()


def test_what_a_step_reads_and_a_figure_at_batch_one_are_not_budgets_or_limits():
    led = ledger("At batch 64 you add ~7 GB of KV reads per step, so a step goes from ~4 ms to ~6 ms.",
                 "HBM is ~3.35 TB/s, so ~250 tokens/s as the ceiling at batch 1.", opening=OPEN_8B)
    assert "free_kv_bytes" not in kinds(led) and "max_batch_size" not in kinds(led), led.summary()


def test_a_product_whose_last_factor_says_each_is_re_done():
    (c,) = _calcs("20,000 requests a second x 300 candidates each is 600k candidate scores a second.")
    assert c.check.status == "wrong" and c.check.ratio is not None and c.check.ratio < 0.2, c.check


def test_the_prompts_a_step_prefills_are_not_concurrency():
    led = ledger("max_num_batched_tokens = 8,192, so two or three prompts' prefill can go in one step.")
    assert "concurrent_sequences" not in kinds(led), led.summary()


@pytest.mark.parametrize("text, verdict", [
    # every unit said, so no change of unit explains a 1,000x gap
    ("55 MB/s times 86,400 seconds is a bit under 5 GB a day of log.", "wrong"),
    ("55 MB/s times 86,400 seconds is just under 4.8 TB a day of log.", "ok"),
])
def test_a_byte_rate_over_a_time_is_checked_in_the_units_said(text, verdict):
    (c,) = _calcs(text)
    assert c.check.status == verdict, c.check


def test_a_load_spread_over_the_gpus_is_no_tensor_parallel_replica():
    led = ledger("40/s over 8 GPUs is 5/s per GPU.", "Each GPU holds ~25 sequences of 2,250 tokens.",
                 opening="One host with eight A100 80GB GPUs, each with its own copy of Llama-2-13B in FP16.")
    assert "tensor_parallel" not in kinds(led) and all(c.subject.tp in (None, 1) for c in led.candidate_claims())


def test_a_sequence_at_full_length_is_not_free_memory():
    led = ledger("- per request: 2,000 + 250 = 2,250 tokens -> ~1.84 GB of KV at full length",
                 opening="One host with eight A100 80GB GPUs, each with its own copy of Llama-2-13B in FP16.")
    assert "free_kv_bytes" not in kinds(led), led.summary()


def test_a_model_from_experience_does_not_become_the_subject():
    led = ledger("Mistral-7B in FP16 is about 14.5 GB of weights and 128 KiB of KV per token. I've mostly done this "
                 "for a 70B where the per-token figure is 320 KiB: here it is smaller. On the 24 GB card that leaves "
                 "about 7 GB, so about 37 sequences at 1,450 tokens.",
                 opening="Serve Mistral-7B on A10G 24GB cards.")
    seqs = one(led, "concurrent_sequences")
    assert seqs.subject.model == "mistral-7b" and seqs.check.status == "ok", seqs.brief()


@pytest.mark.parametrize("text, verdict", [
    ("NVMe flush is ~1 ms, so each fsync carries ~50 records at 50,000/s.", "ok"),
    ("fsync is about 1 ms, so batching ~50 puts per fsync gives 50,000 a second.", "ok"),
    ("One fsync per put at 1 ms each, so that's 50,000 puts a second.", "wrong"),
    # the group worked out in the sentence: its size is the product's result, not the rate it starts from
    ("The p50 fsync is 0.4 ms. At 50,000 writes/s each fsync covers 50,000 x 0.4 ms = ~20 records.", "ok"),
    ("The p50 fsync is 0.4 ms. At 50,000 writes/s each fsync covers 50,000 x 0.4 ms = ~200 records.", "wrong"),
    # every fsync time said before counts, not only the last: the group here is drawn from the p50
    ("fsync is 0.4 ms at p50 and 1.8 ms at p99. At 50,000 writes/s each fsync covers 50,000 x 0.4 ms = ~20 records.",
     "ok"),
    # "an fsync takes ~2 ms" is the fsync's time, not a group of 2
    ("If an fsync takes ~2 ms, that's about 500 fsyncs a second and ~100 writes per fsync at 50k/s.", "ok"),
])
def test_group_commit_multiplies_the_fsync_rate(text, verdict):
    led = build_ledger([("interviewer", "A KV store takes 50,000 puts a second."), ("candidate", text)])
    checked = [c for c in led.claims if c.check is not None and c.check.rule == "fsync_rate"]
    assert checked and checked[0].check.status == verdict, led.summary()


def test_another_n_gb_is_a_difference_not_the_free_memory():
    led = ledger("Switch the weights to INT8: that's 13 GB instead of 26, so another 13 GB for KV.",
                 opening="One host with eight A100 80GB GPUs, each holding a 13B model in FP16.")
    assert not [c for c in led.claims if c.kind == "free_kv_bytes" and c.value == 13e9]


def test_a_replicas_pooled_memory_is_not_another_card():
    led = ledger("Two cards is 160 GB raw. TP2: 0.9 x 160 GiB = 144 GiB, minus 131.5 GiB of weights, leaves about "
                 "12.5 GiB, roughly 41,000 tokens, which is twenty-two sequences of 1,800.")
    free = one(led, "free_kv_bytes")
    assert free.subject.gpu == "h100-80gb" and free.check.status == "ok", free.brief()


@pytest.mark.parametrize("text, kind", [
    ("Our SDK does not retry on top, because three layers that each retry three times is 27 attempts.", "layers"),
    ("Each weight is two bytes and you do one multiply-add on it.", "weights_bytes"),
])
def test_words_that_are_not_model_figures(text, kind):
    led = ledger(text)
    assert not [c for c in led.claims if c.kind == kind and c.check is not None and c.check.status == "wrong"]


def test_a_model_described_not_named_is_not_checked_as_the_named_one():
    led = ledger("No GQA means four or five times what a modern 13B with 8 KV heads would cost.",
                 opening="One host with eight A100 80GB GPUs, each serving Llama-2-13B in FP16.")
    assert not [c for c in led.claims if c.kind == "kv_heads" and c.check is not None and c.check.status == "wrong"]


@pytest.mark.parametrize("text, verdict", [
    ("A bad GPU takes its host out, so 15 hosts = 120 GPUs ≈ 12% of the fleet.", "wrong"),
    ("A bad GPU takes its host out, so 15 hosts = 120 GPUs ≈ 1.2% of the fleet.", "ok"),
    ("Around seventy GPUs sit in the repair pipeline, call it under one percent of the fleet.", "ok"),
    # said in the next sentence
    ("So about 10.5 nodes, 84 GPUs out at any moment. That's 8.4% of the fleet, which is a lot.", "wrong"),
    # of the fleet the question set, not one the candidate cites
    ("Meta's 16K H100s saw a failure every few hours. Little's law gives 15-20 hosts in the pipeline: 140 GPUs, "
     "about 1.4% of the fleet.", "ok"),
    # the count the share is said of, though the sentence is about cordoning whole hosts
    ("Cordon whole hosts instead: 40 x 8 = 320 GPUs out, that's 32% of the fleet.", "wrong"),
    ("Cordon whole hosts instead: 40 x 8 = 320 GPUs out, that's 3.2% of the fleet.", "ok"),
    # a floor: "just over"
    ("Backfill leaves about 150 idle GPUs on average, just over 1% of the fleet.", "ok"),
    # "eight GPU gang jobs" is the jobs' shape, not the count the share is of
    ("I hold 60 hosts, 480 GPUs, that only eight GPU gang jobs can use, about 4.8% of the fleet.", "ok"),
])
def test_a_share_of_the_fleet_is_re_done(text, verdict):
    led = build_ledger([("interviewer", "We operate around 10,000 GPUs across a few data centres."), ("candidate", text)])
    (c,) = [c for c in led.claims if c.kind == "fleet_share"]
    assert c.check is not None and c.check.status == verdict, c.brief()


def test_a_share_of_a_cost_said_of_gpus_is_not_checked_as_their_share():
    led = build_ledger([("interviewer", "We run a shared fleet of about 2,000 H100s."),
                        ("candidate", "What I give up is the churn on those 140 GPUs, call it 2-3% of the fleet.")])
    (c,) = [c for c in led.claims if c.kind == "fleet_share"]
    assert c.check is None, c.brief()


def test_one_share_said_right_excuses_no_other_wrong_one():
    from interviewer.grader import grade
    from interviewer.transcript import parse_transcript

    t = parse_transcript({"question_id": "gpu-health-repair", "turns": [
        {"role": "interviewer", "text": "We operate around 10,000 GPUs across a few data centres. Design the health "
                                        "and repair system."},
        {"role": "candidate", "text": "10,000 GPUs is 1,250 eight-GPU hosts. About 2% a month fail, 200 a month, "
                                      "so with a 5-day repair about 33 GPUs are out, 0.33% of the fleet."},
        {"role": "interviewer", "text": "Cordon the GPU or the host?"},
        {"role": "candidate", "text": "The GPU. Cordoning hosts would take 33 x 8 = 264 GPUs out, that's 26% of the "
                                      "fleet, and I keep utilisation near 90%."}]})
    (cap,) = [c for c in grade(t).criteria if c.id == "capacity_number"]
    assert cap.score == 2, (cap.score, cap.capped_by)


def test_hosts_held_back_are_a_share_of_the_fleets_hosts():
    led = build_ledger([("interviewer", "We run a shared fleet of about 2,000 H100s, 250 hosts with eight GPUs each."),
                        ("candidate", "Holding 25 hosts back is about 1% of the fleet, a cheap price.")])
    (c,) = [c for c in led.claims if c.kind == "fleet_share"]
    assert c.check is not None and c.check.status == "wrong" and "25 of 250 hosts" in c.check.explanation, c.brief()


def test_a_status_code_is_no_quantity():
    led = ledger("If the oldest queued request is older than 2 s, reject new arrivals with 429 and a Retry-After; "
                 "a dead replica's callers get a 503.")
    assert not [c for c in led.claims if c.value in (429, 503)], [c.brief() for c in led.claims]


def test_one_sequence_of_a_length_and_a_batch_of_them():
    led = ledger("An 8K sequence holds ~2.6 GB of KV. Capping at 128 × 1,800 tokens is ~70 GiB, about 45% of the cache.")
    assert one(led, "seq_len").value == 8192
    assert status(led, "kv_bytes_per_sequence") == "ok"
    assert not [c for c in led.claims if c.check is not None and c.check.status == "wrong"], \
        [c.brief() for c in led.claims if c.check is not None]


def test_the_prompts_of_a_quality_suite_are_no_concurrency():
    led = ledger("Before shipping FP8, a quality suite of ~3,000 prompts sampled from production, graded against FP16.")
    assert "concurrent_sequences" not in kinds(led)


def test_hundreds_said_aloud_before_a_teen():
    led = ledger("max num batched tokens five twelve with chunked prefill, max num seqs twenty four")
    assert one(led, "token_budget").value == 512


def test_gpu_hours_and_sums_are_no_share_of_the_fleet():
    led = build_ledger([("interviewer", "We run a shared fleet of about 2,000 H100s."), ("candidate",
                        "That's ~300 GPU-hours/day, 300 / 48,000 ≈ 0.6% of the fleet. Those 48 GPUs run at maybe "
                        "50% utilisation, so ~1.2% of the fleet is wasted.")])
    assert not [c for c in led.claims if c.kind == "fleet_share" and c.check is not None and c.check.status == "wrong"]


def test_a_wrong_sum_caps_capacity_even_for_a_model_named_by_size():
    from interviewer.grader import grade
    from interviewer.transcript import parse_transcript

    report = grade(parse_transcript({"question_id": "inference-timeout-restart", "turns": [
        {"role": "interviewer", "text": "Our chat service runs a 70B model on H100s. Design the timeout strategy."},
        {"role": "candidate", "text": "The deadline is prefill plus max_tokens times time per token. With max_tokens "
                                      "2,000 and 40 ms per token the decode is 2,000 x 0.04 = 8 seconds, plus prefill "
                                      "under 1 second, so I'd set around 15 seconds."}]}))
    assert report.criterion("capacity_number").score <= 2


@pytest.mark.parametrize("text, kind", [
    ("It doesn't go on one eighty gig card, so we need more.", "gpu_memory_bytes"),  # one 80 GB card, not 180
    ("Per-request deadline = 1.5 × (queue + prefill + decode).", "concurrent_sequences"),  # a multiplier
    ("max_num_batched_tokens 8,192 so a few 2k prompts can prefill in one step", "concurrent_sequences"),
    ("tokens in cache | 1.47e11 / 3.28e5 ≈ 4.5e5", "kv_cache_tokens"),
])
def test_figures_that_are_not_what_they_look_like(text, kind):
    led = ledger(text)
    assert not [c for c in led.candidate_claims() if c.kind == kind and c.value in (180e9, 1.5, 2000, 1.47e11)]


def test_a_spelled_tensor_parallel_degree_sets_the_replica():
    led = ledger("Llama-3-70B on H100s, so I'd go four-way tensor parallel: about two fifty sequences per replica.")
    assert one(led, "tensor_parallel").value == 4
    c = one(led, "concurrent_sequences")
    assert c.value == 250 and c.check is not None and c.check.status == "ok"


@pytest.mark.parametrize("text, verdict", [
    ("So decoding is at most 2,000 x 50 ms, which is 10 seconds.", "wrong"),   # 100 s
    ("Replay: `20 GB / 1 GB/s ≈` **2 seconds**.", "wrong"),                   # 20 s
    ("One step reads 14 + 32 × 2,048 × 0.5 MB ≈ 48 GB.", "ok"),              # the bare 14 is GB
    ("Decode budget ~1 + 1,000 × 0.04 = 41 s.", "ok"),                        # all bare: a change of unit
])
def test_calculations_closed_by_a_comma_or_in_markdown_and_bare_terms_of_a_sum(text, verdict):
    (c,) = _calcs(text)
    assert c.check.status == verdict, (c.span, c.check)


def test_a_restated_product_in_another_quantity_is_no_result():
    # "250 hosts x 8, which is 48,000 GPU-hours a day" goes on to another quantity
    assert not _calcs("2,000 H100s = 250 hosts x 8, which is 48,000 GPU-hours a day.")


def test_a_single_stream_rate_is_checked_against_bandwidth_over_the_weights():
    led = ledger("Llama-2-7B on one H100: 14 GB per token against ~3.35 TB/s, so about 2,400 tokens a second at batch 1.",
                 opening="Explain decode on a GPU.")
    c = one(led, "tokens_per_s")
    assert c.check.status == "impossible" and 9 < c.check.ratio < 11
    ok = ledger("Llama-2-7B on one H100: about 240 tokens a second at batch 1.", opening="Explain decode on a GPU.")
    assert one(ok, "tokens_per_s").check.status == "ok"


def test_a_slashed_table_row_pairs_each_label_with_its_value():
    led = ledger("Assuming Llama-2-13B on an A100 80GB:\n\n| item | value |\n|---|---|\n"
                 "| layers / KV heads / head dim | 40 / 40 (no GQA) / 128 |\n", opening="Route requests to eight A100s.")
    assert [(c.kind, c.value) for c in led.candidate_claims() if c.kind in ("layers", "kv_heads", "head_dim")] == \
        [("layers", 40), ("kv_heads", 40), ("head_dim", 128)]
    assert all(c.check.status == "ok" for c in led.candidate_claims() if c.kind in ("layers", "kv_heads", "head_dim"))


def test_and_a_half_per_chip_and_a_later_clauses_model():
    led = ledger("Take off the 12 and a half GiB of weights.", opening="Llama-2-7B on an H100 80GB.")
    assert one(led, "weights_bytes").value == 12.5 * 2**30
    tp = ledger("With TP=4 each chip holds 2 of the 8 KV heads, so 80 KiB per token per chip.")
    assert one(tp, "kv_bytes_per_token").check.status == "ok"
    said = ledger("KV per token: 40 layers, and I was about to say 8 KV heads, but that's the 70B; the 13B is plain "
                  "multi-head, 40 KV heads, head dim 128.", opening="Eight A100 80GB GPUs, each with a 13B model in FP16.")
    layers = one(said, "layers")
    assert layers.subject.model == "llama-2-13b" and layers.check.status == "ok"


@pytest.mark.parametrize("text, kind", [
    ("Average latency for a response is around 4 seconds, and timeouts are a small share of requests.", "timeout_s"),
    ("you get 32 tokens per step, so about 2,300 tokens a second", "token_budget"),
    ("a cached system prompt of 1,200 tokens saves 1,200 × 400 KB ≈ 490 MB of cache", "free_kv_bytes"),
    ("that's about 33 and a half gigabytes of KV per step on top of the weights", "free_kv_bytes"),
    ("At batch 32 with full 2,048-token contexts the step also reads 32 GB of cache, so about 14 ms per token.",
     "free_kv_bytes"),
])
def test_more_figures_that_are_not_what_they_look_like(text, kind):
    led = ledger(text)
    assert not [c for c in led.candidate_claims() if c.kind == kind], [c.brief() for c in led.candidate_claims()]


def test_an_fsync_faster_than_a_drive_is_flagged_unless_protected_media_are_named():
    led = ledger("Local NVMe, fsync ~10 µs, so 1 / 10 µs = 100,000 fsyncs/s.", opening="Design a WAL-backed KV store.")
    assert one(led, "fsync_latency_ms").check.status == "impossible"
    ok = ledger("An NVMe fsync is about 1 ms at p50.", opening="Design a WAL-backed KV store.")
    assert one(ok, "fsync_latency_ms").check.status == "ok"
    pmem = ledger("On Optane persistent memory a flush is about 10 µs.", opening="Design a WAL-backed KV store.")
    assert all(c.check is None for c in pmem.candidate_claims() if c.kind == "fsync_latency_ms")


def test_a_percentile_after_an_operand_is_the_operands():
    led = ledger("Decode: max_tokens 2,048 × 45 ms p99 ≈ 92 s.")
    assert not [c for c in led.candidate_claims() if c.kind.startswith("latency_p99")]


def test_a_percentile_of_the_per_token_time_after_a_product_is_the_per_token_times():
    """"2,000 x 30 ms = 60 s at p99 TPOT" is a reply's duration at the p99 per-token time, no p99 latency of 60 s; nor is a
    figure a clause later ("...; a flat 30 s would kill it halfway")."""
    led = ledger("A perfectly healthy 2,000-token answer takes 2,000 x 30 ms = 60 s at p99 TPOT; a flat 30 s would kill it "
                 "halfway.")
    assert not [c for c in led.candidate_claims() if c.kind.startswith("latency_p99")], led.summary()
    # (the per-token time said at its percentile keeps it)
    assert [c.kind for c in ledger("I'd plan on 30 ms at p99 TPOT.").candidate_claims()] == ["tpot_p99_ms"]


@pytest.mark.parametrize("said, status", [("1.6e6 KiB, which is ~156 MiB", "wrong"), ("1,600,000 KiB, which is ~1,562 MiB", "ok"),
                                           ("1.6 GB (~1.5 GiB)", "ok")])
def test_a_size_said_again_in_other_units_is_checked(said, status):
    """"2,000 x 800 KiB = 1.6e6 KiB, which is ~156 MiB": the same size in another unit must be the same size (it is
    1,562 MiB), as a rate said again in other units is; a difference said after it is not ("that's 2 GB more")."""
    led = ledger(f"Per 2,000-token sequence: {said}.", opening="Llama-2-13B in FP16 on an A100 80GB.")
    assert [c.check.status for c in led.by_kind("arithmetic") if c.span.startswith(said.split(",")[0].split(" (")[0])] \
        == [status], led.summary()
    assert not [c for c in ledger("Weights are 26 GB, which is 2 GB more than the 13B's own 24 GiB.").by_kind("arithmetic")
                if "2 GB" in c.span]


def test_the_positions_a_sequence_reserves_and_a_cache_that_does_not_fit_are_neither_sequences_nor_free_memory():
    """"every sequence reserves 2,048 slots" counts positions, not sequences; "16 GiB of cache, which no longer fits the
    24 GB card" is a batch's cache, not the memory left for it."""
    led = ledger("Yes - every sequence reserves 2,048 slots no matter what. And batch 16? 16 GiB of cache, which no longer "
                 "fits the 24 GB card at all.", opening=OPEN_DRILL)
    assert not led.by_kind("concurrent_sequences") and not led.by_kind("free_kv_bytes"), led.summary()


def test_a_reply_time_from_tokens_at_a_per_token_time_then_so_is_checked():
    led = ledger("Max output is 2,000 tokens at about 40 ms a token, so 8 seconds, plus prefill.")
    assert [c.check.status for c in led.by_kind("arithmetic")] == ["wrong"], led.summary()


def test_a_label_column_headed_timeout_makes_each_row_a_timeout():
    """"| Timeout | Value (s) |" over "| first token | 30 |": each row is a timeout, in the unit its value column names."""
    led = ledger("Start with timeouts:\n\n| Timeout | Value (s) |\n|---|---|\n| first token | 30 |\n| whole request | 300 |\n")
    assert [c.value for c in led.by_kind("timeout_s")] == [30.0, 300.0], led.summary()


@pytest.mark.parametrize("out, status", [(240, "wrong"), (120, "ok")])
def test_hosts_drained_a_day_for_days_are_checked_by_littles_law(out, status):
    """"3 a day, each drains its 8-GPU host for about 5 days, so ~240 GPUs sidelined": 3 x 5 x 8 = 120."""
    led = ledger(f"But we pull the whole host, not the GPU: 3 a day, each drains its 8-GPU host for about 5 days, so ~{out} "
                 "GPUs sidelined.", opening="We operate around 10,000 GPUs.")
    assert [c.check.status for c in led.by_kind("gpu_count") if c.value == out] == [status], led.summary()


def test_hard_failures_a_day_are_the_rate_their_repair_count_is_drawn_from():
    led = ledger("About 2.5 hard failures a day, plus roughly three times that in soft ones, call it ~10 suspects a day. Hard "
                 "failures spend about five days in vendor repair, so ~12-13 GPUs are in RMA at any time.",
                 opening="We operate around 10,000 GPUs.")
    assert [c.check.status for c in led.by_kind("gpu_count") if c.value and 12 <= c.value <= 13] == ["ok"], led.summary()


def test_suspects_a_day_are_a_rate_a_drained_host_count_can_be_drawn_from():
    led = ledger("Soft faults maybe 3x that → ≈ 7-8 suspects a day in total. We drain the whole host for triage, ~1 day → ≈ "
                 "8 hosts × 8 GPUs ≈ 64 GPUs out at any time.", opening="We operate around 10,000 GPUs.")
    assert [c.check.status for c in led.by_kind("gpu_count") if c.value == 64] == ["ok"], led.summary()


@pytest.mark.parametrize("hosts, status", [(80, "wrong"), (100, "ok")])
def test_hosts_after_a_count_whose_unit_a_parallel_clause_gave_are_checked(hosts, status):
    """"1,200 GPUs training = 150 hosts, 800 serving = 80 hosts": the 800 are GPUs too, so 100 hosts of 8."""
    led = ledger(f"I'll assume 60/40 training to serving: 1,200 GPUs training = 150 hosts, 800 serving = {hosts} hosts.",
                 opening="We run a shared fleet of about 2,000 H100s, 250 hosts with eight GPUs each.")
    assert [c.check.status for c in led.by_kind("host_count") if c.value == hosts] == [status], led.summary()


def test_a_mixture_of_experts_active_size_keeps_the_named_model():
    led = ledger("Mixtral is 46.7B parameters in total. People call it a 13B model because only about 12.9B are "
                 "active per token. KV per token: 2 × 32 × 8 × 128 × 2 = 131,072 bytes.",
                 opening="The model is Mixtral-8x7B in BF16 on H100 80GB GPUs.")
    assert {c.subject.model for c in led.candidate_claims()} == {"mixtral-8x7b"}
    assert all(c.check.status == "ok" for c in led.candidate_claims() if c.kind in ("params", "kv_bytes_per_token"))


def test_each_gpu_holding_its_own_copy_is_not_one_replica():
    led = ledger("80 GiB card at 0.9 is 72 GiB, minus 14.2 GiB of weights leaves ~57.8 GiB free, about 1.08M tokens.",
                 opening="One host with eight A100 80GB GPUs, each holding its own copy of Qwen2.5-7B in BF16.")
    assert one(led, "kv_cache_tokens").check.status == "ok"
    full = ledger("A full 32k sequence is 1.75 GiB.", opening="Qwen2.5-7B on an A100 80GB.")
    assert not [c for c in full.candidate_claims() if c.kind == "concurrent_sequences"]


def test_a_bytes_factor_glued_as_2b_is_no_2b_model():
    led = ledger("Assume Llama-2-13B shape: 40 L, 40 heads (no GQA), hd 128.\nKV/tok = 40×40×128×2B = 409,600 B ≈ 400 KB.",
                 opening="Eight A100 80GB GPUs, each holding its own copy of a 13B model in FP16.")
    assert not [c for c in led.candidate_claims() if c.kind == "params" and c.value == 2e9]
    kv = one(led, "kv_bytes_per_token")
    assert kv.value == 409600 and kv.check.status == "wrong"  # the K-and-V factor 2 is missing


def test_prompt_plus_reply_said_as_one_total_is_the_sequence_length():
    led = ledger("A request here is 1,500 prompt plus 300 reply, so about 1,800 tokens at the end.")
    assert [c.value for c in led.candidate_claims() if c.kind == "seq_len"] == [1800]
    assert [c.value for c in led.candidate_claims() if c.kind == "output_tokens"] == [300]


@pytest.mark.parametrize("text", ["A flush on a decent NVMe drive is somewhere around 5 to 10 microseconds.",
                                  "Each put does its own fsync, about 20 microseconds on NVMe."])
def test_an_fsync_of_tens_of_microseconds_without_protected_media_is_flagged(text):
    led = ledger(text, opening="Design a WAL-backed KV store.")
    assert one(led, "fsync_latency_ms").check.status == "impossible"


def test_a_count_drawn_from_a_share_of_the_fleet_is_checked():
    opening = "We run about 2,000 H100s, 250 hosts with eight GPUs each. Design the scheduler."
    wrong = ledger("Maybe 10 to 15 percent of the fleet, so like 200 to 300 hosts held back.", opening=opening)
    assert one(wrong, "host_count").check.status == "wrong"
    right = ledger("Maybe 10 to 15 percent of the fleet, so like 25 to 37 hosts held back.", opening=opening)
    assert one(right, "host_count").check.status == "ok"


def test_an_fsync_rate_said_by_its_name_is_not_a_request_rate():
    led = ledger("At 50,000 a second and a 2 ms fsync, each fsync covers about 100 writes, and the fsync rate "
                 "stays at 500 a second.", opening="Design a WAL-backed KV store.")
    assert one(led, "fsync_rate").value == 500
    assert all(c.check is None or c.check.status == "ok" for c in led.candidate_claims())


def test_powers_of_two_and_a_dot_between_thousands_are_read():
    led = ledger("Llama-2-7B: 2 x 32 x 32 x 128 x 2 B = 2^19 B = 512 KiB per token; 2^12 x 2^19 = 2^31 B per 4k sequence.",
                 opening=OPEN_8B)
    assert [c.check.status for c in led.candidate_claims() if c.kind == "arithmetic"] == ["ok", "ok"]
    euro = ledger("40 × 40 × 128 × 2 = 409.600 Byte per token. The prompt is 2.000 tokens.",
                  opening="Eight A100 80GB GPUs, each holding its own copy of Llama-2-13B in FP16.")
    assert [c.value for c in euro.candidate_claims() if c.kind == "prompt_tokens"] == [2000]
    assert one(euro, "kv_bytes_per_token").value == 409600


def test_gpus_worked_out_from_hosts_are_checked():
    opening = "We run about 2,000 H100s, 250 hosts with eight GPUs each. Design the scheduler."
    wrong = ledger("Keep ten percent of hosts empty, that's twenty-five hosts, so we're leaving a hundred GPUs idle.",
                   opening=opening)
    assert [c.check.status for c in wrong.candidate_claims() if c.kind == "gpu_count" and c.check] == ["wrong"]
    shape = ledger("If 25 hosts each end up with a small job or two and ~6 idle GPUs, a gang can't land.", opening=opening)
    assert not [c for c in shape.candidate_claims() if c.kind == "gpu_count" and c.check]


def test_a_log_size_over_a_write_rate_said_rate_first_is_checked():
    led = ledger("55 MB/s means a 20 GB log is about 40 seconds of writes.", opening="Design a WAL-backed KV store.")
    calc = one(led, "arithmetic")
    assert calc.check.status == "wrong" and round(calc.check.expected) == 364  # 20 GB / 55 MB/s, about 6 minutes


def test_a_batchs_token_rate_after_batch_one_is_no_single_stream_rate():
    led = ledger("At batch 1 it's ~4.3 ms a token; at 32 each step reads ~34 GB of KV, so ~14 ms a token, but 32 "
                 "tokens a step: ~2,200 tokens/s instead of ~230.", opening=OPEN_8B)
    assert all(c.check is None or c.check.status == "ok" for c in led.candidate_claims() if c.kind == "tokens_per_s")


def test_the_parallel_degree_said_last_carries_to_the_next_sentence():
    led = ledger("TP=2 would leave roughly 13 GB for cache, which is starved, so TP=4: 320 GB, keep 10% back, 288, minus "
                 "141 is about 147 GB of KV. A full sequence is 1,800 tokens, so ~249 sequences per replica.")
    seqs = one(led, "concurrent_sequences")
    assert seqs.subject.tp == 4 and seqs.check.status == "ok"


@pytest.mark.parametrize("text, status", [
    # the writes that arrive while one fsync runs: rate x fsync time
    ("At 50k writes a second and a 1 ms fsync, that's 50,000 writes per fsync, so throughput is solved.", "wrong"),
    ("At 50k writes a second and a 1 ms fsync, that's about 50 writes per fsync.", None),
    # a range read at its ends against each fsync time said in the answer
    ("A flush is half a millisecond at p50 and 1 to 4 ms at p99, so roughly 25 to 100 writes per fsync.", None),
    # a cap on the group is a choice, not a sum
    ("With a 1 ms fsync I'd cap the group at up to 256 writes per fsync.", None),
])
def test_a_group_commits_size_is_the_write_rate_times_the_fsync_time(text, status):
    led = build_ledger([("interviewer", "A KV store takes 50,000 writes a second."), ("candidate", text)])
    group = [c for c in led.claims if c.kind == "writes_per_fsync"]
    assert group, led.summary()
    assert (group[0].check.status if group[0].check else None) == status, led.summary()


@pytest.mark.parametrize("text, verdict", [
    # a factor's own noun before the operator, and "in fp16" before the result
    ("User embeddings: 50M active users x 128 dims x 2 bytes in fp16 is about 1.28 GB.", "wrong"),
    ("User embeddings: 50M active users x 128 dims x 2 bytes in fp16 is about 12.8 GB.", "ok"),
])
def test_an_embedding_tables_size_is_re_done(text, verdict):
    (c,) = _calcs(text)
    assert c.check.status == verdict, c.check


def test_a_product_whose_first_factor_is_cut_off_by_words_is_not_judged():
    # "2 million stores and dishes x 64 dims x 4 bytes": 64 x 4 is not the product said
    assert not _calcs("Item embeddings, ~2 million stores and dishes × 64 dims × 4 bytes ≈ 512 MB, fit on the card.")


@pytest.mark.parametrize("text, value, status", [
    # "a" as one of a unit, said in words
    ("I benchmarked a write plus fsync loop: fsync came back in about a microsecond on average.", 0.001, "impossible"),
    ("An fsync takes about a millisecond on our NVMe.", 1.0, "ok"),
])
def test_an_fsync_time_said_as_a_unit_in_words_is_read_and_checked(text, value, status):
    led = build_ledger([("interviewer", "A KV store takes 50,000 writes a second."), ("candidate", text)])
    f = one(led, "fsync_latency_ms")
    assert f.value == pytest.approx(value) and f.check.status == status, led.summary()


def test_fsync_time_per_second_is_no_fsyncs_latency():
    led = build_ledger([("candidate", "So 50,000 fsyncs a second is 50,000 x 1 us = 50 ms of fsync time per second.")])
    assert not [c for c in led.claims if c.kind == "fsync_latency_ms" and c.value == 50], led.summary()


def test_a_log_that_grows_by_a_size_over_a_period_is_re_done():
    (c,) = _calcs("At 50 MB/s the log grows about 18 GB an hour, so we'd hit 20 GB in about an hour.")
    assert c.check.status == "wrong", c.check


def test_another_setups_figure_referred_to_is_not_the_replica_chosen():
    led = ledger("Tensor parallel across four GPUs. Each GPU holds 160 KiB per token - no, scratch that, 160 is the "
                 "TP=2 number; with four GPUs it's 80 KiB per GPU.")
    assert [c.value for c in led.by_kind("tensor_parallel")] == [4], led.summary()
    assert one(led, "kv_bytes_per_token").check.status == "unchecked", led.summary()  # taken back at once


def test_the_models_own_head_count_said_by_the_interviewer_leaves_its_gqa_kv_heads():
    led = build_ledger([
        ("interviewer", "Llama-3-70B in FP16 on H100 80GB."),
        ("candidate", "KV per token: 2 x 80 layers x 8 KV heads x 128 x 2 bytes = 327,680 bytes. On TP4 that leaves "
                      "about 157 GiB, so ~285 sequences of 1,800 tokens per replica."),
        ("interviewer", "A 70B model has 64 attention heads. Isn't the KV more like 2.5 MB per token?"),
        ("candidate", "No: 64 query heads, but 8 KV heads with GQA. With max_num_seqs 256 and 1,800-token sequences "
                      "we stay under the ~285 that fit per replica."),
    ])
    assert one(led, "concurrent_sequences").check.status == "ok", led.summary()
    assert one(led, "max_num_seqs").check.status == "ok", led.summary()  # not "2.5 MB a token: 36 fit"


def test_a_steps_tokens_are_no_sequence_length_and_a_replicas_load_is_no_capacity():
    led = ledger("max_num_batched_tokens 2,048, so a full 2,048-token step costs about 150 ms.",
                 "I'd plan 35 replicas, and each one carries only about 60 live sequences at peak, well under the cap.")
    assert not led.by_kind("seq_len"), led.summary()
    assert not led.by_kind("concurrent_sequences") and led.by_kind("fleet_in_flight"), led.summary()


def test_numbers_written_the_european_way_are_read_as_meant():
    led = ledger("KV per token = 2 × 80 × 8 × 128 × 2 byte = 327.680 byte, so 320 KiB. One conversation is 1.800 "
                 "tokens, about 0,59 GByte. Free per replica: 320 minus 141 weights minus around 20 GByte for "
                 "activations, so roughly 160 GByte. 160 divided by 0,59 gives about 270 sequences on TP4.")
    assert one(led, "kv_bytes_per_token").value == 327680, led.summary()
    assert one(led, "seq_len").value == 1800, led.summary()
    assert not [c for c in led.claims if c.check is not None and c.check.status == "wrong"], led.summary()
    # spans stay exact substrings of what was said
    assert "327.680 byte" in [c.span for c in led.claims]



def test_each_one_covers_is_a_group_commits_size():
    led = build_ledger([("interviewer", "A KV store takes 50,000 writes a second."),
                        ("candidate", "If an fsync takes about 1 ms, that's about 1,000 fsyncs a second, so each one "
                                      "covers about 50 writes at 50,000 a second.")])
    assert not [c for c in led.claims if c.check is not None and c.check.status == "wrong"], led.summary()
    assert one(led, "writes_per_fsync").value == 50, led.summary()


def test_a_sentence_may_open_on_a_config_key():
    # the negation of the sentence before does not reach into "max_num_batched_tokens at 2,048"
    led = ledger("max_num_seqs at 256, so long replies don't force preemptions. max_num_batched_tokens at 2,048 "
                 "with chunked prefill.")
    assert not one(led, "token_budget").negated, led.summary()


def test_a_replys_time_after_a_per_token_time_is_no_per_token_time():
    led = ledger("A reply of 2,000 at ~40 ms a token is 8 seconds.")
    assert [c.value for c in led.by_kind("tpot_ms")] == [40], led.summary()
    (c,) = [c for c in led.claims if c.kind == "arithmetic"]
    assert c.check.status == "wrong", led.summary()


def test_a_figure_the_speaker_calls_wrong_and_replaces_in_the_sentence_is_taken_back():
    led = ledger("Per token it's 32 x 32 x 128 x 2 bytes = 256 KiB - no, that's only the keys; times two for K and V, "
                 "so 524,288 bytes, 512 KiB.", opening="Llama-2-7B in FP16 on one H100 80GB.")
    kv = [c for c in led.by_kind("kv_bytes_per_token") if c.speaker == "candidate"]
    assert kv and all(c.check is None or c.check.status in ("ok", "unchecked") for c in kv), led.summary()


def test_a_ruled_out_card_a_reserve_per_card_a_war_story_and_a_replicas_load_are_read_as_said():
    led = ledger("141 GB of weights rules out one 80-gig card immediately, so a replica is four H100s with tensor "
                 "parallelism. I hold back roughly five gigs per card for activations and CUDA graphs. The first static "
                 "batcher I met was at a previous company and waited for eight requests. At 36 replicas each one "
                 "only carries something like 45 to 60 live sequences at peak.")
    assert all(c.negated for c in led.by_kind("fits_on_gpus")), led.summary()
    assert not led.by_kind("usable_memory_bytes") and not led.by_kind("free_kv_bytes"), led.summary()
    assert not [c for c in led.by_kind("concurrent_sequences") if not c.hypothetical], led.summary()


def test_a_figure_in_a_relative_clause_after_without_is_not_denied():
    led = ledger("Three options, on a datacenter NVMe with power-loss protection where fsync is roughly 100 µs, and on a "
                 "consumer SSD without it where it's more like 1-2 ms. fsync per put, serialised, gives ~10,000 puts/s "
                 "on the good drive and ~500-1,000/s on the cheap one.",
                 opening="Design a WAL-backed KV store for 50,000 writes a second.")
    assert not [c for c in led.claims if c.check is not None and c.check.status == "wrong"], led.summary()


def test_a_prompts_length_a_lanes_cap_a_pools_gpus_and_kv_to_rebuild_are_read_as_said():
    led = ledger("TP4 replicas. A 20k-token paste gets chunked. Recompute means ~2 GB of KV to allocate "
                 "(6,000 × 320 KiB).", "RETRY_LANE_SEQS = 24  # retries run in a low-priority lane",
                 "With 20 GPUs we're at 5 replicas, about 1,350 slots against ~1,900 needed at peak.")
    assert not led.by_kind("kv_cache_tokens") and not led.by_kind("free_kv_bytes"), led.summary()
    assert one(led, "kv_bytes_per_sequence").value == pytest.approx(2e9), led.summary()
    assert [c.check.status for c in led.by_kind("concurrent_sequences") if c.speaker == "candidate"] == ["ok"], \
        led.summary()


def test_a_reference_snippets_dtype_a_steps_cache_reads_and_another_named_cards_memory():
    led = ledger("The reference code keeps the cache in float32 for now. Llama-2-7B has ~13.5 GB of weights in fp16. "
                 "On an A100 80GB that's nothing, but on a 24 GB L4 it is tight.",
                 "On an A100 80GB the weights are ~6.6 ms per step at ~2 TB/s, and batch 8 x 2k tokens adds 8.6 GB of "
                 "cache reads, ~4.2 ms.", opening="A small decoder on one A100 80GB.")
    assert not [c for c in led.claims if c.check is not None and c.check.status in ("wrong", "impossible")], \
        led.summary()
    assert not led.by_kind("free_kv_bytes"), led.summary()


def test_gpu_hours_are_no_gpus_and_a_commit_window_sets_the_fsync_rate():
    led = ledger("Training may be preempted inside a budget of 5% of the fleet's GPU-hours per day, which is "
                 "2,400 GPU-hours.", opening="We run 2,000 H100s for 40 teams.")
    assert not [c for c in led.by_kind("gpu_count") if c.speaker == "candidate"], led.summary()
    wal = build_ledger([("interviewer", "A KV store takes 50,000 writes a second."),
                        ("candidate", "fsync on our NVMe is about 100 µs, but let me cap the window at 1 ms: at "
                                      "50,000 writes a second that's 50 records per fsync and only 1,000 fsyncs a "
                                      "second.")])
    assert not [c for c in wal.claims if c.check is not None and c.check.status == "wrong"], wal.summary()


def test_a_replicas_free_memory_is_not_read_per_gpu_because_a_per_gpu_overhead_sits_beside_it():
    led = ledger("Four H100s with tensor parallelism, 320 GB in total. The replica has 320 GB, minus 141 GB of "
                 "weights, minus roughly 4 GB per GPU for activations and CUDA graphs, which leaves about 163 GB "
                 "for cache.")
    assert status(led, "free_kv_bytes") == "ok"


@pytest.mark.parametrize("text, kind, wrong", [
    ("Each record is 1 KB plus a small header, so at 50,000 writes a second the log grows at about 500 MB a second.",
     "write_bandwidth", True),
    ("Each record is 1 KB plus a small header, so at 50,000 writes a second the log grows at about 55 MB a second.",
     "write_bandwidth", False),
    # a replay's read speed beside the growth is no product of the write rate
    ("Log growth is 50 MB a second; a 20 GB log, reading sequentially at maybe 500 MB a second, is 40 seconds.",
     "write_bandwidth", False),
    # ... said per hour, checked against the write rate, not a ceiling said beside it
    ("On our NVMe fsync-per-put tops out at 5,000 a second. The log grows about 20 GB an hour at that rate.",
     "other_bytes", True),
    ("The log grows about 180 GB an hour at that rate.", "other_bytes", False),
    # a growth said with a terse period ("/hr") after the rate it comes from
    ("Log growth: 50k x 1 KB = 50 MB/s, so about 18 GB/hr of log.", "other_bytes", True),
    ("Log growth: 50k x 1 KB = 50 MB/s, so about 180 GB/hr of log.", "other_bytes", False),
])
def test_the_logs_growth_is_the_write_rate_times_the_record_size(text, kind, wrong):
    led = ledger(text, opening=OPEN_WAL)
    checks = [c.check.status for c in led.by_kind(kind) if c.check is not None]
    assert ("wrong" in checks) == wrong, led.summary()


def test_protected_media_named_earlier_in_the_round_keep_a_fast_fsync_plausible():
    later = "With fsync per put the typical fsync is around 25 µs."
    plain = ledger("Plain NVMe drives.", later, opening="Design a WAL-backed KV store.")
    assert one(plain, "fsync_latency_ms").check.status == "impossible"
    led = ledger("On datacenter NVMe with power-loss protection the drive cache counts as durable.", later,
                 opening="Design a WAL-backed KV store.")
    assert one(led, "fsync_latency_ms").check is None


def test_a_length_said_after_a_count_is_no_count_of_its_own():
    led = ledger("On an 80 GB H100, after 12.6 GiB of weights and a few GiB of runtime, about 62 GiB is left, so "
                 "~31 full 4k sequences.", opening="Llama-2-7B in FP16 on one H100 80GB.")
    assert not [c for c in led.by_kind("concurrent_sequences") if c.value >= 1000], led.summary()
    assert ledger("so ~31 sequences at 4k.").by_kind("concurrent_sequences")


@pytest.mark.parametrize("text", [
    "One step reads 13.5 GB of weights, ~4 ms, and batch 8 with 1k tokens each adds ~4 GB of KV, so ~5 ms per step.",
    "A typical sequence is 1,500 + 300 = 1,800 tokens, so about 590 MB of KV.",
])
def test_a_batchs_or_one_sequences_kv_is_not_free_memory(text):
    assert not ledger(text).by_kind("free_kv_bytes")


def test_batch_n_said_as_the_max_active_sequences_is_a_limit():
    led = ledger("In serving, the preallocated cache makes batch 8 the max active sequences.")
    assert [c.value for c in led.by_kind("max_num_seqs")] == [8]



def test_a_share_of_fleet_is_checked_without_an_article_but_not_a_share_of_its_throughput():
    opening = "We operate around 10,000 GPUs. Design the system that detects unhealthy GPUs and repairs them."
    led = ledger("We pull whole hosts, so 25 × 8 is ~200 GPUs out of service, which is 0.2% of fleet.", opening=opening)
    assert status(led, "fleet_share") == "wrong"
    assert not ledger("Scavengers get those 120 GPUs, so call it 3% of fleet throughput.",
                      opening=opening).by_kind("fleet_share")


def test_one_layers_share_of_a_tokens_kv_is_not_the_tokens_kv():
    led = ledger("Per token per layer, K and V: 2 x 8 x 128 x 2 bytes = 4 KB. Times 32 layers that's 128 KB a token.",
                 opening="Llama-3-8B in FP16 on one H100 80GB.")
    assert [c.value for c in led.by_kind("kv_bytes_per_token")] == [128e3], led.summary()
    # ... while a size per token said across the layers is that token's KV
    led = ledger("That's 4 KB per token per layer, so 128 KB per token across 32 layers.",
                 opening="Llama-3-8B in FP16 on one H100 80GB.")
    assert [c.value for c in led.by_kind("kv_bytes_per_token")] == [128e3], led.summary()


def test_a_sum_said_after_the_weights_and_a_group_size_are_not_the_weights_or_the_heads():
    led = ledger("Next to about 13.5 GB of 7B weights that's around 21.5 GB, so it fits an A100 40GB.",
                 opening="Llama-2-7B in FP16.")
    assert not [c for c in led.by_kind("weights_bytes") if c.value > 20e9], led.summary()
    for text in ("With GQA each KV head serves four query heads, so the cache shrinks by 4x.",
                 "Attention repeats each kv head for 4 query heads (repeat_interleave).") :
        led = ledger(text, opening="Llama-2-7B in FP16.")
        assert not led.by_kind("attention_heads"), led.summary()


def test_a_product_said_as_a_divisor_is_not_checked_on_its_own():
    led = ledger("Llama-3-70B in BF16 on two H200s: 141 gigs of weights over two times 4.8 terabytes a second is "
                 "about 15 milliseconds a step.", opening="A 70B model on H200s.")
    assert not [c for c in led.by_kind("arithmetic") if c.check is not None and c.check.status == "wrong"], led.summary()


def test_a_deadlines_cap_is_no_sequence_limit_and_a_hyphenated_number_word_is_a_number():
    led = ledger("Whole generation: 2,048 tokens at 30 milliseconds is about 61 seconds, plus three, so I'd hard-cap at 75.",
                 opening="Design the timeouts for a 70B model on H200s.")
    assert not led.by_kind("max_num_seqs"), led.summary()
    assert [c.value for c in ledger("We cap max_num_seqs at 64.").by_kind("max_num_seqs")] == [64]
    led = ledger("A 1.5 s queue allowance plus 1.2 s of prefill, so a three-second first-token deadline.",
                 opening="Design the timeouts for a 70B model on H200s.")
    assert 3000.0 in [c.value for c in led.claims if c.unit == "ms"], led.summary()


def test_a_result_said_after_a_comma_and_about_is_checked_but_not_a_chain_missing_its_rate():
    led = ledger("If max_tokens is 2,048, that's 2,048 times 30 ms, about 6 seconds.", opening="A 70B model on H100s.")
    assert "wrong" in [c.check.status for c in led.by_kind("arithmetic") if c.check], led.summary()
    led = ledger("If max_tokens is 2,048, that's 2,048 times 30 ms, about 61 seconds.", opening="A 70B model on H100s.")
    assert "wrong" not in [c.check.status for c in led.by_kind("arithmetic") if c.check], led.summary()
    led = ledger("Prefill is 300,000 prompt tokens a second at 2 × 70.6 GFLOP each, about 42 PFLOP/s.")
    assert not led.by_kind("arithmetic"), led.summary()


def test_a_hosts_total_is_the_per_gpu_figure_times_its_gpus():
    opening = "Route Llama-2-13B in FP16 on eight A100 80GB GPUs in one host."
    led = ledger("Free is about 50 GB, so about 27 sequences per GPU, and across the host that's about 430 "
                 "concurrent sequences.", opening=opening)
    assert [c.check.status for c in led.by_kind("concurrent_sequences") if c.value == 430] == ["wrong"], led.summary()
    led = ledger("Free is about 50 GB, so about 27 sequences per GPU, and across the host that's about 216 "
                 "concurrent sequences.", opening=opening)
    assert [c.check.status for c in led.by_kind("concurrent_sequences") if c.value == 216] == ["ok"], led.summary()


def test_a_model_said_to_sit_on_one_card_is_a_fit_claim():
    led = ledger("The 70B sits on one H100 with room to spare.", opening="Llama-3-70B in FP16 on H100 80GB.")
    assert status(led, "fits_on_gpus") == "impossible", led.summary()


@pytest.mark.parametrize("text, status_", [
    ("20,000 requests a second at 400 candidates each is 800,000 scores a second.", "wrong"),
    ("20,000 requests a second at 400 candidates each is 8 million scores a second.", "ok"),
])
def test_items_scored_a_second_are_the_request_rate_times_the_items_a_request(text, status_):
    led = ledger(text, opening="Recommendation serving at 20,000 requests per second on L4s.")
    assert status(led, "items_per_s") == status_, led.summary()


def test_a_replay_time_cannot_be_shorter_than_reading_the_log():
    opening = "A KV store with a WAL: 50,000 writes per second, 1 KB values."
    assert status(ledger("Replay reads 20 GB at 200 MB/s, so about 10 seconds.", opening=opening),
                  "recovery_time_s") == "wrong"
    led = ledger("Replay reads 20 GB at 2 GB/s, so about 10 seconds plus applying it.", opening=opening)
    assert "wrong" not in [c.check.status for c in led.by_kind("recovery_time_s") if c.check], led.summary()


def test_a_count_of_hosts_with_a_word_between_is_still_hosts():
    led = ledger("I'd keep about 8 whole hosts reserved for gangs, which costs around 8% of the fleet.",
                 opening="We run 2,000 H100s in 250 hosts of 8 GPUs for 40 teams.")
    assert status(led, "fleet_share") == "wrong", led.summary()
    assert [c.value for c in led.by_kind("host_count") if c.speaker == "candidate"] == [8], led.summary()


def test_memory_a_change_frees_is_no_free_memory():
    led = ledger("Easy win: quantize the weights to int8. That frees 13 GB per card, which is 7 more sequences.",
                 opening="Llama-2-13B in FP16 on A100 80GB.")
    assert not led.by_kind("free_kv_bytes"), led.summary()


def test_a_table_row_of_prompt_plus_reply_and_a_calculated_cell():
    table = ("| item | value |\n|---|---|\n| KV per token | 2 x 40 layers x 40 KV heads x 128 x 2 bytes = 819,200 B |\n"
             "| per sequence (2,000 + 250 tokens) | about 1.8 GB |\n"
             "| free after weights and ~6 GB runtime | about 48 GB |\n| sequences per GPU | 48 / 1.84 = about 26 |")
    led = ledger(table, opening="Llama-2-13B in FP16 on A100 80GB.")
    assert [c.value for c in led.by_kind("seq_len")] == [2250], led.summary()
    assert status(led, "kv_bytes_per_sequence") == "ok", led.summary()
    assert not [c for c in led.claims if c.check is not None and c.check.status == "wrong"], led.summary()


@pytest.mark.parametrize("text", [
    "A background thread fsyncs every 5 ms. That gets the full 50,000/s with ~250 writes per fsync.",
    "An fsync is 100-200 µs on this NVMe. With a ~1 ms commit cycle that's about 50 puts per fsync.",
])
def test_a_group_flushed_once_a_window_is_the_rate_times_the_window(text):
    led = ledger(text, opening="A KV store with a WAL: 50,000 writes per second, 1 KB values.")
    assert not [c for c in led.claims if c.check is not None and c.check.status == "wrong"], led.summary()


def test_a_figure_taken_back_in_the_same_breath_is_not_held_against_the_candidate():
    led = ledger("KV per token is 80 layers x 8 KV heads x 128 head dim x 2 bytes = 160 KiB, no, times two because "
                 "K and V are both stored, so 320 KiB per token.", opening="Llama-3-70B in FP16 on H100 80GB.")
    assert [c.value for c in led.by_kind("kv_bytes_per_token") if not c.negated] == [320 * 1024], led.summary()


@pytest.mark.parametrize("text, kind, value", [
    # the whole card a subtraction starts from is no free memory, whatever the row says
    ("Free memory: 320 GB − 140 GB of weights − roughly 20 GB for activations ≈ 160 GB.", "free_kv_bytes", 320e9),
    # a term after the weights is another term
    ("On one H100: 80 GiB − 12.55 GiB of weights − ~4 GiB workspace ≈ 63 GiB.", "weights_bytes", 4 * 1024 ** 3),
    # what a step reads is not what is free, decimals and all
    ("At batch 8 a decode step reads about 13.5 GB of weights plus 8.6 GB of cache, roughly 11 ms.", "free_kv_bytes", 8.6e9),
])
def test_terms_of_a_memory_sum_keep_their_own_kind(text, kind, value):
    led = ledger(text, opening="Llama-2-7B in FP16 on H100 80GB.")
    assert not [c for c in led.by_kind(kind) if abs(c.value - value) < 0.01 * value], led.summary()


def test_a_batchs_aggregate_rate_and_what_a_sum_costs_are_not_checked_as_other_things():
    led = ledger("At 63 sequences a step reads 13.5 GB of weights plus ~67.6 GB of KV, ~24 ms per step, ~2,600 "
                 "tokens/s aggregate, ten times batch 1.", opening="Llama-2-7B in FP16 on H100 80GB.")
    assert not [c for c in led.claims if c.check is not None and c.check.status == "impossible"], led.summary()
    led = ledger("Recompute the prompt plus the tokens already streamed, say 6,000 + 300, which is ~0.6 s of prefill.",
                 opening="A 70B model on H100s.")
    assert not led.by_kind("arithmetic"), led.summary()


def test_a_reply_said_before_its_noun_and_the_sum_after_it_is_no_reply_length():
    """"a 3,000-token prompt and a 500-token reply is 3,500 tokens": the 3,500 is the sequence, not the reply, so
    the sequences that fit are checked at 3,500 tokens."""
    led = ledger("Per token: 2 × 32 × 32 × 128 × 2 bytes = 524,288 bytes. A 3,000-token prompt and a 500-token reply is "
                 "3,500 tokens ≈ 1.7 GiB. On an 80 GB card: 80 − 14 of weights − ~6 of runtime ≈ 60 GB free, so ~32 "
                 "sequences of that length.", opening="Llama-2-7B in FP16 on an H100 80GB.")
    assert 3500 not in [c.value for c in led.by_kind("output_tokens")], led.summary()
    assert status(led, "concurrent_sequences") == "ok", led.summary()


def test_a_margin_on_the_mean_is_a_mean_whatever_tail_was_named_first():
    led = ledger("The p99 will be somewhat higher, sure, but with 70 ms of slack on the mean we're safe.",
                 opening="Design the recommendation serving system. p99 budget of 150 ms.")
    assert [c.kind for c in led.candidate_claims()] == ["latency_mean_ms"], led.summary()


def test_per_gpu_sequences_added_up_over_the_host_are_checked_per_gpu():
    led = ledger("Model 13B, Llama-2-13B shape: 40 layer, 40 head, no GQA, head dim 128. Weights: 13 billion × 2 byte = "
                 "26G. A100 is 80G. Runtime overhead I keep ~6G. So for KV there is ~48G.",
                 "Per token: 2 × 40 × 40 × 128 × 2 = 819,200 byte. A 2,000-token sequence then is 1.64 GB; with reply of "
                 "250 it grows to 2,250 token, ~1.84 GB. So 48 / 1.84 ≈ 26 sequence per GPU, and eight GPU give 208 for "
                 "whole host.",
                 opening="You have one host with eight A100 80GB GPUs, each holding its own copy of a 13B model in FP16.")
    assert status(led, "concurrent_sequences") == "ok", led.summary()


def test_a_decimal_said_aloud_with_hyphens_is_one_number():
    from interviewer.claims.numbers import find_mentions
    from interviewer.claims.vocab import load

    [m] = find_mentions("a sequence is about one-point-eight-four gig", load())
    assert (m.dim, m.value) == ("bytes", pytest.approx(1.84e9))


def test_a_price_said_aloud_is_not_hundreds_and_a_range_of_fsync_times_checks_its_rate():
    led = ledger("I'd plan about 32 replicas, 128 H100s, which at two-fifty an hour is about 235 grand a month.")
    assert not [c for c in led.candidate_claims() if c.value == 250], led.summary()
    led = ledger("The limit is fsync count: a datacenter NVMe does an fsync in, let's say, half a millisecond to a "
                 "millisecond, so a thousand-ish fsyncs a second back to back.",
                 opening="Design a KV store with a write-ahead log: 50,000 writes per second.")
    assert status(led, "fsync_rate") == "ok", led.summary()


def test_an_incident_told_under_a_last_job_headline_is_a_war_story():
    led = ledger("Lunch rush, last job: round-robin router, eight cards, and GPU 2 had 70 requests queued behind one "
                 "giant prompt.")
    assert all(c.hypothetical for c in led.candidate_claims()), led.summary()


def test_slots_fixed_in_advance_are_the_max_sequences():
    led = ledger("With this preallocation each slot is 1 GiB, so I'd fix 8 slots, the 8 GiB we computed.",
                 opening="Llama-2-7B in FP16 on H100 80GB.")
    assert [c.value for c in led.by_kind("max_num_seqs")] == [8], led.summary()


def test_limits_said_as_slots_are_the_max_sequences():
    led = ledger("For this loop my limits are 8 slots and 2,048 tokens per slot.", opening="Llama-2-7B in FP16 on H100 80GB.")
    assert [c.value for c in led.by_kind("max_num_seqs")] == [8] and not led.by_kind("concurrent_sequences"), led.summary()


def test_an_fsync_time_said_per_flush_is_the_fsync_latency():
    led = ledger("With PLP an fsync is ~50-100 µs, so one fsync per put serialises at ≤ 10-20k puts/s, and on a drive "
                 "without PLP, ~1-2 ms a flush, it's ≤ 1,000/s.", opening="A KV store with a WAL: 50,000 writes per second.")
    assert 1.5 in [c.value for c in led.by_kind("fsync_latency_ms")], led.summary()
    assert not [c for c in led.claims if c.check is not None and c.check.status == "wrong"], led.summary()


@pytest.mark.parametrize("text, kind", [
    ("Per token per layer it's 32 heads x 128 dims x 2 bytes, 8 KB. Times 32 layers is 256 KB per token. "
     "Times 2,048 tokens times batch 8, that's 4 GiB.", "kv_bytes_batch"),
    ("That's 512 KiB per token. Times 4,096 tokens, that's 2 GiB.", "kv_bytes_per_sequence"),
])
def test_a_product_carried_on_from_the_sentence_before_is_a_sequences_or_a_batchs_kv(text, kind):
    led = ledger(text, opening="Llama-2-7B in FP16.")
    assert led.by_kind(kind), led.summary()


def test_an_inter_token_latency_is_a_per_token_time_and_missed_heartbeats_are_no_sequences():
    led = ledger("Per-sequence token watchdog: our measured p99 inter-token latency at normal batch sizes is about 45 ms, "
                 "so if a sequence emits no token for 5 seconds it's hung. If the whole engine stops, that's the worker, "
                 "not the sequence: three missed 2-second heartbeats and the worker is declared dead.",
                 opening="A 70B model on four H100s with continuous batching.")
    assert [c.value for c in led.by_kind("tpot_p99_ms")] == [45], led.summary()
    assert not led.by_kind("concurrent_sequences"), led.summary()


def test_a_weights_shard_said_per_gpu_with_the_split_in_another_sentence_checks_out():
    led = ledger("Prefill: four cards at ~40% MFU. Decode: ~35 GB of weights per GPU at 3.35 TB/s is a ~10.5 ms floor per step.",
                 opening="Llama-3-70B in FP16 on H100 80GB GPUs.")
    assert status(led, "weights_bytes") == "ok", led.summary()


def test_what_one_sequence_holds_and_a_share_of_a_product_are_not_misread():
    led = ledger("An average sequence of 1,500 + 300 = 1,800 tokens therefore holds about 0.59 GB of KV when it finishes.",
                 opening="Llama-3-70B in FP16 on H100 80GB.")
    assert not led.by_kind("free_kv_bytes"), led.summary()
    led = ledger("One TP4 replica at ~50% of 4 × 989 TFLOPS is ~2e15, so prefill alone needs ~21 replicas.",
                 opening="Llama-3-70B in FP16 on H100 80GB.")
    assert not [c for c in led.by_kind("arithmetic") if c.check is not None and c.check.status == "wrong"], led.summary()


def test_a_length_said_for_a_what_if_later_in_the_sentence_is_not_the_figures():
    led = ledger("An average sequence is 1,800 tokens. Free KV memory is about 147 GB, so I'd say 250 concurrent "
                 "sequences per TP-4 replica - and only about 55 if every request used the full 8K context.",
                 opening="Llama-3-70B in FP16 on H100 80GB GPUs, four to a replica.")
    assert [c.check.status for c in led.by_kind("concurrent_sequences") if c.value == 250] == ["ok"], led.summary()


def test_memory_left_after_a_total_that_includes_the_cache_checks_out():
    led = ledger("On A100 40G: weights ~13.5 GB + 8 GiB cache = ~22 GB, ~1.5 GB runtime -> ~17 GB left.",
                 opening="Llama-2-7B in FP16.")
    assert status(led, "free_kv_bytes") == "ok", led.summary()
    led = ledger("On A100 40G: weights ~13.5 GB, ~1.5 GB runtime -> ~17 GB left.", opening="Llama-2-7B in FP16.")
    assert status(led, "free_kv_bytes") == "wrong", led.summary()


def test_what_is_left_after_the_weights_is_not_the_weights():
    led = ledger("So on one H100, 80 minus 14 of weights minus few GB overhead, ~60 GB, you fit about 30 sequences of 4k.",
                 opening="Llama-2-7B in FP16 on one H100 80GB.")
    assert not [c for c in led.by_kind("weights_bytes") if c.value > 50e9], led.summary()


def test_a_parallel_degree_weighed_and_passed_over_does_not_become_the_replicas():
    led = ledger("I'd use TP4 inside one HGX board. TP8 would shrink the per-GPU weight stream, but I get half the "
                 "replicas per host. The weights are 141 GB, which is 131 GiB, leaving about 155 GiB of KV.")
    assert status(led, "free_kv_bytes") == "ok", led.summary()


def test_a_prompt_length_after_a_latency_target_or_a_test_suite_is_no_concurrency():
    led = ledger("For serving this model I'd set p99 TPOT at 30 ms and p99 TTFT at 300 ms for 2k prompts. "
                 "The suite: 2,000 prompts sampled from real traffic.")
    assert not led.by_kind("concurrent_sequences"), led.summary()


def test_an_interviewers_what_if_sets_the_dtype_and_a_baseline_compared_with_does_not():
    turns = [("interviewer", "Llama-2-7B in FP16 on one H100 80GB."), ("candidate", "Weights are 13.5 GB."),
             ("interviewer", "If you quantize the weights to INT4, what gets faster?"),
             ("candidate", "weights -> ~3.4 GB, so decode is much faster. quality: task benchmarks vs FP16.")]
    led = build_ledger(turns)
    small = [c for c in led.by_kind("weights_bytes") if c.turn == 3]
    assert small and small[0].check.status == "ok", led.summary()



def test_a_daily_log_size_is_checked_and_a_kv_dtype_said_with_the_weights_is_used():
    led = ledger("Per hour that's about 198 GB of log, so roughly 2 TB a day if nothing truncates it.",
                 opening=OPEN_WAL)
    assert [c.check.status for c in led.by_kind("other_bytes") if c.check is not None] == ["wrong"]
    fp8 = ledger("First thing I'd do is move to FP8, weights and KV cache: the KV halves to 2 × 80 × 8 × 128 × 1 "
                 "byte = 163,840 bytes, 160 KB per token.")
    assert status(fp8, "kv_bytes_per_token") == "ok", fp8.summary()


def test_a_number_in_scientific_notation_is_one_number():
    led = ledger("An H100 needs 989 × 10^12 / 3.35 × 10^12 ≈ 295 FLOPs per byte to be compute-bound.")
    assert status(led, "arithmetic") == "ok", led.summary()


def test_a_sum_labelled_free_is_free_memory_not_usable_memory():
    led = ledger("Line four: free = 320 minus 141 minus 32 GB I hold back for activations and CUDA graphs = 147 GB, "
                 "and 147 GB / 590 MB is about 250 sequences per replica.", opening=OPEN_70B + " Four H100s per replica.")
    assert not [c for c in led.by_kind("usable_memory_bytes") if c.value == 147e9], led.summary()


def test_a_replicas_bandwidth_is_the_sum_of_its_gpus_and_a_step_or_one_sequences_kv_is_not_free():
    led = ledger("At 100 sequences, a decode step reads 141 GB of weights plus about 66 GB of KV across four GPUs' "
                 "13.4 TB/s, roughly 16 ms. Resume would mean mirroring: 6,000 tokens is about 2 GB of KV for that "
                 "one sequence.", opening=OPEN_70B + " Four H100s per replica.")
    assert status(led, "memory_bandwidth") == "ok", led.summary()
    assert not led.by_kind("free_kv_bytes"), led.summary()


def test_a_sum_of_tokens_said_as_flops_leaves_the_flops_per_token_unsaid():
    led = ledger("Compute: 300,000 prompt tokens a second plus 60,000 generated tokens is about 51 PFLOP/s.")
    assert not [c for c in led.by_kind("arithmetic") if c.check is not None and c.check.status == "wrong"], led.summary()



def test_one_sequences_cache_said_with_then_is_not_free_memory():
    assert not ledger("A 4,096-token sequence is then 2 GB of cache.").by_kind("free_kv_bytes")


def test_a_rate_said_before_the_group_it_leads_to_is_one_fsync_per_put():
    led = ledger("Is it fair to assume about 1 ms per fsync? Then one fsync per put caps us around 1,000 puts a second, "
                 "so we need roughly 50 puts per fsync.", opening="Design a KV store with a WAL: 50,000 writes per second.")
    assert none_wrong(led), led.summary()



def test_a_group_that_has_to_cover_a_target_rate_checks_it():
    led = ledger("An fsync on NVMe is about 1 ms, so 1,000 fsyncs a second, and to reach 50,000 writes a second "
                 "each fsync has to cover 50 writes.", opening="Design a KV store with a WAL: 50,000 writes per second.")
    assert none_wrong(led), led.summary()


def test_a_figure_put_right_after_a_filler_and_a_named_slip_is_not_held_against_the_candidate():
    led = ledger("For Llama-2-13B that's 40 times 40 times 128 times 2 bytes, 400 KB a token. Hmm, scratch that, I "
                 "left out K and V, so twice that, 800 KB a token.", opening="Llama-2-13B in FP16 on one A100 80GB.")
    assert statuses(led, "kv_bytes_per_token") == ["unchecked", "ok"], led.summary()
    slow = ledger("A 2,048-token reply is 2,048 times 40 ms, which is, um, 8 seconds. No, I dropped a zero, 82 seconds.")
    assert all(c.check.status != "wrong" for c in slow.by_kind("arithmetic")), slow.summary()


def test_a_gpu_named_with_its_memory_first_is_that_variant():
    led = ledger("Weights are about 13.5 GB, so roughly 60 GB is left for the KV cache.",
                 opening="Llama-2-7B in FP16 on a single 80 GB A100.")
    assert status(led, "free_kv_bytes") == "ok", led.summary()


def test_a_quotient_that_counts_machines_has_no_sequence_length_in_it():
    led = ledger("That's about 3,000 requests in flight, and 3,000 over 250 is 12, so 12 replicas.")
    assert not led.by_kind("seq_len") and not led.by_kind("kv_cache_tokens"), led.summary()


def test_a_result_said_after_a_pause_is_checked():
    led = ledger("The pool is 30 hosts, so 240 GPUs, and 240 over 2,000 is... 20 percent of the fleet.",
                 opening="A shared fleet of 2,000 H100s on 250 hosts.")
    assert [c.check.status for c in led.by_kind("arithmetic") if c.check] == ["wrong"], led.summary()


def test_a_replay_time_said_after_the_size_and_the_read_speed_is_checked():
    led = ledger("The log since the snapshot is about 100 GB, and replay reads at maybe 400 MB a second, so that's, "
                 "um, about 25 seconds.", opening=OPEN_WAL)
    assert status(led, "recovery_time_s") == "wrong", led.summary()


def test_a_capital_multiplier_set_apart_is_a_million_and_its_product_is_checked():
    led = ledger("- **Demand:** 30,000 rps x 400 candidates = 1.2 M scores per second.",
                 opening="Recommendations: 30,000 requests per second, a neural ranker on L4s.")
    assert status(led, "arithmetic") == "wrong", led.summary()


def test_a_puts_time_without_an_fsync_is_no_fsync_time():
    led = ledger("Clients see on average around 80 microseconds, since we're not waiting on fsync.",
                 opening=OPEN_WAL)
    assert not led.by_kind("fsync_latency_ms"), led.summary()


def test_a_size_said_as_the_cache_is_no_weights_and_what_is_left_beside_it_is_no_free_memory():
    led = ledger("On a 24 GB L4 with about 13.5 GB of weights, the 6 GB cache fits with roughly 3 GB left for activations.",
                 opening="Llama-2-7B in FP16 on one L4.")
    assert [c.value for c in led.by_kind("weights_bytes")] == [13.5e9], led.summary()
    assert not led.by_kind("free_kv_bytes"), led.summary()


def test_hosts_from_gpus_and_gpus_from_hosts_are_exact_counts():
    opening = "A shared fleet of 2,000 H100s on 250 hosts with eight GPUs each."
    hosts = ledger("Call it 30% serving, so 600 GPUs of inference - that's 60 hosts.", opening=opening)
    assert status(hosts, "host_count") == "wrong", hosts.summary()
    gpus = ledger("I'd reserve 30 hosts, so 200 GPUs for the gang reserve.", opening=opening)
    assert [c.check.status for c in gpus.by_kind("gpu_count") if c.check] == ["wrong"], gpus.summary()


def test_a_time_after_a_figure_of_another_quantity_is_no_item_of_a_list_and_time_in_the_system_is_no_prefill():
    led = ledger("Little's law: at 30 sequences a decode step is roughly 20 ms, so 200 tokens is about 4 s, call it "
                 "4.5 s in the system with prefill.", opening="Eight A100 80GB GPUs, each with Llama-2-13B in FP16.")
    assert [c.value for c in led.by_kind("decode_step_ms")] == [20.0], led.summary()
    assert not led.by_kind("prefill_time_ms") and not led.by_kind("fleet_in_flight"), led.summary()


def test_what_a_smaller_format_frees_against_the_weights_said_before_is_a_saving():
    led = ledger("Llama-2-7B in FP16 is about 13.5 GB of weights.",
                 "INT4 weights are a quarter of the bytes, ~3.4 GB, and you free ~10 GB for KV.",
                 opening="Llama-2-7B in FP16 on one H100 80GB.")
    assert not [c for c in led.by_kind("free_kv_bytes") if c.check and c.check.status == "wrong"], led.summary()


def test_the_format_said_right_before_a_size_is_its_format_and_a_scope_after_another_figure_is_that_figures():
    led = ledger("Llama-3-70B in FP16 is about 141 GB and needs four H100s; in FP8 it's about 70.6 GB and fits two. "
                 "I'd serve FP8 weights with an FP16 KV cache.",
                 "Two H100s give 160 GB; minus 70.6 GB of weights and about 4 GB per GPU for activations, that's about "
                 "81 GB for KV. Per GPU that's the same ~68 as the FP16 four-GPU layout.",
                 "Continuous batching with max_num_seqs 128 per replica, at 1,800 tokens a sequence.",
                 opening="Llama-3-70B on H100 80GB GPUs.")
    assert all(c.check.status == "ok" for c in led.by_kind("weights_bytes")), led.summary()
    assert status(led, "free_kv_bytes") == "ok", led.summary()
    assert none_wrong(led, "max_num_seqs"), led.summary()


def test_a_full_sequence_the_rest_after_a_subtraction_and_the_same_size_said_again():
    led = ledger("512 KB a token, so a full 4K sequence is 2 gigs. So on the H100, 80 minus 13.5 minus a few for "
                 "activations, say 62 gigs, that's about 30 full-length sequences.",
                 "Without paging you reserve max length contiguously per sequence - 2 gigs each even if the reply "
                 "ends at 300 tokens - and with 16-token blocks the 62 gigs holds sequences by their actual length.",
                 opening="Llama-2-7B in FP16 on an H100 80GB.")
    assert [c.value for c in led.by_kind("kv_bytes_per_sequence")][:1] == [2e9], led.summary()
    assert 62e9 not in [c.value for c in led.by_kind("kv_bytes_per_sequence")], led.summary()
    assert all(c.check.status == "ok" for c in led.by_kind("free_kv_bytes")), led.summary()


def test_a_count_per_replica_is_no_length_and_a_token_at_a_time_is_a_tokens_time():
    led = ledger("200/s times roughly 10 s per request (then 300 tokens at ~30 ms each), so ~2,000 sequences in "
                 "flight. At ~250 per replica that's only 8 replicas.")
    # (the 300 decoded at ~30 ms each is the reply, not a sequence's length)
    assert not led.by_kind("seq_len") and one(led, "output_tokens").value == 300.0, led.summary()
    assert [c.value for c in led.by_kind("tpot_ms")] == [30.0], led.summary()


def test_a_sequences_kv_said_without_its_length_may_be_for_any_length_the_round_gave():
    led = ledger("A request is ~1,500 in plus ~300 out, 1,800 tokens.",
                 "Replies run 300 tokens at ~30 ms each.",
                 "Recompute rather than swap, because a full sequence is ~590 MB of KV.")
    assert status(led, "kv_bytes_per_sequence") == "ok", led.summary()


def test_a_days_log_said_after_its_period_is_checked_against_the_questions_log():
    turns = [("interviewer", "Design a KV store with a WAL: 50,000 writes per second, 1 KB values."),
             ("candidate", "Group commit, 2 ms windows."), ("interviewer", "How fast does the log grow?"),
             ("candidate", "50,000 a second at 1 KB is 50 megs a second. So that's 180 gigs an hour, and a day is, um, "
                           "like 1.2 terabytes.")]
    led = build_ledger(turns)
    assert [c.check.status for c in led.by_kind("other_bytes") if c.value == 1.2e12] == ["wrong"], led.summary()


def test_a_replay_time_after_a_vague_drive_speed_is_checked():
    led = ledger("Sequential reads on NVMe are a few hundred MB/s at least, so 30 GB replays in about 3 seconds.",
                 opening=OPEN_WAL)
    assert status(led, "recovery_time_s") == "wrong", led.summary()


def test_a_size_after_a_product_ending_in_bytes_is_its_result():
    led = ledger("The item table is about 40 million rows x 64 dims x 2 bytes, 512 MB, which fits on the L4.",
                 opening="Recommendations on NVIDIA L4s: 20,000 requests per second.")
    assert status(led, "arithmetic") == "wrong", led.summary()


def test_a_share_of_the_fleet_is_of_the_count_said_right_after_it():
    led = ledger("Serving replicas are 1, 2 or 4 GPUs, so if I pack them tightly the stranded GPUs stay around 2-3% of "
                 "the fleet, 40-60 GPUs.", opening="A shared fleet of about 2,000 H100s on 250 hosts, 40 teams.")
    assert status(led, "fleet_share") == "ok", led.summary()


def test_a_bare_number_answering_how_many_sequences_is_that_count():
    turns = [("interviewer", "Llama-3-70B in FP16 on H100 80GB GPUs, four per replica, 1,800-token requests."),
             ("candidate", "KV per token is 320 KB, so a request is about 0.59 GB."),
             ("interviewer", "And how many concurrent sequences does that give one four-GPU replica?"),
             ("candidate", "About 270. Four cards is 320 GB, minus 141 of weights and 20 for activations leaves 159 GB.")]
    led = build_ledger(turns)
    assert [(c.value, c.check.status) for c in led.by_kind("concurrent_sequences")] == [(270.0, "ok")], led.summary()


def test_an_embedding_tables_size_and_a_cards_memory_after_the_weights_are_no_weights():
    led = ledger("Item embeddings for about 5 million dishes at 64 dimensions in FP16 are 640 MB, plus the ranker's "
                 "weights, so well under the L4's 24 GB.", opening="Recommendations on NVIDIA L4s; a 10 million parameter ranker.")
    assert not led.by_kind("weights_bytes"), led.summary()


def test_a_replay_said_as_an_arrow_from_the_read_speed_is_checked():
    led = ledger("Read log sequential ~400 MB/s -> 16 GB in ~4 s, then insert each record in the map.",
                 opening=OPEN_WAL)
    assert status(led, "recovery_time_s") == "wrong", led.summary()


@pytest.mark.parametrize("time, wrong", [("~1.3 s", True), ("~14 s", False)])
def test_a_read_opening_its_sentence_after_the_size_bounds_the_replay_time(time, wrong):
    """"20 GB ≈ 18.6 GiB, ~1.8e7 records at 1.1 KB. Sequential read at ~1.5 GB/s on the NVMe → ~1.3 s": the size the
    sentence before opened on is what is read (13 s at least)."""
    led = ledger(f"20 GB ≈ 18.6 GiB, ~1.8e7 records at 1.1 KB. Sequential read at ~1.5 GB/s on the NVMe → {time}.",
                 opening=OPEN_WAL)
    c = one(led, "recovery_time_s")
    assert (c.check is not None and c.check.status == "wrong") == wrong, led.summary()


def test_a_limit_set_as_a_constant_in_code_is_max_num_seqs():
    led = ledger("Roughly like this:\n\nMAX_SEQS = 48\n\ndef admit(gpu, req):\n    return len(gpu.running) < MAX_SEQS")
    assert [c.value for c in led.by_kind("max_num_seqs")] == [48.0], led.summary()


def test_a_per_layer_size_followed_by_times_the_layers_is_no_per_token_figure():
    led = ledger("Per token per layer it's K and V, 2 x 32 heads x 128 x 2 bytes = 16K bytes; times 32 layers is "
                 "512 KB per token.", opening="Llama-2-7B in FP16 on one A100 80GB.")
    assert [c.value for c in led.by_kind("kv_bytes_per_token")] == [512e3], led.summary()


def test_a_size_read_sequentially_at_a_speed_bounds_the_replay_time():
    led = ledger("Replay the segments after the snapshot. 30 GB read sequentially at 3 GB/s is about 1 second, so "
                 "restart is quick.", opening=OPEN_WAL)
    assert status(led, "recovery_time_s") == "wrong", led.summary()


def test_a_product_closed_by_so_about_is_a_calculation_and_its_shape_confirms_the_model():
    led = ledger("For KV I'll take layers times hidden size times two bytes: 40 x 5,120 x 2, so about 0.4 MB per token.",
                 opening="One host, eight A100 80GB GPUs, each with its own copy of a 13B model in FP16.")
    calc = [c for c in led.by_kind("arithmetic") if "5,120" in c.formula]
    assert calc and calc[0].check.status == "ok", led.summary()
    assert status(led, "kv_bytes_per_token") == "wrong", led.summary()


def test_a_token_budget_said_in_prompts_worth_is_no_concurrency():
    led = ledger("At most 48 active sequences per GPU, and at most 4,096 batched tokens per step, which is two "
                 "prompts' worth.", opening="Eight A100 80GB GPUs, a 13B model in FP16, prompts around 2,000 tokens.")
    assert [c.value for c in led.by_kind("concurrent_sequences")] == [], led.summary()


def test_a_rate_whose_each_is_a_product_is_a_factor_of_it():
    led = ledger("Prefill is 200 x 1,500 = 300,000 prompt tokens per second, each is 2 x 70.6 GFLOP, so about 42 PFLOP/s.")
    assert none_wrong(led, "arithmetic"), led.summary()


def test_a_replay_time_after_the_read_speed_with_words_between_is_checked():
    led = ledger("At 200 MB/s reading from disk, 20 GB is about 10 seconds, then we're up.",
                 opening=OPEN_WAL)
    assert statuses(led, "arithmetic") == ["wrong"], led.summary()


@pytest.mark.parametrize("count, verdict", [("12 L4s", "wrong"), ("120 L4s", "ok"), ("150 L4s", "ok")])
def test_gpus_from_the_demand_over_one_gpus_rate_are_checked(count, verdict):
    led = ledger(f"That's 6 million scores a second. Our L4s do about 50,000 scores a second each at batch 256, so "
                 f"that's {count}.", opening=OPEN_REC)
    assert status(led, "gpu_count") == verdict, led.summary()


@pytest.mark.parametrize("answer, verdict", [
    ("About 100 GPUs a month, about 3 a day. With a 7-day repair turnaround that's about 700 GPUs in the shop.", "wrong"),
    ("So 10 a day, which is 300 a week. With a 5-day repair turnaround, that's about 1,500 GPUs in repair at any moment.",
     "wrong"),
    ("About 3 a day, call it 5. With a 7-day repair turnaround that's 35 GPUs out at any time.", "ok"),
    ("About 6 nodes a day. If a repair takes 3 days end to end, there are ~19 nodes, ~150 GPUs, out at any time.", "ok"),
])
def test_gpus_in_repair_are_the_failure_rate_times_the_repair_time(answer, verdict):
    led = ledger(answer, opening=OPEN_HEALTH)
    checked = [c for c in led.by_kind("gpu_count") if c.check is not None and c.check.rule == "in_repair"]
    assert [c.check.status for c in checked] == [verdict], led.summary()


def test_a_repair_count_from_a_sum_of_flows_is_left_to_the_calculation():
    led = ledger("Little's law: 20/wk x ~1 day + 10/wk x 14 days is ~3 + 20, about 23 GPUs out at any moment.",
                 opening=OPEN_HEALTH)
    assert not [c for c in led.by_kind("gpu_count") if c.check is not None and c.check.rule == "in_repair"], led.summary()


def test_a_load_set_up_to_work_with_is_no_claim_of_what_fits():
    led = ledger("KV per token for Llama-2-7B is 2 x 32 layers x 32 heads x 128 x 2 bytes = 512 KiB. With 32 sequences "
                 "at 1,024 tokens of context, the KV is 32 x 1,024 x 0.5 MiB = 16 GiB.",
                 opening="Llama-2-7B in FP16 on one H100 80GB: why is decode memory-bound?")
    seqs = led.by_kind("concurrent_sequences")
    assert [(c.value, c.check.status, c.check.rule) for c in seqs] == [(32.0, "unchecked", "load")], led.summary()


def test_a_load_that_could_not_fit_is_still_wrong():
    led = ledger("KV per token for Llama-2-7B is 512 KiB. With 300 sequences at 1,024 tokens of context, the KV is "
                 "300 x 1,024 x 0.5 MiB = 150 GiB.", opening="Llama-2-7B in FP16 on one H100 80GB: why is decode memory-bound?")
    assert status(led, "concurrent_sequences") == "wrong", led.summary()


def test_memory_kept_back_across_the_gpus_for_activations_is_not_free_kv():
    led = ledger("Weights are 70.6B x 2 bytes, about 141 GB, so I'd run tensor parallel 4, which gives 320 GB per replica. "
                 "Leaving roughly 16 GB across the four GPUs for activations and CUDA graphs, free memory is "
                 "320 - 141 - 16 = 163 GB.")
    assert 16e9 not in [c.value for c in led.by_kind("free_kv_bytes")], led.summary()


def test_the_interviewer_putting_the_card_right_moves_the_subject_back():
    turns = [("interviewer", "One host with eight A100 80GB GPUs, each holding its own copy of Llama-2-13B in FP16."),
             ("candidate", "13B x 2 B = 26 GB of weights, on a 40 GiB card that leaves ~12 GiB for KV after overhead."),
             ("interviewer", "These are the 80 GB parts, not the 40."),
             ("candidate", "Right. Redo: 80 - 24.3 weights - ~4 runtime = ~51.7 GiB free.")]
    led = build_ledger(turns)
    free = [c for c in led.by_kind("free_kv_bytes") if c.turn == 3]
    assert free and free[0].subject.gpu_memory_gib == 80.0 and free[0].check.status == "ok", led.summary()


def test_times_after_a_result_just_said_goes_on_from_it():
    led = ledger("8 sequences x 2,048 tokens is 16,384 tokens, times 512 KB is exactly 8 GiB.",
                 opening="Llama-2-7B in FP16: size the KV cache of a static batch.")
    calcs = {tuple(c.formula): c.check.status for c in led.by_kind("arithmetic")}
    assert calcs.get(("16,384 tokens", "times", "512 KB")) == "ok", led.summary()


def test_times_after_a_sum_applies_to_the_whole_sum_not_its_last_term():
    led = ledger("Decode is 2,048 x 25 ms, about 51 s, plus two, times 1.5, so ~80 s.",
                 opening="Llama-3-70B on H100s: size the request timeout from the work.")
    assert not [c for c in led.by_kind("arithmetic") if c.formula[:1] == ["two"]], led.summary()


def test_a_count_left_open_between_two_guesses_is_no_figure():
    led = ledger("Honestly it depends on the model. Could be ten L4s, could be a hundred.", opening=OPEN_REC)
    assert all(c.hypothetical for c in led.by_kind("gpu_count")), led.summary()


def test_a_size_pointed_back_to_after_the_weights_is_not_the_weights():
    led = ledger("That's exactly Llama-2-7B's shape, so on an A100 40GB: 13.5 GB of weights, plus this 8 GiB, fits.",
                 opening="Llama-2-7B in FP16: size the KV cache of a static batch of 8.")
    assert 8 * 2**30 not in [c.value for c in led.by_kind("weights_bytes")], led.summary()


def test_a_product_of_figures_said_with_their_flops_is_checked():
    led = ledger("A forward pass is ~2 FLOPs per parameter, 4e7 FLOPs per candidate, so 6e6 × 4e7 = 2.4e13 FLOP/s in "
                 "total.", opening=OPEN_REC)
    assert [c.check.status for c in led.by_kind("arithmetic") if "4e7" in c.formula] == ["wrong"], led.summary()


def test_an_embedding_table_worked_out_in_bytes_is_no_weights():
    led = ledger("The embedding tables are the memory question: ~1e8 rows × 64 dims × 2 bytes = 12.8 GB, which fits in "
                 "an L4's 24 GB.", opening=OPEN_REC)
    assert not led.by_kind("weights_bytes"), led.summary()


def test_a_result_said_as_almost_or_close_to_closes_the_calculation():
    led = ledger("Resume needs the KV: 6,000 tokens × 320 KiB is almost two GByte, and 161 GB over 160 KB is close to "
                 "a million tokens of cache.")
    assert statuses(led, "arithmetic") == ["ok", "ok"], led.summary()


def test_memory_held_back_for_activations_is_not_the_usable_memory():
    led = ledger("The replica is TP=4, so 320 GB. Weights are ~141 GB, and I keep back about 24 GB across the four cards "
                 "for CUDA graphs and activations, which leaves ~155 GB for KV.")
    assert 24e9 not in [c.value for c in led.by_kind("usable_memory_bytes")], led.summary()
    assert 24e9 in [c.value for c in led.by_kind("other_bytes")], led.summary()


@pytest.mark.parametrize("answer", [
    "A step reads the weights plus live KV over 13 TB/s, so ~11 ms floor and ~19 ms at 180 live sequences.",
    "The floor is ~11 ms, and at our usual ~90 live sequences of ~2k context a step is nearer 15 ms.",
    "So a replica doing ~180 sequences per 20 ms step gives about 9k tokens/s.",
])
def test_a_load_a_step_time_is_worked_out_at_is_no_claim_of_what_fits(answer):
    led = ledger("Weights are ~141 GB over TP=4; KV is 320 KB a token, so ~150 GB of cache holds ~250 sequences of "
                 "1,800 tokens. " + answer)
    # (read as a load - live sequences - or as sequences with no check against memory)
    loads = [c for c in led.candidate_claims() if c.kind in ("concurrent_sequences", "fleet_in_flight") and c.value
             and c.value < 200]
    assert loads and all(c.check is None or c.check.status != "wrong" for c in loads), led.summary()


def test_a_batch_cache_worked_out_from_sequences_times_tokens_is_not_the_free_memory():
    led = ledger("At 512 KiB a token, 16 x 4,096 tokens is 32 GiB of cache, which still fits beside the weights.",
                 opening="Llama-2-7B in FP16 on one H100 80GB: size the cache of a static batch.")
    assert 32 * 2**30 not in [c.value for c in led.by_kind("free_kv_bytes")], led.summary()


def test_a_group_of_query_heads_is_not_the_models_head_count():
    led = ledger("With 8 KV heads, each group of four query heads reads one KV head, so the cache is 4x smaller.",
                 opening="Llama-2-7B, 32 heads of dimension 128, switches to grouped-query attention with 8 KV heads.")
    assert not [c for c in led.by_kind("attention_heads") if c.speaker == "candidate"], led.summary()


def test_a_range_with_one_multiplier_is_read_at_both_ends():
    led = ledger("That's 6M scores a second. One L4 does 150-200k a second, so 6M / 150-200k = 30-40 L4s.",
                 opening=OPEN_REC)
    calcs = [c for c in led.by_kind("arithmetic") if "6M" in c.formula]
    assert [c.check.status for c in calcs] == ["ok"], led.summary()


def test_a_bullet_that_opens_on_times_goes_on_from_the_line_before():
    led = ledger("- Per token: 2 x 32 layers x 32 heads x 128 x 2 bytes = 512 KiB.\n- x 4,096 tokens x 4 sequences = 8 GiB.",
                 opening="Llama-2-7B in FP16: size the KV cache of a static batch of 4.")
    assert none_wrong(led, "arithmetic"), led.summary()


def test_the_cache_of_a_smaller_batch_in_brackets_is_not_the_free_memory():
    led = ledger("Weights are 13.5 GB on a 24 GB L4, so I'd drop to batch 4 (~4.3 GB of cache).",
                 opening="Llama-2-7B in FP16: size the KV cache of a static batch of 8.")
    assert not [c for c in led.by_kind("free_kv_bytes") if c.value and c.value < 5e9], led.summary()


def test_positions_that_restart_at_zero_are_no_sequence_limit():
    led = ledger("Left-pad the prompts, and position ids restart at 0 after each row's padding.",
                 opening="Decode four prompts of different lengths in one batch.")
    assert not led.by_kind("max_num_seqs"), led.summary()


def test_a_replay_time_for_a_size_pointed_back_to_is_checked():
    led = ledger("At 50,000 puts a second the log grows ~50 MB a second, so a 30 GB log is ten minutes of writes. "
                 "Replay reads it back at 300 MB/s, so about 10 seconds to rebuild the map.", opening=OPEN_WAL)
    assert status(led, "recovery_time_s") == "wrong", led.summary()


def test_the_total_set_after_working_out_the_generation_is_a_timeout():
    led = ledger("Decode is ~30 ms a token and output is capped at 2,048, so about 61 seconds plus a second of prefill. "
                 "I'd set the total at 80 seconds.",
                 opening="Llama-3-70B on H100s: design the timeout and restart strategy.")
    assert [c.value for c in led.by_kind("timeout_s")] == [80.0], led.summary()


def test_a_share_of_the_fleet_after_a_bare_count_is_checked():
    led = ledger("We drain whole hosts, so 12 hosts x 8 = 96 GPUs out per day; over 5 days that's 480, about 0.5% of "
                 "the fleet.", opening=OPEN_HEALTH)
    shares = [c for c in led.by_kind("fleet_share") if c.check is not None]
    assert [c.check.status for c in shares] == ["wrong"], led.summary()


def test_a_read_time_after_the_speed_and_the_word_read_is_worked_out():
    led = ledger("Load the snapshot, then the tail: 30 GB at ~3 GB/s sequential read is about 100 seconds.",
                 opening=OPEN_WAL)
    assert statuses(led, "arithmetic") == ["wrong"], led.summary()


def test_a_replay_time_after_a_sequential_read_at_a_speed_is_checked():
    led = ledger("For 30 GB, a sequential read at ~3 GB/s is about 1 second, so replay is fast.", opening=OPEN_WAL)
    assert status(led, "recovery_time_s") == "wrong", led.summary()


def test_a_batchs_token_rate_beside_batch_ones_is_no_single_stream_rate():
    led = ledger("At 64 seqs x 1k context a step reads 13.5G of weights + ~32G of KV, so ~14ms a token vs ~4ms at "
                 "batch 1, for ~4.5k tok/s vs ~250.", opening="Llama-2-7B in FP16 on one H100 80GB: why is decode memory-bound?")
    assert all(c.check is None or c.check.status != "impossible" for c in led.by_kind("tokens_per_s")), led.summary()


def test_terse_k_and_m_per_token_or_sequence_are_bytes():
    led = ledger("KV per token: 40 layers x 40 heads x 128 dim x 2 bytes = ~410K. 2k tokens is ~820M per seq. "
                 "80G - 26G - ~4G overhead = 50G free, / 0.82G = ~60 sequences per GPU.",
                 opening="One A100 80GB holding a 13B model in FP16; prompts around 2,000 tokens.")
    assert [c.value for c in led.by_kind("kv_bytes_per_sequence")] == [820e6], led.summary()
    assert 820e6 not in [c.value for c in led.by_kind("free_kv_bytes")], led.summary()
    assert not [c for c in led.by_kind("seq_len") if c.value and c.value > 1e6], led.summary()


def test_prompts_a_check_runs_on_are_no_concurrency():
    led = ledger("Compare logits each step with allclose, plus argmax equality over 200 greedy steps on 50 prompts.",
                 opening="Llama-2-7B shape in FP16 on one L4: show the cached and uncached paths agree.")
    assert not led.by_kind("concurrent_sequences"), led.summary()


def test_bytes_written_as_kibyte_and_gibyte_are_read():
    led = ledger("Per token: 2 x 32 layers x 32 heads x 128 x 2 byte = 512 KiByte, so 8 x 2.048 tokens is 8 GiByte.",
                 opening="Llama-2-7B in FP16: size the KV cache of a static batch of 8 at 2,048 tokens.")
    assert [c.value for c in led.by_kind("kv_bytes_per_token")] == [512 * 1024], led.summary()



def test_what_follows_over_is_the_whole_divisor_when_said_aloud():
    led = ledger("A step reads ~280 GB over 4 x 3.35 TB/s ≈ 21 ms at that batch.")
    assert statuses(led, "arithmetic") == ["ok"], led.summary()


def test_free_memory_and_sequences_between_no_reserve_and_a_tenth_are_right():
    led = ledger("Two H100s with tensor parallelism give 160 GB and leave about 20 GB for KV after the weights, so at "
                 "590 MB a sequence that's about 34 sequences per replica.")
    assert status(led, "free_kv_bytes") == "ok", led.summary()
    assert status(led, "concurrent_sequences") == "ok", led.summary()


def test_a_length_said_as_a_sum_is_the_whole_sum():
    led = ledger("KV per token is 2 x 40 x 40 x 128 x 2 bytes = 819,200 bytes. A full sequence of 2,000 plus 250 tokens "
                 "is about 1.84 GB.", opening=OPEN_13B)
    assert status(led, "kv_bytes_per_sequence") == "ok", led.summary()


def test_sequences_that_need_to_be_in_flight_are_demand_not_what_fits():
    led = ledger("Little's law gives 5 times 9, so about 45 sequences that need to be in flight per GPU, but only 26 fit.",
                 opening=OPEN_13B)
    assert 45.0 not in [c.value for c in led.by_kind("concurrent_sequences")], led.summary()


def test_a_batchs_kv_across_its_sequences_is_not_one_sequences():
    led = ledger("6,000 tokens x 320 KiB is ~2 GB per sequence, ~250 GB across 128 sequences that we'd have to keep current.")
    assert not [c for c in led.by_kind("kv_bytes_per_sequence") if c.value and c.value > 1e11], led.summary()


def test_a_gpu_with_a_few_requests_as_an_example_is_a_load():
    led = ledger("I'd route on free KV, because a GPU with 10 requests at 2K tokens is fuller than one with 20 short ones.",
                 opening=OPEN_13B)
    assert none_wrong(led, "concurrent_sequences"), led.summary()


def test_the_kv_a_step_reads_worked_out_is_not_the_free_memory():
    led = ledger("A decode step with 48 sequences reads 26 GB of weights plus 48 x ~2,000 tokens of context x 800 KiB ≈ 79 GB "
                 "of KV, since each attention reads its whole context.",
                 opening=OPEN_13B)
    assert not led.by_kind("free_kv_bytes"), led.summary()


@pytest.mark.parametrize("answer, verdict", [
    ("Bandwidth-wise, 40,000 writes x 1 KB is 40 GB per second of log, so we need a fast NVMe.", "wrong"),
    ("Bandwidth-wise, 40,000 writes x 1 KB is 40 MB per second of log, trivial for NVMe.", "ok"),
])
def test_a_count_times_a_size_with_its_unit_allows_no_unit_factor(answer, verdict):
    led = ledger(answer, opening=OPEN_WAL)
    assert statuses(led, "arithmetic") == [verdict], led.summary()


def test_a_sum_taken_back_after_a_colon_is_corrected():
    led = ledger("Log: 40,000 x 1.1 KB = 44 GB/s -> hmm, no: 44 MB/s, not GB.", opening=OPEN_WAL)
    assert none_wrong(led, "arithmetic"), led.summary()


def test_a_conversations_kv_said_with_its_length_is_not_the_free_memory():
    led = ledger("KV per token is 320 KiB. A typical conversation of 1,800 tokens, 1,500 in and 300 out, is about 0.59 GB "
                 "of KV.")
    assert not led.by_kind("free_kv_bytes"), led.summary()


def test_the_load_replicas_are_run_at_is_no_claim_of_what_fits():
    led = ledger("Weights ~141 GB over TP4 leaves ~168 GB, ~285 sequences of 1,800 tokens. The trade I accept is running "
                 "replicas at ~50 active sequences instead of the 256 we could fit.")
    assert none_wrong(led, "concurrent_sequences"), led.summary()


def test_a_bare_window_of_milliseconds_sizes_the_group_it_fills():
    led = ledger("An fsync is about 0.5 ms. With a 4 ms window at 50,000/s, each flush carries ~200 writes.", opening=OPEN_WAL)
    assert [c.value for c in led.by_kind("max_wait_ms")] == [4.0], led.summary()
    assert none_wrong(led, "writes_per_fsync"), led.summary()


def test_a_window_of_minutes_is_a_measuring_window_not_a_wait():
    led = ledger("I'd alert when the p99 over a 5-minute window passes 800 ms.")
    assert not led.by_kind("max_wait_ms"), led.summary()


def test_a_tensor_axis_in_code_is_no_count():
    led = ledger("Then the append axis: concatenate along the sequence dim, dim=2 here, not the heads.", opening=OPEN_13B)
    assert not led.by_kind("concurrent_sequences"), led.summary()


@pytest.mark.parametrize("answer", [
    "With GQA the cache is 4x smaller: 160 KiB per token, so batch 8 at 2,048 tokens is 2.5 GiB instead of 10.",
    "KV per token is 800 KiB, so 16 sequences at 2,048 tokens come to about 26 GB.",
])
def test_a_batch_said_as_sequences_at_a_length_is_a_batchs_kv(answer):
    led = ledger(answer, opening=OPEN_13B)
    assert led.by_kind("kv_bytes_batch") and not led.by_kind("kv_bytes_per_sequence"), led.summary()


@pytest.mark.parametrize("answer, verdict", [
    ("Per token: 2 x 40 x 40 x 128 x 2 = 819,200 bytes per token, times 2,048 tokens times 8 is about 13.4 GB.", "ok"),
    ("Per token: 2 x 40 x 40 x 128 x 2 = 819,200 bytes per token, times 2,048 tokens times 8 is about 1.3 GB.", "wrong"),
])
def test_a_batch_carried_on_from_the_per_token_size_is_checked_with_it(answer, verdict):
    led = ledger(answer, opening=OPEN_13B)
    assert statuses(led, "kv_bytes_batch") == [verdict], led.summary()


@pytest.mark.parametrize("answer, verdict", [
    ("A 30 GB log at 1 KB a record is about 30,000 records, so replay is instant.", "wrong"),
    ("A 30 GB log at 1 KB a record is about 29 million records, a few seconds to apply.", "ok"),
])
def test_a_logs_records_are_its_size_over_a_records(answer, verdict):
    led = ledger(answer, opening=OPEN_WAL)
    assert statuses(led, "record_count") == [verdict], led.summary()


@pytest.mark.parametrize("answer, verdict", [
    ("At fifty thousand a second that's a hundred writes per fsync and about five thousand fsyncs a second.", "wrong"),
    ("At fifty thousand a second that's a hundred writes per fsync and about five hundred fsyncs a second.", "ok"),
    # a cap said on the way is no load: the 50,000 said before it is
    ("One fsync per put would cap us at 2,000 to 4,000 puts/s, so with a 2 ms window one fsync covers about 100 writes "
     "and we do 500 fsyncs a second.", "ok"),
])
def test_fsyncs_a_second_are_the_write_rate_over_the_group(answer, verdict):
    led = ledger(answer, opening=OPEN_WAL)
    assert statuses(led, "fsync_rate") == [verdict], led.summary()


def test_a_rate_said_as_the_logs_is_its_growth():
    led = ledger("Bandwidth-wise, 50,000 writes of 1 KB is 5 GB a second of log, so I'd stripe it.", opening=OPEN_WAL)
    assert statuses(led, "write_bandwidth") == ["wrong"], led.summary()


@pytest.mark.parametrize("answer, value", [
    ("The model is 70B, so 140 GB in FP16, which won't fit on one H100.", 140e9),
    ("So I'd quantize to int4, which is 35 GB and fits on a single card.", 35e9),
])
def test_the_weights_said_after_the_parameters_or_the_precision_are_the_weights(answer, value):
    led = ledger(answer)
    assert [c.value for c in led.by_kind("weights_bytes")] == [value], led.summary()


def test_a_sequence_said_in_a_precision_is_no_weights_figure():
    led = ledger("A 2,048-token sequence is 1 GB in FP16.")
    assert not led.by_kind("weights_bytes"), led.summary()


@pytest.mark.parametrize("answer, kind", [
    ("The log grows at 52 MB/s, about 190 TB an hour - 190 GB, sorry, 187 GB.", "other_bytes"),
    ("Little's law gives 8 x 5 = 400 - sorry, that's GPU-days; it's 40 GPUs in the pipeline at any time.", "arithmetic"),
])
def test_a_slip_put_right_at_once_is_not_held_against_the_candidate(answer, kind):
    led = ledger(answer, opening=OPEN_WAL if "log" in answer else OPEN_HEALTH)
    assert none_wrong(led, kind), led.summary()


def test_a_batch_worked_from_the_shape_with_its_sequences_and_tokens_is_a_batchs_kv():
    led = ledger("With GQA: 4 x 4,096 x 32 layers x 2 x 8 heads x 128 x 2 bytes is 2 GiB, a quarter of before.",
                 opening=OPEN_8B)
    assert statuses(led, "kv_bytes_batch") == ["ok"], led.summary()
    assert not led.by_kind("kv_bytes_per_token"), led.summary()


def test_the_load_a_group_is_sized_for_is_not_a_one_at_a_time_rate():
    led = ledger("An fsync is roughly 2 ms at p99, so one at a time is ~500 a second; to do 50,000 writes a second each "
                 "fsync has to cover about a hundred puts.", opening=OPEN_WAL)
    assert none_wrong(led, "write_rate"), led.summary()


def test_memory_named_as_the_runtime_is_not_the_weights():
    led = ledger("80G H100, 13.5G weights, ~6G runtime: ~60G free, ~30 full-context sequences.", opening=OPEN_8B)
    assert [c.value for c in led.by_kind("weights_bytes")] == [13.5e9], led.summary()
    assert 6e9 in [c.value for c in led.by_kind("other_bytes")], led.summary()


def test_a_batch_run_at_a_length_is_a_load_and_its_kv_is_no_free_memory():
    led = ledger("Batch 16 at 2K context: 16 x 1G = 16G of KV plus 13.5G of weights, ~30G a step.", opening=OPEN_8B)
    assert not led.by_kind("concurrent_sequences") and not led.by_kind("free_kv_bytes"), led.summary()


def test_the_kv_of_sequences_at_a_length_is_no_free_memory():
    led = ledger("max_num_seqs 16: the batch-16 point, 16G of KV at 2K, inside the 60G.", opening=OPEN_8B)
    assert 16e9 not in [c.value for c in led.by_kind("free_kv_bytes")], led.summary()


def test_a_batchs_rate_against_batch_ones_is_no_single_stream_rate():
    led = ledger("~2.3K tokens/s against 250 at batch 1: ~9x.", opening=OPEN_8B)
    assert all(c.check is None or c.check.status == "ok" for c in led.by_kind("tokens_per_s")), led.summary()


def test_a_unit_put_right_after_a_dash_corrects_the_figure():
    led = ledger("Weights are 13 billion times 2 bytes, 26 MB - GB, 26 GB, so each A100 has about 54 GB left.",
                 opening=OPEN_13B)
    assert none_wrong(led, "weights_bytes"), led.summary()


@pytest.mark.parametrize("answer", [
    "The bad case is a whole worker dying with 90 sequences on it, because then 90 re-prefills land at once.",
    "A decode step reads 26 GB of weights plus the KV of ~80 sequences, so at 2 TB/s it's about 30 ms.",
])
def test_sequences_a_worker_holds_in_an_example_are_a_load(answer):
    led = ledger(answer, opening=OPEN_13B)
    assert none_wrong(led, "concurrent_sequences"), led.summary()


def test_one_sequences_slot_is_no_free_memory():
    led = ledger("Waiting for GPU 3 to free a 1.84 GB slot could take seconds.", opening=OPEN_13B)
    assert not led.by_kind("free_kv_bytes"), led.summary()


def test_gpus_in_repair_drawn_from_a_turnaround_said_in_the_sentence_before_are_checked():
    led = ledger("Rough number: ~8 sick GPUs a day across 10,000. A vendor repair takes about 5 days round trip. So at "
                 "steady state we have 400 GPUs in the repair pipeline, roughly 4% of the fleet.", opening=OPEN_HEALTH)
    assert [c.check.status for c in led.by_kind("gpu_count") if c.value == 400] == ["wrong"], led.summary()


def test_a_batchs_kv_read_with_its_active_count_is_a_batchs():
    led = ledger("Each card streams ~35 GB of weights per step, plus KV reads at ~150 active × ~2k tokens × 82 KB ≈ 25 GB "
                 "per card.")
    assert none_wrong(led, "kv_bytes_per_sequence"), led.summary()


def test_a_word_and_its_count_names_no_model():
    led = ledger("Cache shape becomes [B, 8, T, 128], 4× smaller → 2 GiB for the batch-8 case.", opening=OPEN_8B)
    assert not led.by_kind("weights_bytes"), led.summary()


def test_a_sum_owned_as_half_of_it_after_wait_is_corrected():
    led = ledger("Per token per layer: 32 heads × 128 × 2 bytes = 8 KiB, × 32 layers × 2,048 × 8 ≈ 4 GiB. Wait — that's K "
                 "only, V doubles it: 8 GiB.", opening=OPEN_8B)
    assert none_wrong(led), led.summary()


def test_flops_over_a_speed_left_unsaid_is_not_a_product():
    led = ledger("max_num_batched_tokens = 2,048, so one chunk ≈ 2 × 6.74B × 2,048 ≈ 46 ms of prefill.", opening=OPEN_8B)
    assert none_wrong(led, "arithmetic"), led.summary()


def test_memory_a_change_wins_back_is_not_the_free_memory():
    led = ledger("With INT4 the weights become about 4 GB, a quarter, and we gain some 12 GB for the KV cache.",
                 opening=OPEN_8B)
    assert not led.by_kind("free_kv_bytes"), led.summary()


def test_a_sequences_kv_said_as_its_tokens_at_the_per_token_size():
    led = ledger("6,000 tokens at 320 KB a token is about 2 GB of KV, which we'd have no way to resume anyway.")
    assert one(led, "kv_bytes_per_sequence").value == pytest.approx(2e9), led.summary()
    assert not led.by_kind("free_kv_bytes"), led.summary()


def test_a_labelled_division_names_its_result_not_its_operand():
    led = ledger("free = 80 - 13.5 - 5 = 61.5 GB → seqs = 61.5 / 2.15 ≈ 28 at full 4k context.",
                 opening="Llama-2-7B in FP16 on one H100 80GB: how many sequences fit?")
    assert [c.value for c in led.by_kind("concurrent_sequences") if c.speaker == "candidate"] == [28], led.summary()
    assert none_wrong(led, "concurrent_sequences"), led.summary()


def test_the_total_after_the_weights_are_added_is_not_the_weights():
    led = ledger("8 GiB of cache. That's Llama-2-7B's shape, so add ~12.6 GiB of weights → ~20.6 GiB: fits a 24 GB L4.",
                 opening="Batch 8, 2,048 tokens, 32 layers and 32 heads of dimension 128 in FP16.")
    assert [c.value for c in led.by_kind("weights_bytes") if c.speaker == "candidate"] == [pytest.approx(12.6 * 2**30)], \
        led.summary()


def test_a_division_said_with_a_slash_is_checked():
    led = ledger("recs = 20 GB / 1.04 KB ≈ 19.2M. Sequential read at ~1.5 GB/s → 20/1.5 ≈ 1.3 s.", opening=OPEN_WAL)
    assert [c.check.status for c in led.by_kind("arithmetic") if c.span == "20/1.5 ≈ 1.3 s"] == ["wrong"], led.summary()


def test_tokens_decoded_at_a_per_token_time_are_the_reply():
    led = ledger("a typical request is 1.8k tokens (1500 in, 300 out), so ~590mb each. 160g / 0.59g ≈ 270 seqs per 4-gpu "
                 "replica. each request lives ~10s (300 tokens at ~30ms/token plus prefill).")
    assert [c.value for c in led.by_kind("output_tokens") if c.speaker == "candidate"] == [300], led.summary()
    assert none_wrong(led, "concurrent_sequences"), led.summary()


def test_a_lower_case_full_stop_ends_a_sentence():
    led = ledger("a reserved pool of 8 empty hosts, 64 gpus, 3.2% of the fleet, only for 8-gpu gangs. a nightly defrag "
                 "pass migrates small replicas off nearly-empty hosts. i'd budget ~5% of the fleet stranded by "
                 "fragmentation.", opening="We run about 2,000 H100s, 250 hosts of eight.")
    assert [c.check.status for c in led.by_kind("fleet_share") if c.check] == ["ok"], led.summary()


def test_free_memory_after_the_weights_and_a_cache_said_as_parts():
    led = ledger("that's exactly llama-2-7b's shape, so on a 40GB a100: ~12.5 GiB weights + 8 GiB cache fits with ~17 GiB "
                 "spare after overhead.", opening="Batch 8, 2,048 tokens, 32 layers and 32 heads of dimension 128 in FP16.")
    assert status(led, "free_kv_bytes") == "ok", led.summary()


def test_a_sequences_kv_after_its_tokens_and_an_arrow_is_not_free_memory():
    led = ledger("One request at full length is 1500 in + 300 out = 1800 tok → ~590MB of KV cache.")
    assert not led.by_kind("free_kv_bytes"), led.summary()
    assert status(led, "kv_bytes_per_sequence") == "ok", led.summary()


def test_a_deadline_worked_out_with_slack_is_a_timeout():
    led = ledger("so max tokens two thousand forty eight, times p99 per token forty ms is like eighty two seconds of "
                 "decode, plus a TTFT allowance of like two seconds, and then twenty five percent slack, so about a "
                 "hundred and five seconds for that request.", opening="Design the timeout and restart strategy.")
    assert [c.value for c in led.by_kind("timeout_s")] == [105], led.summary()


def test_a_share_of_gpu_days_is_checked_as_their_ratio():
    led = ledger("100 × 8 × 5 = 4,000 gpu-days out per month against 300k gpu-days, roughly 13% of the fleet sitting in "
                 "the shop.", opening=OPEN_HEALTH)
    c = one(led, "fleet_share")
    assert c.check.status == "wrong" and c.check.expected == pytest.approx(4000 / 300000), led.summary()


def test_a_puts_whole_time_is_not_an_fsync():
    led = ledger("I'd expect ~100us per put including the fsync.", opening=OPEN_WAL)
    assert not led.by_kind("fsync_latency_ms"), led.summary()


def test_a_product_rewritten_inside_a_sum_is_checked():
    led = ledger("Whole generation: prefill + max_tokens x p99 step = 0.4 s + 2,048 x 45 ms = 0.4 + 9.2 s, so call it 15 s "
                 "with margin.")
    assert [c.check.status for c in led.by_kind("arithmetic")] == ["wrong"], led.summary()


def test_a_dotted_number_restated_with_commas_is_one_number():
    led = ledger("So per token 2 × 32 layers × 32 heads × 128 × 2 bytes = 524.288 bytes — in English notation 524,288 "
                 "bytes, exactly 512 KiB. The weights are about 13,5 GB in FP16.", opening=OPEN_8B)
    assert all(c.value == 524288 for c in led.by_kind("kv_bytes_per_token")), led.summary()
    assert none_wrong(led, "arithmetic"), led.summary()


def test_gpus_worked_out_in_a_table_cell_are_the_fleet():
    led = ledger("| quantity | value |\n|---|---|\n| scores per second | 8,000,000 |\n| L4s at 100% | 8M / 150k = ~54 |",
                 opening=OPEN_REC)
    assert [c.value for c in led.by_kind("gpu_count") if c.speaker == "candidate"] == [54], led.summary()


def test_a_cards_memory_said_with_its_possessive_is_checked():
    led = ledger("The embedding tables are about 30 GB in FP16, and the L4's 48 GB holds that with room to spare.",
                 opening=OPEN_REC)
    assert status(led, "gpu_memory_bytes") == "wrong", led.summary()


def test_the_model_named_again_drops_a_shape_stated_for_a_variant():
    led = build_ledger([
        ("interviewer", "Batch 8, 2,048 tokens, 32 layers and 32 heads of dimension 128 in FP16. How much memory?"),
        ("candidate", "Per token 2 x 32 x 32 x 128 x 2 bytes = 512 KiB; that's Llama-2-7B's shape."),
        ("interviewer", "The model switches to grouped-query attention with 8 KV heads. What changes?"),
        ("candidate", "The cache only stores the 8 KV heads, so it shrinks 4x."),
        ("interviewer", "Now say this served Llama-2-7B on an 80 GB H100. How many 2k sequences fit?"),
        ("candidate", "80 minus 13.5 minus about 6 GB of workspace is about 60 GB; one 2,048-token sequence is 2,048 x "
                      "512 KiB = 1.07e9 bytes, so about 56 sequences.")])
    assert [c.check.status for c in led.by_kind("concurrent_sequences") if c.turn == 5] == ["ok"], led.summary()


def test_a_log_read_at_a_rate_said_first_is_checked():
    led = ledger("Replay reads the log sequentially; at ~1 GB/s sequential read a 20 GB log takes about 2 seconds.",
                 opening=OPEN_WAL)
    assert [c.check.status for c in led.by_kind("arithmetic")] == ["wrong"], led.summary()


def test_memory_held_back_for_activations_is_no_free_memory():
    led = ledger("Free memory is 320 minus 140 weights minus about 20 gigs I hold back for activations and CUDA graphs, "
                 "so 160 gigs for the KV cache.", opening=OPEN_70B)
    assert [c.value for c in led.by_kind("free_kv_bytes")] == [160e9], led.summary()


def test_the_memory_that_holds_the_sequences_is_the_free_memory():
    led = ledger("8,050 tokens times a third of a meg is about 2.6 gigs per sequence, so 160 gigs holds only about 60 "
                 "sequences, not 256.", opening=OPEN_70B)
    assert [c.value for c in led.by_kind("kv_bytes_per_sequence")] == [pytest.approx(2.6e9)], led.summary()
    assert [c.value for c in led.by_kind("free_kv_bytes")] == [160e9], led.summary()


def test_a_sequences_kv_with_its_product_in_brackets():
    led = ledger("Resume would be moving ~2 GB of KV (6,000 x 320 KB) back over PCIe, tens of ms across four cards.",
                 opening=OPEN_70B + " The worker restarts: what does resuming a 6,000-token prompt cost?")
    assert not led.by_kind("free_kv_bytes"), led.summary()
    assert status(led, "kv_bytes_per_sequence") == "ok", led.summary()


def test_a_kilo_said_apart_before_per_token_is_bytes():
    led = ledger("Per layer per token, K and V are 16 K bytes; times 32 layers is 512 K per token.", opening=OPEN_8B)
    assert [c.value for c in led.by_kind("kv_bytes_per_token")] == [512000], led.summary()


def test_the_parallel_degree_picked_is_carried_not_the_one_passed_over():
    led = ledger("I'd pick TP=4 rather than TP=2: TP=2 leaves only ~20 GB for KV after overhead.",
                 "On the replica: 320 GiB minus 131 GiB of weights minus roughly 20 GiB for activations leaves about "
                 "169 GiB.", opening=OPEN_70B)
    assert [c.check.status for c in led.by_kind("free_kv_bytes") if c.turn == 3] == ["ok"], led.summary()


def test_tokens_at_a_time_each_are_checked_as_their_product():
    led = ledger("For the whole generation: our max output is 4,000 tokens at about 30 ms each, which is 12 seconds, plus "
                 "prefill, so I'd set the total deadline at 20 seconds.")
    assert [c.check.status for c in led.by_kind("arithmetic")] == ["wrong"], led.summary()


def test_another_cards_memory_said_after_the_named_gpu_is_that_cards():
    led = ledger("That's exactly the Llama-2-7B shape, so on an 80 GB H100 next to ~13.5 GB of weights you could "
                 "preallocate about 60 of these sequences; on my laptop's 16 GB GPU you'd fit the weights and about two.",
                 opening="Batch 8, 2,048 tokens, 32 layers and 32 heads of dimension 128 in FP16.")
    assert none_wrong(led), led.summary()


def test_what_is_left_after_the_weights_is_no_weights_figure():
    led = ledger("80 minus 14 for weights is 66 GB, divided by 2 GB per 4k sequence is like 33 sequences.",
                 opening="Llama-2-7B in FP16 on one H100 80GB: how many 4k sequences fit?")
    assert [c.value for c in led.by_kind("weights_bytes") if c.speaker == "candidate"] != [66e9], led.summary()
    assert none_wrong(led, "weights_bytes"), led.summary()


def test_a_replay_time_cannot_be_shorter_than_applying_its_records():
    """The log's records worked out, then the rate they are applied at: 20 million at a million a second
    is 20 s at least, so '2 seconds' is wrong; '25 seconds' is not."""
    said = ("20 GB of 1 KB records is about 20 million records. Inserting into a hash map is maybe a million a "
            "second on one thread, so replay is about {} seconds.")
    led = ledger(said.format(2), opening=OPEN_WAL)
    assert status(led, "record_count") == "ok", led.summary()
    assert status(led, "recovery_time_s") == "wrong", led.summary()
    assert none_wrong(ledger(said.format(25), opening=OPEN_WAL)), led.summary()


def test_a_per_token_size_said_as_thats_is_the_kv_per_token():
    led = ledger("Batch 8 x 2,048 tokens x 2 x 32 layers x 32 heads x 128 x 2 bytes is 8 GiB. Per token that's 512 KiB.",
                 opening="How much memory is the cache for batch 8, 2,048 tokens, 32 layers and 32 heads of dimension "
                         "128 in FP16?")
    assert status(led, "kv_bytes_per_token") == "ok", led.summary()


def test_a_figure_for_a_drive_without_a_feature_is_said_not_denied():
    """'A real flush on a drive without PLP is 1-2 ms' states the fsync latency of such a drive."""
    led = ledger("A real flush on a drive without PLP is 1-2 ms, so fsync per put tops out around 500-1,000 puts a "
                 "second.", opening=OPEN_WAL)
    c = one(led, "fsync_latency_ms")
    assert not c.negated and c.value == 1.5, led.summary()


def test_a_slip_put_right_in_the_next_answer_stands_corrected():
    """'80 of 2,000 is ~8%' pushed back on, then 'No, 4%. 80 / 2,000 = 0.04': the figure settled on counts,
    and the slip is reported as corrected, not wrong."""
    opening = "We run 2,000 H100s in 250 hosts of 8 GPUs for 40 teams."
    led = build_ledger([("interviewer", opening),
                        ("candidate", "I'd reserve 10 hosts, 80 GPUs, for gangs, which is ~8% of the fleet."),
                        ("interviewer", "80 out of 2,000 is 8%?"),
                        ("candidate", "No, 4%. 80 / 2,000 = 0.04.")])
    slip = one(led, "fleet_share")
    assert slip.check.status == "unchecked" and slip.check.rule == "corrected", led.summary()
    assert none_wrong(led), led.summary()


def test_a_slip_never_put_right_stays_wrong():
    opening = "We run 2,000 H100s in 250 hosts of 8 GPUs for 40 teams."
    led = build_ledger([("interviewer", opening),
                        ("candidate", "I'd reserve 10 hosts, 80 GPUs, for gangs, which is ~8% of the fleet."),
                        ("interviewer", "And serving?"),
                        ("candidate", "Serving gets its own quota.")])
    assert status(led, "fleet_share") == "wrong", led.summary()


def test_an_example_batch_in_a_failure_story_is_no_capacity_claim():
    led = ledger("A bad worker times out a batch of, say, thirty sequences, and they all retry at once.",
                 opening="Our chat service runs a 70B model on H100s. Design the timeout and restart strategy.")
    assert "concurrent_sequences" not in kinds(led), led.summary()


def test_cards_counted_beside_a_model_one_card_holds_are_copies():
    """'~512 slots -> 20 cards' for a 13B that fits one A100: twenty copies, about 26 slots each."""
    led = ledger("Per card about 26 sequences. Decision: +25% headroom -> ~512 slots -> 20 cards -> 3 hosts.",
                 opening="Eight A100 80GB cards on one host, each holding its own copy of Llama-2-13B in FP16; "
                         "prompts around 2,000 tokens, replies around 250.")
    assert none_wrong(led, "concurrent_sequences"), led.summary()


def test_one_sequences_kv_and_a_steps_kv_read_are_not_free_memory_or_weights():
    led = ledger("- A 2k-tok prompt alone is ~1.6G of KV.\n- Decode step on a full card: ~26G weights + ~45G KV read "
                 "≈ 71G / ~2 TB/s ≈ 35 ms.",
                 opening="Eight A100 80GB cards, each with its own copy of Llama-2-13B in FP16.")
    assert status(led, "kv_bytes_per_sequence") == "ok", led.summary()
    assert "free_kv_bytes" not in kinds(led) and none_wrong(led), led.summary()


def test_one_layers_tensor_for_a_batch_is_no_per_token_size():
    led = ledger("Per layer: K and V, each [8, 32, 2048, 128] fp16.\n- One tensor: 8 x 32 x 2048 x 128 x 2 B = 128 MiB.",
                 opening="Config mirrors Llama-2-7B: 32 layers, 32 heads of dim 128, FP16. How much memory for the "
                         "cache at batch 8 and 2,048 tokens?")
    assert none_wrong(led), led.summary()


def test_a_per_card_overhead_totalled_is_no_card_memory():
    """'~5 GB/card = 20 GB' of overhead in a TP4 table leaves the named H100 80GB the card: the budget
    worked on 320 GB checks right."""
    led = ledger("| item | value |\n|---|---|\n| weights | 70.6B x 2 B = ~141 GB |\n| HBM, 4 cards | 320 GB |\n"
                 "| overhead (activations, CUDA graphs, NCCL buffers) | ~5 GB/card = 20 GB |\n| free for KV | ~159 GB |")
    assert "gpu_memory_bytes" not in {c.kind for c in led.claims if c.value == 20e9}, led.summary()
    assert status(led, "free_kv_bytes") == "ok", led.summary()


def test_a_bullet_labelled_free_is_the_free_memory_and_prefill_tokens_are_prompt_tokens():
    led = ledger("- weights: 13B x 2 B = 26G\n- free: 80 - 26 - ~4 (activations, CUDA context) = ~50 GB",
                 opening=OPEN_13B)
    assert status(led, "free_kv_bytes") == "ok", led.summary()
    led = ledger("That's 24 x ~2,200 = ~53K prefill tokens spread over 7 GPUs, a few seconds of extra load.",
                 opening=OPEN_13B)
    assert "kv_cache_tokens" not in kinds(led), led.summary()


def test_a_sum_owned_as_a_slip_and_redone_in_the_next_answer_stands_corrected():
    led = build_ledger([("interviewer", "Our chat service runs a 70B model on H100s. Design the timeout."),
                        ("candidate", "The longest reply is 4,096 × 40 ms ≈ 16 seconds, so a 25 second cap."),
                        ("interviewer", "Check that multiplication."),
                        ("candidate", "Oh - that's 163,840 ms, so about 164 seconds, not 16. I dropped a zero.")])
    c = one(led, "arithmetic")
    assert c.check.rule == "corrected", led.summary()


def test_a_replica_chosen_over_a_count_said_first_reads_either_way():
    """'all eight GPUs in a box, but actually, no, let me say four: TP=4 gives 320 GB ... roughly 148 GB for
    KV' is the TP4 replica's budget."""
    led = ledger("I was going to say tensor-parallel across all eight GPUs in a box, but actually, no, let me say four: "
                 "TP=4 gives 320 GB of HBM, minus the 140 of weights, minus something like 8 GB a card for "
                 "activations, so 32 in total, and I'm left with roughly 148 GB for KV.")
    assert status(led, "free_kv_bytes") == "ok", led.summary()


def test_one_prompts_kv_not_worth_mirroring_is_no_free_memory():
    led = ledger("- restart: recompute (~0.5 s per 6K prompt, ~2 GB of KV not worth mirroring)")
    assert "free_kv_bytes" not in kinds(led) and none_wrong(led), led.summary()


def test_a_threshold_of_free_kv_in_a_routing_rule_is_no_free_memory_claim():
    led = ledger("Rule: filter to GPUs with at least 1.9 GB of free KV, one full-length sequence.", opening=OPEN_13B)
    assert none_wrong(led), led.summary()


def test_the_batch_over_the_step_time_is_the_batchs_rate_not_one_streams():
    led = ledger("per step: 13.5G weights + 48 x 2k x 0.5MB ≈ 50G kv → ~64G / 3.35 TB/s ≈ 19 ms/tok vs ~4 ms at batch 1. "
                 "throughput ~48/0.019 ≈ 2,500 tok/s vs ~250.",
                 opening="Take a 7B model, Llama-2-7B, in FP16 on an H100 80GB.")
    assert none_wrong(led, "tokens_per_s"), led.summary()


def test_a_share_of_two_counts_is_held_to_the_division():
    """'16 hosts -> 128 GPUs ≈ 8% of the fleet' of 2,000 is 6.4%: a division, not an estimate, so 25% off is wrong;
    '~6%' is right."""
    opening = "We run 2,000 H100s in 250 hosts of 8 GPUs for 40 teams."
    assert status(ledger("I'd reserve 16 hosts, that's 128 GPUs, ≈ 8% of the fleet.", opening=opening),
                  "fleet_share") == "wrong"
    assert status(ledger("I'd reserve 16 hosts, that's 128 GPUs, ~6% of the fleet.", opening=opening),
                  "fleet_share") == "ok"


def test_a_request_named_by_its_max_tokens_is_no_concurrency():
    led = ledger("But that's the ceiling for a max_tokens = 4,096 request. The deadline is computed per request.",
                 opening="Our chat service runs a 70B model on H100s. Design the timeout and restart strategy.")
    assert "concurrent_sequences" not in kinds(led), led.summary()


def test_a_per_gpu_reserve_totalled_in_words_is_no_card_memory():
    """'I reserve ~5 GB per GPU for activations ..., so 20 GB per replica' leaves the named H100 80GB the
    card: ~271 sequences on a TP=4 replica checks right, not impossible on four 20 GB cards."""
    led = ledger("- Weights: 70e9 params x 2 B = 140 GB. That doesn't fit on one 80 GB card, so a replica is TP=4: "
                 "35 GB of weights per GPU, 320 GB of HBM in the replica.\n- Overhead: I reserve ~5 GB per GPU for "
                 "activations, CUDA graphs and NCCL buffers, so 20 GB per replica.\n- Free for KV: 320 - 140 - 20 = "
                 "160 GB.\n- KV per token: 2 x 80 x 8 x 128 x 2 B = 327,680 B.\n- Average sequence is 1,500 + 300 = "
                 "1,800 tokens, so 1,800 x 327,680 = ~590 MB per sequence.\n- 160 GB / 590 MB = ~271 sequences per "
                 "replica.",
                 opening="Serve Llama-3-70B in FP16 on H100 80GB GPUs; prompts 1,500 tokens, replies 300.")
    assert "gpu_memory_bytes" not in {c.kind for c in led.claims if c.value == 20e9}, led.summary()
    assert status(led, "concurrent_sequences") == "ok", led.summary()


def test_a_total_rounded_up_as_the_hard_ceiling_is_a_timeout():
    led = build_ledger([("interviewer", "Llama-3-70B, TP4, max_tokens 4,096. Where do the timeouts come from?"),
                        ("candidate", "Whole generation: 4 096 × 45 ms ≈ 184 s, plus prefill of ~1,2 s, so ~186 s - "
                                      "I'd round to 190 s as the hard ceiling.")])
    assert one(led, "timeout_s").value == 190, led.summary()


OPEN_DRILL = ("You preallocate the cache to max length. How much memory is that for batch 8, 2,048 tokens, 32 layers "
              "and 32 heads of dimension 128 in FP16?")
GQA_Q = "The model switches to grouped-query attention with 8 KV heads for 32 query heads. What changes in your cache?"


def _gqa(answer: str) -> Ledger:
    return build_ledger([("interviewer", OPEN_DRILL), ("candidate", "2 x 32 x 32 x 128 x 2 = 512 KiB a token; x 2,048 "
                                                                     "x 8 = 8 GiB."),
                         ("interviewer", GQA_Q), ("candidate", answer)])


@pytest.mark.parametrize("answer, statuses_", [
    ("The cache drops by 8x, from 8 GiB to 1 GiB for the same batch and length.", ["wrong", "wrong"]),
    ("Memory halves: the batch-8 cache goes from 8 GiB to 4 GiB.", ["wrong", "wrong"]),
    ("The cache shrinks 4x, since only 8 KV heads are stored: 2 GiB instead of 8 GiB for the same batch.", ["ok", "ok"]),
    ("The cache shrinks by 32 / 8 = 4, to 2 GiB for the same batch.", ["ok"]),
    ("the cache is four times smaller. In the attention call I repeat_interleave K and V by 4 for each group.", ["ok"]),
])
def test_the_caches_shrink_under_grouped_query_attention_is_checked(answer, statuses_):
    """Only the KV heads are stored: 8 of 32 makes the cache 4x smaller, whatever words say it."""
    assert statuses(_gqa(answer), "kv_shrink_factor") == statuses_, _gqa(answer).summary()


def test_a_lower_precisions_saving_or_the_attention_calls_repeat_is_no_shrink_claim():
    led = _gqa("8 KV heads stored, and each serves a group of 4 query heads. In production I'd store the cache in "
               "FP8 on top, which halves it again to 1 GiB.")
    assert "kv_shrink_factor" not in kinds(led), led.summary()


@pytest.mark.parametrize("answer, statuses_", [
    ("- 10 000 × 2% = 200 GPUs a month,\n- which is about 20 a day coming into repair,", ["wrong"]),
    ("That's 150 GPUs a month on 10,000, which is about 50 a day.", ["wrong"]),
    ("On 10,000 that's about 100 a month, so about 3 a day.", ["ok"]),
    ("We see 200 failures a year, about 4 a week.", ["ok"]),
    ("About 3 a day, call it 100 a month.", ["ok"]),
])
def test_a_count_per_period_said_again_per_another_is_checked(answer, statuses_):
    """A month is about 30 days: '200 a month, which is about 20 a day' is 3x high (6.6 a day)."""
    led = ledger(answer, opening=OPEN_HEALTH)
    assert statuses(led, "period_rate") == statuses_, led.summary()


def test_sizes_and_shares_per_period_are_no_restated_count():
    led = ledger("The log grows 50 MB a second, so 180 GB a day; that's 2% a month, about 1% a week.", opening=OPEN_WAL)
    assert "period_rate" not in kinds(led), led.summary()


def test_a_size_divided_into_sequences_is_the_free_memory():
    """'... 800 MB per sequence, and 50G / 0.8 is about 62 sequences': the 50G is what is free, not one
    sequence's KV (which read as 30x too big had made the whole budget badly wrong)."""
    led = ledger("So 2,000 tokens × 400 KB = 800 MB per sequence, and 50G / 0.8 is about 62 sequences per GPU.",
                 opening=OPEN_13B)
    assert [c.kind for c in led.claims if c.span == "50G"] == ["free_kv_bytes"], led.summary()


@pytest.mark.parametrize("answer, settled", [
    ("4,096 × 40 ms is 163 seconds - wait, no, that's 16.4 seconds, I slipped a decimal.", "wrong"),
    ("4,096 × 40 ms is 16 seconds - wait, no, that's 164 seconds, I dropped a zero.", "ok"),
])
def test_a_calculation_taken_back_at_once_is_checked_at_the_result_settled_on(answer, settled):
    """The figure put in place of a calculation's result is checked against the same factors: a right
    result 'corrected' into a wrong one is the slip."""
    led = ledger(answer, opening="Llama-3-70B on H100s, max_tokens 4,096. Design the timeout.")
    calcs = led.by_kind("arithmetic")
    assert [c.check.status for c in calcs] == ["unchecked", settled], led.summary()


def test_a_correction_that_changes_the_factors_is_not_held_to_the_old_ones():
    led = ledger("Batch 8 × 2,048 tokens × 32 layers × 32 heads × 128 dims × 2 bytes, that's 4 GiB. Oh wait, that's "
                 "just the keys; values are the same size, so 8 GiB total.", opening=OPEN_DRILL)
    assert none_wrong(led, "arithmetic"), led.summary()


@pytest.mark.parametrize("answer, status_", [
    ("So 5 × 8 = 40 a day out, times 5 days is 200 GPUs in repair.", "ok"),
    ("About 2.6/day * 7 days = ~180 in the shop.", "wrong"),
    ("3 a day x 365 = 1,095 a year.", "ok"),
])
def test_a_count_per_period_times_a_period_is_a_calculation(answer, status_):
    led = ledger(answer, opening=OPEN_HEALTH)
    assert statuses(led, "arithmetic")[-1:] == [status_], led.summary()


def test_the_cache_added_to_the_weights_is_no_free_memory_and_a_length_in_thousands_names_a_sequence():
    """'13.5 GB of weights + 8 GiB of cache is ~22 GB, fits' adds what the batch needs: no free-memory figure (one
    read as free had been checked 3x low); 'two gigs per four K sequence' is one sequence's KV, not what is left."""
    led = ledger("On an A100 40GB: 13.5 GB of weights + 8 GiB of cache is ~22 GB, fits.", opening=OPEN_DRILL)
    assert "free_kv_bytes" not in kinds(led), led.summary()
    led = ledger("Roughly sixty left, at two gigs per four K sequence that's about thirty.",
                 opening="Llama-2-7B on an H100 80GB: how many 4K sequences fit?")
    assert [c.kind for c in led.claims if c.span == "two gigs"] == ["kv_bytes_per_sequence"], led.summary()


def test_a_card_named_with_its_memory_in_gigs_is_that_card():
    """'eight A100 80 gig' is the 80 GB A100, not the 40 GB one the bare name stands for."""
    led = build_ledger([("interviewer", "One host, eight A100 80 gig, each with its own copy of a 13B model in FP16."),
                        ("candidate", "Free HBM: 80 − 26 − ~6 ≈ 48 GB; at 1.84 GB a sequence that's ~26 slots.")])
    assert {c.subject.gpu for c in led.claims if c.speaker == "candidate"} == {"a100-80gb"}, led.summary()


def test_inline_latex_reads_as_its_symbols_and_dollars_stay_money():
    """'$2 \\times 80 \\times 8 \\times 128 \\times 2$ B \\approx 320 KiB' is the product it writes; a '$...$' pair
    around a sum is math ('$175 + 65 + 10 = 250$'), while '$3 an hour ... $4,320 a day' is money, no rate restated."""
    led = ledger(r"KV per token: $2 \times 80 \times 8 \times 128 \times 2$ B $\approx$ 320 KiB.")
    assert status(led, "kv_bytes_per_token") == "ok", led.summary()
    led = ledger("So $175 + 65 + 10 = 250$ hosts, $1400 + 520 + 80 = 2000$ GPUs.", opening=OPEN_HEALTH)
    assert none_wrong(led) and [c.value for c in led.by_kind("host_count")] == [250], led.summary()
    led = ledger("60 GPUs idle. At $3 an hour that's $4,320 a day sitting idle.", opening=OPEN_HEALTH)
    assert "period_rate" not in kinds(led), led.summary()


def test_a_sequence_of_a_context_length_is_no_free_memory_and_a_gqa_variant_is_no_wrong_shape():
    led = ledger("Llama-2-7B: 2 x 32 x 32 x 128 x 2 B = 524,288 B per token. A 4k-context sequence is 2 GiB of KV.",
                 opening="Llama-2-7B on an H100 80GB.")
    assert "free_kv_bytes" not in kinds(led), led.summary()
    led = build_ledger([("interviewer", OPEN_DRILL), ("candidate", "Switching to grouped-query attention with 8 KV heads "
                                                                   "would cut the cache 4x.")])
    assert none_wrong(led), led.summary()


def test_a_fleets_load_shared_out_in_latex_is_a_load_not_what_fits():
    """'each replica sits at $2500 / 28 \\approx$ 90 live sequences, well under the 270 ceiling' is the load the
    fleet puts on a replica (found in its sentence although LaTeX was read there), not a claim that 90 fit."""
    led = ledger(r"Weights $70 \times 10^9 \times 2$ B = 140 GB; a TP=4 replica. KV per token is "
                 r"$2 \times 80 \times 8 \times 128 \times 2$ B = 327,680 B. I land around 28 TP=4 replicas, so each "
                 r"replica sits at $2500 / 28 \approx$ 90 live sequences, well under the 270 ceiling.")
    assert "wrong" not in statuses(led, "concurrent_sequences"), led.summary()


def test_sizing_written_as_code_reads_its_comments():
    """Candidates who size in Python put the value in a comment: 'kv_per_tok = 2 * 32 * 32 * 128 * 2  # 524,288 B'
    is a calculation and the KV per token, 'total = kv_per_tok * 2048 * 8  # ... = 8 GiB' the batch's cache,
    'kv_6k = kv_per_tok * 6000  # ~1.97 GB' a 6,000-token sequence, 'in_flight = 40 * t_in_sys  # ~380
    sequences' what the host has in flight, not what one GPU holds."""
    led = ledger("```python\nkv_per_tok = 2 * 32 * 32 * 128 * 2     # 524,288 B  (K and V)\n"
                 "total      = kv_per_tok * 2048 * 8     # 8,589,934,592 B = 8 GiB\n```", opening=OPEN_DRILL)
    assert statuses(led, "arithmetic") == ["ok"] and status(led, "kv_bytes_per_token") == "ok", led.summary()
    assert "kv_bytes_batch" in kinds(led), led.summary()
    led = ledger("```python\nkv_per_tok = 2 * 80 * 8 * 128 * 2     # 327,680 B for a Llama-3-70B shape\n"
                 "kv_6k      = kv_per_tok * 6000        # ~1.97 GB per sequence\n```",
                 opening="Llama-3-70B on H100s, max_tokens 4,096. What does recomputing a 6,000-token prompt cost?")
    assert status(led, "kv_bytes_per_sequence") == "ok", led.summary()
    led = ledger("```python\nt_in_sys   = 0.3 + 250 * tpot # ~9.5 s\nin_flight  = 40 * t_in_sys    # ~380 sequences "
                 "host-wide\n```", opening=OPEN_13B)
    assert "concurrent_sequences" not in kinds(led), led.summary()


def test_a_sizing_tables_rows_keep_their_quantities():
    """'| tokens per sequence | 8,050 |' is a length, '| sequences per replica | ~194 | 477.6 / 2.46 |' counts
    sequences only in its value column (477.6 is the free memory divided), '| in flight at peak, fleet-wide |
    ~2,500 |' is the fleet's load, not what one replica holds."""
    led = ledger("| quantity | value | how |\n|---|---|---|\n| tokens per sequence | 8,050 | 8,000 + 50 |\n"
                 "| KV per sequence | ~2.46 GiB | 8,050 x 320 KiB |\n| sequences per replica | ~194 | 477.6 / 2.46 |\n"
                 "| in flight at peak, fleet-wide | ~2,500 | 200 req/s x ~12.5 s |",
                 opening="Llama-3-70B on H100s, prompts 8,000 tokens, replies 50.")
    assert [c.value for c in led.by_kind("concurrent_sequences")] == [194], led.summary()
    assert 8050 in [c.value for c in led.by_kind("seq_len")] and led.by_kind("fleet_in_flight"), led.summary()


@pytest.mark.parametrize("answer, total, status_", [
    ("4 GiB.", 4 * 2**30, "wrong"),
    ("2,048 x 32 x 32 x 128 x 2 bytes = 536,870,912 bytes, so 512 MB. Fine on a server.", 512e6, "wrong"),
    ("About 8 GiB.", 8 * 2**30, "ok"),
])
def test_the_answer_to_how_much_a_batchs_cache_takes_is_that_batchs_kv_checked_against_the_shape(answer, total, status_):
    """'How much memory for batch 8, 2,048 tokens, 32 layers, 32 heads of 128?' - '4 GiB.': the batch's KV, checked
    against the shape the question gave (2 x 32 x 32 x 128 x 2 bytes x 2,048 x 8 = 8 GiB), so a product that left
    the K-and-V factor out (or the batch) is caught even when its arithmetic is right."""
    led = build_ledger([("interviewer", "You preallocate the cache to max length: batch 8, 2,048 tokens, 32 layers, "
                                        "32 heads of 128, FP16. How much?"), ("candidate", answer)])
    got = led.by_kind("kv_bytes_batch")
    assert [c.value for c in got] == [total] and [c.check.status for c in got] == [status_], led.summary()


def test_a_throughput_an_hour_a_step_a_payload_and_a_reserve_across_cards_keep_their_quantities():
    """'864k tokens an hour' is a throughput, 'a 32k-token step' a step's size, 'a few kilobytes of token IDs' a
    request's payload: none is what the cache holds or one sequence's KV; 'I hold back about 20 GB across the four
    for activations' is a reserve, not the usable memory."""
    led = ledger("At ~$2.50 an hour that's 864k tokens an hour, about three bucks per million tokens.", opening=OPEN_8B)
    assert "kv_cache_tokens" not in kinds(led), led.summary()
    led = ledger("Why 8,192 and not 32k: a 32k-token step on TP4 is a few hundred ms of compute.")
    assert [c.kind for c in led.claims if c.span == "32k-token"] == ["token_budget"], led.summary()
    led = ledger("PCIe traffic for 2,000-token prompts is a few kilobytes of token IDs.", opening=OPEN_13B)
    assert "kv_bytes_per_sequence" not in kinds(led), led.summary()
    led = ledger("Weights: 70B params x 2 bytes = 140 GB, so 180 left. I hold back about 20 GB across the four for "
                 "activations, CUDA graphs and the allocator's slack, which leaves ~160 GB for KV.")
    assert [c.kind for c in led.claims if c.span == "20 GB"] == ["other_bytes"], led.summary()


def test_a_size_said_as_a_few_megabytes_is_checked():
    """'The KV for 6,000 tokens is only a few megabytes' (about 2 GB for Llama-3-70B): a figure in words, checked."""
    led = ledger("The KV for 6,000 tokens is only a few megabytes, so writing it to Redis is nothing.",
                 opening="Our chat service runs Llama-3-70B on H100s. Design the timeout and restart strategy.")
    assert status(led, "kv_bytes_per_sequence") == "wrong", led.summary()


def test_a_card_named_before_an_action_given_up_carries_on():
    """'On the A100 40GB we test on, ...; people page the cache instead of preallocating': 'instead of' an action
    compares no hardware, so the card carries to the figures after it."""
    led = build_ledger([("interviewer", OPEN_DRILL),
                        ("candidate", "On the A100 40GB we test on, that's a fifth of the card before weights; this is "
                                      "why people page the cache instead of preallocating to max length."),
                        ("interviewer", "And per token?"),
                        ("candidate", "2 x 32 x 32 x 128 x 2 = 524,288 bytes per token.")])
    assert {c.subject.gpu for c in led.claims if c.turn == 3} == {"a100-40gb"}, led.summary()


def test_a_count_answered_in_words_and_a_step_that_reads_the_cache_keep_their_quantities():
    """'So how many 2,000-token sequences on one card?' - 'Twenty-six.' is that count; 'you also read up to 8 GiB of
    KV' is what a step reads, not the memory free; '8 sequences cost close to one' is a batch's cost, not what fits."""
    led = build_ledger([("interviewer", OPEN_13B + " So how many 2,000-token sequences on one card?"),
                        ("candidate", "Twenty-six.")])
    assert [c.value for c in led.by_kind("concurrent_sequences")] == [26], led.summary()
    led = ledger("At batch 8 with full caches you also read up to 8 GiB of KV, so the worst step is ~36 ms.",
                 opening=OPEN_DRILL)
    assert "free_kv_bytes" not in kinds(led), led.summary()
    led = ledger("Decode is memory-bound; one step reads all weights whether batch is 1 or 8, so 8 sequences cost close "
                 "to one.", opening=OPEN_DRILL)
    assert "concurrent_sequences" not in kinds(led), led.summary()


def test_each_step_of_a_chained_calculation_is_checked():
    """'10,000 x 0.1% per day, yes about 100 a day, times 5 days is 500': the first step is 10x high (10 a day), though
    the second multiplies the wrong figure right."""
    led = ledger("The arithmetic: 10,000 x 0.1% per day, yes about 100 a day, times 5 days is 500.", opening=OPEN_HEALTH)
    assert statuses(led, "arithmetic") == ["wrong", "ok"], led.summary()


def test_footnotes_asides_and_parentheses_keep_their_quantities():
    """'Short version: about two dozen [2].' answers how many fit; '[1] TP=4 also fits (320 GB), but ... I'd take eight'
    is an option set aside (the replica stays TP8); 'Use the 64 query heads by mistake and you get 2.5 MiB a token' is
    a slip described, not made; 'I'd cap the batch at 6 (6 GiB of cache)' is that batch's cache, not the memory free;
    'repeat K and V across the four query heads in each group' is a group, not the model's heads; 'costs ~5-6% of fleet
    goodput' is a cost, not a share of the fleet's GPUs."""
    led = build_ledger([("interviewer", OPEN_13B + " How many 2,000-token sequences can that card hold at once?"),
                        ("candidate", "Short version: about two dozen [2].")])
    assert [c.value for c in led.by_kind("concurrent_sequences")] == [24], led.summary()
    led = ledger("One replica = one eight-GPU host, tensor-parallel eight ways [1].\n\n[1] TP=4 also fits (320 GB), but "
                 "only ~160 GB is left for KV; I'd take eight. Free memory: 640 GB minus 140 GB leaves ~460 GB.")
    assert status(led, "free_kv_bytes") == "ok", led.summary()
    led = ledger("Use the 64 query heads by mistake and you get 2.5 MiB a token.")
    assert all(c.hypothetical for c in led.by_kind("kv_bytes_per_token")), led.summary()
    led = ledger("On a 24 GB L4 next to 13.5 GB of weights that's too tight, so I'd cap the batch at 6 (6 GiB of cache).",
                 opening=OPEN_DRILL)
    assert "free_kv_bytes" not in kinds(led), led.summary()
    led = ledger("In attention, repeat K and V across the four query heads in each group.", opening=OPEN_DRILL)
    assert "attention_heads" not in kinds(led), led.summary()
    led = ledger("Those ~240 GPUs run at preemptible value, which costs ~5-6% of fleet goodput.",
                 opening="We run 2,000 GPUs on 250 eight-GPU hosts. Design the scheduler.")
    assert "fleet_share" not in kinds(led), led.summary()


@pytest.mark.parametrize("answer, status_", [
    ("For a 6,000-token prompt, 70B x 2 FLOPs x 6,000 tokens is 8.4e14 FLOPs; on a TP4 replica at maybe 400 TFLOPS "
     "effective per card that's about 5 seconds.", "wrong"),
    ("For a 6,000-token prompt, 70B x 2 FLOPs x 6,000 tokens is 8.4e14 FLOPs; on a TP4 replica at maybe 400 TFLOPS "
     "effective per card that's about half a second.", "ok"),
])
def test_a_prefill_time_worked_from_the_candidates_own_work_and_rate_is_checked(answer, status_):
    """8.4e14 FLOP over four cards at 400 TFLOPS each is about 0.5 s, not 5 s: the candidate's own figures, divided."""
    led = ledger(answer, opening="Llama-3-70B on H100s with TP4. Where do your timeouts come from?")
    assert [c.check.status for c in led.by_kind("prefill_time_ms")] == [status_], led.summary()


def test_a_replay_time_said_after_reading_at_a_speed_is_checked():
    """'For 20 GB, reading at ~500 MB/s is about 4 seconds': 20 GB at 500 MB/s takes about 40 s."""
    led = ledger("For 20 GB, reading at ~500 MB/s is about 4 seconds, so restart is quick.",
                 opening=OPEN_WAL + " Walk me through a restart with a 20 GB log.")
    assert status(led, "recovery_time_s") == "wrong", led.summary()


def test_a_per_token_size_said_as_a_few_kilobytes_is_checked():
    """'Per token it's small, a few KB' for Llama-2-7B (512 KiB a token): a figure in words, 170x low."""
    led = ledger("Keys and values for the tokens so far. Per token it's small, a few KB.",
                 opening="What is in the KV cache for Llama-2-7B on an H100, and how big is it?")
    assert status(led, "kv_bytes_per_token") == "wrong", led.summary()


def test_units_in_square_brackets_and_outline_labels_are_read():
    """'8,050 x 320 [KiB] ~ 2.6 [GB]' is 2.6 GB of KV for 8,050 tokens; the step labels of an outline ('1b.', '2b.')
    are no 1B or 2B model, so the 70B named before them stays the subject."""
    led = ledger("1a. Weights [bytes] = 70e9 x 2 [B/param] = 140 [GB]. A replica is TP=4: 4 x 80 = 320 [GB] of HBM.\n"
                 "1b. Free for KV [GB] ~ 320 - 140 - 20 = 160.\n"
                 "2b. Per sequence [tokens] = 8,000 + 50 = 8,050, so 8,050 x 320 [KiB] ~ 2.6 [GB].")
    assert not any(c.kind == "params" and c.value < 10e9 for c in led.claims), led.summary()
    assert {c.subject.model for c in led.claims if c.speaker == "candidate"} == {"llama-3-70b"}, led.summary()
    assert status(led, "kv_bytes_per_sequence") == "ok", led.summary()


def test_a_length_that_opens_the_next_case_is_not_the_figures_own():
    led = ledger("Llama-2-7B on one H100 80GB: 2 x 32 layers x 32 heads x 128 x 2 bytes = 524,288 bytes per token. "
                 "80 GB minus 13.5 GB of weights minus ~6 GB leaves ~60 GB, about 114k tokens. At 4,096-token "
                 "sequences that's ~28 sequences, and at 2k it's ~56.",
                 opening="A 7B model in FP16 on an H100.")
    seqs = [c for c in led.candidate_claims() if c.kind == "concurrent_sequences" and c.value == 28]
    assert seqs and seqs[0].check is not None and seqs[0].check.status == "ok", seqs[0].check


def test_the_old_system_told_as_ours_does_not_reshape_the_model_asked_about():
    led = ledger("Ah, no, ours was GQA with 8 KV heads. For 32: 2 x 32 x 128 x 2 bytes = 16 KiB per layer; times 32 "
                 "layers = 512 KiB per token.",
                 opening="Batch 8, 2,048 tokens, 32 layers and 32 heads of dimension 128 in FP16: how much KV cache?")
    kv = one(led, "kv_bytes_per_token")
    assert kv.value == 524288 and kv.check is not None and kv.check.status == "ok", kv.check


@pytest.mark.parametrize("said, status", [
    ("Whole-generation ceiling = prefill + max_tokens x per-token time = ~1 s + 4,096 x 30 ms = ~12 s.", "wrong"),
    ("Whole-generation ceiling = ~1 s + 4,096 x 30 ms = ~124 s.", "ok"),
])
def test_a_time_plus_a_product_of_times_is_checked_whole(said, status):
    calc = [c for c in ledger(said).candidate_claims() if c.kind == "arithmetic"]
    assert calc and calc[0].check is not None and calc[0].check.status == status, calc


@pytest.mark.parametrize("said, status", [
    ("Replay: 20 GB at ~500 MB/s of disk read is about 4 seconds, then we're serving.", "wrong"),
    ("Replay: 20 GB at ~500 MB/s of disk read is about 40 seconds, then we're serving.", "ok"),
])
def test_a_replay_time_at_a_disk_read_rate_is_checked(said, status):
    led = ledger(said, opening="Design an in-memory key-value store with a write-ahead log.")
    calc = [c for c in led.candidate_claims() if c.kind == "arithmetic"]
    assert calc and calc[0].check is not None and calc[0].check.status == status, calc


def test_a_rate_restated_in_words_is_checked():
    led = ledger("About 2% of GPUs a month have a problem: 10,000 x 2% is 200 per month, that is around twenty per day.",
                 opening="We operate around 10,000 GPUs. Design the repair pipeline.")
    c = one(led, "period_rate")
    assert c.value == 20 and c.check is not None and c.check.status == "wrong", c.check


def test_gpus_in_repair_drawn_from_the_sentence_before_are_checked():
    led = ledger("About 0.1% of GPUs a day show a real fault: 10,000 x 0.001 = 10 a day. Turnaround including the "
                 "vendor RMA is ~5 days. Therefore: roughly five hundred GPUs sit in the repair pipeline at any moment.",
                 opening="We operate around 10,000 GPUs. Design the repair pipeline.")
    c = [c for c in led.candidate_claims() if c.kind == "gpu_count" and c.value == 500][0]
    assert c.check is not None and c.check.status == "wrong" and c.check.expected == 50, c.check


@pytest.mark.parametrize("text, read", [
    ("Peak: 20 000 × 400 = 8 000 000 scores", "Peak: 20,000 × 400 = 8,000,000 scores"),
    ("p99 150 ms, batch 8 and 2 048 tokens", "p99 150 ms, batch 8 and 2,048 tokens"),
    ("we have 1,500 here and 2 048 there", "we have 1,500 here and 2 048 there"),  # commas are its thousands
])
def test_thousands_grouped_by_spaces_read_as_one_number(text, read):
    from interviewer.claims.numbers import spaced_thousands
    assert spaced_thousands(text) == read


def test_a_unit_named_by_a_table_header_or_label_is_the_figures_unit():
    led = ledger("| model | weights (GB) | KV per token (KiB) |\n|---|---|---|\n| Llama-2-7B | 13.5 | 512 |",
                 opening="A 7B model in FP16 on an H100.")
    w, kv = one(led, "weights_bytes"), one(led, "kv_bytes_per_token")
    assert (w.value, w.span, w.check.status) == (13.5e9, "13.5", "ok")
    assert (kv.value, kv.span, kv.check.status) == (524288, "512", "ok")


def test_a_label_naming_factors_reads_each_factor():
    led = ledger("| factor | value |\n|---|---|\n| K and V | 2 |\n| layers | 32 |\n| heads x head dim | 32 x 128 = 4,096 |",
                 opening="Llama-2-7B shape: 32 layers, 32 heads of dim 128, FP16. How much KV cache?")
    hd = one(led, "head_dim")
    assert hd.value == 128 and hd.check.status == "ok", hd.check


def test_gpus_worth_of_work_is_no_replica_and_tokens_at_a_step_are_a_reply():
    led = ledger("Prefill alone is ~11 GPUs' worth, and decode wants ~350 in flight (40 rps x ~9 s, 250 tokens at ~35 ms "
                 "a step).", opening="One host, eight A100 80GB GPUs, each with its own copy of a 13B model in FP16.")
    assert all(c.subject.gpus_in_sentence != 11 for c in led.candidate_claims())
    assert one(led, "output_tokens").value == 250
    assert not [c for c in led.candidate_claims() if c.kind == "seq_len" and c.value == 250]


def test_a_product_carried_on_from_one_layers_share_is_no_sequences_kv():
    led = ledger("Per token per layer: K and V, each 32 heads x 128 = 4,096 elements, so 8,192 elements, 16 KiB at two "
                 "bytes. Times 2,048 tokens, 32 MiB. Times batch 8, 256 MiB. That's it? Hmm, no, that's one layer. Times "
                 "32 layers: 8 GiB.",
                 opening="You preallocate the cache: batch 8, 2,048 tokens, 32 layers, 32 heads of dim 128, FP16. How much?")
    assert not [c for c in led.candidate_claims() if c.kind == "kv_bytes_per_sequence" and c.value == 32 * 2**20]


def test_bytes_over_a_bare_bytes_figure_is_no_sequence_length():
    led = ledger("Weights 8B x 2 = 16G. KV per token, 2 x 32 layers x 8 kv heads x 128 x 2 bytes = 128K byte. Free after "
                 "weights and overhead is ~60G. A sequence is 2,250 tokens x 128K = ~290M. 60G / 290M is about two hundred "
                 "sequences per card.", opening="One host, eight A100 80GB GPUs, each with its own copy of Llama-3-8B in "
                 "FP16. Prompts around 2,000 tokens, replies around 250.")
    assert not [c for c in led.candidate_claims() if c.kind == "seq_len" and c.value > 1e5]
    assert status(led, "concurrent_sequences") == "ok"


@pytest.mark.parametrize("said", ["max_tokens 2,048 x ~35 ms p99 per token is about 40 seconds",
                                  "2,048 x ~35 ms per token is about 40 seconds"])
def test_a_product_whose_last_factor_is_per_token_is_checked(said):
    led = ledger(f"Whole generation: {said}, times 1.5 for margin, so a 60-second ceiling.",
                 opening="Llama-3-70B on four H100s. What timeout for the whole generation?")
    calc = one(led, "arithmetic")
    assert calc.check.status == "wrong" and calc.value == 40_000, calc.check


def test_a_calculation_redone_in_full_after_a_slip_is_not_read_as_the_result():
    led = ledger("So the whole-generation ceiling is 4,096 x 50 ms, that's 20 seconds. Hmm, no: 4,096 x 0.05 is 204.8 s, "
                 "about three and a half minutes.", opening="Llama-3-70B on four H100s. What timeout for the whole generation?")
    assert [c.check.status for c in led.by_kind("arithmetic")] == ["unchecked", "ok"]


def test_a_count_judged_on_the_free_memory_said_not_a_kinder_reading():
    led = ledger("Weights in FP8 are about 70 GB, so 80 minus 70 leaves about 10 gigs. KV per token for Llama-3-70B: 2 x 80 "
                 "layers x 8 KV heads x 128 head dim x 2 bytes, which is 327,680 bytes, ~320K. 10 GB divided by 320K is "
                 "about 30 thousand, so roughly 30 concurrent sequences per GPU.",
                 opening="Llama-3-70B on H100 80GB GPUs, FP8 weights, one model per GPU. Prompts around 1,500 tokens, "
                 "replies around 300.")
    seqs = one(led, "concurrent_sequences")
    assert seqs.check.status == "wrong" and "10 GB" in seqs.check.explanation, seqs.check


def test_a_bare_count_in_the_repair_pipeline_is_checked_against_rate_and_turnaround():
    led = ledger("rough: ~0.1% of GPUs/day hit something actionable => 10k x 0.001 = ~10/day. vendor RMA turnaround ~7 days "
                 "=> ~700 in the pipeline at once, so keep ~7% spares.", opening=OPEN_HEALTH)
    c = [c for c in led.candidate_claims() if c.kind == "gpu_count" and c.value == 700][0]
    assert c.check.status == "wrong" and c.check.expected == 70, c.check


def test_whole_hosts_pulled_turned_into_too_few_gpus_of_capacity_is_wrong():
    led = ledger("We pull the whole host when one GPU is bad, since you can't safely hand out the other seven. That's 15 "
                 "hosts, so about 12 GPUs of capacity out, ~0.12% of the fleet.",
                 opening="We operate around 10,000 GPUs across a few data centres. Design the repair pipeline.")
    c = [c for c in led.candidate_claims() if c.kind == "gpu_count" and c.value == 12][0]
    assert c.check.status == "wrong" and c.check.expected == 120, c.check


def test_a_per_host_share_times_hosts_is_not_the_hosts_gpus():
    led = ledger("Cost: a draining host averages ~4 idle GPUs; with ~10 hosts draining at any time that's ~40 GPUs idle.",
                 opening="We run about 2,000 H100s, 250 hosts with eight GPUs each. Design the scheduler.")
    c = [c for c in led.candidate_claims() if c.kind == "gpu_count" and c.value == 40][0]
    assert c.check is None or c.check.status != "wrong", c.check


@pytest.mark.parametrize("said,status", [("50 MB/s, which on the wire is 50 Gb/s", "wrong"),
                                         ("50 MB/s, which is 400 Mb/s on the wire", "ok"),
                                         ("50 MB/s (about 0.4 Gbps)", "ok")])
def test_a_rate_said_again_in_bits_is_the_same_rate(said, status):
    led = ledger(f"On throughput: 50,000 x 1 KB = {said}.", opening=OPEN_WAL)
    calc = [c for c in led.by_kind("arithmetic") if c.formula == ["50 MB/s"]]
    assert calc and calc[0].check.status == status, led.summary()


def test_a_capital_prefix_on_a_small_b_is_bits():
    from interviewer.claims.numbers import find_mentions
    from interviewer.claims.vocab import load
    assert [m.value for m in find_mentions("400 Gb/s InfiniBand, 3.35 TB/s of HBM, 3 Gbps off NVMe", load())] == \
        [50e9, 3.35e12, 375e6]


def test_per_token_per_sequence_is_a_tokens_kv():
    led = ledger("Right, K and V are both cached, so x2: 8,589,934,592 bytes, which is 8 GiB. Per token per sequence that's "
                 "512 KiB.", opening="You preallocate to max length: batch 8, 2,048 tokens, 32 layers, 32 heads of dim 128, FP16.")
    assert one(led, "kv_bytes_per_token").value == 512 * 1024
    assert not led.by_kind("kv_bytes_per_sequence")


def test_a_papers_setup_quoted_does_not_replace_the_model_asked_about():
    led = ledger("The vLLM paper [1] gives this: a 2,048-token request on a 13B model takes about 1.6 GB of KV cache. This "
                 "model is in the same class, so ~1.6 GB per sequence, times 8 is ~13 GB.",
                 opening="You preallocate the cache to max length. How much memory is that for batch 8, 2,048 tokens, 32 "
                 "layers and 32 heads of dimension 128 in FP16?")
    seq = [c for c in led.candidate_claims() if c.kind == "kv_bytes_per_sequence" and c.span == "~1.6 GB"][-1]
    assert seq.check.status == "wrong" and "as described" in seq.check.explanation, seq.check


def test_a_gpu_named_as_a_figures_source_leaves_the_card_asked_about():
    led = ledger("Llama-2-7B is 6.7B parameters, so ~13.5 GB read per token. With 2 TB/s of bandwidth that's 6.7 ms per token.",
                 "Right - I pulled it from the vLLM paper's A100 setup [1]. Redo: 13.5 GB / 3.35 TB/s = ~4 ms per token.",
                 "Applied to a number: 80 GB - 13.5 GB weights - ~4 GB activations and workspace = ~62 GB for KV.",
                 opening="Take a 7B model in FP16 generating one token at a time on an H100.")
    free = one(led, "free_kv_bytes")
    assert free.subject.gpu == "h100-80gb" and free.check.status == "ok", free.check


def test_a_position_starting_at_zero_is_no_cap():
    led = ledger("Left-pad the prompts, and keep a per-sequence position offset so rotary positions start at 0 at each "
                 "prompt's first real token.", opening="Now decode four prompts of different lengths in one batch.")
    assert not led.by_kind("max_num_seqs")


def test_a_share_of_the_hosts_is_checked_against_the_hosts():
    led = ledger("For spikes I'd keep 10 percent of the hosts free for serving at all times, which is 20 hosts, 160 GPUs.",
                 opening="We run a shared fleet of about 2,000 H100s, 250 hosts of eight, used by roughly 40 teams.")
    hosts = [c for c in led.candidate_claims() if c.kind == "host_count" and c.value == 20][0]
    assert hosts.check.status == "wrong" and hosts.check.expected == 25, hosts.check


@pytest.mark.parametrize("said", ["about thirty 4K sequences", "~30 of those 4K sequences"])
def test_a_count_of_sequences_of_a_length_in_thousands_counts_the_sequences(said):
    led = ledger(f"On the 80 gig card: weights are ~13.5 GB, leave ~4 GB for activations, ~62 GB for KV - {said}.",
                 opening="Take a 7B model in FP16 on an H100. Llama-2-7B shape.")
    seqs = one(led, "concurrent_sequences")
    assert seqs.value == 30 and seqs.check.status == "ok", seqs.check


def test_a_cap_said_with_a_filler_is_still_a_cap():
    led = ledger("And I'd cap the batch at, I guess, 64 sequences.", opening="Take a 7B model in FP16 on an H100.")
    assert one(led, "max_num_seqs").value == 64


def test_a_sequences_kv_takes_its_length_from_the_product_said_before_a_bracket():
    led = ledger("A 6,000-token prompt plus 4,096 generated tokens. Process death takes the GPU-resident KV with it. That KV "
                 "is 6,000 x 327,680 B (2 x 80 layers x 8 KV heads x 128 x 2 B per token), ≈ 1.97 GB per sequence.",
                 opening="Llama-3-70B on H100s, TP=4. A worker restarts: resume or recompute a 6,000-token prompt?")
    assert one(led, "kv_bytes_per_sequence").check.status == "ok"


def test_a_few_cards_memory_as_the_minuend_is_those_cards():
    led = ledger("So what is a replica? Four H100s with tensor parallelism, 320 GB of HBM. Why not two? 160 GB minus 140 "
                 "leaves ~20 GB, and activations and CUDA graphs eat most of that.")
    assert status(led, "gpu_memory_bytes") == "ok"
    assert status(led, "free_kv_bytes") == "ok"


def test_a_per_replica_share_said_again_is_not_the_fleet_in_flight():
    led = ledger("Fleet-wide about 2,000 requests are in flight (200 a second, ~10 s each), which is only ~95 per replica.",
                 "Re-prefilling 1,800 tokens is cheap, and preemption should be rare at ~95 in flight against a 256 cap.")
    assert all(c.check is None or c.check.status != "wrong" for c in led.by_kind("fleet_in_flight"))


def test_a_code_comment_naming_a_factor_is_not_the_products_value():
    led = ledger("```python\noverhead     = 4 * 5                 # ~5 GB/GPU activations, CUDA graphs, NCCL buffers -> 20 GB\n```")
    assert not [c for c in led.by_kind("arithmetic") if c.check and c.check.status == "wrong"]


def test_a_factors_label_inside_a_product_leaves_no_partial_product():
    led = ledger("kv_per_token = 2 * 80 * 8 * 128 * 2  # K+V x 80 layers x 8 KV heads (GQA) x dim 128 x 2 B = 327,680 B")
    assert not [c for c in led.by_kind("arithmetic") if c.check and c.check.status == "wrong"]


def test_a_multiple_of_another_models_figure_keeps_the_model_asked_about():
    led = ledger("kv_bytes_per_token is 2 × 40 × 40 × 128 × 2 = 819,200 — 800 KiB, about 2.5× what Llama-3-70B needs per "
                 "token. So ~26 full sequences per card.", "Reading 26G of weights at ~2 TB/s is ~13 ms.",
                 opening=OPEN_13B)
    assert status(led, "weights_bytes") == "ok"


def test_weights_over_one_sequences_kv_is_where_reads_double_not_what_fits():
    # the weights read once a step against one 1K sequence's KV: where the KV read matches the weight read
    led = ledger("KV is 2 x 32 layers x 32 heads x 128 x 2 bytes = 5.2e5 bytes a token. Weights are 1.4e10 bytes. It starts to bite when KV reads match weight reads: 1.4e10 / 5.4e8 is ~26 "
                 "sequences at 1K context.", opening="Llama-2-7B in FP16 on an H100 80GB. Batch 8 instead of 1: the cost?")
    assert none_wrong(led, "concurrent_sequences")
    # ... not a free memory near the weights divided by a sequence's KV ("leaves about 147 GB ... divided by 0.59 GB")
    led = ledger("Weights are 141 GB on four H100s; 320 GB less 141 and 32 GB of slack leaves about 147 GB for KV. 147 "
                 "GB divided by 0.59 GB is roughly 250 full-length sequences.", opening=OPEN_70B)
    assert not [c for c in led.by_kind("concurrent_sequences") if c.check and "weight read" in c.check.explanation]


def test_a_terse_g_before_card_is_the_cards_memory():
    led = ledger("Times batch 8 = 8 GiB. On a 24G card that's a third of memory gone before the weights.",
                 opening="How much memory is that for batch 8, 2,048 tokens, 32 layers, 32 heads of 128 in FP16?")
    assert not led.by_kind("gpu_count")
    assert one(led, "gpu_memory_bytes").value == 24e9


def test_a_product_closed_by_call_it_is_a_calculation_checked():
    led = ledger("KV per token: 2 x 40 layers x 40 heads x 128 x 2 bytes, call it 8e4 bytes.", opening=OPEN_13B)
    assert status(led, "kv_bytes_per_token") == "wrong"
    assert "wrong" in statuses(led, "arithmetic")
    # ... not one term of a sum whose other term has words between: "~1 s to first token plus 50 x ~50 ms, call it 3.5 s"
    led = ledger("Each request lives ~1 s to first token plus 50 x ~50 ms, call it 3.5 s.")
    assert none_wrong(led, "arithmetic")


@pytest.mark.parametrize("scope", ["per A100", "on each A100"])
def test_a_count_per_named_gpu_is_per_gpu(scope):
    led = ledger(f"So ~300 sequences {scope}.", opening="Eight A100 80GB GPUs on one host, each holding its own copy "
                 "of a 13B model in FP16. About 40 requests a second, 2,000-token prompts, 250-token replies.")
    c = one(led, "concurrent_sequences")
    assert (c.scope, c.scope_stated) == ("per_gpu", True)
    assert c.check.status == "wrong"


def test_a_size_over_a_product_of_cards_is_spread_across_them():
    # "1.4e11 bytes over 4 x 80 = 3.2e11": the four cards' memory, not 140 GB divided by 320
    led = ledger("70B FP16 is 1.4e11 bytes over 4 x 80 = 3.2e11, so ~1.8e11 before overhead; it fits.",
                 opening="One host, eight A100 80GB GPUs.")
    assert none_wrong(led, "arithmetic")
    # ... while a time from bytes over a bandwidth stays a division
    led = ledger("280 GB over 4 x 3.35 TB/s = 210 ms a step.")
    assert "wrong" in statuses(led, "arithmetic")


def test_a_share_of_the_fleet_is_not_checked_against_one_teams_count():
    led = ledger("Forty teams gives fifty GPUs per team on average, but average lies here: probably five teams hold 60% "
                 "of fleet.", opening="We run a shared fleet of about 2,000 H100s, 250 hosts with eight GPUs each, used "
                 "by roughly 40 teams.")
    assert none_wrong(led, "fleet_share")


def test_a_length_said_for_the_next_count_is_not_this_ones():
    # "about 260 sequences per replica at the normal mix, mid-fifties at 8K": the 8K is the mid-fifties'
    led = ledger("Weights 140 GB over four H100s, KV 327,680 B a token, ~148 GB free; at 1,800 tokens that's ~250 "
                 "sequences per replica.",
                 "So in summary: about 260 sequences per replica at the normal mix, mid-fifties at 8K.",
                 opening="Llama-3-70B in FP16 on H100 80GB GPUs, four per replica with tensor parallelism.")
    assert none_wrong(led, "concurrent_sequences")


def test_a_case_set_by_what_it_lacks_still_checks_its_sum():
    led = ledger("Cost: without backfill 80 GPUs ÷ 2,000 = 8% of the fleet; with backfill the real loss is ~3%.",
                 opening="We run a shared fleet of about 2,000 H100s.")
    assert "wrong" in statuses(led, "arithmetic")


def test_a_factors_label_after_the_operator_keeps_the_product():
    led = ledger("Embedding memory: U = 200M × dim 128 × 2 B ≈ 5.1 GB for users, so it fits in the L4's 24 GB.",
                 opening="About 20,000 requests per second, a ranker on NVIDIA L4s.")
    assert "wrong" in statuses(led, "arithmetic")


def test_a_read_time_said_with_an_arrow_is_checked():
    led = ledger("20 GB at ~2 GB/s sequential read -> 1 s. So replay ~5 s, fine.",
                 opening="Walk me through a restart with a 20 GB log.")
    assert "wrong" in statuses(led, "arithmetic")


def test_what_is_left_after_the_cache_worked_out_before_is_checked_as_that():
    led = ledger("Total = 16,384 × 512 KiB = 8 GiB ≈ 8.6 GB.\nOn a 24 GB A10G holding 13.5 GB of 7B FP16 weights, that "
                 "leaves ~2 GB - so batch 8 × 2k is about the ceiling on that card.",
                 opening="How much memory is that for batch 8, 2,048 tokens, Llama-2-7B's shape, in FP16?")
    c = one(led, "free_kv_bytes")
    assert c.check.status == "ok" and "cache worked out before" in c.check.explanation


def test_a_cache_divided_by_the_heads_ratio_is_that_shrink():
    led = ledger("Cache shape → [B, 8, T_max, 128]; memory ÷ 4 → 2 GiB for the same 8 × 2,048.",
                 opening="The model switches to grouped-query attention with 8 KV heads for 32 query heads. What changes?")
    assert one(led, "kv_shrink_factor").value == 4
    assert status(led, "kv_shrink_factor") == "ok"


def test_a_time_for_the_whole_thing_asked_for_the_timeout_is_the_timeout():
    led = ledger("60 seconds for the whole thing. That's what we used for API calls at my last job.",
                 opening="What's your actual timeout for first token and for the whole generation?")
    assert one(led, "timeout_s").value == 60


def test_a_p99_said_again_with_the_keeps_the_kind_it_was_said_with():
    led = ledger("We measure p99 inter-token latency at full batch around 40 ms.",
                 "If a running sequence produces no new token for 5 seconds - that's 125 times the 40 ms p99 - it's hung.",
                 opening="Our chat service runs a 70B model on H100s. How would you handle timeouts and restarts?")
    assert not led.by_kind("latency_p99_ms")
    assert [c.value for c in led.by_kind("tpot_p99_ms")] == [40, 40]


def test_a_whole_generation_timeout_under_the_work_said_is_wrong():
    led = ledger("We cap replies at 1,000 tokens, and the model decodes at roughly 40 ms a token, so that's 40 s. I'd put "
                 "some margin on that and use 60 s. For first token I'd use 10 s. So in summary: first token 10 s, whole "
                 "generation about 30 s.",
                 opening="What's your actual timeout for first token and for the whole generation?")
    assert [(c.value, c.check.status) for c in led.by_kind("timeout_s")] == [(60, "ok"), (30, "wrong")]
    # ... not a watchdog's idle timeout or a first-token one
    led = ledger("The decode part is 2,000 times 25 ms, so 50 seconds. So the whole-generation deadline would be about 75 "
                 "seconds, and the time-to-first-token timeout maybe 5 seconds.",
                 opening="What's your actual timeout for first token and for the whole generation?")
    assert all(c.check is None or c.check.status == "ok" for c in led.by_kind("timeout_s"))


def test_a_product_with_its_factor_labelled_before_the_equals_sign_is_checked():
    led = ledger("Whole generation: max_tokens 4,096 x 45 ms p99 per token = about 18 seconds, plus prefill and queue, "
                 "~25 s; I'd set the total timeout at 30 s.",
                 opening="What is your actual timeout for the whole generation?")
    arith = one(led, "arithmetic")
    assert arith.check.status == "wrong" and round(arith.check.expected) == 184320


def test_a_replay_said_as_the_size_is_a_time_after_the_read_speed_is_checked():
    opening = "Walk me through a restart: how long with a 20 GB log?"
    led = ledger("Read the log front to back and apply each record. The disk reads around 500 MB/s sequential, so 20 GB "
                 "is about 4 seconds.", opening=opening)
    assert status(led, "recovery_time_s") == "wrong"
    led = ledger("The disk reads around 500 MB/s sequential, so 20 GB is about 40 seconds.", opening=opening)
    assert none_wrong(led)


def test_a_records_header_is_no_record_size_for_the_log_growth():
    led = ledger("A log record is the 1 KB value plus key and a 64-byte header, call it ~1.06 KB. Fifty thousand a "
                 "second is about 53 MB/s of log. Log growth at that rate is about 18 GB an hour, which is why "
                 "compaction matters.", opening=OPEN_WAL)
    grown = [c for c in led.by_kind("other_bytes") if c.value == 18e9]
    assert grown and grown[0].check is not None and grown[0].check.status == "wrong"


def test_a_per_token_cache_said_from_layers_hidden_and_bytes_drops_k_and_v():
    led = ledger("Per token the cache is layers x hidden x bytes: 40 x 5,120 x 2 = 409,600 bytes, call it 400 KB.",
                 opening=OPEN_13B)
    assert status(led, "kv_bytes_per_token") == "wrong"


DRILL = ("Drill: Llama-2-7B shape, 32 layers, 32 heads, head dim 128, FP16, batch 8 at 2,048 tokens. What does the "
         "cache take?")


def test_a_larger_batchs_cache_is_checked_at_the_batch_it_is_said_of():
    led = ledger("At 2,048 context, batch 32 is 32 GiB of cache - which doesn't even fit the A10G.", opening=DRILL)
    assert status(led, "kv_bytes_batch") == "ok" and not led.by_kind("free_kv_bytes")
    led = ledger("Per-token time rises with the batch: at 32 sequences of 2K that's 8 GiB of KV a step.", opening=DRILL)
    batch = one(led, "kv_bytes_batch")
    assert batch.check.status == "wrong" and batch.check.expected == 32 * 2**30


def test_the_term_added_after_the_weights_is_not_the_weights():
    led = ledger("On an 80 GB A100 it's ~13.5 GB of weights plus 8 GiB, fine.", opening=DRILL)
    assert [c.value for c in led.by_kind("weights_bytes")] == [13.5e9]


def test_a_tuple_unpacked_in_code_names_each_value_in_order():
    led = ledger("```python\nlayers, kv_heads, head_dim = 80, 8, 128    # GQA: 8 KV heads\n"
                 "kv_per_tok = 2 * layers * kv_heads * head_dim * 2   # 327,680 B\n```")
    assert one(led, "head_dim").value == 128 and one(led, "layers").value == 80
    assert none_wrong(led)


def test_code_digit_separators_and_a_commented_result_read_as_the_figure():
    led = ledger("```python\nL, H, D = 40, 40, 128\nkv_tok = 2 * L * H * D * 2       # K and V, fp16 -> 819_200 B\n```",
                 opening=OPEN_13B)
    kv = one(led, "kv_bytes_per_token")
    assert kv.value == 819200 and kv.check.status == "ok"


def test_cards_at_a_range_of_a_share_of_their_flops_multiply_the_share():
    led = ledger("Prefill for a 6,000-token prompt is 2 x 70 x 10^9 x 6,000 = 8.4 x 10^14 FLOPs; four H100s at somewhere "
                 "between 30 and 50% of ~1,000 TFLOPs each is 1.2 to 2 PFLOP/s, so 0.4 to 0.7 s.",
                 opening="Our chat service runs a 70B model on four H100s. How long is prefill for a long prompt?")
    assert none_wrong(led, "arithmetic")


def test_a_per_token_size_after_a_layers_share_is_the_whole_models():
    led = ledger("Redo step 1: K and V both, 16 KiB per layer per token, so 512 KiB per token, 1 GiB per sequence at "
                 "2,048, and 8 GiB for the batch.", opening=DRILL)
    assert one(led, "kv_bytes_per_token").value == 512 * 1024 and status(led, "kv_bytes_per_token") == "ok"


def test_terse_sizes_per_token_and_per_sequence_are_bytes():
    led = ledger("right - x2. 2 x 32 x 32 x 128 x 2 = 512K/tok.", opening=DRILL)
    assert status(led, "kv_bytes_per_token") == "ok"
    led = ledger("it's GQA, 8 KV heads. so /8: 327,680 B/tok, ~590M/seq.")
    assert one(led, "kv_bytes_per_sequence").value == 590e6


def test_a_signed_gain_after_an_arrow_is_no_concurrency_figure():
    led = ledger("FP8 -> 70G weights. frees 70G/node -> +~120 seqs.")
    assert not led.by_kind("concurrent_sequences")


@pytest.mark.parametrize("answer, right", [
    ("Call it 0.1% of GPUs per day. On 10,000 GPUs that's about 100 a day.", False),
    ("Call it 0.1% of GPUs per day. On 10,000 GPUs that's about 10 a day.", True),
    ("Call it 200 in 54 days, ~3.7 a day on 16K. On our 10K that's ~6 a day.", False),
    ("Call it 200 in 54 days, ~3.7 a day on 16K. On our 10K that's ~2.3 a day.", True),
])
def test_a_fleets_share_or_another_fleets_rate_said_as_a_count_is_checked(answer, right):
    led = ledger(answer, opening=OPEN_HEALTH)
    assert status(led, "period_rate") == ("ok" if right else "wrong")


def test_a_shape_corrected_is_judged_by_the_model_not_by_the_slip():
    led = ledger("kv/tok, assume llama-2-13b: 2 x 40 layers x 8 kv heads x 128 x 2 = 160K.",
                 "no - only the 70B got GQA in Llama 2. 13B is plain MHA, 40 KV heads. so x5: 800K/tok.",
                 opening="One host, eight A100 80GB GPUs, each holding its own copy of a 13B model in FP16.")
    said = [c.check.status for c in led.by_kind("kv_heads")]
    assert said[-1] == "ok" and "wrong" not in said  # the slip is withdrawn by the correction


def test_a_terse_max_seqs_is_the_limit():
    led = ledger("continuous batching, max seqs 28 per GPU - the number from before, rounded up.", opening=OPEN_13B)
    assert one(led, "max_num_seqs").value == 28


def test_a_bare_figure_pointed_back_at_is_the_candidates_figure_not_a_length():
    led = build_ledger([("interviewer", OPEN_13B),
                        ("candidate", "| | value |\n|---|---|\n| KV/token | 400K byte |\n| seqs @ 2K | ~61 |"),
                        ("interviewer", "Does that 400K cover both the keys and the values?"),
                        ("candidate", "Yes, the x 2 at the end is for that. So ~60 per GPU.")])
    assert not [c for c in led.by_kind("seq_len") if c.value == 400_000]
    assert [c.kind for c in led.claims if c.turn == 2] == ["kv_bytes_per_token"]


def test_a_table_of_factors_then_its_sum_answers_the_batch_cache_asked():
    led = build_ledger([("interviewer", OPEN_DRILL),
                        ("candidate", "| factor | value |\n|---|---|\n| batch | 8 |\n| tokens | 2,048 |\n| layers | 32 |\n"
                                      "| heads x dim | 4,096 |\n| bytes | 2 |\n\n"
                                      "8 x 2,048 x 32 x 4,096 x 2 = 4,294,967,296 bytes, so 4 GiB.")])
    said = led.by_kind("kv_bytes_batch")
    assert [c.value for c in said] == [4 * 2**30] and said[0].check.status == "wrong"  # the K-and-V 2 is missing


def test_the_share_a_cap_leaves_over_is_no_product():
    led = ledger("max_num_seqs = 256, which is about 95% of the 270, so ~5% of the pool is slack for long replies.")
    assert "wrong" not in statuses(led, "arithmetic")


def test_the_next_clauses_figure_is_not_one_sequences_cache():
    led = ledger("80 minus 26 is 54 GB free. 2,000 tokens is 200 MB per sequence, and 54 GB over 200 MB is 270 "
                 "sequences.", opening=OPEN_13B)
    assert [c.value for c in led.by_kind("kv_bytes_per_sequence")] == [200e6]


def test_a_load_spread_with_its_share_per_gpu_after_it_is_no_replica():
    led = ledger("The host gets 40 requests a second in total; spread over eight GPUs that's 5 a second each.",
                 opening="One host, eight A100 80GB GPUs, each with its own copy of a 13B model in FP16.")
    assert not led.by_kind("tensor_parallel")


def test_the_count_answered_to_that_gpu_is_that_gpus_not_the_hosts():
    led = build_ledger([
        ("interviewer", "One host, eight A100 80GB GPUs, each with its own copy of Llama-2-13B in FP16."),
        ("candidate", "40 requests a second in total, so 5 a second each on the eight GPUs."),
        ("interviewer", "With the 13B in FP16 on one A100 80GB, how many 2,000-token sequences can that GPU hold at once?"),
        ("candidate", "Weights are 26 GB, so about 54 GB free; at 1.6 GB a sequence that's about 250 sequences.")])
    said = [c for c in led.by_kind("concurrent_sequences") if c.turn == 3]
    assert said[0].scope == "per_gpu" and said[0].check.status == "wrong"  # ~31 fit; 250 is the host's


@pytest.mark.parametrize("answer, status_", [
    ("We drain at host level, 8 GPUs a host, so those 17 take 17 hosts out: about 1,300 GPUs out of service.", "wrong"),
    ("We drain at host level, 8 GPUs a host, so those 17 take 17 hosts out: about 136 GPUs out of service.", "ok"),
])
def test_gpus_worked_out_from_hosts_after_a_colon_are_checked_with_the_shape_said(answer, status_):
    led = ledger(answer, opening="We operate around 10,000 GPUs across a few data centres. Design the repair pipeline.")
    assert [c.check.status for c in led.by_kind("gpu_count") if c.value in (1300, 136)] == [status_]


def test_the_others_share_after_a_colon_is_no_hosts_gpus():
    led = ledger("[5] 250 hosts each with one busy GPU: 1,750 GPUs 'free' and zero whole hosts.",
                 opening="We run a shared fleet of about 2,000 H100s, 250 hosts with eight GPUs each.")
    assert all(c.check is None or c.check.status != "wrong" for c in led.by_kind("gpu_count"))


def test_tokens_at_a_time_each_are_the_reply_not_the_sequence():
    led = ledger("A request lives about 0.5 s to first token plus 300 tokens at ~38 ms each, so about 12 seconds.")
    assert one(led, "output_tokens").value == 300 and not led.by_kind("seq_len")


def test_a_rate_restated_per_another_period_is_held_to_the_checks_tolerance():
    led = ledger("1.5% of 10,000 a month is 150 tickets a month, which is about 50 a week.", opening=OPEN_HEALTH)
    assert status(led, "period_rate") == "wrong"  # ~35 a week: 40% high is no rounding
    led = ledger("1.5% of 10,000 a month is 150 tickets a month, which is about 35 a week.", opening=OPEN_HEALTH)
    assert status(led, "period_rate") == "ok"


def test_a_replay_after_a_clause_on_the_rate_is_re_done():
    led = ledger("Sequential read on NVMe, say 500 MB a second to be conservative with the parsing, so 20 GB takes about "
                 "four seconds, then the map is rebuilt.", opening=OPEN_WAL)
    assert status(led, "arithmetic") == "wrong"  # 40 s


@pytest.mark.parametrize("answer, status_", [
    ("1.5% of the fleet needs an action each month: 150 a month, five a day. A vendor RMA round trip is about ten days, "
     "so at steady state we'd have around 1,500 GPUs sitting out in repair.", "wrong"),
    ("1.5% of the fleet needs an action each month: 150 a month, five a day. A vendor RMA round trip is about ten days, "
     "so at steady state we'd have around 50 GPUs sitting out in repair.", "ok"),
])
def test_gpus_sitting_out_in_repair_are_the_rate_times_the_repair_time(answer, status_):
    led = ledger(answer, opening=OPEN_HEALTH)
    assert [c.check.status for c in led.by_kind("gpu_count") if c.value in (1500, 50)] == [status_]


def test_a_count_in_repair_may_be_drawn_from_one_of_several_rates_said():
    led = ledger("Scaled to 10,000 GPUs:\n\n- hard: ~50 GPUs a month\n- soft: ~200 a month\n- together ~250 a month, about "
                 "8 a day.\n\nHard repairs took about 6 days door to door for us, so ~10 GPUs in repair at any "
                 "time, which is 10 hosts, 80 GPUs.", opening=OPEN_HEALTH)
    assert all(c.check is None or c.check.status != "wrong" for c in led.by_kind("gpu_count"))


def test_a_hosts_shape_is_no_gpu_count_the_hosts_are_drawn_from():
    led = ledger("Placement cost: keeping 8-GPU hosts whole for gangs means at any moment ~5-10 hosts are partly drained "
                 "waiting for a gang to assemble.",
                 opening="We run a shared fleet of about 2,000 H100s, 250 hosts with eight GPUs each. Design the platform.")
    assert all(c.check is None or c.check.status != "wrong" for c in led.by_kind("host_count"))


def test_a_count_in_repair_with_its_own_rate_said_is_held_to_that_rate():
    # (a guard: another rate said earlier in the turn does not rescue the one the sentence multiplies)
    led = ledger("Hard failures I'd assume around 8% of GPUs a year, so 10,000 x 8% is 800 a year, a bit over 2 a day. Soft "
                 "issues maybe ten times that, ~20 a day, handled by auto-remediation. We drain the whole eight-GPU host for "
                 "a hard failure and a host repair takes ~3 days, so 2 a day x 8 GPUs x 3 days is about 480 GPUs out of "
                 "service at any time.", opening=OPEN_HEALTH)
    assert [c.check.status for c in led.by_kind("gpu_count") if c.value == 480] == ["wrong"]


OPEN_13B_HOST = ("One host with eight A100 80GB GPUs, each holding its own copy of a 13B model in FP16. Prompts around "
                 "2,000 tokens and replies around 250.")


def test_a_worksheets_rows_worked_out_from_other_rows_are_their_names_figures():
    led = ledger("Taking Llama-2-13B:\n\n```\nW   params        = 13e9\nX   weights       = W x 2 = 26G\n"
                 "Y   overhead      = 6G\nZ   KV pool       = 80 - X - Y = 48G\nK   KV/token      = 2 x 40 x 40 x 128 x 2 = "
                 "819,200 byte\nS   tokens/seq    = 2,000 + 250 = 2,250\nQ   KV/seq        = K x S = 1.84G\n"
                 "N   seqs/card     = Z / Q = 26\n```", opening=OPEN_13B_HOST)
    assert one(led, "weights_bytes").value == 26e9 and one(led, "free_kv_bytes").value == 48e9
    assert one(led, "kv_bytes_per_sequence").value == 1.84e9
    assert [c.value for c in led.by_kind("concurrent_sequences")] == [26]  # (not the 2,000 tokens of "tokens/seq")
    assert none_wrong(led)


def test_a_worksheets_fleet_rows_are_gpu_and_host_counts():
    led = ledger("H1  GPUs              = 10,000\nH2  hosts             = H1 / 8 = 1,250\n"
                 "H7  GPUs out, steady  = H4 x H6 x H5 = ~44", opening=OPEN_HEALTH)
    said = [c for c in led.claims if c.speaker == "candidate"]
    assert [c.value for c in said if c.kind == "gpu_count"] == [10000, 44]
    assert [c.value for c in said if c.kind == "host_count"] == [1250]


def test_a_group_worked_out_as_a_quotient_sizes_the_write_rate():
    led = ledger("An fsync on these NVMe drives is about 0.5-2 ms; take 2 ms at the tail, so one committing thread gets "
                 "~500 fsyncs a second. You need fifty thousand writes a second, so each fsync has to cover 50,000 / 500 "
                 "= 100 writes.", opening=OPEN_WAL)
    assert status(led, "write_rate") == "ok"


def test_a_gpu_named_in_the_sentence_is_the_one_its_free_memory_is_checked_on():
    led = ledger("Times batch 8 is 8 GiB. On the A100 40GB we run, plus ~13.5 GB of 7B-class weights, that's about 21.5 GB, "
                 "so it fits. On our V100 16GB boxes it doesn't: 13.5 GB of weights leaves ~2 GB, so one full-length "
                 "sequence at most.",
                 opening="You preallocate to max length. How much memory is that for batch 8, 2,048 tokens, 32 layers "
                         "and 32 heads of dimension 128, in FP16?")
    assert none_wrong(led, "free_kv_bytes")


def test_a_long_prompt_said_as_an_example_does_not_set_the_ttft_targets_workload():
    led = ledger("Router: join-the-shortest-queue on free KV blocks - a 6k-token prompt and a 500-token one aren't the "
                 "same load.", "Target p99 TTFT 1.0 s, p50 350 ms.", opening=OPEN_13B_HOST)
    assert all(c.check.status != "impossible" for c in led.claims if c.check and c.check.rule == "ttft_floor")


def test_a_worksheets_rates_are_read_by_their_names():
    led = ledger("R1  peak req/s          = 20,000\nR2  candidates/req      = 300\nR3  scores/s            = R1 x R2 = "
                 "6,000,000", opening=OPEN_REC)
    said = [c for c in led.claims if c.speaker == "candidate"]
    assert [(c.kind, c.value) for c in said] == [("request_rate_rps", 20000), ("items_per_s", 6e6)]


def test_a_count_of_slots_equal_to_the_interviewers_batch_is_that_batch_not_what_fits():
    led = build_ledger([("interviewer", OPEN_DRILL),
                        ("candidate", "Per token per layer: K and V, each 32 x 128 = 4,096 values, so 2 x 4,096 x 2 bytes "
                                      "= 16 KiB. Times 32 layers = 512 KiB per token. Batch 8 x 2,048 tokens = 16,384 token "
                                      "slots, and 16,384 x 512 KiB = 8 GiB exactly. That config is Llama-2-7B's shape, so on "
                                      "an A100 40GB it's ~13.5 GB of weights plus 8 GiB of cache, so it fits."),
                        ("interviewer", "The model switches to grouped-query attention with 8 KV heads for 32 query heads."),
                        ("candidate", "The cache shrinks 4x: 128 KiB per token, 2 GiB for the batch."),
                        ("interviewer", "If this served real traffic, what does a bigger batch cost you in latency?"),
                        ("candidate", "Eight slots; each sequence holds its slot for ~2,048 decode steps at ~20 ms a step, "
                                      "so about 41 s per request.")])
    assert none_wrong(led, "concurrent_sequences")


def test_weights_dequantized_to_fp16_for_the_matmul_are_still_int4_weights():
    led = build_ledger([("interviewer", "Take a 7B model in FP16 on an H100."),
                        ("candidate", "Fourteen gigabytes per token at batch one."),
                        ("interviewer", "If you quantize the weights to INT4, what gets faster, what doesn't?"),
                        ("candidate", "Weights drop to ~3.5 GB, so the batch-1 read per token is 4x smaller; prefill doesn't "
                                      "gain much since the INT4 GEMMs dequantize to FP16.")])
    assert status(led, "weights_bytes") == "ok"


def test_another_model_swapped_in_is_a_hypothetical_not_this_ones_shape():
    led = build_ledger([("interviewer", "What sits in the KV cache for Llama-2-7B in FP16 on an H100 80GB?"),
                        ("candidate", "2 x 32 x 32 x 128 x 2 bytes = 524,288 bytes, 512 KiB per token. Revisit if the model "
                                      "is swapped for a GQA one - 8 KV heads would make it 4x more.")])
    assert none_wrong(led, "kv_heads")


def test_a_tables_unbracketed_unit_header_types_its_cells():
    led = ledger("Writes by hour:\n\n| hour | puts/s | log MB/s |\n|---|---|---|\n| 03:00 | 6,000 | 6.3 |\n"
                 "| 21:00 | 50,000 | 52.5 |", opening=OPEN_WAL)
    said = [c for c in led.claims if c.speaker == "candidate"]
    assert [(c.kind, c.value) for c in said] == [("write_rate", 6000), ("write_bandwidth", 6.3e6),
                                                  ("write_rate", 50000), ("write_bandwidth", 52.5e6)]


def test_a_group_size_at_a_quieter_hour_is_not_held_to_the_peak_rate():
    led = ledger("If an fsync takes about 1 ms, at the 9pm peak of 50,000/s that's 50 puts per fsync. At 4am it's only 7 "
                 "per fsync, but that's fine.", opening=OPEN_WAL)
    assert none_wrong(led, "writes_per_fsync")


def test_a_read_said_an_order_of_magnitude_too_slow_is_wrong():
    led = ledger("A 20 GB log read sequentially at ~1 GB/s is about 200 seconds, and applying ~18M records is a few "
                 "seconds more.", opening=OPEN_WAL)
    assert status(led, "recovery_time_s") == "wrong"
    # (the read plus applying the records, said as one time, stays the candidate's call)
    led = ledger("20 GB at ~1 GB/s is 20 s of reading; with the inserts, call it 60 seconds of replay.", opening=OPEN_WAL)
    assert none_wrong(led, "recovery_time_s")


def test_the_terms_of_a_deadlines_formula_are_not_the_deadline():
    led = ledger("With p99 inter-token of 50 ms and max_tokens 2,048: 2,048 x 0.05 = ~102 s, plus TTFT, so D4: total "
                 "deadline ~ 3.8 s + 0.05 s x max_tokens, about 106 s worst case.")
    assert none_wrong(led, "timeout_s")


def test_a_jobs_gpu_shape_is_not_the_reserved_hosts_gpus():
    led = ledger("Gang reserve: 12 whole hosts kept empty so an 8-GPU or 64-GPU job can start, that's 96 GPUs.",
                 opening=OPEN_HEALTH)
    assert none_wrong(led, "gpu_count")


def test_gpus_memory_in_brackets_is_their_memory_not_weights():
    led = ledger("The 70B in FP16 is 140 GB of weights, so four H200s (564 GB) hold it with room for KV.",
                 opening="Eight H200s serve a 13B. Someone wants a 70B on four of them with tensor parallelism.")
    assert [c.value for c in led.by_kind("weights_bytes") if c.speaker == "candidate"] == [140e9]
    assert none_wrong(led)


def test_the_kv_a_prefill_leaves_behind_is_not_the_free_memory():
    led = ledger("Re-creating the system prompt on GPU 6 costs one 1,200-token prefill and ~1 GB of KV that then stays "
                 "there for later requests.", opening="Llama-2-13B on eight H200s; GPU 3's cache is full, GPU 6 has room.")
    assert not led.by_kind("free_kv_bytes") and none_wrong(led)


def test_a_contracts_length_is_not_the_caches_capacity():
    led = ledger("max_num_batched_tokens = 4,096 per step, with chunked prefill, so a 6,000-token prompt goes in two "
                 "chunks and a 30k-token contract in eight.")
    assert not led.by_kind("kv_cache_tokens")


def test_a_replay_time_is_held_to_the_read_speed_set_out_earlier_in_the_answer():
    led = ledger("A9. Replay is a sequential read plus a map insert per record, and I'd expect about 200 MB/s through that "
                 "loop.\n\nRestart: read records in order and insert them. Given A9, a 20 GB log replays in about 10 "
                 "seconds.", opening=OPEN_WAL)
    assert status(led, "recovery_time_s") == "wrong"
    # (not the log's growth said beside it)
    led = ledger("Net: group commit, about fifty writes per fsync, ~55 MB/s of log, a 20 GB log replays in under half a "
                 "minute.", opening=OPEN_WAL)
    assert none_wrong(led, "recovery_time_s")


def test_gpus_restated_after_hosts_in_a_chain_are_held_to_the_host_shape():
    led = ledger("I'd keep a reserve of whole empty hosts: 10% of hosts, that's 25 hosts, 250 GPUs, held for gang placement.",
                 opening="We run about 2,000 H100s, 250 hosts of eight, shared by roughly 40 teams.")
    assert [c.check.status for c in led.by_kind("gpu_count") if c.value == 250 and c.speaker == "candidate"] == ["wrong"]


def test_a_retry_after_headers_seconds_are_no_count_of_sequences():
    led = ledger("If there's no batch-class sequence to evict, the new request gets a 429 with Retry-After: 2 and the router "
                 "tries another replica.")
    assert not [c for c in led.by_kind("concurrent_sequences") if c.speaker == "candidate"]


def test_a_price_per_million_tokens_is_no_cache_capacity_and_output_tokens_no_model_size():
    led = ledger("I'll start where finance will start: what does a million tokens cost us. Output is 200 x 300 = 60,000 "
                 "tokens a second; if peak ran all month, that's about 158 billion output tokens.")
    assert not led.by_kind("kv_cache_tokens")
    assert all(c.subject.model == "llama-3-70b" for c in led.candidate_claims())


def test_a_product_said_for_each_of_k_and_v_is_doubled_for_the_pair():
    led = ledger("Per token per layer it's K and V, 32 heads × 128 × 2 bytes each = 16 KiB. Times 32 layers = 512 KiB "
                 "per token.", opening="A small decoder: 32 layers, 32 heads of dimension 128, FP16.")
    assert statuses(led, "arithmetic") and none_wrong(led, "arithmetic")
    # (without "each", 16 KiB is twice the product said)
    led = ledger("Per token per layer it's K and V, 32 heads × 128 × 2 bytes = 16 KiB.",
                 opening="A small decoder: 32 layers, 32 heads of dimension 128, FP16.")
    assert "wrong" in statuses(led, "arithmetic")


def test_whole_counts_multiplied_are_held_to_the_results_own_rounding():
    opening = "Shared fleet: about 2,000 H100s, 250 hosts of eight, roughly 40 teams."
    led = ledger("I'd hold 20 whole hosts for eight-GPU jobs: 20 × 8 = 180 GPUs, about 9% of the fleet.", opening=opening)
    assert "wrong" in statuses(led, "arithmetic")
    # (a result rounded as said is no slip: 1,920 said as 2,000)
    led = ledger("Serving gets 24 × 80 = 2,000 GPUs or so at peak.", opening=opening)
    assert none_wrong(led, "arithmetic")


def test_a_commit_window_said_before_its_bound_sizes_the_group():
    led = ledger("An fsync takes ~0.5 ms on this NVMe. So group commit: one fsync covers every record appended in a "
                 "window of at most 2 ms; at 50k/s that's ~100 records per fsync.", opening=OPEN_WAL)
    assert [c.value for c in led.by_kind("max_wait_ms")] == [2.0]
    assert none_wrong(led, "writes_per_fsync")


def test_an_overhead_said_per_card_then_per_replica_is_no_gpus_memory():
    led = ledger("v0 is TP=4: 320 GB of HBM per replica. Overhead - activations, CUDA graphs, NCCL buffers - I budget 8 GB "
                 "a card, 32 GB per replica. Free for KV: 320 - 140 - 32 = 148 GB.")
    assert 32e9 not in [c.value for c in led.by_kind("gpu_memory_bytes")]
    assert none_wrong(led, "free_kv_bytes")


def test_a_weights_figure_is_explained_at_the_precision_it_was_worked_at():
    """An FP8 phase named earlier does not make "70B params x 2 bytes = 140 GB" an FP8 figure in the report."""
    led = ledger("v0: FP16 on TP=4. v2: FP8 weights behind a quality gate.",
                 "This is the v0 budget. Weights: 70B params x 2 bytes = 140 GB.")
    [w] = [c for c in led.by_kind("weights_bytes") if c.value == 140e9]
    assert w.check.status == "ok" and "two bytes" in w.check.explanation


def test_a_round_figure_said_loosely_counts_and_a_length_beside_it_does_not():
    led = ledger("Weights are 16 GB; leave a few gigs for overhead and there's north of 55 GB free, so fifty-odd 8k "
                 "sequences fit on the card.", opening="Llama-3-8B on an H100 80GB, conversations of 8k tokens.")
    assert [c.value for c in led.by_kind("concurrent_sequences") if c.speaker == "candidate"] == [50]
    assert none_wrong(led, "concurrent_sequences")


def test_a_sum_starting_at_an_exponent_is_not_checked_as_its_own_product():
    led = ledger("Weights: 32 layers with d_model 4,096 is ~12 x 4,096^2 x 32 = 6.4B plus embeddings, ~6.7B params.",
                 opening="A small decoder: 32 layers, 32 heads of dimension 128, FP16.")
    assert none_wrong(led, "arithmetic")
    # (Markdown bold before a sum is no exponent: the slip is still caught)
    led = ledger("**Sizing:** 30,000 rps x 500 candidates = 1.5 M scores per second.", opening=OPEN_REC)
    assert "wrong" in statuses(led, "arithmetic")


def test_a_size_put_right_in_the_next_answer_stands_corrected():
    turns = [("interviewer", "Walk me through decode for a 7B model at batch 1 on an H100."),
             ("candidate", "7B in FP16 is about 7 GB of weights, and H100 SXM does ~3.35 TB/s, so roughly 480 tokens a "
                           "second at batch 1."),
             ("interviewer", "How many bytes per parameter is FP16?"),
             ("candidate", "Two - my mistake. So 14 GB per token, and 3.35 TB/s / 14 GB is ~240 tokens/s as the ceiling.")]
    led = build_ledger(turns, "gpu-inference-fundamentals")
    [w] = led.by_kind("weights_bytes")
    assert w.check.rule == "corrected" and none_wrong(led)


def test_the_interviewers_kv_heads_premise_taken_up_is_not_held_to_the_named_model():
    turns = [("interviewer", "Decoder, 32 layers, 32 heads of dimension 128, FP16, batch 8 at 2,048 tokens."),
             ("candidate", "That's 512 KiB a token and 8 GiB for the batch."),
             ("interviewer", "The model switches to grouped-query attention with 8 KV heads for 32 query heads. What changes?"),
             ("candidate", "It shrinks 4x to 2 GiB. This is Llama-2-7B's shape, so on an H100 80 GB there's ~62 GB for cache, "
                           "~58 sequences of 2,048 tokens without GQA, and four times that, ~230, with 8 KV heads.")]
    led = build_ledger(turns, "transformer-kv-cache-drill")
    assert none_wrong(led, "kv_heads")


# ---- cycle 105: the whole card divided, a sparse peak, repairs away at the vendor, a read's own time


def test_sequences_divided_from_the_whole_card_are_wrong_when_the_weights_sit_on_it():
    """The count lands near a kind reading of the card (60 GB free, 2,000 tokens), but the division said takes the
    whole 80 GB: the 26 GB of weights were never taken off."""
    turns = [("interviewer", "One host, eight A100 80GB GPUs, each with its own copy of a 13B model in FP16. Prompts "
                             "around 2,000 tokens, replies around 250. With the 13B in FP16 on one A100 80GB, how many "
                             "2,000-token sequences can it hold at once?"),
             ("candidate", "Assume the Llama-2-13B shape: 40 layers, 40 heads, head dim 128, no GQA. KV per token = "
                           "2 × 40 × 40 × 128 × 2 bytes = 819,200 bytes, ~0.8 MB. A sequence is 2,000 prompt + 250 reply "
                           "= 2,250 tokens → ~1.84 GB. 80 GB ÷ 1.84 GB ≈ 43 sequences per GPU.")]
    led = build_ledger(turns, "route-batch-eight-gpus")
    (c,) = led.by_kind("concurrent_sequences")
    assert c.check.status == "wrong" and "whole" in c.check.explanation, led.summary()


def test_sequences_divided_from_the_free_memory_stand():
    led = ledger("KV per token = 2 × 40 × 40 × 128 × 2 bytes = 819,200 bytes. A sequence is 2,250 tokens → ~1.84 GB. "
                 "50 GB ÷ 1.84 GB ≈ 27 sequences per GPU.", opening=OPEN_13B)
    assert status(led, "concurrent_sequences") == "ok", led.summary()


@pytest.mark.parametrize("peak, verdict", [("~240 TFLOPS FP16 on the datasheet", "wrong"),
                                           ("~121 TFLOPS FP16 on the datasheet", None),
                                           ("~242 TFLOPS FP16 with sparsity on the datasheet", None)])
def test_a_gpus_sparse_peak_quoted_as_its_fp16_figure_is_wrong(peak, verdict):
    led = ledger(f"6M × 20 MFLOPs = 120 TFLOP/s of work. An L4 is {peak}; I'd expect 10% of that.", opening=OPEN_REC)
    peaks = [c for c in led.by_kind("flops") if c.value and c.value > 1e14 and c.value != 1.2e14]
    assert [c.check.status if c.check else None for c in peaks] == [verdict], led.summary()


def test_gpus_away_at_the_vendor_for_weeks_are_checked_as_in_repair():
    led = ledger("Say fifty a month, under two a day. Vendor RMA turnaround is about two weeks, so at any moment about a "
                 "hundred GPUs are out at the vendor.", opening=OPEN_HEALTH)
    checked = [c for c in led.by_kind("gpu_count") if c.check is not None and c.check.rule == "in_repair"]
    assert [c.check.status for c in checked] == ["wrong"], led.summary()


def test_the_share_of_failures_that_goes_to_repair_is_read():
    led = ledger("Two hundred a month. Call it six or seven a day. Roughly half clear with a reboot; the other half go to "
                 "RMA, and I'd assume about three weeks turnaround. So in steady state around seventy GPUs sit in the "
                 "repair pipeline.", opening=OPEN_HEALTH)
    checked = [c for c in led.by_kind("gpu_count") if c.check is not None and c.check.rule == "in_repair"]
    assert [c.check.status for c in checked] == ["ok"], led.summary()


@pytest.mark.parametrize("said, wrong", [("40", True), ("10", False)])
def test_a_replay_said_as_seconds_of_reading_is_held_to_the_read(said, wrong):
    led = ledger(f"For 20 GB: sequential read on NVMe is about 2 GB/s, which is 2 seconds per GB, so 20 GB is {said} "
                 "seconds of reading.", opening=OPEN_WAL)
    times = led.by_kind("recovery_time_s")  # (the "2 seconds per GB" is the speed turned over, no recovery time)
    assert [(c.value, c.check is not None and c.check.status == "wrong") for c in times] == [(float(said), wrong)], \
        led.summary()


@pytest.mark.parametrize("said, verdict", [("40", "wrong"), ("10", "ok")])
def test_a_size_over_a_byte_rate_is_held_to_its_seconds(said, verdict):
    (c,) = _calcs(f"Replay: 20 GB at 2 GB/s is {said} seconds.")
    assert c.check.status == verdict, c.check


def test_one_sequences_kv_said_beside_its_length_is_no_free_memory():
    led = ledger("A sequence is now ~8,050 tokens, about 2.6 GB of KV, so 164 GB holds ~62 of them.",
                 opening=OPEN_70B)
    assert not led.by_kind("free_kv_bytes"), led.summary()


# ---- cycle 106: shorthand shapes, a chosen reserve, a free figure said again, a share in its own column


def test_a_shape_in_shorthand_letters_is_a_kv_product():
    led = ledger("Per tok: 2 (K,V) x 32 L x 32 H x 128 x 2 B = 524,288 B = 512 KiB.",
                 opening="How much memory for batch 8, 2,048 tokens, 32 layers, 32 heads of dim 128, FP16?")
    assert none_wrong(led, "kv_bytes_per_token") and status(led, "kv_bytes_per_token") == "ok", led.summary()


def test_the_kv_said_beside_the_weights_by_its_noun_is_no_weights_figure():
    led = ledger("Per step it reads ~14 GB weights + up to 8 GiB KV at ~2 TB/s, so ~7-11 ms.",
                 opening="A 7B model in FP16 on an A100 80GB at batch 8 with a preallocated cache.")
    assert [c.value for c in led.by_kind("weights_bytes")] == [14e9], led.summary()


def test_free_memory_under_a_reserve_the_candidate_chose_stands():
    led = ledger("Llama-3-70B in FP16 is 140 GB of weights, so a replica is four H100s, 35 GB of weights per card. We never "
                 "plan past 85% of HBM: so 68 GB usable per card, minus 35 of weights, minus about 5 for activations: 28 GB a "
                 "card, 112 GB a replica for KV cache.", "At 320 KiB a token, a 1,800-token sequence is about 590 MB. 112 GB "
                 "over 0.59 GB gives about 190 concurrent sequences per replica.")
    assert status(led, "free_kv_bytes") == "ok", led.summary()
    assert [c.check.status for c in led.by_kind("concurrent_sequences")] == ["ok"], led.summary()


def test_a_share_in_its_own_table_column_is_not_read_as_the_hosts_share():
    led = ledger("policy | util cost | 8-GPU p99 wait\npure pack | ~0 | hours\nreserve 8 hosts | ~1% of fleet | < 30 min",
                 opening="We run about 2,000 H100s, 250 hosts with eight GPUs each. Design the scheduler.")
    assert none_wrong(led, "fleet_share"), led.summary()


def test_candidate_scores_a_second_are_checked_against_the_demand():
    led = ledger("Inputs: 20,000 rps and 300 candidates per request, so that's 600,000 candidate scores a second.",
                 opening=OPEN_REC)
    assert status(led, "items_per_s") == "wrong", led.summary()


# ---- cycle 107: an A10 named, one prompt's KV said with "so ... is ≈"


def test_an_a10_is_a_named_gpu():
    from interviewer import capacity

    assert [g for g, _s, _e in capacity.match_gpus("On the 24 GB A10 we prototype on")] == ["a10"]
    assert [g for g, _s, _e in capacity.match_gpus("an A10G on AWS")] == ["a10g"]


def test_one_prompts_kv_said_after_so_is_no_free_memory():
    led = ledger("Recompute. 80 layers × 8 KV heads × 128 × 2 × 2 B is 320 KiB a token, so 6,000 tokens is ≈ 1.9 GiB of "
                 "KV, and it lived in the dead process's HBM.")
    assert not led.by_kind("free_kv_bytes"), led.summary()


OPEN_FLEET = "We run a shared fleet of about 2,000 H100s, 250 hosts with eight GPUs each, used by roughly 40 teams."


@pytest.mark.parametrize("said, verdict", [("so about 0.8% of the fleet", "wrong"), ("so about 8% of the fleet", "ok")])
def test_a_share_said_with_both_its_counts_is_that_division(said, verdict):
    led = ledger(f"And I keep 20 whole hosts reserved for gangs. Worst case they sit idle, which is 160 of 2,000, {said}.",
                 opening=OPEN_FLEET)
    assert status(led, "fleet_share") == verdict


def test_a_share_then_the_gpus_it_comes_to_is_checked_against_those_gpus():
    led = ledger("If small inference jobs scatter one or two GPUs across hosts, the stranded remainder typically runs "
                 "3-5% of the fleet, so 60 to 100 GPUs that no eight-GPU job can use.", opening=OPEN_FLEET)
    assert status(led, "fleet_share") == "ok"
    # ("no eight-GPU job" is no correction of the 60 to 100)
    assert all(c.check is None or c.check.rule != "corrected" for c in led.by_kind("gpu_count"))


@pytest.mark.parametrize("share, verdict", [("0.2%", "wrong"), ("2%", "ok")])
def test_gpus_out_from_whole_hosts_are_a_share_of_the_fleet_not_one_hosts(share, verdict):
    led = ledger("With a five-day repair round-trip there are ~25 hosts in the pipeline, and since we pull the whole host, "
                 f"25 x 8 = 200 GPUs out of service. That's about {share} of the fleet.", opening=OPEN_HEALTH)
    assert status(led, "fleet_share") == verdict


@pytest.mark.parametrize("hosts, verdict", [("12", "wrong"), ("15", "ok")])
def test_gpus_said_again_as_hosts_after_or_are_held_to_the_host_shape(hosts, verdict):
    led = ledger(f"Serving needs headroom; I'd hold 15% of its 800, which is 120 GPUs, or {hosts} hosts.", opening=OPEN_FLEET)
    assert status(led, "host_count") == verdict


def test_a_limit_said_as_mns_is_max_num_seqs():
    led = ledger("Continuous batching, not static. Limit: MNS ~28 for 4K contexts, more if contexts are shorter.")
    assert one(led, "max_num_seqs").value == 28


def test_what_fits_said_back_as_a_bare_count_is_checked_as_sequences():
    led = ledger("Per token 2 x 40 x 40 x 128 x 2 B = 819,200 bytes. Free is about 49 GB.",
                 "On each GPU I'd cap max_num_seqs at 24, below the 27 that fit, so sequences have room to grow to 250 "
                 "tokens.", opening=OPEN_13B_HOST)
    c = [c for c in led.by_kind("concurrent_sequences") if c.value == 27]
    assert c and c[0].check is not None and c[0].check.status == "ok"


def test_a_scope_said_in_another_figures_clause_is_not_this_ones():
    led = ledger("Little's law: 40 rps x 10 s = 400 in flight on the host, 50 per GPU, against 24 that fit.",
                 opening=OPEN_13B_HOST)
    c = [c for c in led.by_kind("concurrent_sequences") if c.value == 24]
    assert c and c[0].scope != "per_host"


def test_a_timeout_built_on_a_slipped_product_reads_its_inputs():
    led = ledger("Given: max_tokens is 4,096, and p99 time per token averaged over a long reply is ~60 ms.\nSo: 4,096 x 60 ms "
                 "≈ 24.6 seconds of decode at worst, plus prefill of up to 8K tokens at ~1 s, plus queueing.\nTherefore: "
                 "the whole-generation deadline is 30 seconds.")
    assert one(led, "tpot_p99_ms").value == 60
    assert not [c for c in led.by_kind("prefill_time_ms") if c.value > 20_000]   # 24.6 s is the decode's
    assert [c.value for c in led.by_kind("prefill_time_ms") if c.speaker == "candidate"] == [1000]
    assert status(led, "timeout_s") == "wrong"   # 4,096 x 60 ms is 246 s


def test_thousands_grouped_with_apostrophes_are_one_number():
    led = ledger("Llama-2-7B: 32 layers, 32 heads, head dim 128, so 512 KiB per token. One sequence at the full 4'096 "
                 "context is 4'096 × 512 KiB = 2 GiB.", opening=OPEN_8B)
    assert "wrong" not in statuses(led, "arithmetic")
    assert 4096 in [c.value for c in led.by_kind("seq_len")]


def test_a_batch_bound_written_as_an_inequality_is_max_num_seqs():
    led = ledger("Limit: batch ≤ 8 and prompt + max_new_tokens ≤ 2,048, the preallocated length.", opening=OPEN_DRILL)
    assert one(led, "max_num_seqs").value == 8


def test_a_figure_scratched_by_name_gives_its_kind_to_the_one_that_replaces_it():
    led = ledger("Decode at our batch is ~40 ms per output token, so 2,048 tokens is about 82 s.",
                 "Scratch the 40 ms I used, that was our old A100 number; on H100 at TP=4 it's more like 25 ms at p99, so "
                 "the full budget is 2,048 × 25 ≈ 51 s.")
    assert one(led, "tpot_p99_ms").value == 25
    assert not [c for c in led.by_kind("latency_p99_ms") if c.speaker == "candidate"]


@pytest.mark.parametrize("said, verdict", [("500", "wrong"), ("70", "ok")])
def test_gpus_in_repair_said_after_in_repair_are_held_to_the_rate_and_days(said, verdict):
    led = ledger(f"With N = 10,000 and f ≈ 0.5% a week that's 50 GPUs a week. With t_r ≈ 10 days, in repair ≈ {said} GPUs.",
                 opening=OPEN_HEALTH)
    assert [c.check.status for c in led.by_kind("gpu_count") if c.value == float(said)] == [verdict]


def test_a_rate_restated_per_year_in_the_next_sentence_and_in_powers_of_ten_is_checked():
    led = ledger("Call it 3 a day for our 1e4. That's 3e3 a year, so about a third of the fleet cycles through repair.",
                 opening=OPEN_HEALTH)
    assert status(led, "period_rate") == "wrong"   # 3 a day is about 1,100 a year



def test_a_figure_scratched_by_the_number_said_gives_its_kind_to_the_replacement():
    led = ledger("50,000 writes a second at 1 KB each is 500 MB a second of log. That's a lot... no wait, scratch the 500: "
                 "50,000 × 1 KB is 50 MB a second.", opening=OPEN_WAL)
    assert [c.value for c in led.by_kind("write_bandwidth") if c.speaker == "candidate"] == [500e6, 50e6]
    assert not [c for c in led.by_kind("memory_bandwidth") if c.speaker == "candidate"]


def test_a_retrieved_chunks_length_is_no_sequence_length_and_symbols_name_the_prompt_and_reply():
    led = ledger("The system prompt alone is ~800 tokens, then eight retrieved chunks of ~512 tokens, then the query. Call it "
                 "T_in ≈ 5,000, and answers are short, T_out ≈ 400.")
    assert 512 not in [c.value for c in led.by_kind("seq_len")]
    assert 5000 in [c.value for c in led.by_kind("prompt_tokens")] and one(led, "output_tokens").value == 400


def test_one_dtype_said_for_weights_and_kv_both_sets_the_weights_dtype():
    led = ledger("So I'd go FP8, weights and KV both. Weights become 70 GB and fit on TP=2.",
                 opening="Llama-3-70B on H100 80GB GPUs.")
    assert status(led, "weights_bytes") == "ok"


def test_one_gpus_ceiling_at_any_batch_is_no_single_streams_rate():
    led = ledger("Llama-2-13B: 26 GB of weights. An A100 streams ~2e12 B/s, so even at infinite batch one GPU makes at most "
                 "~1.2e3 tokens/s, before counting the weights.", opening=OPEN_13B)
    assert none_wrong(led, "tokens_per_s") and all(c.check is None or c.check.status != "impossible"
                                                   for c in led.by_kind("tokens_per_s"))


def test_hosts_said_as_part_of_a_larger_run_are_no_source_of_its_gpus():
    led = ledger("For the weather run, 64 GPUs is 8 hosts of a run that's probably 512 GPUs.",
                 opening="We run a shared fleet of about 2,000 H100s, 250 hosts with eight GPUs each.")
    assert none_wrong(led, "gpu_count")


@pytest.mark.parametrize("gpus, verdict", [("120", "wrong"), ("240", "ok")])
def test_gpus_said_in_the_sentence_after_the_hosts_are_held_to_the_host_shape(gpus, verdict):
    led = ledger(f"Reserve. Keep 30 hosts empty for eight-GPU gangs. That's {gpus} GPUs, idle whenever no gang is waiting.",
                 opening="We run a shared fleet of about 2,000 H100s, 250 hosts with eight GPUs each.")
    assert [c.check.status for c in led.by_kind("gpu_count") if c.value == float(gpus)] == [verdict]


@pytest.mark.parametrize("share, verdict", [("0.2%", "ok"), ("2%", "wrong")])
def test_a_share_of_the_candidates_own_cluster_is_of_that_cluster(share, verdict):
    led = ledger("Our lab cluster is 512 A100s feeding the pipeline, and last quarter we pulled about one GPU a week, "
                 f"roughly {share} of the cluster per week.", opening=OPEN_HEALTH)
    assert status(led, "fleet_share") == verdict


def test_a_product_said_for_each_of_the_devices_named_before_it_counts_them_all():
    led = ledger("Recompute is 2 × 70 billion × 6,000 = 8.4 × 10^14 FLOPs; four H100s at, say, 40% of ~1,000 TFLOPs each is "
                 "1.6 × 10^15 per second, so about half a second.")
    assert "wrong" not in statuses(led, "arithmetic")


def test_concurrent_per_gpu_with_the_noun_left_out_is_a_concurrency_figure():
    led = ledger("Quick sizing: 13B in FP16 is 26 gig, so ~50 gig left on each card. Ballpark 60 concurrent per GPU, 480 on "
                 "the box.", opening=OPEN_13B_HOST)
    assert 60 in [c.value for c in led.by_kind("concurrent_sequences")]


def test_a_layer_four_load_balancer_is_no_l4_gpu():
    led = ledger("So eight replicas and the router is basically an L4 load balancer in front of eight backends at 40 req/s.",
                 "Weights: 13 billion x 2 bytes = 26 GB; free: 80 GB minus 26 GB minus ~4 GB runtime = 50 GB.",
                 opening=OPEN_13B_HOST)
    assert {c.subject.gpu for c in led.candidate_claims()} == {"a100-80gb"}, led.summary()


@pytest.mark.parametrize("text, kind", [
    # what is taken off the card is no card's memory
    ("Free: 80 GB minus 26 GB minus ~4 GB runtime overhead = 50 GB. 50 / 1.64 = about 30 sequences.", "gpu_memory_bytes"),
    # what a choice costs in cache is no memory left for it
    ("A 2,000-token sequence is 1.64 GB, so about 30 sequences fit. If GPU 6 caches that prefix too, which costs ~1 GB of KV "
     "there, fine.", "free_kv_bytes"),
])
def test_a_figure_taken_off_or_spent_is_not_the_memory_it_is_set_against(text, kind):
    led = ledger(text, opening=OPEN_13B_HOST)
    assert not [c for c in led.by_kind(kind) if c.speaker == "candidate" and c.value < 30e9], led.summary()
    assert none_wrong(led), led.summary()


@pytest.mark.parametrize("text, verdict", [
    ("Stranded: 1/4 of 250 ≈ 40 hosts.", "wrong"),
    ("Stranded: 1/4 of 250 hosts ≈ 62 hosts.", "ok"),
    ("GQA keeps 8/32 of 512 KiB = 128 KiB a token.", "ok"),
])
def test_a_share_written_as_a_fraction_of_a_figure_is_re_done(text, verdict):
    (c,) = _calcs(text)
    assert c.check.status == verdict, c.check


def test_a_guessed_couple_hundred_sequences_per_gpu_is_a_concurrency_figure_checked():
    led = ledger("An A100 has 80 gig and a 13B model is big but not that big, so I'd guess a couple hundred sequences per GPU.",
                 opening=OPEN_13B_HOST)
    assert [(c.value, c.check.status) for c in led.by_kind("concurrent_sequences")] == [(200, "wrong")]


def test_a_cards_memory_said_right_is_confirmed_as_the_card_is_sold():
    led = ledger("An A100 has 80 gig.", opening=OPEN_13B_HOST)
    assert one(led, "gpu_memory_bytes").check.explanation == "Right: 80 GiB a card."


@pytest.mark.parametrize("text, verdict", [
    # a numbered step and its dash are no subtraction
    ("Step 4 - 164 GB / 0.59 GB ≈ 278 seqs. Round down, cap at 256.", "ok"),
    ("Step 4 - 164 GB / 0.59 GB ≈ 27 seqs.", "wrong"),
    # a head dimension named "dim" joins the product; a spaced "M" ending an operand is a million
    ("KV/token: 40 layers x 40 heads x 128 dim x 2 B = 409,600 B.", "ok"),
    ("Embeddings: 20 M ids x 64 dim x 2 B = 2,56 GB.", "ok"),
    # FLOPs into GPU time with the GPU's speed left unsaid: nothing to re-do
    ("Recompute is cheap: ~1,800 tokens x 140 GFLOP is about half a GPU-second.", None),
])
def test_calculations_with_steps_named_factors_and_gpu_time_are_read_as_said(text, verdict):
    (c,) = _calcs(text)
    assert (c.check.status if c.check else None) == verdict, c.check


def test_kv_per_token_without_keys_and_values_is_wrong_on_the_models_shape():
    led = ledger("- KV/tok, Llama-2-13B shape: 40 layers x 40 heads x 128 dim x 2 B = 409,600 B, call it 400 KiB",
                 opening=OPEN_13B_HOST)
    assert status(led, "kv_bytes_per_token") == "wrong"


def test_a_rate_set_against_the_usual_one_is_no_restatement():
    led = ledger("A rate limit: automation may cordon at most one percent of the fleet - a hundred GPUs - per hour. Normally "
                 "we flag about ten a day, so a hundred in an hour already says something common broke.",
                 opening=OPEN_HEALTH)
    assert not led.by_kind("period_rate"), led.summary()


def test_sequences_at_once_per_gpu_are_a_concurrency_figure_checked():
    led = ledger("80 gig card, 13B model, lots of room. Ballpark a hundred at once per GPU.", opening=OPEN_13B_HOST)
    assert [(c.value, c.check.status) for c in led.by_kind("concurrent_sequences")] == [(100, "wrong")]


OPEN_70B_TP = ("Llama-3-70B in FP16 on H100 80GB. Peak is about 200 requests per second, prompts average ~1,500 tokens, "
               "replies ~300 tokens.")


def test_bytes_written_with_a_bare_b_are_bytes_not_billions_of_parameters():
    led = ledger("let P = 70.6B params, b = 2B/param → W = P·b ≈ 141GB.\n"
                 "KV per token k = 2·L·H_kv·d·b = 2·80·8·128·2 = 327,680B = 320KiB.", opening=OPEN_70B_TP)
    assert [c.value for c in led.by_kind("params")] == [70.6e9], led.summary()
    assert status(led, "weights_bytes") == "ok" and status(led, "kv_bytes_per_token") == "ok"
    assert none_wrong(led), led.summary()


def test_the_openings_replies_are_the_reply_length_not_the_sequence():
    led = ledger("Go.", opening=OPEN_70B_TP)
    said = {c.kind: c.value for c in led.claims if c.speaker == "interviewer" and c.kind in ("seq_len", "output_tokens")}
    assert said == {"output_tokens": 300}, said


@pytest.mark.parametrize("text, kind, absent", [
    # "c." is circa: what a step reads is no free memory, however the "about" is written
    ("Decode step at ~30 sequences: reads 26 GB of weights plus c. 40 GB of KV -> c. 35 ms per token.", "free_kv_bytes", 40e9),
    # a term of a sum times a symbol is one token's time, not a prefill time
    ("- memory bound: lifetime ≈ 0.1s prefill + r·30ms ≈ 9.1s.", "prefill_time_ms", 30),
    # what is set aside per card is not what is left for the cache
    ("TP=2 gives 160GB, minus 141GB weights minus ~5GB/GPU overhead leaves ~9GB for KV.", "free_kv_bytes", 5e9),
    # sequences live on a replica are its load, not what fits
    ("At 24 replicas, each replica holds ~1,820/24 ≈ 76 live seqs, so the 269 is a burst ceiling.", "concurrent_sequences", 76),
    # the total the weights are added into is no weights figure
    ("Batch 32 at ~1K average context: KV read ≈ 17.2GB, + 13.5GB weights ≈ 30.7GB/step.", "weights_bytes", 30.7e9),
    # one prompt's length said as an adjective, not what the cache holds
    ("A 1,500-token prompt fits in one chunk; a 40K-token log dump gets cut into five chunks.", "kv_cache_tokens", 40000),
    ("Someone pasting a 20K-token install script gets chopped into 8K chunks.", "kv_cache_tokens", 20000),
    # sequences in the batch are no length
    ("A request lives ttft + 300 decode steps; with ~256 in the batch a decode step on tp4 is ~30-35 ms.", "seq_len", 256),
    # what some bookkeeping costs a step on the host is no decode step
    ("The check costs ~20 us per step on the scheduler's CPU, so it runs every step.", "decode_step_ms", 0.02),
    # a load someone opens, not what fits
    ("That matters for abuse too: a script that opens a thousand streams and walks away must not hold blocks.",
     "concurrent_sequences", 1000),
    # a prompt grown over its old length is no cache capacity
    ("Every request is now an 8 000-token prefill. Prefill compute per request grows by 8 000 / 1 500 ≈ 5,3.",
     "kv_cache_tokens", 8000),
])
def test_a_figure_beside_the_one_its_words_name_is_not_that_one(text, kind, absent):
    led = ledger(text, opening=OPEN_70B_TP)
    assert absent not in [c.value for c in led.by_kind(kind)], led.summary()


def test_sequences_a_host_holds_over_its_cards_are_no_tensor_parallel_degree():
    led = ledger("- 50 / 1.64 = c. 30 sequences\n\nSo the host holds c. 240 sequences across eight cards.",
                 opening=OPEN_13B_HOST)
    assert not led.by_kind("tensor_parallel"), led.summary()
    assert none_wrong(led), led.summary()


def test_writes_per_fsync_are_the_write_rate_over_the_fsync_rate_said_beside_them():
    led = ledger("| fsync per put | 50,000 fsyncs/s at 0.1 ms would saturate the device queue | not viable |\n"
                 "| Group commit | window 1 ms or 64 records, whichever first | c. 50 writes per fsync, c. 1,000 fsyncs/s |",
                 opening=OPEN_WAL)
    assert none_wrong(led, "writes_per_fsync"), led.summary()


def test_a_batchs_rate_said_as_rising_from_batch_ones_is_no_single_stream():
    led = ledger("Seven billion parameters at 2 bytes: 14 GB per token.",
                 "At batch 28 with full 4K contexts, each step reads the 14 GB of weights plus ~60 GB of KV, so ~22 ms per step "
                 "against ~4.2 ms at batch 1: throughput rises from ~240 to ~1,270 tokens/s.",
                 opening="Llama-2-7B in FP16 on one H100 80GB: why is decode memory-bound?")
    assert [c.check for c in led.by_kind("tokens_per_s")] == [None], led.summary()



def test_ca_before_a_figure_is_circa_and_a_restated_rate_is_checked():
    led = ledger("10.000 × 5 % = 500 per Year, that is ca. 40 per Week.", opening=OPEN_HEALTH)
    assert statuses(led, "period_rate") == ["wrong"], led.summary()


@pytest.mark.parametrize("text, verdict", [
    ("So 6 × 10^6 × 5 × 10^7 = 3 × 10^13 FLOPs a second.", "wrong"),
    ("So 6 × 10^6 × 5 × 10^7 = 3 × 10^14 FLOPs a second.", "ok"),
])
def test_bare_counts_multiplied_into_flops_are_re_done(text, verdict):
    (c,) = _calcs(text)
    assert c.check is not None and c.check.status == verdict, c.check



@pytest.mark.parametrize("text, verdicts", [
    ("Reserve: 20 whole hosts. 20 hosts is 120 GPUs, so 6% of the fleet sits reserved.", ["wrong"]),
    ("Then serving is 600 GPUs on 75 hosts and training is 1,400 GPUs on 175 hosts.", []),
])
def test_hosts_said_again_as_gpus_are_held_to_the_host_shape(text, verdicts):
    led = ledger(text, opening=OPEN_FLEET)
    assert [c.check.status for c in led.by_kind("gpu_count") if c.check is not None and c.check.status != "ok"] == verdicts


def test_a_rate_restated_twice_is_checked_from_the_first_restatement():
    led = ledger("10,000 × 0.18 = 1,800 per year, i.e. 150 a month, so about 15 a day.", opening=OPEN_HEALTH)
    assert [(c.value, c.check.status) for c in led.by_kind("period_rate")] == [(150, "ok"), (15, "wrong")]


def test_the_cap_said_again_bare_is_no_sequence_length():
    led = ledger("max_num_seqs = 256, under the 264 ceiling.", "8,050 tokens x 320K ≈ 2.64G per sequence, 156G / 2.64G ≈ 59. "
                 "at 256 it would thrash, so the cap drops to ~56.", opening=OPEN_70B_TP)
    assert 256 not in [c.value for c in led.by_kind("seq_len")], led.summary()
    assert 156e9 not in [c.value for c in led.by_kind("kv_bytes_per_sequence")], led.summary()


def test_sequences_over_replicas_named_by_their_shape_are_the_fleets():
    led = ledger("~39G of kv per card, ~156G across the replica; one request is ~1,800 tokens -> ~590M, so ~264 sequences "
                 "per replica.", "20 gpus = 5 tp4 replicas ≈ 1,300 sequences, against ~2,000 in flight at peak.",
                 opening=OPEN_70B_TP)
    assert [c.value for c in led.by_kind("replicas")] == [5] and none_wrong(led, "concurrent_sequences"), led.summary()



def test_a_range_of_full_length_sequences_is_a_count_at_that_length():
    led = ledger("On the 80 GB card that's 80 - 13.5 - ~6 overhead ≈ 60 GB free, so ~28-30 full 4K sequences.",
                 opening="Llama-2-7B in FP16 on one H100 80GB.")
    assert 4000 not in [c.value for c in led.by_kind("concurrent_sequences")], led.summary()



@pytest.mark.parametrize("text, verdict", [
    ("Say 70/30. Thirty percent of 2,000 is 500 GPUs for serving.", "wrong"),
    ("Say 70/30. Thirty percent of 2,000 is 600 GPUs for serving.", "ok"),
])
def test_a_share_of_a_whole_count_is_held_to_the_results_rounding(text, verdict):
    led = ledger(text, opening=OPEN_FLEET)
    assert [c.check.status for c in led.by_kind("arithmetic")] == [verdict], led.summary()


def test_tokens_of_the_per_token_size_just_said_are_one_sequences_kv():
    led = ledger("KV per token is 2 x 80 layers x 8 KV heads x 128 x 2 bytes, so 320 KB per token, and 6,000 tokens of "
                 "that is about 200 MB.", opening=OPEN_70B)
    assert [(c.value, c.check.status) for c in led.by_kind("kv_bytes_per_sequence")] == [(200e6, "wrong")], led.summary()


def test_a_preallocated_batchs_slots_are_no_sequence_length_and_their_bytes_are_the_batchs():
    led = ledger("Per token: 2 (K and V) x 32 layers x 32 heads x 128 x 2 B = 524,288 B. Times 8 x 2,048 = 16,384 token "
                 "slots: 8,589,934,592 B, exactly 8 GiB, about 8.6 GB. That's the Llama-2-7B shape, so with ~13.5 GB of "
                 "FP16 weights the pair is ~22 GB, which just fits on the 24 GB card.",
                 opening="You preallocate the cache: batch 8, 2,048 tokens, 32 layers, 32 heads of dimension 128, FP16.")
    assert 16384 not in [c.value for c in led.by_kind("seq_len")], led.summary()
    assert [c.value for c in led.by_kind("kv_bytes_batch")] == [8589934592, 8589934592, 8.6e9], led.summary()
    assert [c.value for c in led.by_kind("weights_bytes")] == [13.5e9], led.summary()


def test_the_interviewers_batch_said_back_is_no_capacity_figure():
    turns = [("interviewer", "Llama-2-7B in FP16 on a 24 GB card, 2,048-token sequences."), ("candidate", "OK."),
             ("interviewer", "Now decode four prompts of different lengths in one batch. Why batch at all?"),
             ("candidate", "Decode is memory-bound, so the weights read once serve all four sequences.")]
    led = build_ledger(turns)
    (c,) = [c for c in led.by_kind("concurrent_sequences") if c.speaker == "candidate"]
    assert c.check is None or c.check.status != "wrong", c.check


def test_a_requests_tokens_then_so_give_one_sequences_kv():
    led = ledger("That's 800 KiB per token. A request at full length is 2,000 + 250 = 2,250 tokens, so 1.84 GB of KV. Free "
                 "for KV: 80 - 26 - ~5 GB = ~49 GB.", opening=OPEN_13B)
    assert [(c.value, c.check.status) for c in led.by_kind("kv_bytes_per_sequence")] == [(1.84e9, "ok")], led.summary()
    assert 1.84e9 not in [c.value for c in led.by_kind("free_kv_bytes")]


def test_a_sequence_worked_from_the_answers_own_per_token_figure_is_that_models():
    led = ledger("The 13B had no GQA. Redoing it for this model:\n- Weights: 70B × 2 bytes = 140 GB.\n- KV per token: 2 × 80 "
                 "layers × 8 KV heads × 128 head dim × 2 bytes = 327,680 bytes, about 320 KiB. Funny enough that's less "
                 "than the old 13B's 800 KiB per token.\n- Per sequence: 1,500 prompt + 300 reply = 1,800 tokens, so "
                 "~590 MB.")
    assert [c.check.status for c in led.by_kind("kv_bytes_per_sequence")] == ["ok"], led.summary()


def test_a_negation_inside_an_aside_does_not_deny_the_step_after_it():
    led = ledger("each bad gpu pulls its whole host (can't run an 8-gpu gang on 7) -> 50 * 8 = 800 gpus out.",
                 opening=OPEN_HEALTH)
    (c,) = led.by_kind("arithmetic")
    assert not c.negated and c.check is not None and c.check.status == "wrong", c


def test_a_shard_written_as_a_rate_per_gpu_and_a_prefill_quoted_per_thousand_tokens_are_read_as_said():
    led = ledger("assume llama-3-70b-class, bf16, tp4 on h100.\n- tpot: a step reads ~35G weights/gpu + kv.\n- a 32k prefill at "
                 "~90ms/1k ≈ 2.9s if unchunked.")
    assert [c.check.status for c in led.by_kind("weights_bytes")] == ["ok"], led.summary()
    assert [c.check.status for c in led.by_kind("prefill_time_ms") if c.value == 90] == ["ok"], led.summary()


@pytest.mark.parametrize("opening, text, kind, value, verdict", [
    # a preallocated slot holds one sequence: its size is that sequence's KV, and a size in an aside after the product is
    # no batch the product worked out
    (OPEN_DRILL, "Per token: 2 x 32 layers x 32 heads x 128 x 2 bytes = 524,288 bytes. Times 2,048 positions is 1 GiB per "
                 "slot, and times 8 slots it's 8 GiB (a slot holding a 100-token prompt still owns its full 1 GiB).",
     "kv_bytes_per_sequence", 2**30, "ok"),
    # a count put in the memory said right after it is judged by that memory
    (OPEN_DRILL, "With 8 KV heads it's 2 x 32 x 8 x 128 x 2 = 131,072 bytes per token, so we could run 32 slots in the same "
                 "8 GiB instead of 8.", "concurrent_sequences", 32, "ok"),
    (OPEN_DRILL, "With 8 KV heads it's 2 x 32 x 8 x 128 x 2 = 131,072 bytes per token, so we could run 64 slots in the same "
                 "8 GiB instead of 8.", "concurrent_sequences", 64, "wrong"),
    # the fraction after "and" belongs to the number: 1,500 x 45 ms is 67.5 s, not six and three-quarter seconds
    ("A 70B on four H100s; replies up to 1,500 tokens.", "One thousand five hundred tokens at forty-five milliseconds is "
     "about six and three-quarter seconds.", "arithmetic", 6750, "wrong"),
    # one sequence's worth, in brackets, is one sequence's KV, not what is free
    (OPEN_13B + " Replies are 250 tokens.", "Prefix affinity wins if that GPU has at least one sequence's worth free "
     "(~1.72 GiB).",
     "kv_bytes_per_sequence", 1.72 * 2**30, "ok"),
    # a product read aloud, a comma before each factor and its K-and-V label after the two
    (OPEN_DRILL, "Per token: two for K and V, times thirty-two layers, times thirty-two heads, times one hundred and "
                 "twenty-eight, times two bytes, which is 524,288 bytes.", "kv_bytes_per_token", 524288, "ok"),
    # things counted after a product's result are no unknown unit: the product is re-done (10,000 x 0.5% is 50)
    (OPEN_HEALTH, "failure rate ~0.5% of GPUs per week -> 10,000 x 0.5% = 500 failures a week.", "arithmetic", 500, "wrong"),
    # a utilisation target divides the work, it does not multiply it
    (OPEN_REC, "8 million over 150 thousand is 53 GPUs running flat out. I want them at 60% so there's room for spikes, so "
               "53 × 0.6 ≈ 32 GPUs.", "arithmetic", 32, "wrong"),
    # a size per period said again per another
    (OPEN_WAL, "- feat: growth 50 MB/s -> 180 GB an hour -> ~430 GB a day.", "period_rate", 430, "wrong"),
    # a share of a share: 15-20% of 120 GPUs' work is about 1% of 2,000 (an "i.e." ends no sentence)
    (OPEN_FLEET, "Trade-off: those 120 GPUs only ever do scavenger work and lose ~15-20% of it to preemption + restore, i.e. "
                 "~1% of the fleet's useful throughput.", "fleet_share", 0.01, "ok"),
    # a step's time worked at a load is no claim of what fits
    (OPEN_13B + " Replies are 250 tokens.", "- feat: decode step at ~10 seqs on an A100: weights 26 GB plus KV reads of ~10 x "
                                           "2,100 avg tokens x 800 KiB = ~17 GB per step.", "concurrent_sequences", 10,
     "unchecked"),
    # the interviewer's shape for a named model, denied: the model's own shape is the one checked
    (OPEN_13B + " Note the 13B uses grouped-query attention with 8 KV heads, so the cache is small.",
     "I don't think Llama-2-13B has GQA; in Llama 2 only the 70B got it. So KV per token is 2 × 40 × 40 × 128 × 2 = 819,200 "
     "bytes, about 0.8 MB.", "kv_bytes_per_token", 819200, "ok"),
    # a share added to a count is a share of that count: 30 plus 40% is 42
    (OPEN_REC, "6M / 200K = 30 L4s. Plus 40% headroom for the peak: 30 plus 40% is 36 L4s.", "arithmetic", 36, "wrong"),
    (OPEN_REC, "6M / 200K = 30 L4s. Plus 40% headroom for the peak: 30 + 40% = 42 L4s.", "arithmetic", 42, "ok"),
    # a hedge between the product and its result
    ("A 70B on four H100s.", "If max_tokens is 2,048, then 2,048 x 30 ms is, I think, about 40 seconds, plus prefill.",
     "arithmetic", 40000, "wrong"),
    # each GPU holding "its own FP16 copy" is a copy per GPU, not one replica across the eight
    ("One host, eight A100 80GB GPUs, each holding its own FP16 copy of a 13B model - Llama-2-13B shape. Prompts around "
     "2,000 tokens, replies around 250.", "Weights: 13B × 2 B = 26 GB. KV per token: 2 × 40 × 40 × 128 "
     "× 2 = 819,200 B. A sequence of 2,250 tokens is ~1.84 GB. Free: 80 − 26 − ~6 overhead ≈ 48 GB. 48 / 1.84 ≈ 26 "
     "sequences per GPU.", "concurrent_sequences", 26, "ok"),
])
def test_what_a_figure_is_by_the_words_around_it_and_its_verdict(opening, text, kind, value, verdict):
    led = ledger(text, opening=opening)
    found = [c for c in led.candidate_claims() if c.kind == kind and abs(c.value - value) <= 1e-3 * value]
    assert found and found[0].check is not None and found[0].check.status == verdict, led.summary()


@pytest.mark.parametrize("opening, text, kind, value", [
    # "batch-1" names a batch size, no cap
    ("Llama-2-7B in FP16 on one H100.", "Weight bytes drop 4x, ~13.5G to ~3.4G, so the batch-1 ceiling goes to about "
     "3.35 TB/s / 3.4 GB, ~1,000 tok/s.", "max_num_seqs", 1),
    # "5 more 4k sequences": five more, each 4K long - neither 4,000 sequences nor a count of what fits
    ("Llama-2-7B in FP16 on one H100.", "It also frees ~10G for more KV, so ~5 more 4k sequences.", "concurrent_sequences",
     4000),
    ("Llama-2-7B in FP16 on one H100.", "It also frees ~10G for more KV, so ~5 more 4k sequences.", "concurrent_sequences",
     5),
    # the division said again in one unit: 159,744 is 156 GiB in MiB, and 562.5 the sequence's MiB, no token counts
    (OPEN_70B_TP, "156 GiB / 562.5 MiB = 159,744 / 562.5 = ~284 sequences per replica.", "kv_cache_tokens", 159744),
    (OPEN_70B_TP, "156 GiB / 562.5 MiB = 159,744 / 562.5 = ~284 sequences per replica.", "seq_len", 562.5),
    # the weights and the cache together are no weights
    (OPEN_DRILL, "On the eighty gigabyte H100, with about thirteen and a half gigabytes of 7B weights, that's about "
                 "twenty-two gigabytes in total.", "weights_bytes", 22e9),
    # billions of tokens an hour are no model, and a price's "per 1M tokens" no tokens anywhere
    (OPEN_70B_TP, "We push 200 × 1,800 = 360k tokens/s through it, 1.3B an hour, so about $0.23 per 1M tokens blended.",
     "params", 1.3e9),
    (OPEN_70B_TP, "We push 200 × 1,800 = 360k tokens/s through it, 1.3B an hour, so about $0.23 per 1M tokens blended.",
     "kv_cache_tokens", 1e6),
    # recompute shared out over the survivors is neither the cache's tokens nor a tensor-parallel degree
    (OPEN_13B_HOST, "its seqs die w/ its kv, so ~2.1k tok of recompute each\n24 x 2.1k = ~50k tok of extra prefill spread "
                    "over 7 gpus, a couple seconds of bump", "kv_cache_tokens", 50000),
    (OPEN_13B_HOST, "its seqs die w/ its kv, so ~2.1k tok of recompute each\n24 x 2.1k = ~50k tok of extra prefill spread "
                    "over 7 gpus, a couple seconds of bump", "tensor_parallel", 7),
])
def test_figures_that_are_not_the_kind_they_sit_beside(opening, text, kind, value):
    led = ledger(text, opening=opening)
    assert not [c for c in led.candidate_claims() if c.kind == kind and c.value == value], led.summary()


def test_a_figure_taken_back_in_a_changelog_or_supposed_for_another_model_is_not_judged():
    led = ledger("- feat: log growth ≈ 53 MB/s ≈ 19 GB an hour.", "- revert: 19 GB/h. 53 MB/s x 3,600 s = ~190 GB an hour.",
                 opening=OPEN_WAL)
    assert not [c for c in led.candidate_claims() if c.check is not None and c.check.status == "wrong"], led.summary()
    led = ledger("Per token: 2 x 32 x 32 x 128 x 2 = 524,288 B. Worth saying: if this model used GQA with 8 KV heads it'd be "
                 "a quarter of that, 2 GiB.", opening=OPEN_DRILL)
    assert not [c for c in led.candidate_claims() if c.kind == "kv_heads" and c.check is not None
                and c.check.status == "wrong"], led.summary()


def test_a_figure_for_another_precision_puts_no_earlier_slip_right():
    led = ledger("Two H100s is 160G, so 20 gig left over. At 2.5 MB a token and 1,800 tokens a sequence that's 4.5 GB each, "
                 "so, 20 over 4.5, about four sequences per replica.",
                 "Go INT4 and the weights drop to 35 GB, so on the two cards you'd have about 125 GB free, that's like 27 "
                 "sequences.", opening="Llama-3-70B in FP16 on H100 80GB, two GPUs per replica. Prompts are 1,500 tokens, "
                                       "replies 300.")
    four = [c for c in led.by_kind("concurrent_sequences") if c.value == 4]
    assert four and four[0].check is not None and four[0].check.status == "wrong", led.summary()


def test_an_abbreviation_ends_no_sentence():
    led = ledger("On top of that I'd hold 15% as headroom for generation spikes, i.e. 200 GPUs, taken out of the training "
                 "share.", opening=OPEN_FLEET)
    (c,) = [c for c in led.by_kind("gpu_count") if c.value == 200]
    assert "15%" in c.sentence, c.sentence


def test_memory_set_aside_per_card_in_a_table_is_no_count_of_sequences():
    led = build_ledger([("interviewer", "Llama-3-70B in FP16, four H100 80GB per replica. How many concurrent sequences fit on "
                                        "one replica?"),
                        ("candidate", "| item | GB |\n|---|---|\n| 4 × 80 GB | 320 |\n| weights | −140 |\n| activations, CUDA "
                                      "graphs, NCCL buffers (~8 per card) | −32 |\n| left for KV | ~148 |")])
    assert 8 not in [c.value for c in led.by_kind("concurrent_sequences")], led.summary()


def test_a_jobs_shape_in_words_beside_drained_hosts_is_not_their_gpus():
    """"6 hosts drained so an eight-GPU gang can start" - the gang's shape, said in words, is no count of the hosts' GPUs."""
    led = ledger("I'd keep 6 hosts drained at any time so an eight-GPU gang can start without waiting - that's 48 GPUs, "
                 "2.4% of the fleet.", opening=OPEN_FLEET)
    assert not [c for c in led.candidate_claims() if c.check is not None and c.check.status == "wrong"], led.summary()


def test_a_calculations_result_pointed_back_at_is_its_quantity_not_another_calculation():
    """"... = 200 * 10.8 ≈ 2,160" then "That 2,160 is fleet-wide": the figure pointed back at keeps no calculation of
    its own to re-do (it had crashed the ledger with nothing to evaluate)."""
    led = ledger("Little's law:\n\n```\nin_flight = arrival_rate * time_in_system\n          = 200 * (0.3 + 300 * 0.035) "
                 "= 200 * 10.8 ≈ 2,160\n```\n\nThat 2,160 is fleet-wide, not per GPU. Divided by 16 replicas it's ~135 "
                 "each.", opening=OPEN_70B_TP)
    assert all(c.formula for c in led.claims if c.kind == "arithmetic"), led.summary()


def test_a_slip_named_after_its_correction_is_no_new_result():
    """"= 2.6 MB a token - no wait, 64 is the query heads": the 64 names the factor that slipped; the result settled on
    is the next line's."""
    led = ledger("KV per token. Llama-3-70B: 80 layers, head dim 128... 2 × 80 × 64 × 128 × 2 bytes = 2.6 MB a token — no "
                 "wait, 64 is the query heads. It's GQA, 8 KV heads. So 2 × 80 × 8 × 128 × 2 = 327,680 bytes.",
                 opening=OPEN_70B_TP)
    assert not [c for c in led.candidate_claims() if c.check is not None and c.check.status == "wrong"], led.summary()


def test_a_percentile_pair_of_fsync_times_and_a_group_built_on_them():
    """"fsync was about 60 µs at p50 and 400 µs at p99" are both fsync times (told of a past job); a group of 20 worked
    from the p99 one is no slip."""
    led = ledger("At my last job we ran a store a lot like this on NVMe with power-loss protection: fsync was about 60 µs "
                 "at p50 and 400 µs at p99.",
                 "Group commit.\n\n```\nfsyncs/s at p99 latency = 1 / 400e-6        = 2,500\nwrites per fsync needed = "
                 "50_000 / 2_500    = 20\n```\n\nSo about 20 records per fsync covers the target even at p99 fsync latency.",
                 opening=OPEN_WAL)
    assert sorted(c.value for c in led.claims if c.kind == "fsync_latency_ms") == [0.06, 0.4], led.summary()
    assert [c.check.status for c in led.by_kind("writes_per_fsync") if c.check] in ([], ["ok"]), led.summary()
    assert not [c for c in led.by_kind("writes_per_fsync") if c.check and c.check.status == "wrong"], led.summary()


@pytest.mark.parametrize("result, verdict", [("524,288 B", "ok"), ("262,144 B", "wrong")])
def test_working_that_goes_on_to_its_result_on_the_next_line_is_checked(result, verdict):
    led = ledger(f"```\nper_token = 2 * 32 * 32 * 128 * 2      # K and V, layers, heads, head_dim, fp16 bytes\n"
                 f"          = {result}                  # per token\n```", opening=OPEN_DRILL)
    assert [c.check.status for c in led.by_kind("arithmetic")] == [verdict], led.summary()


def test_the_window_a_percentile_is_taken_over_is_no_latency():
    led = ledger("With 40 per second, a p99 over one minute is built from very few requests, it is noisy.", opening=OPEN_13B)
    assert not [c for c in led.candidate_claims() if c.unit == "ms" and c.value == 60000], led.summary()


@pytest.mark.parametrize("value, verdict", [(524288, "ok"), (262144, "wrong")])
def test_a_per_token_variable_in_code_is_the_kv_per_token(value, verdict):
    """"per_token = 2 * 32 * 32 * 128 * 2 = 524,288 B" names what the result is, as a worksheet's row does (the result on
    the next line, code style, too)."""
    led = ledger(f"```\nper_token = 2 * 32 * 32 * 128 * 2      # K and V, layers, heads\n          = {value:,} B\n```",
                 opening=OPEN_DRILL)
    assert [c.check.status for c in led.by_kind("kv_bytes_per_token")] == [verdict], led.summary()
