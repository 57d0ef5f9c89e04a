"""A turn's text cut into segments: prose sentences (bullet items are sentences) and table rows.

Each segment carries a `text` to match against, in which model names are masked to ``¶`` and GPU
names to ``§`` (same length, so offsets hold), and a map back to the turn's own text. A Markdown
table row ("| KV per token | 128 KiB |") becomes one segment per value cell whose text is
"<row label> <column header>: <cell>", so a cue in the label attaches to the number in the cell;
only the cell part maps back to the turn.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from interviewer import capacity
from interviewer.claims.numbers import european_to_english, restated_thousands, spaced_thousands
from interviewer.quickre import folds, guarded, may_match, needed_literals

MODEL_MASK = "¶"
GPU_MASK = "§"
# split after . ! ? followed by space and something that starts a sentence, and at line breaks
# (a sentence may open on a lower-case config key: "... straight away. max_num_batched_tokens at 2,048")
# (a pause, "is... 20 percent", "so... 54 left", ends no sentence: only a capital after it does)
# ... or a lower-case word after a word's full stop, as people who write in lower case do ("... off nearly-empty
# hosts. i'd budget ~5% of the fleet"), though not after an abbreviation ("e.g. the", "vs. static", "approx. 5")
# ... and never after "i.e.", "e.g.", "viz." or "c." for circa before a figure or a name ("hold 15% as headroom, i.e. 200
# GPUs", "c. 35 GPUs a team")
_SENT_END = re.compile(r"(?<=[.!?])(?<!\.\.\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bviz\.)(?<!\bvs\.)(?<!\bcf\.)(?<!\bca\.)"
                       r"(?<!\bapprox\.)(?<!(?<![\w.])c\.)[\"')\]]*\s+(?=[A-Z0-9~\"'(\[*_-]|[a-z]+_[a-z])|(?<=\.\.\.)\s+(?=[A-Z])|\n+"
                       r"|(?<=[a-z]{2}\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\betc\.)(?<!\bcf\.)(?<!\bno\.)(?<!\bca\.)"
                       r"(?<!\bapprox\.)(?<!\bincl\.)(?<!\bmin\.)(?<!\bmax\.)(?<!\bavg\.)(?<!\bsec\.)(?<!\bfig\.)(?<!\best\.)"
                       r"(?<!\bresp\.)\s+(?=[a-z])")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
# names a preset list does not know: "GPT-4", "Qwen2-72B", "8x7B", "Llama-3.1-70B"
# (the letter run is possessive: a shorter run is followed by a letter, never by the digit it needs)
# (not a word and its count: "the batch-8 case", "top-5", "tier-2" name no model)
_OTHER_NAMES = re.compile(r"(?<![\w])(?!(?i:tp)[-_=]?\d)(?!(?i:batch|top|step|layer|rank|tier|stage|phase|level|group|block|slot)[-_]\d+(?![\w.-]))(?:[A-Za-z][A-Za-z]*+[-_]?\d[\w.]*(?:-[\w.]+)*|\d+x\d+(?:\.\d+)?[bB])(?![\w])")
_PARENS = re.compile(r"\([^)]*\d[^)]*\)")
_LABEL_FIGURES = re.compile(r"(?<![\w.-])~?\d[\d,.]*\s*(?:%|[a-zA-Z]{1,3}\b)?")
_GENERIC_VALUE_HEADERS = re.compile(r"^(?:value|values|number|figure|estimate|amount|size|result|n|#|qty|quantity)$", re.I)

# a checklist slot left empty ("Trade-off: —.", "Max batch: TBD", "Corruption check: n/a"): its label
# alone claims nothing, so the slot is blanked before any reading
_EMPTY_SLOT = re.compile(r"([A-Za-z][\w '’/()+-]{0,40}):[ \t]*(?:—|–|-{1,3}|\?{1,3}|tbd|n/?a|…|see\s+(?:above|below|earlier|section\s+\d+(?:\.\d+)?))[ \t]*"
                         # ... or a dash that only defers: "What would show I'm wrong: — I'd have to think about it."
                         r"(?:(?<=[—–-]) ?(?:i.d\s+have\s+to\s+(?:think|check|look)|i.d\s+(?:settle|decide|figure|work|sort)\b|not\s+sure|don.t\s+know|no\s+idea|to\s+be\s+decided)\b[^.;\n\d]*)?"
                         r"(?:[.;]|(?=[ \t]*(?:\n|$)))", re.I)
# a checklist announced before it is filled ("Let me run my checklist: failure rate, signals, states, drain
# rule, ..."): the slots it names are said later, or not at all
# ... or a plan's topics numbered in one line: "Plan: 1) the latency budget, 2) how many GPUs, 3) batching on the GPUs."
_AGENDA = re.compile(r"(?:(?:let\s+me\s+|i.ll\s+|i\s+will\s+|so\s+)?(?:run|walk|go\s+through|cover|use|start\s+with)?\s*"
                     r"(?:my|the|a|this)\s+|^\s*)(checklist|list|agenda|outline|plan|roadmap)\b[^:.!?\n]{0,30}:"
                     r"((?:[^.!?\n]|(?<=\d)[.)](?=\s))*)", re.I)
# ... or as a run of bare numbered headings: "Here's my outline. 1. Data model. 2. Write-ahead log. 3. Durability."
_OUTLINE = re.compile(r"(?:(?<=\s)|^)(?:\d{1,2}[.)]\s+[A-Z][\w'’/-]*(?:\s+[\w'’/-]+){0,3}\.(?:\s+|$)){3,}")
_SLOT_OPENS = re.compile(r"(?:^|[.!?;:\n]|^\s*(?:[-*+•]|\d+[.)]))\s*$")
# The slot and agenda patterns are tried at every letter of a turn (case-insensitive, no literal to skip
# ahead to), and most turns have neither: each is run only on a text that holds what every match of it
# holds - a colon with an empty-slot mark after it, or one of the agenda's words (may_match)
_SLOT_MARK = re.compile(r":[ \t]*(?:—|–|-|\?|tbd|n/?a|…|see\s)", re.I)
_AGENDA_WORDS = needed_literals(_AGENDA)
# ... and every agenda match holds its list word with the colon after it: a text that holds a word
# ("list" is in "realistic") and no colon after it is ruled out by one scan of this, not of the agenda
_AGENDA_TAIL = guarded(re.compile(r"(?:checklist|list|agenda|outline|plan|roadmap)\b[^:.!?\n]{0,30}:", re.I))
_ENUMERATOR = re.compile(r"(?<!\w)\(?\d{1,2}[.)](?=\s)")  # "1)", "2.", "(3)" numbering a list's items
_PLAN_WORDS = frozenset({"plan", "roadmap"})


def blank_empty_slots(text: str) -> str:
    """`text` with every empty checklist slot ("Trade-off: —."), every announced checklist's list of
    slots and every run of bare numbered headings turned to spaces: the same length, so offsets hold.
    Only a slot that opens its sentence or bullet counts."""
    out: list[str] | None = None
    if "3." in text or "3)" in text:
        for m in _OUTLINE.finditer(text):
            out = out or list(text)
            out[m.start():m.end()] = " " * (m.end() - m.start())
    if ":" not in text:
        return "".join(out) if out else text
    for m in _EMPTY_SLOT.finditer(text) if _SLOT_MARK.search(text) else ():
        line_start = text.rfind("\n", 0, m.start()) + 1
        if not _SLOT_OPENS.search(text[line_start:m.start()]):
            continue
        out = out or list(text)
        out[m.start():m.end()] = " " * (m.end() - m.start())
    for m in _AGENDA.finditer(text) if may_match(_AGENDA_WORDS, text.lower(), folds(text)) and _AGENDA_TAIL.search(text) \
            else ():
        items = m.group(2)
        numbered = _ENUMERATOR.match(items.lstrip()) is not None
        if m.group(1).lower() in _PLAN_WORDS and not numbered:
            continue  # "The plan: continuous batching, a priority queue and a fallback" is the design, not an agenda
        if items.count(",") < 2 or re.search(r"(?<!\w)\d", _ENUMERATOR.sub(" ", items) if numbered else items):
            continue  # not a list, or one with figures in it: said, not announced
        out = out or list(text)
        out[m.start(2):m.end(2)] = " " * (m.end(2) - m.start(2))
    return "".join(out) if out else text


# the sounds of thinking aloud, with the commas around them: "which is, um, 12 seconds" reads as
# "which is 12 seconds" ("er" only in lower case: "ER" is a name)
# (guarded: the comma is optional and a lookbehind follows, so the engine could not skip ahead to a
# place a match can start)
_FILLER = guarded(re.compile(r"(?:,\s*)?(?<![\w'’-])(?:[Uu]m+|[Uu]h+|[Hh]m+|[Ee]rm+|er)(?![\w'’-])(?:\s*,)?"))


def blank_matches(pattern: re.Pattern, text: str) -> str:
    """`text` with every match of `pattern` turned to spaces: the same length, so offsets hold."""
    return pattern.sub(lambda m: " " * (m.end() - m.start()), text)


@lru_cache(maxsize=1024)
def blank_fillers(text: str) -> str:
    """`text` with each filler ("um", "hmm", "uh") and its commas turned to spaces: the same length.
    Cached by text: the candidate's reading and the ledger's corrections check blank the same turn."""
    if not _FILLER.search(text):
        return text
    return blank_matches(_FILLER, text)


# a hedge set off by commas just before a figure: "a max wait of, I think, 3 ms", "is, I believe, about 40 seconds" read as
# "a max wait of 3 ms" (not "I'd guess": a guessed figure is read as one)
_HEDGE = re.compile(r",\s*(?:I\s+think|I\s+believe|I.d\s+say)\s*,(?=\s*(?:about\s+|around\s+|roughly\s+|~)?\d)", re.I)


def blank_hedges(text: str) -> str:
    """`text` with each hedge set off by commas before a figure turned to spaces: the same length."""
    if "," not in text or not _HEDGE.search(text):
        return text
    return blank_matches(_HEDGE, text)


# inline LaTeX as candidates type it in chat: "$2 \\times 80 \\times 8$ B", "\\approx 320 KiB", "2{,}048",
# "\\text{ GB}": each command becomes its symbol (or nothing) padded with spaces, so offsets hold
_LATEX_SYMBOL = {"times": "×", "cdot": "·", "approx": "≈", "sim": "~", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥",
                 "div": "÷", "to": "→", "rightarrow": "→", "Rightarrow": "⇒", "mu": "µ"}
_LATEX = re.compile(r"\\(?:text|mathrm|mathbf|operatorname)\{[^{}$]*\}|\\([A-Za-z]+)|\\[,;:! %]|(?<=\d)\{,\}(?=\d{3})")


# a "$...$" pair around arithmetic is math, not money: "So $175 + 65 + 10 = 250$ hosts" (not "$3 an hour, $4,320 a day")
_MATH_PAIR = re.compile(r"\$([^$\n]{1,300}?)\$")
_MATH_INSIDE = re.compile(r"[=+×*/^]|\\[A-Za-z]|\d\s*x\s*\d")


def latex_plain(text: str) -> str:
    """`text` with inline LaTeX read as plain symbols, the same length: "$8 \\times 2048$" is "8 ×      2048"."""
    if "\\" not in text and "$" not in text:
        return text
    out = list(text)
    for m in _MATH_PAIR.finditer(text):
        if _MATH_INSIDE.search(m.group(1)):
            out[m.start()] = out[m.end() - 1] = " "
    for m in _LATEX.finditer(text) if "\\" in text else ():
        s, e = m.start(), m.end()
        word = m.group(1)
        if word is not None:
            sym = _LATEX_SYMBOL.get(word)
            if sym is None:
                continue  # another command: left as written
            out[s:e] = [sym] + [" "] * (e - s - 1)
        elif text[s:e] == "{,}":
            out[s:e] = [",", " ", " "]
        elif text[s:e] == "\\%":
            out[s:e] = ["%", " "]
        elif text[s:e].endswith("}"):
            inner = text[s:e].index("{") + 1  # "\\text{ GB}": the words kept, in place
            out[s:e] = [" "] * inner + list(text[s + inner:e - 1]) + [" "]
        else:
            out[s:e] = [" "] * (e - s)  # "\\,", "\\;": gone
    plain = "".join(out)
    # "2,  048" (a LaTeX thousands group): the digits closed up, the spaces moved to the end of the number
    return re.sub(r"(\d),  (\d{3})", lambda m: f"{m.group(1)},{m.group(2)}  ", plain)


@lru_cache(maxsize=1024)
def candidate_reading(text: str, european: bool) -> str:
    """A candidate's turn as the claim ledger and the cue scan both read it: each dotted thousands
    group written with commas when the candidate writes numbers the European way (or restates that
    number with commas), a line of working joined to the "=" line that goes on from it, and the fillers, the hedges
    before a figure and the empty slots blanked (the same length, so offsets hold).
    Cached by text: the two read the same turns."""
    text = spaced_thousands(arrow_bullets(blank_outline_labels(unbracket_units(latex_plain(code_thousands(circa(
        join_continued(text))))))))
    return blank_empty_slots(blank_hedges(blank_fillers(european_to_english(text) if european else restated_thousands(text))))


# a line of the interviewer's message quoted back in a reply, email style: "> p99 time to first token under 800 ms"
_QUOTE_LINE = re.compile(r"^[ \t]*>[ \t]?([^\n]*)$", re.M)
_WORD = re.compile(r"[a-z0-9]+")


def blank_quoted(text: str, asked: Iterable[str]) -> str:
    """`text` with each line quoted from the interviewer's words (`asked`: the interviewer's turns so far) blanked:
    "> a p99 budget of 150 ms for the whole call" is the interviewer's figure, not the candidate's (not a line that
    only opens on ">": "> 60 ms → popular-in-city list" is a threshold). The same length, so offsets hold. The
    interviewer's words are read only for a turn that quotes (most quote nothing)."""
    if ">" not in text:
        return text
    said = {w for turn in asked for w in _WORD.findall(turn.lower())}
    if not said:
        return text

    def blank(m: re.Match) -> str:
        words = _WORD.findall(m.group(1).lower())
        if len(words) >= 3 and sum(w in said for w in words) >= 0.8 * len(words):
            return " " * len(m.group(0))
        return m.group(0)

    return _QUOTE_LINE.sub(blank, text)


