//! Real-graph benchmark (`make bench-real`): prints figures, asserts nothing.
//!
//! For every bundled graph (graphs/*.json with a node list) on three clusters (8 and 50
//! generated devices, and the hardware preset `graphs/clusters/hw_2node_8xV100_10gbe.json`):
//!
//! - `default`: the whole default comparison (every default placer x scheduler, parallel
//!   links, `fifo` link order, one seed, one thread: `compare::run`), wall time;
//! - a breakdown under `fcfs` links with every link order (`fifo, random, tio, tao, given`):
//!   each placer's placement time, and each pair's simulation time, summed per scheduler and
//!   per link order; the slowest placer, scheduler and link order with their share of that
//!   breakdown's whole time.
//!
//! Then the degenerate shapes (`shapes`), at 50,000 ops unless a size is given: one
//! colocation group with no edges, independent ops, one op with that many inputs, a chain,
//! two ops feeding every other with tensor sizes all distinct (m-ETF's worst case);
//! each the whole default comparison on 8 generated devices, with its slowest placer.
//!
//! `cargo bench --bench real -- graphs` runs only the bundled graphs, `-- shapes [N]` only
//! the shapes (N ops; `-- shape I` only the I-th, 0-based; `-- repeat R` the least of R runs
//! of each), `-- only NAME` only the graph NAME; `-- exclude a,b` leaves placers out of every
//! comparison (say, one known to be quadratic, to time the others), `-- keep a,b` keeps only
//! those (say, one placer to profile); `-- pairs N I` times each
//! placer and each of its pairs on the I-th shape of N ops (where a shape's time goes);
//! `-- file PATH` the whole default comparison of a graph file on 8 generated devices (least
//! of `repeat R` runs), and of it the placers' time and the simulations' (the rest), and each
//! placer's time (`-- devices D` another generated cluster, `-- placers` the placers only).
//!
//! `-- growth INPUT N` times every strategy alone on one input, for docs/cost.md's growth
//! ratios (run it at N, 2N, 4N): INPUT is `shape0`..`shape4` (the shapes above, N ops),
//! `shape5` (three ops feeding every other, tensor sizes distinct: m-ETF's worst case
//! left) or a graph file (N side-by-side copies of it, ids prefixed `cI/`); on 8 generated devices
//! (`devices D`), CPU ms, one line per item, printed as it ends: the load (`Graph::from_json`
//! with its validation, `Problem::new`), every placer but `pinned`, `coarsen` to 200
//! vertices (Pesto21 §3.3), `prepare` (the simulator's per-placement set-up), then under
//! fcfs links every scheduler with the `fifo` link order and every link order with the
//! `fifo` scheduler, on `hash`'s placement (random, so most edges cross devices), `given`
//! replaying `heft`'s plan. `skip a,b` leaves strategies out (say, one that is quadratic).

use std::collections::BTreeMap;
use std::time::Instant;

mod common;

use placesim::compare;
use placesim::model::cluster::Cluster;
use placesim::model::graph::Graph;
use placesim::model::problem::Problem;
use placesim::model::LinkModel;
use placesim::scenario::{ClusterSource, GraphSource, Scenario};

const HW_PRESET: &str = "hw_2node_8xV100_10gbe";

/// A start time: wall clock, and this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, Linux).
/// The machine this ran on is shared, so the tables report CPU time: wall time there
/// counts other processes' turns too.
#[derive(Clone, Copy)]
struct Start(Instant, Option<u64>);

#[cfg(target_os = "linux")]
fn cpu_ns() -> Option<u64> {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into `t`, which lives across the call.
    let ok = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    ok.then(|| t.sec as u64 * 1_000_000_000 + t.nsec as u64)
}

#[cfg(not(target_os = "linux"))]
fn cpu_ns() -> Option<u64> {
    None
}

fn now() -> Start {
    Start(Instant::now(), cpu_ns())
}

/// Milliseconds since `t`: CPU time when known, else wall time.
fn ms(t: Start) -> f64 {
    match (t.1, cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 / 1e6,
        _ => t.0.elapsed().as_secs_f64() * 1e3,
    }
}

