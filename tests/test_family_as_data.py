"""A new question family is a YAML change only: a fixture family, a question of it, a round held on it."""
from __future__ import annotations

import shutil

import pytest
import yaml

from interviewer import config
from interviewer.bank import load_bank
from interviewer.grader import grade
from interviewer.rubric import load_rubric
from interviewer.session import Session, no_retriever
from interviewer.transcript import Transcript, Turn


@pytest.fixture
def batch_family(tmp_path, monkeypatch):
    """rubrics/ and corpus/ copied, with a 'batch_inference' family and one question of it added."""
    from interviewer.bank import CORPUS_DIR
    from interviewer.rubric import RUBRIC_DIR

    rubric_dir, corpus_dir = tmp_path / "rubrics", tmp_path / "corpus"
    shutil.copytree(RUBRIC_DIR, rubric_dir)
    shutil.copytree(CORPUS_DIR, corpus_dir)
    families = yaml.safe_load((rubric_dir / "families.yaml").read_text())
    serving = families["families"]["serving"]
    families["families"]["batch_inference"] = {
        "title": "Offline batch inference",
        "memory_capacity": True,
        "topics": ["capacity_number", "scheduling_policy"],
        "supporting": ["failure_handling"],
        "criteria": {
            "capacity_number": {**serving["criteria"]["capacity_number"],
                                "reads_as": "Sequences that fit per GPU for a nightly batch job."},
            "scheduling_policy": serving["criteria"]["scheduling_policy"],
            "tail_latency_tradeoff": {**serving["criteria"]["tail_latency_tradeoff"],
                                      "reads_as": "Job completion time against the deadline."},
        },
    }
    (rubric_dir / "families.yaml").write_text(yaml.safe_dump(families, sort_keys=False))
    bank = yaml.safe_load((corpus_dir / "questions.yaml").read_text())
    bank["questions"].append({
        "id": "nightly-batch-summaries", "title": "Design a nightly batch summarisation job",
        "companies": [], "format": "system design", "family": "batch_inference",
        "summary": "Summarise ten million documents overnight on a fixed GPU pool.",
        "opening_prompt": "We summarise 10 million documents every night with Llama-3-8B on 16 H100s. Design it.",
        "prepare": ["throughput per GPU"],
        "follow_ups": [{"id": "deadline", "text": "What happens when the job is behind its deadline at 4 am?",
                        "probes": "scheduling_policy", "phase": "deep_dive"}],
    })
    (corpus_dir / "questions.yaml").write_text(yaml.safe_dump(bank, sort_keys=False))
    monkeypatch.setenv("INTERVIEWER_RUBRIC_DIR", str(rubric_dir))
    monkeypatch.setenv("INTERVIEWER_CORPUS_DIR", str(corpus_dir))
    config.reload()
    yield
    monkeypatch.undo()
    config.reload()


def test_a_fixture_family_holds_a_round_and_is_graded_by_its_own_reading(batch_family):
    assert "batch_inference" in load_rubric().families
    assert load_bank().question("nightly-batch-summaries").family == "batch_inference"
    now = [1_700_000_000.0]
    session = Session(store=None, retriever=no_retriever, clock=lambda: now[0])
    state = session.start_round("nightly-batch-summaries", None, "senior", minutes=45)
    answers = ["Llama-3-8B in fp16 is 16 GB of weights on an 80 GB H100; KV is 128 KiB per token, so about "
               "100 sequences of 4k fit per GPU.",
               "Continuous batching with max_num_seqs 96 and a token budget of 8192 per step; when the cache is "
               "full we preempt the newest sequence and recompute it.",
               "I don't know."]
    for i, text in enumerate(answers, 1):
        now[0] += 300
        reply = session.take_turn(state, text)
        assert reply.role == "interviewer" and reply.text.strip()
    asked = [t.text for t in state.turns if t.role == "interviewer"]
    assert len(set(asked)) == len(asked)  # nothing asked twice
    report = session.finish(state)
    assert report.family == "batch_inference"
    assert report.criterion("capacity_number").reads_as == "Sequences that fit per GPU for a nightly batch job."
    assert {c.id for c in report.criteria} == {"capacity_number", "scheduling_policy", "tail_latency_tradeoff",
                                               "failure_handling"}
    assert report.criterion("scheduling_policy").score >= 2


def test_a_question_naming_an_unknown_family_is_one_clear_error(batch_family, tmp_path):
    from interviewer.bank import read_bank
    from interviewer.errors import UserError

    corpus = config.current().corpus_dir
    text = (corpus / "questions.yaml").read_text().replace("family: batch_inference", "family: batch_inferense")
    (corpus / "questions.yaml").write_text(text)
    with pytest.raises(UserError, match="batch_inferense.*not in rubrics/families.yaml"):
        read_bank(corpus)


def test_grading_a_transcript_of_the_fixture_family(batch_family):
    t = Transcript(question_id="nightly-batch-summaries", turns=[
        Turn(role="interviewer", text="Go."), Turn(role="candidate", text="We batch as much as memory allows.")])
    report = grade(t)
    assert report.family == "batch_inference" and report.overall < 50


def test_rubric_and_claim_data_have_no_duplicate_keys():
    """A key said twice in one mapping silently keeps only the last (a second `not_right` drops the first)."""
    from pathlib import Path

    class Strict(yaml.SafeLoader):
        pass

    found = []

    def mapping(loader, node, deep=False):
        keys = [loader.construct_object(k) for k, _ in node.value]
        found.extend((node.start_mark.name, node.start_mark.line + 1, k) for k in set(keys) if keys.count(k) > 1)
        return yaml.SafeLoader.construct_mapping(loader, node, deep)

    Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    root = Path(__file__).resolve().parent.parent
    for path in [*root.glob("rubrics/*.yaml"), *root.glob("interviewer/claims/*.yaml"), root / "interviewer/hardware.yaml"]:
        with open(path, encoding="utf-8") as fh:
            yaml.load(fh, Loader=Strict)
    assert not found, found
