"""The command line: a thin shell over the library. Every failure is one line on stderr and a non-zero
exit (2 for bad input or usage, 1 for anything unexpected), never a traceback or the usage text.
Input files are read through interviewer.transcript.read_input: at most 2 MB, checked before reading."""
from __future__ import annotations

import argparse
import json
import sys

from interviewer.errors import UserError


def _print_json(obj) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False))


def run_grade(args) -> int:
    from interviewer.grader import grade
    from interviewer.report import to_json, to_markdown
    from interviewer.transcript import load_transcript

    report = grade(load_transcript(args.file))
    if args.json:
        _print_json(to_json(report))
    else:
        print(to_markdown(report))
    return 0


def run_questions(args) -> int:
    from interviewer.bank import load_bank

    bank = load_bank()
    questions = bank.for_company(args.company) if args.company else bank.questions
    rows = [{"id": q.id, "title": q.title, "companies": q.companies, "format": q.format,
             "rounds": q.rounds, "family": q.family, "last_reported": q.last_reported,
             "writeups": q.writeups} for q in questions]
    if args.json:
        _print_json(rows)
        return 0
    width = max((len(r["id"]) for r in rows), default=2)
    for r in rows:
        rounds = ", ".join(r["rounds"]) or "-"
        print(f"{r['id']:<{width}}  {r['title']}\n{'':<{width}}  {r['format']} | {', '.join(r['companies'])} | {rounds}")
    return 0


def run_replay(args) -> int:
    from interviewer.replay import replay
    from interviewer.report import to_json, to_markdown
    from interviewer.transcript import load_transcript

    result = replay(load_transcript(args.file), backend=args.backend)
    if args.json:
        _print_json({"turns": [t.model_dump() for t in result.turns], "report": to_json(result.report),
                     "notices": result.notices})
        return 0
    from interviewer.report import strip_controls

    for t in result.turns:  # a transcript's text never drives the terminal (no ESC sequences)
        print(f"[{t.role}] {strip_controls(t.text)}\n")
    for n in result.notices:
        print(f"notice: {' '.join(strip_controls(n).split())}", file=sys.stderr)
    print(to_markdown(result.report))
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (not the usage text): subcommands inherit it."""

    def error(self, message: str):
        self.exit(2, f"error: {' '.join(message.split())} (see: {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    from interviewer import cli_retrieval, cli_tools

    parser = _Parser(prog="python -m interviewer",
                                     description="Mock LLM-inference and GPU-serving design rounds.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("grade", help="grade a transcript (JSON file) against the rubric")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(func=run_grade)

    p = sub.add_parser("replay", help="play a transcript's candidate turns against the interviewer")
    p.add_argument("file")
    p.add_argument("--json", action="store_true")
    p.add_argument("--backend", choices=["offline", "openai", "local"], default="offline")
    p.set_defaults(func=run_replay)

    p = sub.add_parser("questions", help="list the question bank")
    p.add_argument("--company")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_questions)

    cli_retrieval.add_ingest_parser(sub)
    cli_retrieval.add_search_parser(sub)
    cli_tools.add_capacity_parser(sub)
    cli_tools.add_simulate_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args) or 0
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except RecursionError:
        print("error: the input is nested too deeply to process", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: out of memory; the input is too large", file=sys.stderr)
        return 1
    except Exception as exc:  # last line of defence: a one-line message, never a traceback
        print(f"error: unexpected {type(exc).__name__}: {' '.join(str(exc).split())[:300]}", file=sys.stderr)
        return 1
