#!/usr/bin/env python3
"""How close placesim's cost model is to a real run: fits a "this CPU" device on one ONNX model
measured with onnxruntime on one CPU thread, then predicts other models' step times with it.

    python3 tools/calibrate_cpu.py --fit resnet50.onnx other.onnx ... [--reps 7] [--cluster-out c.json]
    make calibrate-cpu CALIBRATE_VENV=... ZOO=dir   # the models of tests/onnx_crosscheck.py --zoo

For every model:

1. **Measured**: onnxruntime (CPU provider, `intra_op_num_threads=1`, sequential executor)
   runs the model on random inputs at its own static shapes, one warm-up run before each
   series. Graph optimizations are **off** (`ORT_DISABLE_ALL`): onnxruntime runs the model's
   own nodes, one kernel per ONNX node, the graph placesim imports. The machine is shared
   (2 cores, other jobs), so wall times measure the other jobs too: the **step time** is the
   median CPU time of the calling thread (onnxruntime runs every kernel on it with one
   intra-op thread) over `--reps` runs without the profiler; an **op's time** is the median
   over `--reps` profiled runs of its node's `*_kernel_time`, a wall time, times its run's
   CPU / wall share (as if the other jobs took the core evenly over the run: long ops come
   out right, short ones that ran uninterrupted too short). Printed too: the median
   wall time, and the median CPU time with onnxruntime's default optimizations (fusions,
   constant folding, blocked layouts), what a tuned runtime does with the same graph.
2. **Fit** (the `--fit` model only): a device with one fixed cost per op (`op_overhead`) and
   one FLOP/s per op family (FAMILIES below): the overhead and the families' seconds per FLOP
   by least squares on the ops' *relative* errors (so the many small ops fix the overhead),
   then each family's FLOP/s re-derived as its FLOPs over its measured time minus the
   overheads, and the overhead and speeds scaled together so that the ops add up to the
   fit model's step time (the executor between kernels, the scaling of wall times). A family absent
   from the fit model takes the element-wise family's speed (all memory-bound on a CPU). The device
   is written as a cluster JSON (`--cluster-out`): `speed` the matrix family's FLOP/s,
   `kinds.cpu.op_speed` the other families' speeds as factors of it, `kinds.cpu.op_overhead`.
3. **Simulated**: `placesim import MODEL` and `placesim run --placer single --scheduler fifo`
   on the fitted cluster (one device, so the makespan is the sum of the ops' times); against
   the measured step time, and per op for the ops that take longest.

Needs onnxruntime and numpy (the venv of `make test-exporters` has them) and a built placesim
(PLACESIM=path, default target/release/placesim).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("PLACESIM", os.path.join(ROOT, "target", "release", "placesim"))

# Op families: one FLOP/s each. Ops of no family carry 0 FLOPs in placesim (data movement:
# Reshape, Concat, Transpose...) and cost only the overhead.
FAMILIES = {
    "matrix": ["Conv", "ConvTranspose", "Gemm", "MatMul", "Einsum", "LSTM", "GRU", "RNN",
               "ConvInteger", "MatMulInteger", "QLinearConv", "QLinearMatMul"],
    "elementwise": ["Relu", "LeakyRelu", "PRelu", "Elu", "Selu", "Sigmoid", "HardSigmoid",
                    "HardSwish", "Tanh", "Gelu", "Erf", "Exp", "Log", "Sqrt", "Reciprocal", "Neg",
                    "Abs", "Clip", "Softplus", "Add", "Sub", "Mul", "Div", "Pow", "Sum", "Max",
                    "Min", "Mean", "Where", "Equal", "Less", "Greater", "Not", "And", "Or",
                    "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "Resize",
                    "Upsample"],
    "normalization": ["BatchNormalization", "LayerNormalization", "InstanceNormalization",
                      "GroupNormalization", "LRN", "Softmax", "LogSoftmax"],
    "pooling": ["MaxPool", "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool",
                "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                "ReduceL2", "ReduceSumSquare", "ArgMax", "ArgMin", "TopK"],
}
FAMILY_OF = {op: fam for fam, ops in FAMILIES.items() for op in ops}
FALLBACK = "elementwise"


def ort_session(path, optimized, profile_prefix=None):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.log_severity_level = 3
    so.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimized
                                   else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    if profile_prefix:
        so.enable_profiling = True
        so.profile_file_prefix = profile_prefix
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def random_inputs(session):
    import numpy as np

    rng = np.random.default_rng(0)
    types = {"tensor(float)": np.float32, "tensor(double)": np.float64,
             "tensor(float16)": np.float16, "tensor(int64)": np.int64, "tensor(int32)": np.int32}
    feeds = {}
    for i in session.get_inputs():
        if not all(isinstance(d, int) and d > 0 for d in i.shape):
            raise SystemExit(f"input '{i.name}' has dynamic shape {i.shape}: export it with static shapes")
        dt = types.get(i.type)
        if dt is None:
            raise SystemExit(f"input '{i.name}' has type {i.type}, which this tool does not feed")
        feeds[i.name] = (rng.random(i.shape) if dt in (np.float32, np.float64, np.float16)
                         else rng.integers(0, 2, i.shape)).astype(dt)
    return feeds


def timed_runs(session, feeds, reps):
    """(wall, CPU) seconds of each of `reps` runs after a warm-up. With one intra-op thread
    onnxruntime runs every kernel on the calling thread, so the thread's CPU time is the
    step's work, whatever else the machine runs meanwhile."""
    session.run(None, feeds)  # warm-up: allocations, first-touch of the weights
    times = []
    for _ in range(reps):
        w0, c0 = time.perf_counter(), time.thread_time()
        session.run(None, feeds)
        times.append((time.perf_counter() - w0, time.thread_time() - c0))
    return times


