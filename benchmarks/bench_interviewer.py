"""How the built-in interviewer holds a 45-minute round: scripted candidates, the browser's path.

For every design question in the bank, three scripted candidates (strong, weak, wrong numbers)
give 30 answers each over 45 minutes through interviewer.session.Session, exactly as the browser
does, and the round is measured (interviewer.scripted.measure):

  distinct    substantive questions before the wrap-up          target >= 25
  repeats     questions asked twice (same key or same words)     target 0
  wrap-ups    wrap-up questions asked                            target 1
  planted     planted wrong figures challenged                   target >= 90%
  false attr  turns attributing words the candidate never said   target 0
  praise      praise right after an answer with a wrong figure   target 0
  raised      topics the candidate raised that the round visited target >= 80%

    python benchmarks/bench_interviewer.py [--answers 30] [--json]
"""
from __future__ import annotations

import argparse
import json
import time

from interviewer.scripted import design_questions, measure, play

PERSONAS = ("strong", "weak", "wrong")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=int, default=30)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows, started = [], time.perf_counter()
    for qid in design_questions():
        for persona in PERSONAS:
            t0 = time.perf_counter()
            row = measure(play(qid, persona, answers=args.answers))
            row["seconds"] = round(time.perf_counter() - t0, 2)
            rows.append(row)
    total = {
        "rounds": len(rows),
        "min_distinct_before_wrap_up": min(r["distinct_questions_before_wrap_up"] for r in rows),
        "repeated_questions": sum(r["repeated_questions"] for r in rows),
        "rounds_with_one_wrap_up": sum(r["wrap_ups"] == 1 for r in rows),
        "planted_challenged": f"{sum(r['planted_challenged'] for r in rows)}/{sum(r['planted'] for r in rows)}",
        "false_attributions": sum(r["false_attributions"] for r in rows),
        "praise_for_wrong": sum(r["praise_for_wrong"] for r in rows),
        "raised_topics_visited": f"{sum(r['raised_topics_visited'] for r in rows)}/{sum(r['topics_raised'] for r in rows)}",
        "challenges_of_strong_candidates": sum(r["challenges"] for r in rows if r["persona"] == "strong"),
        "seconds": round(time.perf_counter() - started, 1),
    }
    if args.json:
        print(json.dumps({"rounds": rows, "total": total}, indent=2))
        return 0
    head = f"{'question':26} {'persona':7} {'distinct':>8} {'repeats':>7} {'wrap-ups':>8} {'planted':>8} " \
           f"{'false attr':>10} {'praise':>6} {'raised':>7} {'challenges':>10}"
    print(head)
    for r in rows:
        planted = f"{r['planted_challenged']}/{r['planted']}" if r["planted"] else "-"
        raised = f"{r['raised_topics_visited']}/{r['topics_raised']}" if r["topics_raised"] else "-"
        print(f"{r['question_id']:26} {r['persona']:7} {r['distinct_questions_before_wrap_up']:>8} "
              f"{r['repeated_questions']:>7} {r['wrap_ups']:>8} {planted:>8} {r['false_attributions']:>10} "
              f"{r['praise_for_wrong']:>6} {raised:>7} {r['challenges']:>10}")
    print()
    for k, v in total.items():
        print(f"{k:34} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
