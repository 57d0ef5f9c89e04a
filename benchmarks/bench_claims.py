"""How long the claim ledger takes on a 40-turn transcript (built from the calibration set).

    python benchmarks/bench_claims.py [--turns 40] [--repeat 15]

Prints the median and best CPU time of build_ledger, cold (name matching not cached) and warm.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interviewer.claims import build_ledger, segments  # noqa: E402


def transcript(n: int) -> list[tuple[str, str]]:
    turns: list[tuple[str, str]] = []
    for path in sorted((ROOT / "tests" / "calibration").glob("*.json")):
        turns += [(t["role"], t["text"]) for t in json.loads(path.read_text())["turns"]]
        if len(turns) >= n:
            break
    return turns[:n]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    turns = transcript(args.turns)
    build_ledger(turns)  # load the vocabulary and presets once, as a running app has
    cold, warm = [], []
    for _ in range(args.repeat):
        segments._names.cache_clear()
        t = time.process_time()
        led = build_ledger(turns)
        cold.append((time.process_time() - t) * 1000)
        t = time.process_time()
        build_ledger(turns)
        warm.append((time.process_time() - t) * 1000)
    chars = sum(len(t) for _r, t in turns)
    print(f"{len(turns)} turns, {chars:,} characters, {len(led.claims)} claims "
          f"({len(led.checked())} checked, {len(led.wrong())} wrong)")
    print(f"cold: median {statistics.median(cold):.1f} ms, best {min(cold):.1f} ms")
    print(f"warm: median {statistics.median(warm):.1f} ms, best {min(warm):.1f} ms")


if __name__ == "__main__":
    main()
