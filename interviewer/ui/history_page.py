"""History page: the visitor's past rounds (local mode: everything held on this machine; hosted:
the signed-in candidate's), reopening or deleting one, and progress over time."""
from __future__ import annotations

import streamlit as st

from interviewer.ui import common


def _title(r) -> str:
    return r.question_title or r.question_id


def rounds_table(rounds) -> None:
    import pandas as pd

    rows = [{
        "Date": common.when(r.started_at),
        "Mode": "drill" if r.mode == "drill" else "round",
        "Company": r.company or "",
        "Question": _title(r),
        "Level": r.level or "",
        "Overall": r.overall,
        "Verdict": r.level_verdict or ("open" if r.ended_at is None else ""),
    } for r in rounds]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                 column_config={"Overall": st.column_config.ProgressColumn("Overall", min_value=0, max_value=100,
                                                                           format="%d")})


def actions(store, rounds) -> None:
    labels = {r.id: f"{common.when(r.started_at)} · {r.company or 'no company'} · {_title(r)}"
              + (f" · {r.overall}/100" if r.overall is not None else " · no report") for r in rounds}
    ids = [r.id for r in rounds]
    pending = st.session_state.get("confirm_delete")
    chosen = st.selectbox("Round", ids, format_func=labels.get, key="history_pick")
    cols = st.columns([1, 1, 4])
    graded = next(r for r in rounds if r.id == chosen).overall is not None
    if cols[0].button("Open report", type="primary", disabled=not graded, key="history_open",
                      icon=":material/open_in_new:"):
        st.session_state["report_id"] = chosen
        common.goto(common.REPORT_PAGE, **{common.REPORT_PARAM: chosen})
    if cols[1].button("Delete", key="history_delete", icon=":material/delete:"):
        st.session_state["confirm_delete"] = chosen
        st.rerun()
    if pending and pending in labels:
        with st.container(border=True):
            st.warning(f"Delete the round {labels[pending]}? This cannot be undone.")
            c = st.columns([1, 1, 4])
            if c[0].button("Yes, delete it", type="primary", key="history_confirm"):
                st.session_state.pop("confirm_delete", None)
                if store.delete(pending, common.owner()):
                    st.session_state.get("mem_rounds", {}).pop(pending, None)
                    if st.session_state.get("report_id") == pending:
                        st.session_state.pop("report_id")
                    st.toast("Round deleted.", icon=":material/delete:")
                else:
                    st.toast("That round was already gone.")
                st.rerun()
            if c[1].button("Cancel", key="history_cancel"):
                st.session_state.pop("confirm_delete", None)
                st.rerun()


def progress(store) -> None:
    import pandas as pd

    from interviewer.rubric import load_rubric

    rows = store.progress(common.owner())
    if not rows:
        st.caption("Progress charts appear once you have a graded round.")
        return
    rubric = load_rubric()
    df = pd.DataFrame(rows)
    df["date"] = pd.to_datetime(df["date"], errors="coerce")
    df = df.sort_values("date", kind="stable").set_index("date")
    crit_cols = [c for c in df.columns if c in rubric.criteria]
    if len(df) < 2:
        st.caption("The charts of your scores across rounds start with your second graded round.")
    else:
        st.subheader("Overall score across rounds")
        st.line_chart(df[["overall"]].rename(columns={"overall": "Overall (0-100)"}), y_label="score",
                      x_label="round ended")
        if crit_cols:
            st.subheader("Each criterion across rounds (0-3)")
            st.line_chart(df[crit_cols].rename(columns={c: rubric.criteria[c].title for c in crit_cols}),
                          y_label="score", x_label="round ended")
    failing = store.failing_criteria(common.owner())
    if failing:
        st.subheader("Criteria that keep failing")
        fdf = pd.DataFrame([{"Criterion": rubric.criteria[c].title if c in rubric.criteria else c,
                             "Failed": failed, "Graded": graded} for c, failed, graded in failing])
        st.bar_chart(fdf, x="Criterion", y="Failed", horizontal=True, sort="-Failed")
        fdf["Failed / graded"] = [f"{f} of {g}" for f, g in zip(fdf["Failed"], fdf["Graded"])]
        st.dataframe(fdf[["Criterion", "Failed / graded"]], hide_index=True)


def main() -> None:
    st.title("History")
    store = common.get_store()
    if store is None:
        return
    rounds = store.list(common.owner())
    if not rounds:
        whose = ("on this machine" if common.auth_mode() == "local"
                 else f"for {common.md(common.user_label())}, and only you see them")
        st.info(f"No rounds yet. Your rounds are kept {whose}; hold one on the Mock round page.")
        return
    rounds_table(rounds)
    actions(store, rounds)
    st.divider()
    progress(store)


common.guard(main)
