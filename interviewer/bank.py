"""The question bank: questions and companies, loaded from corpus/ YAML into pydantic models."""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field, ValidationError

from interviewer.errors import UserError

ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIR = ROOT / "corpus"

Format = Literal["system design", "coding", "knowledge"]
Round = Literal["phone screen", "onsite", "online assessment"]
# How the rubric reads for a question: a family in rubrics/families.yaml, or "coding" (not graded).
# Checked against the rubric when the bank loads, so a new family is a YAML change only.
Family = str
CODING = "coding"
Phase = Literal["requirements", "high_level", "deep_dive", "wrap_up"]


def topics() -> tuple[str, ...]:
    """What corpus notes' `topics` may name, and so what search can boost: criteria and pitfalls."""
    from interviewer.rubric import load_rubric

    return (*load_rubric().criteria, "pitfalls")


class FollowUp(BaseModel):
    """One follow-up an interviewer can ask; `answer_cues` are regexes that show it was answered."""

    id: str
    text: str
    text_cold: str | None = None  # the same question for a candidate who has not said what `text` credits them with
    probes: str  # a criterion id in rubrics/criteria.yaml (checked when the bank loads)
    phase: Phase = "deep_dive"
    answer_cues: list[str] = Field(default_factory=list)


class Question(BaseModel):
    id: str
    title: str
    companies: list[str]
    format: Format
    family: Family
    rounds: list[Round] = Field(default_factory=list)
    last_reported: str | None = None  # "YYYY-MM", as the seed gives it
    writeups: int | None = None
    senior_or_above: int | None = None
    junior_or_below: int | None = None
    level_skew: str | None = None
    role_skew: str | None = None
    summary: str
    opening_prompt: str
    prepare: list[str]
    follow_ups: list[FollowUp] = Field(default_factory=list)
    related: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)

    @property
    def is_design(self) -> bool:
        """Design-round mocks are offered for design questions and design-like drills."""
        return self.family != CODING


class Company(BaseModel):
    name: str
    inference_questions: int | None = None
    format_mix: dict[str, int] = Field(default_factory=dict)
    notes: str = ""
    follow_ups: list[FollowUp] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


class Bank(BaseModel):
    questions: list[Question]
    companies: list[Company]
    counted_on: str = ""
    totals: dict[str, int] = Field(default_factory=dict)

    def question(self, question_id: str) -> Question:
        for q in self.questions:
            if q.id == question_id:
                return q
        known = ", ".join(q.id for q in self.questions)
        raise UserError(f"unknown question id {question_id!r}; known ids: {known}")

    def company(self, name: str) -> Company:
        for c in self.companies:
            if c.name.lower() == name.strip().lower():
                return c
        known = ", ".join(c.name for c in self.companies)
        raise UserError(f"unknown company {name!r}; known companies: {known}")

    def for_company(self, name: str) -> list[Question]:
        company = self.company(name)
        return [q for q in self.questions if company.name in q.companies]


# libyaml's safe loader when PyYAML was built with it: ten times faster on the bank and rubric files.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(path: Path):
    """Parse one YAML file; a syntax error names the file and its line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise UserError(f"{path}:{where.strip() and where + ':'} {problem}") from None


def _validation_line(path: Path, exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    return f"{path}: {loc}: {err['msg']}"


def load_bank(corpus_dir: Path | None = None) -> Bank:
    """The bank in `corpus_dir` (default: the configured one, corpus/), loaded once per folder."""
    if corpus_dir is None:
        from interviewer import config

        corpus_dir = config.current().corpus_dir or CORPUS_DIR
    return _load_bank(Path(corpus_dir))


def read_bank(corpus_dir: Path) -> Bank:
    """Read corpus/questions.yaml and corpus/companies.yaml (uncached), cross-checked against the rubric."""
    qpath, cpath = corpus_dir / "questions.yaml", corpus_dir / "companies.yaml"
    qdata, cdata = load_yaml(qpath), load_yaml(cpath)
    try:
        bank = Bank(
            questions=qdata["questions"],
            companies=cdata["companies"],
            counted_on=str(qdata.get("counted_on", "")),
            totals=qdata.get("totals", {}),
        )
    except ValidationError as exc:
        raise UserError(_validation_line(qpath, exc)) from None
    except (KeyError, TypeError) as exc:
        raise UserError(f"{qpath}: missing top-level key {exc}") from None
    ids = [q.id for q in bank.questions]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise UserError(f"{qpath}: duplicate question ids: {', '.join(sorted(dupes))}")
    _check_against_rubric(bank, qpath)
    return bank


_load_bank = functools.cache(read_bank)


def _check_against_rubric(bank: Bank, qpath: Path) -> None:
    """Every family and probed criterion must exist in the rubric; a typo would never score."""
    from interviewer.rubric import load_rubric

    rubric = load_rubric()
    for q in bank.questions:
        if q.family != CODING and q.family not in rubric.families:
            raise UserError(f"{qpath}: question {q.id}: family {q.family!r} is not in rubrics/families.yaml")
    for owner, fus in [(q.id, q.follow_ups) for q in bank.questions] + [(c.name, c.follow_ups) for c in bank.companies]:
        for f in fus:
            if f.probes not in rubric.criteria:
                raise UserError(f"{qpath}: {owner}: follow-up {f.id} probes unknown criterion {f.probes!r}")
