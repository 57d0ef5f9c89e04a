"""Calibration: agreement between the grader and hand-assigned scores on tests/calibration/."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from interviewer.grader import Report, grade
from interviewer.rubric import load_rubric
from interviewer.transcript import parse_transcript

CALIBRATION_DIR = Path(__file__).resolve().parent.parent / "tests" / "calibration"


@dataclass
class Case:
    name: str
    data: dict
    report: Report

    @property
    def expected(self) -> dict:
        return self.data["expected"]

    def scores(self) -> dict[str, int]:
        return {c.id: c.score for c in self.report.criteria}


@dataclass
class Agreement:
    cases: list[Case]
    exact: int = 0
    within_one: int = 0
    total: int = 0
    misses: list[str] = field(default_factory=list)
    pitfall_tp: int = 0
    pitfall_fp: int = 0
    pitfall_fn: int = 0

    @property
    def exact_rate(self) -> float:
        return self.exact / max(self.total, 1)


def load_cases(folder: Path = CALIBRATION_DIR) -> list[Case]:
    cases = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        t = parse_transcript({k: v for k, v in data.items() if k in ("question_id", "company", "level", "turns")},
                             str(path))
        cases.append(Case(path.stem, data, grade(t)))
    return cases


def agreement(cases: list[Case]) -> Agreement:
    a = Agreement(cases)
    for case in cases:
        got = case.scores()
        for cid in load_rubric().required:
            want = case.expected[cid]
            a.total += 1
            a.exact += got[cid] == want
            a.within_one += abs(got[cid] - want) <= 1
            if got[cid] != want:
                a.misses.append(f"{case.name}: {cid} expected {want}, graded {got[cid]}")
        want_p = set(case.expected.get("pitfalls", []))
        got_p = {p.id for p in case.report.pitfalls}
        a.pitfall_tp += len(want_p & got_p)
        a.pitfall_fp += len(got_p - want_p)
        a.pitfall_fn += len(want_p - got_p)
    return a
