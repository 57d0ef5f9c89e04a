"""The rubric as data: criteria, cue items, family readings and level bars from rubrics/*.yaml."""
from __future__ import annotations

import functools
import re
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from interviewer.bank import ROOT, load_yaml
from interviewer.errors import UserError

RUBRIC_DIR = ROOT / "rubrics"
REQUIRED = ("capacity_number", "scheduling_policy", "tail_latency_tradeoff")


class Criterion(BaseModel):
    id: str
    required: bool
    title: str
    summary: str
    anchors: dict[int, str]
    teach: list[str] = Field(default_factory=list)
    next_step: str


class Pitfall(BaseModel):
    id: str
    title: str
    feedback: str


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

    model_config = {"arbitrary_types_allowed": True}

    def __hash__(self) -> int:  # by identity: a loaded rubric is immutable, and caches key on it
        return id(self)

    def spec(self, family: str, criterion_id: str) -> CriterionSpec:
        fam = self.families[family]
        return fam.criteria.get(criterion_id) or self.supporting[criterion_id]

    def criteria_for(self, family: str) -> list[str]:
        return [*REQUIRED, *self.families[family].supporting]


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


@functools.cache
def load_rubric(rubric_dir: Path = RUBRIC_DIR) -> Rubric:
    """Load and cross-check the rubric files (cached per process)."""
    cpath, qpath, fpath = (rubric_dir / n for n in ("criteria.yaml", "cues.yaml", "families.yaml"))
    cdata, qdata, fdata = load_yaml(cpath), load_yaml(qpath), load_yaml(fpath)
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
            pitfalls={p["id"]: Pitfall(**p) for p in cdata["pitfalls"]},
            items=items,
            supporting={k: CriterionSpec(**v) for k, v in fdata["supporting"].items()},
            families={k: Family(**v) for k, v in fdata["families"].items()},
            levels={k: LevelBar(**v) for k, v in cdata["levels"].items()},
            down_level_risk=cdata["down_level_risk"],
            scoring=Scoring(**cdata["scoring"]),
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
        for cid in [*REQUIRED, *fam.supporting]:
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
