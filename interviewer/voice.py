"""The built-in interviewer's voice: a Move rendered with the wording in prompts/offline.yaml."""
from __future__ import annotations

import functools
import random
from importlib.resources import files
from pathlib import Path

from interviewer.bank import load_yaml
from interviewer.moves import Move

WORDING = Path(str(files("interviewer") / "prompts" / "offline.yaml"))  # package data


@functools.cache
def wording() -> dict:
    return load_yaml(WORDING)


def _pick(options: list[str], rng: random.Random) -> str:
    return options[rng.randrange(len(options))]


def ask_variants(item: str, family: str | None = None) -> list[str]:
    """The wordings for probing `item`; a family's own wording wins (a WAL store has no GPUs)."""
    w = wording()
    return (w.get("ask_by_family", {}).get(family or "", {}).get(item)
            or ([] if item in w.get("not_asked_in", {}).get(family or "", []) else w["ask"].get(item, [])))


def _question(move: Move, rng: random.Random) -> str:
    """The core question: the item's own variants, else the move's plain ask."""
    if move.kind == "probe" and move.item:
        options = ask_variants(move.item, move.family)
        if options:
            return _pick(options, rng)
        ask = move.ask.rstrip(".")
        return ask[0].upper() + ask[1:] + "?"
    return move.ask


def render(move: Move, seed: str = "") -> str:
    """Turn a move into the interviewer's words; `seed` makes the wording stable for a turn."""
    w = wording()
    rng = random.Random(f"{seed}:{move.kind}:{move.key}")
    parts: list[str] = []
    if move.facts and move.kind in ("follow_up", "close"):  # a drill's on-the-spot score
        parts.extend(move.facts)
    if move.acknowledgement and move.kind not in ("empty", "clarify"):
        label = move.acknowledgement
        if move.slots.get("echo") and rng.random() < 0.6:  # their own numbers, quoted back
            parts.append(_pick(w["acknowledge_echo"], rng).format(echo=move.slots["echo"], label=label))
        else:
            parts.append(_pick(w["acknowledge"], rng).format(label=label, label_cap=label[0].upper() + label[1:]))
    elif move.slots.get("unsure"):
        parts.append(_pick(w["acknowledge_unsure"], rng))
    elif move.kind in ("probe", "follow_up", "simulate") and not move.phase_title:
        parts.append(_pick(w["acknowledge_plain"], rng))
    if move.phase_title and move.kind != "close":
        parts.append(_pick(w["phase"][move.phase], rng))

    if move.kind == "opening":
        parts.append(move.ask)
    elif move.kind == "probe" or move.kind == "follow_up":
        if move.slots.get("lead"):
            parts.append(move.slots["lead"])
        parts.append(_question(move, rng))
    elif move.kind == "pitfall":
        pid = move.pitfall or ""
        options = w.get("pitfall_by_family", {}).get(move.family or "", {}).get(pid) or w["pitfall"].get(pid)
        parts.append(_pick(options or [move.ask], rng))
    elif move.kind == "challenge":
        facts = " ".join(f.rstrip(".") + "." for f in move.facts)
        parts.append(_pick(w["challenge"], rng).format(facts=facts, facts_lc=facts[:1].lower() + facts[1:],
                                                        ask=move.ask))
    elif move.kind == "simulate":
        parts.append(_pick(w["simulate"], rng).format(facts=" ".join(move.facts), ask=move.ask))
    elif move.kind == "wrap_up":
        parts.append(_pick(w["exhausted" if move.slots.get("exhausted") else "wrap_up"], rng))
    elif move.kind == "close":
        parts.append(_pick(w["close"], rng))
    elif move.kind == "offer":
        parts.append(_pick(w["offer"], rng).format(minutes=move.slots.get("minutes", "a few")))
    elif move.kind in ("empty", "clarify"):
        parts.append(_pick(w[move.kind], rng).format(ask=move.ask).strip())
    return " ".join(p.strip() for p in parts if p.strip())