/// Placers left out of every comparison (`-- exclude a,b`): none unless asked.
static EXCLUDE: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();

/// The only placers of every comparison (`-- keep a,b`): every default unless asked.
static KEEP: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();

fn scenario(graph: &Graph) -> Scenario {
    let mut s = Scenario::new(
        GraphSource::File(format!("{}.json", graph.name)),
        ClusterSource::File("cluster.json".into()),
    );
    let exclude = EXCLUDE.get_or_init(Vec::new);
    let keep = KEEP.get_or_init(Vec::new);
    if !exclude.is_empty() || !keep.is_empty() {
        s.placers = placesim::place::default_placers();
        s.placers
            .retain(|p| !exclude.contains(p) && (keep.is_empty() || keep.contains(p)));
    }
    s
}

/// The whole default comparison, one thread, item by item as `--jobs 2` splits it
/// (`compare::work_items`): CPU ms, and the speedup two threads can reach at best with
/// these items (their sum over the longest-first schedule's span on 2 threads).
fn whole_default(graph: &Graph, cluster: &Cluster) -> (f64, f64) {
    let resolved = scenario(graph).resolve().unwrap();
    let mut cache = compare::SeedCache::default();
    let mut times: Vec<f64> = compare::work_items(&resolved, 2)
        .iter()
        .map(|item| {
            let t = now();
            compare::run_part(
                &resolved,
                graph,
                Some(cluster),
                std::slice::from_ref(item),
                &mut cache,
                &mut |_, _| true,
            )
            .unwrap();
            ms(t)
        })
        .collect();
    let total: f64 = times.iter().sum();
    times.sort_by(|a, b| b.total_cmp(a));
    let mut threads = [0.0f64; 2];
    for t in times {
        let i = if threads[0] <= threads[1] { 0 } else { 1 };
        threads[i] += t;
    }
    (total, total / threads[0].max(threads[1]).max(1e-9))
}

struct Breakdown {
    total: f64,
    placers: BTreeMap<&'static str, f64>,
    schedulers: BTreeMap<&'static str, f64>,
    orders: BTreeMap<&'static str, f64>,
}

/// Every default placer, then each of its pairs under fcfs links and every link order.
fn breakdown(graph: &Graph, cluster: &Cluster) -> Breakdown {
    let mut s = scenario(graph);
    s.links = LinkModel::Fcfs;
    s.link_order = ["fifo", "random", "tio", "tao", "given"]
        .map(String::from)
        .to_vec();
    let resolved = s.resolve().unwrap();
    let p = Problem::new(graph, cluster).unwrap();
    let mut b = Breakdown {
        total: 0.0,
        placers: BTreeMap::new(),
        schedulers: BTreeMap::new(),
        orders: BTreeMap::new(),
    };
    for (pi, placer) in resolved.placers.iter().enumerate() {
        let t = now();
        let plan = compare::place(&p, &resolved, pi, 0, &mut |_| true).ok();
        let t_place = ms(t);
        b.total += t_place;
        *b.placers.entry(placer.info.name).or_default() += t_place;
        let Some((plan, _)) = plan else { continue };
        for &pair in resolved.pairs.iter().filter(|x| x.0 == pi) {
            let t = now();
            // A replay that deadlocks is a row error, not a benchmark failure.
            let _ = compare::simulate(&p, &resolved, &plan, pair, 0, false);
            let t_sim = ms(t);
            b.total += t_sim;
            *b.schedulers
                .entry(resolved.schedulers[pair.1].info.name)
                .or_default() += t_sim;
            *b.orders
                .entry(resolved.link_orders[pair.2].info.name)
                .or_default() += t_sim;
        }
    }
    b
}

fn slowest(m: &BTreeMap<&'static str, f64>, total: f64) -> String {
    let (name, t) = m
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(n, t)| (*n, *t))
        .unwrap_or(("-", 0.0));
    format!("{name} {t:.0} ms ({:.0}%)", 100.0 * t / total.max(1e-9))
}