# "c." for circa before a figure: "plus c. 40 GB of KV", "c. 30 per GPU" (not "Section c. 4")
_CIRCA = re.compile(r"(?<![\w.])(?:[cC]|[cC]a)[.]\s?(?=\d)")


def circa(text: str) -> str:
    """`text` with "c." before a figure read as "~" ("plus c. 40 GB" -> "plus ~  40 GB"); the same length, so offsets
    hold."""
    if "c." not in text and "C." not in text and "a." not in text:  # ("ca. 40 per Week")
        return text
    return _CIRCA.sub(lambda m: "~" + " " * (len(m.group(0)) - 1), text)


_CODE_THOUSANDS = re.compile(r"(?<=\d)_(?=\d{3}(?!\d))")


def code_thousands(text: str) -> str:
    """`text` with code's digit separators read as commas ("819_200" -> "819,200"); the same length."""
    return _CODE_THOUSANDS.sub(",", text) if "_" in text else text


# notes written one idea an arrow line: "-> failures are normal at this scale", "=> basically a state machine"
_ARROW_LINE = re.compile(r"(?m)^([ \t]*)(?:-{1,2}>|={1,2}>|→|⇒)(?=[ \t])")


def arrow_bullets(text: str) -> str:
    """`text` with each line-leading arrow read as a bullet ("-> or DRF" -> "-  or DRF"); the same length,
    so offsets hold."""
    if ">" not in text and "→" not in text and "⇒" not in text:
        return text
    return _ARROW_LINE.sub(lambda m: m.group(1) + "-" + " " * (len(m.group(0)) - len(m.group(1)) - 1), text)


