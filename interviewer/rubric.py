"""The rubric as data: criteria, cue items, family readings and level bars from rubrics/*.yaml."""
from __future__ import annotations

import functools
import re
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from interviewer.bank import ROOT, load_yaml
from interviewer.errors import UserError
from interviewer.quickre import guarded

RUBRIC_DIR = ROOT / "rubrics"


class Criterion(BaseModel):
    id: str
    required: bool
    title: str
    summary: str
    anchors: dict[int, str]
    teach: list[str] = Field(default_factory=list)
    next_step: str


class Pitfall(BaseModel):
    """A pitfall: its feedback and caps (criteria.yaml) and how it is spotted (cues.yaml `pitfalls`)."""

    id: str
    title: str
    feedback: str
    criterion: str | None = None                  # the criterion a push on this pitfall informs
    patterns: list[re.Pattern] = Field(default_factory=list)
    by_family: dict[str, list[re.Pattern]] = Field(default_factory=dict)
    when: str | None = None                       # raised by this cue item ...
    unless_any: list[str] = Field(default_factory=list)   # ... unless one of these is present
    unless_tied: str | None = None                # ... in a turn that names this item (see interviewer.pitfalls)
    families: list[str] = Field(default_factory=list)  # raised only in these families (empty: every one)
    cleared_by: list[re.Pattern] = Field(default_factory=list)
    unless_near: list[re.Pattern] = Field(default_factory=list)  # a match with one of these in its sentence or just before it is no hit
    names: list[re.Pattern] = Field(default_factory=list)     # policy names (a list of them, no choice)
    min_names: int = 3
    menu: list[re.Pattern] = Field(default_factory=list)      # "we could X, or Y, or Z"
    deferral: list[re.Pattern] = Field(default_factory=list)  # "it depends", "configurable"
    pick_prompt: list[re.Pattern] = Field(default_factory=list)  # the interviewer's "which one?"
    caps: dict[str, int] = Field(default_factory=dict)        # criterion -> the highest score it allows
    caps_when: list[str] = Field(default_factory=list)        # ... only when found this way
    kind_caps: dict[str, dict[str, int]] = Field(default_factory=dict)  # found another way: these caps
    floors: dict[str, int] = Field(default_factory=dict)      # criterion -> the level the pitfall itself is (an anchor's)
    taints_turn: bool = False                     # substance in the same candidate turn does not count
    carried_by: list[re.Pattern] = Field(default_factory=list)  # a later answer these match rests on it too (taints it)
    led_by: dict[int, tuple[str, ...]] = Field(default_factory=dict)  # pattern id -> the words every match starts with

    model_config = {"arbitrary_types_allowed": True}

    def patterns_for(self, family: str) -> list[re.Pattern]:
        return self.by_family.get(family, self.patterns)


class LedgerSpec(BaseModel):
    """Which claims of the ledger make an item present: the candidate's own figures of these kinds,
    said as a plan (not negated, not hypothetical)."""

    kinds: list[str]
    percentiles: list[str] = Field(default_factory=list)   # only figures said at these percentiles
    not_scopes: list[str] = Field(default_factory=list)    # ... and not at these scopes
    min_kinds: int = 1                                      # figures of at least this many of the kinds


class Item(BaseModel):
    """A piece of evidence the grader looks for; `patterns` are compiled regexes, `ledger` claim kinds.

    `tier`: "substance" (a value, a stated rule) counts at any level; "name" (vocabulary: a technique
    or a metric named) counts only towards level 1 - keyword presence alone earns nothing above 1.
    A pattern written {re: ..., tier: name} in a substance item is its vocabulary ("a watchdog",
    "weighted fair share"): a match names the item without earning it.
    `negatable`: a match in a negated or hypothetical clause ("I wouldn't cap it at 64") is not
    evidence. `given_is_named`: a figure that only repeats the interviewer's numbers is a name;
    `guess_is_named`: a figure only guessed ("I'd guess something like ten GPUs") is a name that
    completes nothing."""

    id: str
    label: str
    missing: str = ""
    computed: bool = False
    tier: str = "substance"
    negatable: bool = True
    given_is_named: bool = False
    guess_is_named: bool = False
    echo_is_named: bool = False   # a figure the sentence credits to the interviewer ("the 800 ms you gave me") is a name
    not_reported: bool = False    # a figure said as what happened ("p99 TTFT went to 9 s", "was 40 minutes") is no hit
    patterns: list[re.Pattern] = Field(default_factory=list)
    name_patterns: list[re.Pattern] = Field(default_factory=list)  # vocabulary: a match is a name (level 1)
    digit_patterns: frozenset[int] = frozenset()  # ids of the patterns that can match only with a digit
    literals: dict[int, str] = Field(default_factory=dict)  # pattern id -> a substring every match holds
    number_led: frozenset[int] = frozenset()  # ids of the patterns whose every match starts at a number ("{NUM} GB ...")
    led_by: dict[int, tuple[str, ...]] = Field(default_factory=dict)  # pattern id -> the words every match starts with
    scans: dict[int, re.Pattern] = Field(default_factory=dict)  # pattern id -> the same, faster over a whole text
    ledger: LedgerSpec | None = None
    after: list[re.Pattern] = Field(default_factory=list)  # only in answers to interviewer turns matching these
    not_after: list[re.Pattern] = Field(default_factory=list)  # not when the sentence says one of these before it
    withdrawn_by: list[re.Pattern] = Field(default_factory=list)  # a later answer saying one of these takes it back

    model_config = {"arbitrary_types_allowed": True}


