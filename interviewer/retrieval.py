"""Grounding: the corpus in a Chroma vector store, and search over it.

Store: embedded (chromadb.PersistentClient under $INTERVIEWER_DATA_DIR/chroma, default
./.data/chroma) or a Chroma server (`chroma run`) when CHROMA_HOST (and CHROMA_PORT, default
8000) are set. One collection holds every record of interviewer.corpus; its metadata names the
embedder that built it, and a different embedder rebuilds it rather than mixing vectors.

`ingest()` is idempotent: each chunk's content hash sits in its metadata, so a second run embeds
nothing, an edited note re-embeds only its changed sections, and a deleted note's chunks go.
`search()` embeds the query with the same embedder (LangChain's Chroma store is given the
LangChain view of it), ingests on first use, refreshes when corpus files changed, and rebuilds a
missing or unreadable embedded store with a one-line message instead of failing.

Many sessions search at once (one per candidate's turn), so a search holds no process-wide lock:
the opened collection and its LangChain view are kept per (store, collection, embedder) and
queried concurrently. The lock is taken only to open, build or refresh a store; whether corpus
files changed is looked at most every REFRESH_CHECK_S seconds. The interviewer's queries come from
a finite set of moves, so results are kept too (RESULTS_KEPT, least recently used first out),
keyed by the collection's content (its id, corpus fingerprint and size): an edit, a rebuild or
another process's re-ingest is a new key.

chromadb and langchain are imported inside functions: importing this module is cheap.
"""
from __future__ import annotations

import shutil
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, TypeVar

from interviewer import config
from interviewer.bank import topics
from interviewer.corpus import Record, corpus_fingerprint, load_records
from interviewer.embeddings import Embedder, EmbedderSpec, spec_from_env
from interviewer.errors import UserError

COLLECTION = "interviewer_corpus"
STORE_SCHEMA = 1
CRITERION_BOOST = 0.1  # added to the similarity of passages tagged with the asked criterion
BATCH = 64
REFRESH_CHECK_S = 2.0  # how often a running server looks for edited corpus files before a search
RESULTS_KEPT = 4096    # search results remembered per process (a few KB each)

T = TypeVar("T")
_lock = threading.RLock()  # opening, building and refreshing stores; never held by a query
_clients: dict[str, Any] = {}
_ready: dict[tuple, "_Store"] = {}  # stores opened and checked, ready to query without the lock
_results: OrderedDict[tuple, list["Passage"]] = OrderedDict()
_results_lock = threading.Lock()  # held only to look up or record a result, never during a query


@dataclass
class Passage:
    doc_id: str
    title: str
    source: str
    score: float  # cosine similarity in 0..1, higher is better (+ criterion boost, capped at 1)
    text: str
    topics: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"doc_id": self.doc_id, "title": self.title, "source": self.source,
                "score": round(self.score, 4), "text": self.text, "topics": list(self.topics)}


@dataclass
class IngestStats:
    embedded: int = 0  # chunks embedded in this run (added + updated)
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    total: int = 0  # chunks in the store afterwards
    seconds: float = 0.0
    rebuilt: bool = False  # the store was (re)created from scratch in this run
    embedder: str = ""
    store: str = ""

    def to_json(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        return (f"{self.total} chunks in {self.store} ({self.embedder}): embedded {self.embedded} "
                f"({self.added} new, {self.updated} changed), {self.unchanged} unchanged, "
                f"{self.deleted} removed in {self.seconds:.2f}s")


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Clients
# ---------------------------------------------------------------------------------------------

def collection_name() -> str:
    """INTERVIEWER_COLLECTION (default interviewer_corpus): lets tests share one Chroma server."""
    import re

    name = (config.current().collection or COLLECTION).strip()
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]", name):
        raise UserError(f"INTERVIEWER_COLLECTION={name!r} is not a valid Chroma collection name "
                        "(3-512 letters, digits, '.', '_' or '-')")
    return name


