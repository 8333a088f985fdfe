//! Test fixtures shared by the unit tests of placers, schedulers and analyses: small
//! graphs and clusters from JSON snippets, and the worked examples several strategies
//! are checked against.

use crate::model::cluster::{Cluster, DevIx};
use crate::model::graph::Graph;
use crate::model::problem::Problem;
use crate::model::LinkModel;
use crate::rng::Rng;
use crate::schedule::fifo::Fifo;
use crate::sim::{simulate, SimOptions, SimResult};
use crate::transfer::fifo::FifoLinks;

/// Parses a test graph (named "g").
pub fn graph(json: &str) -> Graph {
    Graph::from_json(json, "g").unwrap()
}

/// Parses a test cluster (named "c").
pub fn cluster(json: &str) -> Cluster {
    Cluster::from_json(json, "c").unwrap()
}

/// Parses a test graph and cluster.
pub fn parse(graph_json: &str, cluster_json: &str) -> (Graph, Cluster) {
    (graph(graph_json), cluster(cluster_json))
}

/// Simulates `json` on `cluster` under `placement` with fifo scheduling (seed 1) and fifo
/// links, recording the trace.
pub fn simulate_fifo(
    json: &str,
    cluster: &Cluster,
    placement: &[DevIx],
    links: LinkModel,
) -> SimResult {
    let g = graph(json);
    let p = Problem::new(&g, cluster).unwrap();
    simulate(
        &p,
        placement,
        &mut Fifo::new(Rng::new(1)),
        &mut FifoLinks::default(),
        SimOptions {
            links,
            record: true,
        },
    )
}

/// A graph from node and edge JSON objects.
pub fn joined(nodes: &[String], edges: &[String]) -> Graph {
    graph(&format!(
        r#"{{"nodes":[{}],"edges":[{}]}}"#,
        nodes.join(","),
        edges.join(",")
    ))
}

/// The fifo link rule's hand case (Pesto21's exact searches, `optim::cp` and `optim::bb`):
/// A(1) -> B(1) pinned to g0, A -> C(1) 5 bytes and B -> D(10) 1 byte, C and D pinned to
/// g1, bandwidth 1. Under `fifo` A's send goes first: 17; a free link order sends B's
/// first: 14.
pub fn fifo_case() -> (Graph, Cluster) {
    parse(
        r#"{"nodes":[{"id":"a","cost":1,"device":"g0"},{"id":"b","cost":1,"device":"g0"},
                     {"id":"c","cost":1,"device":"g1"},{"id":"d","cost":10,"device":"g1"}],
            "edges":[{"src":"a","dst":"b","bytes":1},{"src":"a","dst":"c","bytes":5},
                     {"src":"b","dst":"d","bytes":1}]}"#,
        r#"{"devices":[{"id":"g0","speed":1},{"id":"g1","speed":1}],"bandwidth":1}"#,
    )
}

/// Asserts that in a recorded run (`ops[v]` = start and finish of op `v` under
/// `placement`) every op starts no earlier than each input arrives: its producer's finish
/// plus the edge's transfer time, give or take `slack`. `what` names the run on failure.
pub fn assert_inputs_arrive(
    p: &Problem,
    placement: &[DevIx],
    ops: &[(f64, f64)],
    slack: f64,
    what: &str,
) {
    for (e, edge) in p.graph.edges.iter().enumerate() {
        let (u, v) = (edge.src as usize, edge.dst as usize);
        let moved = p.edge_transfer_time(e as u32, placement[u], placement[v]);
        assert!(ops[u].1 + moved <= ops[v].0 + slack, "{what}: edge {e}");
    }
}

/// The example of Topcuoglu, Hariri, Wu 2002 (Fig. 2 and its cost table): 10 tasks,
/// 3 processors, communication costs equal between any two processors and zero on
/// one. As a cluster: 3 devices of kinds p1..p3, bandwidth 1, latency 0, edge bytes =
/// communication cost, per-kind time tables = the computation cost matrix.
pub fn topcuoglu() -> (Graph, Cluster) {
    let w = [
        [14, 16, 9],
        [13, 19, 18],
        [11, 13, 19],
        [13, 8, 17],
        [12, 13, 10],
        [13, 16, 9],
        [7, 15, 11],
        [5, 11, 14],
        [18, 12, 20],
        [21, 7, 16],
    ];
    let edges = [
        (1, 2, 18),
        (1, 3, 12),
        (1, 4, 9),
        (1, 5, 11),
        (1, 6, 14),
        (2, 8, 19),
        (2, 9, 16),
        (3, 7, 23),
        (4, 8, 27),
        (4, 9, 23),
        (5, 9, 13),
        (6, 8, 15),
        (7, 10, 17),
        (8, 10, 11),
        (9, 10, 13),
    ];
    let nodes: Vec<String> = w
        .iter()
        .enumerate()
        .map(|(i, t)| {
            format!(
                r#"{{"id":"n{}","time":{{"p1":{},"p2":{},"p3":{}}}}}"#,
                i + 1,
                t[0],
                t[1],
                t[2]
            )
        })
        .collect();
    let edges: Vec<String> = edges
        .iter()
        .map(|(a, b, c)| format!(r#"{{"src":"n{a}","dst":"n{b}","bytes":{c}}}"#))
        .collect();
    let c = cluster(
        r#"{"devices":[{"id":"P1","kind":"p1","speed":1},{"id":"P2","kind":"p2","speed":1},
                       {"id":"P3","kind":"p3","speed":1}],"bandwidth":1}"#,
    );
    (joined(&nodes, &edges), c)
}

