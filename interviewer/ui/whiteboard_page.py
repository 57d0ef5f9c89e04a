"""Whiteboard page: the KV-cache capacity calculator and the serving simulator, from one GPU to a fleet."""
from __future__ import annotations

import streamlit as st

from interviewer import capacity
from interviewer.ui import common

CUSTOM = "custom"
GIB = capacity.GIB
ROUTER_HELP = ("round-robin: replicas in turn; least-outstanding: fewest requests in flight; most-free-kv: most "
               "free KV blocks; prefix-affinity: each shared prefix has a home replica; shared-queue: one queue, "
               "the first replica with a free slot takes the next request; random: uniformly at random")


def _gib(b: int) -> str:
    return f"{b / GIB:,.1f} GiB"


def _tp_choices(spec) -> list[int]:
    """Tensor-parallel degrees the model's heads allow (any power of two for a custom model)."""
    return capacity.tp_degrees(spec, 64) if spec is not None else [1, 2, 4, 8, 16, 32, 64]


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
    spec = presets.models.get(model)
    c = st.columns(6)
    weights_dtype = c[0].selectbox("Weights dtype", list(capacity.WEIGHT_DTYPES), key="cap_wdtype")
    kv_dtype = c[1].selectbox("KV dtype", list(capacity.KV_DTYPES), key="cap_kvdtype")
    default_len = min(spec.max_context, capacity.DEFAULT_SEQ_LEN) if spec else capacity.DEFAULT_SEQ_LEN
    seq_len = c[2].number_input("Sequence length (tokens)", min_value=1, value=default_len, step=512,
                                key=f"cap_seq_len_{model}")
    util = c[3].slider("GPU memory utilisation", min_value=0.5, max_value=1.0, value=0.9, step=0.01,
                       key="cap_util")
    tp = c[4].selectbox("Tensor parallel (GPUs per replica)", _tp_choices(spec), key=f"cap_tp_{model}",
                        help="Weights and KV heads are split across this many GPUs of one replica.")
    replicas = c[5].number_input("Replicas", min_value=1, max_value=10_000, value=1, step=1, key="cap_replicas")
    result = capacity.compute(None if model == CUSTOM else model, None if gpu == CUSTOM else gpu,
                              weights_dtype=weights_dtype, kv_dtype=kv_dtype, seq_len=int(seq_len),
                              kv_bytes_per_token=int(kv_bpt) if kv_bpt else None, weights_gb=weights_gb,
                              gpu_gb=gpu_gb, gpu_memory_utilization=util, tp=int(tp), replicas=int(replicas),
                              allow_no_fit=True)
    if not result.fits:
        st.error(_no_fit_line(result))
    m = st.columns(5)
    m[0].metric("KV per token", f"{result.kv_bytes_per_token / 1024:,.0f} KiB",
                help="multi-head latent attention: layers x (latent + RoPE key) x bytes"
                if result.attention == "mla" else "2 x layers x KV heads x head dim x bytes")
    m[1].metric("Weights", _gib(result.weights_bytes))
    m[2].metric("Free for KV", _gib(max(result.free_bytes, 0)))
    m[3].metric("Tokens in cache", f"{result.max_tokens_in_cache:,}")
    m[4].metric("Max sequences", f"{result.max_sequences:,}", help=f"per replica, at {result.seq_len:,} tokens each")
    if result.tp > 1 or result.replicas > 1:
        g, f = result.per_gpu, result.fleet
        m = st.columns(5)
        m[0].metric("Per GPU: weights", _gib(g.weights_bytes))
        m[1].metric("Per GPU: free for KV", _gib(max(g.free_bytes, 0)))
        m[2].metric("Per GPU: KV per token", f"{g.kv_bytes_per_token / 1024:,.1f} KiB")
        m[3].metric("Fleet GPUs", f"{f.gpus:,}", help=f"{result.replicas} replicas x {result.tp} GPUs")
        m[4].metric("Fleet max sequences", f"{f.max_sequences:,}")
    st.markdown("**The arithmetic**")
    st.code("\n".join(f"{i}. {t}" for i, t in enumerate(result.terms, 1)), language=None, wrap_lines=True)
    st.markdown("**Levers** (max sequences with the lever, against the baseline)")
    import pandas as pd

    st.dataframe(pd.DataFrame([{"Lever": lv.description, "Max sequences": lv.max_sequences,
                                "Change": f"{lv.delta:+,}", "How": lv.detail} for lv in result.levers]),
                 hide_index=True, width="stretch")