def data_dir() -> Path:
    return config.current().data_dir


def _server() -> tuple[str, int] | None:
    settings = config.current()
    host = (settings.chroma_host or "").strip()
    if not host:
        return None
    port_s = settings.chroma_port.strip()
    try:
        port = int(port_s)
    except ValueError:
        raise UserError(f"CHROMA_PORT must be a number, got {port_s!r}") from None
    return host, port


def _store_path(base: Path | str | None) -> Path:
    return (Path(base) if base is not None else data_dir()).resolve() / "chroma"


def _settings():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False, allow_reset=False)


def _is_store_error(exc: BaseException) -> bool:
    """Errors that mean the store itself is broken (not our bug, not bad user input)."""
    import sqlite3

    from chromadb.errors import ChromaError

    if isinstance(exc, UserError):
        return False
    if isinstance(exc, (ChromaError, sqlite3.Error, OSError)):
        return True
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    return name == "PanicException" or module.startswith(("chromadb", "pyo3"))


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


def _forget_embedded(path: Path) -> None:
    """Drop Chroma's in-process handle on an embedded store so it can be reopened fresh."""
    from chromadb.api.shared_system_client import SharedSystemClient

    _clients.pop(f"path:{path}", None)
    _ready.clear()
    system = SharedSystemClient._identifier_to_system.pop(str(path), None)
    SharedSystemClient._identifier_to_refcount.pop(str(path), None)
    if system is not None:
        try:
            system.stop()
        except Exception:  # a broken system may fail to stop; it is discarded either way
            pass


def _wipe_embedded(path: Path, reason: str) -> None:
    _say(f"vector store at {path} is unreadable ({reason}); rebuilding it")
    _forget_embedded(path)
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
    except OSError as exc:
        raise UserError(f"cannot remove the broken vector store at {path}: "
                        f"{exc.strerror or exc}") from None


def get_client(data_dir: Path | str | None = None):
    """A Chroma client: HttpClient when CHROMA_HOST is set, else a PersistentClient at
    <data dir>/chroma (rebuilt with a one-line message if the files there are unreadable)."""
    import chromadb

    server = _server()
    with _lock:
        if server is not None:
            key = f"http:{server[0]}:{server[1]}"
            if key not in _clients:
                try:
                    _clients[key] = chromadb.HttpClient(host=server[0], port=server[1],
                                                        settings=_settings())
                except Exception as exc:
                    raise UserError(f"cannot reach the Chroma server at {server[0]}:{server[1]} "
                                    f"(CHROMA_HOST/CHROMA_PORT): {_one_line(exc)}") from None
            return _clients[key]
        path = _store_path(data_dir)
        key = f"path:{path}"
        if key in _clients:
            return _clients[key]
        if path.parent.exists() and not path.parent.is_dir():
            raise UserError(f"the data dir {path.parent} (INTERVIEWER_DATA_DIR) is a file, "
                            "not a folder")
        for attempt in (1, 2):
            if not path.is_dir() and not path.exists():
                try:
                    path.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise UserError(f"cannot create the vector store folder {path}: "
                                    f"{exc.strerror or exc}") from None
            try:
                if not path.is_dir():
                    raise OSError(f"{path} is a file, not a folder")
                client = chromadb.PersistentClient(path=str(path), settings=_settings())
                client.heartbeat()
                _clients[key] = client
                return client
            except Exception as exc:
                if attempt == 2 or not _is_store_error(exc):
                    raise UserError(f"cannot open the vector store at {path}: "
                                    f"{_one_line(exc)}") from None
                _wipe_embedded(path, _one_line(exc))
    raise AssertionError("unreachable")


# ---------------------------------------------------------------------------------------------
# The collection
# ---------------------------------------------------------------------------------------------