class Alternative(BaseModel):
    all: list[str] = Field(default_factory=list)
    any: list[str] = Field(default_factory=list)
    n: int = 1
    groups: list[list[str]] = Field(default_factory=list)
    none: list[str] = Field(default_factory=list)   # items that undo the alternative ("acked before the log")

    def items(self) -> set[str]:
        return {*self.all, *self.any, *(i for g in self.groups for i in g)}

    def holds(self, present: set[str]) -> bool:
        if any(i in present for i in self.none):
            return False
        if not all(i in present for i in self.all):
            return False
        if self.any and sum(i in present for i in self.any) < self.n:
            return False
        return all(any(i in present for i in g) for g in self.groups)

    def lacking(self, present: set[str]) -> list[str]:
        """Items that would satisfy this alternative, in order, that are not yet present."""
        out = [i for i in self.all if i not in present]
        if self.any and sum(i in present for i in self.any) < self.n:
            need = self.n - sum(i in present for i in self.any)
            out += [i for i in self.any if i not in present][:need]
        for g in self.groups:
            if not any(i in present for i in g):
                out.append(g[0])
        return out


class CriterionSpec(BaseModel):
    """How one criterion reads in one family."""

    reads_as: str = ""
    items: list[str]
    levels: dict[int, list[Alternative]]
    substance: frozenset[str] = frozenset()   # set by the loader: the items of tier "substance"

    def best(self, present: set[str], named: set[str] | frozenset = frozenset(),
             level1_only: set[str] | frozenset = frozenset()) -> tuple[int, Alternative | None]:
        """The level reached and the alternative that reached it. Above level 1 an alternative holds
        only with substance of the candidate's own present (a value or a stated rule), never on
        vocabulary alone; `named` items (figures that only repeat the interviewer's) can complete an
        alternative as context but never carry it. `level1_only` items (options of a menu left open)
        count towards level 1 alone."""
        named = set(named) - set(level1_only)
        both = present | named
        for level in (3, 2):
            for alt in self.levels.get(level, []):
                if not (alt.items() & present & self.substance) or not alt.holds(both):
                    continue
                # one named item may complete an alternative; two are a list of words, not a design
                if alt.holds(present) or any(alt.holds(present | {x}) for x in (named - present) & alt.items()):
                    return level, alt
        for alt in self.levels.get(1, []):
            if alt.holds(both | set(level1_only)):
                return 1, alt
        return 0, None

    def score(self, present: set[str], named: set[str] | frozenset = frozenset()) -> int:
        return self.best(present, named)[0]

    def lacking_for(self, level: int, present: set[str]) -> list[str]:
        """The shortest list of missing items that would reach `level`."""
        options = [alt.lacking(present) for alt in self.levels.get(level, [])]
        return min(options, key=len) if options else []


class Family(BaseModel):
    title: str
    supporting: list[str]
    criteria: dict[str, CriterionSpec]
    memory_capacity: bool = False     # capacity is a memory budget the calculator checks
    simulate_limits: bool = False     # stated scheduler limits can be run through the simulator
    topics: list[str] = Field(default_factory=list)
    # claim kinds said on the side in this family: checked and shown, but no part of the figure its capacity
    # reads as, so a wrong one does not hold that criterion down (claim_caps)
    side_kinds: list[str] = Field(default_factory=list)


