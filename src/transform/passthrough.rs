//! Splitting pass-through multi-tensor ops (`IdentityN` and the like) into one pass-through
//! per tensor.
//!
//! An `IdentityN` op forwards N tensors: its output i depends only on its input i. As one node
//! of a dataflow graph it is a barrier: none of its outputs is ready before all of its inputs
//! are. TensorFlow's optimizers join every gradient in one `IdentityN` before the updates, so
//! in a bundled training graph no update (and, in TicTac19's replicas, no gradient push) can
//! start before the whole backward pass has ended, which TensorFlow 1's SGD never did
//! (docs/tictac.md, The model). This transform gives each tensor its own pass-through, so each
//! output waits only for its own input.
//!
//! Rules:
//! - An op is split when its type is one of the given types (default [`DEFAULT_OPS`]) and it
//!   has as many data input tensors (`bytes > 0`) as data output tensors, at least two. The
//!   graph format has no output ports, so the i-th input tensor (in the file order of its first
//!   edge into the op) pairs with the i-th output tensor (in the file order of its first edge).
//!   An op of such a type whose counts differ is left whole and reported ([`Split::left`]).
//! - Piece i has id `<id>:<i>` (TensorFlow's name of output i), the op's type, group and device
//!   rule, and `cost`, `time` and `mem` divided by N (the op's work is kept).
//! - Piece i receives input tensor i and sends output tensor i (its edges, bytes and sharing
//!   kept). A control edge (`bytes == 0`) into or out of the op goes into or out of every piece.
//! - Every other node and edge is copied; a tensor carried by several edges stays one tensor.
//!
//! Applied by [`super::replicate`] before it builds a replica (TicTac19 training runs), and to
//! any graph by `placesim split`.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::model::graph::{Graph, GraphBuilder, NodeIx, NodeSpec, TensorIx};

use super::Transformed;

/// The op types split by default: TensorFlow's `IdentityN` (output i is input i).
pub const DEFAULT_OPS: [&str; 1] = ["IdentityN"];

/// A graph with its pass-through ops split.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    pub transformed: Transformed,
    /// Each op split, with its number of pieces, in node order.
    pub split: Vec<(String, usize)>,
    /// Ops of a listed type left whole, each with the reason.
    pub left: Vec<String>,
}

/// How node `v` is rewritten: copied, or split with the piece of each of its data tensors.
enum Plan {
    Copy,
    Pieces {
        n: usize,
        /// Input tensor -> piece (a map: each edge looks its tensor up, and a search of a
        /// list was `O(pieces)` per edge, `O(pieces^2)` for an IdentityN's edges).
        ins: BTreeMap<TensorIx, usize>,
        /// Output tensor -> piece (the first piece a tensor appears at).
        outs: BTreeMap<TensorIx, usize>,
    },
}

/// Each tensor's first position in `tensors`.
fn first_positions(tensors: Vec<TensorIx>) -> BTreeMap<TensorIx, usize> {
    let mut map = BTreeMap::new();
    for (i, t) in tensors.into_iter().enumerate() {
        map.entry(t).or_insert(i);
    }
    map
}

fn piece_id(graph: &Graph, v: NodeIx, i: usize) -> String {
    format!("{}:{i}", graph.nodes[v as usize].id)
}

