"""The interviewer policy: from the transcript so far, decide the next move.

Order of precedence, like a person running the round: the clock first (close, change phase),
then a wrong number (challenge with the arithmetic), then a pitfall just hit, then the candidate's
own limits run through the simulator, then the most important gap against the rubric or a
question/company follow-up. Nothing already asked is asked again, and a follow-up whose answer
cues already appear in the candidate's turns counts as answered.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from interviewer.bank import Company, FollowUp, Question
from interviewer.checks import CapacityCheck
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


@dataclass
class Context:
    """What the policy reads: the evidence now and before the last answer."""

    evidence: Evidence
    before: Evidence
    check: CapacityCheck | None
    last_answer: str


def _analyse(state: RoundState, rubric: Rubric, family: str, upto: int | None = None):
    turns = [(i, t.raw or t.text) for i, t in enumerate(state.turns[:upto]) if t.role == "candidate"]
    return analyse(turns, rubric, family)


def build_context(state: RoundState, question: Question, rubric: Rubric) -> Context:
    last = max((i for i, t in enumerate(state.turns) if t.role == "candidate"), default=None)
    ev, check = _analyse(state, rubric, question.family)
    before = _analyse(state, rubric, question.family, upto=last)[0] if last is not None else ev
    text = (state.turns[last].raw or state.turns[last].text) if last is not None else ""
    return Context(ev, before, check, text)


def _answered(fu: FollowUp, texts: list[str]) -> bool:
    joined = "\n".join(texts)
    return any(re.search(c, joined, re.IGNORECASE) for c in fu.answer_cues)


def _acknowledgement(ctx: Context, rubric: Rubric, family: str) -> tuple[str | None, str | None]:
    """The most telling new piece of substance in the last answer, among those this family scores:
    its label, and the candidate's own words for it when they are short enough to echo back."""
    scored = {i for cid in rubric.criteria_for(family) for i in rubric.spec(family, cid).items}
    new = (ctx.evidence.present - ctx.before.present) & scored
    for item in rubric.policy.acknowledge_order:
        if item in new:
            hit = ctx.evidence.hits[item][-1]
            words = " ".join(ctx.evidence.texts[hit.turn][hit.start:hit.end].split()).strip(" ,;:")
            echo = words if 8 <= len(words) <= 60 and any(c.isdigit() for c in words) else None
            return rubric.items[item].label, echo
    return None, None


def _probe_candidates(state: RoundState, question: Question, rubric: Rubric, ctx: Context, phase: str):
    """(criterion, item) gaps in phase-priority order, weakest criterion first within a phase."""
    present, asked = ctx.evidence.present, state.asked()
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
            if f"item:{item}" in asked or not _askable(rubric, item, question.family):
                continue
            # Required criteria first; within them phase order, and a 0 beats a 2.
            scored.append(((not required, rank if phase != "deep_dive" else score, rank), cid, item))
            break
    scored.sort(key=lambda s: s[0])
    return [(cid, item) for _, cid, item in scored]


def _gaps(spec, score: int, present: set[str]) -> list[str]:
    """Missing items that would lift the criterion: the next level's first, then the levels above.

    When the next level's item was already asked and still not answered, the round moves on to
    another way up rather than repeating itself or running out of questions.
    """
    out: list[str] = []
    for level in range(score + 1, 4):
        for alt in sorted(spec.levels.get(level, []), key=lambda a: len(a.lacking(present))):
            out += [i for i in alt.lacking(present) if i not in out]
        out += [i for alt in spec.levels.get(level, []) for i in alt.any if i not in present and i not in out]
    return out


def _askable(rubric: Rubric, item: str, family: str) -> bool:
    """An item the interviewer can put as a question for this family; not the checker's verdict."""
    from interviewer.voice import ask_variants

    if item == "capacity_checked":
        return False  # a wrong figure is challenged with the arithmetic instead
    return bool(ask_variants(item, family) or rubric.items[item].missing)


def _follow_ups(state: RoundState, question: Question, company: Company | None, rubric: Rubric, phase: str):
    asked = state.asked()
    texts = [t.raw or t.text for t in state.turns if t.role == "candidate"]
    pool = [(f"fu:{question.id}:{f.id}", f) for f in question.follow_ups]
    if company:
        pool += [(f"fu:{company.name}:{f.id}", f) for f in company.follow_ups]
    order = {"requirements": 0, "high_level": 1, "deep_dive": 2, "wrap_up": 3}
    out = []
    for key, fu in pool:
        if key in asked or _answered(fu, texts):
            continue
        if state.level not in rubric.policy.level_only.get(fu.probes, [state.level]):
            continue
        out.append((key, fu))
    # This phase's follow-ups first, then earlier phases', then later ones (a fast candidate gets
    # there early); company follow-ups first within a tie.
    def rank(kf):
        gap = order[kf[1].phase] - order[phase]
        return (0 if gap == 0 else 1 if gap < 0 else 2 + gap,
                not kf[0].startswith(f"fu:{company.name}") if company else 0)
    out.sort(key=rank)
    return out


