"""The claim ledger's vocabulary, read once from ``units.yaml`` and ``kinds.yaml`` and compiled.

Everything the ledger knows about words (units, nouns, cue phrases, percentiles, negation,
hypotheticals, scopes, dtypes) is data in those two files; this module only compiles it.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from interviewer.quickre import Literals, guarded, needed_literals

HERE = Path(__file__).resolve().parent
UNITS_FILE = HERE / "units.yaml"
KINDS_FILE = HERE / "kinds.yaml"
FLAGS = re.IGNORECASE


@dataclass(frozen=True)
class Cue:
    pattern: re.Pattern
    cross: bool = False  # may reach past the previous number of the same dimension
    bonus: float = 0.0   # counts as this many characters nearer (on top of the rule's bonus)
    anchored: bool = False  # ends with "$": the cue must end where the number starts


@dataclass
class Rule:
    """One way of deciding a number's kind (see the header of kinds.yaml)."""

    index: int
    dims: frozenset[str]
    kind: str | None = None
    by_percentile: dict[str, str] | None = None
    family: str | None = None
    left: list[Cue] = field(default_factory=list)
    right: list[Cue] = field(default_factory=list)
    near: list[Cue] = field(default_factory=list)
    not_left: list[re.Pattern] = field(default_factory=list)
    not_right: list[re.Pattern] = field(default_factory=list)
    near_requires: re.Pattern | None = None
    qualifiers: frozenset[str] = frozenset()
    default: bool = False
    percentile_default: bool = False
    left_gap: int = 40
    right_gap: int = 3
    bonus: float = 0.0
    min_value: float | None = None
    max_value: float | None = None

    @functools.cached_property
    def left_any(self) -> re.Pattern | None:
        """Any of the left cues: where none occurs before a number, none can score it, and the scan
        skips them one by one."""
        return any_of([c.pattern for c in self.left])

    @functools.cached_property
    def near_any(self) -> re.Pattern | None:
        """Any of the near cues, as left_any is for the left ones."""
        return any_of([c.pattern for c in self.near])

    @functools.cached_property
    def left_needs(self) -> tuple[str, ...] | None:
        """The literals one of which any left cue's match holds (None: not known), as `Possible` reads them."""
        return needed_literals(self.left_any) if self.left_any is not None else None

    @functools.cached_property
    def near_needs(self) -> tuple[str, ...] | None:
        return needed_literals(self.near_any) if self.near_any is not None else None

    @functools.cached_property
    def right_needs(self) -> tuple[str, ...] | None:
        needs = [needed_literals(c.pattern) for c in self.right]
        return tuple(sorted({w for n in needs for w in n})) if needs and all(needs) else None

    @functools.cached_property
    def not_left_needs(self) -> tuple[tuple[str, ...] | None, ...]:
        return tuple(needed_literals(p) for p in self.not_left)

    @functools.cached_property
    def near_requires_needs(self) -> tuple[str, ...] | None:
        return needed_literals(self.near_requires) if self.near_requires is not None else None

    @functools.cached_property
    def unconstrained(self) -> bool:
        """No value range, required word or veto: every number of the rule's dimensions is allowed."""
        return (self.min_value is None and self.max_value is None and self.near_requires is None
                and not self.not_left and not self.not_right)

    @functools.cached_property
    def best_left(self) -> float:
        """The best (lowest) score a left or near cue of this rule could reach."""
        bonus = max([c.bonus for c in self.left] + [0.0])
        return (10.0 if self.left else 30.0) - self.bonus - bonus - 0.01


@dataclass
class Unit:
    alias: str
    dim: str
    factor: float
    pint: str


