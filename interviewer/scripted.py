"""Scripted candidates for measuring the interviewer over a whole round (benchmarks and tests).

Three personas answer whatever they are asked, through the same Session path as the browser:
- strong: answers each deep-dive question with its map's good answer (a plain, correct answer for
  a rubric probe) and every third answer raises a new topic of the map;
- weak: short, vague answers with no numbers;
- wrong: answers like the strong one, but every other answer carries a planted wrong figure.
`measure` reads the finished round and counts what the interviewer issue holds to account.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from interviewer.attribution import unsupported
from interviewer.deep_dive import DeepDiveMap, load_map
from interviewer.round import RoundState
from interviewer.session import Session, no_retriever

# Correct, specific capacity answers for the families whose capacity number is not a GPU memory budget.
PLAIN_CAPACITY = {
    "recsys_serving": ("20,000 requests a second times 300 candidates is 6 million scores a second; one L4 scores "
                       "about 200,000 a second with this ranker, so 30 L4s at full load, 45 with headroom."),
    "storage_wal": ("50,000 writes a second of 1 KB is about 50 MB/s of log; an fsync of about 1 ms with group "
                    "commit covers about 50 writes each, and a 20 GB log replays in about 40 s at 500 MB/s."),
    "scheduling_platform": ("2,000 H100s on 250 hosts of eight; about 60% training and 40% inference, and gang "
                            "placement costs us roughly 5% utilisation in stranded GPUs."),
    "failure_handling": ("A 300-token reply at about 30 ms per token is 9 s of decode plus about 300 ms of prefill, "
                         "so the timeout is about 2x that, 20 s, not a guessed constant."),
}
# Correct, specific answers to rubric probes, by the criterion the probe informs.
PLAIN = {
    "capacity_number": ("Llama-3-70B in FP16 is about 141 GB of weights, so two H100 80GB cards per replica; KV per "
                        "token is 2 x 80 layers x 8 KV heads x 128 x 2 bytes = 327,680 bytes, and the ~15 GB left "
                        "across the pair holds about 11 sequences of 4,096 tokens."),
    "scheduling_policy": ("Continuous batching with max_num_seqs 8 and max_num_batched_tokens 2,048 per step; paid "
                          "traffic has priority, a disconnect cancels the sequence at once, and when the KV cache is "
                          "full we preempt the lowest-priority newest sequence and recompute it later."),
    "tail_latency_tradeoff": ("p50 TTFT 300 ms and p99 under 800 ms, split into queueing, prefill and decode; we give "
                              "up about 20% of peak throughput to hold that p99, and if p99 queue wait passes 400 ms "
                              "the choice is wrong."),
    "quantization_quality": ("FP8 weights only behind a quality suite of our real prompts, rolled back if the win "
                             "rate drops more than one point."),
    "failure_handling": ("A token-rate watchdog flags a generation with no token for 10 s; one retry within a 10% "
                         "retry budget, and retries go to a separate queue so they do not inflate everyone's p99."),
    "placement_fairness": ("Gang-place eight-GPU jobs on one host, reserve a few drained hosts against fragmentation, "
                           "and use weighted fair share by team quota with at most two preemptions a day per team."),
    "operating_model": ("Teams get quotas and chargeback, a quantized model rolls out by canary, and with half the "
                        "GPUs we build the router and admission control first."),
}
WEAK = ["I'd probably add more GPUs if it gets slow.", "We can monitor it and see.",
        "I'm not sure, maybe a queue in front?", "It depends on the traffic, I think.",
        "Caching should help with that.", "We'd scale it horizontally."]
# Planted wrong figures, each checkable physics (weights, KV per token, sequences that fit); the
# templates are filled with a different figure each time, so no plant repeats an earlier one.
PLANTS = [
    "The 70B in FP16 is about {w70} GB, so it fits on one H100.",
    "For Llama-3-8B the KV per token is 4096 x 2 x 2 = about {kv8} KB.",
    "An H100 fits about {seqs:,} sequences of Llama-3-8B at 4k context.",
    "Llama-3-8B in fp16 on one H100 80GB leaves room for about {seqs8:,} concurrent sequences at 8,192 tokens.",
    "Llama-3-70B weights in FP16 come to roughly {w70b} GB.",
]


def plant(n: int) -> str:
    """The n-th planted wrong figure (distinct for every n)."""
    k = n // len(PLANTS)
    return PLANTS[n % len(PLANTS)].format(w70=70 - k, kv8=16 + k, seqs=5000 + 500 * k, seqs8=2000 + 250 * k,
                                          w70b=35 + k)


@dataclass
class Run:
    question_id: str
    persona: str
    state: RoundState
    planted: list[int] = field(default_factory=list)     # turn indexes of answers with a plant
    raised: dict[str, int] = field(default_factory=dict)  # topic the candidate raised -> turn it was first raised


def _answer_for(persona: str, state: RoundState, deep: DeepDiveMap | None, i: int, raised: set[str]) -> tuple[str, bool]:
    last = state.last_interviewer()
    if persona == "weak":
        return WEAK[i % len(WEAK)], False
    text = ""
    if last is not None and last.key and last.key.startswith("dd:") and deep is not None:
        fid = last.key.split(":", 2)[2]
        fu = next((f for _, f in deep.follow_ups() if f.id == fid), None)
        if fu is not None and fu.good_answer:
            text = " ".join(s.rstrip(".") + "." for s in fu.good_answer)
    if not text:
        criterion = last.criterion if last is not None else None
        family = deep_family(state.question_id)
        text = (PLAIN_CAPACITY.get(family) if criterion in (None, "capacity_number") else None) or \
            PLAIN.get(criterion, PLAIN["capacity_number"])
    if i % 3 == 2 and deep is not None:  # raise a topic the round has not visited
        for topic in deep.topics:
            if topic.id in raised or not topic.follow_ups or not topic.follow_ups[0].good_answer:
                continue
            extra = f"We should also think about {topic.title.lower()}: {topic.follow_ups[0].good_answer[0]}."
            if topic.raised_in(extra):
                text += " " + extra
                break
    planted = persona == "wrong" and i % 2 == 1
    if planted:
        text += " " + plant(i // 2)
    return text, planted


def deep_family(question_id: str) -> str:
    from interviewer.bank import load_bank

    return load_bank().question(question_id).family


def play(question_id: str, persona: str, answers: int = 30, minutes: float = 45, company: str | None = None) -> Run:
    """One scripted round: `answers` answers spread evenly over the clock."""
    deep = load_map(question_id)
    now = [0.0]
    session = Session(store=None, retriever=no_retriever, clock=lambda: now[0])
    state = session.start_round(question_id, company, "senior", minutes)
    run = Run(question_id, persona, state)
    step = minutes * 60 / (answers + 1)
    for i in range(answers):
        if state.ended:
            break
        now[0] = (i + 1) * step
        text, planted = _answer_for(persona, state, deep, i, run.raised)
        if deep is not None:
            for topic in deep.topics:
                if topic.raised_in(text):
                    run.raised.setdefault(topic.id, len(state.turns))
        session.take_turn(state, text)
        if planted:
            run.planted.append(len(state.turns) - 2)
    now[0] = minutes * 60
    session.finish(state)
    return run


SUBSTANTIVE = {"probe", "follow_up", "challenge", "pitfall", "simulate"}


def _praise_phrases() -> list[str]:
    from interviewer.voice import wording

    w = wording()
    return [t.split("{")[0].strip(" \"-,.") for t in w["acknowledge"] + w["acknowledge_echo"] if t.split("{")[0].strip(" \"-,.")]


def measure(run: Run) -> dict:
    """The figures the interviewer issue names, for one scripted round."""
    from interviewer.claims import build_ledger

    turns = run.state.turns
    iv = [(i, t) for i, t in enumerate(turns) if t.role == "interviewer"]
    wrap_at = next((i for i, t in iv if t.kind == "wrap_up"), len(turns))
    before = [t for i, t in iv if i < wrap_at and t.kind in SUBSTANTIVE]
    keys = [t.key for _, t in iv if t.key]
    texts = [t.text for _, t in iv]
    ledger = build_ledger([(t.role, t.raw or t.text) for t in turns])
    wrong_turns = {c.turn for c in ledger.wrong()}
    praise = _praise_phrases()
    praised_wrong = 0
    false_attr = 0
    for i, t in iv:
        said = [u.raw or u.text for u in turns[:i] if u.role == "candidate"]
        if i > 0 and unsupported(t.text, said):
            false_attr += 1
        if i - 1 in wrong_turns and any(t.text.startswith(p) for p in praise if len(p) > 3):
            praised_wrong += 1
    challenged = 0
    for a in run.planted:
        following = [t for i, t in iv if a < i <= a + 6 and t.kind == "challenge"]
        if any(t.key and t.key.startswith("claim:") for t in following):  # a challenge of a figure
            challenged += 1
    visited = {k.split(":")[2] for k in keys if k.startswith("dd:")}
    deep = load_map(run.question_id)
    visited_topics = {t.id for t in deep.topics for f in t.follow_ups if f.id in visited} if deep else set()
    # Topics raised before the wrap-up: after it the round is closing, not going deeper.
    raised = {t for t, at in run.raised.items() if at < wrap_at}
    return {
        "question_id": run.question_id, "persona": run.persona,
        "answers": sum(t.role == "candidate" for t in turns),
        "distinct_questions_before_wrap_up": len({t.text for t in before}),
        "repeated_questions": (len(keys) - len(set(keys))) + (len(texts) - len(set(texts))),
        "wrap_ups": sum(t.kind == "wrap_up" for _, t in iv),
        "challenges": sum(t.kind == "challenge" for _, t in iv),
        "planted": len(run.planted), "planted_challenged": challenged,
        "false_attributions": false_attr, "praise_for_wrong": praised_wrong,
        "topics_raised": len(raised), "raised_topics_visited": len(raised & visited_topics),
    }


def design_questions() -> list[str]:
    from interviewer.bank import load_bank

    return [q.id for q in load_bank().questions if q.format == "system design"]


