"""Embeddings for the corpus vector store: offline feature hashing by default, or an
OpenAI-compatible /v1/embeddings endpoint (OpenAI itself, or a local vLLM / llama.cpp / Ollama).

One `Embedder` computes the vectors; two thin adapters serve exactly those vectors:
`LangChainEmbeddings` (a langchain_core `Embeddings`, used by langchain_chroma.Chroma) and a
Chroma embedding function registered with Chroma (`chroma_embedding_function`), which Chroma
records in the collection's configuration and rebuilds from it in a fresh process.

The hashing embedder needs no model, no download and no network: word unigrams and bigrams of
lightly stemmed words, character 4-grams, and concept features from a small domain synonym map
("ttft" and "time to first token" both light up the same feature), each hashed with a signed
CRC32 into `dim` buckets with sublinear term frequency, then L2-normalised. Its `key` names the
feature version, so changing the features (bump `HASH_VERSION`) rebuilds the store instead of
mixing vectors. Importing this module costs numpy and langchain_core.embeddings only; chromadb
and langchain_openai are imported when first needed.
"""
from __future__ import annotations

import functools
import math
import os
import re
import unicodedata
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Literal, Mapping, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from interviewer.errors import UserError

HASH_VERSION = 1
DEFAULT_DIM = 1024
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"

Kind = Literal["hash", "openai"]

