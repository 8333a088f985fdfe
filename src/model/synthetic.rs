//! Synthetic graphs for benchmarks, property tests and scale checks in the browser.
//!
//! [`layered_dag`] builds a DNN-like DAG: nodes in index order, each (after the first few)
//! reading from one to `fan_in` recent nodes, so chains, forks and joins all occur and the
//! graph is acyclic by construction. Costs and tensor sizes are drawn from 1..100 (Mayer17
//! §5.1's ranges); every 20th node shares a colocation group with the node five after it
//! (a variable and its update, as in TensorFlow training graphs).
//!
//! [`gpu_instance`] builds the small instances the `pesto` optimiser is benchmarked and
//! tested on: a local random DAG on identical GPUs.

use serde_json::{json, Value};

use crate::error::Result;
use crate::model::cluster::Cluster;
use crate::model::graph::Graph;
use crate::rng::Rng;

/// A random DAG of `n` ops (cost 1..9), each reading some of its four predecessors (bytes
/// 1..5, the previous op more often), on `k` identical GPUs of speed 1, bandwidth 1 and
/// latency 0: the instances of `benches/pesto.rs` and of `pesto`'s tests (Pesto21's
/// 20-op exact-mode targets).
pub fn gpu_instance(n: usize, k: usize, seed: u64) -> Result<(Graph, Cluster)> {
    let mut r = Rng::new(seed);
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for j in 0..n {
        nodes.push(format!(r#"{{"id":"n{j}","cost":{}}}"#, 1 + r.below(9)));
        for i in j.saturating_sub(4)..j {
            if r.below(3) == 0 || (i + 1 == j && r.below(2) == 0) {
                edges.push(format!(
                    r#"{{"src":"n{i}","dst":"n{j}","bytes":{}}}"#,
                    1 + r.below(5)
                ));
            }
        }
    }
    let devices: Vec<String> = (0..k)
        .map(|d| format!(r#"{{"id":"g{d}","kind":"gpu","speed":1}}"#))
        .collect();
    let graph = Graph::from_json(
        &format!(
            r#"{{"nodes":[{}],"edges":[{}]}}"#,
            nodes.join(","),
            edges.join(",")
        ),
        &format!("random{n}_{seed}"),
    )?;
    let cluster = Cluster::from_json(
        &format!(r#"{{"devices":[{}],"bandwidth":1}}"#, devices.join(",")),
        "gpus",
    )?;
    Ok((graph, cluster))
}

/// Parameters of [`layered_dag`].
#[derive(Debug, Clone, Copy)]
pub struct SyntheticSpec {
    pub nodes: usize,
    /// How far back (in nodes) a node may read from: the graph's typical parallel width.
    pub window: usize,
    /// Most inputs a node has.
    pub fan_in: usize,
    pub seed: u64,
}

impl SyntheticSpec {
    pub fn new(nodes: usize, seed: u64) -> SyntheticSpec {
        SyntheticSpec {
            nodes,
            window: 16,
            fan_in: 3,
            seed,
        }
    }
}

/// Graph JSON v1 text of a layered random DAG.
pub fn layered_dag(spec: SyntheticSpec) -> String {
    let mut rng = Rng::derive(spec.seed, &["synthetic"], spec.nodes as u64);
    let ops = ["MatMul", "Conv2D", "Relu", "Add", "Concat"];
    let mut nodes: Vec<Value> = Vec::with_capacity(spec.nodes);
    let mut edges: Vec<Value> = Vec::new();
    for i in 0..spec.nodes {
        let mut node = json!({
            "id": format!("n{i}"),
            "op": ops[rng.below(ops.len() as u64) as usize],
            "cost": rng.uniform(1.0, 100.0),
        });
        if i % 20 == 0 && i + 5 < spec.nodes {
            node["colocate"] = json!(format!("g{i}"));
        } else if i >= 5 && (i - 5) % 20 == 0 {
            node["colocate"] = json!(format!("g{}", i - 5));
        }
        nodes.push(node);
        if i == 0 {
            continue;
        }
        let inputs = 1 + rng.below(spec.fan_in.max(1) as u64) as usize;
        let mut chosen: Vec<usize> = Vec::with_capacity(inputs);
        for _ in 0..inputs {
            let back = 1 + rng.below(spec.window.min(i).max(1) as u64) as usize;
            let src = i - back;
            if !chosen.contains(&src) {
                chosen.push(src);
            }
        }
        for src in chosen {
            edges.push(json!({"src": format!("n{src}"), "dst": format!("n{i}"), "bytes": rng.uniform(1.0, 100.0)}));
        }
    }
    json!({
        "name": format!("synthetic_{}", spec.nodes),
        "source": format!("placesim generate --nodes {} --seed {}", spec.nodes, spec.seed),
        "nodes": nodes,
        "edges": edges,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::graph::Graph;

    #[test]
    fn builds_a_valid_dag_deterministically() {
        let text = layered_dag(SyntheticSpec::new(500, 3));
        assert_eq!(text, layered_dag(SyntheticSpec::new(500, 3)));
        let g = Graph::from_json(&text, "s").unwrap();
        assert_eq!(g.node_count(), 500);
        assert!(g.edge_count() >= 499);
        assert_eq!(g.groups.len(), 25);
        assert!(g.group_members.iter().all(|m| m.len() == 2));
    }
}
