//! Graph-to-graph rewrites, each with a map back to the original nodes.
//!
//! A transform takes a validated [`Graph`] and builds another through
//! [`GraphBuilder`] (so the result is validated like any loaded graph), and returns it with
//! [`Transformed::origin`]: for every new node, the original node it stands for. Results
//! computed on the new graph (a placement, an order) are carried back with
//! [`Transformed::pull_back`]. Replication onto workers and parameter servers (TicTac19) and
//! coarsening (Pesto21 §3.3) are transforms of this shape.
//!
//! Not here: costs on devices (the problem is built on the transformed graph as on any other).

use petgraph::visit::{Dfs, Reversed};

pub mod coarsen;
pub mod passthrough;
pub mod replicate;

use crate::error::{Error, Result};
use crate::model::graph::{Graph, GraphBuilder, NodeIx, NodeSpec};

/// A rewritten graph and where each of its nodes comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Transformed {
    pub graph: Graph,
    /// For each node of `graph`, the original nodes it stands for (one for a copy, several
    /// for a merged node, none for a node the transform added).
    pub origin: Vec<Vec<NodeIx>>,
}

impl Transformed {
    /// Carries per-node values of the new graph back to the `original` graph's nodes:
    /// each original node gets the value of the new node that stands for it, `None` when no
    /// new node does (a node the transform dropped).
    pub fn pull_back<T: Clone>(&self, original: &Graph, values: &[T]) -> Vec<Option<T>> {
        let mut out = vec![None; original.node_count()];
        for (new, olds) in self.origin.iter().enumerate() {
            for &old in olds {
                out[old as usize] = Some(values[new].clone());
            }
        }
        out
    }
}

/// The subgraph of `target` and everything it depends on, directly or transitively: a
/// forward pass up to one output (TicTac19 §6 measures inference as the ancestors of the
/// loss). Nodes keep their ids, order and fields; edges between kept nodes are kept with
/// their tensors; colocation groups keep only their kept members.
pub fn ancestors(graph: &Graph, target: &str) -> Result<Transformed> {
    let t = graph
        .node_index(target)
        .ok_or_else(|| Error::Graph(format!("no node '{target}' to prune to")))?;
    let pg = graph.to_petgraph();
    let mut keep = vec![false; graph.node_count()];
    let mut dfs = Dfs::new(Reversed(&pg), t.into());
    while let Some(v) = dfs.next(Reversed(&pg)) {
        keep[v.index()] = true;
    }
    let mut b = GraphBuilder::new();
    let mut origin = Vec::new();
    for v in 0..graph.node_count() as NodeIx {
        if keep[v as usize] {
            b.node(NodeSpec::of(graph, v));
            origin.push(vec![v]);
        }
    }
    for tensor in &graph.tensors {
        for &e in &tensor.edges {
            let edge = &graph.edges[e as usize];
            if keep[edge.src as usize] && keep[edge.dst as usize] {
                // Edges of one tensor share a name, so the tensor stays one transfer.
                let name = (tensor.edges.len() > 1).then(|| format!("t{}", edge.tensor));
                b.edge(
                    &graph.nodes[edge.src as usize].id,
                    &graph.nodes[edge.dst as usize].id,
                    edge.bytes,
                    name.as_deref(),
                );
            }
        }
    }
    Ok(Transformed {
        graph: b.build(&format!("{} up to {target}", graph.name))?,
        origin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::graph;

    /// ```text
    ///   a --> b --> d      c --> e      a --> e
    ///   a --(tensor t)--> b, a --(tensor t)--> e
    /// ```
    /// Up to d: a, b, d (c and e dropped); a's shared tensor stays one tensor with one edge
    /// left. Up to e: a, c, e.
    #[test]
    fn ancestors_keep_exactly_what_the_target_depends_on() {
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1,"colocate":"g"},{"id":"b","cost":2},{"id":"c","cost":3,"colocate":"g"},
                         {"id":"d","cost":4},{"id":"e","cost":5}],
                "edges":[{"src":"a","dst":"b","bytes":7,"tensor":"t"},{"src":"b","dst":"d","bytes":1},
                         {"src":"c","dst":"e","bytes":2},{"src":"a","dst":"e","bytes":7,"tensor":"t"}]}"#,
        );
        let up_to_d = ancestors(&g, "d").unwrap();
        let ids: Vec<&str> = up_to_d.graph.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "d"]);
        assert_eq!(up_to_d.origin, [vec![0], vec![1], vec![3]]);
        assert_eq!(up_to_d.graph.edge_count(), 2);
        assert_eq!(up_to_d.graph.tensors.len(), 2);
        assert_eq!(
            up_to_d.graph.group_members,
            [vec![0]],
            "group g keeps only a"
        );
        // A placement of the pruned graph carries back; dropped nodes get none.
        let back = up_to_d.pull_back(&g, &[5u32, 6, 7]);
        assert_eq!(back, [Some(5), Some(6), None, Some(7), None]);

        let up_to_e = ancestors(&g, "e").unwrap();
        let ids: Vec<&str> = up_to_e.graph.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["a", "c", "e"]);
        assert_eq!(up_to_e.graph.nodes[2].cost, Some(5.0));
        let e = ancestors(&g, "zz").unwrap_err().to_string();
        assert!(e.contains("'zz'"), "{e}");
    }

    /// The builder validates like a file: a cycle built in code is refused, naming a node.
    #[test]
    fn built_graphs_are_validated_like_files() {
        let mut b = GraphBuilder::new();
        for id in ["x", "y"] {
            b.node(NodeSpec {
                id: id.into(),
                cost: Some(1.0),
                ..NodeSpec::default()
            });
        }
        b.edge("x", "y", 1.0, None).edge("y", "x", 1.0, None);
        let e = b.build("cyclic").unwrap_err().to_string();
        assert!(e.contains("cycle"), "{e}");
        let mut b = GraphBuilder::new();
        b.node(NodeSpec {
            id: "x".into(),
            cost: Some(-1.0),
            ..NodeSpec::default()
        });
        assert!(b
            .build("bad")
            .unwrap_err()
            .to_string()
            .contains("node 'x': cost"));
    }
}