# ---------------------------------------------------------------------------------------------
# Text features
# ---------------------------------------------------------------------------------------------

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had
has have having he her here hers him his how i if in into is it its itself just me more most my
no nor not of off on once only or other our ours out over own same she should so some such than
that the their them then there these they this those through to too under until up very was we
were what when where which while who whom why will with would you your yours yourself also get
got gets getting let lets like one ones say says thing things way ways really actually else
go going want wants need needs use used using make makes made able much many
""".split())

# Words the stemmer must leave alone (abbreviations whose trailing "s" is not a plural, etc.).
NO_STEM = frozenset("slas slos gqa mqa mha vllm".split())

# Concept features: each concept fires when any of its phrases occurs (phrases are matched on
# stemmed, stopword-free token sequences, so "time to first token" is written "time first token").
# Queries phrased the way a candidate talks share these features with notes written in jargon.
CONCEPTS: dict[str, tuple[str, ...]] = {
    "ttft": ("ttft", "time first token", "first token latency", "first token", "time-to-first-token"),
    "tpot": ("tpot", "itl", "inter token latency", "intertoken latency", "time per output token",
             "per token latency", "decode latency", "token per second per user", "streaming speed"),
    "kv": ("kv", "key value", "key-value"),
    "kv_cache": ("kv cache", "key value cache", "attention cache", "kv state", "kv block",
                 "kv memory", "cache block", "kv byte", "kv head"),
    "kv_store": ("key value store", "kv store", "redis", "memcached", "dynamodb", "rocksdb"),
    "tail": ("p99", "p95", "p999", "tail latency", "tail", "percentile", "99th", "95th",
             "worst case latency", "slowest request", "slowest", "long tail", "outlier", "spike"),
    "median": ("p50", "median", "typical latency"),
    "average": ("average", "mean latency", "avg", "on average"),
    "capacity": ("capacity", "concurrency", "concurrent request", "concurrent user",
                 "concurrent sequence", "how many request", "how many sequence", "how many user",
                 "max sequence", "max num seq", "fit", "fits", "batch size", "sequence fit",
                 "simultaneous", "at once", "in parallel", "how many"),
    "memory": ("memory", "vram", "hbm", "gpu memory", "gib", "gb", "byte", "bytes"),
    "weights": ("weight", "parameter", "param", "model size", "8b", "7b", "13b", "70b"),
    "gpu_model": ("h100", "a100", "h200", "l4", "a10g", "b200", "gpu"),
    "memory_full": ("out memory", "oom", "memory full", "run out memory", "cache full", "no room",
                    "memory pressure", "cannot admit", "can't admit", "doesn't fit", "not fit",
                    "no free block", "exhaust", "runs out", "ran out", "full"),
    "preempt": ("preempt", "preemption", "evict", "eviction", "swap", "recompute", "victim",
                "kick out", "pause", "suspend"),
    "priority": ("priority", "vip", "premium", "paid tier", "paying", "high priority",
                 "enterprise customer", "important customer", "tier", "urgent"),
    "admission": ("reject", "429", "retry after", "retry-after", "backpressure", "load shed",
                  "shed load", "admission", "admit", "turn away", "overload", "too many request",
                  "rate limit"),
    "queue": ("queue", "queueing", "queuing", "wait", "waiting", "backlog"),
    "continuous_batching": ("continuous batching", "iteration level", "in flight batching",
                            "inflight batching", "dynamic batching", "iteration-level",
                            "batch every step", "join batch"),
    "static_batching": ("static batching", "static batch", "request level batching",
                        "fixed batch"),
    "batch": ("batch", "batching", "batched"),
    "prefill": ("prefill", "prompt processing", "prompt phase", "long prompt", "input token",
                "prompt token", "process prompt"),
    "decode": ("decode", "decoding", "token generation", "output token", "generate token",
               "generation step"),
    "chunked_prefill": ("chunked prefill", "chunk prefill", "split prompt", "prefill chunk",
                        "max num batched token", "token budget", "scheduled token"),
    "quantization": ("quantiz", "fp8", "int8", "int4", "awq", "gptq", "lower precision",
                     "smaller weight", "compress model", "reduced precision", "4 bit", "8 bit",
                     "4-bit", "8-bit", "bf16", "fp16"),
    "quality": ("quality", "accuracy", "eval", "evaluation", "regression", "golden set",
                "degrad", "worse answer", "perplexity", "benchmark suite", "test set"),
    "rollback": ("rollback", "roll back", "revert", "canary", "shadow", "rollout", "roll out",
                 "gradual"),
    "parallelism": ("tensor parallel", "tensor parallelism", "tp", "shard", "sharding",
                    "split model", "model parallel", "multi gpu", "multiple gpu", "pipeline parallel",
                    "nvlink", "across gpu"),
    "failure": ("hung", "hang", "stuck", "timeout", "time out", "watchdog", "deadline", "crash",
                "node failure", "gpu failure", "fault", "xid", "ecc", "dies", "died", "fail",
                "failure", "never finish", "straggler"),
    "retry": ("retry", "retries", "retry storm", "backoff", "hedg", "hedge", "resend",
              "idempoten"),
    "cancel": ("cancel", "cancellation", "client disconnect", "disconnect", "abort", "close tab",
               "stop generation", "user leave", "walk away"),
    "fairness": ("fair", "fairness", "starv", "starvation", "noisy neighbor", "tenant", "quota",
                 "share", "hog", "monopoliz", "multi tenant"),
    "placement": ("placement", "bin pack", "bin packing", "topology", "gang schedul", "locality",
                  "packing", "fragmentation", "place job", "which node", "which gpu"),
    "cluster_scheduler": ("gpu scheduling", "cluster scheduler", "job scheduler", "slurm",
                          "kubernetes", "training job", "scheduling platform", "job", "cluster"),
    "prefix_cache": ("prefix cach", "prompt cach", "system prompt", "radix", "shared prefix",
                     "common prefix", "prefix sharing"),
    "paging": ("paged attention", "pagedattention", "block table", "paging", "page", "paged",
               "block size", "internal fragmentation"),
    "speculative": ("speculative", "draft model", "spec decod"),
    "throughput": ("throughput", "token per second", "tok s", "qps", "rps", "request per second",
                   "goodput", "utilization", "utilisation"),
    "slo": ("slo", "sla", "latency target", "latency budget", "latency goal", "service level"),
    "operating_model": ("oncall", "on call", "runbook", "postmortem", "ownership", "roadmap",
                        "team", "staff", "org", "operating model", "stakeholder", "cost",
                        "capacity planning", "budget", "headcount"),
    "wal": ("write ahead log", "wal", "fsync", "durab", "crash recovery", "append only", "replay",
            "checkpoint", "commit log"),
    "observability": ("metric", "dashboard", "alert", "monitor", "observab", "histogram",
                      "prometheus", "trace", "tracing", "telemetry", "measure"),
    "speedup": ("speedup", "speed up", "x faster", "faster", "vendor claim", "marketing",
                "headline number", "multiplier"),
    "interview": ("interview", "round", "phone screen", "onsite", "loop", "recruiter",
                  "interviewer", "candidate", "asked", "ask"),
    "company": ("openai", "anthropic", "nvidia", "uber", "snowflake", "databricks", "amazon",
                "doordash", "google", "meta", "microsoft", "company"),
    "router": ("router", "routing", "load balanc", "load balancer", "dispatch", "route"),
    "autoscale": ("autoscal", "scale up", "scale out", "add replica", "more replica",
                  "replica", "cold start", "scale down"),
    "bandwidth": ("bandwidth", "memory bound", "memory-bound", "compute bound", "compute-bound",
                  "flop", "arithmetic intensity", "roofline", "tb s", "gb s"),
}

_TOKEN_RE = re.compile(r"[a-z0-9]+")
_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}\b)")
_SUFFIXES = (  # (suffix, replacement), first match wins
    ("izations", "iz"), ("ization", "iz"), ("isation", "iz"), ("izing", "iz"), ("ized", "iz"),
    ("izes", "iz"), ("ize", "iz"), ("ations", ""), ("ation", ""), ("ments", ""), ("ment", ""),
    ("ness", ""), ("ingly", ""), ("ings", ""), ("ing", ""), ("ions", ""), ("ion", ""),
    ("ied", "y"), ("ies", "y"), ("edly", ""), ("ed", ""), ("ers", ""), ("er", ""), ("es", ""),
    ("ly", ""), ("s", ""),
)


@functools.lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """A deliberately light suffix stripper: 'queued', 'queues', 'queueing' -> 'queu'."""
    if len(word) <= 3 or word in NO_STEM or any(c.isdigit() for c in word):
        return word
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "is")):
                continue
            word = word[: -len(suffix)] + repl
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # "batched" -> "batch", "planned" -> "plan", but "fill" stays
    return word


def tokenize(text: str) -> list[str]:
    """Lowercased alphanumeric tokens; digit groups such as '131,072' are kept whole."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = _THOUSANDS_RE.sub("", text)
    return _TOKEN_RE.findall(text)


