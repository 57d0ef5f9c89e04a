"""Prompt assembly: the interviewer's and judge's templates (interviewer/prompts/*.md) filled from a move."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any

from interviewer.errors import UserError
from interviewer.moves import Move

# Package data (interviewer/prompts/), found through importlib.resources wherever the package is installed.
PROMPTS_DIR = Path(str(files("interviewer") / "prompts"))
HISTORY_TURNS = 6          # turns of the conversation shown to the model
TURN_CHARS = 700           # each earlier turn is clipped to this
LAST_TURN_CHARS = 1500     # the latest turn (usually the answer being responded to)
MAX_PASSAGES = 3
PASSAGE_CHARS = 450
GENERIC_COMPANY = "a company that serves LLMs at scale"
# --------------------------------------------------------------------------------------------
# Prompt assembly

@functools.cache
def load_prompt(name: str) -> str:
    """The text of interviewer/prompts/NAME (cached)."""
    try:
        return (PROMPTS_DIR / name).read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read prompt template {PROMPTS_DIR / name}: {exc.strerror or exc}") from None


@functools.cache
def chat_template(system_file: str, user_file: str):
    """A ChatPromptTemplate (f-string) from a system and a user template file."""
    from langchain_core.prompts import ChatPromptTemplate

    return ChatPromptTemplate.from_messages(
        [("system", load_prompt(system_file)), ("human", load_prompt(user_file))],
        template_format="f-string",
    )


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _turn_fields(turn: Any) -> tuple[str, str]:
    if isinstance(turn, Mapping):
        return str(turn.get("role", "")), str(turn.get("text", ""))
    if isinstance(turn, tuple) and len(turn) == 2:
        return str(turn[0]), str(turn[1])
    return str(getattr(turn, "role", "")), str(getattr(turn, "text", ""))


def format_history(history: Iterable[Any], turns: int = HISTORY_TURNS) -> str:
    """The last `turns` turns as "[interviewer] ..." / "[candidate] ..." lines, clipped."""
    items = [_turn_fields(t) for t in history]
    recent = items[-turns:] if turns > 0 else []
    lines = []
    for i, (role, text) in enumerate(recent):
        limit = LAST_TURN_CHARS if i == len(recent) - 1 else TURN_CHARS
        lines.append(f"[{role or 'unknown'}] {_clip(text, limit) or '(empty)'}")
    return "\n".join(lines) or "(no turns yet)"


def prompt_variables(move: Move, history: Iterable[Any], question_title: str,
                     company: str | None = None) -> dict[str, str]:
    """The values the interviewer templates are filled with."""
    facts = "\n".join(f"  - {f}" for f in move.facts) or "  (none)"
    passages = "\n".join(
        f"  [{i}] {p.title} (source: {p.source}): {_clip(p.text, PASSAGE_CHARS) or '(no text)'}"
        for i, p in enumerate(move.passages[:MAX_PASSAGES], 1)
    ) or "  (none)"
    phase = move.phase_title or move.phase
    return {
        "claims": _claims_block(history),
        "company": company or GENERIC_COMPANY,
        "question_title": question_title or "an LLM-serving design question",
        "history": format_history(history),
        "kind": move.kind,
        "phase": phase.replace("_", " "),
        "ask": move.ask.strip() or "(none)",
        "acknowledgement": (move.acknowledgement or "").strip() or "(none)",
        "facts": facts,
        "passages": passages,
    }


MAX_CLAIMS = 12


def _claims_block(history: Iterable[Any]) -> str:
    """The candidate's figures as the ledger reads them, with each check: the LLM may shape its
    question around them, never contradict them."""
    from interviewer.claims import build_ledger

    turns = [_turn_fields(t) for t in history]
    try:
        ledger = build_ledger(turns)
    except Exception:  # the ledger is context for wording; its absence must not cost the turn
        return "  (none)"
    lines = []
    for c in [c for c in ledger.candidate_claims() if c.value is not None][-MAX_CLAIMS:]:
        verdict = "" if c.check is None or c.check.status == "unchecked" else (
            " [checks out]" if c.check.status == "ok" else f" [does not check out: {c.check.explanation}]")
        lines.append(f'  - {c.kind.replace("_", " ")}: "{c.span}"{verdict}')
    return "\n".join(lines) or "  (none)"


def build_messages(move: Move, history: Iterable[Any], question_title: str, company: str | None = None):
    """The chat messages (system persona + this turn's move) for one interviewer turn."""
    template = chat_template("interviewer_system.md", "interviewer_turn.md")
    return template.format_messages(**prompt_variables(move, history, question_title, company))
