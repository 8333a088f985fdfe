//! TicTac19 end to end: a base graph replicated onto a parameter server and workers
//! (`transform::replicate`), placed by its pins, simulated under fcfs links with the `tao`,
//! `tio` and `random` link orders. docs/tictac.md, vector V4b: the worked example W on one
//! worker gives 12 under `tao` (the optimum) and 13 or 14 under `tio` and `random`.

use placesim::compare;
use placesim::model::cluster::Cluster;
use placesim::model::graph::Graph;
use placesim::model::LinkModel;
use placesim::scenario::{ClusterSource, GraphSource, Scenario};
use placesim::transform::replicate::{replicate, ReplicaSpec};

/// W's base graph: parameter sources A (2 B), B (2 B), C (1 B); op1<-A (2), op2<-{op1, B}
/// (1), op3<-C (6), op4<-{op2, op3} (1), op5<-B (1).
const W: &str = r#"{"nodes":[
    {"id":"A","cost":5},{"id":"B","cost":5},{"id":"C","cost":5},
    {"id":"op1","cost":2},{"id":"op2","cost":1},{"id":"op3","cost":6},{"id":"op4","cost":1},{"id":"op5","cost":1}],
  "edges":[{"src":"A","dst":"op1","bytes":2},{"src":"op1","dst":"op2","bytes":0},{"src":"B","dst":"op2","bytes":2},
           {"src":"C","dst":"op3","bytes":1},{"src":"op2","dst":"op4","bytes":0},{"src":"op3","dst":"op4","bytes":0},
           {"src":"B","dst":"op5","bytes":2}]}"#;

const CLUSTER: &str = r#"{"devices":[{"id":"ps0","kind":"cpu","speed":1},{"id":"w0","kind":"cpu","speed":1}],"bandwidth":1,"latency":0}"#;

fn makespans(order: &str, seeds: u32) -> Vec<f64> {
    let base = Graph::from_json(W, "w").unwrap();
    let mut spec = ReplicaSpec::new(&["w0"], &["ps0"]);
    spec.params_from_sources = true;
    let g = replicate(&base, &spec).unwrap().transformed.graph;
    // The reads cost nothing on the server (TicTac19 §2.4).
    assert_eq!(g.nodes[0].cost, Some(0.0));
    let c = Cluster::from_json(CLUSTER, "c").unwrap();
    let mut s = Scenario::new(
        GraphSource::Bundled("w".into()),
        ClusterSource::File("c".into()),
    );
    s.placers = vec!["single".into()];
    s.schedulers = vec!["fifo".into()];
    s.links = LinkModel::Fcfs;
    s.link_order = vec![order.into()];
    s.seeds = seeds;
    let r = compare::run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true).unwrap();
    // Every node is pinned, so any placer puts it on its pin.
    assert!(r.results[0].error.is_none(), "{:?}", r.results[0].error);
    r.results[0].makespans.clone()
}

#[test]
fn w_on_one_worker_tao_reaches_the_optimum() {
    assert_eq!(makespans("tao", 5), [12.0; 5]);
    let tio = makespans("tio", 40);
    assert!(tio.iter().all(|&m| m == 13.0 || m == 14.0), "{tio:?}");
    assert!(
        tio.contains(&13.0) && tio.contains(&14.0),
        "both tie orders occur"
    );
    let random = makespans("random", 40);
    assert!(
        random.iter().all(|&m| (12.0..=14.0).contains(&m)),
        "{random:?}"
    );
    assert!(
        random.iter().any(|&m| m > 12.0),
        "no order: not always the best"
    );
}

/// A replica's `balance` sets the server-worker bandwidth for every path that runs a seed:
/// the one-pair run behind the CLI's `run` and the page's timeline gives the comparison's
/// iteration time (`tao` is deterministic, so every iteration is the same).
#[test]
fn a_balanced_replica_runs_one_pair_as_the_comparison_does() {
    let base = Graph::from_json(W, "w").unwrap();
    let mut spec = ReplicaSpec::new(&["w0"], &["ps0"]);
    spec.params_from_sources = true;
    let g = replicate(&base, &spec).unwrap().transformed.graph;
    let c = Cluster::from_json(CLUSTER, "c").unwrap();
    let mut s = Scenario::new(
        GraphSource::Bundled("w".into()),
        ClusterSource::File("c".into()),
    );
    s.placers = vec!["pinned".into()];
    s.schedulers = vec!["fifo".into()];
    s.links = LinkModel::Fcfs;
    s.link_order = vec!["tao".into()];
    s.iterations = 3;
    s.replica = Some(placesim::scenario::Replication {
        workers: vec!["w0".into()],
        ps: vec!["ps0".into()],
        forward_target: None,
        aggregate: false,
        param_ops: None,
        params_from_sources: true,
        balance: Some(0.25),
    });
    let r = compare::run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true).unwrap();
    assert!(r.results[0].error.is_none(), "{:?}", r.results[0].error);
    let real = compare::realize(&s, &g, Some(&c), 0).unwrap();
    let one = compare::run_one(&s, &g, &real.cluster, None, ("pinned", "fifo", None), 0).unwrap();
    let it = r.results[0].iteration_time.as_ref().unwrap();
    assert_eq!((it.min, it.max), (one.sim.makespan, one.sim.makespan));
    // The balance changed the bandwidth (else this test would not tell the paths apart).
    let plain = compare::run_one(&s, &g, &c, None, ("pinned", "fifo", None), 0).unwrap();
    assert_ne!(plain.sim.makespan, one.sim.makespan);
}