class PhaseSpec(BaseModel):
    id: str
    title: str
    share: float = Field(gt=0, le=1)


class Policy(BaseModel):
    """How the built-in interviewer runs a round (rubrics/policy.yaml)."""

    phases: list[PhaseSpec]
    phase_focus: dict[str, list[str]]
    supporting_from: list[str] = Field(default_factory=list)
    level_only: dict[str, list[str]] = Field(default_factory=dict)
    acknowledge_order: list[str] = Field(default_factory=list)


class LevelBar(BaseModel):
    bar: str
    min_each_required: int = 0
    min_required_sum: int = 0
    min_scheduling: int = 0
    min_operating_model: int = 0


class ClaimCap(BaseModel):
    """A criterion held down by the claim ledger's checks: any figure of `kinds` checked wrong caps it
    at `wrong`; an impossible one, or one off by `badly_wrong_ratio` or more, at `badly_wrong`."""

    kinds: list[str]
    wrong: int = 2
    badly_wrong: int = 1
    badly_wrong_ratio: float = 20.0


class Scoring(BaseModel):
    required_weight: float
    supporting_weight: float
    pitfall_penalty: float
    max_pitfall_penalty: float


class Rubric(BaseModel):
    criteria: dict[str, Criterion]
    pitfalls: dict[str, Pitfall]
    items: dict[str, Item]
    supporting: dict[str, CriterionSpec]
    families: dict[str, Family]
    levels: dict[str, LevelBar]
    down_level_risk: str
    scoring: Scoring
    policy: Policy
    claim_caps: dict[str, ClaimCap] = Field(default_factory=dict)

    model_config = {"arbitrary_types_allowed": True}

    def __hash__(self) -> int:  # by identity: a loaded rubric is immutable, and caches key on it
        return id(self)

    def spec(self, family: str, criterion_id: str) -> CriterionSpec:
        fam = self.families[family]
        return fam.criteria.get(criterion_id) or self.supporting[criterion_id]

    @property
    def required(self) -> tuple[str, ...]:
        """The required criteria, in the order criteria.yaml lists them."""
        return tuple(cid for cid, c in self.criteria.items() if c.required)

    def criteria_for(self, family: str) -> list[str]:
        return [*self.required, *self.families[family].supporting]


NUMBER_LED = "~?\\d[\\d,]*"  # how the {NUM} macro begins once expanded


@functools.lru_cache(maxsize=None)
def _parse(pattern: str, flags: int):
    """A regex's parse tree (None where it cannot be read), parsed once however many questions the
    loader asks of it: which literal it needs, what it starts with, whether it needs a digit."""
    try:
        from re import _parser

        return _parser.parse(pattern, flags)
    except Exception:  # pragma: no cover - a private module; no shortcut without it
        return None


def number_led(pattern: re.Pattern) -> bool:
    """Can every match of `pattern` only start where a number starts ("{NUM} GB per token", or
    "(?:{NUM} tokens|{NUM} sequences)")? Then a scan may try it at the numbers of a text instead of
    at every character. Read from the parse tree: the pattern, or each branch of its opening
    alternation, begins with the {NUM} macro."""
    from re import _parser

    def plain(x):  # parse-tree nodes as comparable values
        if isinstance(x, _parser.SubPattern):
            return [plain(y) for y in x.data]
        if isinstance(x, (list, tuple)):
            return [plain(y) for y in x]
        return x

    tree, lead = _parse(pattern.pattern, pattern.flags), _parse(NUMBER_LED, pattern.flags)
    if tree is None or lead is None:
        return False
    lead = plain(lead)
    if tree.data and tree.data[0][0] is _parser.BRANCH:
        return all(plain(b.data[:len(lead)]) == lead for b in tree.data[0][1][1])
    return plain(tree.data[:len(lead)]) == lead