# an outline's step labels at a line's start: "1a. Weights ...", "2b) Per sequence ..." (a "1b." is no 1B model)
_OUTLINE_LABEL = re.compile(r"(?m)^(\s*)(\d{1,2}[a-h][.)])(?=\s)")


def blank_outline_labels(text: str) -> str:
    """`text` with the step labels of a numbered outline blanked (the same length, so offsets hold)."""
    if not any(c in text for c in ".)"):
        return text
    return _OUTLINE_LABEL.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)


# a line of working that goes on to its result on the next line, code style ("per_token = 2 * 32 * 32 * 128 * 2   # K and
# V, ...\n          = 524,288 B"): the line's comment and break are blanked, so the result closes the calculation
_CONTINUED = re.compile(r"(?:[ \t]*#[^\n]*)?\n(?=[ \t]*=(?![=>]))")  # (not an arrow bullet: "=> we'd keep it in Redis")


def join_continued(text: str) -> str:
    """`text` with each line that continues on an "=" line joined to it (the same length, so offsets hold)."""
    if "\n" not in text or "=" not in text:
        return text
    return blank_matches(_CONTINUED, text)


# a unit in square brackets after its number: "8,050 x 320 [KiB] ~ 2.6 [GB]", "wait would pass 2 [s]"
_BRACKETED_UNIT = re.compile(r"(?<=[\d.])(\s*)\[([A-Za-zµ%][A-Za-zµ%/.\- ]{0,14})\]")