@dataclass
class _Store:
    client: Any
    collection: Any
    embedder: Embedder
    location: str
    created: bool
    total: int = 0                 # chunks in the collection when last checked
    checked_at: float = 0.0        # time.monotonic() of the last corpus check
    version: tuple = ()            # what the collection holds: (id, corpus fingerprint, size)
    vectorstore: Any = None        # LangChain's Chroma view, built once per opened store

    def langchain(self):
        if self.vectorstore is None:
            from langchain_chroma import Chroma

            self.vectorstore = Chroma(client=self.client, collection_name=self.collection.name,
                                      embedding_function=self.embedder.as_langchain(),
                                      create_collection_if_not_exists=False)
        return self.vectorstore


def _describe_location(data_dir: Path | str | None) -> str:
    server = _server()
    return f"chroma server {server[0]}:{server[1]}" if server else str(_store_path(data_dir))


def _collection_metadata(embedder: Embedder, extra: dict | None = None) -> dict:
    meta = {"embedder": embedder.key, "schema": STORE_SCHEMA, "built_by": "interviewer"}
    meta.update(extra or {})
    return meta


def _create(client, embedder: Embedder):
    return client.create_collection(
        collection_name(), embedding_function=embedder.as_chroma(),
        metadata=_collection_metadata(embedder),
        configuration={"hnsw": {"space": "cosine"}})


def _open_collection(client, embedder: Embedder) -> tuple[Any, bool]:
    """(collection, created); a collection built by another embedder is dropped and rebuilt."""
    from chromadb.errors import NotFoundError

    try:
        col = client.get_collection(collection_name(), embedding_function=embedder.as_chroma())
    except NotFoundError:
        return _create(client, embedder), True
    except ValueError as exc:
        if "conflict" not in str(exc).lower():
            raise
        old = "another embedder"
        col = None
    else:
        meta = col.metadata or {}
        if meta.get("embedder") == embedder.key and meta.get("schema") == STORE_SCHEMA:
            return col, False
        old = meta.get("embedder") or "an unknown embedder"
    _say(f"vector store was built with {old}; rebuilding it with {embedder.key}")
    client.delete_collection(collection_name())
    return _create(client, embedder), True


def _with_store(data_dir: Path | str | None, embedder: Embedder,
                fn: Callable[[_Store], T]) -> T:
    """Open the store and run fn; an unreadable embedded store is wiped and rebuilt once."""
    location = _describe_location(data_dir)
    for attempt in (1, 2):
        client = get_client(data_dir)
        try:
            col, created = _open_collection(client, embedder)
            col.count()
            return fn(_Store(client, col, embedder, location, created))
        except Exception as exc:
            if not _is_store_error(exc):
                raise
            if _server() is not None:
                raise UserError(f"the Chroma server at {location[len('chroma server '):]} "
                                f"failed: {_one_line(exc)}") from None
            if attempt == 2:
                raise UserError(f"vector store at {location} is unusable even after a rebuild: "
                                f"{_one_line(exc)}") from None
            _wipe_embedded(_store_path(data_dir), _one_line(exc))
    raise AssertionError("unreachable")


# ---------------------------------------------------------------------------------------------
# Ingest
# ---------------------------------------------------------------------------------------------

def _embedder(embedder: Embedder | EmbedderSpec | None) -> Embedder:
    if isinstance(embedder, Embedder):
        return embedder
    return Embedder(embedder or spec_from_env())


