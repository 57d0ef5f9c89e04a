"""Mock round page: set up a round or a company drill, hold it in the chat, end it.

Each answer goes through the browser's Session (interviewer.session): submit (saved before the
reply), the reply streamed into the chat, complete (saved). A refreshed page, or a restarted
server, resumes the browser's open round from the store; an answer left without a reply gets one.
"""
from __future__ import annotations

import logging

import streamlit as st

from interviewer.bank import load_bank
from interviewer.interview import drill_items, question_of, warm_up
from interviewer.round import ANSWER_LIMIT_CHARS, DEFAULT_MINUTES, RoundState, phase_titles, phases
from interviewer.rubric import load_rubric
from interviewer.session import judge_job, start_judge, vector_store_retriever
from interviewer.ui import chat, common

log = logging.getLogger("interviewer.ui.round")
ANY = "Any company"
LEVELS = ["mid", "senior", "staff"]
MODES = ["Mock round", "Company drill"]


# --------------------------------------------------------------------------- which round


def current_round(store):
    """This session's round, else the browser's open round in the store (a refresh resumes it)."""
    state = st.session_state.get("round")
    if state is None and store is not None:
        state = store.latest_open(common.owner())
        if state is not None:
            common.session(store).resume(state)  # an answer left without a reply gets one
            common.remember(state)
            st.session_state["round"] = state
            st.toast("Resumed your open round.", icon=":material/restore:")
    return state


def finish(state, store) -> None:
    """End the round (or drill), grade it, save it, and show the report (a drill shows its summary).

    The report shows at once with the deterministic grade; an LLM judge, when configured, reads
    the round in the background and its view is added when it arrives.
    """
    svc = common.session(store)
    report = svc.finish(state)
    common.remember(state)
    if svc.unsaved:
        common.saving_trouble(state, svc.save_error)
    if report is not None and common.uses_llm(common.llm_settings()) and judge_job(state.id) is None:
        start_judge(svc, state, common.llm_settings())
    if state.mode == "drill":
        st.session_state["round"] = state  # kept to show the summary table
        st.rerun()
    st.session_state.pop("round", None)
    st.session_state["report_id"] = state.id
    common.goto(common.REPORT_PAGE, **{common.REPORT_PARAM: state.id})


# --------------------------------------------------------------------------- setup


def design_questions(company: str | None):
    bank = load_bank()
    return [q for q in bank.questions if q.is_design and (company is None or company in q.companies)]


def phase_plan(minutes: float) -> str:
    budgets = dict(RoundState(question_id="-", duration_s=int(minutes * 60)).phase_budgets())
    return " · ".join(f"{title} {budgets[pid] / 60:.0f} min" for pid, title, _ in phases())


def setup(store) -> None:
    st.title("Mock design round")
    st.caption("An LLM-inference / GPU-serving design round with an interviewer who pushes on what is "
               "missing, then a graded rubric report that quotes your own words.")
    mode = st.segmented_control("Mode", MODES, default=MODES[0], required=True, key="setup_mode")
    if mode == MODES[1]:
        drill_setup(store)
    else:
        round_setup(store)


def _company_label(name: str) -> str:
    if name == ANY:
        return name
    n = len(design_questions(name))
    return f"{name} ({n} design question{'s' if n != 1 else ''})"


def round_setup(store) -> None:
    bank = load_bank()
    names = [ANY] + [c.name for c in bank.companies]
    company = st.selectbox("Company", names, format_func=_company_label, key="setup_company")
    questions = design_questions(None if company == ANY else company)
    if not questions:
        st.info(f"No design rounds are reported for {company}: its questions are coding rounds (see the "
                "Question bank). Pick another company, or try a company drill.")
        return
    ids = [q.id for q in questions]
    qid = st.selectbox("Question", ids, format_func=lambda i: bank.question(i).title, key="setup_question")
    q = bank.question(qid)
    rounds = ", ".join(q.rounds) if q.rounds else "round not reported"
    st.caption(f"Format: {q.format} · Rounds: {rounds} · Reported at: {', '.join(q.companies) or 'no company named'}")
    st.markdown(common.md(q.summary))
    cols = st.columns(2)
    with cols[0]:
        level = st.segmented_control("Level", LEVELS, default="senior", required=True, key="setup_level")
    with cols[1]:
        minutes = st.number_input("Duration (minutes)", min_value=10, max_value=120, value=DEFAULT_MINUTES, step=5,
                                  key="setup_minutes")
    st.caption("Phases: " + phase_plan(minutes))
    if st.button("Start the round", type="primary", key="start_round", icon=":material/play_arrow:"):
        state = common.session(store).start_round(qid, None if company == ANY else company, level, minutes)
        common.remember(state)
        st.session_state["round"] = state
        st.rerun()