def unbracket_units(text: str) -> str:
    """`text` with a unit bracketed after its number read as the unit ("320 [KiB]" -> "320  KiB "); the same length,
    so offsets hold."""
    if "[" not in text:
        return text
    return _BRACKETED_UNIT.sub(lambda m: m.group(1) + " " + m.group(2) + " ", text)


@dataclass
class Segment:
    text: str          # masked text to match against
    plain: str         # unmasked text (same length)
    turn_start: int    # where text[map_from:] begins in the turn's text
    map_from: int = 0  # text before this index is virtual (a table's labels)
    source: str = "prose"
    models: list[tuple[str, int, int]] = field(default_factory=list)  # (preset, start, end) in text
    gpus: list[tuple[str, int, int]] = field(default_factory=list)
    virtual_to: int = -1  # text from this index on is virtual too (a unit its column names), when >= 0

    def to_turn(self, pos: int) -> int:
        if self.virtual_to >= 0:
            pos = min(pos, self.virtual_to)
        return self.turn_start + (pos - self.map_from)

    @property
    def sentence(self) -> str:
        return self.plain[self.map_from:self.virtual_to if self.virtual_to >= 0 else None]


def _mask(text: str, spans, ch: str) -> str:
    chars = list(text)
    for _pid, s, e in spans:
        for i in range(s, e):
            chars[i] = ch
    return "".join(chars)