def _no_fit_line(r: capacity.CapacityResult) -> str:
    """One line: why it does not fit, the smallest TP degree, and the fp8/int4 alternatives."""
    where = f"{r.tp} x {r.gpu}" if r.tp > 1 else r.gpu
    if r.weights_bytes >= r.usable_bytes:
        why = f"weights ({_gib(r.weights_bytes)}) do not fit in usable memory ({_gib(r.usable_bytes)}) on {where}"
    else:
        why = f"weights fit on {where} but not one {r.seq_len:,}-token sequence beside them: it does not fit"
    tp = f"smallest tensor-parallel degree that fits: {r.min_tp}" if r.min_tp else "no tensor-parallel degree fits"
    alts = "; ".join(f"{a.weights_dtype} weights: " + (f"{a.max_sequences:,} sequences here" if a.fits
                                                       else f"from TP {a.min_tp}" if a.min_tp else "no")
                     for a in r.alternatives)
    return f"{why}; {tp}; {alts}"


# --------------------------------------------------------------------------- simulator


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


@st.cache_data(show_spinner=False, max_entries=16)
def _routers(config_json: str):
    from interviewer.simulator import ROUTERS, SimConfig, simulate

    config = SimConfig.model_validate_json(config_json)
    return {r: simulate(config.model_copy(update={"router": r, "policy": "continuous"}))
            for r in ROUTERS if r != "prefix-affinity" or config.prefixes}