def content_stems(tokens: Iterable[str]) -> list[str]:
    return [stem(t) for t in tokens if t not in STOPWORDS]


@functools.cache
def _concept_index() -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """First stem -> [(phrase stems, concept)], longest phrases first."""
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for concept, phrases in CONCEPTS.items():
        for phrase in phrases:
            stems = tuple(content_stems(tokenize(phrase)))
            if stems:
                index.setdefault(stems[0], []).append((stems, concept))
    for entries in index.values():
        entries.sort(key=lambda e: -len(e[0]))
    return index


def concepts(stems: Sequence[str]) -> Counter:
    """Concept features present in a stem sequence (prefix phrases also match: 'quantiz')."""
    index = _concept_index()
    found: Counter = Counter()
    i = 0
    while i < len(stems):
        step = 1
        for phrase, concept in index.get(stems[i], ()):
            if tuple(stems[i : i + len(phrase)]) == phrase:
                found[concept] += 1
                step = len(phrase)
                break
        i += step
    # prefix phrases such as "quantiz" or "hedg" match any stem that starts with them
    for prefix, concept in _prefix_concepts():
        if any(s.startswith(prefix) for s in stems):
            found[concept] += 0 if found[concept] else 1
    return found


@functools.cache
def _prefix_concepts() -> tuple[tuple[str, str], ...]:
    out = []
    for concept, phrases in CONCEPTS.items():
        for phrase in phrases:
            stems = content_stems(tokenize(phrase))
            if len(stems) == 1 and len(stems[0]) >= 5:
                out.append((stems[0], concept))
    return tuple(out)


# Relative weights of the feature families (tuned on tests/data/retrieval_queries.yaml).
W_WORD, W_BIGRAM, W_CHAR, W_CONCEPT = 1.0, 0.6, 0.25, 1.2
CHAR_N = 4


def features(text: str) -> Counter:
    """Weighted sparse features of a text (before hashing)."""
    stems = content_stems(tokenize(text))
    feats: Counter = Counter()
    for s, n in Counter(stems).items():
        feats["w:" + s] += W_WORD * (1.0 + math.log(n))
    for (a, b), n in Counter(zip(stems, stems[1:])).items():
        feats[f"b:{a} {b}"] += W_BIGRAM * (1.0 + math.log(n))
    chars: Counter = Counter()
    for s in stems:
        if len(s) >= CHAR_N and not s.isdigit():
            padded = f"<{s}>"
            grams = [padded[i : i + CHAR_N] for i in range(len(padded) - CHAR_N + 1)]
            for g in grams:
                chars[g] += 1.0 / len(grams)
    for g, n in chars.items():
        feats["c:" + g] += W_CHAR * (1.0 + math.log1p(n))
    for c, n in concepts(stems).items():
        feats["k:" + c] += W_CONCEPT * (1.0 + math.log(n))
    return feats