/// Carbonari17's appendix example (Figure 1a, Table 5 costs) on CPU1, CPU2 and a GPU.
pub fn carbonari_appendix() -> (Graph, Cluster) {
    parse(
        include_str!("../graphs/carbonari_appendix.json"),
        include_str!("../graphs/carbonari_appendix_cluster.json"),
    )
}

/// A test problem with colocation groups, device rules and memory tight enough to bind,
/// shared by the tests of the Mayer17 placers.
///
/// 120 nodes in 12 layers of 10; each node feeds two nodes of the next layer. Every
/// 7th node must run on the cpu, groups of 3 consecutive nodes in some layers (one of
/// them holding a cpu-only member). Cluster: one cpu and three gpus of different speeds;
/// memory 1000 bytes in all for 579 bytes of footprints, but only 150 on the fastest
/// gpu, so every strategy that prefers fast devices fills it and spills.
pub fn constrained() -> (Graph, Cluster) {
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for i in 0..120 {
        let layer = i / 10;
        let mut fields = vec![
            format!(r#""id":"n{i}""#),
            format!(r#""cost":{}"#, 1 + (i * 37) % 11),
            format!(r#""mem":{}"#, 1 + (i * 13) % 5),
        ];
        if i % 7 == 0 {
            fields.push(r#""device":"cpu""#.into());
        }
        if layer % 3 == 1 && i % 10 < 6 {
            fields.push(format!(r#""colocate":"g{}""#, i / 3));
        }
        nodes.push(format!("{{{}}}", fields.join(",")));
        if layer < 11 {
            for j in [(i + 1) % 10, (i * 3 + 2) % 10] {
                let dst = (layer + 1) * 10 + j;
                edges.push(format!(
                    r#"{{"src":"n{i}","dst":"n{dst}","bytes":{},"tensor":"out"}}"#,
                    1 + i % 3
                ));
            }
        }
    }
    let g = joined(&nodes, &edges);
    let c = cluster(
        r#"{"devices":[{"id":"cpu","kind":"cpu","speed":1,"memory":400},
                       {"id":"g0","speed":8,"memory":150},
                       {"id":"g1","speed":4,"memory":200},
                       {"id":"g2","speed":2,"memory":250}],
            "bandwidth":2,"latency":0.1}"#,
    );
    (g, c)
}

/// docs/tictac.md, vector V8, as [`tictac`]'s `reads`: a comparator cycle (A < B by M+,
/// B < C by M+, C < A by Eq. 5); no op joins C, so its M+ is infinite.
pub const V8_READS: &[(&str, f64, u32)] =
    &[("A", 3.0, 0), ("B", 1.0, 0), ("C", 3.0, 0), ("D", 3.0, 0)];

/// docs/tictac.md, vector V8, as [`tictac`]'s `ops`.
pub const V8_OPS: &[(&str, f64, &[&str])] = &[
    ("o1", 2.0, &["A", "B", "D"]),
    ("o2", 3.0, &["C"]),
    ("o3", 2.0, &["A"]),
    ("o4", 3.0, &["A", "D"]),
    ("o5", 1.0, &["B"]),
];

/// A TicTac19 test instance (docs/tictac.md, Test vectors): `reads` are parameter reads of
/// cost 0 on parameter-server devices (`(name, bytes, ps index)`), each sent once to the
/// worker (one tensor per read, whatever its number of consumers); `ops` are the worker's
/// compute ops `(name, time, inputs)` where an input is a read or an earlier op. Devices:
/// the servers, then the worker, all speed 1, bandwidth 1, latency 0. Returns
/// the graph, the cluster and the placement.
pub fn tictac(
    reads: &[(&str, f64, u32)],
    ops: &[(&str, f64, &[&str])],
) -> (Graph, Cluster, Vec<DevIx>) {
    let servers = reads.iter().map(|r| r.2 + 1).max().unwrap_or(0);
    let mut nodes: Vec<String> = Vec::new();
    let mut edges: Vec<String> = Vec::new();
    let mut placement = Vec::new();
    for (name, _, ps) in reads {
        nodes.push(format!(r#"{{"id":"{name}","cost":0}}"#));
        placement.push(*ps);
    }
    for (name, time, inputs) in ops {
        nodes.push(format!(r#"{{"id":"{name}","cost":{time}}}"#));
        placement.push(servers);
        for i in inputs.iter() {
            let bytes = reads.iter().find(|r| r.0 == *i).map_or(0.0, |r| r.1);
            edges.push(format!(
                r#"{{"src":"{i}","dst":"{name}","bytes":{bytes},"tensor":"out"}}"#
            ));
        }
    }
    let speeds = vec![1.0; servers as usize + 1];
    let c = Cluster::uniform(&speeds, 1.0, 0.0);
    (joined(&nodes, &edges), c, placement)
}
