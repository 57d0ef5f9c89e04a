"""The Whiteboard page at fleet scale (Streamlit AppTest): TP and replicas in the calculator, a fleet
behind a router in the simulator, one chart per policy, and the assumptions stated on the page."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
WHITEBOARD = "interviewer/ui/whiteboard_page.py"


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "INTERVIEWER_BACKEND", "INTERVIEWER_MODEL", "CHROMA_HOST"):
        monkeypatch.delenv(var, raising=False)


def page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["u"] = "test-fleet-page-token-01"
    at.run()
    return at.switch_page(WHITEBOARD).run()


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def test_calculator_tp_and_replicas_and_a_model_that_does_not_fit():
    at = ok(page())
    at.selectbox(key="cap_model").set_value("llama-2-70b").run()
    assert len(at.error) == 1  # one line: does not fit, the smallest TP degree, fp8/int4
    msg = at.error[0].value
    assert "do not fit" in msg and "smallest tensor-parallel degree that fits: 2" in msg and "fp8 weights" in msg
    assert "fits: no" in "\n".join(c.value for c in at.code)
    at.selectbox(key="cap_tp_llama-2-70b").set_value(2)
    at.number_input(key="cap_replicas").set_value(4)
    ok(at.run())
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Fleet GPUs"] == "8" and metrics["Max sequences"] == "12"
    assert metrics["Fleet max sequences"] == "48" and metrics["Per GPU: weights"] == "64.2 GiB"
    code = "\n".join(c.value for c in at.code)
    assert "tensor parallel: 2 GPUs per replica" in code and "fleet = 4 replicas x 2 GPUs = 8 GPUs" in code


def test_simulator_fleet_with_router_prefixes_charts_and_assumptions():
    at = ok(page())
    at.selectbox(key="sim_model").set_value("llama-3-70b")
    at.selectbox(key="sim_tp").set_value(2)
    at.number_input(key="sim_replicas").set_value(4)
    at.selectbox(key="sim_router").set_value("prefix-affinity")
    at.number_input(key="sim_prefixes").set_value(8)
    at.number_input(key="sim_prefix_tokens").set_value(512)
    at.number_input(key="sim_rate").set_value(2.0)
    at.number_input(key="sim_requests").set_value(200)
    ok([b for b in at.button if b.label == "Simulate"][0].click().run())
    metrics = {m.label: m.value for m in at.metric}
    assert {"TTFT p99", "Goodput", "Prefix hit rate", "KV cache per replica"} <= set(metrics)
    text = "\n".join(str(m.value) for m in at.markdown)
    assert "4 replicas behind prefix-affinity" in text
    assert "What drives these numbers" in text and "all-reduce" in text and "MFU 0.5" in text
    per_replica, routers, sweep = (d.value for d in at.dataframe[-3:])
    assert len(per_replica) == 4 and "prefix hits" in per_replica.columns
    assert {"round-robin", "least-outstanding", "prefix-affinity", "shared-queue"} <= set(routers["router"])
    assert len(sweep) == 8
    charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    assert len(charts) >= 2  # one per batching policy, each on its own scale


def test_simulator_bad_tp_is_one_line():
    at = ok(page())
    at.selectbox(key="sim_tp").set_value(16)
    at.selectbox(key="sim_model").set_value("qwen2.5-7b")
    at.number_input(key="sim_requests").set_value(100)
    [b for b in at.button if b.label == "Simulate"][0].click().run()
    assert not at.exception and len(at.error) == 1
    msg = at.error[0].value
    assert "tensor-parallel degree 16" in msg and "--" not in msg and "\n" not in msg