_SEP = r"[\s\-_/(),]*"


def _alias_body(alias: str) -> str:
    """An alias as a regex: parts joined by optional separators, a gap allowed after digits
    (the same reading as capacity.match_models / match_gpus)."""
    parts = [p for p in re.split(r"[\s\-_/]+", alias.lower().strip()) if p]
    return _SEP.join(_SEP.join(re.escape(x) for x in re.split(r"(?<=\d)(?=[a-z])", part)) for part in parts)


@lru_cache(maxsize=2)
def _combined(kind: str) -> tuple[re.Pattern, list[str]]:
    """One regex for every preset alias of a kind, longest alias first, so a turn is scanned once
    (capacity's matcher runs one regex per alias; the answers agree, see tests/test_claims.py)."""
    presets = capacity.load_presets()
    specs = presets.models if kind == "model" else presets.gpus
    entries = sorted(((len(a), pid, _alias_body(a)) for pid, spec in specs.items() for a in [spec.id, *spec.aliases]),
                     key=lambda e: -e[0])
    ids = [pid for _n, pid, _b in entries]
    first = "".join(sorted({re.escape(a.lower()[0]) for _pid, spec in specs.items() for a in [spec.id, *spec.aliases]}))
    alt = f"(?=[{first}])(?:{_by_first_char([body for _n, _pid, body in entries])})"
    # most places fail on one character test, made before the lookbehind
    if kind == "gpu":
        pat = rf"(?=[{first}])(?:(?<![a-z0-9])|(?<=\dx))(?:{alt})s?(?![a-z0-9]){capacity.GPU_NOT_A_LAYER}"
    else:
        pat = rf"(?=[{first}])(?<![a-z0-9.])(?:{alt})(?![a-z0-9])"
    return re.compile(pat), ids


