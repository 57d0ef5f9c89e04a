"""The steps of a round or a company drill: start, record an answer, plan the reply, add it, end.

interviewer.session.Session composes these into the one path every caller uses; retrieval comes
in as a `retriever` callable so nothing here reaches for the vector store by itself.
"""
from __future__ import annotations

import re
import threading
import time

from interviewer.bank import Company, Question, load_bank
from interviewer.errors import UserError
from interviewer.evidence import extract
from interviewer.grader import Report, grade
from interviewer.moves import Move
from interviewer.policy import decide
from interviewer.round import (
    ANSWER_LIMIT_CHARS,
    DEFAULT_MINUTES,
    MAX_ANSWER_CHARS,
    DrillItem,
    DrillScore,
    RoundState,
    RoundTurn,
)
from interviewer.rubric import load_rubric
from interviewer.transcript import Level
from interviewer.voice import render

DRILL_SIZE = 6


def _company(name: str | None) -> Company | None:
    return load_bank().company(name) if name else None


def question_of(state: RoundState) -> Question:
    return load_bank().question(state.question_id)


def start_round(question_id: str, company: str | None = None, level: Level = "senior",
                minutes: float = DEFAULT_MINUTES, now: float | None = None) -> RoundState:
    """A new round with the question's opening prompt as the first interviewer turn."""
    question = load_bank().question(question_id)
    if company:
        company = _company(company).name
    state = RoundState(question_id=question.id, company=company, level=level,
                       duration_s=int(minutes * 60), started_at=now if now is not None else time.time())
    opening = Move(kind="opening", phase="requirements", ask=question.opening_prompt, key="opening",
                   query=question.title)
    add_reply(state, opening, render(opening, state.id), now=now)
    return state


def drill_items(company: str) -> list[DrillItem]:
    """The company's own follow-ups first, then its design questions', capped at DRILL_SIZE, with no
    two that ask the same thing (see `_same_question`) and none that credits the candidate with
    something a drill's first answer cannot have said."""
    from interviewer.attribution import supported

    bank = load_bank()
    comp = bank.company(company)
    design = [q for q in bank.for_company(comp.name) if q.is_design]
    if not design:
        raise UserError(f"{comp.name} has no design questions in the bank; drills run design follow-ups")
    home = design[0]
    pool = [(home, f) for f in comp.follow_ups] + [(q, f) for q in design for f in q.follow_ups
                                                    if f.phase == "deep_dive"]
    out: list[DrillItem] = []
    kept = []
    for q, f in pool:
        text = f.text if supported(f.text, []) else f.text_cold
        if not text or any(_same_question(f, g) for g in kept):
            continue
        kept.append(f)
        out.append(DrillItem(follow_up_id=f.id, question_id=q.id, family=q.family, criterion=f.probes,
                             text=text, answer_cues=f.answer_cues))
    return out[:DRILL_SIZE]


def _same_question(a, b) -> bool:
    """Two follow-ups ask the same thing when the same answer would answer both: a shared id, or
    answer cues that mostly coincide, or (same criterion) wording that is nearly the same."""
    if a.id == b.id:
        return True
    shared = set(a.answer_cues) & set(b.answer_cues)
    if shared and len(shared) * 2 >= min(len(a.answer_cues), len(b.answer_cues)):
        return True
    if a.probes != b.probes:
        return False
    from interviewer.embeddings import hash_embed

    return float(hash_embed(a.text) @ hash_embed(b.text)) >= 0.35


def start_drill(company: str, level: Level = "senior", now: float | None = None) -> RoundState:
    items = drill_items(company)
    state = RoundState(mode="drill", question_id=items[0].question_id, company=_company(company).name,
                       level=level, duration_s=15 * 60, drill=items,
                       started_at=now if now is not None else time.time())
    first = _drill_move(state, 0)
    add_reply(state, first, first.ask, now=now)
    return state


def _drill_move(state: RoundState, index: int) -> Move:
    item = state.drill[index]
    return Move(kind="follow_up", phase="deep_dive", ask=item.text, criterion=item.criterion,
                key=f"drill:{index}", query=item.text)


