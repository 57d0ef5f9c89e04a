"""Transcripts: the turns of a round, as the `grade` and `replay` commands read them."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from interviewer.errors import UserError

Level = Literal["mid", "senior", "staff"]


class Turn(BaseModel):
    role: Literal["interviewer", "candidate"]
    text: str


class Transcript(BaseModel):
    question_id: str
    company: str | None = None
    level: Level | None = None
    turns: list[Turn] = Field(default_factory=list)

    def candidate_turns(self) -> list[tuple[int, str]]:
        """(index into `turns`, text) for each candidate turn."""
        return [(i, t.text) for i, t in enumerate(self.turns) if t.role == "candidate"]


def parse_transcript(data: object, where: str = "transcript") -> Transcript:
    """Validate a decoded JSON object into a Transcript with one-line errors."""
    if not isinstance(data, dict):
        raise UserError(f"{where}: expected a JSON object with question_id and turns")
    try:
        transcript = Transcript.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "transcript"
        raise UserError(f"{where}: {loc}: {err['msg']}") from None
    if not transcript.candidate_turns():
        raise UserError(f"{where}: no candidate turns to grade")
    return transcript


def load_transcript(path: str | Path) -> Transcript:
    """Read a transcript file; a missing file or invalid JSON is a one-line UserError."""
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"no such file: {p}") from None
    except IsADirectoryError:
        raise UserError(f"{p} is a directory, not a transcript file") from None
    except UnicodeDecodeError:
        raise UserError(f"{p}: not UTF-8 text") from None
    except OSError as exc:
        raise UserError(f"cannot read {p}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UserError(f"{p}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    return parse_transcript(data, str(p))