def _sim_form(presets) -> dict | None:
    """The form; returns its values when submitted."""
    from interviewer.simulator import ROUTERS

    model_ids, gpu_ids = list(presets.models), list(presets.gpus)
    with st.form("sim_form"):
        c = st.columns(4)
        policy = c[0].selectbox("Policy", ["continuous", "static"], key="sim_policy")
        rate = c[1].number_input("Arrival rate (req/s)", min_value=0.01, value=4.0, step=0.5, key="sim_rate")
        model = c[2].selectbox("Model", model_ids, index=model_ids.index("llama-3-8b"), key="sim_model")
        gpu = c[3].selectbox("GPU", gpu_ids, index=gpu_ids.index("h100-80gb"), key="sim_gpu")
        c = st.columns(4)
        weights_dtype = c[0].selectbox("Weights dtype", list(capacity.WEIGHT_DTYPES), key="sim_wdtype")
        kv_dtype = c[1].selectbox("KV dtype", list(capacity.KV_DTYPES), key="sim_kvdtype")
        tp = c[2].selectbox("Tensor parallel (GPUs per replica)", [1, 2, 4, 8, 16], key="sim_tp",
                            help="Must divide the model's attention heads; a one-line error says if not.")
        replicas = c[3].number_input("Replicas", min_value=1, max_value=64, value=1, step=1, key="sim_replicas")
        c = st.columns(4)
        prompt = c[0].number_input("Prompt tokens (mean)", min_value=1, value=1000, step=100, key="sim_prompt")
        prompt_dist = c[1].selectbox("Prompt distribution", ["fixed", "exponential", "uniform"], key="sim_pdist")
        output = c[2].number_input("Output tokens (mean)", min_value=1, value=300, step=50, key="sim_output")
        output_dist = c[3].selectbox("Output distribution", ["exponential", "fixed", "uniform"], key="sim_odist")
        c = st.columns(4)
        router = c[0].selectbox("Router", list(ROUTERS), key="sim_router", help=ROUTER_HELP)
        prefixes = c[1].number_input("Shared prefixes (K)", min_value=0, value=0, step=1, key="sim_prefixes",
                                     help="Each prompt starts with one of K shared system prompts; a replica that "
                                          "holds it in its KV cache skips that prefill.")
        prefix_tokens = c[2].number_input("Prefix tokens (P)", min_value=0, value=0, step=256, key="sim_prefix_tokens")
        slo = c[3].number_input("TTFT objective (s)", min_value=0.01, value=1.0, step=0.25, key="sim_slo",
                                help="Goodput counts the requests whose first token came within this.")
        c = st.columns(4)
        max_seqs = c[0].number_input("max_num_seqs", min_value=1, value=64, step=8, key="sim_max_seqs")
        max_tokens = c[1].number_input("max_num_batched_tokens", min_value=16, value=8192, step=512,
                                       key="sim_max_tokens")
        requests = c[2].number_input("Requests", min_value=50, max_value=20000, value=1000, step=250,
                                     key="sim_requests")
        seed = c[3].number_input("Seed", min_value=0, value=0, step=1, key="sim_seed")
        with st.expander("Assumptions of the cost model"):
            c = st.columns(4)
            mfu = c[0].number_input("MFU (fraction of peak FLOPs)", min_value=0.05, max_value=1.0, value=0.5,
                                    step=0.05, key="sim_mfu")
            hbm = c[1].number_input("HBM efficiency", min_value=0.05, max_value=1.0, value=1.0, step=0.05,
                                    key="sim_hbm")
            overhead = c[2].number_input("Step overhead (ms)", min_value=0.0, max_value=100.0, value=0.5, step=0.1,
                                         key="sim_overhead")
            link = c[3].number_input("Interconnect GB/s (0: the GPU's)", min_value=0.0, value=0.0, step=50.0,
                                     key="sim_link")
        submitted = st.form_submit_button("Simulate", type="primary", icon=":material/play_arrow:")
    if not submitted:
        return None
    return dict(policy=policy, arrival_rate=rate, prompt_tokens=int(prompt), output_tokens=int(output),
                prompt_dist=prompt_dist, output_dist=output_dist, max_num_seqs=int(max_seqs),
                max_num_batched_tokens=int(max_tokens), requests=int(requests), seed=int(seed), model=model, gpu=gpu,
                weights_dtype=weights_dtype, kv_dtype=kv_dtype, tp=int(tp), replicas=int(replicas), router=router,
                prefixes=int(prefixes), prefix_tokens=int(prefix_tokens), slo_ttft_s=float(slo), mfu=float(mfu),
                hbm_efficiency=float(hbm), step_overhead_s=float(overhead) / 1000,
                interconnect_gbs=float(link) or None)