def number_follow(pattern: re.Pattern) -> re.Pattern | None:
    """For a number-led pattern: a one-character class that the character right after the number's
    digits (the end of "~?\\d[\\d,]*", taken greedily) must match, or None. What follows the digits
    in the pattern cannot start with a digit or a comma, so it starts exactly there: a number
    followed by anything else is not tried."""
    from re import _parser

    from interviewer.quickre import first_class

    tree, lead = _parse(pattern.pattern, pattern.flags), _parse(NUMBER_LED, pattern.flags)
    if tree is None or lead is None or pattern.flags & re.IGNORECASE or not number_led(pattern):
        return None
    n = len(lead.data)
    if tree.data and tree.data[0][0] is _parser.BRANCH:
        rests = [[*b.data[n:], *tree.data[1:]] for b in tree.data[0][1][1]]
    else:
        rests = [tree.data[n:]]
    classes = [first_class(rest) for rest in rests]
    if not all(classes):
        return None
    body = "".join(c.pattern[1:-1] for c in classes)
    if r"\d" in body or re.search(r"-[^\x00-\x7f]|[^\x00-\x7f]-", body) \
            or any(ord(ch) > 127 and not ch.isalpha() and ch != "·" for ch in body):
        return None  # a Unicode digit may hide in it
    follow = re.compile(f"[{body}]")
    if any(follow.match(ch) for ch in "0123456789,") or any(ch.isdecimal() for ch in body if ord(ch) > 127):
        return None
    return follow


def requires_digit(pattern: re.Pattern) -> bool:
    """Can `pattern` match only text that holds a digit? (Read from the regex's parse tree: a digit
    in every branch, outside anything optional.) The cue scan runs such patterns over the sentences
    that have digits alone."""
    from re import _constants as C

    tree = _parse(pattern.pattern, pattern.flags)
    if tree is None:
        return False

    def seq(items) -> bool:
        return any(one(op, av) for op, av in items)

    def one(op, av) -> bool:
        if op is C.LITERAL:
            return chr(av).isdigit()
        if op is C.IN:
            return all((o is C.CATEGORY and a is C.CATEGORY_DIGIT) or (o is C.LITERAL and chr(a).isdigit())
                       or (o is C.RANGE and chr(a[0]).isdigit() and chr(a[1]).isdigit()) for o, a in av)
        if op is C.SUBPATTERN:
            return seq(av[-1])
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            return av[0] > 0 and seq(av[2])
        if op is C.BRANCH:
            return all(seq(b) for b in av[1])
        if op is getattr(C, "ATOMIC_GROUP", None):
            return seq(av)
        return False

    return seq(tree)


def required_literal(pattern: re.Pattern) -> str | None:
    """The longest run of literal characters every match of `pattern` contains ("fsync" in
    'fsync\\w*[^.\\n]{0,60}?(?:every|each)'), or None: a text without it cannot match, so the scan skips
    the pattern with a substring test."""
    from re import _constants as C

    tree = _parse(pattern.pattern, pattern.flags)
    if tree is None:
        return None
    runs: list[str] = []

    def walk(items) -> None:
        cur: list[str] = []
        for op, av in items:
            if op is C.LITERAL:
                cur.append(chr(av))
                continue
            if cur:
                runs.append("".join(cur))
                cur = []
            if op is C.SUBPATTERN:
                walk(av[-1])
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[0] > 0:
                walk(av[2])
        if cur:
            runs.append("".join(cur))

    walk(tree)
    best = max(runs, key=len, default="")
    return best if len(best) >= 3 else None


def leading_literals(pattern: re.Pattern) -> tuple[str, ...] | None:
    """The words one of which every match of `pattern` starts with, lower-cased (("gpu", "hbm",
    "card") for '(?:gpu|hbm|card)\\s+memory'), or None. A scan then tries the pattern only where one
    of them occurs in the text instead of at every character; each must be two characters or more,
    or the places to try would be most of the text."""
    from re import _constants as C

    tree = _parse(pattern.pattern, pattern.flags)
    if tree is None:
        return None

    def first(items: list) -> set[str] | None:
        i = 0
        while i < len(items) and items[i][0] in (C.AT, C.ASSERT, C.ASSERT_NOT):
            if items[i][0] is C.AT and items[i][1] not in (C.AT_BOUNDARY, C.AT_NON_BOUNDARY):
                return None  # "^" or "$": a place, not a word
            i += 1  # zero-width: \b and lookarounds are checked by the match itself
        if i == len(items):
            return None
        op, av = items[i]
        if op is C.LITERAL:
            run = []
            while i < len(items) and items[i][0] is C.LITERAL:
                run.append(chr(items[i][1]))
                i += 1
            return {"".join(run)}
        if op is C.BRANCH:
            out: set[str] = set()
            for branch in av[1]:
                got = first([*branch, *items[i + 1:]])
                if got is None:
                    return None
                out |= got
            return out
        if op is C.SUBPATTERN:
            return first([*av[-1], *items[i + 1:]])
        if op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[0] >= 1:
            return first(list(av[2]))
        return None

    words = first(list(tree))
    if not words or min(len(w) for w in words) < 2:
        return None
    return tuple(sorted({w.lower() for w in words}))


