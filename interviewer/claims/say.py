"""Figures as an interviewer would say them: "about 141 GB", "320 KiB", "about 110", "53 ms"."""
from __future__ import annotations

import math

_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 16: "sixteen"}


def sig(x: float, digits: int = 2) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, -int(math.floor(math.log10(abs(x)))) + (digits - 1))


def count(x: float) -> str:
    """A count rounded to two significant figures: 114 -> "110", 5000 -> "5,000", 3.4 -> "3"."""
    if x < 10:
        return f"{x:.0f}" if abs(x - round(x)) < 0.05 or x >= 3 else f"{x:.1f}"
    return f"{sig(x, 2):,.0f}"


def small(n: float) -> str:
    return _WORDS.get(int(n), f"{n:g}") if float(n).is_integer() else f"{n:g}"


def nbytes(b: float) -> str:
    """Bytes in the unit a person would use: 141 GB, 56 GB, 320 KiB, 590 MB."""
    if b >= 1e12:
        return f"{b / 1e12:.1f} TB"
    if b >= 1e9:
        v = b / 1e9
        return f"{v:.1f} GB" if v < 10 else f"{sig(v, 3) if v >= 100 else round(v):g} GB"
    if b >= 1e6:
        v = b / 1e6
        return f"{v:.1f} MB" if v < 10 else f"{round(v):g} MB"
    if b >= 1e3:
        if b % 1024 == 0:
            return f"{b / 1024:g} KiB"
        v = b / 1e3
        return f"{v:.1f} KB" if v < 10 else f"{round(v):g} KB"
    return f"{b:,.0f} bytes"


def ms(t: float) -> str:
    if t < 1:
        return f"{t * 1000:.0f} microseconds"
    if t < 1000:
        return f"{sig(t, 2):g} ms"
    s = t / 1000
    return f"{s:.1f} seconds" if s < 10 else f"{round(s):g} seconds"


def params(p: float) -> str:
    return f"{sig(p / 1e9, 3):g}B"


def gpus(n: int, gpu_label: str) -> str:
    word = small(n)
    return f"{word} {gpu_label}" + ("s" if n != 1 and not gpu_label.endswith("s") else "")
