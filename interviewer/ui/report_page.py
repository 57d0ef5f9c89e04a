"""Report page: the graded rubric report for the round just ended, or any past round."""
from __future__ import annotations

import json
import logging

import streamlit as st

from interviewer.grader import Report
from interviewer.report import BAR, to_json, to_markdown
from interviewer.session import judge_job
from interviewer.ui import chat, common

log = logging.getLogger("interviewer.ui.report")


@st.cache_data(show_spinner=False, max_entries=32)
def _pdf(report_json: str, ended_at: float | None) -> bytes:
    from interviewer.pdf import report_pdf

    return report_pdf(Report.model_validate_json(report_json), date=ended_at)


def claims_section(report: Report) -> None:
    """What we heard you claim: each figure, what it was read as, and its check in a spoken sentence."""
    from interviewer.report import CHECK_WORDS, MAX_HEARD, claim_line, heard

    checked, rest = heard(report)
    if not (checked or rest):
        return
    st.header("What we heard you claim")
    for c in checked:
        status = c.check.status
        flag = " (you said you would not)" if c.negated else " (a what-if)" if c.hypothetical else ""
        with st.container(border=True):
            st.markdown(f"**{common.md(c.label or c.kind)}**{flag}: "
                        f"**{common.md(CHECK_WORDS.get(status, status))}** · turn {c.turn}")
            st.text(c.span)
            if c.check.explanation:
                st.markdown(common.md(c.check.explanation))
            if c.check.trace:
                st.code("\n".join(c.check.trace), language=None, wrap_lines=True)
    if rest:
        shown = rest[:MAX_HEARD]
        more = f"; and {len(rest) - len(shown)} more" if len(rest) > len(shown) else ""
        st.caption("Also heard (not checked): " + common.md("; ".join(claim_line(c) for c in shown) + more))


def _choices(store) -> list[tuple[str, str]]:
    """(round id, label) for the visitor's graded rounds, newest first."""
    out = []
    if store is not None:
        for r in store.list(common.owner()):
            if r.overall is None:
                continue
            title = r.question_title or r.question_id
            kind = "drill" if r.mode == "drill" else "round"
            out.append((r.id, f"{common.when(r.ended_at or r.started_at)} · {r.company or 'no company'} · "
                              f"{title} ({kind}) · {r.overall}/100"))
    for rid, state in st.session_state.get("mem_rounds", {}).items():
        if state.report and rid not in {i for i, _ in out}:
            out.append((rid, f"{common.when(state.ended_at)} · {state.company or 'no company'} · "
                             f"{state.question_id} (this session) · {state.report.get('overall')}/100"))
    return out


def criterion_block(c) -> None:
    with st.container(border=True):
        head = st.columns([4, 1])
        tag = "required" if c.required else "supporting"
        head[0].markdown(f"#### {common.md(c.title)}  \n:gray[{tag} · {common.md(c.reads_as)}]")
        head[1].metric(c.title, f"{c.score}/3", label_visibility="collapsed")
        st.progress(c.score / 3, text=BAR[c.score])
        if c.evidence:
            st.markdown("**Your words**")
            with st.container(border=True):
                for q in c.evidence:
                    st.caption(f"Turn {q.turn}")
                    st.text(q.quote)
        else:
            st.caption("No evidence for this criterion in your answers.")
        st.markdown(common.md(c.feedback))
        if c.missing:
            st.markdown("**Missing:**\n" + "\n".join(f"- {common.md(m)}" for m in c.missing))


def scorecard(report: Report) -> None:
    """Every criterion's score at a glance; the evidence follows below."""
    import pandas as pd

    rows = [{"Criterion": c.title, "Required": "required" if c.required else "supporting", "Score": c.score,
             "Reached": BAR[c.score], "Quotes": len(c.evidence)} for c in report.criteria]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                 column_config={"Score": st.column_config.ProgressColumn("Score", min_value=0, max_value=3,
                                                                         format="%d/3")})


def downloads(report: Report, state) -> None:
    base = f"report-{report.question_id}-{state.id}"
    row = st.container(horizontal=True, gap="small")
    row.download_button("Markdown", to_markdown(report), file_name=f"{base}.md", mime="text/markdown",
                        icon=":material/download:", on_click="ignore", key="dl_md")
    row.download_button("JSON", json.dumps(to_json(report), indent=2, ensure_ascii=False),
                        file_name=f"{base}.json", mime="application/json", icon=":material/download:",
                        on_click="ignore", key="dl_json")
    try:
        pdf = _pdf(report.model_dump_json(), state.ended_at)
    except ImportError:
        row.caption("PDF export is not available in this installation.")
    except Exception as exc:
        log.exception("PDF export failed")
        row.caption(f"PDF export failed ({type(exc).__name__}); Markdown and JSON still work.")
    else:
        row.download_button("PDF", pdf, file_name=f"{base}.pdf", mime="application/pdf",
                            icon=":material/download:", on_click="ignore", key="dl_pdf")


