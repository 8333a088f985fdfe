//! Model replicas with parameter servers (TicTac19 §2.3, §2.4, Fig. 3): a base graph becomes
//! one partition per worker and the parameter-server partition.
//!
//! Rules (docs/tictac.md, The model; reading A18 for what a read is):
//! - **Parameter reads** are the ops whose type is one of [`ReplicaSpec::param_ops`] (default
//!   `ReadVariableOp`, `VariableV2`, `Parameter`), or whose id ends in `/read`, or, with
//!   [`ReplicaSpec::params_from_sources`], every source with outgoing bytes (for synthetic
//!   graphs).
//! - **The server partition**: the reads, every member of their colocation groups (a
//!   variable's handle, read and update travel together in TensorFlow's graphs) and the
//!   reads' ancestors (the handles). One copy each, costs of reads and ancestors set to 0
//!   (TicTac19 §2.4: the server only activates its sends). Parameters (a read's colocation
//!   group, or the read alone) go to the servers round robin in the order of their first
//!   node, like TensorFlow's `replica_device_setter`.
//! - **Worker partitions**: every other op, once per worker, with id `<worker>/<id>`;
//!   colocation groups renamed the same way. All edges out of a read keep one tensor per
//!   read, so each worker receives each parameter once.
//! - **Updates**: a server op fed by worker ops. [`Updates::ApplyEach`] (the authors'
//!   in-graph replication, footnote 2): one copy per worker, `<worker>/<id>`, on the
//!   parameter's server. [`Updates::Aggregate`]: one `AddN` per update on the server,
//!   `<id>/aggregate`, cost `(K - 1) * bytes / 4` (one addition per 4-byte element per extra
//!   worker), fed by every worker's copy of the inputs, feeding the single update.
//! - Every node is pinned (`device`) to its server or worker.
//! - `forward_target`: the graph is first pruned to that op and its ancestors
//!   ([`super::ancestors`]; the paper's inference runs).
//! - Pass-through multi-tensor ops ([`ReplicaSpec::passthrough_ops`], default `IdentityN`) are
//!   split into one pass-through per tensor first ([`super::passthrough`]): TensorFlow's
//!   optimizers join all gradients in one `IdentityN`, which would hold every gradient push
//!   until the whole backward pass has ended; TensorFlow 1's SGD pushed each gradient as soon
//!   as it was computed (docs/tictac.md, The model). A forward run has no such op.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::model::graph::{Graph, GraphBuilder, NodeIx, NodeSpec};

use super::passthrough::split_passthrough;
use super::{ancestors, Transformed};

/// How updates from several workers reach a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Updates {
    /// Each worker's update applied on its own (one update op per worker).
    #[default]
    ApplyEach,
    /// Updates summed first (`AddN`), then applied once.
    Aggregate,
}

/// What to build.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaSpec {
    /// Cluster device ids of the workers.
    pub workers: Vec<String>,
    /// Cluster device ids of the parameter servers.
    pub ps: Vec<String>,
    pub param_ops: Vec<String>,
    pub params_from_sources: bool,
    pub forward_target: Option<String>,
    pub updates: Updates,
    /// Op types split into one pass-through per tensor before replicating (empty: none).
    pub passthrough_ops: Vec<String>,
}

impl ReplicaSpec {
    pub fn new(workers: &[&str], ps: &[&str]) -> ReplicaSpec {
        ReplicaSpec {
            workers: workers.iter().map(|s| s.to_string()).collect(),
            ps: ps.iter().map(|s| s.to_string()).collect(),
            param_ops: ["ReadVariableOp", "VariableV2", "Parameter"]
                .map(String::from)
                .to_vec(),
            params_from_sources: false,
            forward_target: None,
            updates: Updates::ApplyEach,
            passthrough_ops: super::passthrough::default_ops(),
        }
    }
}

/// A replicated graph: the transform and, per new node, its worker (`None` on a server).
#[derive(Debug, Clone, PartialEq)]
pub struct Replica {
    pub transformed: Transformed,
    pub worker_of: Vec<Option<usize>>,
}

