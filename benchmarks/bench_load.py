"""Many candidates at once: N sessions holding real rounds against `streamlit run app.py`.

Run: python benchmarks/bench_load.py                      # N = 1, 5, 10, 20, 40, one table
     python benchmarks/bench_load.py --sessions 20 --json  # one run, one JSON object
     python benchmarks/bench_load.py --processes 2         # two app processes on this box
     python benchmarks/bench_load.py --processes 2 --chroma server --database-url postgresql+psycopg://...

Each session is a protocol-level client (no browser, no rendering): it speaks Streamlit's own
websocket protocol (BackMsg / ForwardMsg protobufs over /_stcore/stream), as the browser does.
It signs in through the app's st.login against a mock OpenID Connect provider that this script
starts on 127.0.0.1 (oidc-provider-mock; each session is its own subject), clicks "Start the
round", then sends ANSWERS answers through the chat input. A turn is timed from the answer sent
to the end of the script run that replies (ForwardMsg script_finished). Sessions answer at the
same time: with --think 0 (the default) each sends its next answer as soon as the reply is in,
which is harsher than any person typing. A browser's 10-second clock tick (the round page's
fragment) is replayed too, between turns.

Server CPU is the app processes' user + system time (from /proc) over the answering phase.
Afterwards the store is read back: every answer and every reply must be stored exactly once, in
the round of the session that sent it, owned by that session's user; `lost` counts the ones
missing or duplicated.

With --processes 2 the sessions are spread over two app processes (sticky: a session stays on
its process, as behind a proxy with sticky sessions, whose own cost is left out). They share one
database (a SQLite file on this box, or --database-url) and either each keep a copy of the
embedded vector store (the corpus is read-only) or share a Chroma server (--chroma server starts
one here, as in docs/deploy.md).

Target (issue 15): 20 concurrent sessions on a 2-core machine with turn p95 < 1 s.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlparse

ROOT = Path(__file__).resolve().parent.parent
SERIES = [1, 5, 10, 20, 40]
TARGET_SESSIONS, TARGET_P95_S = 20, 1.0
ANSWERS = [
    "Memory first. Llama-3-8B in fp16 on one H100 80GB: weights about 16 GB, KV per token is 2 x 32 layers "
    "x 8 KV heads x 128 x 2 bytes = 131,072 bytes, so about 57 concurrent sequences at 8,192 tokens.",
    "We'd use continuous batching so the GPU stays busy.",
    "Continuous batching with max_num_seqs 64 and max_num_batched_tokens 8192 per step. When the cache is full, "
    "preempt the lowest-priority, most recently admitted sequence and recompute it later; cancel on disconnect.",
    "Targets: p50 TTFT 300 ms and p99 TTFT under 800 ms. TTFT splits into queueing, prefill and decode; we "
    "accept lower peak throughput to hold the p99, and if p99 queue wait climbs above 400 ms the choice is wrong.",
    "For quantization I would move weights to fp8 only after a quality suite passes, with a rollback trigger "
    "if the eval score drops more than one point; hung generations get a timeout and one retry with jitter.",
    "Routing: two replicas behind a least-outstanding-requests balancer, prefix-aware so shared system prompts "
    "hit the cache; a replica that fails health checks is drained, not killed mid-stream.",
]


# --------------------------------------------------------------------------- servers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float, proc: subprocess.Popen | None = None, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:] if log else ""
            raise SystemExit(f"server for {url} exited with {proc.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=1) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer within {timeout:.0f} s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes so far (Linux /proc), in seconds."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


@dataclass
class Deployment:
    """The app processes (and the servers they use) for one run."""

    urls: list[str]
    procs: list[subprocess.Popen]
    helpers: list[subprocess.Popen]
    workdir: Path
    env: dict
    auth: bool

    def close(self) -> None:
        for p in self.procs + self.helpers:
            stop(p)


def _secrets(path: Path, app_url: str, issuer_url: str, cookie_secret: str) -> None:
    path.write_text(
        "[auth]\n"
        f'redirect_uri = "{app_url}/oauth2callback"\n'
        f'cookie_secret = "{cookie_secret}"\n'
        'client_id = "bench-load"\n'
        'client_secret = "bench-load-secret"\n'
        f'server_metadata_url = "{issuer_url}/.well-known/openid-configuration"\n')


def deploy(args, base_data: Path) -> Deployment:
    work = Path(tempfile.mkdtemp(prefix="bench-load-"))
    data = work / "data"
    shutil.copytree(base_data, data)
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "INTERVIEWER_BACKEND", "CHROMA_HOST", "CHROMA_PORT")}
    env.update(INTERVIEWER_DATA_DIR=str(data), INTERVIEWER_EMBEDDINGS="hash", PYTHONUNBUFFERED="1",
               PYTHONPATH=str(args.app_dir))
    if args.database_url:
        env["INTERVIEWER_DATABASE_URL"] = args.database_url
    elif args.processes > 1:  # one SQLite file on this box, shared by the processes (WAL)
        env["INTERVIEWER_DATABASE_URL"] = f"sqlite:///{data / 'rounds.db'}"
    helpers: list[subprocess.Popen] = []
    if args.chroma == "server":
        cport = free_port()
        log = work / "chroma.log"
        exe = shutil.which("chroma", path=str(Path(sys.executable).parent)) or "chroma"
        helpers.append(subprocess.Popen([exe, "run", "--path", str(work / "chroma-server"), "--host", "127.0.0.1",
                                         "--port", str(cport)], stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                                        env={**env, "ANONYMIZED_TELEMETRY": "False"}))
        wait_http(f"http://127.0.0.1:{cport}/api/v2/heartbeat", 60, helpers[-1], log)
        env.update(CHROMA_HOST="127.0.0.1", CHROMA_PORT=str(cport), INTERVIEWER_COLLECTION=f"bench-{secrets.token_hex(4)}")
        subprocess.run([sys.executable, "-m", "interviewer", "ingest"], cwd=ROOT, env=env, check=True,
                       capture_output=True)
    issuer = None
    if args.auth == "oidc":
        iport = free_port()
        log = work / "oidc.log"
        helpers.append(subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1",
                                         "--port", str(iport)], stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                                        env=env))
        issuer = f"http://127.0.0.1:{iport}"
        wait_http(f"{issuer}/.well-known/openid-configuration", 60, helpers[-1], log)
    cookie_secret = secrets.token_urlsafe(32)
    urls, procs = [], []
    for i in range(args.processes):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
               "--server.port", str(port), "--server.address", "127.0.0.1"]
        if issuer:
            sfile = work / f"secrets-{i}.toml"
            _secrets(sfile, url, issuer, cookie_secret)
            cmd += ["--secrets.files", str(sfile)]
        log = work / f"app-{i}.log"
        penv = dict(env)
        if i and args.chroma == "embedded":  # each process its own copy of the (read-only) embedded vector store
            penv["INTERVIEWER_DATA_DIR"] = str(work / f"data-{i}")
            shutil.copytree(base_data, penv["INTERVIEWER_DATA_DIR"])
        procs.append(subprocess.Popen(cmd, cwd=args.app_dir, env=penv, stdout=open(log, "wb"), stderr=subprocess.STDOUT))
        urls.append(url)
    for i, (url, proc) in enumerate(zip(urls, procs)):
        wait_http(f"{url}/_stcore/health", 90, proc, work / f"app-{i}.log")
    return Deployment(urls, procs, helpers, work, env, issuer is not None)


def ingest_base(work: Path) -> Path:
    """A data folder with the vector store built once, copied for every run."""
    data = work / "base-data"
    env = {**os.environ, "INTERVIEWER_DATA_DIR": str(data), "INTERVIEWER_EMBEDDINGS": "hash"}
    for k in ("CHROMA_HOST", "CHROMA_PORT", "INTERVIEWER_DATABASE_URL"):
        env.pop(k, None)
    subprocess.run([sys.executable, "-m", "interviewer", "ingest"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    return data


# --------------------------------------------------------------------------- one session


class ProtocolError(RuntimeError):
    pass


@dataclass
class Client:
    """One browser tab, as far as the server can tell: a websocket speaking Streamlit's protobufs."""

    url: str
    index: int
    subject: str
    run: str = ""
    token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    cookies: dict = field(default_factory=dict)
    page_hash: str = ""
    ws: object = None
    elements: dict = field(default_factory=dict)   # label/key -> widget id, from this run's deltas
    texts: list = field(default_factory=list)      # markdown and text bodies of this run
    auth_redirect: str | None = None
    fragments: dict = field(default_factory=dict)  # fragment id -> interval (s)
    latencies: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    answers: list = field(default_factory=list)

    async def connect(self) -> None:
        from websockets.asyncio.client import connect

        host = urlparse(self.url).netloc
        xsrf = self.cookies.get("_streamlit_xsrf")
        protocols = ["streamlit", xsrf] if xsrf else ["streamlit"]
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        headers = {"Cookie": cookie} if cookie else {}
        self.ws = await connect(f"ws://{host}/_stcore/stream", subprotocols=protocols, origin=self.url,
                                additional_headers=headers, max_size=2**26, open_timeout=60, ping_interval=None)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def rerun(self, widgets=(), fragment_id: str = "", timeout: float = 120.0) -> float:
        """Send one rerun and read until it finishes; returns the seconds it took."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = f"u={self.token}"
        cs.page_script_hash = self.page_hash
        if fragment_id:
            cs.fragment_id = fragment_id
            cs.is_auto_rerun = True
        for w in widgets:
            cs.widget_states.widgets.append(w)
        if not fragment_id:
            self.elements, self.texts = {}, []
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        await asyncio.wait_for(self._until_finished(bool(fragment_id)), timeout)
        return time.perf_counter() - t0

    async def _until_finished(self, fragment: bool) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        done = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY if fragment else ForwardMsg.FINISHED_SUCCESSFULLY
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(await self.ws.recv())
            kind = fm.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = fm.new_session.page_script_hash or self.page_hash
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                self._element(fm.delta.new_element)
            elif kind == "auth_redirect":
                self.auth_redirect = fm.auth_redirect.url
            elif kind == "auto_rerun":
                if fm.auto_rerun.fragment_id:
                    self.fragments[fm.auto_rerun.fragment_id] = fm.auto_rerun.interval
            elif kind == "script_finished":
                if fm.script_finished == done or (fragment and fm.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY):
                    return
                if fm.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    raise ProtocolError("the script failed to compile")

    def _element(self, el) -> None:
        kind = el.WhichOneof("type")
        if kind == "button":
            self.elements[el.button.label] = el.button.id
        elif kind == "chat_input":
            self.elements["chat_input"] = el.chat_input.id
        elif kind == "exception":
            self.errors.append(f"exception: {el.exception.type}: {el.exception.message[:200]}")
        elif kind == "alert" and el.alert.format == 1:  # ERROR
            self.errors.append(f"error box: {el.alert.body[:200]}")
        elif kind in ("markdown", "text"):
            self.texts.append(getattr(el, kind).body)

    async def click(self, label: str) -> float:
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        wid = self.elements.get(label)
        if wid is None:
            raise ProtocolError(f"session {self.index}: no {label!r} button on the page "
                                f"(have {sorted(self.elements)}; errors {self.errors[:2]})")
        return await self.rerun([WidgetState(id=wid, trigger_value=True)])

    async def answer(self, text: str) -> float:
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        wid = self.elements.get("chat_input")
        if wid is None:
            raise ProtocolError(f"session {self.index}: no chat input on the page (errors {self.errors[:2]})")
        w = WidgetState(id=wid)
        w.chat_input_value.data = text
        self.answers.append(text)
        return await self.rerun([w])

    async def tick(self) -> None:
        """The browser's periodic fragment reruns (the round clock), one round of them."""
        for fid in list(self.fragments):
            await self.rerun(fragment_id=fid)


