"""`python -m interviewer ingest` and `python -m interviewer search` (wired in by interviewer.cli).

Both raise interviewer.errors.UserError on bad input; the main CLI prints it as `error: ...`.
"""
from __future__ import annotations

import argparse
import json
import sys
import textwrap


def add_ingest_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "ingest", help="build or refresh the vector store from corpus/",
        description="Build or refresh the vector store from corpus/ (idempotent: a second run "
                    "with no change embeds nothing). Uses a Chroma server when CHROMA_HOST is "
                    "set, else $INTERVIEWER_DATA_DIR/chroma (default ./.data/chroma).")
    p.add_argument("--json", action="store_true", help="print the ingest statistics as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run_ingest)
    return p


def run_ingest(args: argparse.Namespace) -> int:
    from interviewer.retrieval import ingest

    show = not getattr(args, "no_progress", False) and not getattr(args, "json", False)
    stats = ingest(progress=show)
    if getattr(args, "json", False):
        print(json.dumps(stats.to_json(), indent=2))
    else:
        print(stats.summary())
    return 0


def add_search_parser(subparsers) -> argparse.ArgumentParser:
    from interviewer.bank import topics as known_topics

    topics = known_topics()
    p = subparsers.add_parser(
        "search", help="search the corpus vector store",
        description="Print the top passages for a query (builds the store on first use).")
    p.add_argument("query", help="what to look for, in your own words")
    p.add_argument("--k", type=int, default=3, help="how many passages (default 3)")
    p.add_argument("--criterion", choices=topics, default=None,
                   help="boost passages tagged with this rubric criterion (or 'pitfalls')")
    p.add_argument("--strict", action="store_true",
                   help="with --criterion: only passages tagged with it")
    p.add_argument("--json", action="store_true",
                   help='print [{"doc_id", "title", "source", "score", "text"}, ...]')
    p.set_defaults(func=run_search)
    return p


def run_search(args: argparse.Namespace) -> int:
    from interviewer.retrieval import search

    passages = search(args.query, k=args.k, criterion=getattr(args, "criterion", None),
                      strict=getattr(args, "strict", False))
    if args.json:
        print(json.dumps([p.to_json() for p in passages], indent=2, ensure_ascii=False))
        return 0
    if not passages:
        print("no passages (the corpus is empty)")
        return 0
    for n, p in enumerate(passages, 1):
        print(f"{n}. [{p.score:.3f}] {p.title}")
        print(f"   id: {p.doc_id}   source: {p.source}")
        body = " ".join(p.text.split())
        if len(body) > 400:
            body = body[:397].rsplit(" ", 1)[0] + " ..."
        print(textwrap.fill(body, width=100, initial_indent="   ", subsequent_indent="   "))
        if n < len(passages):
            print()
    sys.stdout.flush()
    return 0
