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
first token" light up one feature, as do "the user closes the tab" and "cancellation"). Each is
hashed with a signed CRC32 into `dim` buckets with sublinear term frequency and the vector is
L2-normalised; a document's first line (its title) is added once more at TITLE_WEIGHT. The
weights were chosen by recall on tests/data/retrieval_queries.yaml (see
benchmarks/bench_retrieval.py). No package ships a small ONNX sentence-embedding model that
loads offline here, so there is no neural option without a download.

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
from langchain_core.embeddings import Embeddings

from interviewer.errors import UserError

HASH_VERSION = 2  # bump whenever features, weights or tables change: stores rebuild
DEFAULT_DIM = 1024
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"
OPENAI_URL = "https://api.openai.com/v1"

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

# Concept features: each concept fires when any of its phrases occurs (matched on stems of all
# tokens, stopwords included). They connect the way a candidate asks ("the user closes the tab",
# "say no and tell them to come back later") with the jargon the notes use ("cancellation",
# "reject with Retry-After"), and abbreviations with their spelled-out forms ("ttft" and "time
# to first token"; "kv" and "key value"; "p99" and "tail latency").
CONCEPTS: dict[str, tuple[str, ...]] = {
    "ttft": ("ttft", "time to first token", "time-to-first-token", "first token",
             "first-token latency"),
    "tpot": ("tpot", "itl", "inter-token latency", "inter token", "intertoken",
             "time per output token", "per-token latency", "token gap", "stutter", "stall",
             "stalls", "streaming speed", "tokens per second per user"),
    "kv": ("kv", "key value", "key-value"),
    "kv_cache": ("kv cache", "key value cache", "key-value cache", "attention cache",
                 "kv state", "kv block", "kv blocks", "kv bytes", "kv heads"),
    "kv_store": ("key value store", "key-value store", "kv store", "redis", "memcached",
                 "in-memory store", "in memory store", "in-memory key value", "get put delete"),
    "tail": ("p99", "p95", "p999", "tail latency", "the tail", "percentile", "percentiles",
             "99th", "95th", "worst case", "slowest", "outlier", "outliers"),
    "average": ("average", "averages", "mean latency", "the mean", "avg"),
    "median": ("p50", "median"),
    "capacity": ("concurrency", "concurrent", "how many requests", "how many sequences",
                 "how many users", "how many conversations", "fit", "fits", "sequences that fit",
                 "capacity", "memory budget"),
    "memory_full": ("out of memory", "oom", "memory is full", "memory full", "cache is full",
                    "cache full", "full cache", "runs out", "run out", "ran out", "running out",
                    "no free blocks", "cannot admit", "can't admit", "memory pressure",
                    "make room", "blocks run out"),
    "preempt": ("preempt", "preempted", "preemption", "preemptible", "evict", "evicted",
                "eviction", "swap", "swapping", "recompute", "victim", "kick out", "reclaim",
                "reclaimed"),
    "priority": ("priority", "priorities", "vip", "premium", "paid tier", "paying customer",
                 "important customer", "enterprise"),
    "reject": ("reject", "rejection", "rejected", "429", "retry after", "retry-after",
               "say no", "turn away", "load shedding", "shed load", "come back later",
               "try again later", "backpressure", "rate limit"),
    "admission": ("admission", "admit", "admitted", "watermark", "let in", "new request",
                  "new requests", "make it wait"),
    "queue": ("queue", "queues", "queueing", "queuing", "queued", "waiting", "backlog"),
    "utilization": ("utilization", "utilisation", "busy", "saturation", "saturated",
                    "percent busy", "near capacity", "load"),
    "continuous_batching": ("continuous batching", "iteration-level", "iteration level",
                            "in-flight batching", "inflight batching", "dynamic batching"),
    "static_batching": ("static batching", "static batch", "whole batch", "fixed batch",
                        "longest generation", "wait for the longest"),
    "limits": ("max_num_batched_tokens", "max num batched tokens", "max_num_seqs",
               "max num seqs", "token budget", "token cap", "limits", "limit", "knobs", "settings",
               "max_batch_total_tokens", "max concurrent requests", "caps", "cap"),
    "prefill": ("prefill", "prompt processing", "long prompt", "huge prompt", "big prompt",
                "prompt tokens", "input tokens"),
    "decode": ("decode", "decoding", "token generation", "generating tokens", "output tokens",
               "generation step", "decode step"),
    "chunked_prefill": ("chunked prefill", "chunk the prompt", "split the prompt",
                        "enable_chunked_prefill"),
    "quantization": ("quantiz", "fp8", "int8", "int4", "awq", "gptq", "4-bit", "8-bit",
                     "lower precision", "smaller weights", "low precision"),
    "quality": ("quality", "accuracy", "evals", "evaluation", "regression", "worse",
                "degrade", "degraded", "degradation", "perplexity", "quality suite",
                "not worse", "as good as"),
    "rollback": ("rollback", "roll back", "revert", "canary", "shadow", "rollout", "roll out"),
    "parallelism": ("tensor parallel", "tensor parallelism", "tp", "shard", "sharded",
                    "split the model", "multiple gpus", "multi-gpu", "across gpus", "nvlink"),
    "hang": ("hung", "hang", "hangs", "stuck", "watchdog", "heartbeat", "frozen",
             "not just slow"),
    "timeout": ("timeout", "timeouts", "time out", "deadline", "deadlines"),
    "crash": ("crash", "crashed", "crashes", "dies", "died", "dead", "node failure", "fault",
              "faults", "power cut", "power loss"),
    "retry": ("retry", "retries", "retried", "retry storm", "backoff", "retry budget"),
    "hedge": ("hedg", "hedge", "hedged", "duplicate request", "duplicate", "same request to two",
              "send it twice", "backup request"),
    "cancel": ("cancel", "cancellation", "cancelled", "disconnect", "disconnects", "abort",
               "closes the tab", "close the tab", "stop button", "presses stop", "abandon",
               "abandoned"),
    "fairness": ("fair", "fairness", "fair share", "starve", "starvation", "starves",
                 "waiting forever", "wait forever", "noisy neighbor", "tenant", "tenants",
                 "quota", "hog"),
    "placement": ("placement", "bin pack", "bin packing", "packing", "best fit", "topology",
                  "fragmentation", "fragmented", "gang", "all or nothing", "scattered",
                  "whole node", "half a node"),
    "training": ("training job", "training run", "training jobs", "checkpoint",
                 "checkpoints"),
    "surge": ("surge", "spike", "spikes", "burst", "bursts", "peak traffic"),
    "prefix_cache": ("prefix cach", "prefix caching", "prompt cache", "prompt caching",
                     "system prompt", "radix", "shared prefix", "same prefix", "cache hit",
                     "cache hits", "hit rate"),
    "paging": ("paged attention", "pagedattention", "page table", "block table", "paging",
               "pages", "block size", "operating system", "operating systems",
               "virtual memory"),
    "sampling": ("parallel sampling", "beam search", "samples", "sampling", "same prompt",
                 "several outputs"),
    "bandwidth": ("bandwidth", "memory-bound", "memory bound", "compute-bound",
                  "compute bound", "flops", "arithmetic intensity", "roofline", "ridge point"),
    "speedup": ("speedup", "speed up", "x faster", "24x", "23x", "multiplier", "multipliers",
                "vendor", "marketing"),
    "health": ("health", "healthy", "unhealthy", "xid", "ecc", "dcgm", "going bad", "bad gpu",
               "bad node", "faulty", "quarantine", "quarantined", "drain", "repair", "check",
               "checks", "preflight", "diagnostic", "diagnostics", "burn-in", "burn in"),
    "rubric": ("score", "scores", "scored", "scoring", "grade", "graded", "grading", "rubric",
               "0 to 3", "verdict"),
    "speed": ("faster", "slower", "speed", "speeds", "quicker", "step time", "per step"),
    "schedule_wait": ("time to schedule", "time-to-schedule", "queue wait", "get scheduled",
                      "how quickly", "wait time", "job starts", "start quickly"),
    "headroom": ("more room", "free memory", "freed", "frees", "headroom", "room for"),
    "levers": ("knob", "knobs", "lever", "levers", "what can i change", "tune", "tuning"),
    "speculative": ("speculative", "draft model", "draft tokens", "drafted tokens"),
    "attention_kernel": ("flash attention", "flashattention", "attention kernel",
                         "score matrix", "sram", "softmax"),
    "gqa": ("grouped query attention", "grouped-query attention", "gqa", "multi-query",
            "mqa", "kv heads"),
    "replicas": ("replica", "replicas", "copies of the model", "separate copies", "instance",
                 "instances"),
    "disaggregation": ("disaggregated", "disaggregation", "separate prefill",
                       "prefill and decode pools"),
    "long_context": ("long context", "context length", "long conversation", "sequence length",
                     "seq len", "max length", "max_model_len", "long-context"),
    "cost": ("cost", "costs", "cheaper", "expensive", "gpu-hours", "gpu hours", "dollars",
             "price"),
    "multi_turn": ("multi-turn", "multi turn", "conversation", "chat history", "earlier turns",
                   "previous turns"),
    "isolation": ("tenant isolation", "isolation", "leak", "leaks", "side channel", "security",
                  "privacy", "another tenant", "cache salt"),
    "wal": ("write-ahead log", "write ahead log", "wal", "fsync", "durable", "durability",
            "survive a crash", "replay", "torn", "log record", "append"),
    "compaction": ("compaction", "snapshot", "snapshots", "log keeps growing", "log grows",
                   "truncate"),
    "falsifier": ("metric that would show", "would show", "show it is wrong", "wrong",
                  "mistake", "falsif"),
    "level": ("senior", "staff", "mid-level", "mid level", "down-level", "down-leveling",
              "level lower", "one level", "level bar"),
    "interview_format": ("phone screen", "phone screens", "onsite", "onsites",
                         "online assessment", "loop"),
    "coding": ("coding", "leetcode", "algorithm", "heap", "hash map", "binary search"),
    "prep": ("prepare", "preparing", "preparation", "practice", "practise", "plan", "weeks",
             "study"),
    "throughput": ("throughput", "tokens per second", "requests per second", "qps", "rps",
                   "goodput"),
    "slo": ("slo", "slos", "sla", "latency target", "promise"),
    "model_size": ("8b", "7b", "13b", "70b", "parameters", "weights"),
    "router": ("router", "routing", "load balancer", "load balancing", "round robin",
               "round-robin", "least outstanding", "dispatch", "which replica", "which gpu"),
    "recsys": ("recommendation", "recommender", "ranking", "candidate generation",
               "feature store", "re-ranking"),
    "skew": ("training serving skew", "training and serving skew", "skew", "don't match",
             "doesn't match", "mismatch"),
    "operating_model": ("oncall", "on-call", "runbook", "ownership", "operating model",
                        "half the gpus", "teams"),
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
    table below (benchmarks/bench_retrieval.py --derive-weights), never at run time, so a
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


def format_common_weights(weights: dict[str, float], width: int = 99) -> str:
    """Python source for the COMMON_WEIGHTS table."""
    lines, line = [], "   "
    for key, value in sorted(weights.items()):
        item = f" {key!r}: {value},"
        if len(line) + len(item) > width:
            lines.append(line)
            line = "   "
        line += item
    lines.append(line)
    return "COMMON_WEIGHTS: dict[str, float] = {\n" + "\n".join(lines) + "\n}\n"


# BEGIN COMMON_WEIGHTS: generated by `python benchmarks/bench_retrieval.py --write-weights`
COMMON_WEIGHTS: dict[str, float] = {
    '0': 0.68, '03': 0.97, '06': 0.9, '1': 0.38, '10': 0.58, '100': 0.97, '1000': 0.93,
    '128': 0.72, '13': 0.84, '131072': 0.75, '14': 0.93, '16': 0.7, '2': 0.33, '200': 0.97,
    '2000': 0.9, '2026': 0.64, '2048': 0.75, '24': 0.87, '29': 0.9, '3': 0.35, '30': 0.84,
    '300': 0.97, '32': 0.87, '4': 0.6, '40': 0.93, '4096': 0.75, '5': 0.44, '50': 0.93, '57': 0.9,
    '6': 0.82, '64': 0.9, '7': 0.8, '70b': 0.97, '8': 0.51, '80gb': 0.8, '8b': 0.49, '9': 0.84,
    'accept': 0.9, 'acknowledg': 0.93, 'across': 0.57, 'activ': 0.9, 'add': 0.64, 'admiss': 0.8,
    'admit': 0.8, 'advanc': 0.97, 'ahead': 0.82, 'alloc': 0.9, 'allow': 0.87, 'already': 0.77,
    'among': 0.93, 'anoth': 0.9, 'answ': 0.39, 'anthropic': 0.9, 'anyscal': 0.87, 'anyth': 0.97,
    'app': 0.77, 'append': 0.84, 'apply': 0.77, 'arithmetic': 0.39, 'around': 0.97, 'arriv': 0.87,
    'arrival': 0.93, 'articl': 0.48, 'ask': 0.56, 'assum': 0.82, 'attent': 0.59, 'averag': 0.75,
    'back': 0.73, 'balanc': 0.93, 'bandwidth': 0.93, 'bank': 0.63, 'batch': 0.3, 'becom': 0.97,
    'behind': 0.93, 'binary': 0.84, 'block': 0.53, 'bound': 0.58, 'budget': 0.36, 'byt': 0.48,
    'cach': 0.25, 'call': 0.73, 'candidat': 0.45, 'cannot': 0.7, 'cap': 0.8, 'capacity': 0.52,
    'chang': 0.73, 'chat': 0.77, 'check': 0.62, 'checkpoint': 0.87, 'choos': 0.84, 'chunk': 0.93,
    'claim': 0.97, 'class': 0.72, 'client': 0.84, 'cod': 0.58, 'com': 0.72, 'commit': 0.82,
    'common': 0.97, 'compact': 0.82, 'company': 0.67, 'compar': 0.87, 'comput': 0.7,
    'concept': 0.97, 'concurrency': 0.84, 'context': 0.87, 'continuou': 0.57, 'copy': 0.73,
    'cost': 0.44, 'count': 0.51, 'crash': 0.97, 'credit': 0.75, 'cut': 0.97, 'data': 0.8,
    'databrick': 0.84, 'day': 0.82, 'deadlin': 0.97, 'decid': 0.84, 'decod': 0.47, 'default': 0.82,
    'defend': 0.8, 'depend': 0.97, 'deriv': 0.97, 'describ': 0.87, 'design': 0.38, 'detect': 0.9,
    'different': 0.9, 'dim': 0.93, 'divid': 0.93, 'drain': 0.82, 'drill': 0.84, 'drop': 0.77,
    'earli': 0.93, 'eight': 0.68, 'end': 0.82, 'engin': 0.7, 'error': 0.9, 'estimat': 0.93,
    'every': 0.39, 'exact': 0.82, 'exampl': 0.39, 'expect': 0.84, 'explain': 0.72, 'fac': 0.87,
    'fail': 0.8, 'failur': 0.65, 'fair': 0.72, 'fast': 0.77, 'featur': 0.97, 'figur': 0.82,
    'fil': 0.84, 'first': 0.31, 'fit': 0.72, 'fiv': 0.9, 'fix': 0.57, 'flashattent': 0.93,
    'fleet': 0.67, 'flop': 0.97, 'follow': 0.53, 'format': 0.52, 'fp16': 0.53, 'fp8': 0.77,
    'fragment': 0.8, 'fre': 0.56, 'fsync': 0.82, 'full': 0.7, 'gain': 0.84, 'gang': 0.84,
    'gb': 0.65, 'gener': 0.68, 'generat': 0.8, 'gib': 0.68, 'giv': 0.53, 'gpu': 0.2, 'group': 0.6,
    'grow': 0.63, 'guid': 0.73, 'h100': 0.53, 'half': 0.75, 'happen': 0.84, 'hardwar': 0.97,
    'hash': 0.73, 'head': 0.67, 'health': 0.82, 'heap': 0.87, 'hedg': 0.97, 'held': 0.97,
    'high': 0.97, 'hint': 0.87, 'hit': 0.9, 'hold': 0.58, 'host': 0.9, 'hour': 0.73, 'hung': 0.97,
    'idl': 0.8, 'ii': 0.97, 'inferenc': 0.28, 'instead': 0.72, 'interview': 0.37, 'item': 0.77,
    'iter': 0.87, 'job': 0.63, 'judg': 0.97, 'keep': 0.53, 'key': 0.56, 'kill': 0.93, 'know': 0.82,
    'knowledg': 0.93, 'kv': 0.24, 'larg': 0.6, 'last': 0.7, 'latency': 0.43, 'lay': 0.75,
    'least': 0.84, 'leav': 0.7, 'length': 0.52, 'level': 0.54, 'limit': 0.56, 'link': 0.72,
    'list': 0.59, 'liv': 0.9, 'llama': 0.43, 'llm': 0.65, 'load': 0.65, 'log': 0.7, 'long': 0.51,
    'look': 0.97, 'loop': 0.87, 'los': 0.77, 'lost': 0.9, 'low': 0.72, 'lowest': 0.97, 'map': 0.72,
    'max': 0.67, 'maximum': 0.84, 'may': 0.82, 'mean': 0.62, 'measur': 0.72, 'memory': 0.27,
    'metric': 0.54, 'mib': 0.93, 'mid': 0.93, 'minut': 0.7, 'mix': 0.73, 'ml': 0.87, 'mod': 0.93,
    'model': 0.41, 'mov': 0.67, 'ms': 0.63, 'multi': 0.9, 'must': 0.6, 'n': 0.87, 'nam': 0.48,
    'near': 0.9, 'nev': 0.67, 'new': 0.67, 'next': 0.65, 'nod': 0.75, 'not': 0.15, 'noth': 0.82,
    'now': 0.87, 'num': 0.8, 'numb': 0.43, 'onlin': 0.87, 'onsit': 0.87, 'open': 0.7,
    'openai': 0.77, 'operat': 0.9, 'ord': 0.68, 'output': 0.67, 'p50': 0.84, 'p95': 0.8,
    'p99': 0.5, 'pack': 0.9, 'pag': 0.63, 'pagedattent': 0.72, 'parallel': 0.73, 'part': 0.8,
    'pass': 0.93, 'peak': 0.6, 'per': 0.18, 'phon': 0.8, 'pick': 0.82, 'pitfall': 0.75,
    'plac': 0.67, 'plan': 0.77, 'platform': 0.7, 'plu': 0.5, 'point': 0.68, 'policy': 0.48,
    'pool': 0.93, 'post': 0.6, 'prachub': 0.72, 'practic': 0.87, 'precis': 0.87, 'preempt': 0.56,
    'prefill': 0.48, 'prefix': 0.73, 'prepar': 0.6, 'priority': 0.59, 'problem': 0.7,
    'process': 0.87, 'produc': 0.97, 'product': 0.97, 'prompt': 0.36, 'prov': 0.9, 'push': 0.9,
    'put': 0.73, 'quality': 0.82, 'quantiz': 0.65, 'query': 0.82, 'quest': 0.38, 'queu': 0.42,
    'quot': 0.93, 'rais': 0.93, 'rat': 0.64, 'rath': 0.57, 're': 0.84, 'reach': 0.97, 'read': 0.55,
    'real': 0.97, 'recommend': 0.77, 'recomput': 0.62, 'record': 0.82, 'reject': 0.82,
    'repair': 0.84, 'repeat': 0.93, 'replay': 0.82, 'replica': 0.64, 'report': 0.45,
    'request': 0.35, 'reserv': 0.59, 'restart': 0.75, 'result': 0.93, 'resum': 0.97, 'retry': 0.7,
    'return': 0.62, 'reus': 0.97, 'risk': 0.84, 'rol': 0.93, 'rollback': 0.84, 'room': 0.97,
    'rough': 0.72, 'round': 0.36, 'rout': 0.8, 'rul': 0.49, 'run': 0.58, 'runn': 0.67, 's': 0.15,
    'sampl': 0.97, 'sav': 0.87, 'scal': 0.93, 'scalabl': 0.93, 'schedul': 0.42, 'scor': 0.87,
    'screen': 0.77, 'search': 0.77, 'second': 0.56, 'see': 0.75, 'seed': 0.45, 'send': 0.93,
    'senior': 0.59, 'sentenc': 0.9, 'separat': 0.87, 'seq': 0.8, 'sequenc': 0.29, 'serv': 0.34,
    'servic': 0.68, 'set': 0.73, 'several': 0.84, 'shap': 0.93, 'shar': 0.41, 'short': 0.75,
    'show': 0.54, 'sid': 0.84, 'signal': 0.97, 'sinc': 0.77, 'singl': 0.62, 'sit': 0.97,
    'siz': 0.55, 'slot': 0.84, 'slow': 0.72, 'small': 0.68, 'sound': 0.97, 'sourc': 0.54,
    'spe': 0.8, 'spend': 0.9, 'split': 0.65, 'spread': 0.93, 'staf': 0.9, 'stag': 0.9,
    'start': 0.6, 'stat': 0.38, 'static': 0.84, 'stay': 0.82, 'step': 0.48, 'still': 0.8,
    'stop': 0.77, 'stor': 0.48, 'stream': 0.87, 'suit': 0.75, 'system': 0.36, 'tabl': 0.93,
    'tail': 0.59, 'tak': 0.62, 'target': 0.6, 'team': 0.9, 'tell': 0.9, 'tensor': 0.8,
    'test': 0.87, 'tflop': 0.97, 'tgi': 0.97, 'thre': 0.59, 'threshold': 0.9, 'throughput': 0.62,
    'tim': 0.28, 'timeout': 0.97, 'titl': 0.68, 'togeth': 0.84, 'token': 0.2, 'total': 0.87,
    'trad': 0.67, 'traffic': 0.62, 'train': 0.9, 'transform': 0.9, 'treat': 0.97, 'trig': 0.82,
    'trueinterview': 0.7, 'ttft': 0.75, 'turn': 0.75, 'twic': 0.97, 'two': 0.42, 'ups': 0.55,
    'usabl': 0.93, 'user': 0.62, 'utiliz': 0.75, 'valu': 0.47, 'versu': 0.84, 'victim': 0.87,
    'vllm': 0.6, 'vs': 0.54, 'wait': 0.45, 'wast': 0.9, 'week': 0.93, 'weight': 0.48, 'whol': 0.68,
    'whos': 0.84, 'win': 0.93, 'within': 0.72, 'without': 0.54, 'work': 0.26, 'writ': 0.41,
    'wrong': 0.6, 'x': 0.46,
}
# END COMMON_WEIGHTS


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
