"""Whiteboard page: the KV-cache capacity calculator and the serving simulator."""
from __future__ import annotations

import streamlit as st

from interviewer import capacity
from interviewer.errors import UserError
from interviewer.ui import common

CUSTOM = "custom"
GIB = capacity.GIB


def _gib(b: int) -> str:
    return f"{b / GIB:,.1f} GiB"


def calculator() -> None:
    presets = capacity.load_presets()
    models = list(presets.models) + [CUSTOM]
    gpus = list(presets.gpus) + [CUSTOM]

    def model_label(m: str) -> str:
        return "Custom model (your numbers)" if m == CUSTOM else f"{presets.models[m].name} ({m})"

    def gpu_label(g: str) -> str:
        return "Custom GPU (your memory)" if g == CUSTOM else f"{presets.gpus[g].name} ({g})"

    cols = st.columns(2)
    model = cols[0].selectbox("Model", models, index=models.index("llama-3-8b"), format_func=model_label,
                              key="cap_model")
    gpu = cols[1].selectbox("GPU", gpus, index=gpus.index("h100-80gb"), format_func=gpu_label, key="cap_gpu")
    kv_bpt = weights_gb = gpu_gb = None
    if model == CUSTOM:
        c = st.columns(2)
        kv_bpt = c[0].number_input("KV bytes per token (at the KV dtype)", min_value=1, value=131072, step=1024,
                                   key="cap_kv_bpt")
        weights_gb = c[1].number_input("Weights (GiB, at the weights dtype)", min_value=0.1, value=15.0, step=1.0,
                                       key="cap_weights_gb")
    if gpu == CUSTOM:
        gpu_gb = st.number_input("GPU memory (GiB)", min_value=1.0, value=80.0, step=8.0, key="cap_gpu_gb")
    c = st.columns(5)
    weights_dtype = c[0].selectbox("Weights dtype", list(capacity.WEIGHT_DTYPES), key="cap_wdtype")
    kv_dtype = c[1].selectbox("KV dtype", list(capacity.KV_DTYPES), key="cap_kvdtype")
    default_len = min(presets.models[model].max_context, capacity.DEFAULT_SEQ_LEN) if model != CUSTOM \
        else capacity.DEFAULT_SEQ_LEN
    seq_len = c[2].number_input("Sequence length (tokens)", min_value=1, value=default_len, step=512,
                                key=f"cap_seq_len_{model}")
    util = c[3].slider("GPU memory utilisation", min_value=0.5, max_value=1.0, value=0.9, step=0.01,
                       key="cap_util")
    num_gpus = c[4].number_input("GPUs (tensor parallel)", min_value=1, max_value=64, value=1, step=1,
                                 key="cap_num_gpus")
    try:
        result = capacity.compute(None if model == CUSTOM else model, None if gpu == CUSTOM else gpu,
                                  weights_dtype=weights_dtype, kv_dtype=kv_dtype, seq_len=int(seq_len),
                                  kv_bytes_per_token=int(kv_bpt) if kv_bpt else None, weights_gb=weights_gb,
                                  gpu_gb=gpu_gb, gpu_memory_utilization=util, num_gpus=int(num_gpus))
    except UserError as exc:
        st.error(str(exc))
        return
    m = st.columns(5)
    m[0].metric("KV per token", f"{result.kv_bytes_per_token / 1024:,.0f} KiB")
    m[1].metric("Weights", _gib(result.weights_bytes))
    m[2].metric("Free for KV", _gib(result.free_bytes))
    m[3].metric("Tokens in cache", f"{result.max_tokens_in_cache:,}")
    m[4].metric("Max sequences", f"{result.max_sequences:,}", help=f"at {result.seq_len:,} tokens each")
    st.markdown("**The arithmetic**")
    st.code("\n".join(f"{i}. {t}" for i, t in enumerate(result.terms, 1)), language=None, wrap_lines=True)
    st.markdown("**Levers** (max sequences with the lever, against the baseline)")
    import pandas as pd

    st.dataframe(pd.DataFrame([{"Lever": lv.description, "Max sequences": lv.max_sequences,
                                "Change": f"{lv.delta:+,}", "How": lv.detail} for lv in result.levers]),
                 hide_index=True, width="stretch")


@st.cache_data(show_spinner=False, max_entries=64)
def _simulate(config_json: str):
    from interviewer.simulator import SimConfig, simulate

    return simulate(SimConfig.model_validate_json(config_json))


@st.cache_data(show_spinner=False, max_entries=16)
def _sweep(config_json: str, rates: tuple[float, ...]):
    from interviewer.simulator import SimConfig, sweep

    config = SimConfig.model_validate_json(config_json)
    out = {}
    for policy in ("continuous", "static"):
        out[policy] = sweep(config.model_copy(update={"policy": policy}), rates)
    return out


