#!/usr/bin/env python3
"""Every table of docs/pesto.md, docs/tictac.md and docs/mayer17.md, from runs of the release CLI.

    python3 tools/doc_tables.py                 # every table, as markdown, each with its command
    python3 tools/doc_tables.py pesto-pairs     # one table (names: see TABLES below)
    PLACESIM=path/to/placesim python3 tools/doc_tables.py

Each table starts from shipped scenario files (scenarios/*.json) and changes the fields it
names (placers, schedulers, links, params, footprint); the changed scenario is written to a
temporary file and run with `placesim compare --scenario FILE --json`. The line above each
table says which scenarios and which changes, so a table can be rerun by hand too. Nothing
here computes a makespan: every number is the CLI's; the script only picks, divides and
rounds. After merging changes to the placers or the optimiser, rerun it and paste its output
over the docs' tables (the prose names the columns its claims read).
"""

import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("PLACESIM", os.path.join(ROOT, "target", "release", "placesim"))
PESTO_GRAPHS = [
    ("RNNLM", "pesto21_rnnlm_ops_train"),
    ("Transformer", "pesto21_transformer2_ops_train"),
    ("NASNet", "pesto21_nasnet_mobile_ops_infer"),
]
BASELINES = ["expert", "m-topo", "m-etf", "m-sct", "heft"]
_cache = {}


def scenario(name):
    """A shipped scenario with its cluster file's path made absolute."""
    path = os.path.join(ROOT, "scenarios", name + ".json")
    with open(path) as f:
        s = json.load(f)
    c = s.get("cluster", {})
    if "file" in c and not os.path.isabs(c["file"]):
        c["file"] = os.path.normpath(os.path.join(os.path.dirname(path), c["file"]))
    return s


def run(name, **changes):
    """`placesim compare --json` of scenario `name` with `changes` applied; cached."""
    key = (name, json.dumps(changes, sort_keys=True))
    if key in _cache:
        return _cache[key]
    s = scenario(name)
    for k, v in changes.items():
        if k == "params":
            s.setdefault("params", {}).update(v)
        else:
            s[k] = v
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(s, f)
        tmp = f.name
    try:
        out = subprocess.run(
            [CLI, "compare", "--scenario", tmp, "--json"],
            check=True, capture_output=True, text=True,
        ).stdout
    finally:
        os.unlink(tmp)
    _cache[key] = json.loads(out)
    return _cache[key]


def describe(name, **changes):
    parts = [f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in changes.items()]
    return f"`scenarios/{name}.json`" + (" with " + ", ".join(parts) if parts else "")


def rows(result):
    return {(r["placer"], r["scheduler"], r.get("link_order", "fifo")): r for r in result["results"]}


def ms(x):
    """Seconds as milliseconds, 4 significant digits."""
    return "" if x is None else f"{x * 1e3:.4g}"


def cell(r):
    if r is None:
        return "-"
    if r.get("error"):
        return "error"
    return ms(r["makespan"]) + (" OOM" if r.get("oom") else "")


def gain(base, new):
    """1 - new / base, as a signed percentage (positive: new is faster)."""
    if base is None or new is None or base.get("error") or new.get("error"):
        return ""
    return f"{(1 - new['makespan'] / base['makespan']) * 100:+.1f}%"


def ratio(base, new):
    """new / base: below 1 is faster than the base."""
    if base is None or new is None or base.get("error") or new.get("error"):
        return ""
    return f"{new['makespan'] / base['makespan']:.3f}"


def header(cols):
    return "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols)


def table_pesto_pairs(links):
    changes = dict(
        placers=BASELINES + ["pesto"], schedulers=["random", "pct", "given"], links=links
    )
    out = [
        f"Command: `python3 tools/doc_tables.py pesto-pairs-{links}` (each of "
        + ", ".join(describe(g, **changes) for _, g in PESTO_GRAPHS[:1])
        + " and the same for the other two Pesto21 scenarios). Makespans in ms; `given` runs "
        "with the placers that plan (heft, pesto). Placement = the placer's row under `random` "
        "over `expert x random` (below 1: faster than Expert's placement); order = the same placement under `pct` and under its plan's "
        "order (`given`) against itself under `random` (positive: faster).",
        "",
        header(["graph", "placer", "random", "pct", "given", "placement: random / expert x random",
                "order: pct vs random", "order: given vs random"]),
    ]
    for label, g in PESTO_GRAPHS:
        r = rows(run(g, **changes))
        expert = r.get(("expert", "random", "fifo"))
        for p in BASELINES + ["pesto"]:
            rnd, pct, giv = (r.get((p, s, "fifo")) for s in ("random", "pct", "given"))
            out.append(
                f"| {label} | {p} | {cell(rnd)} | {cell(pct)} | {cell(giv)} | "
                f"{ratio(expert, rnd) if p != 'expert' else ''} | {gain(rnd, pct)} | {gain(rnd, giv)} |"
            )
    return "\n".join(out)