def simulator() -> None:
    import pandas as pd

    from interviewer.simulator import make_config

    values = _sim_form(capacity.load_presets())
    if values is None and "sim_config" not in st.session_state:
        st.caption("Set the workload, the fleet and its limits, then Simulate. The charts sweep the load from a "
                   "quarter of your arrival rate to twice it, one chart per batching policy.")
        return
    if values is not None:
        st.session_state["sim_config"] = make_config(**values).model_dump_json()
    config_json = st.session_state["sim_config"]
    res = _simulate(config_json)
    fleet = f", {res.replicas} replicas behind {res.router}" if res.replicas > 1 else ""
    st.markdown(f"**{res.policy.capitalize()} batching at {res.arrival_rate:g} req/s{fleet}**: "
                f"{res.completed:,} of {res.requests:,} requests completed")
    m = st.columns(4)
    m[0].metric("TTFT p50", f"{res.ttft_p50_s * 1e3:,.0f} ms")
    m[1].metric("TTFT p95", f"{res.ttft_p95_s * 1e3:,.0f} ms")
    m[2].metric("TTFT p99", f"{res.ttft_p99_s * 1e3:,.0f} ms")
    m[3].metric("Queueing (mean wait)", f"{res.wait_mean_s * 1e3:,.0f} ms")
    m = st.columns(4)
    m[0].metric("End to end (mean)", f"{res.e2e_mean_s:,.2f} s", help=f"p99 {res.e2e_p99_s:,.2f} s")
    m[1].metric("Throughput", f"{res.throughput_tokens_per_s:,.0f} tok/s", help=f"{res.requests_per_s:,.2f} req/s")
    m[2].metric("Goodput", f"{res.goodput_rps:,.2f} req/s",
                help=f"{res.slo_attainment:.0%} of requests had their first token within {res.slo_ttft_s:g} s")
    m[3].metric("Preemptions", f"{res.preemptions:,}")
    m = st.columns(4)
    m[0].metric("Mean batch", f"{res.mean_batch_size:,.1f}")
    m[1].metric("KV cache per replica", f"{res.kv_cache_tokens:,} tokens")
    if res.prefix_hit_rate is not None:
        m[2].metric("Prefix hit rate", f"{res.prefix_hit_rate:.0%}")
    st.markdown("**What drives these numbers**")
    st.markdown("\n".join(f"- {a}" for a in res.assumptions))
    with st.expander("Cost model terms"):
        st.code("\n".join(res.terms), language=None, wrap_lines=True)

    if res.replicas > 1:
        st.markdown("**Per replica**")
        st.dataframe(pd.DataFrame([{"replica": r.replica, "share": f"{r.share:.0%}", "TTFT p50 (s)": round(r.ttft_p50_s, 3),
                                    "TTFT p99 (s)": round(r.ttft_p99_s, 3), "busy": f"{r.busy_fraction:.0%}",
                                    "mean batch": round(r.mean_batch_size, 1), "preemptions": r.preemptions,
                                    "prefix hits": "-" if r.prefix_hit_rate is None else f"{r.prefix_hit_rate:.0%}"}
                                   for r in res.per_replica]), hide_index=True, width="stretch")
        st.markdown("**Routers at this load** (continuous batching)")
        st.dataframe(pd.DataFrame([{"router": name, "TTFT p50 (s)": round(r.ttft_p50_s, 3),
                                    "TTFT p99 (s)": round(r.ttft_p99_s, 3), "goodput (req/s)": round(r.goodput_rps, 2),
                                    "prefix hit rate": "-" if r.prefix_hit_rate is None else f"{r.prefix_hit_rate:.0%}",
                                    "busiest replica": f"{max(x.share for x in r.per_replica):.0%}"}
                                   for name, r in _routers(config_json).items()]), hide_index=True, width="stretch")

    rates = tuple(round(res.arrival_rate * f, 4) for f in (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0))
    runs = _sweep(config_json, rates)
    st.markdown("**TTFT percentiles against load**, one chart per policy (each its own scale, so the "
                "continuous-batching knee is not flattened by static batching's tail)")
    charts = st.columns(2)
    for col, (policy_name, results) in zip(charts, runs.items()):
        df = pd.DataFrame({"arrival rate (req/s)": [r.arrival_rate for r in results],
                           "p50": [r.ttft_p50_s for r in results], "p99": [r.ttft_p99_s for r in results]})
        col.caption(f"{policy_name} batching")
        col.line_chart(df, x="arrival rate (req/s)", y=["p50", "p99"], x_label="arrival rate (req/s)",
                       y_label="TTFT (s)")

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
    st.caption("The numbers a design round expects you to derive: what fits on the GPUs, and what your "
               "scheduling limits, tensor parallelism and routing do to the tail. GB here means GiB (2^30 bytes).")
    tabs = st.tabs(["Capacity calculator", "Serving simulator"])
    with tabs[0]:
        common.guard(calculator)
    with tabs[1]:
        common.guard(simulator)


common.guard(main)