fn row(graph: &Graph, label: &str, cluster: &Cluster) {
    let (whole, two) = whole_default(graph, cluster);
    let b = breakdown(graph, cluster);
    let max_place = b.placers.values().cloned().fold(0.0, f64::max);
    println!(
        "| {} | {} | {} | {label} | {whole:.0} | {two:.2}x | {:.0} | {max_place:.0} | {} | {} | {} |",
        graph.name,
        graph.node_count(),
        graph.edge_count(),
        b.total,
        slowest(&b.placers, b.total),
        slowest(&b.schedulers, b.total),
        slowest(&b.orders, b.total),
    );
}

fn bundled(only: Option<&str>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs");
    let hw = Cluster::from_json(
        &std::fs::read_to_string(root.join("clusters").join(format!("{HW_PRESET}.json"))).unwrap(),
        HW_PRESET,
    )
    .unwrap();
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|f| f.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    println!("\nBundled graphs, CPU ms of one thread. `default`: the whole default comparison (every default placer x scheduler, parallel links, fifo, one seed); `2 threads`: the best speedup `--jobs 2` can get from its work items; `fcfs x 5 orders`: every default placer once and every pair under fcfs links with each of the 5 link orders, and its slowest placer, scheduler and link order with their share.\n");
    println!("| graph | ops | edges | cluster | default ms | 2 threads | fcfs x 5 orders ms | max place ms | slowest placer | slowest scheduler | slowest link order |");
    println!("|---|---:|---:|---|---:|---:|---:|---:|---|---|---|");
    for f in files {
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        if only.is_some_and(|o| o != stem) {
            continue;
        }
        let Ok(g) = Graph::from_json(&std::fs::read_to_string(&f).unwrap(), &stem) else {
            continue; // a cluster file
        };
        row(&g, "8 gen", &common::cluster(8));
        row(&g, "50 gen", &common::cluster(50));
        if Problem::new(&g, &hw).is_ok() {
            row(&g, HW_PRESET, &hw);
        }
    }
}

/// The degenerate shapes of `n` ops, as graph JSON.
pub fn shapes(n: usize) -> Vec<(&'static str, String)> {
    let node = |i: usize, extra: &str| {
        format!(
            r#"{{"id":"n{i}","cost":{},"mem":{},"layer":{}{extra}}}"#,
            1 + i % 7,
            i % 3,
            i / 64
        )
    };
    let graph = |nodes: Vec<String>, edges: Vec<String>| {
        format!(
            r#"{{"nodes":[{}],"edges":[{}]}}"#,
            nodes.join(","),
            edges.join(",")
        )
    };
    let edge =
        |a: usize, b: usize| format!(r#"{{"src":"n{a}","dst":"n{b}","bytes":{}}}"#, 1 + a % 5);
    vec![
        (
            "one colocation group, no edges",
            graph(
                (0..n).map(|i| node(i, r#","colocate":"g""#)).collect(),
                vec![],
            ),
        ),
        (
            "independent ops",
            graph((0..n).map(|i| node(i, "")).collect(), vec![]),
        ),
        (
            "one op with n inputs",
            graph(
                (0..n).map(|i| node(i, "")).collect(),
                (1..n).map(|i| edge(i, 0)).collect(),
            ),
        ),
        (
            "chain",
            graph(
                (0..n).map(|i| node(i, "")).collect(),
                (1..n).map(|i| edge(i - 1, i)).collect(),
            ),
        ),
        (
            "two ops feeding every other, sizes all distinct",
            graph(
                (0..n).map(|i| node(i, "")).collect(),
                two_feeding_every_other(n),
            ),
        ),
    ]
}

/// The edges of `n` ops where `n0` and `n1` feed every other op `ni`, `i` bytes from `n0` and
/// `n + 1 - i` from `n1`: every consumer is ready once both are placed (on two devices),
/// with transfer times all distinct from the same two senders, whose channels take turns
/// as the consumers are placed (m-ETF's worst case, docs/cost.md, issue 24i).
pub fn two_feeding_every_other(n: usize) -> Vec<String> {
    let sized = |a: usize, b: usize, bytes: usize| {
        format!(r#"{{"src":"n{a}","dst":"n{b}","bytes":{bytes}}}"#)
    };
    (2..n)
        .flat_map(|i| [sized(0, i, i), sized(1, i, n + 1 - i)])
        .collect()
}

/// `growth shape5` only (not among the shapes: m-ETF is quadratic on it, minutes at 50,000
/// ops): `n` ops where `n0`, `n1` and `n2` feed every other op `ni`, `i`, `n + 1 - i` and
/// a size drawn from `1..=n` bytes, so each consumer's lead passes among three senders
/// (docs/cost.md "Left", issue 24i).
fn three_feeding_every_other(n: usize) -> String {
    let mut rng = placesim::rng::Rng::new(1);
    let nodes: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"id":"n{i}","cost":{},"mem":{},"layer":{}}}"#,
                1 + i % 7,
                i % 3,
                i / 64
            )
        })
        .collect();
    let sized = |a: usize, b: usize, bytes: u64| {
        format!(r#"{{"src":"n{a}","dst":"n{b}","bytes":{bytes}}}"#)
    };
    let edges: Vec<String> = (3..n)
        .flat_map(|i| {
            [
                sized(0, i, i as u64),
                sized(1, i, (n + 1 - i) as u64),
                sized(2, i, 1 + rng.below(n as u64)),
            ]
        })
        .collect();
    format!(
        r#"{{"nodes":[{}],"edges":[{}]}}"#,
        nodes.join(","),
        edges.join(",")
    )
}

