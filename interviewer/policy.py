"""The interviewer policy: from the round so far, decide the next move.

Like a person running the round, in this order: the clock (close; the wrap-up once, near the
end); where the candidate asked to go; a number that does not check out (each wrong claim in the
ledger is challenged once, with the key figure); a pitfall just hit; the candidate's own limits
run through the simulator; a topic the candidate just raised (its deep-dive map follow-up); then
what is still missing for the bar, alternating with the phase's deep-dive, bank and company
follow-ups. Nothing is asked twice, a follow-up whose answer cues already appear counts as
answered, and any wording that attributes something to the candidate is checked against what
they said (interviewer.attribution) before it is used.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from interviewer.attribution import supported
from interviewer.bank import Company, FollowUp, Question
from interviewer.checks import CapacityCheck
from interviewer.claims import Claim, Ledger, build_ledger
from interviewer.deep_dive import DeepDiveMap, DeepFollowUp, Topic, level_allows, load_map
from interviewer.evidence import Evidence
from interviewer.grader import analyse
from interviewer.moves import Move
from interviewer.round import RoundState, phase_titles
from interviewer.rubric import Rubric

_LETTERS = re.compile(r"[A-Za-z]")
# "I don't know" is an honest answer: move on to another angle rather than asking to clarify.
_UNSURE = re.compile(r"\b(?:i\s+)?(?:don.?t|do\s+not)\s+know\b|\bnot\s+sure\b|\bno\s+idea\b|^\s*(?:pass|skip|next)\b"
                     r"|\bno\s+clue\b|\bcan.?t\s+(?:say|remember)\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]{2,}")
# The candidate steering: "shall I go deeper on X or Y?", "can we talk about X", "let me cover X".
_REQUEST = re.compile(
    r"(?:shall|should|can|could|may)\s+(?:i|we)\s+(?:go\s+(?:deeper|further|into)|talk|dig|dive|drill|cover|discuss|"
    r"move\s+on|look)|(?:let\s+me|let's|i'?d\s+like\s+to|i\s+want\s+to|want\s+me\s+to)\s+(?:go\s+(?:deeper|into)|"
    r"talk|dig|dive|cover|discuss|walk)|(?:go|dig|dive)\s+deeper\s+(?:on|into)", re.IGNORECASE)
_STOP = re.compile(r"\b(?:let'?s\s+(?:stop|end|wrap)|stop\s+here|end\s+(?:it|the\s+round|here)|i'?m\s+done|"
                   r"that'?s\s+(?:all|it)\s+from\s+me|show\s+(?:me\s+)?the\s+report)\b", re.IGNORECASE)
ORDER = {"requirements": 0, "high_level": 1, "deep_dive": 2, "wrap_up": 3}
OFFER_MIN_S = 150  # time left after the wrap-up below which the round simply closes


@dataclass
class Context:
    """What the policy reads: evidence now and before the last answer, the claim ledger, the map."""

    evidence: Evidence
    before: Evidence
    check: CapacityCheck | None
    last_answer: str
    last_index: int | None = None
    ledger: Ledger = field(default_factory=Ledger)
    deep: DeepDiveMap | None = None
    answers: list[str] = field(default_factory=list)


def _analyse(state: RoundState, rubric: Rubric, family: str, upto: int | None = None):
    turns = [(i, t.raw or t.text) for i, t in enumerate(state.turns[:upto]) if t.role == "candidate"]
    return analyse(turns, rubric, family)


def build_context(state: RoundState, question: Question, rubric: Rubric) -> Context:
    last = max((i for i, t in enumerate(state.turns) if t.role == "candidate"), default=None)
    ev, check = _analyse(state, rubric, question.family)
    before = _analyse(state, rubric, question.family, upto=last)[0] if last is not None else ev
    text = (state.turns[last].raw or state.turns[last].text) if last is not None else ""
    ledger = build_ledger([(t.role, t.raw or t.text) for t in state.turns], family=question.family,
                          question_id=question.id)
    answers = [t.raw or t.text for t in state.turns if t.role == "candidate"]
    return Context(ev, before, check, text, last, ledger, load_map(question.id), answers)


def _answered(fu: FollowUp, texts: list[str]) -> bool:
    joined = "\n".join(texts)
    return any(re.search(c, joined, re.IGNORECASE) for c in fu.answer_cues)


# --------------------------------------------------------------------------- acknowledgement


def _acknowledgement(ctx: Context, rubric: Rubric, family: str) -> tuple[str | None, str | None]:
    """The most telling new piece of substance in the last answer, among those this family scores:
    its label, and the candidate's own words for it when they are short enough to echo back.

    Nothing is acknowledged from an answer with a figure a check marks wrong, and an echo is a
    verbatim piece of the answer."""
    if ctx.last_index is None or any(c.turn == ctx.last_index for c in ctx.ledger.wrong()):
        return None, None
    scored = {i for cid in rubric.criteria_for(family) for i in rubric.spec(family, cid).items}
    new = (ctx.evidence.present - ctx.before.present) & scored
    for item in rubric.policy.acknowledge_order:
        if item in new:
            hit = ctx.evidence.hits[item][-1]
            words = " ".join(ctx.evidence.texts[hit.turn][hit.start:hit.end].split()).strip(" ,;:")
            echo = words if 8 <= len(words) <= 60 and any(c.isdigit() for c in words) else None
            return rubric.items[item].label, echo
    return None, None


# --------------------------------------------------------------------------- numbers


def _claim_key(claim: Claim) -> str:
    """One challenge per wrong figure: said again after the challenge, it is not challenged again
    (the report's claim checks still show it)."""
    value = "?" if claim.value is None else f"{claim.value:.3g}"
    return f"claim:{claim.kind}:{value}"


# Figures whose checks the interviewer says out loud. Others (bandwidths, FLOPs, speed-ups) are
# still checked in the report, where the candidate can read the assumptions behind the verdict.
CHALLENGE_KINDS = frozenset({
    "weights_bytes", "kv_bytes_per_token", "kv_bytes_per_sequence", "fits_on_gpus", "free_kv_bytes",
    "kv_cache_tokens", "concurrent_sequences", "max_num_seqs", "token_budget", "ttft_ms", "ttft_p50_ms",
    "ttft_p95_ms", "ttft_p99_ms", "prefill_time_ms", "params", "kv_heads", "layers", "head_dim",
})


def _open_wrong(ctx: Context) -> list[Claim]:
    """The candidate's figures a check marks wrong or impossible, said as their own, about a model
    that is unambiguous (named in the same sentence, or the only one the round has named), newest first."""
    models = {c.subject.model for c in ctx.ledger.claims if c.subject.model}
    out = [c for c in ctx.ledger.wrong()
           if c.speaker == "candidate" and not c.negated and not c.hypothetical and c.check.explanation
           and c.kind in CHALLENGE_KINDS and (len(models) <= 1 or _names_subject(c))]
    return sorted(out, key=lambda c: (-c.turn, c.start))


_SIZE = re.compile(r"\b(\d+(?:\.\d+)?)\s*[bB]\b")


def _names_subject(claim: Claim) -> bool:
    """Does the claim's own sentence name the model it is checked against (by name, or by its
    size: "the 70B" when the round's 70B model is meant)?"""
    from interviewer.capacity import match_models

    model = claim.subject.model
    if model is None or model in {m for m, *_ in match_models(claim.sentence)}:
        return True
    size = re.search(r"(\d+(?:\.\d+)?)b\b", model)
    return bool(size) and any(abs(float(m.group(1)) - float(size.group(1))) < 0.5 for m in _SIZE.finditer(claim.sentence))


# When one answer has several wrong figures, the first of these is the root (a wrong weights figure
# makes the fit wrong too): it is the one said out loud, and the others count as challenged with it.
ROOT_ORDER = ["params", "layers", "kv_heads", "head_dim", "weights_bytes", "fits_on_gpus", "kv_bytes_per_token",
              "kv_bytes_per_sequence", "free_kv_bytes", "kv_cache_tokens", "concurrent_sequences", "max_num_seqs",
              "token_budget", "prefill_time_ms", "ttft_ms", "ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms"]


def _challenged(state: RoundState) -> set[str]:
    """Claim keys already challenged (a challenge's key lists every figure it covered)."""
    return {k for key in state.asked() if key.startswith("claim:") for k in key.split("|")}


def _challenge(state: RoundState, ctx: Context, phase: str) -> Move | None:
    """Each wrong figure once, in a spoken sentence or two with the key number: the newest answer's
    root error first, the answer's other wrong figures covered by it."""
    done = _challenged(state)
    open_ = [c for c in _open_wrong(ctx) if _claim_key(c) not in done]
    if not open_:
        return None
    turn = open_[0].turn
    same = [c for c in open_ if c.turn == turn]
    claim = min(same, key=lambda c: (ROOT_ORDER.index(c.kind) if c.kind in ROOT_ORDER else 99, c.start))
    key = "|".join(dict.fromkeys([_claim_key(claim)] + [_claim_key(c) for c in same]))
    return Move(kind="challenge", phase=phase, criterion=_criterion_of(claim), key=key,
                ask="How does that change your plan?", facts=[claim.check.explanation],
                slots={"span": claim.span}, query=f"{claim.kind.replace('_', ' ')} arithmetic {claim.subject.label()}")


def _criterion_of(claim: Claim) -> str:
    if claim.kind.startswith(("ttft", "latency")):
        return "tail_latency_tradeoff"
    if claim.kind in ("max_num_seqs", "token_budget", "max_batch_size", "max_wait_ms"):
        return "scheduling_policy"
    return "capacity_number"


# --------------------------------------------------------------------------- the deep-dive map


def _map_key(question: Question, fu: DeepFollowUp) -> str:
    return f"dd:{question.id}:{fu.id}"


def _open_follow_ups(state: RoundState, question: Question, ctx: Context, topic: Topic | None = None):
    """(topic, follow-up) pairs not yet asked or covered, allowed at this level."""
    if ctx.deep is None:
        return []
    asked, joined = state.asked(), "\n".join(ctx.answers)
    pairs = [(topic, f) for f in topic.follow_ups] if topic is not None else ctx.deep.follow_ups()
    return [(t, f) for t, f in pairs
            if _map_key(question, f) not in asked and not f.answered(joined) and level_allows(f, state.level)]


def _map_move(question: Question, topic: Topic, fu: DeepFollowUp, phase: str, ctx: Context,
              engaged: bool, lead: str | None = None) -> Move:
    """A deep-dive follow-up; the wording that credits the candidate only when they said it."""
    ask = fu.ask if engaged and supported(fu.ask, ctx.answers) else fu.ask_cold
    move = Move(kind="follow_up", phase=phase, criterion=fu.criterion, key=_map_key(question, fu), ask=ask,
                query=f"{topic.title}: {fu.ask_cold}", slots={"topic": topic.id})
    if lead:
        move.slots["lead"] = lead
    return move


def _requested(state: RoundState, question: Question, ctx: Context, phase: str) -> Move | None:
    """Where the candidate asked to go ("shall I go deeper on the router, or on failover?")."""
    m = _REQUEST.search(ctx.last_answer)
    if m is None or ctx.deep is None:
        return None
    after = ctx.last_answer[m.start():]
    raised = sorted(((hit.start(), t) for t in ctx.deep.topics if (hit := t.raised_in(after))), key=lambda x: x[0])
    for _, topic in raised:
        open_ = _open_follow_ups(state, question, ctx, topic)
        open_.sort(key=lambda tf: abs(ORDER[tf[1].phase] - ORDER["deep_dive"]))
        if open_:
            t, fu = open_[0]
            return _map_move(question, t, fu, phase, ctx, engaged=False,
                             lead=f"Sure, let's go into {t.title[0].lower() + t.title[1:]}.")
    return None


RECENT_ANSWERS = 8  # a topic raised this recently is still the candidate's to be followed


def _raised(state: RoundState, question: Question, ctx: Context, phase: str) -> Move | None:
    """A topic a recent answer raised and the round has not visited: its next follow-up, credited to
    the candidate. The newest answer's topics come first, in the order the answer raised them."""
    if ctx.deep is None or not ctx.last_answer:
        return None
    visited = {k.split(":", 2)[2] for k in state.asked() if k.startswith(f"dd:{question.id}:")}
    hits = []
    for age, text in enumerate(reversed(ctx.answers[-RECENT_ANSWERS:])):
        for topic in ctx.deep.topics:
            hit = topic.raised_in(text)
            if hit is None or (age > 0 and any(f.id in visited for f in topic.follow_ups)):
                continue
            hits.append(((age, hit.start()), topic))
    hits.sort(key=lambda x: x[0])
    seen = set()
    for _, topic in hits:
        if topic.id in seen:
            continue
        seen.add(topic.id)
        open_ = [(t, f) for t, f in _open_follow_ups(state, question, ctx, topic)
                 if f.phase != "wrap_up" or phase == "wrap_up"]
        open_.sort(key=lambda tf: abs(ORDER[tf[1].phase] - ORDER[phase]))
        if open_:
            t, fu = open_[0]
            return _map_move(question, t, fu, phase, ctx, engaged=True)
    return None


def _phase_follow_up(state: RoundState, question: Question, ctx: Context, phase: str) -> Move | None:
    """This phase's next deep-dive question, else an earlier phase's, else a later one's."""
    open_ = [(t, f) for t, f in _open_follow_ups(state, question, ctx) if f.phase != "wrap_up" or phase == "wrap_up"]
    if not open_:
        return None
    last = state.last_interviewer()
    last_topic = last.key if last is not None else None
    visited = {k for k in state.asked() if k.startswith("dd:")}

    def rank(tf):
        gap = ORDER[tf[1].phase] - ORDER[phase]
        fresh_topic = not any(_map_key(question, f) in visited for f in tf[0].follow_ups)
        return (0 if gap == 0 else 1 if gap < 0 else 2 + gap, not fresh_topic, _map_key(question, tf[1]) == last_topic)

    t, fu = min(open_, key=rank)
    return _map_move(question, t, fu, phase, ctx, engaged=False)


# --------------------------------------------------------------------------- rubric gaps and the bank


def _probe_candidates(state: RoundState, question: Question, rubric: Rubric, ctx: Context, phase: str):
    """(criterion, item) gaps in phase-priority order, weakest criterion first within a phase."""
    present, asked = ctx.evidence.present, state.asked()
    said = [t.text for t in state.turns if t.role == "interviewer"]
    focus = list(rubric.policy.phase_focus[phase])
    if phase in rubric.policy.supporting_from:  # supporting criteria once the core is drawn
        fam = rubric.families[question.family]
        focus += [c for c in fam.supporting if state.level in rubric.policy.level_only.get(c, [state.level])]
    scored = []
    for rank, cid in enumerate(focus):
        spec = rubric.spec(question.family, cid)
        score = spec.score(present)
        if score >= 3:
            continue
        required = cid in rubric.required
        for item in _gaps(spec, score, present):
            if (f"item:{item}" in asked or not _askable(rubric, item, question.family)
                    or _already_asked_like(rubric, item, question.family, said)):
                continue
            # Required criteria first; within them phase order, and a 0 beats a 2.
            scored.append(((not required, rank if phase != "deep_dive" else score, rank), cid, item, score))
            break
    scored.sort(key=lambda s: s[0])
    return [(cid, item, score) for _, cid, item, score in scored]


def _gaps(spec, score: int, present: set[str]) -> list[str]:
    """Missing items that would lift the criterion: the next level's first, then the levels above."""
    out: list[str] = []
    for level in range(score + 1, 4):
        for alt in sorted(spec.levels.get(level, []), key=lambda a: len(a.lacking(present))):
            out += [i for i in alt.lacking(present) if i not in out]
        out += [i for alt in spec.levels.get(level, []) for i in alt.any if i not in present and i not in out]
    return out


def _already_asked_like(rubric: Rubric, item: str, family: str, said: list[str]) -> bool:
    """Was a question with the same meaning asked already ("how are requests batched" twice)?"""
    from interviewer.embeddings import hash_embed
    from interviewer.voice import ask_variants

    wordings = ask_variants(item, family) or [rubric.items[item].missing or rubric.items[item].label]
    asked = [hash_embed(t) for t in said[1:]]  # the opening prompt sets the scene; it is not a probe
    return any(float(hash_embed(w) @ a) >= SAME_QUESTION for w in wordings for a in asked)


SAME_QUESTION = 0.5  # cosine of the hashing embedder above which two questions ask the same thing


def _askable(rubric: Rubric, item: str, family: str) -> bool:
    """An item the interviewer can put as a question for this family; not the checker's verdict."""
    from interviewer.voice import ask_variants

    if item == "capacity_checked":
        return False  # a wrong figure is challenged with the arithmetic instead
    return bool(ask_variants(item, family) or rubric.items[item].missing)


def _bank_follow_ups(state: RoundState, question: Question, company: Company | None, rubric: Rubric,
                     ctx: Context, phase: str):
    """The bank's and the company's follow-ups still open, this phase first, company first in a tie."""
    asked = state.asked()
    pool = [(f"fu:{question.id}:{f.id}", f) for f in question.follow_ups]
    if company:
        pool += [(f"fu:{company.name}:{f.id}", f) for f in company.follow_ups]
    out = []
    for key, fu in pool:
        if key in asked or _answered(fu, ctx.answers):
            continue
        if state.level not in rubric.policy.level_only.get(fu.probes, [state.level]):
            continue
        if not supported(fu.text, ctx.answers) and not fu.text_cold:
            continue  # it credits the candidate with something they did not say, and has no other wording
        out.append((key, fu))

    def rank(kf):
        gap = ORDER[kf[1].phase] - ORDER[phase]
        return (0 if gap == 0 else 1 if gap < 0 else 2 + gap,
                not kf[0].startswith(f"fu:{company.name}") if company else 0)
    out.sort(key=rank)
    return out


def _bank_move(key: str, fu: FollowUp, phase: str, ctx: Context) -> Move:
    text = fu.text if supported(fu.text, ctx.answers) else fu.text_cold
    return Move(kind="follow_up", phase=phase, criterion=fu.probes, key=key, ask=text, query=fu.text_cold or fu.text)


def _simulate_move(state: RoundState, question: Question, rubric: Rubric, ctx: Context, phase: str) -> Move | None:
    """Run the candidate's own limits through the simulator, once, when they have stated them."""
    if (not rubric.families[question.family].simulate_limits or "sim:limits" in state.asked()
            or phase not in ("deep_dive", "wrap_up")):
        return None
    present = ctx.evidence.present
    if not {"max_seqs", "tail_target"} <= present:
        return None
    from interviewer.whiteboard import simulate_candidate_limits

    result = simulate_candidate_limits(ctx.evidence, ctx.check)
    if result is None:
        return None
    facts, ask = result
    return Move(kind="simulate", phase=phase, ask=ask, criterion="scheduling_policy", key="sim:limits",
                facts=facts, query="tail latency p99 TTFT under load which scheduler limit moves")


_ROUTERS = [("prefix-affinity", re.compile(r"prefix[- ](?:hash|affinity|aware)|consistent[- ]hash|sticky", re.I)),
            ("least-outstanding", re.compile(r"least[- ](?:outstanding|loaded|busy|connections?)|join[- ]the[- ]shortest", re.I)),
            ("most-free-kv", re.compile(r"(?:most|free)[- ](?:free[- ])?kv|kv[- ]aware", re.I)),
            ("round-robin", re.compile(r"round[- ]robin", re.I)),
            ("shared-queue", re.compile(r"(?:shared|central|global|single)\s+queue", re.I))]


def _fleet_move(state: RoundState, question: Question, rubric: Rubric, ctx: Context, phase: str) -> Move | None:
    """A fleet the candidate stated (replicas, TP degree, router, rate) run at twice its load, once."""
    if (not rubric.families[question.family].simulate_limits or "sim:fleet" in state.asked()
            or phase not in ("high_level", "deep_dive")):
        return None
    said = [c for c in ctx.ledger.candidate_claims() if c.value and not c.negated and not c.hypothetical]
    replicas = [c for c in said if c.kind == "replicas"]
    if not replicas or ctx.last_index not in {c.turn for c in said}:
        return None
    subject = replicas[-1].subject
    model = subject.model or next((s.model for s in reversed(ctx.ledger.subjects) if s.model), None)
    gpu = subject.gpu or next((s.gpu for s in reversed(ctx.ledger.subjects) if s.gpu), None)
    if not model or not gpu:
        return None
    tps = [c for c in said if c.kind == "tensor_parallel"]
    tp = int(tps[-1].value) if tps else (subject.tp or 1)
    rates = [c for c in ctx.ledger.claims if c.kind == "request_rate_rps" and c.value and not c.hypothetical]
    targets = [c for c in ctx.ledger.claims if c.kind == "ttft_p99_ms" and c.value and not c.negated]
    joined = "\n".join(ctx.answers)
    router = next((name for name, pat in _ROUTERS if pat.search(joined)), "least-outstanding")
    from interviewer.whiteboard import simulate_fleet_design

    result = simulate_fleet_design(model, gpu, tp=tp, replicas=int(replicas[-1].value), router=router,
                                   rate_rps=rates[-1].value if rates else None,
                                   slo_ttft_s=targets[-1].value / 1000 if targets else None)
    if result is None:
        return None
    facts, ask = result
    return Move(kind="simulate", phase=phase, ask=ask, criterion="scheduling_policy", key="sim:fleet",
                facts=facts, query="replicas routing tensor parallel knee p99 TTFT under load")


# --------------------------------------------------------------------------- deciding


def decide(state: RoundState, question: Question, company: Company | None, rubric: Rubric,
           now: float | None = None) -> Move:
    """The next interviewer move for a round whose last turn is the candidate's."""
    phase = state.phase_at(now)
    if state.time_up(now):
        return Move(kind="close", phase="wrap_up", ask="", key="close")
    ctx = build_context(state, question, rubric)
    last_iv = state.last_interviewer()
    last_ask = last_iv.text if last_iv else ""
    answer = ctx.last_answer.strip()
    if not answer:
        return Move(kind="empty", phase=phase, ask=_core_question(last_iv) or last_ask,
                    criterion=last_iv.criterion if last_iv else None)
    ack, echo = _acknowledgement(ctx, rubric, question.family)
    new_substance = bool(ctx.evidence.present - ctx.before.present) or bool(ctx.ledger.in_turn(ctx.last_index))
    unsure = bool(_UNSURE.search(answer)) and not new_substance
    thin = not _LETTERS.search(answer) or len(_WORD.findall(answer)) < 3  # e.g. "ok", or another script
    if thin and not unsure and not new_substance and not (last_iv is not None and last_iv.kind == "clarify"):
        return Move(kind="clarify", phase=phase, ask=_core_question(last_iv) or last_ask,
                    criterion=last_iv.criterion if last_iv else None)

    move = _next_move(state, question, company, rubric, ctx, phase, now)
    move.family = question.family
    # No praise in the same breath as a challenge or a pitfall: it would read as mixed signals.
    move.acknowledgement = ack if move.kind not in ("challenge", "pitfall", "close") else None
    if move.acknowledgement and echo and supported(f'"{echo}"', ctx.answers):
        move.slots["echo"] = echo
    if unsure:
        move.slots["unsure"] = "1"
    if last_iv is not None and last_iv.phase and last_iv.phase != phase and move.kind not in ("close",):
        move.phase_title = phase_titles()[phase]
    return move


def _core_question(turn) -> str | None:
    """The question a previous interviewer turn asked (its last sentence ending in '?')."""
    if turn is None:
        return None
    qs = re.findall(r"[^.?!]*\?", turn.text)
    return qs[-1].strip() if qs else None


def _next_move(state, question, company, rubric, ctx: Context, phase: str, now: float | None) -> Move:
    asked = state.asked()
    last = state.last_interviewer()
    # After the wrap-up: close, or (time left) offer to go on once; a candidate who wants to stop, stops.
    if "wrap_up" in asked:
        if _STOP.search(ctx.last_answer) or state.remaining(now) < OFFER_MIN_S or (
                last is not None and last.kind == "offer" and re.match(r"\s*(?:no|nope|that's it)\b",
                                                                        ctx.last_answer, re.I)):
            return Move(kind="close", phase="wrap_up", ask="", key="close")
        if "offer" not in asked:
            return Move(kind="offer", phase=phase, key="offer", ask="",
                        slots={"minutes": str(max(1, int(state.remaining(now) // 60)))})
    requested = _requested(state, question, ctx, phase)
    if requested is not None:
        return requested
    if _wrap_up_due(state, phase, now) and "wrap_up" not in asked:  # asked once, whatever else is pending
        return Move(kind="wrap_up", phase=phase, key="wrap_up", ask="",
                    query="summarise design capacity scheduling latency")
    challenge = _challenge(state, ctx, phase)
    if challenge is not None:
        return challenge
    for pid in ctx.evidence.pitfalls:
        if pid not in ctx.before.pitfalls and f"pitfall:{pid}" not in asked:
            return Move(kind="pitfall", phase=phase, criterion=rubric.pitfalls[pid].criterion, key=f"pitfall:{pid}",
                        pitfall=pid, ask=rubric.pitfalls[pid].feedback, query=rubric.pitfalls[pid].title)
    sim = _fleet_move(state, question, rubric, ctx, phase) or _simulate_move(state, question, rubric, ctx, phase)
    if sim is not None:
        return sim

    phase_changed = last is not None and last.phase is not None and last.phase != phase
    engaged = None if phase_changed else _raised(state, question, ctx, phase)
    probes = _probe_candidates(state, question, rubric, ctx, phase)
    bank = _bank_follow_ups(state, question, company, rubric, ctx, phase)
    if last is not None and last.criterion:  # two questions in a row on one criterion read as repetition
        probes = [p for p in probes if p[0] != last.criterion] + [p for p in probes if p[0] == last.criterion]
    required_gap = [p for p in probes if p[0] in rubric.required and p[2] < 2]
    recent = [t.kind for t in state.turns if t.role == "interviewer"][-2:]
    # Follow the candidate first, but not so long that the bar's gaps go unasked, and not before the
    # requirements have a first number for each required criterion.
    untouched = [p for p in required_gap if p[2] == 0]
    if engaged is not None and not (required_gap and recent.count("follow_up") == 2) and not (
            phase == "requirements" and untouched):
        return engaged
    if phase_changed:  # a new phase opens with a question of its kind
        opener = _phase_follow_up(state, question, ctx, phase)
        if opener is not None:
            return opener
    company_first = [kf for kf in bank if company and kf[0].startswith(f"fu:{company.name}")
                     and ORDER[kf[1].phase] <= ORDER[phase]]
    if company_first and "follow_up" not in recent:
        return _bank_move(*company_first[0], phase, ctx)
    if required_gap and (last is None or last.kind != "probe"):
        cid, item, _ = required_gap[0]
        return _probe(rubric, cid, item, phase)
    deep = _phase_follow_up(state, question, ctx, phase)
    in_phase_bank = [kf for kf in bank if kf[1].phase == phase]
    if in_phase_bank and (deep is None or len(asked) % 3 == 0):
        return _bank_move(*in_phase_bank[0], phase, ctx)
    if deep is not None:
        return deep
    if probes:
        cid, item, _ = probes[0]
        return _probe(rubric, cid, item, phase)
    if bank:
        return _bank_move(*bank[0], phase, ctx)
    if phase != "wrap_up":  # out of this phase's questions early: the map's reflective ones still go deep
        late = _phase_follow_up(state, question, ctx, "wrap_up")
        if late is not None:
            return late.model_copy(update={"phase": phase})
    if "wrap_up" not in asked:
        return Move(kind="wrap_up", phase=phase, key="wrap_up", ask="",
                    query="summarise design capacity scheduling latency")
    return Move(kind="close", phase="wrap_up", ask="", key="close")


def _wrap_up_due(state: RoundState, phase: str, now: float | None) -> bool:
    """The wrap-up question comes in the second half of the wrap-up phase: the first half still goes deep."""
    return phase == "wrap_up" and state.remaining(now) <= dict(state.phase_budgets())["wrap_up"] / 2


def _probe(rubric: Rubric, cid: str, item: str, phase: str) -> Move:
    return Move(kind="probe", phase=phase, criterion=cid, key=f"item:{item}", item=item,
                ask=rubric.items[item].missing or rubric.items[item].label,
                query=f"{rubric.criteria[cid].title}: {rubric.items[item].label}")
