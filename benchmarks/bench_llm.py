"""Benchmark the LLM voice against a local OpenAI-compatible server.

Prints, as medians over --runs interviewer replies (after one warm-up):
- time to first token (TTFT) and decode tokens per second of the app's path (`llm.speak`:
  prompt assembly from the template files, ChatOpenAI streaming, the deadline thread);
- the same for a raw `openai` client streaming the identical messages;
- the time the app adds per turn (target: under 50 ms), measured without server noise: both paths
  stream the same canned reply (as many chunks as the real reply had) from an in-process
  OpenAI-compatible SSE server that answers instantly, so app - raw is the app's own time:
  prompt assembly, ChatOpenAI, LangChain's chunk handling, the deadline thread. Prompt assembly
  alone and the client CPU time difference on the real server are shown too.

Against the real server both paths send the same kind of prompt with temperature 0 and the same
max_tokens; as in a real round, each request's last answer is new, so the server reuses the
cached persona and earlier turns and prefills the rest. Runs alternate between the paths. On llama.cpp one streamed chunk is one token. On a small shared machine the server's own
speed varies from run to run by more than the app's overhead, which is why the overhead is
measured against the canned server.

    python benchmarks/bench_llm.py                       # starts SmolLM2-135M on llama.cpp itself
    python benchmarks/bench_llm.py --base-url http://127.0.0.1:8000/v1 --model qwen2.5-7b-instruct
    python benchmarks/bench_llm.py --json
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from interviewer import llm  # noqa: E402
from interviewer.moves import Move, Passage  # noqa: E402
from interviewer.transcript import Turn  # noqa: E402

MOVE = Move(kind="probe", phase="deep_dive", ask="What happens when the KV cache cannot admit a new request?",
            criterion="scheduling_policy", acknowledgement="a capacity figure that checks out",
            facts=["Llama-3-8B fp16: 131,072 KV bytes per token; 60 GB free holds about 458k tokens"],
            passages=[Passage(doc_id="admission#1", title="Admission, preemption and cancellation",
                              source="vLLM docs", text="When the scheduler runs out of KV blocks it preempts "
                              "running sequences and recomputes them later, or queues new requests.")])
HISTORY = [
    Turn(role="interviewer", text="Design the serving system for a chat assistant on Llama-3-8B and H100s."),
    Turn(role="candidate", text="Weights are 16 GB in fp16 on an 80 GB H100. KV per token is 2 x 32 layers x 8 "
                                "KV heads x 128 x 2 bytes = 131,072 bytes, so a 4k-token sequence is 512 MiB and "
                                "about 60 GB free holds roughly 110 such sequences."),
    Turn(role="interviewer", text="Good. How do you batch requests?"),
    Turn(role="candidate", text="Continuous batching with max-num-seqs 64 and max-num-batched-tokens 8192 per "
                                "step, chunked prefill so long prompts do not stall decode."),
]


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def history(k: int | None) -> list[Turn]:
    """HISTORY, its last answer made unique for run k, as each turn of a real round is: the server
    can reuse the cached prefix (persona, earlier turns) but must prefill the rest."""
    if k is None:
        return HISTORY
    last = HISTORY[-1]
    return [*HISTORY[:-1], Turn(role=last.role, text=f"{last.text} (Variant {k}.)")]


def raw_messages(k: int | None) -> list[dict]:
    return [{"role": {"human": "user", "ai": "assistant"}.get(m.type, m.type), "content": m.content}
            for m in llm.build_messages(MOVE, history(k), "GPU inference serving", "Anthropic")]


def app_run(settings: llm.BackendSettings, k: int | None = None) -> dict:
    cpu0, t0 = time.process_time(), time.perf_counter()
    speech = llm.speak(settings, MOVE, history(k), "GPU inference serving", "Anthropic", "FALLBACK")
    first = None
    n = 0
    for _ in speech.chunks():
        if first is None:
            first = time.perf_counter()
        n += 1
    end = time.perf_counter()
    out = speech.outcome
    if out.source != "llm":
        raise SystemExit(f"the app path fell back: {out.notice}")
    return {"ttft": first - t0, "total": end - t0, "chunks": n, "cpu": time.process_time() - cpu0,
            "decode_tps": (n - 1) / (end - first) if n > 1 and end > first else float("nan")}


def raw_run(client, model: str, messages: list[dict], max_tokens: int) -> dict:
    cpu0, t0 = time.process_time(), time.perf_counter()
    stream = client.chat.completions.create(model=model, messages=messages, stream=True, temperature=0.0,
                                            max_tokens=max_tokens)
    first = None
    n = 0
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            if first is None:
                first = time.perf_counter()
            n += 1
    end = time.perf_counter()
    return {"ttft": first - t0, "total": end - t0, "chunks": n, "cpu": time.process_time() - cpu0,
            "decode_tps": (n - 1) / (end - first) if n > 1 and end > first else float("nan")}


class CannedServer:
    """An OpenAI-compatible server on 127.0.0.1 that streams a fixed reply instantly (SSE)."""

    def __init__(self, chunks: int):
        import http.server
        import threading

        body = b"".join(
            b"data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "canned",
                                    "choices": [{"index": 0, "delta": {"content": f" tok{i}"},
                                                 "finish_reason": None}]}).encode() + b"\n\n"
            for i in range(chunks))
        body += b"data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0,
                                        "model": "canned", "choices": [{"index": 0, "delta": {},
                                                                        "finish_reason": "stop"}]}).encode()
        body += b"\n\ndata: [DONE]\n\n"
        models = json.dumps({"object": "list", "data": [{"id": "canned", "object": "model"}]}).encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # quiet
                pass

            def _send(self, ctype: str, payload: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self):
                self._send("application/json", models)

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self._send("text/event-stream", body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def canned_overhead_ms(chunks: int, max_tokens: int, runs: int = 30) -> dict:
    """app - raw wall time per turn against the instant canned server (medians)."""
    import openai

    server = CannedServer(chunks)
    try:
        settings = llm.BackendSettings(backend="local", base_url=server.url, model="canned", timeout_s=30,
                                       max_retries=0, max_tokens=max_tokens, temperature=0.0)
        messages = raw_messages(None)
        client = openai.OpenAI(base_url=server.url, api_key="not-needed", timeout=30, max_retries=0)
        app_run(settings), raw_run(client, "canned", messages, max_tokens)   # warm-up
        apps, raws = [], []
        for _ in range(runs):
            apps.append(app_run(settings))
            raws.append(raw_run(client, "canned", messages, max_tokens))
        return {"chunks": chunks, "runs": runs,
                "app_total_ms": _median([r["total"] * 1000 for r in apps]),
                "raw_total_ms": _median([r["total"] * 1000 for r in raws]),
                "added_ms": _median([(a["total"] - r["total"]) * 1000 for a, r in zip(apps, raws)]),
                "added_ttft_ms": _median([(a["ttft"] - r["ttft"]) * 1000 for a, r in zip(apps, raws)])}
    finally:
        server.close()


def assembly_ms(repeat: int = 300) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        llm.build_messages(MOVE, HISTORY, "GPU inference serving", "Anthropic")
        times.append((time.perf_counter() - t0) * 1000)
    return _median(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base-url", default=os.environ.get("LLAMA_BASE_URL") or os.environ.get("OPENAI_BASE_URL"))
    p.add_argument("--model", default=os.environ.get("INTERVIEWER_MODEL"))
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--max-tokens", type=int, default=120)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)

    server, workdir = None, None
    if not args.base_url:
        sys.path.insert(0, str(ROOT / "tests"))
        from conftest_llm import llama_server_missing, start_llama_server, stop_llama_server

        reason = llama_server_missing()
        if reason:
            print(f"error: no --base-url and {reason}", file=sys.stderr)
            return 2
        # leave a core to the client, so the client's work does not stall the server's threads
        workdir = tempfile.TemporaryDirectory(prefix="bench-llm-")
        server = start_llama_server(Path(workdir.name), n_ctx=4096, threads=max(1, (os.cpu_count() or 2) - 1))
        args.base_url, args.model = server.base_url, args.model or server.model
    try:
        return _bench(args)
    finally:
        if server is not None:
            stop_llama_server(server)
        if workdir is not None:
            workdir.cleanup()


def _bench(args) -> int:
    import openai

    settings = llm.BackendSettings(backend="local", base_url=args.base_url, model=args.model, timeout_s=120,
                                   max_retries=0, max_tokens=args.max_tokens, temperature=0.0,
                                   api_key=os.environ.get("OPENAI_API_KEY") or None)
    model = llm.resolve_model(settings)
    settings = settings.model_copy(update={"model": model})
    client = openai.OpenAI(base_url=settings.endpoint, api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
                           timeout=120, max_retries=0)
    app_run(settings)   # warm-up: model load, the persona prefix in the cache, connection pool
    raw_run(client, model, raw_messages(None), args.max_tokens)
    apps, raws = [], []
    for i in range(args.runs):   # every request has a prompt of its own (see history())
        if i % 2:
            raws.append(raw_run(client, model, raw_messages(2 * i + 1), args.max_tokens))
            apps.append(app_run(settings, 2 * i))
        else:
            apps.append(app_run(settings, 2 * i))
            raws.append(raw_run(client, model, raw_messages(2 * i + 1), args.max_tokens))
    result = {
        "base_url": settings.endpoint, "model": model, "runs": args.runs, "max_tokens": args.max_tokens,
        "app": {"ttft_ms": _median([r["ttft"] * 1000 for r in apps]),
                "decode_tokens_per_s": _median([r["decode_tps"] for r in apps]),
                "total_ms": _median([r["total"] * 1000 for r in apps]),
                "chunks": _median([r["chunks"] for r in apps]),
                "client_cpu_ms": _median([r["cpu"] * 1000 for r in apps])},
        "raw": {"ttft_ms": _median([r["ttft"] * 1000 for r in raws]),
                "decode_tokens_per_s": _median([r["decode_tps"] for r in raws]),
                "total_ms": _median([r["total"] * 1000 for r in raws]),
                "chunks": _median([r["chunks"] for r in raws]),
                "client_cpu_ms": _median([r["cpu"] * 1000 for r in raws])},
        "real_server_difference": {
            "ttft_ms": _median([(a["ttft"] - r["ttft"]) * 1000 for a, r in zip(apps, raws)]),
            "total_ms": _median([(a["total"] - r["total"]) * 1000 for a, r in zip(apps, raws)]),
            "client_cpu_ms": _median([(a["cpu"] - r["cpu"]) * 1000 for a, r in zip(apps, raws)])},
    }
    canned = canned_overhead_ms(int(result["app"]["chunks"]), args.max_tokens)
    result["overhead"] = {"prompt_assembly_ms": assembly_ms(), **canned,
                          "under_50_ms": canned["added_ms"] < 50}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    a, r, o, d = result["app"], result["raw"], result["overhead"], result["real_server_difference"]
    print(f"server {result['base_url']}  model {model}  max_tokens {args.max_tokens}  "
          f"median of {args.runs} (after a warm-up)")
    print(f"{'':24}{'TTFT ms':>10}{'tok/s':>9}{'total ms':>10}{'tokens':>8}{'client CPU ms':>15}")
    for name, row in (("app (llm.speak)", a), ("raw openai client", r)):
        print(f"{name:24}{row['ttft_ms']:10.1f}{row['decode_tokens_per_s']:9.1f}{row['total_ms']:10.1f}"
              f"{row['chunks']:8.0f}{row['client_cpu_ms']:15.1f}")
    print(f"real server, app - raw (paired medians; includes the server's run-to-run noise): "
          f"TTFT {d['ttft_ms']:+.1f} ms, total {d['total_ms']:+.1f} ms, client CPU {d['client_cpu_ms']:+.1f} ms")
    print(f"time the app adds per turn (canned instant server, {o['chunks']} chunks, median of {o['runs']}): "
          f"{o['added_ms']:+.1f} ms ({o['added_ttft_ms']:+.1f} ms before the first token; "
          f"app {o['app_total_ms']:.1f} ms vs raw {o['raw_total_ms']:.1f} ms); "
          f"prompt assembly alone {o['prompt_assembly_ms']:.2f} ms — "
          f"{'under' if o['under_50_ms'] else 'OVER'} the 50 ms target")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