def _sync(store: _Store, records: list[Record], progress: bool, fingerprint: str) -> IngestStats:
    from tqdm import tqdm

    col = store.collection
    stats = IngestStats(embedder=store.embedder.key, store=store.location, rebuilt=store.created)
    got = col.get(include=["metadatas"])
    have = {i: (m or {}).get("content_hash") for i, m in zip(got["ids"], got["metadatas"])}
    want = {r.doc_id for r in records}
    stale = [i for i in have if i not in want]
    todo = [r for r in records if have.get(r.doc_id) != r.content_hash]
    stats.added = sum(1 for r in todo if r.doc_id not in have)
    stats.updated = len(todo) - stats.added
    stats.unchanged = len(records) - len(todo)
    if stale:
        col.delete(ids=stale)
        stats.deleted = len(stale)
    lc = store.embedder.as_langchain()
    show = bool(progress and todo)
    with tqdm(total=len(todo), desc="embedding corpus", unit="chunk", disable=not show,
              file=sys.stderr, leave=False) as bar:
        for start in range(0, len(todo), BATCH):
            batch = todo[start:start + BATCH]
            vectors = lc.embed_documents([r.embed_text for r in batch])
            col.upsert(ids=[r.doc_id for r in batch], embeddings=vectors,
                       documents=[r.text for r in batch], metadatas=[r.metadata() for r in batch])
            bar.update(len(batch))
    stats.embedded = len(todo)
    meta = dict(col.metadata or {})
    if meta.get("corpus_fingerprint") != fingerprint or todo or stale:
        col.modify(metadata=_collection_metadata(store.embedder,
                                                 {"corpus_fingerprint": fingerprint}))
    stats.total = col.count()
    return stats


def ingest(progress: bool = True, *, corpus_dir: Path | str | None = None,
           data_dir: Path | str | None = None,
           embedder: Embedder | EmbedderSpec | None = None) -> IngestStats:
    """Build or refresh the vector store from corpus/; returns what was (re-)embedded."""
    t0 = time.perf_counter()
    emb = _embedder(embedder)
    fingerprint = corpus_fingerprint(Path(corpus_dir) if corpus_dir is not None else None)
    records = load_records(Path(corpus_dir) if corpus_dir is not None else None)
    with _lock:
        stats = _with_store(data_dir, emb, lambda s: _sync(s, records, progress, fingerprint))
        _ready.clear()  # searches reopen the refreshed collection
    stats.seconds = time.perf_counter() - t0
    return stats


# ---------------------------------------------------------------------------------------------
# Search
# ---------------------------------------------------------------------------------------------

def _query(store: _Store, vector: list[float], n: int, where: dict | None) -> list[Passage]:
    hits = store.langchain().similarity_search_by_vector_with_relevance_scores(vector, k=n, filter=where)
    out = []
    for doc, distance in hits:
        meta = doc.metadata or {}
        sim = max(0.0, min(1.0, 1.0 - float(distance)))  # cosine distance -> similarity
        out.append(Passage(doc_id=doc.id or "", title=str(meta.get("title", "")),
                           source=str(meta.get("source", "")), score=sim,
                           text=doc.page_content, topics=list(meta.get("topics") or [])))
    return out


def _search_store(store: _Store, query: str, k: int, criterion: str | None,
                  strict: bool) -> list[Passage]:
    total = store.total
    if total == 0:
        return []
    vector = store.embedder.embed_query(query)  # once, for every query below
    if criterion is None:
        return _query(store, vector, min(k, total), None)
    where = {"topics": {"$contains": criterion}}
    if strict:
        return _query(store, vector, min(k, total), where)
    pool = {p.doc_id: p for p in _query(store, vector, min(max(3 * k, 10), total), None)}
    # The pool is the most similar passages overall, so when it holds k passages tagged with the
    # criterion it holds the k most similar tagged ones too; only otherwise ask for those apart.
    if sum(criterion in p.topics for p in pool.values()) < min(k, total):
        for p in _query(store, vector, min(k, total), where):
            pool.setdefault(p.doc_id, p)
    for p in pool.values():
        if criterion in p.topics:
            p.score = min(1.0, p.score + CRITERION_BOOST)
    return sorted(pool.values(), key=lambda p: -p.score)[:k]