/// `repeat`: runs of each whole comparison, the least time reported (the machine is shared:
/// the least of several runs is the one least disturbed); `which`: one shape only.
fn bench_shapes(n: usize, repeat: usize, which: Option<usize>) {
    println!("\nDegenerate shapes, {n} ops, 8 generated devices: the whole default comparison (CPU ms, one thread, least of {repeat} run(s)), and the slowest placer.\n");
    println!("| shape | default ms | slowest placer |");
    println!("|---|---:|---|");
    let c = common::cluster(8);
    for (i, (name, json)) in shapes(n).into_iter().enumerate() {
        if which.is_some_and(|w| w != i) {
            continue;
        }
        let g = Graph::from_json(&json, name).unwrap();
        let whole = (0..repeat.max(1))
            .map(|_| whole_default(&g, &c).0)
            .fold(f64::INFINITY, f64::min);
        let resolved = scenario(&g).resolve().unwrap();
        let p = Problem::new(&g, &c).unwrap();
        let mut worst = ("-", 0.0);
        for (pi, placer) in resolved.placers.iter().enumerate() {
            let t = now();
            let _ = compare::place(&p, &resolved, pi, 0, &mut |_| true);
            let t = ms(t);
            if t > worst.1 {
                worst = (placer.info.name, t);
            }
        }
        println!("| {name} | {whole:.0} | {} {:.0} ms |", worst.0, worst.1);
    }
}

/// Per pair of one shape (`-- pairs N SHAPE_INDEX`): each placer's time and each pair's
/// simulation time under the default (parallel) links, CPU ms.
fn shape_pairs(n: usize, which: usize) {
    let (name, json) = shapes(n).swap_remove(which);
    let g = Graph::from_json(&json, name).unwrap();
    let c = common::cluster(8);
    let resolved = scenario(&g).resolve().unwrap();
    let p = Problem::new(&g, &c).unwrap();
    println!("\n{name}, {n} ops: placer, place ms, then sim ms per scheduler\n");
    for (pi, placer) in resolved.placers.iter().enumerate() {
        let t = now();
        let plan = compare::place(&p, &resolved, pi, 0, &mut |_| true).ok();
        let t_place = ms(t);
        let Some((plan, _)) = plan else { continue };
        let mut line = format!("{:14} {t_place:7.1}", placer.info.name);
        for &pair in resolved.pairs.iter().filter(|x| x.0 == pi) {
            let t = now();
            let _ = compare::simulate(&p, &resolved, &plan, pair, 0, false);
            line += &format!(" {}={:.1}", resolved.schedulers[pair.1].info.name, ms(t));
        }
        println!("{line}");
    }
}

