"""The company drill: no question twice, scored only on what was asked, every score shown."""
from __future__ import annotations

import pytest
from test_ui_round import new_app, ok

from interviewer import interview
from interviewer.bank import load_bank
from interviewer.round import DrillItem
from interviewer.session import Session, no_retriever

DRILL_COMPANIES = [c.name for c in load_bank().companies if any(q.is_design for q in load_bank().for_company(c.name))]


@pytest.mark.parametrize("company", DRILL_COMPANIES)
def test_no_two_drill_items_ask_the_same_thing(company):
    items = interview.drill_items(company)
    assert items
    ids = [i.follow_up_id for i in items]
    assert len(ids) == len(set(ids))
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            shared = set(a.answer_cues) & set(b.answer_cues)
            assert len(shared) * 2 < max(1, min(len(a.answer_cues), len(b.answer_cues))), (a.follow_up_id, b.follow_up_id)


def test_anthropic_twins_are_asked_once():
    ids = [i.follow_up_id for i in interview.drill_items("Anthropic")]
    assert not {"admission-when-full", "kv-full-priority"} <= set(ids)
    assert not {"traffic-mix-change", "traffic-mix-shift"} <= set(ids)


ITEM = DrillItem(follow_up_id="ranker-batching", question_id="recommendation-serving", family="recsys_serving",
                 criterion="scheduling_policy", text="How do you batch ranking requests on the GPUs?",
                 answer_cues=[r"batch\w*.{0,40}\d+", r"(wait|timeout).{0,30}\d+\s*ms"])


def test_a_drill_answer_is_not_marked_down_for_what_was_not_asked():
    full = interview.score_drill_answer(ITEM, "Batch up to 64 requests, and wait at most 5 ms for the batch to fill.", 1)
    assert full.score == 3 and full.answered and full.feedback == "Full marks on this one."
    off = interview.score_drill_answer(ITEM, "We preempt the lowest-priority sequence when the cache is full.", 1)
    assert off.score <= 1 and not off.answered and ITEM.text in off.feedback
    assert "victim" not in full.feedback and "token budget" not in full.feedback


def test_the_drill_report_counts_only_the_criteria_asked():
    session = Session(store=None, retriever=no_retriever)
    state = session.start_drill("DoorDash")
    for _ in range(len(state.drill)):
        session.take_turn(state, "Batch up to 64 requests and wait at most 5 ms; p99 under 150 ms end to end.")
    report = session.finish(state)
    asked = {item.criterion for item in state.drill[:len(state.drill_scores)]}
    assert {c.id for c in report.criteria} == asked
    assert report.overall == round(100 * sum(s.score for s in state.drill_scores) / (3 * len(state.drill_scores)))


def test_the_last_drill_answer_shows_its_score_on_the_summary():
    at = new_app()
    at.segmented_control(key="setup_mode").set_value("Company drill").run()
    at.selectbox(key="drill_company").set_value("DoorDash").run()
    ok(at.button(key="start_drill").click().run())
    n = len(at.session_state["round"].drill)
    for _ in range(n):
        at.chat_input(key="answer").set_value("Batch up to 64 requests and wait at most 5 ms for the batch.").run()
    assert at.title[0].value == "DoorDash drill: summary"
    assert any(f"({n} of {n})" in c.value for c in at.caption)
    assert any("On-the-spot score" in m.value for m in [*at.success, *at.warning])