def show_report(report: Report, state) -> None:
    st.title(f"Report: {report.question_title or report.question_id}")
    meta = [report.company or "no company", f"target level: {report.level or 'not set'}",
            "company drill" if state.mode == "drill" else "mock round", common.when(state.ended_at)]
    st.caption(" · ".join(m for m in meta if m))
    cols = st.columns(4)
    cols[0].metric("Overall", f"{report.overall}/100", border=True)
    cols[1].metric("Level verdict", report.level_verdict, border=True)
    req = [c for c in report.criteria if c.required]
    cols[2].metric("Required elements", f"{sum(c.score for c in req)}/{3 * len(req)}", border=True)
    cols[3].metric("Pitfalls hit", len(report.pitfalls), border=True)
    if report.down_level_risk:
        st.warning(f"**Down-level risk.** {common.md(report.down_level_risk)}", icon=":material/trending_down:")
    else:
        st.success("No down-level risk against the target level.", icon=":material/check_circle:")
    judge_status(state)
    downloads(report, state)

    scorecard(report)
    st.header("Criteria")
    for c in report.criteria:
        criterion_block(c)

    if report.pitfalls:
        st.header("Pitfalls hit")
        for p in report.pitfalls:
            with st.container(border=True):
                st.markdown(f"**{common.md(p.title)}** (turn {p.turn})")
                st.text(p.quote)
                st.markdown(common.md(p.feedback))

    if report.capacity_check:
        cc = report.capacity_check
        st.header("Capacity check")
        verdict = {True: "Your figure checks out.", False: "Your figure does not check out.",
                   None: "No figure of yours to check."}[cc.consistent]
        st.markdown(f"{common.md(cc.summary())}. **{verdict}**")
        if cc.claimed_sequences or cc.claimed_kv_bytes_per_token:
            claims = [f"{n:,} sequences" for n in cc.claimed_sequences]
            claims += [f"{n:,} KV bytes per token" for n in cc.claimed_kv_bytes_per_token]
            st.caption("You said: " + "; ".join(claims))
        if cc.arithmetic:
            st.code("\n".join(cc.arithmetic), language=None, wrap_lines=True)

    claims_section(report)

    if report.judge:
        st.header("LLM judge")
        disagreements = report.judge.get("disagreements") or []
        if disagreements:
            st.markdown("Where the LLM judge disagreed with the rubric grader:")
            for d in disagreements:
                st.markdown(f"- {common.md(str(d))}")
        else:
            st.caption("The LLM judge agreed with the rubric grader.")

    if report.ignored_instructions:
        st.header("Ignored")
        st.caption("Text addressed to the grader was not scored:")
        for q in report.ignored_instructions:
            st.caption(f"Turn {q.turn}")
            st.text(q.quote)

    st.header("Next steps")
    st.markdown("\n".join(f"{i}. {common.md(s)}" for i, s in enumerate(report.next_steps, 1)) or "Nothing to add.")

    if state.mode == "drill" and state.drill_scores:
        _drill_table(state)
    with st.expander("Transcript"):
        chat.render_turns(state)


def _drill_table(state) -> None:
    import pandas as pd

    st.header("Drill scores")
    rows = [{"#": i + 1, "Follow-up": state.drill[i].text if i < len(state.drill) else "",
             "Criterion": s.criterion, "Score": f"{s.score}/3", "Answered": "yes" if s.answered else "no",
             "Feedback": s.feedback} for i, s in enumerate(state.drill_scores)]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def judge_status(state) -> None:
    """The LLM judge's progress: the report does not wait for it; its view appears when it arrives."""
    job = judge_job(state.id)
    if job is not None and not job.done.is_set():
        _judge_waiting(state.id)
        return
    note = (state.report or {}).get("judge_notice")
    if note:
        st.info(note, icon=":material/info:")


@st.fragment(run_every=2)
def _judge_waiting(round_id: str) -> None:
    job = judge_job(round_id)
    if job is None or job.done.is_set():
        st.rerun(scope="app")
    st.info("The LLM judge is reading the transcript; its view will be added here when it arrives.",
            icon=":material/hourglass_top:")


def _with_judge(state):
    """This session's copy of the round, with the judge's view once it has arrived."""
    job = judge_job(state.id)
    if job is not None and job.done.is_set() and job.report is not None and state.report != job.report:
        state.report = job.report
        common.remember(state)
    return state


def main() -> None:
    store = common.get_store()
    choices = _choices(store)
    wanted = st.query_params.get(common.REPORT_PARAM) or st.session_state.get("report_id")
    ids = [i for i, _ in choices]
    if wanted and wanted not in ids:
        state = common.load_round(wanted, store)  # only the owner's rounds load: a link is no key
        if state is not None and state.ended and not state.report:
            st.title("Report")
            st.info("That round ended before you answered anything, so there is nothing to grade.")
            if st.button("Start a new round", type="primary"):
                common.goto(common.ROUND_PAGE)
            return
        if state is None and st.query_params.get(common.REPORT_PARAM) == wanted:
            st.caption("The round in that link is not one of yours (or it was deleted); your own reports are below.")
            if st.session_state.get("report_id") == wanted:
                st.session_state.pop("report_id")
        wanted = None
    if not choices:
        st.title("Report")
        st.info("No graded rounds yet. Hold a mock round and end it to see its report here.")
        if st.button("Go to the mock round", type="primary"):
            common.goto(common.ROUND_PAGE)
        return
    labels = dict(choices)
    index = ids.index(wanted) if wanted in ids else 0
    chosen = st.sidebar.selectbox("Report for", ids, index=index, format_func=labels.get,
                                  key=f"report_pick_{ids[index]}")
    st.session_state["report_id"] = chosen
    st.query_params[common.REPORT_PARAM] = chosen
    state = common.load_round(chosen, store)
    if state is not None:
        state = _with_judge(state)
    if state is None or not state.report:
        st.info("That round has no report.")
        return
    show_report(Report.model_validate(state.report), state)


common.guard(main)