@dataclass
class Vocab:
    units: list[Unit]
    unit_by_alias: dict[str, Unit]
    unit_re: re.Pattern
    noun_dim: dict[str, str]
    noun_re: re.Pattern
    per_second_re: re.Pattern
    rate_suffix: dict[str, str]
    rate_suffix_re: re.Pattern
    suffixes: dict[str, float]
    binary_k: frozenset[float]
    number_word_re: re.Pattern
    fractions: dict[str, float]
    fraction_re: re.Pattern
    qualifier_re: re.Pattern
    kinds: dict[str, dict]
    rules: list[Rule]
    rules_by_dim: dict[str, list[Rule]]
    percentiles: dict[str, list[re.Pattern]]
    percentile_any: re.Pattern
    bounds: dict[str, re.Pattern]  # each list of kinds.yaml's bounds as one pattern: any of them
    negation: re.Pattern
    negation_exempt: re.Pattern
    negation_breaks: re.Pattern
    settings: dict[str, re.Pattern]
    setting_verbs: re.Pattern
    hypothetical: re.Pattern
    back_to_plan: re.Pattern
    comparison: re.Pattern
    scopes: dict[str, re.Pattern]
    scoped_kinds: frozenset[str]
    dtype_names: dict[str, str]
    dtype_re: re.Pattern
    kv_dtype_res: list[re.Pattern]
    weights_dtype_res: list[re.Pattern]
    model_size_re: re.Pattern
    gpu_by_memory_re: re.Pattern
    physics: dict
    macros: dict[str, str]

    @functools.cached_property
    def settings_needs(self) -> dict[str, tuple[str, ...] | None]:
        """Each setting pattern's needed literals (quickre.needed_literals)."""
        return {kind: needed_literals(pat) for kind, pat in self.settings.items()}

    @functools.cached_property
    def literals_needed(self) -> dict[str, tuple[str, ...] | None]:
        """The needed literals (quickre.needed_literals) of the patterns tried on every segment that a
        literal test can rule out: a weights dtype, a card by its memory, a fraction in words."""
        return {"dtype": needed_literals(self.dtype_re), "gpu_by_memory": needed_literals(self.gpu_by_memory_re),
                "fraction": needed_literals(self.fraction_re)}

    @functools.cached_property
    def cue_literals(self) -> Literals:
        """Every literal the rules' cues and vetoes need (Rule.left_needs, near_needs, right_needs,
        near_requires_needs, not_left_needs), found in a segment in one pass (kinds.Possible)."""
        return Literals(w for r in self.rules
                        for needs in (r.left_needs, r.near_needs, r.right_needs, r.near_requires_needs, *r.not_left_needs)
                        for w in needs or ())

    def unit_of(self, kind: str) -> str:
        return self.kinds.get(kind, {}).get("unit", "")

    def label_of(self, kind: str) -> str:
        return self.kinds.get(kind, {}).get("label", kind.replace("_", " "))


def _expand(pattern: str, macros: dict[str, str]) -> str:
    for name, body in macros.items():
        pattern = pattern.replace("{" + name + "}", body)
    return pattern


def _alternation(words) -> str:
    """A regex alternation of phrases, longest first, spaces flexible."""
    out = []
    for w in sorted(set(words), key=lambda s: (-len(s), s)):
        out.append(r"\s+".join(re.escape(p) for p in w.split()))
    return "|".join(out)


def _by_first_letter(words: list[str]) -> str:
    """The alternation of plain `words` in this order, grouped by first letter ("t(?:hirteen|wenty|en)"):
    the same match, since at any place only the words that start with its letter can match, tried in
    the same order - but the regex engine, which does not skip a case-insensitive branch on its
    first letter, tries a handful of words at each word's start instead of all of them."""
    groups: dict[str, list[str]] = {}
    for w in words:
        groups.setdefault(w[0], []).append(w[1:])
    return "|".join(f"{re.escape(c)}(?:{'|'.join(map(re.escape, rest))})" for c, rest in groups.items())


def _cues(raw, macros) -> list[Cue]:
    out = []
    for item in raw or []:
        text = _expand(item["re"] if isinstance(item, dict) else item, macros)
        extra = (bool(item.get("cross")), float(item.get("bonus", 0))) if isinstance(item, dict) else ()
        out.append(Cue(guarded(re.compile(text, FLAGS)), *extra, anchored=text.endswith("$")))
    return out


def _pats(raw, macros) -> list[re.Pattern]:
    return [guarded(re.compile(_expand(p, macros), FLAGS)) for p in raw or []]


def any_of(patterns, flags: int = FLAGS) -> re.Pattern | None:
    """One pattern that matches wherever any of the compiled `patterns` does, or None (no patterns,
    or a union that does not compile: then there is no shortcut)."""
    if not patterns:
        return None
    try:
        return guarded(re.compile("|".join(f"(?:{p.pattern})" for p in patterns), flags))
    except re.error:
        return None


def _any(raw, macros) -> re.Pattern:
    return guarded(re.compile("|".join(f"(?:{_expand(p, macros)})" for p in raw), FLAGS))


