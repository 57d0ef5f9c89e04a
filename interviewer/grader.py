"""The deterministic grader: evidence -> per-criterion scores with quotes -> overall and level verdict."""
from __future__ import annotations

from pydantic import BaseModel, Field

from interviewer.bank import Question, load_bank
from interviewer.checks import CapacityCheck, check_capacity
from interviewer.errors import UserError
from interviewer.evidence import Evidence, Hit, extract
from interviewer.rubric import Rubric, load_rubric
from interviewer.transcript import Transcript

MAX_QUOTES = 4
VERDICTS = ("below-mid", "mid", "senior", "staff")


class Quote(BaseModel):
    turn: int
    quote: str


class CriterionResult(BaseModel):
    id: str
    title: str
    required: bool
    score: int
    evidence: list[Quote] = Field(default_factory=list)
    feedback: str
    missing: list[str] = Field(default_factory=list)
    reads_as: str = ""
    found: list[str] = Field(default_factory=list)  # labels of the evidence items present


class PitfallResult(BaseModel):
    id: str
    title: str
    turn: int
    quote: str
    feedback: str


class Report(BaseModel):
    question_id: str
    question_title: str = ""
    company: str | None = None
    level: str | None = None
    family: str
    overall: int
    criteria: list[CriterionResult]
    pitfalls: list[PitfallResult] = Field(default_factory=list)
    level_verdict: str
    down_level_risk: str | None = None
    next_steps: list[str] = Field(default_factory=list)
    capacity_check: CapacityCheck | None = None
    ignored_instructions: list[Quote] = Field(default_factory=list)
    judge: dict | None = None  # filled in when an LLM judge was reconciled (interviewer.judge)

    def criterion(self, cid: str) -> CriterionResult:
        return next(c for c in self.criteria if c.id == cid)


def _quotes(hits: list[Hit], texts: dict[int, str]) -> list[Quote]:
    """Distinct quotes in transcript order; a quote overlapping one already taken adds nothing."""
    taken: list[tuple[int, int, int]] = []
    out = []
    for h in sorted(hits, key=lambda h: (h.turn, h.start)):
        if not h.quote:
            continue
        pos = texts[h.turn].find(h.quote, max(0, h.start - len(h.quote)))
        pos = pos if pos >= 0 else texts[h.turn].find(h.quote)
        span = (h.turn, pos, pos + len(h.quote))
        if any(t == span[0] and s < span[2] and span[1] < e for t, s, e in taken):
            continue
        taken.append(span)
        out.append(Quote(turn=h.turn, quote=h.quote))
    return out[:MAX_QUOTES]


def _capacity_items(ev: Evidence, check: CapacityCheck | None) -> None:
    """Add the computed capacity items from the calculator check."""
    if check is None:
        return
    anchor = ev.first("concurrency") or ev.first("kv_per_token") or ev.first("kv_per_sequence")
    where = anchor or next(iter(h for hs in ev.hits.values() for h in hs), None)
    if where is None:
        return
    ev.add(Hit("named_hardware", where.turn, where.start, where.end, where.quote))
    if check.consistent:
        ev.add(Hit("capacity_checked", where.turn, where.start, where.end, where.quote))


def analyse(turns: list[tuple[int, str]], rubric: Rubric, family: str) -> tuple[Evidence, CapacityCheck | None]:
    """Evidence from the candidate turns, plus the calculator's check of their capacity figures."""
    ev = extract(turns, rubric, family)
    check = None
    if rubric.families[family].memory_capacity:
        claim_hits = [h for i in ("concurrency", "kv_per_token") for h in ev.hits.get(i, [])]
        check = check_capacity([t for _, t in turns], [h.quote for h in claim_hits])
        _capacity_items(ev, check)
    return ev, check


def _level_verdict(scores: dict[str, int], rubric: Rubric) -> str:
    req = [scores[c] for c in rubric.required]
    verdict = "below-mid"
    for name in ("mid", "senior", "staff"):
        bar = rubric.levels[name]
        if (min(req) >= bar.min_each_required and sum(req) >= bar.min_required_sum
                and scores["scheduling_policy"] >= bar.min_scheduling
                and scores.get("operating_model", 0) >= bar.min_operating_model):
            verdict = name
    return verdict