def simulator() -> None:
    import pandas as pd

    from interviewer.simulator import make_config

    presets = capacity.load_presets()
    with st.form("sim_form"):
        c = st.columns(4)
        policy = c[0].selectbox("Policy", ["continuous", "static"], key="sim_policy")
        rate = c[1].number_input("Arrival rate (req/s)", min_value=0.01, value=4.0, step=0.5, key="sim_rate")
        model = c[2].selectbox("Model", list(presets.models), index=list(presets.models).index("llama-3-8b"),
                               key="sim_model")
        gpu = c[3].selectbox("GPU", list(presets.gpus), index=list(presets.gpus).index("h100-80gb"), key="sim_gpu")
        c = st.columns(4)
        prompt = c[0].number_input("Prompt tokens (mean)", min_value=1, value=1000, step=100, key="sim_prompt")
        prompt_dist = c[1].selectbox("Prompt distribution", ["fixed", "exponential", "uniform"], key="sim_pdist")
        output = c[2].number_input("Output tokens (mean)", min_value=1, value=300, step=50, key="sim_output")
        output_dist = c[3].selectbox("Output distribution", ["exponential", "fixed", "uniform"], key="sim_odist")
        c = st.columns(4)
        max_seqs = c[0].number_input("max_num_seqs", min_value=1, value=64, step=8, key="sim_max_seqs")
        max_tokens = c[1].number_input("max_num_batched_tokens", min_value=16, value=8192, step=512,
                                       key="sim_max_tokens")
        requests = c[2].number_input("Requests", min_value=50, max_value=20000, value=1000, step=250,
                                     key="sim_requests")
        seed = c[3].number_input("Seed", min_value=0, value=0, step=1, key="sim_seed")
        submitted = st.form_submit_button("Simulate", type="primary", icon=":material/play_arrow:")
    if not submitted and "sim_config" not in st.session_state:
        st.caption("Set the workload and limits, then Simulate. The chart sweeps the load from a quarter "
                   "of your arrival rate to twice it, for continuous and static batching.")
        return
    if submitted:
        config = make_config(policy=policy, arrival_rate=rate, prompt_tokens=int(prompt), output_tokens=int(output),
                             prompt_dist=prompt_dist, output_dist=output_dist, max_num_seqs=int(max_seqs),
                             max_num_batched_tokens=int(max_tokens), requests=int(requests), seed=int(seed),
                             model=model, gpu=gpu)
        st.session_state["sim_config"] = config.model_dump_json()
    config_json = st.session_state["sim_config"]
    try:
        res = _simulate(config_json)
    except UserError as exc:
        st.error(str(exc))
        return
    st.markdown(f"**{res.policy.capitalize()} batching at {res.arrival_rate:g} req/s**: "
                f"{res.completed:,} of {res.requests:,} requests completed")
    m = st.columns(4)
    m[0].metric("TTFT p50", f"{res.ttft_p50_s * 1e3:,.0f} ms")
    m[1].metric("TTFT p95", f"{res.ttft_p95_s * 1e3:,.0f} ms")
    m[2].metric("TTFT p99", f"{res.ttft_p99_s * 1e3:,.0f} ms")
    m[3].metric("Queueing (mean wait)", f"{res.wait_mean_s * 1e3:,.0f} ms")
    m = st.columns(4)
    m[0].metric("End to end (mean)", f"{res.e2e_mean_s:,.2f} s", help=f"p99 {res.e2e_p99_s:,.2f} s")
    m[1].metric("Throughput", f"{res.throughput_tokens_per_s:,.0f} tok/s", help=f"{res.requests_per_s:,.2f} req/s")
    m[2].metric("Preemptions", f"{res.preemptions:,}")
    m[3].metric("Mean batch", f"{res.mean_batch_size:,.1f}")
    with st.expander("Cost model terms"):
        st.code("\n".join(res.terms), language=None, wrap_lines=True)

    rates = tuple(round(res.arrival_rate * f, 4) for f in (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0))
    try:
        runs = _sweep(config_json, rates)
    except UserError as exc:
        st.error(str(exc))
        return
    rows = []
    for policy_name, results in runs.items():
        for r in results:
            rows.append({"rate": r.arrival_rate, "series": f"{policy_name} p50", "TTFT (s)": r.ttft_p50_s})
            rows.append({"rate": r.arrival_rate, "series": f"{policy_name} p99", "TTFT (s)": r.ttft_p99_s})
    df = pd.DataFrame(rows).pivot(index="rate", columns="series", values="TTFT (s)")
    st.markdown("**TTFT percentiles against load** (continuous vs static batching, same limits)")
    st.line_chart(df, x_label="arrival rate (req/s)", y_label="TTFT (s)")
    def pcts(r) -> str:
        return f"{r.ttft_p50_s:.2f} / {r.ttft_p95_s:.2f} / {r.ttft_p99_s:.2f}"

    table = pd.DataFrame([{"rate (req/s)": a.arrival_rate,
                           "continuous p50 / p95 / p99 (s)": pcts(a),
                           "static p50 / p95 / p99 (s)": pcts(b),
                           "continuous tok/s": round(a.throughput_tokens_per_s),
                           "static tok/s": round(b.throughput_tokens_per_s)}
                          for a, b in zip(runs["continuous"], runs["static"])])
    st.dataframe(table, hide_index=True, width="stretch")


def main() -> None:
    st.title("Whiteboard")
    st.caption("The numbers a design round expects you to derive: what fits on the GPU, and what your "
               "scheduling limits do to the tail. GB here means GiB (2^30 bytes).")
    tabs = st.tabs(["Capacity calculator", "Serving simulator"])
    with tabs[0]:
        common.guard(calculator)
    with tabs[1]:
        common.guard(simulator)


common.guard(main)
