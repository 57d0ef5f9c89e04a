"""The grade, replay and questions commands on hostile input: an endless or huge file is refused
before it is read, deep nesting, NaN and Infinity are one clear line, usage errors are one line,
and a transcript's control characters never reach the terminal. Every error: one line on stderr,
a non-zero exit, no traceback."""
from __future__ import annotations

import json
import os
import time

import pytest
from conftest import run_cli

from interviewer import cli
from interviewer.transcript import MAX_INPUT_BYTES

QID = "gpu-inference-serving"
GOOD_TURNS = [{"role": "interviewer", "text": "Where would you start?"},
              {"role": "candidate", "text": "Continuous batching with max 128 sequences and p99 TTFT of 800 ms."}]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """`python -m interviewer ARGV` in this process (fast); usage errors exit like argparse does."""
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err: str, needle: str) -> None:
    assert code not in (0, None), err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert needle in err, err
    assert "Traceback" not in err and "usage:" not in err and "unexpected" not in err


@pytest.mark.parametrize("command", ["grade", "replay"])
def test_an_endless_file_is_refused_fast(capsys, command):
    t0 = time.monotonic()
    code, _, err = run(capsys, command, "/dev/zero")
    assert time.monotonic() - t0 < 5
    one_line_error(code, err, "larger than 2 MB")


def test_a_huge_file_is_refused_before_reading(tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(50 * 10**9)  # 50 GB, sparse: reading it would take minutes and all the memory

    def no_read(*a, **k):
        raise AssertionError("the file was opened")

    monkeypatch.setattr("builtins.open", no_read)
    code, _, err = run(capsys, "grade", str(big))
    one_line_error(code, err, "50000.0 MB; a transcript file may be at most 2 MB")


def test_just_under_the_cap_is_read(tmp_path, capsys):
    f = tmp_path / "t.json"
    body = json.dumps({"question_id": QID, "turns": GOOD_TURNS, "padding": ""})
    f.write_text(body[:-2] + " " * (MAX_INPUT_BYTES - len(body)) + '"}')
    assert f.stat().st_size == MAX_INPUT_BYTES
    code, out, err = run(capsys, "grade", str(f), "--json")
    assert code == 0, err
    assert json.loads(out)["question_id"] == QID


@pytest.mark.parametrize("command", ["grade", "replay"])
@pytest.mark.parametrize("content, needle", [
    ('{"question_id": "x", "turns": ' + "[" * 200_000 + "]" * 200_000 + "}", "nested too deeply"),
    ('{"question_id": "x", "turns": [], "extra": ' + "[" * 100 + "]" * 100 + "}", "nested too deeply"),
    ('{"question_id": "x", "turns": [{"role": "candidate", "text": NaN}]}', "NaN is not a JSON number"),
    ('{"question_id": "x", "turns": [], "x": Infinity}', "Infinity is not a JSON number"),
    ('{"question_id": "x", "turns": [], "x": -Infinity}', "-Infinity is not a JSON number"),
    ('{"question_id": "x", "turns": [], "x": 1e999}', "the number 1e999 is out of range"),
    ('{"question_id": "x", "turns": [], "x": 1' + "0" * 5000 + "}", "invalid JSON"),
    ('{"question_id": "x", "turns": [{"role": "candidate", "text": 12}]}', "turns.0.text"),
])
def test_hostile_json_is_one_line(tmp_path, capsys, command, content, needle):
    f = tmp_path / "t.json"
    f.write_text(content)
    code, _, err = run(capsys, command, str(f))
    one_line_error(code, err, needle)


def test_other_bad_files_are_one_line(tmp_path, capsys):
    f = tmp_path / "latin1.json"
    f.write_bytes('{"question_id": "caf\xe9"}'.encode("latin-1"))
    one_line_error(*run(capsys, "grade", str(f))[::2], "not UTF-8 text")
    one_line_error(*run(capsys, "grade", str(tmp_path))[::2], "is a directory")
    one_line_error(*run(capsys, "replay", str(tmp_path / "missing.json"))[::2], "no such file")
    if os.geteuid() != 0:  # root reads anything
        locked = tmp_path / "locked.json"
        locked.write_text("{}")
        locked.chmod(0)
        one_line_error(*run(capsys, "grade", str(locked))[::2], "cannot read")


def test_a_bom_is_accepted(tmp_path, capsys):
    f = tmp_path / "t.json"
    f.write_bytes(b"\xef\xbb\xbf" + json.dumps({"question_id": QID, "turns": GOOD_TURNS}).encode())
    code, out, err = run(capsys, "grade", str(f), "--json")
    assert code == 0, err


@pytest.mark.parametrize("argv, needle", [
    (["grade"], "the following arguments are required: file"),
    (["grade", "x.json", "--bogus"], "unrecognized arguments: --bogus"),
    (["replay", "x.json", "--backend", "nope"], "invalid choice: 'nope'"),
    (["nope"], "invalid choice: 'nope'"),
])
def test_usage_errors_are_one_line(capsys, argv, needle):
    code, _, err = run(capsys, *argv)
    assert code == 2
    one_line_error(code, err, needle)
    assert "--help" in err


def test_control_characters_never_reach_the_terminal(tmp_path, capsys):
    f = tmp_path / "t.json"
    evil = "Continuous batching with max 128 sequences \x1b]0;pwned\x07\x1b[2J and p99 TTFT 800 ms."
    f.write_text(json.dumps({"question_id": QID, "turns": [{"role": "candidate", "text": evil}]}))
    for command in ("grade", "replay"):
        code, out, err = run(capsys, command, str(f))
        assert code == 0, err
        assert "\x1b" not in out + err and "\x07" not in out + err, command


def test_as_a_real_process_no_traceback(tmp_path):
    """The same through `python -m interviewer`, as a user runs it."""
    f = tmp_path / "deep.json"
    f.write_text("[" * 500_000 + "]" * 500_000)
    for args in (["grade", "/dev/zero"], ["replay", str(f)], ["questions", "--company"]):
        p = run_cli(*args, timeout=60)
        assert p.returncode != 0 and p.stderr.startswith("error: ") and p.stderr.count("\n") == 1, (args, p.stderr)
        assert "Traceback" not in p.stderr


def test_a_turn_longer_than_the_app_allows_is_refused(tmp_path, capsys):
    from interviewer.round import ANSWER_LIMIT_CHARS

    f = tmp_path / "t.json"
    long_turn = {"role": "candidate", "text": "max 128 sequences " * (ANSWER_LIMIT_CHARS // 18 + 1)}
    f.write_text(json.dumps({"question_id": QID, "turns": GOOD_TURNS + [long_turn]}))
    t0 = time.monotonic()
    code, _, err = run(capsys, "grade", str(f))
    one_line_error(code, err, f"turns.2.text is {len(long_turn['text']):,} characters")
    assert time.monotonic() - t0 < 5