def _by_first_char(bodies: list[str]) -> str:
    """The alternation of the aliases' regexes (group g<i> for the i-th), grouped by the character
    each starts with: the engine then skips a whole group on one test instead of trying every alias
    in turn. Within a group the order is kept, and aliases that start differently never match at
    the same place, so the alias matched is the one the flat alternation would match."""
    groups: dict[str, list[str]] = {}
    for i, body in enumerate(bodies):
        head = re.escape(body[0]) if body[:1].isalnum() else None
        if head is None or not body.startswith(head):
            return "|".join(f"(?P<g{k}>{b})" for k, b in enumerate(bodies))  # no plain first character
        groups.setdefault(head, []).append(f"(?P<g{i}>{body[len(head):]})")
    return "|".join(f"{head}(?:{'|'.join(alts)})" for head, alts in groups.items())


def _find_names(kind: str, text: str) -> tuple:
    pat, ids = _combined(kind)
    low = text.lower()
    if len(low) != len(text):
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return tuple((ids[int(m.lastgroup[1:])], m.start(), m.end()) for m in pat.finditer(low))


@lru_cache(maxsize=4096)
def _names(text: str) -> tuple[tuple, tuple]:
    return _find_names("model", text), _find_names("gpu", text)


def model_ids_named(text: str) -> set[str]:
    """The preset ids of the models `text` names."""
    return {name for name, _s, _e in _names(text)[0]}


def _masked(text: str, names: tuple[list, list] | None = None) -> tuple[str, list, list]:
    """Mask model and GPU names (and unknown model-like names) in `text`, keeping offsets."""
    models, gpus = names if names is not None else _names(text)
    out = _mask(_mask(text, models, MODEL_MASK), gpus, GPU_MASK)
    # other alphanumeric names ("GPT-4", "FP16" is fine: letters before digits never parse as numbers)
    extra = [("", m.start(), m.end()) for m in _OTHER_NAMES.finditer(out)
             if "-" in m.group(0) or "x" in m.group(0).lower()]
    extra = [x for x in extra if MODEL_MASK not in out[x[1]:x[2]] and GPU_MASK not in out[x[1]:x[2]]]
    if extra:
        out = _mask(out, extra, MODEL_MASK)
    return out, list(models), list(gpus)


def _split_cells(line: str, line_start: int) -> list[tuple[str, int]]:
    """Cells of a table row with their offsets in the turn (leading/trailing pipes dropped)."""
    cells, start = [], 0
    body = line
    for i, ch in enumerate(body):
        if ch == "|" and (i == 0 or body[i - 1] != "\\"):
            cells.append((start, i))
            start = i + 1
    cells.append((start, len(body)))
    out = []
    for s, e in cells:
        raw = body[s:e]
        stripped = raw.strip()
        if not stripped and (s == 0 or e == len(body)):
            continue  # the empty edge outside a leading or trailing pipe
        lead = len(raw) - len(raw.lstrip())
        out.append((stripped, line_start + s + lead))
    return out


def _clean_label(s: str) -> str:
    """A cell without Markdown emphasis (``**x**``, ``_x_``, backticks); inner underscores stay."""
    return re.sub(r"[*`]+|(?<!\w)_+|_+(?!\w)", "", s).strip()


@lru_cache(maxsize=1024)
def _table_lines(text: str) -> dict[int, str]:
    """Line numbers of Markdown table rows -> 'header' or 'body' (markdown-it-py decides). Cached by
    text (the ledger's segments and the cue scan's digitized read the same turn): not to be changed."""
    if "|" not in text or "-" not in text:
        return {}
    md = _md()  # markdown-it-py is imported only once a turn may hold a table
    kinds: dict[int, str] = {}
    section = None
    for tok in md.parse(text):
        if tok.type == "thead_open":
            section = "header"
        elif tok.type == "tbody_open":
            section = "body"
        elif tok.type == "tr_open" and tok.map:
            kinds[tok.map[0]] = section or "body"
    return kinds