/// Builds the replica of `base` (see the module doc).
pub fn replicate(base: &Graph, spec: &ReplicaSpec) -> Result<Replica> {
    if spec.workers.is_empty() || spec.ps.is_empty() {
        return Err(Error::Scenario(
            "a replica needs at least one worker and one parameter server".into(),
        ));
    }
    let mut ids: Vec<&String> = spec.workers.iter().chain(&spec.ps).collect();
    ids.sort();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::Scenario(format!(
            "device '{}' is named twice among the workers and servers",
            w[0]
        )));
    }
    let pruned;
    let (g, origin_of): (&Graph, Vec<NodeIx>) = match &spec.forward_target {
        Some(t) => {
            pruned = ancestors(base, t)?;
            let origin = pruned.origin.iter().map(|o| o[0]).collect();
            (&pruned.graph, origin)
        }
        None => (base, (0..base.node_count() as NodeIx).collect()),
    };
    // Pass-through ops split (each piece stands for its op of the base graph).
    let split = split_passthrough(g, &spec.passthrough_ops)?;
    let origin_of: Vec<NodeIx> = split
        .transformed
        .origin
        .iter()
        .map(|o| origin_of[o[0] as usize])
        .collect();
    let g = &split.transformed.graph;
    let n = g.node_count();
    let is_read = |v: usize| {
        let node = &g.nodes[v];
        spec.param_ops.contains(&node.op)
            || node.id.ends_with("/read")
            || (spec.params_from_sources
                && g.in_edges(v as NodeIx).is_empty()
                && g.out_edges(v as NodeIx)
                    .iter()
                    .any(|&e| g.edges[e as usize].bytes > 0.0))
    };
    // Server of each node on the server side; parameters round robin by first node.
    let mut server: Vec<Option<usize>> = vec![None; n];
    let mut zero_cost = vec![false; n];
    let mut next = 0usize;
    for v in 0..n {
        if !is_read(v) || server[v].is_some() {
            continue;
        }
        let ps = next % spec.ps.len();
        next += 1;
        let members: Vec<NodeIx> = match g.nodes[v].group {
            Some(grp) => g.group_members[grp as usize].clone(),
            None => vec![v as NodeIx],
        };
        for m in members {
            server[m as usize].get_or_insert(ps);
        }
        // The read's ancestors (handles) sit with it and cost nothing. A node is marked when
        // it is pushed, so each is pushed once and the walks cost `O(V + E)` in all (marked on
        // pop, a node pushed by several children rescanned its in-edges once per push; the
        // same nodes are marked and given the same server either way, as one walk gives one
        // `ps` and ends with its whole stack popped).
        zero_cost[v] = true;
        let mut stack = vec![v as NodeIx];
        while let Some(u) = stack.pop() {
            for &e in g.in_edges(u) {
                let a = g.edges[e as usize].src;
                if !zero_cost[a as usize] {
                    zero_cost[a as usize] = true;
                    server[a as usize].get_or_insert(ps);
                    stack.push(a);
                }
            }
        }
    }
    if next == 0 {
        return Err(Error::Graph(format!(
            "graph '{}' has no parameter reads (ops of type {} or ids ending in /read); \
             name them or use params_from_sources",
            g.name,
            spec.param_ops.join(", ")
        )));
    }
    // Updates: server nodes fed by worker nodes.
    let is_update = |v: usize| {
        server[v].is_some()
            && g.in_edges(v as NodeIx)
                .iter()
                .any(|&e| server[g.edges[e as usize].src as usize].is_none())
    };
    let k = spec.workers.len();
    let mut b = GraphBuilder::new();
    let mut origin: Vec<Vec<NodeIx>> = Vec::new();
    let mut worker_of = Vec::new();
    let group_name = |v: usize| g.nodes[v].group.map(|grp| g.groups[grp as usize].clone());
    let mut add = |b: &mut GraphBuilder, spec_node: NodeSpec, v: usize, w: Option<usize>| {
        origin.push(vec![origin_of[v]]);
        worker_of.push(w);
        b.node(spec_node);
    };
    // Ids of each node's copies: one on a server, one per worker otherwise.
    let copy_id = |v: usize, w: usize| format!("{}/{}", spec.workers[w], g.nodes[v].id);
    let mut aggregate: BTreeMap<usize, String> = BTreeMap::new();
    for v in 0..n {
        let mut node = NodeSpec::of(g, v as NodeIx);
        match server[v] {
            Some(ps) => {
                node.device = Some(spec.ps[ps].clone());
                if zero_cost[v] {
                    node.cost = Some(0.0);
                    node.time.clear();
                }
                if is_update(v) && spec.updates == Updates::ApplyEach {
                    for w in 0..k {
                        let mut copy = node.clone();
                        copy.id = copy_id(v, w);
                        add(&mut b, copy, v, None);
                    }
                } else {
                    if is_update(v) {
                        let bytes: f64 = g
                            .in_edges(v as NodeIx)
                            .iter()
                            .filter(|&&e| server[g.edges[e as usize].src as usize].is_none())
                            .map(|&e| g.edges[e as usize].bytes)
                            .sum();
                        let id = format!("{}/aggregate", node.id);
                        let sum = NodeSpec {
                            id: id.clone(),
                            op: "AddN".into(),
                            cost: Some((k - 1) as f64 * bytes / 4.0),
                            device: Some(spec.ps[ps].clone()),
                            colocate: group_name(v),
                            ..NodeSpec::default()
                        };
                        add(&mut b, sum, v, None);
                        aggregate.insert(v, id);
                    }
                    add(&mut b, node, v, None);
                }
            }
            None => {
                for w in 0..k {
                    let mut copy = node.clone();
                    copy.id = copy_id(v, w);
                    copy.device = Some(spec.workers[w].clone());
                    copy.colocate = group_name(v).map(|grp| format!("{}/{grp}", spec.workers[w]));
                    add(&mut b, copy, v, Some(w));
                }
            }
        }
    }
    // Edges. All of a read's out-edges carry one tensor (`read`), so each worker receives
    // each parameter once; other shared tensors keep sharing per copy of their source.
    for tensor in &g.tensors {
        let u = tensor.src as usize;
        let shared = if is_read(u) {
            Some("read".to_string())
        } else {
            (tensor.edges.len() > 1).then(|| format!("t{}", tensor.edges[0]))
        };
        for &e in &tensor.edges {
            let edge = &g.edges[e as usize];
            let v = edge.dst as usize;
            let t = shared.as_deref();
            // A per-worker update copy (ApplyEach) sends from its worker's copy.
            let each = |x: usize| is_update(x) && spec.updates == Updates::ApplyEach;
            let server_id = |x: usize, w: usize| {
                if each(x) {
                    copy_id(x, w)
                } else {
                    g.nodes[x].id.clone()
                }
            };
            match (server[u], server[v]) {
                // Server to server: the update copies (ApplyEach) each get the edge.
                (Some(_), Some(_)) => {
                    if each(u) || each(v) {
                        for w in 0..k {
                            b.edge(&server_id(u, w), &server_id(v, w), edge.bytes, t);
                        }
                    } else {
                        b.edge(&g.nodes[u].id, &g.nodes[v].id, edge.bytes, t);
                    }
                }
                // Server to worker: each worker receives the tensor once (from its own
                // update copy, when an update feeds a worker op).
                (Some(_), None) => {
                    for w in 0..k {
                        b.edge(&server_id(u, w), &copy_id(v, w), edge.bytes, t);
                    }
                }
                // Worker to server: an update's input, per worker.
                (None, Some(_)) => {
                    for w in 0..k {
                        let dst = match (spec.updates, aggregate.get(&v)) {
                            (Updates::ApplyEach, _) => copy_id(v, w),
                            (Updates::Aggregate, Some(sum)) => sum.clone(),
                            (Updates::Aggregate, None) => g.nodes[v].id.clone(),
                        };
                        b.edge(&copy_id(u, w), &dst, edge.bytes, t);
                    }
                }
                (None, None) => {
                    for w in 0..k {
                        b.edge(&copy_id(u, w), &copy_id(v, w), edge.bytes, t);
                    }
                }
            }
        }
    }
    for (v, sum) in &aggregate {
        let bytes: f64 = g
            .in_edges(*v as NodeIx)
            .iter()
            .filter(|&&e| server[g.edges[e as usize].src as usize].is_none())
            .map(|&e| g.edges[e as usize].bytes)
            .sum();
        b.edge(sum, &g.nodes[*v].id, bytes, None);
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let name = format!(
        "{} x{}, {}",
        g.name,
        plural(k, "worker"),
        plural(spec.ps.len(), "server")
    );
    Ok(Replica {
        transformed: Transformed {
            graph: b.build(&name)?,
            origin,
        },
        worker_of,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::graph;

    /// docs/tictac.md, vector V11.
    const BASE: &str = r#"{"nodes":[
        {"id":"h1","op":"Placeholder","cost":1,"mem":8,"colocate":"g1"},
        {"id":"r1","op":"ReadVariableOp","cost":1,"colocate":"g1"},
        {"id":"u1","op":"AssignSubVariableOp","cost":1,"colocate":"g1"},
        {"id":"x","cost":1},{"id":"f1","cost":2},{"id":"loss","cost":1},{"id":"grad1","cost":2}],
      "edges":[{"src":"h1","dst":"r1","bytes":0},{"src":"h1","dst":"u1","bytes":0},{"src":"grad1","dst":"u1","bytes":8},
               {"src":"x","dst":"f1","bytes":4},{"src":"r1","dst":"f1","bytes":8},{"src":"f1","dst":"loss","bytes":4},
               {"src":"loss","dst":"grad1","bytes":4},{"src":"r1","dst":"grad1","bytes":8}]}"#;

    fn ids(g: &Graph) -> Vec<&str> {
        g.nodes.iter().map(|n| n.id.as_str()).collect()
    }

    /// K = 2, P = 1, ApplyEach: 12 nodes (ps0: h1, r1, w0/u1, w1/u1; per worker x, f1, loss,
    /// grad1) and 15 edges; r1's 4 out-edges to workers carry one tensor per worker (2
    /// transfers of 8 B), the gradients 2 transfers of 8 B back; h1 and r1 cost 0.
    #[test]
    fn v11_apply_each() {
        let base = graph(BASE);
        let r = replicate(&base, &ReplicaSpec::new(&["w0", "w1"], &["ps0"])).unwrap();
        let g = &r.transformed.graph;
        assert_eq!(
            ids(g),
            [
                "h1", "r1", "w0/u1", "w1/u1", "w0/x", "w1/x", "w0/f1", "w1/f1", "w0/loss",
                "w1/loss", "w0/grad1", "w1/grad1"
            ]
        );
        assert_eq!(g.edge_count(), 15);
        assert_eq!(g.nodes[0].cost, Some(0.0));
        assert_eq!(g.nodes[1].cost, Some(0.0));
        assert_eq!(g.nodes[2].cost, Some(1.0), "updates keep their cost");
        assert!(g.nodes[..4]
            .iter()
            .all(|n| n.device.as_deref() == Some("ps0")));
        assert_eq!(g.nodes[4].device.as_deref(), Some("w0"));
        // One tensor per read per worker: r1 -> w0/f1 and r1 -> w0/grad1 share one.
        let r1 = g.node_index("r1").unwrap();
        let to_workers: Vec<_> = g
            .out_tensors(r1)
            .iter()
            .map(|&t| g.tensors[t as usize].edges.len())
            .collect();
        assert_eq!(to_workers, [4], "one tensor for all of r1's out-edges");
        assert_eq!(
            r.worker_of[4..],
            [
                Some(0),
                Some(1),
                Some(0),
                Some(1),
                Some(0),
                Some(1),
                Some(0),
                Some(1)
            ]
        );
        assert_eq!(r.transformed.origin[2], [2], "w0/u1 stands for u1");
        // The colocation group g1 holds the server's h1, r1 and both update copies.
        assert_eq!(g.group_members, [vec![0, 1, 2, 3]]);
    }

    /// forward_target = loss: 8 nodes (h1 and r1 on the server; x, f1, loss per worker).
    #[test]
    fn v11_forward_only() {
        let base = graph(BASE);
        let mut spec = ReplicaSpec::new(&["w0", "w1"], &["ps0"]);
        spec.forward_target = Some("loss".into());
        let r = replicate(&base, &spec).unwrap();
        assert_eq!(
            ids(&r.transformed.graph),
            ["h1", "r1", "w0/x", "w1/x", "w0/f1", "w1/f1", "w0/loss", "w1/loss"]
        );
    }

    /// A training graph whose gradients meet in one IdentityN (TensorFlow's optimizers):
    /// the replica splits it, so each worker's push of grad1 waits for grad1 only.
    #[test]
    fn identity_n_is_split_before_replicating() {
        let base = graph(
            r#"{"nodes":[
            {"id":"r1","op":"ReadVariableOp","cost":1,"colocate":"g1"},
            {"id":"u1","op":"AssignSubVariableOp","cost":1,"colocate":"g1"},
            {"id":"r2","op":"ReadVariableOp","cost":1,"colocate":"g2"},
            {"id":"u2","op":"AssignSubVariableOp","cost":1,"colocate":"g2"},
            {"id":"loss","cost":1},{"id":"grad1","cost":2},{"id":"grad2","cost":9},
            {"id":"sgd/IdentityN","op":"IdentityN","cost":2}],
          "edges":[{"src":"r1","dst":"loss","bytes":8},{"src":"r2","dst":"loss","bytes":8},
                   {"src":"loss","dst":"grad1","bytes":4},{"src":"loss","dst":"grad2","bytes":4},
                   {"src":"grad1","dst":"sgd/IdentityN","bytes":8},{"src":"grad2","dst":"sgd/IdentityN","bytes":8},
                   {"src":"sgd/IdentityN","dst":"u1","bytes":8},{"src":"sgd/IdentityN","dst":"u2","bytes":8}]}"#,
        );
        let r = replicate(&base, &ReplicaSpec::new(&["w0", "w1"], &["ps0"])).unwrap();
        let g = &r.transformed.graph;
        let preds = |id: &str| -> Vec<&str> {
            let v = g.node_index(id).unwrap_or_else(|| panic!("no {id}"));
            g.in_edges(v)
                .iter()
                .map(|&e| g.nodes[g.edges[e as usize].src as usize].id.as_str())
                .collect()
        };
        assert_eq!(preds("w0/sgd/IdentityN:0"), ["w0/grad1"]);
        assert_eq!(preds("w1/sgd/IdentityN:1"), ["w1/grad2"]);
        assert_eq!(preds("w0/u1"), ["w0/sgd/IdentityN:0"]);
        assert_eq!(preds("w1/u2"), ["w1/sgd/IdentityN:1"]);
        let piece = g.node_index("w0/sgd/IdentityN:0").unwrap() as usize;
        assert_eq!(g.nodes[piece].cost, Some(1.0));
        assert_eq!(g.nodes[piece].device.as_deref(), Some("w0"));
        assert_eq!(
            r.transformed.origin[piece],
            [7],
            "a piece stands for the base IdentityN"
        );
        assert_eq!(r.worker_of[piece], Some(0));
        // With no op types to split, the IdentityN stays one barrier.
        let mut spec = ReplicaSpec::new(&["w0", "w1"], &["ps0"]);
        spec.passthrough_ops.clear();
        let g = replicate(&base, &spec).unwrap().transformed.graph;
        let n = g.node_index("w0/sgd/IdentityN").unwrap();
        assert_eq!(g.in_edges(n).len(), 2);
    }

    /// Aggregate: one AddN of cost (K - 1) * 8 / 4 = 2 on the server, fed by both workers'
    /// gradients, feeding the single update.
    #[test]
    fn aggregate_sums_before_one_update() {
        let base = graph(BASE);
        let mut spec = ReplicaSpec::new(&["w0", "w1"], &["ps0"]);
        spec.updates = Updates::Aggregate;
        let g = replicate(&base, &spec).unwrap().transformed.graph;
        let sum = g.node_index("u1/aggregate").unwrap();
        assert_eq!(g.nodes[sum as usize].cost, Some(2.0));
        let into: Vec<&str> = g
            .in_edges(sum)
            .iter()
            .map(|&e| g.nodes[g.edges[e as usize].src as usize].id.as_str())
            .collect();
        assert_eq!(into, ["w0/grad1", "w1/grad1"]);
        let u1 = g.node_index("u1").unwrap();
        assert_eq!(g.in_edges(u1).len(), 2, "h1 and the sum");
    }

    #[test]
    fn bad_specs_are_errors_that_say_why() {
        let base = graph(BASE);
        let e = replicate(&base, &ReplicaSpec::new(&["w0"], &["w0"])).unwrap_err();
        assert!(e.to_string().contains("'w0' is named twice"), "{e}");
        let plain = graph(r#"{"nodes":[{"id":"a","cost":1}]}"#);
        let e = replicate(&plain, &ReplicaSpec::new(&["w0"], &["ps0"])).unwrap_err();
        assert!(e.to_string().contains("no parameter reads"), "{e}");
    }
}
