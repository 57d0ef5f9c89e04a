"""The other pages through Streamlit's AppTest: question bank, whiteboard (calculator and simulator),
history (list, reopen, delete with confirm, progress charts, a damaged or locked database),
report downloads, settings (a dead server in plain words, the key never echoed), and an
unexpected error shown as one line. Each test has its own INTERVIEWER_DATA_DIR (tests/conftest.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import answer
from streamlit.testing.v1 import AppTest

from interviewer import config, interview
from interviewer.bank import load_bank
from interviewer.errors import UserError
from interviewer.store import open_store

APP = str(Path(__file__).resolve().parent.parent / "app.py")
RUN_S = 60
BANK = "interviewer/ui/bank_page.py"
WHITEBOARD = "interviewer/ui/whiteboard_page.py"
HISTORY = "interviewer/ui/history_page.py"
REPORT = "interviewer/ui/report_page.py"
SETTINGS = "interviewer/ui/settings_page.py"
TOKEN = "local"  # the owner in local mode (the default); a ?u= in the URL is ignored and dropped


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "INTERVIEWER_BACKEND", "INTERVIEWER_MODEL",
                "INTERVIEWER_EMBEDDINGS", "CHROMA_HOST"):
        monkeypatch.delenv(var, raising=False)
        config.reload()


def page(path: str, token: str = TOKEN) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=RUN_S)
    at.query_params["u"] = token
    at.run()
    return at.switch_page(path).run()


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def every_value(at: AppTest) -> str:
    """All text the page shows: element values, labels, captions, alerts, metrics, code."""
    out = []
    for kind in ("markdown", "text", "caption", "code", "error", "warning", "info", "success", "title",
                 "header", "subheader", "exception", "json"):
        out += [str(e.value) for e in getattr(at, kind)]
    out += [f"{m.label} {m.value}" for m in at.metric]
    out += [str(getattr(w, "label", "")) for w in at.text_input]
    return "\n".join(out)


def graded_round(answers: list[str], company="Anthropic", qid="gpu-inference-serving"):
    state = interview.start_round(qid, company, "senior")
    for a in answers:
        answer(state, a)
    interview.end_round(state)
    return state


# --------------------------------------------------------------------------- question bank


def test_bank_lists_every_question_and_company_mix():
    at = ok(page(BANK))
    bank = load_bank()
    labels = [e.label for e in at.expander]
    assert len(labels) == len(bank.questions)
    assert any("coding" in lbl for lbl in labels) and any("knowledge" in lbl for lbl in labels)
    text = every_value(at)
    assert "What to prepare" in text and "Follow-ups" in text and "Last reported" in text
    assert "Write-ups" in text and "Rounds" in text
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")  # the format-mix chart
    assert "Anthropic" in text and "Snowflake" in text
    at.selectbox(key="bank_company").set_value("Uber").run()
    assert {e.label.split("  ·  ")[1] for e in ok(at).expander} == {"coding"}


# --------------------------------------------------------------------------- whiteboard


def test_calculator_shows_every_term_and_levers():
    at = ok(page(WHITEBOARD))
    code = "\n".join(c.value for c in at.code)
    assert "KV bytes per token = 2 (K and V) x 32 layers x 8 KV heads x 128 head dim x 2 bytes" in code
    assert "free for KV cache = usable - weights" in code and "max sequences = floor(" in code
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["KV per token"] == "128 KiB" and int(metrics["Max sequences"].replace(",", "")) > 0
    levers = at.dataframe[0].value
    assert any("fp8" in d for d in levers["Lever"]) and any("paged" in d for d in levers["Lever"])


def test_calculator_impossible_config_is_a_one_line_error():
    at = ok(page(WHITEBOARD))
    at.selectbox(key="cap_model").set_value("llama-2-70b")
    at.selectbox(key="cap_gpu").set_value("l4").run()
    assert not at.exception
    assert len(at.error) == 1
    msg = at.error[0].value
    assert "do not fit" in msg and "\n" not in msg and "Traceback" not in msg
    at.selectbox(key="cap_model").set_value("custom").run()  # custom model: the user's own numbers
    at.selectbox(key="cap_gpu").set_value("custom").run()
    at.number_input(key="cap_gpu_gb").set_value(48.0)
    ok(at.run())
    assert "given" in "\n".join(c.value for c in at.code)


def test_simulator_shows_percentiles_and_a_sweep_chart():
    at = ok(page(WHITEBOARD))
    at.number_input(key="sim_requests").set_value(300)
    submit = [b for b in at.button if b.label == "Simulate"]
    assert len(submit) == 1
    ok(submit[0].click().run())
    metrics = {m.label: m.value for m in at.metric}
    for label in ("TTFT p50", "TTFT p95", "TTFT p99", "End to end (mean)", "Throughput", "Preemptions"):
        assert label in metrics
    assert metrics["TTFT p99"].endswith(" ms")
    table = at.dataframe[-1].value
    assert len(table) == 8 and "static p50 / p95 / p99 (s)" in table.columns
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")


# --------------------------------------------------------------------------- history and report


def test_history_lists_reopens_and_deletes_with_confirm():
    store, _ = open_store()
    weak = graded_round(["We'd use continuous batching."])
    strong = graded_round(["Llama-3-8B on one H100-80GB: weights 16 GB, KV per token 128 KB, about 60 GB free, "
                           "so about 110 concurrent sequences at 4,096 tokens.",
                           "max_num_seqs 128, max_num_batched_tokens 8192, preempt the lowest-priority sequence."])
    store.save(weak, TOKEN)
    store.save(strong, TOKEN)
    store.save(graded_round(["someone else's"]), "oidc:https://idp.example|someone-else")  # a hosted user's
    store.close()

    at = ok(page(HISTORY))
    table = at.dataframe[0].value
    assert len(table) == 2 and set(table["Company"]) == {"Anthropic"}
    assert set(table["Overall"]) == {weak.report["overall"], strong.report["overall"]}
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")  # progress charts
    assert "Criteria that keep failing" in [s.value for s in at.subheader]

    # reopen a report
    at.selectbox(key="history_pick").set_value(weak.id)
    ok(at.button(key="history_open").click().run())
    assert at.title[0].value.startswith("Report:")
    assert {m.label: m.value for m in at.metric}["Overall"] == f"{weak.report['overall']}/100"

    # delete, with a confirm step (cancel first)
    at = ok(page(HISTORY))
    at.selectbox(key="history_pick").set_value(weak.id)
    ok(at.button(key="history_delete").click().run())
    assert any("cannot be undone" in w.value for w in at.warning)
    ok(at.button(key="history_cancel").click().run())
    assert len(at.dataframe[0].value) == 2
    at.selectbox(key="history_pick").set_value(weak.id)
    ok(at.button(key="history_delete").click().run())
    ok(at.button(key="history_confirm").click().run())
    assert len(at.dataframe[0].value) == 1
    store, _ = open_store()
    assert [r.id for r in store.list(TOKEN)] == [strong.id]
    assert len(store.list("oidc:https://idp.example|someone-else")) == 1
    store.close()


def test_history_is_per_browser_and_empty_at_first():
    at = ok(page(HISTORY, token="a-brand-new-browser-token"))
    assert any("No rounds yet" in i.value for i in at.info)


def test_report_page_downloads_markdown_json_pdf():
    store, _ = open_store()
    state = graded_round(["<b>**Continuous batching**</b> with max_num_seqs 64 and p99 TTFT under 500 ms."])
    store.save(state, TOKEN)
    store.close()
    at = ok(page(REPORT))
    assert at.title[0].value.startswith("Report:")
    assert any("<b>**Continuous batching**</b>" in t.value for t in at.text)  # quotes stay text
    buttons = {d.label: d for d in at.get("download_button")}
    assert set(buttons) == {"Markdown", "JSON", "PDF"}
    assert any(e.label == "Transcript" for e in at.expander)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Overall"] == f"{state.report['overall']}/100"


def test_report_page_with_nothing_graded():
    at = ok(page(REPORT, token="nobody-has-rounds-here-01"))
    assert any("No graded rounds yet" in i.value for i in at.info)


def test_damaged_database_is_moved_aside_with_one_notice(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERVIEWER_DATA_DIR", str(tmp_path))
    config.reload()
    (tmp_path / "rounds.db").write_bytes(b"this is not a database" * 100)
    at = AppTest.from_file(APP, default_timeout=RUN_S)
    at.query_params["u"] = TOKEN
    ok(at.run())
    notices = [w.value for w in at.warning if "damaged" in w.value]
    assert notices and not any(str(tmp_path) in n or "rounds.db" in n for n in notices)  # no server path
    ok(at.run())
    assert not any("damaged" in w.value for w in at.warning)  # shown once to this visitor
    ok(at.switch_page(HISTORY).run())
    assert not any("damaged" in w.value for w in at.warning)
    assert list(tmp_path.glob("rounds.db.corrupt-*"))


def test_locked_database_shows_the_error_and_a_way_on(monkeypatch):
    from interviewer import store as store_mod

    def locked(path=None):
        raise UserError("the history database is locked by another process: rounds.db stayed busy for 5 s")

    monkeypatch.setattr(store_mod, "open_store", locked)
    at = page(HISTORY)
    assert not at.exception
    assert len(at.error) == 1 and "locked" in at.error[0].value
    assert at.button(key="store_retry")
    rnd = AppTest.from_file(APP, default_timeout=RUN_S)
    rnd.query_params["u"] = TOKEN
    rnd.run()
    assert "locked" in rnd.error[0].value
    rnd.button(key="store_nosave").click().run()  # practise without saving
    assert not rnd.exception and not rnd.error
    assert rnd.button(key="start_round")


# --------------------------------------------------------------------------- settings


def test_settings_dead_server_is_a_plain_error_and_the_key_is_never_echoed():
    secret = "sk-test-DO-NOT-SHOW-1234567890abcdef"
    at = ok(page(SETTINGS))
    at.radio(key="set_voice").set_value("own").run()
    at.radio(key="set_own_kind").set_value("local").run()
    at.text_input(key="set_base_url_local").set_value("http://127.0.0.1:9/v1")
    at.text_input(key="set_api_key_input").set_value(secret).run()
    assert at.text_input(key="set_api_key_input").value == ""  # taken out of the box at once
    assert "Your key is set for this session." in every_value(at)
    at.button(key="set_test").click().run(timeout=RUN_S)
    assert not at.exception
    assert len(at.error) == 1
    msg = at.error[0].value
    assert msg.startswith("Not connected") and ("refused" in msg or "could not reach" in msg or "timed out" in msg)
    assert "Traceback" not in msg and "\n" not in msg
    assert secret not in every_value(at)
    assert secret not in repr(at.session_state["llm_settings"])
    assert at.session_state["llm_settings"].backend == "local"


def test_settings_offline_is_the_default_and_embeddings_shown_but_not_changeable():
    at = ok(page(SETTINGS))
    assert at.radio(key="set_voice").value == "builtin"
    assert "offline feature hashing" in every_value(at)
    assert not [r for r in at.radio if r.key == "set_embedder"]  # server-wide: not a visitor's choice
    assert "cannot be changed from a browser" in every_value(at)


class _Listener:
    """An OpenAI-shaped server on 127.0.0.1 that records every Authorization header it is sent."""

    def __init__(self):
        import http.server
        import json
        import threading

        seen = self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _reply(self, body: dict):
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                seen.append(self.headers.get("Authorization"))
                self._reply({"object": "list", "data": [{"id": "m", "object": "model"}]})

            def do_POST(self):
                seen.append(self.headers.get("Authorization"))
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self._reply({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": "ok"}}]})

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def test_operator_key_never_reaches_a_url_a_visitor_types(monkeypatch):
    operator_key = "sk-operator-SECRET-0123456789abcdef"
    listener = _Listener()
    try:
        monkeypatch.setenv("OPENAI_API_KEY", operator_key)
        monkeypatch.setenv("INTERVIEWER_BACKEND", "openai")
        config.reload()
        at = ok(page(SETTINGS))
        at.radio(key="set_voice").set_value("own").run()
        at.radio(key="set_own_kind").set_value("local").run()
        at.text_input(key="set_base_url_local").set_value(listener.url).run()
        at.button(key="set_test").click().run(timeout=RUN_S)
        assert not at.exception
        assert listener.seen, "the visitor's endpoint was never asked"
        assert any("Connected" in s.value for s in at.success)  # a real chat reply came back
        assert all(operator_key not in (h or "") for h in listener.seen), listener.seen
        chosen = at.session_state["llm_settings"]
        assert chosen.api_key is None and chosen.endpoint == listener.url
        # The same visitor choosing OpenAI with no key of their own: an error, never the operator's key.
        at.radio(key="set_own_kind").set_value("openai").run()
        at.button(key="set_test").click().run(timeout=RUN_S)
        assert any("no API key" in e.value for e in at.error)
    finally:
        listener.close()


def test_admin_mode_switches_embeddings_for_the_server_or_keeps_the_old_one_on_failure(monkeypatch):
    monkeypatch.setenv("INTERVIEWER_ADMIN", "1")
    monkeypatch.setenv("INTERVIEWER_EMBEDDINGS", "hash")
    config.reload()
    at = ok(page(SETTINGS))
    at.radio(key="set_embedder").set_value("local").run()
    at.text_input(key="set_embed_url").set_value("http://127.0.0.1:9/v1").run()
    at.button(key="set_embed_apply").click().run(timeout=RUN_S)
    assert not at.exception and len(at.error) == 1
    assert "Could not switch embeddings" in at.error[0].value and "\n" not in at.error[0].value
    assert config.current().embeddings == "hash"  # the previous (built-in) embedder stays
    at.radio(key="set_embedder").set_value("hash").run()
    at.button(key="set_embed_apply").click().run(timeout=RUN_S)
    assert not at.exception and not at.error
    assert any("Passage store rebuilt" in s.value for s in at.success)


# --------------------------------------------------------------------------- errors


def test_unexpected_error_is_a_short_message_not_a_traceback(monkeypatch):
    import interviewer.bank

    def boom(*a, **k):
        raise RuntimeError("internal detail that should stay in the log")

    monkeypatch.setattr(interviewer.bank, "load_bank", boom)
    at = page(BANK)
    assert not at.exception
    assert len(at.error) == 1 and "Something went wrong" in at.error[0].value
    assert "internal detail" not in every_value(at)


# --------------------------------------------------------------------------- cold start


def test_pages_open_without_importing_the_vector_store_or_llm_clients(tmp_path):
    """Opening the app and its pages must not import chromadb, LangChain or the OpenAI client."""
    import subprocess
    import sys

    script = f"""
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({APP!r}, default_timeout={RUN_S})
at.run()
for p in ({HISTORY!r}, {REPORT!r}, {BANK!r}, {WHITEBOARD!r}):
    at.switch_page(p).run()
    assert not at.exception, p
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & {{"chromadb", "langchain", "langchain_core",
               "langchain_openai", "langchain_chroma", "openai"}})
print("HEAVY", heavy)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "INTERVIEWER_DATA_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-2000:]
    assert "HEAVY []" in out.stdout, out.stdout
