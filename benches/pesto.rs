//! `pesto` benchmark (Pesto21 §3.2 optimiser): prints figures, asserts nothing.
//!
//! `cargo bench --bench pesto` runs, on random Pesto-style DAGs (op times 1-9, each op fed
//! by some of the previous four, 1-5 bytes per edge) on identical GPUs with bandwidth 1,
//! latency 0 and `fcfs` links:
//! - exact mode (`pesto.mode=2`, the constraint model) on 20-op instances on 2, 3 and 4
//!   GPUs: wall time, status, objective, bound and gap (objective / bound), search work;
//! - exact mode on 120-op instances coarsened to 20, 30 and 40 vertices (`pesto.target`):
//!   the status is `coarse_optimal` when the coarse graph's optimum is proven, and the
//!   bound (scope `coarse`) is that optimum, no bound of the instance (its "gap" can be
//!   negative);
//! - the anytime mode with default settings on 150-op instances on 2 and 4 GPUs: wall time,
//!   objective, the instance bound and `heft × given`'s makespan; then with 5x the budget, to
//!   show how far the default stops from what more search finds.
//!
//! `cargo bench --bench pesto -- quick` runs fewer instances; `-- exact` only the exact rows.
//! `cargo bench --bench pesto -- write DIR` writes the 20-op exact-mode instances (graph,
//! cluster, scenario) with the native comparison of each, for `benches/pesto_wasm.mjs`,
//! which runs them in wasm (`make bench-wasm`).

use std::time::Instant;

use placesim::compare;
use placesim::model::cluster::Cluster;
use placesim::model::graph::Graph;
use placesim::model::problem::Problem;
use placesim::model::LinkModel;
use placesim::scenario::{ClusterSource, GraphSource, Scenario};

fn instance(n: usize, k: usize, seed: u64) -> (Graph, Cluster) {
    placesim::model::synthetic::gpu_instance(n, k, seed).expect("a generated instance is valid")
}

/// Runs `pesto` and `heft` (both under `given`) on one instance and prints one line.
fn run(n: usize, k: usize, seed: u64, params: &[(&str, f64)]) {
    let (g, c) = instance(n, k, seed);
    let p = Problem::new(&g, &c).unwrap();
    let mut s = Scenario::new(
        GraphSource::Bundled(g.name.clone()),
        ClusterSource::File("c".into()),
    );
    s.placers = vec!["pesto".into(), "heft".into()];
    s.schedulers = vec!["given".into()];
    s.links = LinkModel::Fcfs;
    for (name, v) in params {
        s.params.insert(format!("pesto.{name}"), *v);
    }
    let resolved = s.resolve().unwrap();
    let t = Instant::now();
    let (plan, _) = compare::place(&p, &resolved, 0, 0, &mut |_| true).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let sim = compare::simulate(&p, &resolved, &plan, (0, 0, 0), 0, false).unwrap();
    let (heft, _) = compare::place(&p, &resolved, 1, 0, &mut |_| true).unwrap();
    let hsim = compare::simulate(&p, &resolved, &heft, (1, 0, 0), 0, false).unwrap();
    let rep = plan.report.unwrap();
    let bound = rep.bound.unwrap_or(0.0);
    println!(
        "  {n:>3} ops {k} GPUs seed {seed}: {secs:>7.3} s  {:<14} objective {:>6} (simulated {:>6})  bound {:>6.2} ({:?})  gap {:>6.2}%  heft x given {:>6}  vs heft {:>+6.2}%  work {} {}",
        format!("{:?}", rep.status).to_lowercase(),
        rep.objective,
        sim.makespan,
        bound,
        rep.bound_of,
        (rep.objective / bound - 1.0) * 100.0,
        hsim.makespan,
        (rep.objective / hsim.makespan - 1.0) * 100.0,
        rep.work,
        rep.work_unit,
    );
}

/// Writes the 20-op exact-mode instances to `dir`: `NAME.graph.json`, `NAME.cluster.json`,
/// `NAME.scenario.json` and `NAME.native.json` (the comparison natively, and its seconds).
fn write_instances(dir: &str) {
    std::fs::create_dir_all(dir).unwrap();
    for k in 2..=4 {
        for seed in 0..4 {
            let (g, c) = instance(20, k, seed);
            let name = format!("exact_20ops_{k}gpus_seed{seed}");
            let (graph_text, cluster_text) = (g.to_json(), c.to_json());
            let g = Graph::from_json(&graph_text, &name).unwrap();
            let c = Cluster::from_json(&cluster_text, "c").unwrap();
            let mut s = Scenario::new(
                GraphSource::File(format!("{name}.graph.json")),
                ClusterSource::File(format!("{name}.cluster.json")),
            );
            s.placers = vec!["pesto".into()];
            s.schedulers = vec!["given".into()];
            s.links = LinkModel::Fcfs;
            s.params.insert("pesto.mode".into(), 2.0);
            let t = Instant::now();
            let native =
                compare::run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true).unwrap();
            let secs = t.elapsed().as_secs_f64();
            let path = |what: &str| format!("{dir}/{name}.{what}.json");
            std::fs::write(path("graph"), graph_text).unwrap();
            std::fs::write(path("cluster"), cluster_text).unwrap();
            std::fs::write(path("scenario"), serde_json::to_string(&s).unwrap()).unwrap();
            let out = serde_json::json!({ "seconds": secs, "comparison": native });
            std::fs::write(path("native"), out.to_string()).unwrap();
            println!("  {name}: natively {secs:.3} s");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "write") {
        let dir = args.get(i + 1).expect("write DIR");
        println!("writing the exact-mode instances to {dir}:");
        return write_instances(dir);
    }
    let quick = std::env::args().any(|a| a == "quick");
    let only_exact = std::env::args().any(|a| a == "exact");
    let seeds = if quick { 2 } else { 4 };
    println!("exact mode (pesto.mode=2), 20 ops, fcfs links:");
    for k in 2..=4 {
        for seed in 0..seeds {
            run(20, k, seed, &[("mode", 2.0)]);
        }
    }
    println!("exact mode on coarse graphs (pesto.mode=2, pesto.target=T), 120 ops, fcfs links:");
    for (k, t) in [(2, 20.0), (2, 30.0), (2, 40.0), (4, 20.0), (4, 30.0)] {
        for seed in 0..seeds.min(2) {
            print!("  target {t}:");
            run(120, k, seed, &[("mode", 2.0), ("target", t)]);
        }
    }
    if only_exact {
        return;
    }
    println!("anytime mode, default settings, 150 ops, fcfs links:");
    for k in [2, 4] {
        for seed in 0..seeds {
            run(150, k, seed, &[]);
        }
    }
    println!("anytime mode, 5x the default budget (pesto.budget=5e7), 150 ops, fcfs links:");
    for k in [2, 4] {
        for seed in 0..seeds {
            run(150, k, seed, &[("budget", 5e7)]);
        }
    }
}
