"""Paraphrase invariance: the same answer said four ways (units, word order, table vs prose, numbers
in words) scores the same on every criterion. The sets are in tests/data/paraphrases/."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from interviewer.grader import grade
from interviewer.transcript import parse_transcript

HERE = Path(__file__).resolve().parent / "data" / "paraphrases"
SETS = sorted(HERE.glob("*.yaml"))


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def transcript(data: dict, answers: list[str]):
    turns = [{"role": "interviewer", "text": data.get("opening") or "Go on."}]
    for i, a in enumerate(answers):
        if i:
            turns.append({"role": "interviewer", "text": "Go on."})
        turns.append({"role": "candidate", "text": a})
    return parse_transcript({"question_id": data["question_id"], "turns": turns})


def scores(data: dict, answers: list[str]) -> dict[str, int]:
    return {c.id: c.score for c in grade(transcript(data, answers)).criteria}


def test_enough_sets_each_with_three_rewrites():
    assert len(SETS) >= 15
    kinds = set()
    for path in SETS:
        versions = load(path)["versions"]
        assert "original" in versions and len(versions) >= 4, path.name
        kinds |= set(versions) - {"original"}
    assert {"units", "order", "table", "words"} <= kinds


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_every_criterion_scores_the_same_on_all_four(path):
    data = load(path)
    got = {name: scores(data, answers) for name, answers in data["versions"].items()}
    base = got["original"]
    for name, s in got.items():
        assert s == base, f"{name}: {s} != original {base}"
    for cid, want in (data.get("expected") or {}).items():
        assert base[cid] == want, f"{cid}: expected {want}, graded {base[cid]}"