async def sign_in(client: Client) -> None:
    """The app's st.login: click Sign in, follow the redirect to the provider, submit the subject,
    come back through /oauth2callback with the identity cookie."""
    import httpx

    async with httpx.AsyncClient(follow_redirects=False, timeout=60) as http:
        r = await http.get(client.url + "/_stcore/health")  # sets the XSRF cookie, as for the browser
        client.cookies.update(dict(r.cookies))
        await client.connect()
        await client.rerun()
        if "Sign in" not in client.elements:
            return  # an app with no sign-in (local mode, or an older release): nothing to do
        client.auth_redirect = None
        await client.click("Sign in")
        if not client.auth_redirect:
            raise ProtocolError("Sign in did not redirect to the provider")
        await client.close()
        r = await http.get(urljoin(client.url + "/", client.auth_redirect))
        authorize = r.headers["location"]
        r = await http.post(authorize, data={"sub": client.subject})
        callback = r.headers["location"]
        r = await http.get(callback)
        if r.status_code not in (302, 303, 307):
            raise ProtocolError(f"the app's /oauth2callback answered {r.status_code}")
        client.cookies.update({k: v for k, v in http.cookies.items()})
        client.page_hash = ""
        await client.connect()
        await client.rerun()


async def session(client: Client, answers: int, think: float, start_gate: asyncio.Event, rng: random.Random,
                  marker: str | None = None) -> None:
    await sign_in(client)
    if client.ws is None:
        await client.connect()
        await client.rerun()
    await client.click("Start the round")
    if "chat_input" not in client.elements:
        raise ProtocolError(f"session {client.index}: the round did not start (errors {client.errors[:2]})")
    await start_gate.wait()
    if marker is None:
        await asyncio.sleep(rng.uniform(0, max(think, 0.05 * answers)))  # not all in lockstep
    last_tick = time.monotonic()
    for i in range(answers):
        text = f"{marker or f'[{client.run} session {client.index} answer {i + 1}]'} {ANSWERS[(client.index + i) % len(ANSWERS)]}"
        client.latencies.append(await client.answer(text))
        if time.monotonic() - last_tick >= 10:
            await client.tick()
            last_tick = time.monotonic()
        if think:
            await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))


