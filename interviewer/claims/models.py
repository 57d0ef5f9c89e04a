"""The ledger's types: a Subject (what a figure is about), a Check, a Claim and the Ledger."""
from __future__ import annotations

import functools
from typing import Any, Literal, Optional, TypeVar

from pydantic import BaseModel, Field

M = TypeVar("M", bound=BaseModel)
_IMMUTABLE = (type(None), bool, int, float, str)


@functools.lru_cache(maxsize=None)
def _fields(cls: type[BaseModel]) -> tuple | None:
    """(name, required, default, factory) for each of a model's fields, or None when its
    model_construct does more than fill them in (aliases, extras, private attributes, a post-init,
    a default that model_construct would copy or a factory that reads the other fields)."""
    if (cls.model_config.get("extra") == "allow" or cls.__pydantic_post_init__ or cls.__pydantic_root_model__
            or cls.__private_attributes__):
        return None
    out = []
    for name, f in cls.__pydantic_fields__.items():
        if f.alias is not None or f.validation_alias is not None or f.default_factory_takes_validated_data \
                or (not f.is_required() and f.default_factory is None and not isinstance(f.default, _IMMUTABLE)):
            return None
        out.append((name, f.is_required(), f.default, f.default_factory))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _template(cls: type[BaseModel]) -> tuple[dict, frozenset, frozenset, tuple]:
    """For construct: each field in declaration order with its default (None for a required one or one
    with a factory, overwritten before use), the field names, the required ones, and (name, factory)."""
    fields = _fields(cls) or ()
    template = {name: (None if required or factory is not None else default) for name, required, default, factory in fields}
    return (template, frozenset(template), frozenset(name for name, required, _d, _f in fields if required),
            tuple((name, factory) for name, _r, _d, factory in fields if factory is not None))


def construct(cls: type[M], **values: Any) -> M:
    """`cls.model_construct(**values)`, built directly: the same instance (fields in declaration
    order, defaults filled in, the fields set recorded) in a fraction of the time, for the ledger's
    thousands of claims."""
    fields = _fields(cls)
    if fields is None:
        return cls.model_construct(**values)
    template, names, required, factories = _template(cls)
    if required <= values.keys() <= names:
        # every required field given and nothing else (the usual call): the defaults in declaration
        # order, overwritten in place by the values given, then a fresh default from each factory not given
        data = template.copy()
        data.update(values)
        for name, factory in factories:
            if name not in values:
                data[name] = factory()
    else:
        data = {}
        for name, req, default, factory in fields:
            if name in values:
                data[name] = values[name]
            elif not req:
                data[name] = factory() if factory is not None else default
    m = cls.__new__(cls)
    object.__setattr__(m, "__dict__", data)
    object.__setattr__(m, "__pydantic_fields_set__", values.keys() & data.keys())
    object.__setattr__(m, "__pydantic_extra__", None)
    object.__setattr__(m, "__pydantic_private__", None)
    return m


def copied(m: M) -> M:
    """`m.model_copy()` (shallow), built directly for a model `construct` can build: the same copy
    (fields, extras and the fields set copied) without the generic copy machinery, for the subject
    copied for each of the ledger's figures."""
    cls = type(m)
    if _fields(cls) is None:
        return m.model_copy()
    new = cls.__new__(cls)
    object.__setattr__(new, "__dict__", m.__dict__.copy())
    extra = m.__pydantic_extra__
    object.__setattr__(new, "__pydantic_extra__", None if extra is None else extra.copy())
    object.__setattr__(new, "__pydantic_fields_set__", m.__pydantic_fields_set__.copy())
    object.__setattr__(new, "__pydantic_private__", None)
    return new


Status = Literal["ok", "wrong", "impossible", "unchecked"]
Speaker = Literal["interviewer", "candidate"]
Scope = Literal["per_gpu", "per_replica", "per_host", "fleet"]