def _simulate_move(state: RoundState, question: Question, rubric: Rubric, ctx: Context, phase: str) -> Move | None:
    """Run the candidate's own limits through the simulator, once, when they have stated them."""
    if not rubric.families[question.family].simulate_limits or "sim:limits" in state.asked() or phase not in ("deep_dive", "wrap_up"):
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
    new_substance = bool(ctx.evidence.present - ctx.before.present)
    unsure = bool(_UNSURE.search(answer)) and not new_substance
    thin = not _LETTERS.search(answer) or len(_WORD.findall(answer)) < 3  # e.g. "ok", or another script
    if thin and not unsure and not new_substance and not (last_iv is not None and last_iv.kind == "clarify"):
        return Move(kind="clarify", phase=phase, ask=_core_question(last_iv) or last_ask,
                    criterion=last_iv.criterion if last_iv else None)

    move = _next_move(state, question, company, rubric, ctx, phase)
    move.family = question.family
    # No praise in the same breath as a challenge or a pitfall: it would read as mixed signals.
    move.acknowledgement = ack if move.kind not in ("challenge", "pitfall") else None
    if move.acknowledgement and echo:
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


def _next_move(state, question, company, rubric, ctx: Context, phase: str) -> Move:
    asked = state.asked()
    check = ctx.check
    if check is not None and check.consistent is False:
        key = f"challenge:{check.model}:{','.join(map(str, check.claimed_sequences))}"
        if key not in asked:
            claimed = (f"{check.claimed_sequences[0]} sequences" if check.claimed_sequences
                       else f"{check.claimed_kv_bytes_per_token[0]:,} bytes per token")
            expected = (f"{check.expected_sequences} sequences" if check.claimed_sequences
                        else f"{check.expected_kv_bytes_per_token:,} bytes per token")
            return Move(kind="challenge", phase=phase, criterion="capacity_number", key=key,
                        ask="Where does the difference come from?", facts=_challenge_facts(check),
                        slots={"expected": expected, "claimed": claimed},
                        query=f"KV cache memory budget {check.model} {check.gpu} concurrency arithmetic")
    for pid in ctx.evidence.pitfalls:
        if pid not in ctx.before.pitfalls and f"pitfall:{pid}" not in asked:
            return Move(kind="pitfall", phase=phase, criterion=rubric.pitfalls[pid].criterion, key=f"pitfall:{pid}",
                        pitfall=pid,
                        ask=rubric.pitfalls[pid].feedback, query=rubric.pitfalls[pid].title)
    sim = _simulate_move(state, question, rubric, ctx, phase)
    if sim is not None:
        return sim

    probes = _probe_candidates(state, question, rubric, ctx, phase)
    follow_ups = _follow_ups(state, question, company, rubric, phase)
    last = state.last_interviewer()
    last_kind = last.kind if last else None
    # Two questions in a row on the same criterion read as asking the same thing twice: prefer
    # another criterion when there is one.
    if last is not None and last.criterion:
        probes = [p for p in probes if p[0] != last.criterion] + [p for p in probes if p[0] == last.criterion]
        follow_ups = ([f for f in follow_ups if f[1].probes != last.criterion]
                      + [f for f in follow_ups if f[1].probes == last.criterion])
    # Alternate bank follow-ups with rubric probes so the round follows the question's and the
    # company's reported style rather than reading like a checklist.
    prefer_follow_up = last_kind != "follow_up"
    if probes and (not prefer_follow_up or not follow_ups):
        cid, item = probes[0]
        return Move(kind="probe", phase=phase, criterion=cid, key=f"item:{item}", item=item,
                    ask=rubric.items[item].missing or rubric.items[item].label,
                    query=f"{rubric.criteria[cid].title}: {rubric.items[item].label}")
    if follow_ups:
        key, fu = follow_ups[0]
        return Move(kind="follow_up", phase=phase, criterion=fu.probes, key=key, ask=fu.text,
                    query=fu.text)
    if phase == "wrap_up" and "wrap_up" not in asked:
        return Move(kind="wrap_up", phase=phase, key="wrap_up", ask="", query="summarise design capacity scheduling latency")
    n = sum(1 for k in asked if k.startswith("exhausted"))
    return Move(kind="wrap_up", phase=phase, key=f"exhausted:{n}", ask="", query="interview pitfalls level bar",
                slots={"exhausted": "1"})


def _challenge_facts(check: CapacityCheck) -> list[str]:
    keep = ("KV bytes per token", "weights", "free for KV", "tokens in cache", "max sequences")
    return [t for t in check.arithmetic if t.startswith(keep)]