# --------------------------------------------------------------------------- checking the store


def stored_rounds(env: dict) -> list[tuple[str, str, dict]]:
    """(owner, round id, state) for every round in the deployment's database."""
    from sqlalchemy import create_engine, text

    url = env.get("INTERVIEWER_DATABASE_URL") or f"sqlite:///{Path(env['INTERVIEWER_DATA_DIR']) / 'rounds.db'}"
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT owner, id, state_json FROM rounds")).fetchall()
    finally:
        engine.dispose()
    return [(o, i, json.loads(s)) for o, i, s in rows]


def count_lost(clients: list[Client], rounds: list[tuple[str, str, dict]]) -> tuple[int, list[str]]:
    """Answers or replies missing, duplicated or stored in another session's round."""
    lost, why = 0, []
    owners: dict[int, set] = {}
    for c in clients:
        marker = f"[{c.run} session {c.index} answer "
        mine = [(o, rid, st) for o, rid, st in rounds
                if any(t.get("role") == "candidate" and (t.get("text") or "").startswith(marker)
                       for t in st.get("turns", []))]
        if len(mine) != 1:
            lost += len(c.answers)
            why.append(f"session {c.index}: its answers are in {len(mine)} rounds")
            continue
        owner, rid, state = mine[0]
        owners.setdefault(c.index, set()).add(owner)
        turns = state.get("turns", [])
        for text in c.answers:
            at = [i for i, t in enumerate(turns) if t.get("role") == "candidate" and t.get("text") == text]
            if len(at) != 1:
                lost += 1
                why.append(f"session {c.index}: answer stored {len(at)} times")
                continue
            nxt = turns[at[0] + 1] if at[0] + 1 < len(turns) else None
            if nxt is None or nxt.get("role") != "interviewer" or not (nxt.get("text") or "").strip():
                lost += 1
                why.append(f"session {c.index}: no reply stored after answer {c.answers.index(text) + 1}")
        strangers = [t for t in turns if t.get("role") == "candidate"
                     and (t.get("text") or "").startswith(f"[{c.run} session ") and not t["text"].startswith(marker)]
        if strangers:
            lost += len(strangers)
            why.append(f"session {c.index}: {len(strangers)} answers of other sessions in its round")
    flat = [next(iter(o)) for o in owners.values() if len(o) == 1]
    if len(set(flat)) != len(flat):
        why.append("two sessions' rounds have the same owner")
        lost += len(flat) - len(set(flat))
    return lost, why