def lower_pattern(pattern: str) -> str:
    """Lower-case a regex's literals, leaving escapes (\\D, \\S, \\W, \\B) alone.

    Cues are matched against lower-cased text (see evidence.lowered): two and a half times faster
    than re.IGNORECASE on long transcripts, which keeps a 40-turn round well under 200 ms.
    """
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(pattern[i:i + 2])
            i += 2
        else:
            out.append(pattern[i].lower())
            i += 1
    return "".join(out)


def _compile_plain(where: str, patterns: list[str], path: Path) -> list[re.Pattern]:
    """Patterns matched case-insensitively in the text as written (pitfalls)."""
    try:
        return [guarded(re.compile(p, re.IGNORECASE)) for p in patterns]
    except re.error as exc:
        raise UserError(f"{path}: {where}: bad pattern: {exc}") from None


def _pitfall(entry: dict, cues: dict, path: Path) -> Pitfall:
    pid = entry["id"]
    spec = dict(cues.get(pid, {}))
    return Pitfall(**entry, patterns=_compile_plain(pid, spec.get("patterns", []), path),
                   by_family={f: _compile_plain(f"{pid}.{f}", ps, path) for f, ps in spec.get("by_family", {}).items()},
                   when=spec.get("when"), unless_any=spec.get("unless_any", []),
                   unless_tied=spec.get("unless_tied"), families=list(spec.get("families", [])),
                   cleared_by=_compile_plain(pid, spec.get("cleared_by", []), path),
                   carried_by=_compile_plain(f"{pid}.carried_by", spec.get("carried_by", []), path),
                   unless_near=_compile_plain(f"{pid}.unless_near", spec.get("unless_near", []), path),
                   names=_compile_plain(f"{pid}.names", spec.get("names", []), path),
                   min_names=int(spec.get("min_names", 3)),
                   menu=_compile_plain(f"{pid}.menu", spec.get("menu", []), path),
                   deferral=_compile_plain(f"{pid}.deferral", spec.get("deferral", []), path),
                   pick_prompt=_compile_plain(f"{pid}.pick_prompt", spec.get("pick_prompt", []), path))


def _compile(item_id: str, patterns: list, macros: dict[str, str], path: Path, tier: str | None = None) -> list[re.Pattern]:
    """The item's patterns; with `tier`, only the entries written as {re: ..., tier: TIER}, else only
    the plain ones (and those of the item's own tier)."""
    compiled = []
    for entry in patterns:
        entry_tier = entry.get("tier") if isinstance(entry, dict) else None
        if (tier is None) != (entry_tier is None) and not (tier is not None and entry_tier == tier):
            continue
        if tier is not None and entry_tier != tier:
            continue
        raw = entry["re"] if isinstance(entry, dict) else entry
        text = raw
        for name, value in macros.items():
            text = text.replace("{" + name + "}", value)
        # the cues read a text whose decimal points are "·" (evidence.digitized), so "[^.\n]" (within a
        # sentence) runs past "1.5 s"; a literal "\." in a cue is a decimal point
        text = text.replace(r"\.", "[.·]")
        try:
            compiled.append(re.compile(lower_pattern(text)))
        except re.error as exc:
            raise UserError(f"{path}: item {item_id}: bad pattern {raw!r}: {exc}") from None
    return compiled


def load_rubric(rubric_dir: Path | None = None) -> Rubric:
    """The rubric in `rubric_dir` (default: the configured one, rubrics/), loaded once per folder."""
    if rubric_dir is None:
        from interviewer import config

        rubric_dir = config.current().rubric_dir or RUBRIC_DIR
    return _load_rubric(Path(rubric_dir))