def search(query: str, k: int = 3, criterion: str | None = None, *, strict: bool = False,
           refresh: bool = True, corpus_dir: Path | str | None = None,
           data_dir: Path | str | None = None,
           embedder: Embedder | EmbedderSpec | None = None) -> list[Passage]:
    """Top-k passages for a query, best first.

    criterion: a rubric criterion id; passages tagged with it are boosted (strict=True keeps
    only those). The store is built on first use; with refresh, a changed corpus folder is
    re-ingested (only its changed chunks are embedded) before searching.
    """
    q = " ".join((query or "").split())
    if not q:
        raise UserError("empty query: give a few words to search for, e.g. "
                        "'kv cache bytes per token'")
    if not isinstance(k, int) or k < 1:
        raise UserError(f"k must be a positive whole number, got {k!r}")
    if criterion is not None and criterion not in topics():
        raise UserError(f"unknown criterion {criterion!r}; known: {', '.join(topics())}")
    spec = embedder.spec if isinstance(embedder, Embedder) else (embedder or spec_from_env())
    cdir = Path(corpus_dir) if corpus_dir is not None else None
    settings = config.current()
    where = (f"{settings.chroma_host}:{settings.chroma_port}" if (settings.chroma_host or "").strip()
             else str(data_dir if data_dir is not None else settings.data_dir))
    key = (where, collection_name(), spec.key, str(cdir))

    def fresh() -> _Store | None:
        store = _ready.get(key)
        if store is None or (refresh and time.monotonic() - store.checked_at > REFRESH_CHECK_S):
            return None
        return store

    def prepare(store: _Store) -> _Store:
        count = store.collection.count()
        if count == 0:
            if store.created:
                _say(f"building the vector store at {store.location} from the corpus (first use)")
            else:
                _say(f"vector store at {store.location} is empty; building it from the corpus")
            _sync(store, load_records(cdir), False, corpus_fingerprint(cdir))
            count = store.collection.count()
        elif refresh:
            fingerprint = corpus_fingerprint(cdir)
            if (store.collection.metadata or {}).get("corpus_fingerprint") != fingerprint:
                _sync(store, load_records(cdir), False, fingerprint)
                count = store.collection.count()
        store.total, store.checked_at = count, time.monotonic()
        store.version = (str(store.collection.id), (store.collection.metadata or {}).get("corpus_fingerprint"), count)
        old = _ready.get(key)
        if old is not None and old.collection.id == store.collection.id:
            store.vectorstore = old.vectorstore  # the same collection: keep LangChain's view
        _ready[key] = store
        return store

    for attempt in (1, 2):
        store = fresh()
        if store is None:
            with _lock:  # one thread opens or refreshes; the others then find it ready
                emb = (embedder if isinstance(embedder, Embedder)
                       else _ready[key].embedder if key in _ready else _embedder(spec))
                store = fresh() or _with_store(data_dir, emb, prepare)
        memo = (key, store.version, q, k, criterion, strict)
        with _results_lock:
            kept = _results.get(memo)
            if kept is not None:
                _results.move_to_end(memo)
        if kept is not None:
            return [replace(p, topics=list(p.topics)) for p in kept]  # callers may change their copies
        try:
            found = _search_store(store, q, k, criterion, strict)
        except Exception as exc:
            if not _is_store_error(exc):
                raise
            _ready.pop(key, None)  # e.g. the collection was rebuilt by another process: reopen it
            if attempt == 2:
                raise UserError(f"search in the vector store at {store.location} failed: "
                                f"{_one_line(exc)}") from None
            continue
        with _results_lock:
            _results[memo] = [replace(p, topics=list(p.topics)) for p in found]
            while len(_results) > RESULTS_KEPT:
                _results.popitem(last=False)
        return found
    raise AssertionError("unreachable")


def reset_clients() -> None:
    """Forget cached clients (tests switch data dirs and servers between cases)."""
    with _lock:
        for key in list(_clients):
            if key.startswith("path:"):
                _forget_embedded(Path(key[len("path:"):]))
        _clients.clear()
        _ready.clear()
    with _results_lock:
        _results.clear()