def wait_for_quiet(limit, patience):
    """Waits (up to `patience` s) until the 1-minute load average is under `limit`; returns
    the load average when the measurement starts."""
    deadline = time.monotonic() + patience
    while os.getloadavg()[0] >= limit and time.monotonic() < deadline:
        time.sleep(5)
    return os.getloadavg()[0]


def measure(path, reps, with_optimized=True):
    """CPU and wall step times (s) of `reps` runs, the optimized session's CPU times, and each
    node's median kernel time (s) over `reps` profiled runs, scaled by the run's CPU share."""
    session = ort_session(path, optimized=False)
    feeds = random_inputs(session)
    steps = timed_runs(session, feeds, reps)
    del session
    optimized = None
    if with_optimized:
        session = ort_session(path, optimized=True)
        optimized = [cpu for _, cpu in timed_runs(session, feeds, reps)]
        del session
    with tempfile.TemporaryDirectory() as tmp:
        session = ort_session(path, optimized=False, profile_prefix=os.path.join(tmp, "prof"))
        times = timed_runs(session, feeds, reps)
        with open(session.end_profiling()) as f:
            events = json.load(f)
    # The profiler's model_run events, one per run in order: the first is the warm-up.
    runs = sorted((e for e in events if e.get("name") == "model_run"), key=lambda e: e["ts"])[1:]
    per_node = {}
    op_of = {}
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        run = next((k for k, r in enumerate(runs) if r["ts"] <= e["ts"] <= r["ts"] + r["dur"]), None)
        if run is None or run >= len(times):
            continue  # the warm-up run
        # A wall time, scaled by its run's CPU / wall share: what the op takes on a core of
        # its own, if the other jobs took the core evenly over the run.
        wall, cpu = times[run]
        name = e["name"][: -len("_kernel_time")]
        per_node.setdefault(name, []).append(e["dur"] * 1e-6 * min(cpu / wall, 1.0))
        op_of[name] = e["args"].get("op_name", "?")
    return {"step": [cpu for _, cpu in steps], "wall": [w for w, _ in steps], "optimized": optimized,
            "nodes": {n: statistics.median(ts) for n, ts in per_node.items()}, "op_of": op_of}