/// A graph file's whole default comparison on 8 generated devices (`-- file PATH`): CPU ms,
/// least of `repeat` runs; with the placers' sum (each placer once), the rest, and each
/// placer's own time (least of `repeat`). `-- devices D` another generated cluster;
/// `-- placers` only the placers (no whole comparison).
fn bench_file(path: &str, repeat: usize, devices: usize, placers_only: bool) {
    let text = std::fs::read_to_string(path).unwrap();
    let g = Graph::from_json(&text, "file").unwrap();
    let c = common::cluster(devices);
    let whole = if placers_only {
        f64::NAN
    } else {
        (0..repeat.max(1))
            .map(|_| whole_default(&g, &c).0)
            .fold(f64::INFINITY, f64::min)
    };
    let resolved = scenario(&g).resolve().unwrap();
    let p = Problem::new(&g, &c).unwrap();
    let mut each = vec![f64::INFINITY; resolved.placers.len()];
    let place = (0..repeat.max(1))
        .map(|_| {
            let mut sum = 0.0;
            for (pi, least) in each.iter_mut().enumerate() {
                let t = now();
                let _ = compare::place(&p, &resolved, pi, 0, &mut |_| true);
                let t = ms(t);
                sum += t;
                *least = least.min(t);
            }
            sum
        })
        .fold(f64::INFINITY, f64::min);
    println!(
        "\n{path}: {} ops, {} pairs, {devices} devices: default {whole:.0} ms, placers {place:.0} ms, rest {:.0} ms",
        g.node_count(),
        resolved.pairs.len(),
        whole - place
    );
    let line: Vec<String> = resolved
        .placers
        .iter()
        .zip(&each)
        .map(|(pl, t)| format!("{} {t:.1}", pl.info.name))
        .collect();
    println!("placers (ms, least of {repeat}): {}", line.join(", "));
}

/// The simulations of a graph file's default comparison (`-- file PATH sims`): each placer
/// places once (untimed), its placement is prepared once (timed with its pairs, as a
/// comparison shares it), and each of its pairs is simulated; least of `repeat` runs per
/// placer. Prints the sum, the sum per scheduler, and a digest of every makespan (the bits
/// two builds must agree on); `-- each` also each placer's preparation and simulations.
fn bench_sims(path: &str, repeat: usize, devices: usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let g = Graph::from_json(&text, "file").unwrap();
    let c = common::cluster(devices);
    let resolved = scenario(&g).resolve().unwrap();
    let p = Problem::new(&g, &c).unwrap();
    let mut total = 0.0;
    let mut count = 0;
    let mut per: BTreeMap<&'static str, f64> = BTreeMap::new();
    let mut digest = 0u64;
    for pi in 0..resolved.placers.len() {
        let Ok((plan, _)) = compare::place(&p, &resolved, pi, 0, &mut |_| true) else {
            continue;
        };
        let pairs: Vec<_> = resolved.pairs.iter().filter(|x| x.0 == pi).collect();
        let mut least = vec![f64::INFINITY; pairs.len()];
        let mut least_prep = f64::INFINITY;
        for _ in 0..repeat.max(1) {
            let t = now();
            let prepared = placesim::sim::prepare(&p, &plan.placement);
            least_prep = least_prep.min(ms(t));
            for (j, &&pair) in pairs.iter().enumerate() {
                let t = now();
                let mut m = 0.0;
                let _ = compare::pair(&resolved, pair, 0).iterate_prepared(
                    &p,
                    &prepared,
                    plan.order.as_ref(),
                    (1, false),
                    &mut |_, r| {
                        m = r.makespan;
                        true
                    },
                );
                least[j] = least[j].min(ms(t));
                digest = digest.rotate_left(7) ^ m.to_bits();
            }
        }
        total += least_prep + least.iter().sum::<f64>();
        if std::env::args().any(|a| a == "each") {
            let sims: Vec<String> = least.iter().map(|t| format!("{t:.1}")).collect();
            println!(
                "{} prepare {least_prep:.1} sims {}",
                resolved.placers[pi].info.name,
                sims.join(" ")
            );
        }
        *per.entry("(prepare)").or_default() += least_prep;
        for (j, &&pair) in pairs.iter().enumerate() {
            *per.entry(resolved.schedulers[pair.1].info.name)
                .or_default() += least[j];
            count += 1;
        }
    }
    let line: Vec<String> = per.iter().map(|(n, t)| format!("{n} {t:.0}")).collect();
    println!(
        "\n{path}: {count} simulations, {devices} devices: {total:.0} ms (least of {repeat} per simulation): {}; digest {digest:016x}",
        line.join(", ")
    );
}

