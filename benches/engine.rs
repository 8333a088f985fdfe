//! Engine benchmark: prints figures, asserts nothing.
//!
//! `cargo bench --bench engine` times, for a generated 20,000-op DAG on 8 and 50 devices and
//! for every graph in graphs/: each placer's run time, and one simulated step under each
//! scheduler (after `hash` placement, parallel and fcfs links). Each figure is the median of
//! several repetitions. `cargo bench --bench engine -- quick` skips the real graphs.
//!
//! TicTac19's orderings: TAO and TIO ranks on the shipped `tictac19_inception_v3_fw` replica
//! (one server, four workers, 378 reads each), and that whole scenario's comparison.

use std::time::Instant;

mod common;

use placesim::compare;
use placesim::model::graph::Graph;
use placesim::model::problem::Problem;
use placesim::model::synthetic::{layered_dag, SyntheticSpec};
use placesim::model::LinkModel;
use placesim::scenario::{ClusterSource, GraphSource, Scenario};

fn median_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[reps / 2]
}

fn bench_graph(graph: &Graph, devices: usize, reps: usize) {
    let c = common::cluster(devices);
    let p = Problem::new(graph, &c).unwrap();
    println!(
        "\n{} ({} ops, {} edges) on {devices} devices",
        graph.name,
        graph.node_count(),
        graph.edge_count()
    );
    let mut s = Scenario::new(
        GraphSource::Bundled(graph.name.clone()),
        ClusterSource::File(String::new()),
    );
    let mut total = 0.0;
    let resolved = s.resolve().unwrap();
    for (pi, placer) in resolved.placers.iter().enumerate() {
        let name = placer.info.name;
        let mut plan = None;
        let ms = median_ms(reps, || {
            plan = compare::place(&p, &resolved, pi, 0, &mut |_| true).ok();
        });
        total += ms;
        let Some((plan, _)) = plan else {
            println!("  place {name:<16} {ms:>9.3} ms (failed)");
            continue;
        };
        print!("  place {name:<16} {ms:>9.3} ms;");
        for links in [LinkModel::Parallel, LinkModel::Fcfs] {
            s.links = links;
            for &pair in resolved.pairs.iter().filter(|x| x.0 == pi) {
                let mut makespan = 0.0;
                let ms = median_ms(reps, || {
                    makespan = compare::simulate(&p, &resolved, &plan, pair, 0, false)
                        .unwrap()
                        .makespan;
                });
                total += ms;
                let sched = resolved.schedulers[pair.1].info.name;
                print!(" {sched}/{} {ms:.3} ms", links.name());
            }
        }
        s.links = LinkModel::Parallel;
        println!();
    }
    println!("  all pairs, both link models, one seed: {total:.1} ms");
}

/// TicTac19 on its shipped inception scenario: TAO and TIO ranks of the replica's reads
/// (1 server, 4 workers, 378 reads each), and the whole comparison (1,000 iterations of
/// `random`, `tio` and `tao`).
fn bench_orderings() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("scenarios/tictac19_inception_v3_fw.json");
    let scenario = Scenario::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let read = |f: placesim::scenario::load::FileRef| -> placesim::Result<Vec<u8>> {
        use placesim::scenario::load::FileRef;
        let p = match f {
            FileRef::BundledGraph(name) => root.join("graphs").join(format!("{name}.json")),
            FileRef::GraphFile(p) | FileRef::ClusterFile(p) => root.join("scenarios").join(p),
        };
        Ok(std::fs::read(p).unwrap())
    };
    let loaded = placesim::scenario::load::load(scenario, &read).unwrap();
    let (s, g, c) = (
        &loaded.scenario,
        &loaded.graph,
        loaded.cluster.as_ref().unwrap(),
    );
    let p = Problem::new(g, c).unwrap();
    let placement: Vec<u32> = (0..g.node_count() as u32)
        .map(|v| (0..c.len() as u32).find(|&d| p.allowed(v, d)).unwrap())
        .collect();
    let xs = placesim::sim::transfers_of(&p, &placement);
    let mut recvs = 0;
    let tao = median_ms(3, || {
        let r = placesim::transfer::tao::tao_ranks(&p, &placement, &xs);
        recvs = r.iter().filter(|x| x.is_some()).count();
    });
    let tio = median_ms(3, || {
        placesim::transfer::tio::tio_ranks(&p, &placement, &xs);
    });
    println!(
        "\nTicTac19 orderings on {} ({} ops) with {recvs} reads into {} workers: tao {tao:.1} ms, tio {tio:.1} ms",
        g.name,
        g.node_count(),
        s.replica.as_ref().unwrap().workers.len()
    );
    let all = median_ms(1, || {
        compare::run(&s.resolve().unwrap(), g, Some(c), &mut |_, _| true).unwrap();
    });
    println!(
        "  the scenario: {} iterations x {} link orders, one thread: {all:.0} ms",
        s.iterations,
        s.link_order.len()
    );
}

/// Pesto21 §3.3 coarsening of the 20k-op synthetic graph to 200 vertices.
fn bench_coarsening(graph: &Graph) {
    let c = common::cluster(4);
    let p = Problem::new(graph, &c).unwrap();
    let mut co = None;
    let ms = median_ms(3, || {
        co = Some(placesim::transform::coarsen::coarsen(&p, 200))
    });
    let co = co.unwrap();
    let removed: Vec<String> = co.rounds[1..]
        .iter()
        .map(|r| format!("{:.0}%", r.edges_removed_pct))
        .collect();
    println!(
        "\nPesto21 coarsening of {} ({} ops) to {} vertices in {} rounds ({} of the edges removed per round): {ms:.1} ms",
        graph.name,
        graph.node_count(),
        co.len(),
        co.rounds.len() - 1,
        removed.join(", ")
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    bench_orderings();
    let synthetic =
        Graph::from_json(&layered_dag(SyntheticSpec::new(20_000, 1)), "synthetic").unwrap();
    bench_coarsening(&synthetic);
    bench_graph(&synthetic, 8, 7);
    bench_graph(&synthetic, 50, 5);
    if quick {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|f| f.extension().is_some_and(|e| e == "json"));
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        if let Ok(g) = Graph::from_json(&text, &f.file_stem().unwrap().to_string_lossy()) {
            if g.node_count() >= 1000 {
                bench_graph(&g, 8, 5);
            }
        }
    }
}