def _feedback(score: int, spec, present: set[str], rubric: Rubric, cid: str) -> tuple[str, list[str]]:
    criterion = rubric.criteria[cid]
    if score == 3:
        return f"Full marks: {criterion.anchors[3]}", []
    lacking = spec.lacking_for(score + 1, present)
    missing = [rubric.items[i].missing or rubric.items[i].label for i in lacking]
    head = f"Scored {score} ({criterion.anchors[score]})"
    return f"{head} To reach {score + 1}: " + "; ".join(missing) + ".", missing


def grade(transcript: Transcript, question: Question | None = None, rubric: Rubric | None = None) -> Report:
    """Grade a transcript against the rubric for its question's family."""
    rubric = rubric or load_rubric()
    question = question or load_bank().question(transcript.question_id)
    if question.family == "coding":
        raise UserError(f"{question.id} is a coding question; the rubric grades design and knowledge rounds")
    turns = transcript.candidate_turns()
    if not turns:
        raise UserError("no candidate turns to grade")
    family = question.family
    ev, check = analyse(turns, rubric, family)
    present = ev.present

    results, scores = [], {}
    for cid in rubric.criteria_for(family):
        spec = rubric.spec(family, cid)
        score = spec.score(present)
        feedback, missing = _feedback(score, spec, present, rubric, cid)
        if cid == "capacity_number" and check is not None and check.consistent is False:
            score = min(score, 2)
            ratio = f"{check.off_by}x that" if check.off_by else "off in its per-token KV bytes"
            feedback = (f"Scored {score}: the figure does not check out. The calculator gives "
                        f"{check.summary()}; your figure is {ratio}. "
                        "Recheck the arithmetic: " + " ".join(check.arithmetic[:4]))
            missing = [rubric.items["capacity_checked"].missing]
        hits = [h for i in spec.items if i in present for h in ev.hits[i]]
        results.append(CriterionResult(
            id=cid, title=rubric.criteria[cid].title, required=cid in rubric.required, score=score,
            evidence=_quotes(hits, ev.texts) if score else [], feedback=feedback, missing=missing,
            reads_as=spec.reads_as or rubric.criteria[cid].summary,
            found=[rubric.items[i].label for i in spec.items if i in present],
        ))
        scores[cid] = score

    pitfalls = [PitfallResult(id=pid, title=rubric.pitfalls[pid].title, turn=h.turn, quote=h.quote,
                              feedback=rubric.pitfalls[pid].feedback)
                for pid, h in sorted(ev.pitfalls.items(), key=lambda kv: kv[1].turn)]
    return _assemble(transcript, question, rubric, results, scores, pitfalls, check, ev)


def _assemble(transcript, question, rubric, results, scores, pitfalls, check, ev) -> Report:
    s = rubric.scoring
    supporting = rubric.families[question.family].supporting
    overall = sum(scores[c] / 3 * s.required_weight for c in rubric.required)
    if supporting:
        overall += sum(scores[c] for c in supporting) / (3 * len(supporting)) * s.supporting_weight
    overall -= min(len(pitfalls) * s.pitfall_penalty, s.max_pitfall_penalty)
    verdict = _level_verdict(scores, rubric)
    risk = None
    target = transcript.level
    if target and VERDICTS.index(verdict) < VERDICTS.index(target):
        gaps = [rubric.criteria[c].title.lower() for c in rubric.required if scores[c] < 2]
        risk = (f"Below the {target} bar ({rubric.levels[target].bar})"
                + (f"; weakest: {', '.join(gaps)}. " if gaps else ". ") + rubric.down_level_risk)
    ordered = sorted(results, key=lambda r: (not r.required, r.score))
    next_steps = [rubric.criteria[r.id].next_step for r in ordered if r.score < 3][:4]
    next_steps += [p.feedback for p in pitfalls][: max(0, 5 - len(next_steps))]
    return Report(
        question_id=question.id, question_title=question.title, company=transcript.company,
        level=transcript.level, family=question.family, overall=max(0, min(100, round(overall))),
        criteria=results, pitfalls=pitfalls, level_verdict=verdict, down_level_risk=risk,
        next_steps=next_steps, capacity_check=check,
        ignored_instructions=[Quote(turn=h.turn, quote=h.quote) for h in ev.ignored],
    )
