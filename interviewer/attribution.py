"""What an interviewer turn attributes to the candidate must be what the candidate said.

Two things are checked in any interviewer text, built-in or from an LLM: a quotation ("...") must be
a verbatim substring of the candidate's answers, and an attribution ("you said X", "when you say X",
"you mentioned X", "you route by X") must name words the candidate used. A turn that fails is
re-worded without the attribution by the caller; nothing here invents a replacement.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

_QUOTED = re.compile(r"\"([^\"\n]{4,300})\"|“([^”\n]{4,300})”")
_ATTRIBUTION = re.compile(
    r"\b(?:you(?:'ve| have)?\s+(?:said|mentioned|listed|brought\s+up|raised|proposed|suggested|chose|picked|named|"
    r"described|want(?:ed)?\s+to)|when\s+you\s+say|you(?:'re|\s+are|'d|\s+would)\s+(?:using|routing|proposing)|"
    r"you\s+(?:route|shard|batch|cache|quantize|quantise|preempt|replicate))\b\s*(?:that\s+|to\s+)?"
    r"([^.?!;:\n]{3,90})", re.IGNORECASE)
_ASKING = re.compile(r"\b(?:how|do|does|would|could|can|should|will|if|when|why|what|where|whether|tell|tells|show|"
                     r"shows|let|lets|give|gives|help|helps|make|makes|cost|costs)\s+$", re.I)
# "the model we named" credits the candidate with naming one; it needs a wording that does not.
_WE_NAMED = re.compile(r"\bwe\s+(?:named|agreed|picked|chose)\b", re.IGNORECASE)
# Words that carry no claim of their own in an attributed phrase.
_FILLER = frozenset("""a an the that this it its is are be was were to of in on for and or with by as at from
your you we our so do does did would could should will can it's into about there their them then than
some any each per one two very just more less""".split())
_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")


def _norm(text: str) -> str:
    return " ".join(text.replace("’", "'").replace("“", '"').replace("”", '"').split())


def _stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word


def unsupported(text: str, candidate_texts: Iterable[str]) -> list[str]:
    """The quotations and attributions in `text` that the candidate's answers do not support."""
    said = _norm("\n".join(candidate_texts))
    said_low = said.lower()
    said_stems = {_stem(w) for w in _WORD.findall(said_low)}
    problems = []
    for m in _QUOTED.finditer(text):
        quote = _norm(m.group(1) or m.group(2)).strip(" .,")
        if quote and quote.lower() not in said_low:
            problems.append(f'quote not said: "{quote}"')
    for m in _ATTRIBUTION.finditer(text):
        if _ASKING.search(text[max(0, m.start() - 14):m.start()]):
            continue  # "how do you batch ...", "if you quantize ...": a question, not an attribution
        phrase = re.split(r"\s[-–—]\s|,\s", m.group(1), maxsplit=1)[0]  # "you said X - what about Y?"
        words = [w for w in _WORD.findall(phrase.lower()) if w not in _FILLER]
        missing = [w for w in words[:6] if _stem(w) not in said_stems]
        if not words or missing:
            problems.append(f"attributes {m.group(0).strip()!r} (not said: {', '.join(missing) or 'nothing specific'})")
    for m in _WE_NAMED.finditer(text):
        problems.append(f"assumes agreement: {m.group(0)!r}")
    return problems


def supported(text: str, candidate_texts: Iterable[str]) -> bool:
    return not unsupported(text, list(candidate_texts))


def verbatim(quote: str, candidate_texts: Iterable[str]) -> bool:
    """Is `quote` an exact substring of one of the candidate's answers (whitespace aside)?"""
    q = _norm(quote)
    return bool(q) and any(q in _norm(t) for t in candidate_texts)
