//! What every fuzz target shares: the small fixed graph and cluster a target pairs its input
//! with, the in-memory file reader of the scenario and link targets, the caps that keep one
//! input cheap, and the checks that turn a wrong result into a crash.
//!
//! A target loads its input; when it loads, [`exercise`] runs it through a few pairs (the
//! cheap `single` and `hash` placers with `fifo`, plus one placer and one scheduler picked
//! by the input), under both `parallel` and `fcfs` links, one seed. A panic anywhere, a
//! non-finite or negative makespan, bound or traffic, or an error with an empty message is a
//! crash.

use placesim::compare::{self, Comparison};
use placesim::model::cluster::Cluster;
use placesim::model::graph::Graph;
use placesim::model::LinkModel;
use placesim::place::PLACERS;
use placesim::scenario::load::FileRef;
use placesim::scenario::{ClusterSource, Scenario};
use placesim::schedule::SCHEDULERS;
use placesim::{Error, Result};

/// Inputs larger than these load but are not run: one input must stay well under a
/// millisecond or two so a target runs thousands of inputs a second.
pub const MAX_NODES: usize = 200;
pub const MAX_EDGES: usize = 400;
pub const MAX_DEVICES: usize = 32;
/// Graph size x device count above which only the cheap pairs run.
const MAX_CELLS: usize = 2000;
/// The placers that solve a model (pesto's search and constraint model, m-sct's LP) run
/// only up to this size: on the link target's default graph (resnet50_layers) m-sct's LP
/// took over half of all fuzzing time, inside the LP solver rather than in placesim.
const MAX_MODEL_CELLS: usize = 300;
const MODEL_PLACERS: &[&str] = &["pesto", "m-sct"];

/// The graph the cluster target runs its clusters on: op types, a time table, a device
/// rule, a colocation group, a shared tensor, a control edge.
pub const GRAPH: &str = r#"{"nodes":[{"id":"a","op":"MatMul","cost":4,"mem":8,"colocate":"w"},{"id":"b","cost":2,"time":{"cpu":3},"colocate":"w"},{"id":"c","cost":5,"device":"gpu","layer":2},{"id":"d","cost":1}],"edges":[{"src":"a","dst":"b","bytes":10,"tensor":"t"},{"src":"a","dst":"c","bytes":10,"tensor":"t"},{"src":"b","dst":"d","bytes":3},{"src":"c","dst":"d"}]}"#;
/// The cluster the graph target runs its graphs on: a cpu with memory and a gpu, a link of
/// its own, per-kind op speeds.
pub const CLUSTER: &str = r#"{"devices":[{"id":"c0","kind":"cpu","speed":1,"memory":100},{"id":"g0","kind":"gpu","speed":4}],"bandwidth":2,"latency":0.5,"links":[{"src":"c0","dst":"g0","bandwidth":3}],"kinds":{"gpu":{"op_speed":{"MatMul":2}}}}"#;

/// The small bundled graphs, for scenarios and links that name one (a link's default graph
/// is `resnet50_layers`).
const BUNDLED: &[(&str, &str)] = &[
    (
        "alexnet_layers",
        include_str!("../../graphs/alexnet_layers.json"),
    ),
    (
        "carbonari_appendix",
        include_str!("../../graphs/carbonari_appendix.json"),
    ),
    (
        "par32_layers",
        include_str!("../../graphs/par32_layers.json"),
    ),
    (
        "resnet50_layers",
        include_str!("../../graphs/resnet50_layers.json"),
    ),
    (
        "seq32_layers",
        include_str!("../../graphs/seq32_layers.json"),
    ),
    (
        "vgg16_layers",
        include_str!("../../graphs/vgg16_layers.json"),
    ),
    (
        "vgg19_layers",
        include_str!("../../graphs/vgg19_layers.json"),
    ),
];

/// Cluster files a scenario may name.
const CLUSTER_FILES: &[(&str, &str)] = &[
    ("c", CLUSTER),
    (
        "carbonari_small.json",
        include_str!("../../graphs/clusters/carbonari_small.json"),
    ),
    (
        "carbonari_hw_small.json",
        include_str!("../../graphs/clusters/carbonari_hw_small.json"),
    ),
];

/// The in-memory file system of the scenario and link targets: the small bundled graphs,
/// `g` (also as the file `g.json`), and a few cluster files (by file name, in any folder);
/// anything else is missing.
pub fn read(f: FileRef) -> Result<Vec<u8>> {
    let found = match f {
        FileRef::BundledGraph("g") | FileRef::GraphFile("g.json") => Some(GRAPH),
        FileRef::BundledGraph(name) => BUNDLED.iter().find(|b| b.0 == name).map(|b| b.1),
        FileRef::GraphFile(_) => None,
        FileRef::ClusterFile(path) => {
            let base = path.rsplit('/').next().unwrap_or(path);
            CLUSTER_FILES.iter().find(|c| c.0 == base).map(|c| c.1)
        }
    };
    found
        .map(|t| t.as_bytes().to_vec())
        .ok_or_else(|| Error::Io {
            path: format!("{f:?}"),
            message: "no such file".into(),
        })
}

/// A cheap hash of the input: which extra placer and scheduler it runs.
pub fn salt(data: &[u8]) -> usize {
    data.iter()
        .fold(0usize, |h, &b| h.wrapping_mul(31).wrapping_add(b as usize))
}