# --------------------------------------------------------------------------- one run


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


async def drive(dep: Deployment, n: int, answers: int, think: float, seed: int) -> dict:
    rng = random.Random(seed)
    run = secrets.token_hex(3)  # in every answer: a shared database may hold earlier runs' rounds
    clients = [Client(dep.urls[i % len(dep.urls)], i, f"candidate-{run}-{i}@example.com", run=run) for i in range(n)]
    gate = asyncio.Event()
    pids = [p.pid for p in dep.procs]
    # A long-running server has its vector store and modules loaded: one warm-up round per process first.
    for k, url in enumerate(dep.urls):
        warm = Client(url, -1, f"warm-up-{run}-{k}@example.com", run=run)
        warm_gate = asyncio.Event()
        warm_gate.set()
        await session(warm, 1, 0.0, warm_gate, rng, marker=f"[{run} warm-up]")
        await warm.close()
    tasks = [asyncio.create_task(session(c, answers, think, gate, rng)) for c in clients]

    # Everyone signed in and holding an open round before the clock starts.
    while sum(1 for c in clients if "chat_input" in c.elements) < n:
        failed = [t for t in tasks if t.done() and t.exception()]
        if failed:
            gate.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise failed[0].exception()
        await asyncio.sleep(0.05)
    print(f"{n} sessions signed in, each with an open round; answering", file=sys.stderr, flush=True)
    cpu0, t0 = cpu_seconds(pids), time.perf_counter()
    client_cpu0 = time.process_time()
    gate.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    wall = time.perf_counter() - t0
    cpu = cpu_seconds(pids) - cpu0
    client_cpu = time.process_time() - client_cpu0
    for c in clients:
        await c.close()
    errors = [f"session {c.index}: {r!r}" for c, r in zip(clients, results) if isinstance(r, BaseException)]
    errors += [f"session {c.index}: {e}" for c in clients for e in c.errors]
    lat = [x for c in clients for x in c.latencies]
    await asyncio.sleep(0.5)  # let the last save land
    lost, why = count_lost(clients, stored_rounds(dep.env))
    return {"sessions": n, "processes": len(dep.urls), "turns": len(lat),
            "p50_s": round(pct(lat, 0.50), 3), "p95_s": round(pct(lat, 0.95), 3), "max_s": round(max(lat or [0]), 3),
            "mean_s": round(statistics.fmean(lat), 3) if lat else None,
            "server_cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
            "server_cpu_ms_per_turn": round(1000 * cpu / max(1, len(lat)), 1),
            "client_cpu_s": round(client_cpu, 2), "lost": lost, "lost_detail": why[:10], "errors": errors[:10],
            "think_s": think, "answers_per_session": answers,
            "database": "postgresql" if dep.env.get("INTERVIEWER_DATABASE_URL", "").startswith("postgres") else "sqlite",
            "chroma": "server" if dep.env.get("CHROMA_HOST") else "embedded",
            "auth": "oidc" if dep.auth else "none"}


