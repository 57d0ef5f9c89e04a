"""The grader agrees with hand-assigned scores, and a strictly stronger answer never scores lower."""
from __future__ import annotations

import pytest

from interviewer.calibration import agreement, load_cases
from interviewer.rubric import load_rubric

REQUIRED = load_rubric().required

CASES = load_cases()
BY_NAME = {c.name: c for c in CASES}


def test_enough_calibration_transcripts_across_families():
    from interviewer.bank import load_bank

    bank = load_bank()
    families = {bank.question(c.data["question_id"]).family for c in CASES}
    assert len(CASES) >= 30
    assert families >= {"serving", "recsys_serving", "scheduling_platform", "storage_wal", "failure_handling",
                        "fundamentals"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_never_more_than_one_level_off(case):
    got = case.scores()
    for cid in REQUIRED:
        assert abs(got[cid] - case.expected[cid]) <= 1, f"{cid}: expected {case.expected[cid]}, graded {got[cid]}"


def test_exact_agreement_on_most_criteria():
    a = agreement(CASES)
    assert a.exact_rate >= 0.8, "\n".join(a.misses)


def test_pitfalls_agree_with_hand_labels():
    a = agreement(CASES)
    assert a.pitfall_fn <= 2, "pitfalls missed"
    assert a.pitfall_fp <= 3, "pitfalls flagged that an expert would not"


PAIRS = [(c, BY_NAME[weaker]) for c in CASES for weaker in c.data.get("stronger_than", [])]


def test_there_are_monotonicity_pairs():
    assert len(PAIRS) >= 5


@pytest.mark.parametrize("stronger, weaker", PAIRS, ids=lambda c: c.name)
def test_strictly_stronger_answer_never_scores_lower(stronger, weaker):
    s, w = stronger.scores(), weaker.scores()
    assert all(s[c] >= w[c] for c in REQUIRED), (s, w)
    assert stronger.report.overall >= weaker.report.overall