def placesim_graph(path):
    out = subprocess.run([CLI, "import", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"placesim import {path}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def joined(graph, measured):
    """(id, op, FLOPs, measured s) for every imported op that onnxruntime ran, and the
    number of imported ops it did not report (no kernel: e.g. folded constants)."""
    rows, missing = [], 0
    for n in graph["nodes"]:
        t = measured["nodes"].get(n["id"])
        if t is None:
            missing += 1
            continue
        rows.append((n["id"], n["op"], float(n.get("cost") or 0.0), t))
    return rows, missing


def fit(rows, step):
    """op_overhead (s) and FLOP/s per family from the fit model's ops and its step time."""
    import numpy as np

    fams = sorted({FAMILY_OF[op] for _, op, c, _ in rows if c > 0 and op in FAMILY_OF})
    # t_i = overhead + c_i * inv[fam_i], least squares on t_i's relative error.
    a, b = [], []
    for _, op, c, t in rows:
        row = [1.0] + [c if FAMILY_OF.get(op) == f else 0.0 for f in fams]
        a.append([x / t for x in row])
        b.append(1.0)
    sol = np.linalg.lstsq(np.array(a), np.array(b), rcond=None)[0]
    overhead = max(float(sol[0]), 0.0)
    speeds = {}
    for f in fams:
        flops = sum(c for _, op, c, _ in rows if FAMILY_OF.get(op) == f)
        secs = sum(max(t - overhead, 0.0) for _, op, c, t in rows if FAMILY_OF.get(op) == f)
        speeds[f] = flops / secs
    # The ops' times add up to the step's only roughly (the executor between kernels, the
    # CPU-share scaling): the overhead and the speeds scaled together to the step time.
    scale = step / sum(t for *_, t in rows)
    return overhead * scale, {f: s / scale for f, s in speeds.items()}


def cluster(overhead, speeds):
    base = speeds["matrix"]
    op_speed = {}
    for fam, ops in FAMILIES.items():
        s = speeds.get(fam, speeds.get(FALLBACK, base))
        if fam != "matrix":
            for op in ops:
                op_speed[op] = float(f"{s / base:.4g}")
    return {
        "name": "this CPU, one onnxruntime thread (fitted by tools/calibrate_cpu.py)",
        "devices": [{"id": "cpu0", "kind": "cpu", "speed": float(f"{base:.4g}")}],
        "bandwidth": 1e10,
        "kinds": {"cpu": {"op_speed": op_speed, "op_overhead": float(f"{overhead:.4g}")}},
    }


def simulate(graph, cluster_path):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(graph, f)
    try:
        out = subprocess.run([CLI, "run", "--graph", f.name, "--cluster", cluster_path, "--placer",
                              "single", "--scheduler", "fifo", "--json"],
                             capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        raise SystemExit(f"placesim run: {out.stderr.strip()}")
    return json.loads(out.stdout)["results"][0]["makespan"]


def predicted(op, cost, c):
    k = c["kinds"]["cpu"]
    return k["op_overhead"] + cost / (c["devices"][0]["speed"] * k["op_speed"].get(op, 1.0))


def label(path):
    return os.path.basename(path).removesuffix(".onnx").replace("_", " ", 1)


def pct(x, ref):
    return f"{100 * (x - ref) / ref:+.0f}%"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("models", nargs="*", help="ONNX models to check against the fitted device")
    p.add_argument("--fit", required=True, help="the ONNX model the device is fitted on")
    p.add_argument("--reps", type=int, default=7, help="timed runs per model and session (median)")
    p.add_argument("--top", type=int, default=3, help="per model, the ops that take longest")
    p.add_argument("--cluster-out", help="write the fitted cluster JSON here")
    p.add_argument("--json", help="write every figure as JSON here")
    p.add_argument("--quiet-load", type=float, default=2.5,
                   help="before each model, wait until the 1-minute load average is under this")
    p.add_argument("--patience", type=float, default=180,
                   help="longest wait for a quiet machine per model (s)")
    args = p.parse_args(argv)

    loads = {args.fit: wait_for_quiet(args.quiet_load, args.patience)}
    print(f"measuring {args.fit} (load {loads[args.fit]:.1f}) ...", file=sys.stderr)
    fm = measure(args.fit, args.reps)
    fg = placesim_graph(args.fit)
    rows, _ = joined(fg, fm)
    overhead, speeds = fit(rows, statistics.median(fm["step"]))
    c = cluster(overhead, speeds)
    cpath = args.cluster_out or tempfile.mkstemp(suffix=".json")[1]
    with open(cpath, "w") as f:
        json.dump(c, f, indent=1)
        f.write("\n")
    absent = sorted(set(FAMILIES) - set(speeds))
    print(f"Fitted on {label(args.fit)}: op_overhead {overhead * 1e6:.1f} us; "
          + ", ".join(f"{fam} {s / 1e9:.2f} GFLOP/s" for fam, s in sorted(speeds.items()))
          + (f"; absent from it, at the {FALLBACK} speed: {', '.join(absent)}" if absent else ""))
    print()
    print("| model | ops | FLOPs | load | measured step: CPU time, median (min-max) | wall, median | simulated | error | kernels (sum) | onnxruntime optimized |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    results = {"fit": args.fit, "overhead": overhead, "speeds": speeds, "models": []}
    per_type = {}
    tops = []
    for path in [args.fit] + [m for m in args.models if os.path.abspath(m) != os.path.abspath(args.fit)]:
        if path == args.fit:
            m, g = fm, fg
        else:
            loads[path] = wait_for_quiet(args.quiet_load, args.patience)
            print(f"measuring {path} (load {loads[path]:.1f}) ...", file=sys.stderr)
            try:
                m, g = measure(path, args.reps), placesim_graph(path)
            except (SystemExit, Exception) as e:  # noqa: BLE001: a model that fails is a row
                print(f"| {label(path)} | | | | | | | | | failed: {str(e)[:120]} |")
                continue
        sim = simulate(g, cpath)
        step = statistics.median(m["step"])
        rows, missing = joined(g, m)
        kernels = sum(t for *_, t in rows)
        flops = sum(float(n.get("cost") or 0) for n in g["nodes"])
        opt = statistics.median(m["optimized"]) if m["optimized"] else None
        name = label(path) + (" (fit)" if path == args.fit else "")
        print(f"| {name} | {len(g['nodes'])} | {flops:.3g} | {loads[path]:.1f} | {step * 1e3:.1f} ms ({min(m['step']) * 1e3:.1f}-"
              f"{max(m['step']) * 1e3:.1f}) | {statistics.median(m['wall']) * 1e3:.1f} ms | {sim * 1e3:.1f} ms | {pct(sim, step)} | {kernels * 1e3:.1f} ms"
              f" | {f'{opt * 1e3:.1f} ms' if opt else ''} |")
        ops = []
        for nid, op, cost, t in rows:
            pr = predicted(op, cost, c)
            ops.append({"id": nid, "op": op, "flops": cost, "measured": t, "simulated": pr})
            if path != args.fit:
                agg = per_type.setdefault(op, [0, 0.0, 0.0])
                agg[0] += 1
                agg[1] += t
                agg[2] += pr
        results["models"].append({"model": path, "ops": len(g["nodes"]), "flops": flops, "steps": m["step"], "wall": m["wall"],
                                  "optimized": m["optimized"], "simulated": sim, "unmatched": missing, "load": loads[path],
                                  "per_op": ops})
        for o in sorted(ops, key=lambda o: -o["measured"])[: args.top]:
            tops.append((name, o))
    print()
    print(f"The {args.top} longest ops of each model:")
    print()
    print("| model | node | op | FLOPs | measured | simulated | error |")
    print("|---|---|---|---:|---:|---:|---:|")
    for name, o in tops:
        print(f"| {name} | `{o['id']}` | {o['op']} | {o['flops']:.3g} | {o['measured'] * 1e3:.2f} ms"
              f" | {o['simulated'] * 1e3:.2f} ms | {pct(o['simulated'], o['measured'])} |")
    print()
    print("Per op type over the checked models (not the fit model), by measured time:")
    print()
    print("| op | ops | measured | simulated | error |")
    print("|---|---:|---:|---:|---:|")
    for op, (n, t, pr) in sorted(per_type.items(), key=lambda kv: -kv[1][1]):
        if t < 1e-3 * sum(v[1] for v in per_type.values()):
            continue
        print(f"| {op} | {n} | {t * 1e3:.1f} ms | {pr * 1e3:.1f} ms | {pct(pr, t)} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f)


if __name__ == "__main__":
    main()
