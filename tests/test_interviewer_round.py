"""A whole round with scripted candidates through the Session (the browser's path): the zero-tolerance
figures of the interviewer (benchmarks/bench_interviewer.py measures the full-length version)."""
from __future__ import annotations

import pytest

from interviewer.scripted import measure, play


@pytest.mark.parametrize("question_id", ["gpu-inference-serving", "kv-store-wal", "recommendation-serving"])
@pytest.mark.parametrize("persona", ["strong", "weak", "wrong"])
def test_no_repeats_no_false_attributions_no_praise_for_wrong_figures_one_wrap_up(question_id, persona):
    m = measure(play(question_id, persona, answers=14, minutes=20))
    assert m["repeated_questions"] == 0
    assert m["false_attributions"] == 0
    assert m["praise_for_wrong"] == 0
    assert m["wrap_ups"] == 1
    assert m["distinct_questions_before_wrap_up"] >= 10


def test_planted_wrong_figures_are_challenged():
    m = measure(play("gpu-inference-serving", "wrong", answers=14, minutes=20))
    assert m["planted"] == 7 and m["planted_challenged"] >= 6  # the last plant comes as the clock runs out


def test_a_candidate_who_asks_to_go_somewhere_is_taken_there():
    from interviewer.session import Session, no_retriever

    now = [0.0]
    session = Session(store=None, retriever=no_retriever, clock=lambda: now[0])
    state = session.start_round("gpu-inference-serving")
    now[0] = 600
    turn = session.take_turn(state, "We have a router in front of TP-2 replicas. Shall I go deeper on autoscaling and "
                                    "cold starts, or on multi-region failover?")
    assert turn.kind == "follow_up" and "autoscal" in (turn.key or "") + turn.text.lower()