class Subject(BaseModel):
    """The model, GPU and dtypes a figure is about, carried over from earlier turns of either speaker.

    ``model`` and ``gpu`` are preset ids from interviewer/hardware.yaml when one is named (or
    implied: "the 70B" after "Llama-3-70B"); a model named only by size keeps ``params_b`` with
    ``model`` None, and a GPU named only by memory ("an 80 gig card") keeps ``gpu_memory_gib``.
    ``tp`` is the tensor-parallel degree (GPUs per replica) when one was said.
    """

    model: Optional[str] = None
    model_inferred: bool = Field(default=False, description="model named by size only; a preset of that size and shape stands in")
    params_b: Optional[float] = None
    gpu: Optional[str] = None
    gpu_memory_gib: Optional[float] = None
    weights_dtype: Optional[str] = None
    kv_dtype: Optional[str] = None
    tp: Optional[int] = None
    gpus_in_sentence: Optional[int] = None  # a GPU count said beside the figure ("on four H100s")

    def label(self) -> str:
        parts = []
        if self.model or self.params_b:
            parts.append(self.model or f"{self.params_b:g}B model")
        if self.gpu or self.gpu_memory_gib:
            g = self.gpu or f"{self.gpu_memory_gib:g} GB GPU"
            parts.append(f"on {self.tp} x {g}" if (self.tp or 1) > 1 else f"on {g}")
        if self.weights_dtype:
            parts.append(f"{self.weights_dtype} weights")
        if self.kv_dtype and self.kv_dtype != self.weights_dtype:
            parts.append(f"{self.kv_dtype} KV")
        return ", ".join(parts)


class Check(BaseModel):
    """The outcome of checking one claim against physics (or against the speaker's own figures)."""

    status: Status
    rule: str = Field(description="which check ran: weights, kv_per_token, fit, sequences, ...")
    expected: Optional[float] = None
    expected_low: Optional[float] = None
    expected_high: Optional[float] = None
    unit: str = ""
    ratio: Optional[float] = Field(default=None, description="claimed value / expected value")
    explanation: str = Field(default="", description="one or two spoken sentences with the key figure")
    trace: list[str] = Field(default_factory=list, description="the arithmetic, one step a line")
    assumptions: list[str] = Field(default_factory=list)


class Claim(BaseModel):
    """One figure said in the round, typed and normalised."""

    kind: str
    value: Optional[float] = Field(description="normalised to `unit`; None: a setting named with no value")
    unit: str
    low: Optional[float] = None
    high: Optional[float] = None
    approx: bool = False
    bound: Optional[Literal["upper", "lower"]] = None
    percentile: Optional[str] = None
    scope: Optional[Scope] = None
    scope_stated: bool = False
    scope_asked: bool = False  # the scope is the question's ("how many ... can that GPU hold?"), not said with the figure
    scope_after: bool = False
    subject: Subject = Field(default_factory=Subject)
    turn: int
    span: str = Field(description="exact substring of the turn's text")
    start: int
    end: int
    sentence: str = Field(default="", description="the sentence (or table row) the figure is in")
    # where `span` sits in `sentence` (which is read with LaTeX and decimal commas normalised, so the span itself
    # may not be found in it); -1 when unknown
    at: int = Field(default=-1, exclude=True)
    speaker: Speaker
    said_by_interviewer: bool = False
    negated: bool = False
    hypothetical: bool = False
    source: Literal["prose", "table", "formula"] = "prose"
    formula: list[str] = Field(default_factory=list, description="the factors said, for a figure given as a product")
    check: Optional[Check] = None

    def brief(self) -> str:
        v = "?" if self.value is None else f"{self.value:,.6g}"
        flags = "".join(f" [{f}]" for f, on in (("neg", self.negated), ("hyp", self.hypothetical),
                                                ("interviewer", self.said_by_interviewer)) if on)
        st = f" -> {self.check.status}" if self.check else ""
        return f"t{self.turn} {self.kind}={v} {self.unit}{flags}{st}: {self.span!r}"


class Ledger(BaseModel):
    """Every claim of a transcript, in order of turn and position."""

    claims: list[Claim] = Field(default_factory=list)
    family: Optional[str] = None
    question_id: Optional[str] = None
    subjects: list[Subject] = Field(default_factory=list, description="the carried subject at the end of each turn")

    def by_kind(self, *kinds: str) -> list[Claim]:
        wanted = set(kinds)
        return [c for c in self.claims if c.kind in wanted]

    def candidate_claims(self) -> list[Claim]:
        return [c for c in self.claims if c.speaker == "candidate"]

    def checked(self) -> list[Claim]:
        """Candidate claims whose check reached a verdict (ok, wrong or impossible)."""
        return [c for c in self.claims if c.check is not None and c.check.status != "unchecked"]

    def wrong(self) -> list[Claim]:
        """Candidate claims a check marks wrong or impossible."""
        return [c for c in self.claims if c.check is not None and c.check.status in ("wrong", "impossible")]

    def in_turn(self, turn: int) -> list[Claim]:
        return [c for c in self.claims if c.turn == turn]

    def summary(self) -> str:
        return "\n".join(c.brief() for c in self.claims)