def plan_of(row):
    return row.get("plan") or {}


def table_pesto_ablation():
    out = [
        "Command: `python3 tools/doc_tables.py pesto-ablation` (each Pesto21 scenario with "
        "placers=[\"pesto\"], schedulers=[\"random\",\"given\"], on fcfs and parallel links; "
        "search off: params={\"pesto.budget\":1}, the warm starts chosen as usual and no "
        "candidate searched beyond them). Makespans in ms.",
        "",
        header(["graph", "links", "search on: given", "search off: given", "search gain",
                "search on: random", "search off: random", "status (search on)"]),
    ]
    for label, g in PESTO_GRAPHS:
        for links in ("fcfs", "parallel"):
            base = dict(placers=["pesto"], schedulers=["random", "given"], links=links)
            on = rows(run(g, **base))
            off = rows(run(g, **base, params={"pesto.budget": 1}))
            on_g, off_g = on.get(("pesto", "given", "fifo")), off.get(("pesto", "given", "fifo"))
            on_r, off_r = on.get(("pesto", "random", "fifo")), off.get(("pesto", "random", "fifo"))
            out.append(
                f"| {label} | {links} | {cell(on_g)} | {cell(off_g)} | {gain(off_g, on_g)} | "
                f"{cell(on_r)} | {cell(off_r)} | {status(on_g)} |"
            )
    return "\n".join(out)


def status(row):
    """The plan's solve report in words that never claim more than it proves."""
    if row is None or row.get("error"):
        return ""
    rep = None
    for k in ("solve", "plan_summary", "solve_report", "plan"):
        if isinstance(row.get(k), dict):
            rep = row[k]
            break
    if rep is None:
        return "no report"
    st = rep.get("status", "?")
    scope = rep.get("bound_of") or rep.get("bound_scope") or ""
    coarse = rep.get("coarse_vertices")
    text = f"{st}"
    if coarse:
        text += f"; searched over {coarse} coarse units"
    if scope and "coarse" in str(scope).lower():
        text += "; its bound is the coarse graph's, not this instance's"
    return text


def table_pesto_live():
    out = [
        "Command: `python3 tools/doc_tables.py pesto-live` (each Pesto21 scenario with "
        "footprint=\"live\", schedulers=[\"random\",\"given\"], params={\"m-etf.static_memory\":0,"
        "\"m-sct.static_memory\":0}, i.e. Baechi's placers with Baechi's memory rule): makespans in ms, `OOM` where "
        "the simulated peak of live tensors exceeds a device's memory; beside it the shipped "
        "rule (`inputs_outputs`): `error` where the placement is refused.",
        "",
        header(["graph", "placer", "live: random", "live: peak gpu0 / gpu1 (GB)",
                "inputs_outputs: random"]),
    ]
    for label, g in PESTO_GRAPHS:
        live = rows(run(g, footprint="live", schedulers=["random", "given"],
                        params={"m-etf.static_memory": 0, "m-sct.static_memory": 0}))
        static = rows(run(g, schedulers=["random", "given"]))
        for p in BASELINES + ["pesto"]:
            lr = live.get((p, "random", "fifo"))
            peaks = ""
            if lr and not lr.get("error"):
                gpus = [d for d in lr.get("devices", []) if "gpu" in str(d.get("device", d.get("id", "")))]
                peaks = " / ".join(f"{d['peak_memory'] / 1e9:.2f}" for d in gpus)
            out.append(f"| {label} | {p} | {cell(lr)} | {peaks} | {cell(static.get((p, 'random', 'fifo')))} |")
    return "\n".join(out)


TICTAC = ["alexnet", "inception_v3", "par32", "seq32", "vgg16"]


def tictac_names():
    for m in TICTAC:
        for kind in ("fw", "fw_w1", "train"):
            if os.path.exists(os.path.join(ROOT, "scenarios", f"tictac19_{m}_{kind}.json")):
                yield f"tictac19_{m}_{kind}"


