"""The built-in interviewer's follow-up policy: asks for what is missing, never repeats, keeps time."""
from __future__ import annotations

from conftest import answer

from interviewer.interview import end_round, plan_reply, record_answer, start_round

T0 = 1_000_000.0


def _round(level="senior", question="gpu-inference-serving", company="Anthropic"):
    return start_round(question, company, level, minutes=45, now=T0)


def _answer(state, text, minute):
    return answer(state, text, now=T0 + minute * 60)


def test_no_memory_budget_gets_asked_for_one_first():
    state = _round()
    turn = _answer(state, "I'd put a load balancer in front of a pool of GPU workers with a request queue.", 1)
    assert turn.criterion == "capacity_number"
    assert turn.kind in ("probe", "follow_up")


def test_continuous_batching_with_no_limits_is_pushed_for_limits():
    state = _round()
    turn = _answer(state, "We use continuous batching so the GPU stays busy and requests flow through.", 2)
    assert turn.kind == "pitfall" and turn.key == "pitfall:no_limits"
    text = turn.text.lower()
    assert "max" in text and ("token" in text or "admit" in text)


def test_averages_only_is_pushed_to_p99_ttft_with_a_target():
    state = _round()
    turn = _answer(state, "Average latency should be about 300 ms and mean throughput 2,000 tokens per second.", 2)
    assert turn.key == "pitfall:average_only"
    assert "p99" in turn.text.lower() or "slowest 1%" in turn.text.lower()


def test_never_asks_the_same_thing_twice_and_never_loops():
    state = _round()
    keys = []
    for minute in range(1, 44, 3):
        turn = _answer(state, "Hmm, I would think about it more and get back to you on that part of the design.", minute)
        keys.append(turn.key)
    asked = [k for k in keys if k]
    assert len(asked) == len(set(asked)), asked
    texts = [t.text for t in state.turns if t.role == "interviewer"]
    assert len(texts) == len(set(texts))


def test_answered_follow_up_is_not_asked():
    state = _round()
    _answer(state, "If the KV cache is full when a high-priority request arrives, we preempt the lowest-priority "
                   "sequence and recompute it later; batch-tier users pay with a higher p99.", 1)
    for minute in (5, 9, 14, 18, 22, 26, 30):
        _answer(state, "Let me think about the rest of the design.", minute)
    asked = {t.key for t in state.turns if t.role == "interviewer"}
    assert "item:preemption_victim" not in asked


def test_phases_follow_the_clock_and_time_up_closes():
    state = _round()
    assert state.phase_at(T0 + 60) == "requirements"
    assert state.phase_at(T0 + 10 * 60) == "high_level"
    assert state.phase_at(T0 + 25 * 60) == "deep_dive"
    assert state.phase_at(T0 + 42 * 60) == "wrap_up"
    _answer(state, "We need a memory budget; let me think.", 2)
    turn = _answer(state, "Continuing with the high-level design now.", 10)
    assert turn.phase == "high_level"
    from interviewer.voice import wording

    assert any(p in turn.text for p in wording()["phase"]["high_level"])  # the phase change is announced
    late = _answer(state, "One more thought on batching.", 46)
    assert late.kind == "close"
    report = end_round(state, now=T0 + 46 * 60)
    assert report is not None and report.question_id == "gpu-inference-serving"


def test_wrong_capacity_figure_is_challenged_with_the_arithmetic():
    state = _round()
    turn = _answer(state, "Llama-3-8B in fp16 on one H100 80GB: weights 16 GB, 128 KB of KV per token, "
                          "so we can fit about 500 concurrent sequences at 8,192 tokens each.", 2)
    assert turn.kind == "challenge"
    # spoken, with the key figure (about 57 sequences fit, not 500), never a calculator dump
    assert "57" in turn.text and "500" in turn.text and "floor(" not in turn.text and len(turn.text) < 400


def test_stated_limits_and_target_are_run_through_the_simulator():
    state = _round()
    _answer(state, "Llama-3-8B fp16 on one H100 80GB, about 57 concurrent sequences at 8,192 tokens.", 2)
    for minute, text in ((20, "Continuous batching, max_num_seqs of 64 and max_num_batched_tokens of 8192 per step."),
                         (24, "Our target is p99 TTFT under 1 s.")):
        _answer(state, text, minute)
    kinds = [t.kind for t in state.turns if t.role == "interviewer"]
    assert "simulate" in kinds
    sim = next(t for t in state.turns if t.kind == "simulate")
    assert "req/s" in sim.text and "p99 TTFT" in sim.text


def test_empty_and_foreign_answers_get_a_sensible_reply_and_are_kept():
    state = _round()
    empty = _answer(state, "   ", 1)
    assert empty.kind == "empty" and "?" in empty.text
    foreign = _answer(state, "我们会先计算显存预算", 2)
    assert foreign.kind == "clarify"
    assert state.turns[-2].text == "我们会先计算显存预算"


def test_huge_paste_is_kept_whole():
    state = _round()
    big = "We budget memory carefully. " * 2000  # ~56,000 characters
    record_answer(state, big, now=T0 + 60)
    move = plan_reply(state, now=T0 + 60)
    assert move.kind in ("probe", "pitfall", "follow_up", "clarify")
    assert (state.turns[-1].raw or state.turns[-1].text) == big


def test_wording_varies_between_rounds():
    openers = set()
    for i in range(6):
        state = start_round("gpu-inference-serving", None, "senior", now=T0)
        openers.add(_answer(state, "I'd start with a router and a queue in front of GPU workers.", 1).text)
    assert len(openers) > 1


def test_i_dont_know_moves_on_without_asking_to_clarify():
    state = _round()
    first = _answer(state, "I'd put a router in front of the GPU workers.", 1)
    turn = _answer(state, "I don't know.", 2)
    assert turn.kind != "clarify" and turn.key != first.key


def test_phase_budget_and_countdown_agree_from_second_zero():
    state = _round()
    budgets = dict(state.phase_budgets())
    assert [b / 60 for b in budgets.values()] == [7, 11, 20, 7] and sum(budgets.values()) == 45 * 60
    assert state.phase_at(T0) == "requirements"
    assert state.phase_deadline("requirements") - state.elapsed(T0) == budgets["requirements"] == 7 * 60
    assert state.phase_at(T0 + 7 * 60) == "high_level" and state.phase_deadline("high_level") == 18 * 60


def test_a_stated_fleet_is_run_through_the_simulator_at_twice_its_load():
    state = _round()
    _answer(state, "Llama-3-70B in FP16 is 141 GB, so TP=2 on H100 80GB.", 3)
    turn = _answer(state, "I'd run 8 replicas, each tensor-parallel 2, behind a least-loaded router, for the 200 "
                          "requests per second, and p99 TTFT under 800 ms.", 9)
    assert turn.kind == "simulate" and turn.key == "sim:fleet"
    assert "knee" in turn.text and "p99 time to first token" in turn.text and "?" in turn.text