@functools.cache
def _load_rubric(rubric_dir: Path) -> Rubric:
    """Load and cross-check the rubric files."""
    cpath, qpath, fpath, ppath = (rubric_dir / n for n in ("criteria.yaml", "cues.yaml", "families.yaml",
                                                           "policy.yaml"))
    cdata, qdata, fdata, pdata = load_yaml(cpath), load_yaml(qpath), load_yaml(fpath), load_yaml(ppath)
    macros = qdata.get("macros", {})
    try:
        items = {
            item_id: Item(
                id=item_id,
                label=spec["label"],
                missing=spec.get("missing", ""),
                computed=spec.get("computed", False),
                tier=spec.get("tier", "substance"),
                negatable=spec.get("negatable", True),
                given_is_named=spec.get("given_is_named", False),
                guess_is_named=spec.get("guess_is_named", False),
                echo_is_named=spec.get("echo_is_named", False), not_reported=spec.get("not_reported", False),
                patterns=_compile(item_id, spec.get("patterns", []), macros, qpath),
                name_patterns=_compile(item_id, spec.get("patterns", []), macros, qpath, tier="name"),
                ledger=LedgerSpec(**spec["ledger"]) if spec.get("ledger") else None,
                after=_compile_plain(f"{item_id}.after", spec.get("after", []), qpath),
                not_after=_compile_plain(f"{item_id}.not_after", spec.get("not_after", []), qpath),
                withdrawn_by=_compile_plain(f"{item_id}.withdrawn_by", spec.get("withdrawn_by", []), qpath),
            )
            for item_id, spec in qdata["items"].items()
        }
        rubric = Rubric(
            criteria={c["id"]: Criterion(**c) for c in cdata["criteria"]},
            pitfalls={p["id"]: _pitfall(p, qdata.get("pitfalls", {}), qpath) for p in cdata["pitfalls"]},
            items=items,
            supporting={k: CriterionSpec(**v) for k, v in fdata["supporting"].items()},
            families={k: Family(**v) for k, v in fdata["families"].items()},
            levels={k: LevelBar(**v) for k, v in cdata["levels"].items()},
            down_level_risk=cdata["down_level_risk"],
            scoring=Scoring(**cdata["scoring"]),
            policy=Policy(**pdata),
            claim_caps={k: ClaimCap(**v) for k, v in (fdata.get("claim_caps") or {}).items()},
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        raise UserError(f"{rubric_dir}: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
    except KeyError as exc:
        raise UserError(f"{rubric_dir}: missing key {exc}") from None
    _check_references(rubric, rubric_dir)
    for item in rubric.items.values():
        item.digit_patterns = frozenset(id(p) for p in [*item.patterns, *item.name_patterns] if requires_digit(p))
        item.literals = {id(p): lit for p in [*item.patterns, *item.name_patterns] if (lit := required_literal(p))}
        item.number_led = frozenset(id(p) for p in [*item.patterns, *item.name_patterns] if number_led(p))
        item.led_by = {id(p): lead for p in [*item.patterns, *item.name_patterns] if (lead := leading_literals(p))}
        item.scans = {id(p): guarded(p) for p in [*item.patterns, *item.name_patterns]}
    for pitfall in rubric.pitfalls.values():
        every = [*pitfall.patterns, *(p for ps in pitfall.by_family.values() for p in ps)]
        pitfall.led_by = {id(p): lead for p in every if (lead := leading_literals(p))}
    substance = frozenset(i for i, item in rubric.items.items() if item.tier == "substance")
    for spec in [*rubric.supporting.values(), *(s for f in rubric.families.values() for s in f.criteria.values())]:
        spec.substance = substance
    return rubric


def _check_references(rubric: Rubric, rubric_dir: Path) -> None:
    """Every item a family names must exist; a typo would silently never score."""
    specs = list(rubric.supporting.items())
    for fam_id, fam in rubric.families.items():
        specs += [(f"{fam_id}.{cid}", s) for cid, s in fam.criteria.items()]
        for cid in [*rubric.required, *fam.supporting, *fam.topics]:
            if cid not in rubric.criteria:
                raise UserError(f"{rubric_dir}: family {fam_id} names unknown criterion {cid}")
    for where, spec in specs:
        names = set(spec.items)
        for alts in spec.levels.values():
            for alt in alts:
                names |= {*alt.all, *alt.any, *alt.none, *(i for g in alt.groups for i in g)}
        unknown = sorted(n for n in names if n not in rubric.items)
        if unknown:
            raise UserError(f"{rubric_dir}: {where} names unknown cue items: {', '.join(unknown)}")
        for level, alts in spec.levels.items():
            for alt in alts:
                if level >= 2 and not any(rubric.items[i].tier == "substance" for i in alt.items()):
                    raise UserError(f"{rubric_dir}: {where} level {level} can be reached on names alone; "
                                    "every alternative above 1 needs a substance item")