def table_tictac():
    out = [
        "Command: `python3 tools/doc_tables.py tictac` (each `scenarios/tictac19_*.json` as "
        "shipped; `placesim compare --scenario FILE --json`). Times in seconds.",
        "",
        header(["scenario", "random p50 / p95", "tio p50 / p95", "tao p50 / p95",
                "E random / tio / tao", "straggler random / tao", "tao vs random mean"]),
    ]
    for name in tictac_names():
        r = {x["link_order"]: x for x in run(name)["results"]}
        it = {k: v["iteration_time"] for k, v in r.items()}
        e = " / ".join(f"{r[k]['ordering']['efficiency']:.2f}" for k in ("random", "tio", "tao"))
        st = " / ".join(f"{r[k]['ordering']['straggler']['mean'] * 100:.1f}%" for k in ("random", "tao"))
        pp = lambda k: f"{it[k]['p50']:.4g} / {it[k]['p95']:.4g}"
        speed = (it["random"]["mean"] / it["tao"]["mean"] - 1) * 100
        out.append(
            f"| {name.removeprefix('tictac19_')} | {pp('random')} | {pp('tio')} | {pp('tao')} | "
            f"{e} | {st} | {speed:+.1f}% |"
        )
    return "\n".join(out)


def table_tictac_train():
    out = [
        "Command: `python3 tools/doc_tables.py tictac-train` (each shipped training scenario; "
        "worker w0 of its `tao` and `random` rows, mean over iterations of E, and w0's times of "
        "iteration 0: t_w, Eq. 1's upper and Eq. 2's lower). Seconds.",
        "",
        header(["scenario", "order", "t_w", "upper (Eq. 1)", "lower (Eq. 2)", "t_w - upper",
                "E (mean)"]),
    ]
    for name in tictac_names():
        if not name.endswith("_train"):
            continue
        r = {x["link_order"]: x for x in run(name)["results"]}
        for k in ("random", "tao"):
            o = r[k]["ordering"]
            w = o["workers"][0]
            out.append(
                f"| {name.removeprefix('tictac19_')} | {k} | {w['time']:.4g} | {w['upper']:.4g} | "
                f"{w['lower']:.4g} | {w['time'] - w['upper']:+.3g} | {o['efficiency']:.3f} |"
            )
    return "\n".join(out)


MAYER = ["alexnet_ops_train", "vgg16_ops_train", "rnnlm_ops_train", "transformer2_ops_train",
         "inception_v3_ops_infer", "resnet50_ops_infer", "nasnet_mobile_ops_infer"]


def table_mayer17():
    changes = dict(placers=["hash", "critical-path", "heft"], schedulers=["fifo", "pct"])
    out = [
        "Command: `python3 tools/doc_tables.py mayer17` (each `scenarios/mayer17_<graph>.json` "
        f"with placers={json.dumps(changes['placers'])}, schedulers={json.dumps(changes['schedulers'])}; "
        "Mayer17 §5.1's setup: 50 generated devices, random costs and sizes, 10 seeds, mean "
        "makespan in the model's time units).",
        "",
        header(["graph", "hash x fifo", "critical-path x pct", "heft x pct",
                "hash x fifo / cp x pct", "cp x pct / heft x pct",
                "bytes between devices: cp / heft"]),
    ]
    ratios, heft = [], []
    for g in MAYER:
        name = f"mayer17_{g}"
        if not os.path.exists(os.path.join(ROOT, "scenarios", name + ".json")):
            continue
        r = rows(run(name, **changes))
        hf, cp, hp = (r.get(k) for k in (("hash", "fifo", "fifo"), ("critical-path", "pct", "fifo"),
                                          ("heft", "pct", "fifo")))
        if any(x is None or x.get("error") for x in (hf, cp, hp)):
            out.append(f"| {g} | {cell(hf)} | {cell(cp)} | {cell(hp)} | | |")
            continue
        a, b = hf["makespan"] / cp["makespan"], cp["makespan"] / hp["makespan"]
        ratios.append(a)
        heft.append(b)
        out.append(f"| {g} | {hf['makespan']:.4g} | {cp['makespan']:.4g} | {hp['makespan']:.4g} | "
                   f"{a:.3f} | {b:.3f} | {cp['traffic_bytes']:.4g} / {hp['traffic_bytes']:.4g} |")
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
    out.append(f"| geometric mean | | | | {geo(ratios):.3f} | {geo(heft):.3f} | |")
    return "\n".join(out)


TABLES = {
    "pesto-pairs-fcfs": lambda: table_pesto_pairs("fcfs"),
    "pesto-pairs-parallel": lambda: table_pesto_pairs("parallel"),
    "pesto-ablation": table_pesto_ablation,
    "pesto-live": table_pesto_live,
    "tictac": table_tictac,
    "tictac-train": table_tictac_train,
    "mayer17": table_mayer17,
}


def main(argv):
    names = argv or list(TABLES)
    for n in names:
        if n not in TABLES:
            sys.exit(f"unknown table '{n}' (one of {', '.join(TABLES)})")
    if not os.path.exists(CLI):
        sys.exit(f"no CLI at {CLI}: build it (cargo build --release) or set PLACESIM")
    for n in names:
        print(f"### table: {n}\n")
        print(TABLES[n]())
        print()
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
