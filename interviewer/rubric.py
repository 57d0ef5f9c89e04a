"""The rubric as data: criteria, cue items, family readings and level bars from rubrics/*.yaml."""
from __future__ import annotations

import functools
import re
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from interviewer.bank import ROOT, load_yaml
from interviewer.errors import UserError

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
    """A pitfall: its feedback (criteria.yaml) and how it is spotted (cues.yaml `pitfalls`)."""

    id: str
    title: str
    feedback: str
    criterion: str | None = None                  # the criterion a push on this pitfall informs
    patterns: list[re.Pattern] = Field(default_factory=list)
    by_family: dict[str, list[re.Pattern]] = Field(default_factory=dict)
    when: str | None = None                       # raised by this cue item ...
    unless_any: list[str] = Field(default_factory=list)   # ... unless one of these is present
    cleared_by: list[re.Pattern] = Field(default_factory=list)

    model_config = {"arbitrary_types_allowed": True}

    def patterns_for(self, family: str) -> list[re.Pattern]:
        return self.by_family.get(family, self.patterns)


class Item(BaseModel):
    """A piece of substance the grader looks for; `patterns` are compiled regexes."""

    id: str
    label: str
    missing: str = ""
    computed: bool = False
    patterns: list[re.Pattern] = Field(default_factory=list)

    model_config = {"arbitrary_types_allowed": True}


class Alternative(BaseModel):
    all: list[str] = Field(default_factory=list)
    any: list[str] = Field(default_factory=list)
    n: int = 1
    groups: list[list[str]] = Field(default_factory=list)

    def holds(self, present: set[str]) -> bool:
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

    def score(self, present: set[str]) -> int:
        for level in (3, 2, 1):
            if any(alt.holds(present) for alt in self.levels.get(level, [])):
                return level
        return 0

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
        return [re.compile(p, re.IGNORECASE) for p in patterns]
    except re.error as exc:
        raise UserError(f"{path}: {where}: bad pattern: {exc}") from None


def _pitfall(entry: dict, cues: dict, path: Path) -> Pitfall:
    pid = entry["id"]
    spec = dict(cues.get(pid, {}))
    return Pitfall(**entry, patterns=_compile_plain(pid, spec.get("patterns", []), path),
                   by_family={f: _compile_plain(f"{pid}.{f}", ps, path) for f, ps in spec.get("by_family", {}).items()},
                   when=spec.get("when"), unless_any=spec.get("unless_any", []),
                   cleared_by=_compile_plain(pid, spec.get("cleared_by", []), path))


def _compile(item_id: str, patterns: list[str], macros: dict[str, str], path: Path) -> list[re.Pattern]:
    compiled = []
    for raw in patterns:
        text = raw
        for name, value in macros.items():
            text = text.replace("{" + name + "}", value)
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
                patterns=_compile(item_id, spec.get("patterns", []), macros, qpath),
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
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        raise UserError(f"{rubric_dir}: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
    except KeyError as exc:
        raise UserError(f"{rubric_dir}: missing key {exc}") from None
    _check_references(rubric, rubric_dir)
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
                names |= {*alt.all, *alt.any, *(i for g in alt.groups for i in g)}
        unknown = sorted(n for n in names if n not in rubric.items)
        if unknown:
            raise UserError(f"{rubric_dir}: {where} names unknown cue items: {', '.join(unknown)}")
