"""Question bank page: every question (design, knowledge and coding) and every company's format mix."""
from __future__ import annotations

import streamlit as st

from interviewer.bank import load_bank
from interviewer.ui import common

ALL = "All"


def question_block(q) -> None:
    from interviewer.rubric import load_rubric

    titles = {k: c.title for k, c in load_rubric().criteria.items()}
    label = f"{q.title}  ·  {q.format}"
    with st.expander(label):
        facts = [
            ("Companies", ", ".join(q.companies) or "none named"),
            ("Format", q.format),
            ("Rounds", ", ".join(q.rounds) or "not reported"),
            ("Last reported", q.last_reported or "unknown"),
            ("Write-ups", str(q.writeups) if q.writeups is not None else "unknown"),
        ]
        skew = []
        if q.senior_or_above is not None or q.junior_or_below is not None:
            skew.append(f"{q.senior_or_above or 0} senior-or-above vs {q.junior_or_below or 0} "
                        "junior-or-below write-ups")
        if q.level_skew:
            skew.append(q.level_skew)
        if q.role_skew:
            skew.append(f"roles: {q.role_skew}")
        if skew:
            facts.append(("Level / role skew", "; ".join(skew)))
        st.markdown("  \n".join(f"**{k}:** {common.md(v)}" for k, v in facts))
        st.markdown(common.md(q.summary))
        st.markdown("**Opening prompt**")
        st.markdown(f"> {common.md(q.opening_prompt)}")
        if q.prepare:
            st.markdown("**What to prepare**\n" + "\n".join(f"- {common.md(p)}" for p in q.prepare))
        if q.follow_ups:
            st.markdown("**Follow-ups**\n" + "\n".join(
                f"- {common.md(f.text)} "
                f":gray[({common.md(titles.get(f.probes, f.probes))}, {f.phase.replace('_', ' ')})]"
                for f in q.follow_ups))
        if q.related:
            st.caption("Related: " + ", ".join(q.related))
        if q.sources:
            st.caption("Sources: " + "; ".join(q.sources))
        if q.is_design:
            if st.button("Practise this question", key=f"practise_{q.id}", icon=":material/play_arrow:"):
                if q.companies:
                    st.session_state["setup_company"] = q.companies[0]
                st.session_state["setup_question"] = q.id
                st.session_state["setup_mode"] = "Mock round"
                common.goto(common.ROUND_PAGE)


def questions_tab(bank) -> None:
    cols = st.columns([2, 2, 3])
    company = cols[0].selectbox("Company", [ALL] + [c.name for c in bank.companies], key="bank_company")
    fmt = cols[1].selectbox("Format", [ALL, "system design", "knowledge", "coding"], key="bank_format")
    needle = cols[2].text_input("Search", key="bank_search", placeholder="e.g. KV cache, preemption").strip().lower()
    shown = [q for q in bank.questions
             if (company == ALL or company in q.companies) and (fmt == ALL or q.format == fmt)
             and (not needle or needle in (q.title + " " + q.summary + " " + q.id).lower())]
    st.caption(f"{len(shown)} of {len(bank.questions)} questions")
    for q in shown:
        question_block(q)


def companies_tab(bank) -> None:
    import pandas as pd

    mix = pd.DataFrame([{"Company": c.name, **c.format_mix} for c in bank.companies if c.format_mix]).fillna(0)
    if not mix.empty:
        st.subheader("Reported format mix")
        st.bar_chart(mix.set_index("Company"), horizontal=True, stack=True, x_label="reported questions")
    for c in bank.companies:
        with st.container(border=True):
            st.markdown(f"### {common.md(c.name)}")
            bits = []
            if c.inference_questions is not None:
                bits.append(f"{c.inference_questions} inference questions reported")
            if c.format_mix:
                bits.append(", ".join(f"{k}: {v}" for k, v in c.format_mix.items()))
            if bits:
                st.caption(" · ".join(bits))
            if c.notes:
                st.markdown(common.md(c.notes))
            qs = [q.title for q in bank.for_company(c.name)]
            if qs:
                st.markdown("**Questions:** " + common.md("; ".join(qs)))
            if c.follow_ups:
                st.markdown("**Follow-ups this company asks**\n"
                            + "\n".join(f"- {common.md(f.text)}" for f in c.follow_ups))
            if c.sources:
                st.caption("Sources: " + "; ".join(c.sources))


def main() -> None:
    bank = load_bank()
    st.title("Question bank")
    t = bank.totals
    if t:
        st.caption(f"Counted on {bank.counted_on}: {t.get('questions', len(bank.questions))} questions across "
                   f"{t.get('companies', len(bank.companies))} companies; {t.get('system_design', '?')} system design, "
                   f"{t.get('knowledge', '?')} knowledge. The bank below holds the inference-related ones.")
    tabs = st.tabs(["Questions", "Companies"])
    with tabs[0]:
        questions_tab(bank)
    with tabs[1]:
        companies_tab(bank)


common.guard(main)