@lru_cache(maxsize=1)
def load() -> Vocab:
    """Read and compile both vocabulary files once (cached for the process)."""
    u = yaml.safe_load(UNITS_FILE.read_text(encoding="utf-8"))
    k = yaml.safe_load(KINDS_FILE.read_text(encoding="utf-8"))
    macros = {name: str(body) for name, body in (k.get("macros") or {}).items()}

    units: list[Unit] = []
    for entry in u["units"]:
        for alias in entry["aliases"]:
            units.append(Unit(alias=alias.lower(), dim=entry["dim"], factor=float(entry["factor"]), pint=entry["pint"]))
    unit_by_alias = {x.alias: x for x in units}
    # a unit ends at a non-letter (so "s" in "sequences" is not seconds; "%" needs no boundary)
    unit_re = re.compile(rf"(?:{_alternation(unit_by_alias)})(?![a-z0-9])", FLAGS)

    noun_dim: dict[str, str] = {}
    for dim, words in u["nouns"].items():
        for w in words:
            noun_dim[w.lower()] = dim
    noun_re = re.compile(rf"(?:{_alternation(noun_dim)})(?![a-z])", FLAGS)
    per_second_re = re.compile(rf"\s*(?:{_alternation(u['per_second'])})(?![a-z])", FLAGS)
    rate_suffix = {key.lower(): v for key, v in u["rate_suffixes"].items()}
    rate_suffix_re = re.compile(rf"\s*(?:{_alternation(rate_suffix)})(?![a-z])", FLAGS)
    words = u["number_words"]
    w_alt = _by_first_letter(sorted(words, key=len, reverse=True))
    number_word_re = guarded(re.compile(
        # "four-way tensor parallel", "TP-four", "a two-GPU replica", "a three-second deadline", "a
        # ten-minute window": joined by a hyphen, still a number
        # ... "a hundred-and-twenty", and said loosely: "fifty-odd", "fiftyish" (numbers.py reads the suffix)
        rf"(?:(?<![\w-])|(?<=tp-))(?:a\s+)?(?:{w_alt})(?:(?:[\s-]+|\s+and\s+|-and-)(?:{w_alt}))*"
        # ... "an eighty-gig card", "a forty-layer model"
        rf"(?:(?![\w-])|(?=-(?:way|gpus?|seconds?|minutes?|hours?|days?|milliseconds?|tokens?|odd|ish|gigs?|gb|megs?|mb|"
        rf"bytes?|layers?|heads?|bits?|x)\b)|(?=ish\b))", FLAGS))
    fractions = {key.lower(): float(v) for key, v in u["fractions"].items()}
    fraction_re = guarded(re.compile(rf"(?<![\w-])(?:{_alternation(fractions)})(?![\w-])", FLAGS))

    rules: list[Rule] = []
    for i, raw in enumerate(k["rules"]):
        rules.append(Rule(
            index=i,
            dims=frozenset(raw["dims"]),
            kind=raw.get("kind"),
            by_percentile=raw.get("by_percentile"),
            family=raw.get("family"),
            left=_cues(raw.get("left"), macros),
            right=_cues(raw.get("right"), macros),
            near=_cues(raw.get("near"), macros),
            not_left=_pats(raw.get("not_left"), macros),
            not_right=_pats(raw.get("not_right"), macros),
            near_requires=guarded(re.compile(_expand(raw["near_requires"], macros), FLAGS)) if raw.get("near_requires") else None,
            qualifiers=frozenset(q.lower() for q in raw.get("qualifiers") or ()),
            default=bool(raw.get("default")),
            percentile_default=bool(raw.get("percentile_default")),
            left_gap=int(raw.get("left_gap", 40)),
            right_gap=int(raw.get("right_gap", 3)),
            bonus=float(raw.get("bonus", 0)),
            min_value=raw.get("min_value"),
            max_value=raw.get("max_value"),
        ))

    neg = k["negation"]
    dt = k["dtypes"]
    dtype_names = {key.lower(): v for key, v in dt["names"].items()}
    return Vocab(
        units=units, unit_by_alias=unit_by_alias, unit_re=unit_re, noun_dim=noun_dim, noun_re=noun_re,
        per_second_re=per_second_re, rate_suffix=rate_suffix, rate_suffix_re=rate_suffix_re,
        suffixes={str(key): float(v) for key, v in u["suffixes"].items()},
        binary_k=frozenset(float(x) for x in u["binary_k_mantissas"]),
        number_word_re=number_word_re, fractions=fractions, fraction_re=fraction_re,
        qualifier_re=re.compile(rf"(?:{_alternation(u['qualifiers'])})(?![a-z])", FLAGS),
        kinds=k["kinds"], rules=rules,
        rules_by_dim={d: sorted((r for r in rules if d in r.dims), key=lambda r: (r.best_left, r.index))
                      for d in {d for r in rules for d in r.dims}},
        percentiles={p: _pats(v, macros) for p, v in k["percentiles"].items()},
        percentile_any=_any([x for v in k["percentiles"].values() for x in v], macros),
        bounds={b: _any(v, macros) for b, v in k["bounds"].items()},
        negation=_any(neg["cues"], macros), negation_exempt=_any(neg["exempt"], macros),
        negation_breaks=_any(neg["breaks"], macros),
        settings={kind: _any(v, macros) for kind, v in neg["settings"].items()},
        setting_verbs=_any(neg["setting_verbs"], macros),
        hypothetical=_any(k["hypothetical"]["cues"], macros),
        back_to_plan=_any(k["hypothetical"]["back_to_plan"], macros),
        comparison=_any(k["comparison"]["cues"], macros),
        scopes={s: _any(v, macros) for s, v in k["scopes"].items()},
        scoped_kinds=frozenset(k["scoped_kinds"]),
        dtype_names=dtype_names,
        dtype_re=guarded(re.compile(_expand("{DT}", macros), FLAGS)),
        kv_dtype_res=_pats(dt["kv"], macros), weights_dtype_res=_pats(dt["weights"], macros),
        model_size_re=guarded(re.compile(k["model_size"])),
        gpu_by_memory_re=guarded(re.compile(k["gpu_by_memory"], FLAGS)),
        physics=k["physics"], macros=macros,
    )
