"""Rendering a round's turns: chat bubbles, the passages a reply drew on, drill scores."""
from __future__ import annotations

import streamlit as st

from interviewer.ui import common


def interviewer_turn(turn) -> None:
    """An interviewer reply (already in a chat bubble): text, notice, then its sources."""
    st.markdown(common.interviewer_markdown(turn.text))
    notices(turn.notice)
    passages(turn.passages)


def notices(notice: str | None) -> None:
    if notice:
        st.info(notice, icon=":material/info:")


def passages(items) -> None:
    if not items:
        return
    with st.expander(f"Drew on {len(items)} passage{'s' if len(items) != 1 else ''}", icon=":material/menu_book:"):
        for p in items:
            st.markdown(f"**{common.md(p.title)}**  \n{common.md(p.source)}")


def score_card(score) -> None:
    """A drill answer's on-the-spot score: 0-3 on one criterion, and whether it answered the question."""
    from interviewer.rubric import load_rubric

    crit = load_rubric().criteria.get(score.criterion)
    title = crit.title if crit else score.criterion
    answered = "Answered the question." if score.answered else "Didn't quite answer the question asked."
    body = (f"**On-the-spot score: {score.score}/3** on {common.md(title.lower())}. {answered}  \n"
            f"{common.md(score.feedback)}")
    if score.score >= 2 and score.answered:
        st.success(body, icon=":material/check_circle:")
    else:
        st.warning(body, icon=":material/rule:")


def candidate_turn(turn) -> None:
    """The candidate's words, exactly as typed (the untruncated original when a paste was cut)."""
    common.show_user_text(turn.raw if turn.raw is not None else turn.text)


def candidate_turn_text(text: str | None) -> None:
    """An answer as typed, shown before it is recorded."""
    common.show_user_text(text or "")


def render_turns(state) -> None:
    """Every turn of the round so far, with drill scores under the answers they belong to."""
    scores = iter(state.drill_scores) if state.mode == "drill" else iter(())
    for turn in state.turns:
        if turn.role == "candidate":
            with st.chat_message("user"):
                candidate_turn(turn)
            if state.mode == "drill" and (turn.raw or turn.text).strip():
                score = next(scores, None)
                if score is not None:
                    score_card(score)
        else:
            with st.chat_message("assistant"):
                interviewer_turn(turn)