@lru_cache(maxsize=1)
def _md():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def segments(text: str, names: tuple[list, list] | None = None) -> list[Segment]:
    """Cut a turn into prose sentences and table-row cells, in text order. `names`: the turn's
    model and GPU mentions when already known (see names_for)."""
    out: list[Segment] = []
    rows = _table_lines(text)
    lines = text.split("\n")
    offsets, pos = [], 0
    for ln in lines:
        offsets.append(pos)
        pos += len(ln) + 1
    header: list[str] = []
    prose_start = 0

    def flush_prose(upto: int) -> None:
        if upto > prose_start:
            sub = None
            if names is not None:
                sub = ([(p, a - prose_start, b - prose_start) for p, a, b in names[0] if a >= prose_start and b <= upto],
                       [(p, a - prose_start, b - prose_start) for p, a, b in names[1] if a >= prose_start and b <= upto])
            out.extend(_prose(text, prose_start, upto, sub))

    i = 0
    while i < len(lines):
        if i in rows or (rows and _TABLE_SEP.match(lines[i]) and (i - 1) in rows):
            flush_prose(offsets[i])
            if i in rows:
                cells = _split_cells(lines[i], offsets[i])
                if rows[i] == "header":
                    header = [_clean_label(c) for c, _ in cells]
                    # the header names what the table is about ("per replica (TP4 on H100 80GB)")
                    out.extend(_prose(text, offsets[i], offsets[i] + len(lines[i])))
                else:
                    out.extend(_row_segments(cells, header))
            prose_start = offsets[i] + len(lines[i]) + 1
        i += 1
    flush_prose(len(text))
    return out


def _row_segments(cells: list[tuple[str, int]], header: list[str]) -> list[Segment]:
    if not cells:
        return []
    label = _clean_label(cells[0][0])
    out = []
    if any(ch.isdigit() for ch in cells[0][0]):
        # a figure in the row's label ("Sequences per GPU at 4k") is said too
        masked, models, gpus = _masked(cells[0][0])
        out.append(Segment(text=masked, plain=cells[0][0], turn_start=cells[0][1], source="table",
                           models=models, gpus=gpus))
    # the label describes the value ("left on an 80 GB H100 (10% held back)"): its own figures are said
    # above, so the value's cue reads the label without them
    plain_label = _LABEL_FIGURES.sub("", _PARENS.sub("", label))
    plain_label = " ".join(plain_label.split())
    # the label column's header names what each row's label is: "| Timeout | Value (s) |" over "| first token | 30 |" is
    # the first-token timeout
    row_kind = header[0] if header and _ROW_KIND_HEADER.fullmatch(header[0]) else ""
    if row_kind and row_kind.lower() not in plain_label.lower():
        plain_label = f"{plain_label} {row_kind.lower()}"
    for col, (cell, start) in enumerate(cells[1:], start=1):
        if not cell:
            continue
        head = header[col] if col < len(header) else ""
        head = "" if _GENERIC_VALUE_HEADERS.match(head or "") else head
        parts = (_slashed(plain_label, cell) or _factored(plain_label, cell)) if not head else None
        if parts:
            # "layers / KV heads / head dim | 40 / 40 (no GQA) / 128": each label reads its own value
            for name, (piece, off) in parts:
                prefix = name + ": "
                plain = prefix + piece
                masked, models, gpus = _masked(plain)
                out.append(Segment(text=masked, plain=plain, turn_start=start + off, map_from=len(prefix),
                                   source="table", models=models, gpus=gpus))
            continue
        prefix = " ".join(p for p in (plain_label, head) if p) + ": "
        # a bare figure under a unit its header or label names: "| per token (KiB) | 512 |", "| weights (GB) |" over "13.5"
        unit = (_UNIT_NAMED.search(head or label) or _UNIT_HEADER.search(head or label)) if _BARE_FIGURE.match(cell) else None
        suffix = " " + unit.group(1) if unit else ""
        plain = prefix + cell + suffix
        masked, models, gpus = _masked(plain)
        out.append(Segment(text=masked, plain=plain, turn_start=start, map_from=len(prefix), source="table",
                           models=models, gpus=gpus, virtual_to=len(prefix) + len(cell) if suffix else -1))
    return out


