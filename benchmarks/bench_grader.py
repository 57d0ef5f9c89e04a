"""Grader benchmark: calibration agreement, and the time to grade a 45-minute (40-turn) transcript.

Run: python benchmarks/bench_grader.py
"""
from __future__ import annotations

import platform
import statistics
import sys
import time
from pathlib import Path


from interviewer.calibration import agreement, load_cases  # noqa: E402
from interviewer.evidence import _breaks, scan_turn  # noqa: E402
from interviewer.grader import grade  # noqa: E402
from interviewer.transcript import parse_transcript  # noqa: E402


def long_transcript(cases, turns=40, words=8000):
    """40 turns, about 8,000 words, built from the calibration answers (serving family)."""
    answers = [t["text"] for c in cases if c.report.family == "serving"
               for t in c.data["turns"] if t["role"] == "candidate"]
    out, total, i = [], 0, 0
    per_turn = words // (turns // 2)
    while len(out) < turns:
        text = ""
        while len(text.split()) < per_turn:
            text += " " + answers[i % len(answers)]
            i += 1
        out += [{"role": "interviewer", "text": "Go on - what next?"}, {"role": "candidate", "text": text.strip()}]
        total += len(text.split())
    return parse_transcript({"question_id": "gpu-inference-serving", "turns": out}), total


def main() -> None:
    t0 = time.perf_counter()
    cases = load_cases()
    load_s = time.perf_counter() - t0
    a = agreement(cases)
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python {platform.python_version()}")
    print(f"calibration transcripts: {len(cases)} (loaded and graded in {load_s:.2f} s, first run includes imports)")
    print(f"per-criterion agreement: exact {a.exact}/{a.total} = {a.exact_rate:.1%}, "
          f"within one level {a.within_one}/{a.total} = {a.within_one / max(a.total, 1):.1%}")
    print(f"pitfalls: {a.pitfall_tp} agreed, {a.pitfall_fp} extra, {a.pitfall_fn} missed")
    for m in a.misses:
        print(f"  off by one: {m}")
    transcript, words = long_transcript(cases)
    grade(transcript)  # warm caches (rubric, presets, compiled regexes)
    times = []
    for _ in range(15):
        _breaks.cache_clear()  # no per-text cache hits across runs: each run is a fresh transcript
        scan_turn.cache_clear()
        t = time.perf_counter()
        grade(transcript)
        times.append((time.perf_counter() - t) * 1000)
    print(f"grade a {len(transcript.turns)}-turn, {words:,}-word transcript: median {statistics.median(times):.1f} ms, "
          f"max {max(times):.1f} ms over {len(times)} runs (target < 200 ms)")


if __name__ == "__main__":
    main()