def clean_answer(text: str | None) -> tuple[str, str | None, str | None]:
    """(text to keep, untruncated original if cut, notice). Never loses what was typed."""
    raw = (text or "").replace("\x00", "")
    if len(raw) > MAX_ANSWER_CHARS:
        return (raw[:MAX_ANSWER_CHARS], raw,
                f"Your answer was {len(raw):,} characters; the interviewer read the first {MAX_ANSWER_CHARS:,} "
                "(the whole answer is kept and graded).")
    return raw, None, None


def check_answer_size(text: str | None) -> None:
    """Refuse an answer past ANSWER_LIMIT_CHARS with one line that says what to do."""
    if text is not None and len(text) > ANSWER_LIMIT_CHARS:
        raise UserError(f"That answer is {len(text):,} characters; the limit is {ANSWER_LIMIT_CHARS:,}. Nothing was "
                        "recorded: trim it (the interviewer reads the first 20,000) and send it again.")


def record_answer(state: RoundState, text: str | None, now: float | None = None) -> str | None:
    """Append the candidate's answer; returns a notice when it had to be shortened for the reply."""
    check_answer_size(text)
    kept, raw, notice = clean_answer(text)
    state.turns.append(RoundTurn(role="candidate", text=kept, raw=raw, at_s=_at(state, now),
                                 phase=state.phase_at(now)))
    return notice


def _at(state: RoundState, now: float | None) -> float:
    return round(state.elapsed(now), 1)


def plan_reply(state: RoundState, now: float | None = None, retriever=None) -> Move:
    """Decide the interviewer's next move, grounded by `retriever` (None: ungrounded)."""
    if state.mode == "drill":
        move = _plan_drill(state, now)
    else:
        rubric = load_rubric()
        move = decide(state, question_of(state), _company(state.company), rubric, now)
    if retriever is not None and move.kind not in ("empty", "clarify", "close") and move.query:
        move.passages = retriever(move.query, move.criterion)
    return move


_warm = threading.Event()
_warm_lock = threading.Lock()


def warm_up(retriever, background: bool = True) -> None:
    """Load the rubric, presets and vector store before the first answer needs them, once per process.

    The UI calls this when a round starts, so the first reply does not pay for the import and
    the first ingest (about 2.5 s here) while the candidate is still reading the prompt.
    """
    def work() -> None:
        with _warm_lock:
            if not _warm.is_set():
                from interviewer.capacity import load_presets

                load_rubric()
                load_presets()
                retriever("KV cache memory budget", None, k=1)
                _warm.set()

    if _warm.is_set():
        return
    if background:
        threading.Thread(target=work, name="interviewer-warm-up", daemon=True).start()
    else:
        work()


def add_reply(state: RoundState, move: Move, text: str, notice: str | None = None,
              now: float | None = None) -> RoundTurn:
    turn = RoundTurn(role="interviewer", text=text, kind=move.kind, key=move.key, criterion=move.criterion,
                     phase=move.phase, passages=move.passages, notice=notice, at_s=_at(state, now))
    state.turns.append(turn)
    return turn


def end_round(state: RoundState, now: float | None = None, retriever=None) -> Report | None:
    """Close the round and grade it; None when the candidate never answered."""
    if state.ended_at is None:
        state.ended_at = now if now is not None else time.time()
    if not any(t.role == "candidate" and t.text.strip() for t in state.turns):
        return None
    report = grade(state.transcript(), question_of(state) if state.mode == "round" else None)
    if state.mode == "drill":
        report = _drill_report(state, report)
    if retriever is not None:
        report = _with_sources(report, retriever)
    state.report = report.model_dump(mode="json")
    return report