def one(args, n: int, base_data: Path) -> dict:
    dep = deploy(args, base_data)
    try:
        out = asyncio.run(drive(dep, n, args.answers, args.think, args.seed + n))
    finally:
        dep.close()
        if not args.keep:
            shutil.rmtree(dep.workdir, ignore_errors=True)
        else:
            print(f"kept {dep.workdir}", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, help="one run with N sessions (default: the series 1, 5, 10, 20, 40)")
    ap.add_argument("--answers", type=int, default=5, help="answers per session (default 5)")
    ap.add_argument("--think", type=float, default=0.0, help="mean seconds between a reply and the next answer")
    ap.add_argument("--processes", type=int, default=1, help="app processes, sessions spread over them (sticky)")
    ap.add_argument("--chroma", choices=["embedded", "server"], default="embedded",
                    help="vector store: embedded (each process its own copy, default) or a Chroma server started here")
    ap.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL"),
                    help="SQLAlchemy URL of a shared database, e.g. PostgreSQL (default: one SQLite file in the run's "
                         "folder, shared by the processes)")
    ap.add_argument("--auth", choices=["oidc", "none"], default="oidc",
                    help="sign each session in as its own user through a mock OIDC provider (default)")
    ap.add_argument("--app-dir", type=Path, default=ROOT,
                    help="run the app from another checkout (e.g. a `git worktree` of an older commit, for before/after)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the run's folder (logs, database)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.auth == "none" and (args.sessions or 2) > 1:
        print("note: with --auth none every session is the same local user", file=sys.stderr)

    work = Path(tempfile.mkdtemp(prefix="bench-load-base-"))
    try:
        base = ingest_base(work)
        if args.sessions:
            out = one(args, args.sessions, base)
            if args.json:
                print(json.dumps(out))
            else:
                print(json.dumps(out, indent=2))
            return 1 if out["lost"] else 0
        rows = []
        print(f"# {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
              f"{args.processes} app process(es), {args.answers} answers per session, think {args.think:g} s",
              file=sys.stderr)
        print("| sessions | turns | p50 / p95 / max (s) | server CPU (s) | wall (s) | CPU per turn | lost |")
        print("|---|---|---|---|---|---|---|")
        for n in SERIES:
            r = one(args, n, base)
            rows.append(r)
            print(f"| {n} | {r['turns']} | {r['p50_s']:.2f} / {r['p95_s']:.2f} / {r['max_s']:.2f} | "
                  f"{r['server_cpu_s']:.1f} | {r['wall_s']:.1f} | {r['server_cpu_ms_per_turn']:.0f} ms | {r['lost']} |",
                  flush=True)
            for e in r["errors"] + r["lost_detail"]:
                print(f"  ! {e}", file=sys.stderr)
        at = next((r for r in rows if r["sessions"] == TARGET_SESSIONS), None)
        if at:
            verdict = "meets" if at["p95_s"] < TARGET_P95_S else "misses"
            print(f"\n{TARGET_SESSIONS} sessions: p95 {at['p95_s']:.2f} s {verdict} the target of "
                  f"< {TARGET_P95_S:g} s")
        if args.json:
            print(json.dumps(rows))
        return 1 if any(r["lost"] for r in rows) else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