def hash_embed(text: str, dim: int = DEFAULT_DIM) -> np.ndarray:
    """One L2-normalised float32 vector; all-zero text gives a fixed unit vector."""
    vec = np.zeros(dim, dtype=np.float32)
    for feat, weight in features(text).items():
        h = zlib.crc32(feat.encode("utf-8"))
        vec[h % dim] += weight if (h >> 31) & 1 else -weight
    norm = float(np.linalg.norm(vec))
    if norm == 0.0:
        vec[0] = 1.0
        return vec
    return vec / norm


# ---------------------------------------------------------------------------------------------
# Embedders
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class EmbedderSpec:
    """Which embedder builds the store. `key` is recorded in the collection metadata."""

    kind: Kind = "hash"
    dim: int = DEFAULT_DIM
    model: str = DEFAULT_OPENAI_MODEL
    base_url: str | None = None

    @property
    def key(self) -> str:
        if self.kind == "hash":
            return f"hash-v{HASH_VERSION}-d{self.dim}"
        where = self.base_url.rstrip("/") if self.base_url else "api.openai.com"
        return f"openai:{self.model}@{where}"

    def describe(self) -> str:
        if self.kind == "hash":
            return f"offline feature hashing ({self.dim} dims, v{HASH_VERSION})"
        return f"OpenAI-compatible embeddings {self.model!r} at {self.base_url or 'OpenAI'}"


def spec_from_env(env: Mapping[str, str] | None = None) -> EmbedderSpec:
    """Read the embedder choice from settings in the environment.

    INTERVIEWER_EMBEDDINGS: `hash` (default, offline), `openai` (needs OPENAI_API_KEY) or
    `local` (an OpenAI-compatible server: INTERVIEWER_EMBEDDINGS_BASE_URL or OPENAI_BASE_URL).
    INTERVIEWER_EMBEDDING_MODEL names the remote model (default text-embedding-3-small).
    """
    env = os.environ if env is None else env
    choice = (env.get("INTERVIEWER_EMBEDDINGS") or "hash").strip().lower()
    model = (env.get("INTERVIEWER_EMBEDDING_MODEL") or DEFAULT_OPENAI_MODEL).strip()
    if choice in ("hash", "offline", "builtin", "built-in", ""):
        return EmbedderSpec("hash")
    if choice == "openai":
        base = env.get("INTERVIEWER_EMBEDDINGS_BASE_URL") or None
        return EmbedderSpec("openai", model=model, base_url=base)
    if choice == "local":
        base = env.get("INTERVIEWER_EMBEDDINGS_BASE_URL") or env.get("OPENAI_BASE_URL")
        if not base:
            raise UserError("INTERVIEWER_EMBEDDINGS=local needs OPENAI_BASE_URL (or "
                            "INTERVIEWER_EMBEDDINGS_BASE_URL), e.g. http://127.0.0.1:8080/v1")
        return EmbedderSpec("openai", model=model, base_url=base)
    raise UserError(f"unknown INTERVIEWER_EMBEDDINGS={choice!r}; use hash, openai or local")


class Embedder:
    """Computes vectors for one spec. Documents and queries go through the same function."""

    def __init__(self, spec: EmbedderSpec | None = None):
        self.spec = spec or EmbedderSpec()
        self._remote = None

    @property
    def key(self) -> str:
        return self.spec.key

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self.spec.kind == "hash":
            return [hash_embed(t, self.spec.dim).tolist() for t in texts]
        return self._remote_embed(list(texts))

    def _remote_embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        if self._remote is None:
            self._remote = _openai_embeddings(self.spec)
        try:
            return self._remote.embed_documents(texts)
        except Exception as exc:  # network, auth, model not found: one line for the user
            raise UserError(f"embeddings request to {self.spec.base_url or 'OpenAI'} failed: "
                            f"{type(exc).__name__}: {exc}") from None

    def as_langchain(self) -> "LangChainEmbeddings":
        return LangChainEmbeddings(self)

    def as_chroma(self):
        return chroma_embedding_function(self.spec)


