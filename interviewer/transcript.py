"""Transcripts: the turns of a round, as the `grade` and `replay` commands read them."""
from __future__ import annotations

import json
import math
import stat
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


MAX_INPUT_BYTES = 2_000_000  # a three-hour round's transcript is a few hundred kB
MAX_JSON_DEPTH = 32          # a transcript is four levels deep


class _BadNumber(ValueError):
    pass


def _constant(name: str):
    raise _BadNumber(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _BadNumber(f"the number {text[:40]} is out of range")
    return value


def _depth_ok(data: object, limit: int) -> bool:
    """Whether `data` nests at most `limit` containers deep (iterative: no recursion to run out of)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > limit:
                return False
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return True


def read_input(path: str | Path, what: str = "transcript", limit: int = MAX_INPUT_BYTES) -> str:
    """The text of an input file, at most `limit` bytes: a bigger file (or an endless one such as
    /dev/zero) is refused after reading no more than `limit` + 1 bytes. Errors are one-line UserErrors."""
    p = Path(path)
    size = f"{limit / 1_000_000:g} MB"
    try:
        info = p.stat()
        if stat.S_ISDIR(info.st_mode):
            raise UserError(f"{p} is a directory, not a {what} file")
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise UserError(f"{p} is {info.st_size / 1_000_000:.1f} MB; a {what} file may be at most {size}")
        with open(p, "rb") as f:
            raw = f.read(limit + 1)
    except FileNotFoundError:
        raise UserError(f"no such file: {p}") from None
    except IsADirectoryError:
        raise UserError(f"{p} is a directory, not a {what} file") from None
    except OSError as exc:
        raise UserError(f"cannot read {p}: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise UserError(f"{p} is larger than {size}; a {what} file may be at most {size}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(f"{p}: not UTF-8 text (byte {exc.start})") from None


def parse_json(raw: str, where: str) -> object:
    """Decode JSON with one-line errors: syntax, NaN or Infinity, numbers out of range, nesting."""
    try:
        data = json.loads(raw, parse_constant=_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise UserError(f"{where}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except _BadNumber as exc:
        raise UserError(f"{where}: invalid JSON: {exc}") from None
    except RecursionError:
        raise UserError(f"{where}: JSON nested too deeply (a transcript is at most {MAX_JSON_DEPTH} levels)") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise UserError(f"{where}: invalid JSON: {str(exc).splitlines()[0][:200]}") from None
    if not _depth_ok(data, MAX_JSON_DEPTH):
        raise UserError(f"{where}: JSON nested too deeply (a transcript is at most {MAX_JSON_DEPTH} levels)")
    return data


def load_transcript(path: str | Path) -> Transcript:
    """Read a transcript file; a missing, oversized or non-UTF-8 file, invalid JSON, NaN or
    Infinity, or JSON nested too deeply is a one-line UserError."""
    from interviewer.round import ANSWER_LIMIT_CHARS

    where = str(Path(path))
    transcript = parse_transcript(parse_json(read_input(path), where), where)
    for i, turn in enumerate(transcript.turns):  # the app refuses such an answer; so does the CLI
        if len(turn.text) > ANSWER_LIMIT_CHARS:
            raise UserError(f"{where}: turns.{i}.text is {len(turn.text):,} characters; a turn may be at most "
                            f"{ANSWER_LIMIT_CHARS:,}")
    return transcript