def drill_setup(store) -> None:
    bank = load_bank()
    names = [c.name for c in bank.companies if design_questions(c.name)]
    st.caption("A company drill asks that company's reported follow-ups one at a time and scores each "
               "answer on the spot (0-3 on the criterion it probes), then moves on. About 15 minutes.")
    company = st.selectbox("Company", names, key="drill_company")
    n = len(drill_items(company))
    st.caption(f"{n} follow-up{'s' if n != 1 else ''} from {company}'s reported rounds.")
    level = st.segmented_control("Level", LEVELS, default="senior", required=True, key="drill_level")
    if st.button("Start the drill", type="primary", key="start_drill", icon=":material/play_arrow:"):
        state = common.session(store).start_drill(company, level)
        common.remember(state)
        st.session_state["round"] = state
        st.rerun()


# --------------------------------------------------------------------------- during the round


def sidebar(state, store) -> None:
    rubric = load_rubric()
    family = question_of(state).family
    with st.sidebar:
        label = "End drill" if state.mode == "drill" else "End round"
        if st.button(label, type="primary", key="end_round", icon=":material/stop_circle:", width="stretch"):
            finish(state, store)
        st.subheader("The bar")
        level_bar = rubric.levels.get(state.level)
        if level_bar:
            st.caption(f"{state.level.capitalize()} bar: {common.md(level_bar.bar)}")
        for cid in rubric.required:
            crit = rubric.criteria[cid]
            reads_as = rubric.spec(family, cid).reads_as or crit.summary
            with st.container(border=True):
                st.markdown(f"**{common.md(crit.title)}**")
                st.caption(common.md(reads_as))
                if rubric.families[family].memory_capacity:  # the anchors are written for this reading
                    st.caption(f"**Full marks:** {common.md(crit.anchors[3])}")
        if state.mode == "round":
            st.subheader("Phases")
            now = state.phase_at()
            budgets = dict(state.phase_budgets())
            for pid, title, _ in phases():
                line = f"{title} · {budgets[pid] / 60:.0f} min"
                st.markdown(f"**▸ {line}**" if pid == now else f"{line}")


@st.fragment(run_every=10)
def clock_panel() -> None:
    """Elapsed / remaining and the phase with its budget; ticks every 10 s, ends the round at zero."""
    common.guard(_clock)


def _clock() -> None:
    state = st.session_state.get("round")
    if state is None or state.ended:
        return
    if state.time_up():
        st.rerun(scope="app")
    elapsed, remaining = state.elapsed(), state.remaining()
    cols = st.columns([1, 1, 2])
    cols[0].metric("Elapsed", common.clock(elapsed))
    cols[1].metric("Remaining", common.clock(remaining))
    if state.mode == "drill":
        done = len(state.drill_scores)
        cols[2].metric("Follow-up", f"{min(done + 1, len(state.drill))} of {len(state.drill)}")
        st.progress(min(1.0, done / max(1, len(state.drill))))
        return
    phase = state.phase_at()
    budget = dict(state.phase_budgets())[phase]
    left = state.phase_deadline(phase) - elapsed
    cols[2].metric("Phase", phase_titles()[phase])
    st.progress(min(1.0, elapsed / max(1, state.duration_s)),
                text=f"{phase_titles()[phase]}: {budget / 60:.0f} min budget, "
                     f"{common.clock(max(0, left))} left in this phase")


def header(state) -> None:
    if state.mode == "drill":
        st.title(f"{state.company} drill")
        st.caption(f"Level: {state.level} · each answer is scored on the spot")
        return
    q = question_of(state)
    st.title(q.title)
    bits = [state.company or "no company", f"level: {state.level}", f"{state.duration_s // 60} minutes", q.format]
    st.caption(" · ".join(bits))