/// Whether a loaded problem is small enough to run.
pub fn small(scenario: &Scenario, graph: &Graph, fixed: Option<&Cluster>) -> bool {
    let devices = match (&scenario.cluster, fixed) {
        (ClusterSource::Generate(g), _) => g.devices,
        (_, Some(c)) => c.len(),
        (_, None) => 0,
    };
    graph.node_count() <= MAX_NODES && graph.edge_count() <= MAX_EDGES && devices <= MAX_DEVICES
}

/// Runs `scenario` (its graph, cluster, randomization, what-ifs, parameters and link order)
/// on one seed with `single` and `hash` x `fifo`, plus the placer and scheduler `salt`
/// picks, under both link models, and checks every result. Too-large problems are skipped.
pub fn exercise(scenario: &Scenario, graph: &Graph, fixed: Option<&Cluster>, salt: usize) {
    if !small(scenario, graph, fixed) {
        return;
    }
    let devices = match (&scenario.cluster, fixed) {
        (ClusterSource::Generate(g), _) => g.devices,
        (_, Some(c)) => c.len(),
        _ => 1,
    };
    let mut s = scenario.clone();
    s.seeds = 1;
    s.placers = vec!["single".into(), "hash".into()];
    s.schedulers = vec!["fifo".into()];
    let cells = graph.node_count() * devices;
    if cells <= MAX_CELLS {
        let p = PLACERS[salt % PLACERS.len()].name.to_string();
        let q = SCHEDULERS[(salt / PLACERS.len()) % SCHEDULERS.len()]
            .name
            .to_string();
        if p == "pesto" {
            // The optimiser searches as long as its budget says: keep an input cheap. The
            // budget counts ops + edges per simulated candidate, so on the 4-op graph 1e5
            // was 12,500 simulations (half of all fuzzing time went there); 2e3 still runs
            // the warm starts, the search and, on tiny inputs, the exact model.
            for (key, cap) in [("pesto.budget", 2e3), ("pesto.exact_nodes", 2e3)] {
                let v = s.params.get(key).copied().unwrap_or(f64::INFINITY).min(cap);
                s.params.insert(key.into(), v);
            }
        }
        if !s.placers.contains(&p) && (cells <= MAX_MODEL_CELLS || !MODEL_PLACERS.contains(&&*p)) {
            s.placers.push(p);
        }
        if !s.schedulers.contains(&q) {
            s.schedulers.push(q);
        }
    }
    for links in [LinkModel::Parallel, LinkModel::Fcfs] {
        s.links = links;
        match s
            .resolve()
            .and_then(|r| compare::run(&r, graph, fixed, &mut |_, _| true))
        {
            Ok(c) => check_comparison(&c),
            Err(e) => check_error(&e),
        }
    }
}

/// Every pair that ran has finite, non-negative figures; every pair that did not says why.
pub fn check_comparison(c: &Comparison) {
    for r in &c.results {
        let pair = format!("{}/{}", r.placer, r.scheduler);
        if let Some(e) = &r.error {
            assert!(!e.trim().is_empty(), "{pair}: empty error");
            continue;
        }
        for (what, x) in [
            ("makespan", r.makespan),
            ("lower_bound", r.lower_bound),
            ("traffic_bytes", r.traffic_bytes),
            ("transfers", r.transfers),
        ] {
            assert!(x.is_finite() && x >= 0.0, "{pair}: {what} = {x}");
        }
        for &m in &r.makespans {
            assert!(m.is_finite() && m >= 0.0, "{pair}: makespan {m}");
        }
        assert!(!r.gap.is_nan(), "{pair}: gap is NaN");
        assert!(
            r.makespan >= r.lower_bound * (1.0 - 1e-9) - 1e-9,
            "{pair}: makespan {} below the bound {}",
            r.makespan,
            r.lower_bound
        );
        for d in &r.devices {
            assert!(
                d.busy.is_finite() && d.busy >= 0.0,
                "{pair}: device {} busy {}",
                d.id,
                d.busy
            );
        }
    }
    assert!(c.critical_path_bound.is_finite() && c.critical_path_bound >= 0.0);
    assert!(c.work_bound.is_finite() && c.work_bound >= 0.0);
}

/// An error says what is wrong: a non-empty message naming the document or part.
pub fn check_error(e: &Error) {
    match e {
        Error::Parse { what, message } => {
            assert!(!what.is_empty() && !message.trim().is_empty(), "{e:?}")
        }
        Error::Graph(m) | Error::Cluster(m) | Error::Problem(m) | Error::Scenario(m) => {
            assert!(!m.trim().is_empty(), "{e:?}")
        }
        Error::Placement { placer, message } => {
            assert!(!placer.is_empty() && !message.trim().is_empty(), "{e:?}")
        }
        Error::Io { path, message } => {
            assert!(!path.is_empty() && !message.is_empty(), "{e:?}")
        }
        Error::Cancelled => panic!("nothing cancels a fuzzed run, yet it says cancelled"),
    }
}

/// A scenario with every default, on graph `g` and cluster file `c`.
pub fn plain_scenario() -> Scenario {
    Scenario::new(
        placesim::scenario::GraphSource::Bundled("g".into()),
        ClusterSource::File("c".into()),
    )
}
