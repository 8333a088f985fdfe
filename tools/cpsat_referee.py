#!/usr/bin/env python3
"""An independent referee for `pesto` (issue 21): a CP-SAT model of placesim's problem,
written from the rules of docs/pesto.md and /work/shared/graph-format.md (not from
src/optim/cp), whose schedule placesim's own simulator then replays.

The rules modelled (graph format v1, `fcfs` links):
- an op runs on one device, `cost / speed` seconds, one op at a time per device; a
  `device` rule (id or kind) and `colocate` groups restrict the placement;
- every tensor (an edge, or the edges of one op sharing a `tensor` name) is sent once to
  each other device that consumes it, after its producer ends, taking
  `latency + bytes / bandwidth` of the directed link; a consumer starts after every input
  has arrived; with `fcfs` links a directed link carries one transfer (of more than 0 bytes)
  at a time, first come first served (placesim's default `fifo` link order): a transfer
  whose producer ended earlier goes first, one producer's transfers go in edge order, and
  only producers ending at the same instant may go either way; --free-links lets the model
  order every link freely instead (Pesto21's ILP, docs/pesto.md reading 1.5 f; then the
  replay under fifo may differ from the model);
- memory: the ops' static footprint per device (`mem` plus output tensors, placesim's
  default `outputs` footprint) at most the device's memory.
Time is integral in the model: every duration rounded UP to a tick of `horizon / TICKS` (the
horizon: every op on the device that runs them all fastest, a schedule the search is hinted
with; else everything serial at its slowest), so
the model's schedules are feasible in real arithmetic; its bound is turned into a bound
of the real problem by subtracting one tick per activity that can lie on a chain.

Output (one JSON line): the model's makespan and bound (seconds), CP-SAT's status, and with
--replay, the makespan placesim simulates for the schedule. The replay writes a copy of the
graph whose every op is pinned (`device`: its device id) and where 0-byte control edges chain
each device's ops in the model's start order, then runs
`placesim run --placer pinned --scheduler fifo --links fcfs` on it: the simulator's link
order (`fifo` unless --link-order) decides the transfers, so the replayed makespan is a
real simulated schedule, the number to compare with `pesto x given`.

Usage:
  python3 -m venv /work/venv-21 && /work/venv-21/bin/pip install ortools
  /work/venv-21/bin/python tools/cpsat_referee.py --graph g.json --cluster c.json \
      [--seconds 60] [--workers 2] [--replay target/ci/placesim] [--write-pinned out.json]
  /work/venv-21/bin/python tools/cpsat_referee.py --merge runs.jsonl > benches/data/cpsat_random.json
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

from ortools.sat.python import cp_model

TICKS = 1_000_000


def fail(msg):
    sys.exit(f"cpsat_referee: {msg}")


def load(graph_path, cluster_path):
    with open(graph_path) as f:
        g = json.load(f)
    with open(cluster_path) as f:
        c = json.load(f)
    devs = c["devices"]
    k = len(devs)
    dev_ix = {d["id"]: i for i, d in enumerate(devs)}
    for d in devs:
        if not d.get("speed", 0) > 0:
            fail(f"device '{d['id']}': speed must be > 0")
    if c.get("kinds"):
        fail("cluster 'kinds' (per-op speed factors) are not modelled")
    bw = [[float(c["bandwidth"])] * k for _ in range(k)]
    lat = [[float(c.get("latency", 0.0))] * k for _ in range(k)]
    for l in c.get("links", []):
        s, d = dev_ix[l["src"]], dev_ix[l["dst"]]
        if "bandwidth" in l:
            bw[s][d] = float(l["bandwidth"])
        if "latency" in l:
            lat[s][d] = float(l["latency"])
    nodes = g["nodes"]
    ix = {nd["id"]: i for i, nd in enumerate(nodes)}
    n = len(nodes)
    exec_ = []
    for nd in nodes:
        if "time" in nd:
            fail(f"node '{nd['id']}': 'time' tables are not modelled")
        row = []
        rule = nd.get("device")
        for d in devs:
            ok = rule is None or rule == d["id"] or rule == d.get("kind", "gpu")
            row.append(float(nd["cost"]) / float(d["speed"]) if ok else math.inf)
        if all(math.isinf(x) for x in row):
            fail(f"node '{nd['id']}': no device matches its device rule '{rule}'")
        exec_.append(row)
    # Messages: (producer, consumers, bytes); named tensors of one producer are one message.
    messages = []
    named = {}
    for e in g["edges"]:
        u, v = ix[e["src"]], ix[e["dst"]]
        b = float(e.get("bytes", 0.0))
        t = e.get("tensor")
        if t is None:
            messages.append([u, [v], b])
        elif (u, t) in named:
            m = messages[named[(u, t)]]
            if v not in m[1]:
                m[1].append(v)
        else:
            named[(u, t)] = len(messages)
            messages.append([u, [v], b])
    foot = [float(nd.get("mem", 0.0)) for nd in nodes]
    for u, _, b in messages:
        foot[u] += b
    groups = {}
    for i, nd in enumerate(nodes):
        if "colocate" in nd:
            groups.setdefault(nd["colocate"], []).append(i)
    return dict(g=g, c=c, n=n, k=k, exec=exec_, bw=bw, lat=lat, messages=messages,
                foot=foot, groups=list(groups.values()),
                memory=[float(d.get("memory", math.inf)) for d in devs])


def transfer(p, s, d, b):
    return p["lat"][s][d] + b / p["bw"][s][d]


def serial_horizon(p):
    run = sum(max(x for x in row if not math.isinf(x)) for row in p["exec"])
    k = p["k"]
    worst = lambda b: max((transfer(p, s, d, b) for s in range(k) for d in range(k) if s != d),
                          default=0.0)
    return run + sum(worst(b) * len(cs) for _, cs, b in p["messages"])


def ts_a_of(xs, i):
    return xs[i][2]


def reachability(p):
    succ = [set() for _ in range(p["n"])]
    for u, cs, _ in p["messages"]:
        succ[u].update(cs)
    reach = [None] * p["n"]

    def visit(v):
        if reach[v] is None:
            r = set()
            for w in succ[v]:
                r.add(w)
                r |= visit(w)
            reach[v] = r
        return reach[v]

    sys.setrecursionlimit(10000 + 10 * p["n"])
    for v in range(p["n"]):
        visit(v)
    return reach


def one_device(p):
    """The device that runs everything alone fastest (None when no device may run every op
    or holds every op's footprint): a schedule with no transfer, its makespan a horizon."""
    best = None
    for d in range(p["k"]):
        load = sum(row[d] for row in p["exec"])
        if math.isinf(load) or sum(p["foot"]) > p["memory"][d]:
            continue
        if best is None or load < best[1]:
            best = (d, load)
    return best


def topological(p):
    indeg = [0] * p["n"]
    succ = [[] for _ in range(p["n"])]
    for u, cs, _ in p["messages"]:
        for c in cs:
            succ[u].append(c)
            indeg[c] += 1
    order = [v for v in range(p["n"]) if indeg[v] == 0]
    for v in order:
        for c in succ[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                order.append(c)
    return order


def solve(p, seconds, workers, seed, fifo=True):
    n, k = p["n"], p["k"]
    alone = one_device(p)
    H = alone[1] if alone else serial_horizon(p)
    scale = TICKS / H
    up = lambda x: int(math.ceil(x * scale - 1e-9))
    m = cp_model.CpModel()
    hor = TICKS + 1
    x = [[None] * k for _ in range(n)]
    start = [m.NewIntVar(0, hor, f"s{v}") for v in range(n)]
    end = [m.NewIntVar(0, hor, f"e{v}") for v in range(n)]
    dev_intervals = [[] for _ in range(k)]
    for v in range(n):
        for d in range(k):
            if math.isinf(p["exec"][v][d]):
                continue
            x[v][d] = m.NewBoolVar(f"x{v}_{d}")
            dur = up(p["exec"][v][d])
            dev_intervals[d].append(m.NewOptionalIntervalVar(start[v], dur, end[v], x[v][d], f"o{v}_{d}"))
        m.AddExactlyOne([l for l in x[v] if l is not None])
    on = lambda v, d: x[v][d] if x[v][d] is not None else m.NewConstant(0)
    for grp in p["groups"]:
        for v in grp[1:]:
            for d in range(k):
                if x[v][d] is None or x[grp[0]][d] is None:
                    if x[v][d] is not None:
                        m.Add(x[v][d] == 0)
                    if x[grp[0]][d] is not None:
                        m.Add(x[grp[0]][d] == 0)
                else:
                    m.Add(x[v][d] == x[grp[0]][d])
    for d in range(k):
        m.AddNoOverlap(dev_intervals[d])
        if not math.isinf(p["memory"][d]):
            m.Add(sum(int(round(p["foot"][v])) * x[v][d] for v in range(n) if x[v][d] is not None)
                  <= int(math.floor(p["memory"][d])))
    links = {(s, d): [] for s in range(k) for d in range(k) if s != d}
    activities = n
    # (producer, dst) -> [(bytes, ts, te, presence)] for the fifo tie rule below.
    sent = {}
    # dst -> [(producer, bytes, ts, te, {src: presence})] for fifo between producers.
    on_link = {}
    for mi, (u, cs, b) in enumerate(p["messages"]):
        for d in range(k):
            cons = [c for c in cs if x[c][d] is not None]
            if not cons:
                continue
            # need[d]: some consumer on d and the producer elsewhere.
            some = m.NewBoolVar(f"c{mi}_{d}")
            m.AddMaxEquality(some, [x[c][d] for c in cons])
            ts = m.NewIntVar(0, hor, f"ts{mi}_{d}")
            te = m.NewIntVar(0, hor, f"te{mi}_{d}")
            m.Add(ts >= end[u])
            pres = []
            srcs = []
            for s in range(k):
                if s == d or x[u][s] is None:
                    continue
                y = m.NewBoolVar(f"y{mi}_{s}_{d}")
                m.AddBoolAnd([some, x[u][s]]).OnlyEnforceIf(y)
                m.AddBoolOr([some.Not(), x[u][s].Not()]).OnlyEnforceIf(y.Not())
                pres.append(y)
                srcs.append(s)
                dur = up(transfer(p, s, d, b))
                iv = m.NewOptionalIntervalVar(ts, dur, te, y, f"t{mi}_{s}_{d}")
                if b > 0:
                    links[(s, d)].append(iv)
            activities += 1
            sent.setdefault((u, d), []).append((b, ts, te, some))
            on_link.setdefault(d, []).append((u, b, ts, te, {s: y for s, y in zip(srcs, pres)}))
            for c in cons:
                for y in pres:
                    m.Add(start[c] >= te).OnlyEnforceIf([x[c][d], y])
            # Same device (or no transfer): the consumer waits for the producer only.
            for c in cons:
                m.Add(start[c] >= end[u]).OnlyEnforceIf(x[c][d])
    for ivs in links.values():
        if ivs:
            m.AddNoOverlap(ivs)
    # fifo's tie rule: one producer's transfers to one device become ready together and go
    # in the order the simulator announces them (the producer's tensors in edge order).
    if fifo:
        reach = reachability(p)
        before = {}
        for d, xs in on_link.items():
            xs = [t for t in xs if t[1] > 0]
            for i, (ua, _, _, te_a, ya) in enumerate(xs):
                for ub, _, ts_b, te_b, yb in xs[i + 1:]:
                    if ua == ub:
                        continue  # the tie rule below
                    if ub in reach[ua]:
                        o = True
                    elif ua in reach[ub]:
                        o = False
                    else:
                        key = (min(ua, ub), max(ua, ub))
                        if key not in before:
                            o = m.NewBoolVar(f"f{key}")
                            m.Add(end[key[0]] <= end[key[1]]).OnlyEnforceIf(o)
                            m.Add(end[key[1]] <= end[key[0]]).OnlyEnforceIf(o.Not())
                            before[key] = o
                        o = before[key] if ua == key[0] else before[key].Not()
                    for s, y in ya.items():
                        if s not in yb:
                            continue
                        if o is True:
                            m.Add(ts_b >= te_a).OnlyEnforceIf([y, yb[s]])
                        elif o is False:
                            m.Add(ts_a_of(xs, i) >= te_b).OnlyEnforceIf([y, yb[s]])
                        else:
                            m.Add(ts_b >= te_a).OnlyEnforceIf([y, yb[s], o])
                            m.Add(ts_a_of(xs, i) >= te_b).OnlyEnforceIf([y, yb[s], o.Not()])
    for xs in sent.values() if fifo else []:
        xs = [t for t in xs if t[0] > 0]
        for i, (_, _, te_a, pa) in enumerate(xs):
            for _, ts_b, _, pb in xs[i + 1:]:
                m.Add(ts_b >= te_a).OnlyEnforceIf([pa, pb])
    cmax = m.NewIntVar(0, hor, "cmax")
    m.AddMaxEquality(cmax, end)
    # Redundant: each device's load and the total load against the makespan.
    for d in range(k):
        m.Add(sum(up(p["exec"][v][d]) * x[v][d] for v in range(n) if x[v][d] is not None) <= cmax)
    m.Minimize(cmax)
    if alone:
        # A hint (every op on that device, in topological order): a first schedule.
        d, _ = alone
        t = 0
        for v in topological(p):
            m.AddHint(start[v], t)
            t += up(p["exec"][v][d])
            m.AddHint(end[v], t)
            for e in range(k):
                if x[v][e] is not None:
                    m.AddHint(x[v][e], int(e == d))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = seconds
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    st = solver.Solve(m)
    name = solver.StatusName(st)
    if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return dict(status=name), None
    dev = [next(d for d in range(k) if x[v][d] is not None and solver.Value(x[v][d])) for v in range(n)]
    starts = [solver.Value(start[v]) for v in range(n)]
    # The real schedule is at most the model's (durations rounded up); the real optimum is at
    # least the model's bound minus one tick per activity on a chain (at most all of them).
    bound_ticks = max(0.0, solver.BestObjectiveBound() - activities)
    out = dict(status=name, model_makespan=solver.ObjectiveValue() / scale,
               bound=bound_ticks / scale, seconds=solver.WallTime(), ticks_per_second=scale)
    return out, (dev, starts)


def pinned_graph(p, dev, starts):
    g = json.loads(json.dumps(p["g"]))
    ids = [d["id"] for d in p["c"]["devices"]]
    for v, nd in enumerate(g["nodes"]):
        nd["device"] = ids[dev[v]]
        nd.pop("colocate", None)
    for d in range(p["k"]):
        seq = sorted((v for v in range(p["n"]) if dev[v] == d), key=lambda v: (starts[v], v))
        for a, b in zip(seq, seq[1:]):
            g["edges"].append({"src": g["nodes"][a]["id"], "dst": g["nodes"][b]["id"], "bytes": 0})
    g["name"] = g.get("name", "graph") + "-cpsat-pinned"
    return g


def replay(binary, graph_path, cluster_path, link_order):
    cmd = [binary, "run", "--graph", graph_path, "--cluster", cluster_path, "--links", "fcfs",
           "--link-order", link_order, "--placer", "pinned", "--scheduler", "fifo", "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"replay failed: {' '.join(cmd)}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def find_makespan(v):
    if isinstance(v, dict):
        if "makespan" in v and isinstance(v["makespan"], (int, float)):
            return float(v["makespan"])
        for w in v.values():
            r = find_makespan(w)
            if r is not None:
                return r
    if isinstance(v, list):
        for w in v:
            r = find_makespan(w)
            if r is not None:
                return r
    return None


def merge(paths):
    """One JSON of the runs' lines, by instance (`nN_kK_sS`), ops, devices and seed."""
    runs = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    name = r["graph"].removesuffix(".graph.json")
                    r["instance"] = name
                    r["seed"] = int(name.rsplit("_s", 1)[1])
                    runs[name] = r
    key = lambda r: (r["ops"], r["devices"], r["seed"])
    print(json.dumps({
        "command": "tools/cpsat_referee.py --graph benches/data/random/NAME.graph.json "
                   "--cluster benches/data/random/NAME.cluster.json --seconds S --workers 2 "
                   "--replay target/ci/placesim (S and the workers per instance: limit_seconds, workers), then --merge",
        "instances": sorted(runs.values(), key=key),
    }, indent=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph")
    ap.add_argument("--cluster")
    ap.add_argument("--merge", nargs="+", metavar="JSONL",
                    help="instead of solving: merge the one-line outputs of earlier runs "
                         "(files of them; later lines win) into one JSON (benches/data/cpsat_random.json)")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--replay", metavar="PLACESIM", help="placesim binary to replay the schedule with")
    ap.add_argument("--link-order", default="fifo")
    ap.add_argument("--free-links", action="store_true", help="any order on each link (no fifo rule)")
    ap.add_argument("--write-pinned", metavar="FILE", help="write the pinned, chained graph here")
    a = ap.parse_args()
    if a.merge:
        return merge(a.merge)
    if not (a.graph and a.cluster):
        fail("--graph and --cluster are required")
    p = load(a.graph, a.cluster)
    out, sched = solve(p, a.seconds, a.workers, a.seed, fifo=not a.free_links)
    out.update(graph=os.path.basename(a.graph), ops=p["n"], devices=p["k"],
               limit_seconds=a.seconds, workers=a.workers)
    if sched is not None and (a.replay or a.write_pinned):
        g = pinned_graph(p, *sched)
        path = a.write_pinned
        if path is None:
            fd, path = tempfile.mkstemp(suffix=".graph.json")
            os.close(fd)
        with open(path, "w") as f:
            json.dump(g, f)
        if a.replay:
            out["replayed"] = find_makespan(replay(a.replay, path, a.cluster, a.link_order))
            out["link_order"] = a.link_order
        if a.write_pinned is None:
            os.unlink(path)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