def _openai_embeddings(spec: EmbedderSpec):
    from langchain_openai import OpenAIEmbeddings

    api_key = os.environ.get("OPENAI_API_KEY")
    if spec.base_url is None and not api_key:
        raise UserError("INTERVIEWER_EMBEDDINGS=openai needs OPENAI_API_KEY")
    # check_embedding_ctx_length=False: send raw strings; the length check would fetch a
    # tiktoken vocabulary from the network, and local servers tokenize for themselves.
    # encoding_format=float: the openai client asks for base64 by default, which some local
    # servers do not implement.
    return OpenAIEmbeddings(model=spec.model, base_url=spec.base_url,
                            api_key=api_key or "sk-no-key-needed",
                            check_embedding_ctx_length=False, max_retries=2, timeout=60,
                            model_kwargs={"encoding_format": "float"})


class LangChainEmbeddings(Embeddings):
    """LangChain view of an `Embedder`: the vectors langchain_chroma.Chroma stores and queries."""

    def __init__(self, embedder: Embedder | None = None):
        self.embedder = embedder or Embedder()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embedder.embed(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.embedder.embed([text])[0]


@functools.cache
def _chroma_classes() -> dict[str, type]:
    """Define and register the Chroma embedding functions (imports chromadb on first use)."""
    from chromadb.api.types import EmbeddingFunction
    from chromadb.utils.embedding_functions import register_embedding_function

    @register_embedding_function
    class InterviewerHashEmbeddingFunction(EmbeddingFunction):
        """Offline feature-hashing embeddings (see interviewer.embeddings)."""

        def __init__(self, dim: int = DEFAULT_DIM, version: int = HASH_VERSION):
            self.dim = int(dim)
            self.version = int(version)
            self._embedder = Embedder(EmbedderSpec("hash", dim=self.dim))

        def __call__(self, input):  # noqa: A002 (Chroma's parameter name)
            return [np.asarray(v, dtype=np.float32) for v in self._embedder.embed(list(input))]

        @staticmethod
        def name() -> str:
            return "interviewer-hash"

        def get_config(self) -> dict:
            return {"dim": self.dim, "version": self.version}

        @staticmethod
        def build_from_config(config: dict) -> "InterviewerHashEmbeddingFunction":
            return InterviewerHashEmbeddingFunction(config.get("dim", DEFAULT_DIM),
                                                    config.get("version", HASH_VERSION))

        def default_space(self):
            return "cosine"

        def supported_spaces(self):
            return ["cosine", "l2", "ip"]

    @register_embedding_function
    class InterviewerOpenAIEmbeddingFunction(EmbeddingFunction):
        """OpenAI-compatible /v1/embeddings; the key comes from OPENAI_API_KEY, never the config."""

        def __init__(self, model: str = DEFAULT_OPENAI_MODEL, base_url: str | None = None):
            self.model = model
            self.base_url = base_url
            self._embedder = Embedder(EmbedderSpec("openai", model=model, base_url=base_url))

        def __call__(self, input):  # noqa: A002
            return [np.asarray(v, dtype=np.float32) for v in self._embedder.embed(list(input))]

        @staticmethod
        def name() -> str:
            return "interviewer-openai"

        def get_config(self) -> dict:
            return {"model": self.model, "base_url": self.base_url}

        @staticmethod
        def build_from_config(config: dict) -> "InterviewerOpenAIEmbeddingFunction":
            return InterviewerOpenAIEmbeddingFunction(config.get("model", DEFAULT_OPENAI_MODEL),
                                                      config.get("base_url"))

        def default_space(self):
            return "cosine"

        def supported_spaces(self):
            return ["cosine", "l2", "ip"]

    return {"hash": InterviewerHashEmbeddingFunction, "openai": InterviewerOpenAIEmbeddingFunction}


def register_with_chroma() -> None:
    """Make Chroma able to rebuild our embedding functions from a stored collection config."""
    _chroma_classes()


def chroma_embedding_function(spec: EmbedderSpec | None = None):
    """The registered Chroma embedding function for a spec (same vectors as `Embedder`)."""
    spec = spec or EmbedderSpec()
    classes = _chroma_classes()
    if spec.kind == "hash":
        return classes["hash"](spec.dim)
    return classes["openai"](spec.model, spec.base_url)