/// N side-by-side copies of a graph file's JSON (ids and colocation groups prefixed `cI/`;
/// a `null` group stays `null`).
fn copies(path: &str, n: usize) -> String {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let prefix = |x: &serde_json::Value, c: usize| {
        serde_json::Value::from(format!("c{c}/{}", x.as_str().unwrap()))
    };
    let mut nodes = vec![];
    let mut edges = vec![];
    for c in 0..n {
        for node in v["nodes"].as_array().unwrap() {
            let mut m = node.clone();
            for key in ["id", "colocate"] {
                // An imported graph writes `"colocate": null` for an ungrouped op.
                if let Some(x) = node.get(key).filter(|x| !x.is_null()) {
                    m[key] = prefix(x, c);
                }
            }
            nodes.push(m);
        }
        for edge in v["edges"].as_array().unwrap() {
            let mut m = edge.clone();
            for key in ["src", "dst"] {
                m[key] = prefix(&edge[key], c);
            }
            edges.push(m);
        }
    }
    let mut out = v.clone();
    out["nodes"] = nodes.into();
    out["edges"] = edges.into();
    out.to_string()
}

/// `-- growth INPUT N`: every strategy alone on one input (see the header), CPU ms.
fn growth(input: &str, n: usize, devices: usize, skip: &[String]) {
    let json = match input
        .strip_prefix("shape")
        .and_then(|i| i.parse::<usize>().ok())
    {
        Some(5) => three_feeding_every_other(n),
        Some(i) => shapes(n).swap_remove(i).1,
        None => copies(input, n),
    };
    let line = |kind: &str, name: &str, t: f64| println!("growth {input} {n} {kind} {name} {t:.1}");
    let t = now();
    let g = Graph::from_json(&json, "growth").unwrap();
    line("load", "from_json", ms(t));
    println!(
        "growth {input} {n} size ops={} edges={}",
        g.node_count(),
        g.edge_count()
    );
    let c = common::cluster(devices);
    let t = now();
    let p = Problem::new(&g, &c).unwrap();
    line("load", "problem", ms(t));
    let mut s = Scenario::new(
        GraphSource::File("growth.json".into()),
        ClusterSource::File("cluster.json".into()),
    );
    s.placers = placesim::place::PLACERS
        .iter()
        .map(|p| p.name.to_string())
        .filter(|x| x != "pinned" && !skip.contains(x))
        .collect();
    s.schedulers = placesim::schedule::SCHEDULERS
        .iter()
        .map(|x| x.name.to_string())
        .collect();
    s.link_order = placesim::transfer::LINK_ORDERS
        .iter()
        .map(|x| x.name.to_string())
        .collect();
    s.links = LinkModel::Fcfs;
    let resolved = s.resolve().unwrap();
    let ix = |name: &str| resolved.placers.iter().position(|x| x.info.name == name);
    let mut plans = BTreeMap::new();
    for (pi, placer) in resolved.placers.iter().enumerate() {
        let t = now();
        let plan = compare::place(&p, &resolved, pi, 0, &mut |_| true);
        line("place", placer.info.name, ms(t));
        if let Ok((plan, _)) = plan {
            plans.insert(placer.info.name, plan);
        }
    }
    if !skip.iter().any(|x| x == "coarsen") {
        let t = now();
        let coarse = placesim::transform::coarsen::coarsen(&p, 200);
        line(
            "coarsen",
            &format!("200->{},{}rounds", coarse.len(), coarse.rounds.len()),
            ms(t),
        );
    }
    let (Some(hash), Some(plan)) = (ix("hash"), plans.get("hash")) else {
        return;
    };
    let t = now();
    let _ = placesim::sim::prepare(&p, &plan.placement);
    line("sim", "prepare", ms(t));
    let sched_fifo = resolved
        .schedulers
        .iter()
        .position(|x| x.info.name == "fifo")
        .unwrap();
    let order_fifo = resolved
        .link_orders
        .iter()
        .position(|x| x.info.name == "fifo")
        .unwrap();
    let given = |name: &str| name == "given";
    let with = |name: &str| match (given(name), ix("heft"), plans.get("heft")) {
        (true, Some(h), Some(plan)) => Some((h, plan)),
        (true, ..) => None,
        _ => Some((hash, plan)),
    };
    for (si, sched) in resolved.schedulers.iter().enumerate() {
        let name = sched.info.name;
        let Some((pi, plan)) = with(name).filter(|_| !skip.iter().any(|x| x == name)) else {
            continue;
        };
        let t = now();
        let r = compare::simulate(&p, &resolved, plan, (pi, si, order_fifo), 0, false);
        line("sched", name, ms(t));
        if let Err(e) = r {
            println!("growth {input} {n} error sched {name}: {e}");
        }
    }
    for (oi, order) in resolved.link_orders.iter().enumerate() {
        let name = order.info.name;
        let Some((pi, plan)) =
            with(name).filter(|_| !skip.iter().any(|x| x == format!("order-{name}").as_str()))
        else {
            continue;
        };
        let t = now();
        let r = compare::simulate(&p, &resolved, plan, (pi, sched_fifo, oi), 0, false);
        line("order", name, ms(t));
        if let Err(e) = r {
            println!("growth {input} {n} error order {name}: {e}");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |a: &str| args.iter().any(|x| x == a);
    let after = |a: &str| {
        args.iter()
            .position(|x| x == a)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if let Some(n) = after("pairs") {
        let which = args
            .iter()
            .position(|x| x == "pairs")
            .and_then(|i| args.get(i + 2))
            .and_then(|s| s.parse().ok())
            .unwrap_or(2);
        shape_pairs(n.parse().unwrap(), which);
        return;
    }
    if let Some(input) = after("growth") {
        let n = args
            .iter()
            .position(|x| x == "growth")
            .and_then(|i| args.get(i + 2))
            .and_then(|s| s.parse().ok())
            .unwrap_or(1);
        let devices = after("devices").and_then(|s| s.parse().ok()).unwrap_or(8);
        let skip: Vec<String> = after("skip")
            .map(|x| x.split(',').map(String::from).collect())
            .unwrap_or_default();
        growth(&input, n, devices, &skip);
        return;
    }
    let only = after("only");
    if let Some(x) = after("exclude") {
        let names: Vec<String> = x.split(',').map(String::from).collect();
        println!("\n(placers left out: {})", names.join(", "));
        EXCLUDE.set(names).unwrap();
    }
    if let Some(x) = after("keep") {
        let names: Vec<String> = x.split(',').map(String::from).collect();
        println!("\n(placers kept: {})", names.join(", "));
        KEEP.set(names).unwrap();
    }
    if let Some(path) = after("file") {
        let repeat = after("repeat").and_then(|s| s.parse().ok()).unwrap_or(1);
        let devices = after("devices").and_then(|s| s.parse().ok()).unwrap_or(8);
        if has("sims") {
            bench_sims(&path, repeat, devices);
            return;
        }
        bench_file(&path, repeat, devices, has("placers"));
        return;
    }
    let (graphs, shapes_too) = match (has("graphs"), has("shapes")) {
        (false, false) => (true, only.is_none()),
        (g, s) => (g || only.is_some(), s),
    };
    if graphs {
        bundled(only.as_deref());
    }
    if shapes_too {
        let n = after("shapes")
            .and_then(|s| s.parse().ok())
            .unwrap_or(50_000);
        let repeat = after("repeat").and_then(|s| s.parse().ok()).unwrap_or(1);
        let which = after("shape").and_then(|s| s.parse().ok());
        bench_shapes(n, repeat, which);
    }
}