/// Splits every op of a type in `ops` (see the module doc).
pub fn split_passthrough(graph: &Graph, ops: &[String]) -> Result<Split> {
    let n = graph.node_count();
    let mut plans: Vec<Plan> = (0..n).map(|_| Plan::Copy).collect();
    let mut split = Vec::new();
    let mut left = Vec::new();
    // Tensors already listed in `ins` (reset after each op): a search of `ins` for each
    // in-edge was `O(in-degree^2)`, and an optimizer's IdentityN joins every gradient.
    let mut listed = vec![false; graph.tensors.len()];
    for v in 0..n as NodeIx {
        let node = &graph.nodes[v as usize];
        if !ops.contains(&node.op) {
            continue;
        }
        let mut ins: Vec<TensorIx> = Vec::new();
        for &e in graph.in_edges(v) {
            let t = graph.edges[e as usize].tensor;
            if graph.tensors[t as usize].bytes > 0.0 && !listed[t as usize] {
                listed[t as usize] = true;
                ins.push(t);
            }
        }
        for &t in &ins {
            listed[t as usize] = false;
        }
        let outs: Vec<TensorIx> = graph
            .out_tensors(v)
            .iter()
            .copied()
            .filter(|&t| graph.tensors[t as usize].bytes > 0.0)
            .collect();
        if ins.len() != outs.len() {
            left.push(format!(
                "'{}' ({}) left whole: {} data input tensors and {} data output tensors, so \
                 outputs cannot be paired with inputs",
                node.id,
                node.op,
                ins.len(),
                outs.len()
            ));
            continue;
        }
        if ins.len() < 2 {
            continue;
        }
        for i in 0..ins.len() {
            let id = piece_id(graph, v, i);
            if graph.node_index(&id).is_some() {
                return Err(Error::Graph(format!(
                    "cannot split '{}': its piece '{id}' is already a node id",
                    node.id
                )));
            }
        }
        split.push((node.id.clone(), ins.len()));
        plans[v as usize] = Plan::Pieces {
            n: ins.len(),
            ins: first_positions(ins),
            outs: first_positions(outs),
        };
    }

    let mut b = GraphBuilder::new();
    let mut origin = Vec::new();
    for v in 0..n as NodeIx {
        let spec = NodeSpec::of(graph, v);
        match &plans[v as usize] {
            Plan::Copy => {
                b.node(spec);
                origin.push(vec![v]);
            }
            Plan::Pieces { n: k, .. } => {
                let share = *k as f64;
                for i in 0..*k {
                    let mut piece = spec.clone();
                    piece.id = piece_id(graph, v, i);
                    piece.cost = spec.cost.map(|c| c / share);
                    piece.time = spec
                        .time
                        .iter()
                        .map(|(d, t)| (d.clone(), t / share))
                        .collect();
                    piece.mem = spec.mem / share;
                    b.node(piece);
                    origin.push(vec![v]);
                }
            }
        }
    }
    // The ids an endpoint of tensor `t`'s edge stands for: the node, its one piece for a data
    // tensor, or all its pieces for a control edge.
    let ends = |v: NodeIx, t: TensorIx, outgoing: bool| -> Vec<String> {
        match &plans[v as usize] {
            Plan::Copy => vec![graph.nodes[v as usize].id.clone()],
            Plan::Pieces { n: k, ins, outs } => {
                let side = if outgoing { outs } else { ins };
                match side.get(&t) {
                    Some(&i) => vec![piece_id(graph, v, i)],
                    None => (0..*k).map(|i| piece_id(graph, v, i)).collect(),
                }
            }
        }
    };
    for (t, tensor) in graph.tensors.iter().enumerate() {
        let t = t as TensorIx;
        // Edges of one tensor share a name, so the tensor stays one transfer.
        let name = (tensor.edges.len() > 1).then(|| format!("t{t}"));
        for &e in &tensor.edges {
            let edge = &graph.edges[e as usize];
            for src in ends(edge.src, t, true) {
                for dst in ends(edge.dst, t, false) {
                    b.edge(&src, &dst, edge.bytes, name.as_deref());
                }
            }
        }
    }
    Ok(Split {
        transformed: Transformed {
            graph: b.build(&graph.name)?,
            origin,
        },
        split,
        left,
    })
}