def take_turn(state, store, answer: str) -> None:
    """One answer through the Session; the reply streams into its chat bubble."""
    svc = common.session(store)
    with st.chat_message("user"):
        chat.candidate_turn_text(answer)
    with st.spinner("The interviewer is thinking..."):
        pending = svc.submit(state, answer)
    common.remember(state)
    if state.mode == "drill" and pending.move.kind != "empty" and state.drill_scores:
        chat.score_card(state.drill_scores[-1])
    with st.chat_message("assistant"):
        box = st.empty()
        try:
            if svc.voice.uses_llm:
                with box.container():
                    st.write_stream(pending.utterance.chunks())
            turn = svc.complete(state, pending)
        finally:  # a new answer mid-stream reruns the script: keep the reply as far as it got
            svc.settle(state, pending)
            common.remember(state)
        box.markdown(common.interviewer_markdown(turn.text))
        chat.notices(turn.notice)
        chat.passages(turn.passages)
    if svc.unsaved:
        common.saving_trouble(state, svc.save_error)
    if state.ended:
        finish(state, store)


def too_long(answer: str) -> None:
    """Refuse an oversized paste, keeping the text where the candidate can trim and resend it."""
    st.error(f"That answer is {len(answer):,} characters; the limit is {ANSWER_LIMIT_CHARS:,}. Nothing was recorded. "
             "Your text is below: trim it and send it again.")
    st.text_area("Your text (not sent)", answer[:ANSWER_LIMIT_CHARS * 2], height=200, key="too_long_text")


def run_round(state, store) -> None:
    placeholder = "Your answer (Enter to send)" if state.mode == "round" else "Your answer to this follow-up"
    # No max_chars: a browser would cut a long paste silently; the server refuses it and keeps the text.
    answer = st.chat_input(placeholder, key="answer")
    if answer is not None and not isinstance(answer, str):  # a ChatInputValue (files are not accepted)
        answer = getattr(answer, "text", "") or ""
    if answer is not None and len(answer) > ANSWER_LIMIT_CHARS:
        too_long(answer)
        answer = None
    if answer is None and state.time_up():
        finish(state, store)
    sidebar(state, store)
    header(state)
    clock_panel()
    chat.render_turns(state)
    if answer is not None:
        take_turn(state, store, answer)


# --------------------------------------------------------------------------- drill summary


def drill_summary(state) -> None:
    import pandas as pd

    rubric = load_rubric()
    st.title(f"{state.company} drill: summary")
    rows = []
    for i, item in enumerate(state.drill):
        s = state.drill_scores[i] if i < len(state.drill_scores) else None
        crit = rubric.criteria.get(item.criterion)
        rows.append({
            "#": i + 1,
            "Follow-up": item.text,
            "Criterion": crit.title if crit else item.criterion,
            "Score": f"{s.score}/3" if s else "not reached",
            "Answered the question": ("yes" if s.answered else "no") if s else "",
            "Feedback": s.feedback if s else "",
        })
    scored = state.drill_scores
    if scored:  # the last answer's score, which the closing reply had no room to show
        st.caption(f"Your last answer ({len(scored)} of {len(state.drill)}):")
        chat.score_card(scored[-1])
    cols = st.columns(3)
    cols[0].metric("Average score", f"{sum(s.score for s in scored) / len(scored):.1f}/3" if scored else "-")
    cols[1].metric("Answered", f"{sum(s.answered for s in scored)} of {len(state.drill)}")
    cols[2].metric("Full marks", f"{sum(s.score == 3 for s in scored)}")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    cols = st.columns([1, 1, 3])
    if cols[0].button("Start another", type="primary", key="drill_again"):
        st.session_state.pop("round", None)
        st.rerun()
    if state.report and cols[1].button("Graded report", key="drill_report"):
        st.session_state.pop("round", None)
        st.session_state["report_id"] = state.id
        common.goto(common.REPORT_PAGE, **{common.REPORT_PARAM: state.id})
    with st.expander("Transcript"):
        chat.render_turns(state)


# --------------------------------------------------------------------------- page


def main() -> None:
    store = common.get_store(allow_unsaved=True)
    if store is None and not st.session_state.get("nosave"):
        return
    state = current_round(store)
    if state is None:
        setup(store)
    elif state.ended:
        drill_summary(state)
    else:
        warm_up(vector_store_retriever)  # the vector store loads while the candidate reads the prompt, not on their first answer
        run_round(state, store)


common.guard(main)
