"""The claim ledger's precision: correct figures are never checked "wrong".

A false "wrong" is as harmful as a missed one: the grader caps a criterion on it and the interviewer
challenges it. Each case here is a correct figure said in a way an earlier ledger mislabelled or
misread (the phrasings come from the calibration set and training batch A, reworded), plus a few
wrong ones that must stay wrong.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from interviewer.claims import Ledger, build_ledger

ROOT = Path(__file__).resolve().parents[1]
OPEN_70B = "We serve Llama-3-70B in FP16 on H100 80GB GPUs; prompts are about 1,500 tokens and replies 300."
OPEN_13B = ("One host with eight A100 80GB GPUs, each with its own copy of a 13B model in FP16; prompts about 2,000 "
            "tokens, replies about 250.")
OPEN_7B = "Take Llama-2-7B in FP16 on an H100 80GB."


def ledger(answer: str, opening: str) -> Ledger:
    return build_ledger([("interviewer", opening), ("candidate", answer)])


def claims(led: Ledger, kind: str):
    return [c for c in led.claims if c.kind == kind and c.speaker == "candidate"]


def statuses(led: Ledger) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for c in led.claims:
        if c.speaker == "candidate" and c.check is not None:
            out.setdefault(c.kind, set()).add(c.check.status)
    return out


def no_wrong(led: Ledger) -> None:
    bad = [c.brief() + " | " + c.check.explanation for c in led.wrong()]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("answer, opening", [
    # a per-replica figure, then a per-node one after it: the scope after a figure stops at the next figure
    ("Two TP=4 engines per node: each has 288 - 131.5 = 156 GiB of KV, so about 284 sequences each, ~568 per node.",
     OPEN_70B),
    # a node-wide TP=8 replica: sequences per node are that replica's
    ("A full node, eight H100s at TP=8: 576 GB usable minus 141 GB of weights is ~435 GB for KV; at 327,680 bytes "
     "per token that's about 1.3 million tokens, roughly 740 sequences of 1,800 tokens per node.", OPEN_70B),
    # dividing by a per-sequence size gives sequences, not tokens
    ("| sequences per node at TP=8 | 444 GiB / 562.5 MiB = 809 |", OPEN_70B),
    # a fp8 KV cache said for one model does not carry to another
    ("For the 13B, flip the KV cache to fp8. Separately, 70B fp16 is ~141 GB; TP4 on 4x80 GB gives ~288 - 131.5 = "
     "156 GiB of KV at 320 KiB/token, ~510k tokens.", OPEN_13B),
    # one sequence's KV is not the free memory
    ("Llama-2-7B is 512 KiB per token, so a 4,096-token sequence is 2 GiB of cache.", OPEN_7B),
    # a batch's KV, a product of three factors, is neither per sequence nor free memory
    ("At batch 28 with 2,048 tokens each: 28 x 2,048 x 512 KiB = 30 GB of KV.", OPEN_7B),
    # PCIe is not HBM
    ("Copying it back over PCIe at ~25 GB/s takes about 80 ms.", OPEN_70B),
    # "two numbers" is no head dimension
    ("Everything below is derived from those two numbers.", OPEN_70B),
    # a threshold in a condition is no claim
    ("Alert if p99 TTFT passes 300 ms while fewer than 30 requests are running.", OPEN_7B),
    # bytes per parameter are not the weights
    ("The weights are 70.6 billion parameters at 2 bytes, about 141 GB.", OPEN_70B),
    # a fleet figure when no scope is said
    ("About 36 TP4 replicas, 144 GPUs; memory then gives us ~10k sequence slots against 2,400 in flight.",
     OPEN_70B),
    # a figure that rests on a shared prefix is not checked against full-length sequences
    ("If 1,200 of the 2,000 prompt tokens are a shared system prompt stored once, ~58 sequences per GPU fit.",
     OPEN_13B),
    # said again in a later sentence, a cap is the same cap
    ("max_num_seqs = 128. Later, at 8,000-token prompts, the 128 cap on max_num_seqs is no longer reachable.",
     OPEN_70B),
])
def test_correct_figures_are_not_wrong(answer, opening):
    no_wrong(ledger(answer, opening))


def test_a_token_budget_is_wrong_only_when_out_of_reach_at_full_peak():
    led = ledger("p99 TTFT under 800 ms. max_num_batched_tokens = 4,096.", "Llama-3-70B in FP16 on one H100 80GB.")
    assert claims(led, "token_budget")[0].check.status == "ok"


@pytest.mark.parametrize("answer, opening, kind", [
    ("KV/token = 80 x 8 x 128 x 2 = 160K bytes.", OPEN_70B, "kv_bytes_per_token"),
    ("An H100 fits about 5,000 sequences of Llama-2-7B at 4k.", OPEN_7B, "concurrent_sequences"),
    ("Seventy billion parameters in FP16 is roughly seventy gigs.", OPEN_70B, "weights_bytes"),
    ("If we fsync on every put at ~2 ms each, that's 5,000 writes a second.", "A key-value store with a WAL.",
     "write_rate"),
])
def test_wrong_figures_stay_wrong(answer, opening, kind):
    led = ledger(answer, opening)
    assert any(c.check.status in ("wrong", "impossible") for c in claims(led, kind) if c.check), led.summary()


@pytest.mark.parametrize("text, value", [
    ("seventy point six billion parameters", 70.6e9),
    ("thirteen and a half gigabytes of weights", 13.5e9),
])
def test_numbers_in_words(text, value):
    from interviewer.claims.numbers import find_mentions

    assert any(abs(m.value - value) < 1e-6 * value for m in find_mentions(text))


def test_a_table_header_names_the_subject():
    led = ledger("| per replica (TP4 on H100 80GB) | figure |\n|---|---|\n| usable memory (10% held back) | ~309 GB |",
                 OPEN_70B)
    usable = claims(led, "usable_memory_bytes")
    assert usable and usable[0].check.status == "ok"


def _labelled_figures():
    for folder in ("batch_a", "batch_b", "batch_c"):
        for path in sorted((ROOT / "tests" / "training" / folder).glob("*.json")):
            data = json.loads(path.read_text())
            for fig in data["label"].get("capacity_figures", []):
                if fig["correct"]:
                    marks = [pytest.mark.xfail(strict=True, reason=_KNOWN_MISREADS[(path.stem, fig["turn"])])] \
                        if (path.stem, fig["turn"]) in _KNOWN_MISREADS else []
                    yield pytest.param(path, fig, id=f"{path.stem}-{fig['turn']}-{fig['quote'][:24]}", marks=marks)


# hand-checked figures the ledger still misreads, and why (kept visible rather than left out)
_KNOWN_MISREADS: dict[tuple[str, int], str] = {}


@pytest.mark.parametrize("path, fig", list(_labelled_figures()))
def test_no_false_wrong_on_training_hand_checked_figures(path, fig):
    data = json.loads(path.read_text())
    led = build_ledger([(t["role"], t["text"]) for t in data["turns"]])
    text = data["turns"][fig["turn"]]["text"]
    pos = text.find(fig["quote"])
    assert pos >= 0
    inside = [c for c in led.claims if c.turn == fig["turn"] and pos <= c.start and c.end <= pos + len(fig["quote"])]
    bad = [c.brief() for c in inside if c.check is not None and c.check.status in ("wrong", "impossible")]
    assert not bad, bad
