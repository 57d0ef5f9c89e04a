"""Agreement between the grader and hand-assigned scores.

Labelled transcripts, in three places:

* tests/calibration/ (42): TRAINING; labels in each file's "expected".
* tests/training/batch_*/ (A-ZZZZZZZZZZF; 7,980): TRAINING. Written and labelled by people who never saw the
  grader's code, then tuned on (A from the start; every later batch after it had been measured once
  as a held-out batch). Labels in each file's "label".
* tests/sealed/batch_*/ (30 each): HELD OUT. Written by blind writers while the grader was being
  tuned on the training batches, kept outside the repository, and added and measured once after
  tuning ended. Labels as in the training batches: scores per required criterion with reasons,
  the pitfalls present (any not listed is asserted absent), a stuffed flag, hand-checked capacity
  figures.
* tests/second_rater/batch_*/: a second blind rater's grades of batches D onwards (the human ceiling).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from interviewer.grader import Report, grade
from interviewer.rubric import load_rubric
from interviewer.transcript import parse_transcript

ROOT = Path(__file__).resolve().parent.parent
CALIBRATION_DIR = ROOT / "tests" / "calibration"
SEALED_DIR = ROOT / "tests" / "sealed"
TRAINING_DIR = ROOT / "tests" / "training"
# The pitfalls every label is asserted to list in full (one not listed is asserted absent).
PITFALL_IDS = ("no_limits", "average_only", "quantizing_on_faith", "kv_cache_confusion", "vendor_speedup",
               "policy_list")


@dataclass
class Case:
    name: str
    data: dict
    report: Report

    @property
    def expected(self) -> dict:
        """Scores per required criterion plus "pitfalls" (either label format)."""
        if "expected" in self.data:
            return self.data["expected"]
        label = self.data["label"]
        return {**label["scores"], "pitfalls": label.get("pitfalls", [])}

    @property
    def stuffed(self) -> bool:
        return bool(self.data.get("label", {}).get("stuffed", False))

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
    # per pitfall id: (transcripts that forbid it, of those where it was raised)
    forbidden: dict[str, list[int]] = field(default_factory=dict)
    strong_misses: list[str] = field(default_factory=list)
    weak_misses: list[str] = field(default_factory=list)
    stuffed_misses: list[str] = field(default_factory=list)
    strong: int = 0
    weak: int = 0
    stuffed: int = 0

    @property
    def exact_rate(self) -> float:
        return self.exact / max(self.total, 1)

    @property
    def within_one_rate(self) -> float:
        return self.within_one / max(self.total, 1)

    @property
    def pitfall_recall(self) -> float:
        return self.pitfall_tp / max(self.pitfall_tp + self.pitfall_fn, 1)

    @property
    def false_pitfall_rates(self) -> dict[str, float]:
        """Per pitfall: the share of the transcripts that forbid it on which it was raised."""
        return {pid: raised / max(n, 1) for pid, (n, raised) in self.forbidden.items()}

    @property
    def worst_false_pitfall_rate(self) -> float:
        return max(self.false_pitfall_rates.values(), default=0.0)

    def summary(self) -> str:
        fp = self.false_pitfall_rates
        worst = max(fp, key=fp.get) if fp else "-"
        return (f"exact {self.exact}/{self.total} = {self.exact_rate:.1%}, within one {self.within_one}/{self.total} = "
                f"{self.within_one_rate:.1%}; pitfall recall {self.pitfall_tp}/{self.pitfall_tp + self.pitfall_fn} = "
                f"{self.pitfall_recall:.1%}, false pitfalls {self.pitfall_fp} (worst {worst} "
                f"{fp.get(worst, 0):.1%} of the transcripts that forbid it); strong >= 8: "
                f"{self.strong - len(self.strong_misses)}/{self.strong}, weak <= 2: "
                f"{self.weak - len(self.weak_misses)}/{self.weak}, stuffed <= 2: "
                f"{self.stuffed - len(self.stuffed_misses)}/{self.stuffed}")


def _load(path: Path) -> Case:
    data = json.loads(path.read_text())
    t = parse_transcript({k: v for k, v in data.items() if k in ("question_id", "company", "level", "turns")},
                         str(path))
    return Case(path.stem, data, grade(t))


def load_cases(folder: Path = CALIBRATION_DIR) -> list[Case]:
    return [_load(p) for p in sorted(folder.glob("*.json"))]


def sealed_batches(folder: Path = SEALED_DIR) -> list[Path]:
    """The batch folders present under `folder` (batch_d, batch_e, ...), in order: held out by default."""
    return sorted(p for p in folder.glob("batch_*") if p.is_dir() and any(p.glob("*.json")))


def training_batches() -> list[Path]:
    """The labelled batches the grader was tuned on (tests/training/batch_*)."""
    return sealed_batches(TRAINING_DIR)


def agreement(cases: list[Case]) -> Agreement:
    a = Agreement(cases)
    required = load_rubric().required
    for case in cases:
        got = case.scores()
        want = case.expected
        for cid in required:
            a.total += 1
            a.exact += got[cid] == want[cid]
            a.within_one += abs(got[cid] - want[cid]) <= 1
            if got[cid] != want[cid]:
                a.misses.append(f"{case.name}: {cid} expected {want[cid]}, graded {got[cid]}")
        want_p = set(want.get("pitfalls", []))
        got_p = {p.id for p in case.report.pitfalls}
        a.pitfall_tp += len(want_p & got_p)
        a.pitfall_fp += len(got_p - want_p)
        a.pitfall_fn += len(want_p - got_p)
        for pid in PITFALL_IDS:
            if pid not in want_p:
                n, raised = a.forbidden.get(pid, [0, 0])
                a.forbidden[pid] = [n + 1, raised + (pid in got_p)]
        gold, total = sum(want[c] for c in required), sum(got[c] for c in required)
        if gold >= 8:
            a.strong += 1
            if total < 8:
                a.strong_misses.append(f"{case.name}: strong (gold {gold}) graded {total}")
        if gold <= 2:
            a.weak += 1
            if total > 2:
                a.weak_misses.append(f"{case.name}: weak (gold {gold}) graded {total}")
        if case.stuffed:
            a.stuffed += 1
            if total > 2:
                a.stuffed_misses.append(f"{case.name}: stuffed, graded {total}")
    return a


SECOND_RATER_DIR = ROOT / "tests" / "second_rater"


@dataclass
class RaterAgreement:
    exact_rate: float
    within_one_rate: float
    text: str


def second_rater_summary(batches: list[Path]) -> RaterAgreement | None:
    """How a second blind rater's grades (tests/second_rater/<batch>/NN.json, graded from the
    transcript alone) agree with the writers' labels on the same transcripts: the ceiling the
    grader's agreement is read against. Same measures as `agreement`."""
    required = load_rubric().required
    n = exact = within = tp = fn = fp = strong = strong_ok = weak = weak_ok = files = 0
    for folder in batches:
        rater = SECOND_RATER_DIR / folder.name
        if not rater.is_dir():
            continue
        for path in sorted(folder.glob("*.json")):
            mine = rater / f"{path.name[:2]}.json"
            if not mine.exists():
                continue
            label = json.loads(path.read_text(encoding="utf-8"))["label"]
            other = json.loads(mine.read_text(encoding="utf-8"))
            files += 1
            for cid in required:
                a, b = label["scores"][cid], other["scores"][cid]
                n += 1
                exact += a == b
                within += abs(a - b) <= 1
            want, got = set(label.get("pitfalls", [])), set(other.get("pitfalls", []))
            tp, fn, fp = tp + len(want & got), fn + len(want - got), fp + len(got - want)
            gold, total = sum(label["scores"][c] for c in required), sum(other["scores"][c] for c in required)
            if gold >= 8:
                strong, strong_ok = strong + 1, strong_ok + (total >= 8)
            if gold <= 2:
                weak, weak_ok = weak + 1, weak_ok + (total <= 2)
    if not n:
        return None
    return RaterAgreement(
        exact / n, within / n,
        f"{files} transcripts, exact {exact}/{n} = {exact / n:.1%}, within one {within}/{n} = {within / n:.1%}; "
        f"pitfall recall {tp}/{tp + fn} = {tp / max(1, tp + fn):.1%}, pitfalls the writers left out {fp}; "
        f"strong >= 8: {strong_ok}/{strong}, weak <= 2: {weak_ok}/{weak}")