# a label column's header that names a quantity the rows are each one of
_ROW_KIND_HEADER = re.compile(r"\s*(?:timeouts?|deadlines?|limits?|caps?|budgets?|windows?)\s*", re.I)
# a unit in brackets at a header's or label's end, and a cell that is a figure alone
_UNIT_NAMED = re.compile(r"[(\[]\s*(KiB|MiB|GiB|TiB|KB|MB|GB|TB|bytes|B|ms|s|sec|seconds|tokens|tok|GB/s|TB/s|MB/s|"
                         r"tok/s|tokens/s|TFLOPS|%)\s*[)\]]\s*$", re.I)
# ... or a header that ends on a unit, unbracketed: "| hour | puts/s | log MB/s |" over "| 03:00 | 6,000 | 6.3 |"
_UNIT_HEADER = re.compile(r"(?:^|\s)(KiB|MiB|GiB|MB|GB|TB|GB/s|TB/s|MB/s|ms|tok/s|tokens/s|"
                          r"(?:puts|writes|reqs?|requests|queries)/s(?:ec)?)\s*$", re.I)
_BARE_FIGURE = re.compile(r"\s*[~≈]?\s*\d[\d,.]*(?:e\d+)?\s*$", re.I)


_SLASH = re.compile(r"\s+/\s+")


def _slashed(label: str, cell: str) -> list[tuple[str, tuple[str, int]]] | None:
    """A label and a cell both split by " / " into as many parts, each part of the cell with a
    figure: the parts paired in order, with each cell part's offset in the cell."""
    return _paired(label, cell, _SLASH)


_TIMES = re.compile(r"\s+[x×*]\s+")


def _factored(label: str, cell: str) -> list[tuple[str, tuple[str, int]]] | None:
    """A label naming factors and a cell multiplying as many: "heads x head dim | 32 x 128 = 4,096" is 32 heads
    and 128 of head dim (the product after "=" is the label's own, read as no single quantity)."""
    return _paired(label, cell.split("=", 1)[0].rstrip(), _TIMES)


def _paired(label: str, cell: str, sep: re.Pattern) -> list[tuple[str, tuple[str, int]]] | None:
    """The label's and the cell's parts split by `sep`, paired in order when they are as many and each
    cell part holds a figure (each with its offset in the cell)."""
    names = sep.split(label)
    if len(names) < 2:
        return None
    pieces, pos = [], 0
    for m in list(sep.finditer(cell)) + [None]:
        end = m.start() if m else len(cell)
        pieces.append((cell[pos:end], pos))
        pos = m.end() if m else pos
    if len(pieces) != len(names) or not all(any(ch.isdigit() for ch in p) for p, _ in pieces):
        return None
    return list(zip(names, pieces))


def _prose(text: str, start: int, end: int, names=None) -> list[Segment]:
    chunk = text[start:end]
    masked, models, gpus = _masked(chunk, names)
    out = []
    pos = 0
    bounds = [(m.start(), m.end()) for m in _SENT_END.finditer(chunk)] + [(len(chunk), len(chunk))]
    model_starts, gpu_starts = [a for _p, a, _b in models], [a for _p, a, _b in gpus]
    for b_start, b_end in bounds:
        s, e = pos, b_start
        pos = b_end
        piece = chunk[s:e]
        if not piece.strip():
            continue
        lead = len(piece) - len(piece.lstrip())
        bullet = _BULLET.match(piece[lead:])
        if bullet:
            lead += bullet.end()
        s += lead
        e = s + len(chunk[s:e].rstrip())
        if s >= e:
            continue
        seg_models = _inside(models, model_starts, s, e)
        seg_gpus = _inside(gpus, gpu_starts, s, e)
        out.append(Segment(text=masked[s:e], plain=chunk[s:e], turn_start=start + s, models=seg_models, gpus=seg_gpus))
    return out


def _inside(names: list[tuple[str, int, int]], starts: list[int], s: int, e: int) -> list[tuple[str, int, int]]:
    """The names (sorted by start; `starts` their starts) that lie within [s, e), shifted to start at s:
    looked up by bisection instead of testing every name of the chunk for every sentence."""
    out = []
    for k in range(bisect.bisect_left(starts, s), bisect.bisect_left(starts, e)):
        p, a, b = names[k]
        if b <= e:
            out.append((p, a - s, b - s))
    return out
