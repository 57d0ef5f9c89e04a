"""Retrieval benchmark: recall@1, recall@3 and query latency over tests/data/retrieval_queries.yaml.

    python benchmarks/bench_retrieval.py [--repeat 5] [--misses] [--json] [--server]

Builds a fresh store from corpus/ in a temporary data dir (the embedded store; with --server, the
Chroma server named by CHROMA_HOST/CHROMA_PORT in a throwaway collection), timing the cold
ingest and a no-change re-ingest, then runs every query `--repeat` times through
interviewer.retrieval.search and reports recall and latency percentiles. The embedder is the one
the settings select (INTERVIEWER_EMBEDDINGS, default the offline hashing embedder).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

QUERIES = ROOT / "tests" / "data" / "retrieval_queries.yaml"


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-p * len(ordered) // 100))))
    return ordered[rank - 1]


def is_hit(doc_id: str, expected: list[str]) -> bool:
    return any(doc_id == e or doc_id.split("#", 1)[0] == e for e in expected)


def derive_weights(write: bool) -> int:
    """Print the COMMON_WEIGHTS table derived from corpus/, or write it into embedder_tables.yaml."""
    import yaml

    from interviewer import embeddings
    from interviewer.corpus import load_records

    weights = embeddings.derive_common_weights([r.embed_text for r in load_records()])
    if not write:
        print(yaml.safe_dump({"common_weights": weights}, width=110, default_flow_style=None), end="")
        return 0
    path = Path(embeddings.__file__).with_name("embedder_tables.yaml")
    text = path.read_text(encoding="utf-8")
    head = text[: text.index("\ncommon_weights:") + 1]  # the key at the start of a line, not in the comments
    path.write_text(head + yaml.safe_dump({"common_weights": weights}, width=110, default_flow_style=None),
                    encoding="utf-8")
    print(f"rewrote common_weights in {path}; bump HASH_VERSION in embeddings.py if the vectors changed")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=Path, default=QUERIES)
    ap.add_argument("--repeat", type=int, default=5, help="timed passes over the query set")
    ap.add_argument("--misses", action="store_true", help="list queries missed at 3")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--server", action="store_true",
                    help="use the Chroma server in CHROMA_HOST/CHROMA_PORT")
    ap.add_argument("--derive-weights", action="store_true",
                    help="print the embedder's COMMON_WEIGHTS table derived from corpus/")
    ap.add_argument("--write-weights", action="store_true",
                    help="rewrite common_weights in interviewer/embedder_tables.yaml from corpus/ "
                         "(then bump HASH_VERSION there)")
    args = ap.parse_args(argv)
    if args.derive_weights or args.write_weights:
        return derive_weights(write=args.write_weights)

    import yaml

    queries = yaml.safe_load(args.queries.read_text(encoding="utf-8"))["queries"]
    tmp = tempfile.TemporaryDirectory(prefix="bench-retrieval-")
    os.environ["INTERVIEWER_DATA_DIR"] = tmp.name
    if args.server:
        if not os.environ.get("CHROMA_HOST"):
            ap.error("--server needs CHROMA_HOST (and CHROMA_PORT)")
        os.environ["INTERVIEWER_COLLECTION"] = f"bench-{uuid.uuid4().hex[:10]}"
    else:
        os.environ.pop("CHROMA_HOST", None)
        os.environ.pop("CHROMA_PORT", None)

    t0 = time.perf_counter()
    from interviewer import retrieval  # noqa: E402  (import time is part of the cold start)

    import_s = time.perf_counter() - t0
    cold = retrieval.ingest(progress=False)
    warm = retrieval.ingest(progress=False)

    sets = sorted({q.get("set", "tune") for q in queries}, key=lambda n: (n != "tune", n))
    per_set = {n: {"queries": 0, "hit1": 0, "hit3": 0} for n in sets}
    misses = []
    latencies: list[float] = []
    for rep in range(max(1, args.repeat)):
        for q in queries:
            t = time.perf_counter()
            got = retrieval.search(q["query"], k=3, refresh=False)
            latencies.append(time.perf_counter() - t)
            if rep:
                continue
            ids = [p.doc_id for p in got]
            row = per_set[q.get("set", "tune")]
            row["queries"] += 1
            row["hit1"] += bool(ids) and is_hit(ids[0], q["expect"])
            if any(is_hit(d, q["expect"]) for d in ids):
                row["hit3"] += 1
            else:
                misses.append({"query": q["query"], "set": q.get("set", "tune"),
                               "expect": q["expect"], "got": ids})

    n = len(queries)
    hits1 = sum(r["hit1"] for r in per_set.values())
    hits3 = sum(r["hit3"] for r in per_set.values())
    result = {
        "embedder": cold.embedder,
        "store": "server" if args.server else "embedded",
        "queries": n,
        "chunks": cold.total,
        "recall_at_1": round(hits1 / n, 3),
        "recall_at_3": round(hits3 / n, 3),
        "by_set": {name: {"queries": r["queries"],
                          "recall_at_1": round(r["hit1"] / r["queries"], 3),
                          "recall_at_3": round(r["hit3"] / r["queries"], 3)}
                   for name, r in per_set.items()},
        "latency_ms_p50": round(1000 * percentile(latencies, 50), 2),
        "latency_ms_p99": round(1000 * percentile(latencies, 99), 2),
        "latency_ms_mean": round(1000 * statistics.fmean(latencies), 2),
        "ingest_cold_s": round(cold.seconds, 3),
        "ingest_nochange_s": round(warm.seconds, 3),
        "ingest_nochange_embedded": warm.embedded,
        "import_s": round(import_s, 3),
        "misses": misses,
    }
    if args.server:
        try:
            retrieval.get_client().delete_collection(retrieval.collection_name())
        except Exception:  # best effort cleanup of the throwaway collection
            pass
    retrieval.reset_clients()
    tmp.cleanup()

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"embedder          {result['embedder']} ({result['store']} store)")
    print(f"corpus            {result['chunks']} chunks, {n} queries")
    print(f"recall@1          {result['recall_at_1']:.3f}   (all {n} queries)")
    print(f"recall@3          {result['recall_at_3']:.3f}")
    for name, r in result["by_set"].items():
        print(f"  {name:<15} {r['queries']:>3} queries: recall@1 {r['recall_at_1']:.3f}, "
              f"recall@3 {r['recall_at_3']:.3f}")
    print(f"query latency     p50 {result['latency_ms_p50']:.1f} ms, "
          f"p99 {result['latency_ms_p99']:.1f} ms ({len(latencies)} searches)")
    print(f"ingest            cold {result['ingest_cold_s']:.2f} s, no-change "
          f"{result['ingest_nochange_s']:.2f} s (embedded {warm.embedded})")
    if args.misses:
        for m in misses:
            print(f"miss ({m['set']}): {m['query']!r}\n      expected {m['expect']}\n"
                  f"      got      {m['got']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
