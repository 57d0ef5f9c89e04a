"""Deep-dive maps (corpus/deep_dives/<question id>.yaml): the topics a round can go deep on.

Each topic has triggers (concepts a candidate raises that lead into it) and follow-ups; each
follow-up has its phase, the criterion it informs, what a good answer contains, answer cues (it
is not asked once they are covered), the passages that ground it, and two wordings: `ask`, used
only when the candidate raised the topic, and `ask_cold`, which attributes nothing to them.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError, field_validator

from interviewer.bank import Phase, load_yaml
from interviewer.errors import UserError

Level = str


class DeepFollowUp(BaseModel):
    id: str
    phase: Phase
    criterion: str
    ask: str
    ask_cold: str
    good_answer: list[str] = Field(default_factory=list)
    answer_cues: list[re.Pattern] = Field(default_factory=list)
    passages: list[str] = Field(default_factory=list)
    level: Level | None = None      # mid | senior | staff: asked only at that level and above

    model_config = {"arbitrary_types_allowed": True}

    @field_validator("answer_cues", mode="before")
    @classmethod
    def _compile(cls, v):
        return [re.compile(p, re.IGNORECASE) if isinstance(p, str) else p for p in (v or [])]

    def answered(self, text: str) -> bool:
        return any(p.search(text) for p in self.answer_cues)


class Topic(BaseModel):
    id: str
    title: str
    triggers: list[re.Pattern] = Field(default_factory=list)
    follow_ups: list[DeepFollowUp]

    model_config = {"arbitrary_types_allowed": True}

    @field_validator("triggers", mode="before")
    @classmethod
    def _compile(cls, v):
        return [re.compile(p, re.IGNORECASE) if isinstance(p, str) else p for p in (v or [])]

    def raised_in(self, text: str) -> re.Match | None:
        """The first place `text` raises this topic, if it does."""
        hits = [m for p in self.triggers if (m := p.search(text))]
        return min(hits, key=lambda m: m.start()) if hits else None


class DeepDiveMap(BaseModel):
    question_id: str
    topics: list[Topic]

    def topic(self, topic_id: str) -> Topic:
        return next(t for t in self.topics if t.id == topic_id)

    def follow_ups(self):
        """(topic, follow-up) pairs in map order."""
        return [(t, f) for t in self.topics for f in t.follow_ups]


LEVEL_ORDER = {"mid": 0, "senior": 1, "staff": 2}


def level_allows(follow_up: DeepFollowUp, level: str) -> bool:
    return follow_up.level is None or LEVEL_ORDER.get(level, 1) >= LEVEL_ORDER.get(follow_up.level, 0)


def load_map(question_id: str, corpus_dir: Path | None = None) -> DeepDiveMap | None:
    """The question's deep-dive map, or None when it has none."""
    if corpus_dir is None:
        from interviewer import config
        from interviewer.bank import CORPUS_DIR

        corpus_dir = config.current().corpus_dir or CORPUS_DIR
    return _load(Path(corpus_dir), question_id)


@functools.cache
def _load(corpus_dir: Path, question_id: str) -> DeepDiveMap | None:
    path = corpus_dir / "deep_dives" / f"{question_id}.yaml"
    if not path.is_file():
        return None
    try:
        return DeepDiveMap.model_validate(load_yaml(path))
    except ValidationError as exc:
        err = exc.errors()[0]
        raise UserError(f"{path}: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
    except re.error as exc:
        raise UserError(f"{path}: bad regex: {exc}") from None