/// The default op types as owned names.
pub fn default_ops() -> Vec<String> {
    DEFAULT_OPS.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::graph;

    /// ```text
    ///   g1 --8--> n --4--> u1        n = IdentityN(g1, g2), cost 2, mem 6
    ///   g2 --6--> n --3--> u2        g2's tensor also feeds x
    ///   g2 --6--> x                  c --0--> n (control), n --0--> z (control)
    ///   n --4--> y (output 0, shared with u1)
    /// ```
    #[test]
    fn identity_n_becomes_one_pass_through_per_tensor() {
        let g = graph(
            r#"{"nodes":[{"id":"g1","cost":1},{"id":"g2","cost":1},{"id":"c","cost":1},
                         {"id":"n","op":"IdentityN","cost":2,"mem":6},
                         {"id":"u1","cost":1},{"id":"u2","cost":1},{"id":"x","cost":1},
                         {"id":"y","cost":1},{"id":"z","cost":1}],
                "edges":[{"src":"g1","dst":"n","bytes":8},
                         {"src":"g2","dst":"n","bytes":6,"tensor":"o"},{"src":"g2","dst":"x","bytes":6,"tensor":"o"},
                         {"src":"c","dst":"n","bytes":0},
                         {"src":"n","dst":"u1","bytes":4,"tensor":"out0"},{"src":"n","dst":"u2","bytes":3},
                         {"src":"n","dst":"y","bytes":4,"tensor":"out0"},{"src":"n","dst":"z","bytes":0}]}"#,
        );
        let s = split_passthrough(&g, &default_ops()).unwrap();
        assert_eq!(s.split, [("n".to_string(), 2)]);
        assert!(s.left.is_empty());
        let h = &s.transformed.graph;
        let ids: Vec<&str> = h.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            ["g1", "g2", "c", "n:0", "n:1", "u1", "u2", "x", "y", "z"]
        );
        assert_eq!(s.transformed.origin[3], [3]);
        assert_eq!(s.transformed.origin[4], [3]);
        assert_eq!(h.nodes[3].cost, Some(1.0), "cost shared between the pieces");
        assert_eq!(h.nodes[4].mem, 3.0);
        let preds = |id: &str| -> Vec<&str> {
            let v = h.node_index(id).unwrap();
            h.in_edges(v)
                .iter()
                .map(|&e| h.nodes[h.edges[e as usize].src as usize].id.as_str())
                .collect()
        };
        // Each output waits for its own input only (and the control edge).
        assert_eq!(preds("n:0"), ["g1", "c"]);
        assert_eq!(preds("n:1"), ["g2", "c"]);
        assert_eq!(preds("u1"), ["n:0"]);
        assert_eq!(preds("y"), ["n:0"]);
        assert_eq!(preds("u2"), ["n:1"]);
        assert_eq!(preds("z"), ["n:0", "n:1"]);
        // Tensors keep their sharing: g2's output to n:1 and x, n:0's output to u1 and y.
        let n0 = h.node_index("n:0").unwrap();
        let shared: Vec<usize> = h
            .out_tensors(n0)
            .iter()
            .map(|&t| h.tensors[t as usize].edges.len())
            .collect();
        assert_eq!(shared, [2, 1], "out0 to u1 and y, control to z");
        let g2 = h.node_index("g2").unwrap();
        assert_eq!(h.out_tensors(g2).len(), 1);
        assert_eq!(h.edge_count(), g.edge_count() + 2, "control edges doubled");
        // Bytes are kept per edge.
        let u2 = h.node_index("u2").unwrap();
        assert_eq!(h.edges[h.in_edges(u2)[0] as usize].bytes, 3.0);
    }

    /// The bundled training graphs: each has one `IdentityN` joining every gradient; after
    /// the split each piece waits for one gradient only and feeds its own update's chain.
    #[test]
    fn bundled_training_graphs_lose_their_gradient_barrier() {
        for (name, tensors) in [
            ("alexnet_ops_train", 16),
            ("vgg16_ops_train", 32),
            ("seq32_ops_train", 66),
        ] {
            let path = format!("{}/graphs/{name}.json", env!("CARGO_MANIFEST_DIR"));
            let g = Graph::from_json(&std::fs::read_to_string(path).unwrap(), name).unwrap();
            let s = split_passthrough(&g, &default_ops()).unwrap();
            assert_eq!(s.split, [("sgd/IdentityN".to_string(), tensors)], "{name}");
            assert!(s.left.is_empty());
            let h = &s.transformed.graph;
            assert_eq!(h.node_count(), g.node_count() + tensors - 1);
            for i in 0..tensors {
                let v = h.node_index(&format!("sgd/IdentityN:{i}")).unwrap();
                let data_in = h
                    .in_edges(v)
                    .iter()
                    .filter(|&&e| h.edges[e as usize].bytes > 0.0)
                    .count();
                assert_eq!(data_in, 1, "{name} piece {i}");
                assert_eq!(h.out_tensors(v).len(), 1, "{name} piece {i}");
            }
        }
    }

    /// Unequal counts: left whole, with the reason; other op types untouched.
    #[test]
    fn unpairable_ops_are_left_whole_and_named() {
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1},{"id":"n","op":"IdentityN","cost":1},
                         {"id":"m","op":"AddN","cost":1},{"id":"u","cost":1}],
                "edges":[{"src":"a","dst":"n","bytes":8},{"src":"b","dst":"n","bytes":8},
                         {"src":"n","dst":"u","bytes":8},{"src":"a","dst":"m","bytes":8},
                         {"src":"b","dst":"m","bytes":8},{"src":"m","dst":"u","bytes":8}]}"#,
        );
        let s = split_passthrough(&g, &default_ops()).unwrap();
        assert!(s.split.is_empty());
        assert_eq!(s.left.len(), 1);
        assert!(
            s.left[0].contains("'n'") && s.left[0].contains("2 data input"),
            "{}",
            s.left[0]
        );
        assert_eq!(s.transformed.graph.node_count(), g.node_count());
        // AddN is split only when asked, and then it pairs nothing (2 in, 1 out).
        let s = split_passthrough(&g, &["AddN".to_string()]).unwrap();
        assert!(s.split.is_empty() && s.left[0].contains("'m'"));
    }

    #[test]
    fn a_piece_id_taken_is_an_error_naming_it() {
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1},{"id":"n","op":"IdentityN","cost":1},
                         {"id":"n:1","cost":1},{"id":"u","cost":1}],
                "edges":[{"src":"a","dst":"n","bytes":8},{"src":"b","dst":"n","bytes":8},
                         {"src":"n","dst":"u","bytes":8},{"src":"n","dst":"n:1","bytes":8}]}"#,
        );
        let e = split_passthrough(&g, &default_ops())
            .unwrap_err()
            .to_string();
        assert!(e.contains("'n:1'"), "{e}");
    }
}