def _drill_report(state: RoundState, report: Report) -> Report:
    """A drill's report counts only what was asked: the criteria its follow-ups probed, scored as
    the on-the-spot scores were, and next steps for those criteria alone."""
    rubric = load_rubric()
    asked = {s.criterion for s in state.drill_scores}
    best: dict[str, int] = {}
    for s in state.drill_scores:
        best[s.criterion] = max(best.get(s.criterion, 0), s.score)
    criteria = [c.model_copy(update={"score": best[c.id]}) for c in report.criteria if c.id in asked]
    overall = round(100 * sum(s.score for s in state.drill_scores) / (3 * len(state.drill_scores))) \
        if state.drill_scores else 0
    steps = [rubric.criteria[c.id].next_step for c in sorted(criteria, key=lambda c: c.score) if c.score < 3]
    return report.model_copy(update={"criteria": criteria, "overall": overall, "next_steps": steps[:4]})


def _with_sources(report: Report, retriever) -> Report:
    """Next steps cite the passages that teach each missed criterion."""
    rubric = load_rubric()
    steps = []
    for step, crit in zip(report.next_steps, _step_criteria(report)):
        if crit is None:
            steps.append(step)
            continue
        passages = retriever(rubric.criteria[crit].title + " " + rubric.criteria[crit].summary, crit, k=2)
        cites = "; ".join(f"{p.title.rsplit(': ', 1)[-1]} ({p.source})" for p in passages)
        steps.append(f"{step} Read: {cites}." if cites else step)
    report.next_steps = steps
    return report


def _step_criteria(report: Report) -> list[str | None]:
    rubric = load_rubric()
    by_step = {rubric.criteria[c.id].next_step: c.id for c in report.criteria}
    return [by_step.get(s) for s in report.next_steps]


# --- company drill ------------------------------------------------------------------------

def _plan_drill(state: RoundState, now: float | None) -> Move:
    """Score the answer to the current drill follow-up on the spot, then ask the next one."""
    index = len(state.drill_scores)
    answer = next(t for t in reversed(state.turns) if t.role == "candidate")
    if not (answer.raw or answer.text).strip():
        return Move(kind="empty", phase="deep_dive", ask=state.drill[index].text, key=None)
    state.drill_scores.append(score_drill_answer(state.drill[index], answer.raw or answer.text, len(state.turns) - 1))
    s = state.drill_scores[-1]
    # The score card beside the reply carries the detail; the interviewer only says the score.
    verdict = (f"That one scores {s.score}/3 on {load_rubric().criteria[s.criterion].title.lower()}"
               + ("." if s.answered else ", and it didn't quite answer what I asked."))
    if index + 1 >= len(state.drill) or state.time_up(now):
        return Move(kind="close", phase="wrap_up", ask="", key="close", facts=[verdict])
    nxt = _drill_move(state, index + 1)
    nxt.facts = [verdict]
    return nxt


def score_drill_answer(item: DrillItem, text: str, turn: int) -> DrillScore:
    """0-3 on what this follow-up asked, and nothing else.

    3: it answers the question (its answer cues) with specifics (two of the cues, or the criterion's
    evidence at level 2: a number or a named rule); 2: it answers the question; 1: it is on the
    criterion but does not answer what was asked; 0: neither. Feedback names only what was asked.
    """
    rubric = load_rubric()
    ev = extract([(turn, text)], rubric, item.family)
    spec = rubric.spec(item.family, item.criterion)
    on_criterion = spec.score(ev.present)
    cues = sum(bool(re.search(c, text, re.IGNORECASE)) for c in item.answer_cues)
    answered = cues > 0
    if answered:
        score = 3 if cues >= 2 or on_criterion >= 2 else 2
    else:
        score = 1 if on_criterion >= 1 else 0
    if score == 3:
        feedback = "Full marks on this one."
    elif answered:
        feedback = "You answered it; to make it a 3, put a number or a named rule on your answer."
    else:
        feedback = f"That didn't answer what was asked: {item.text}"
    hits = [h for i in spec.items for h in ev.hits.get(i, [])]
    return DrillScore(follow_up_id=item.follow_up_id, criterion=item.criterion, score=score, answered=answered,
                      feedback=feedback, quote=hits[0].quote if hits else None)
