//! `expert`: the hand placement Pesto21 compares against (§1, §5.2): "assigning a subset of
//! layers to each GPU", or, for NASNet, "parallel branches within each cell across different
//! GPUs ... divided evenly among available GPUs".
//!
//! Reading (docs/pesto.md, reading 3.1):
//! - The GPUs are the devices of kind `gpu` in index order (all devices when there is none);
//!   `G` is their number.
//! - A node's layer is its `layer` field. A node without one takes its first labelled
//!   predecessor's (in topological order), else its first labelled successor's, else the
//!   lowest layer. No layer anywhere is an error: `expert` needs `nodes[].layer`.
//! - **Mode 0, layer blocks** (`expert.mode=0`, default): the `L` distinct layers, sorted;
//!   the layer of rank `r` goes to GPU `floor(r * G / L)`, contiguous blocks, the first ones
//!   one layer larger.
//! - **Mode 1, branches** (`expert.mode=1`, NASNet's cells): inside each layer, without the
//!   layer's sources, sinks and fork points (no predecessor, no successor, or more than one
//!   successor, in the layer), the weakly connected components are the branches; they go to
//!   GPUs by longest processing time first (summed `work`, ties by first node), each to the
//!   least loaded GPU of that layer. A source, sink or fork point then goes to the GPU
//!   holding most of its already placed neighbours (ties to the lower index), in index
//!   order. Fork points are cut because a NASNet cell's branches all read the cell's input
//!   convolutions: with them, every cell was one branch, and the whole graph went to the
//!   first GPU (11.2 GB of 11.2 GB on the bundled NASNet), against the paper's operations
//!   "divided evenly among available GPUs" (§5.2). Balancing is by `work` (compute), as the
//!   paper's Expert splits the work and ignores memory.
//! - A colocation group follows its lowest-index member; a node its rules forbid there goes
//!   to its first allowed device (CPU ops stay on the CPU).
//! - **No memory check** (the paper's Expert ignores memory): the comparison's placement
//!   check then reports an over-full device as the pair's error, the paper's "OOM".

use super::{gpus, Placer, PlacerInfo};
use crate::error::{Error, Result};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::{ParamKind, ParamSpec, Params};
use crate::plan::Placement;
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "expert",
    summary: "layer blocks per GPU, or a cell's parallel branches across GPUs (the Expert baseline of Pesto21 §5.2)",
    params: &[ParamSpec {
        name: "mode",
        default: 0.0,
        kind: ParamKind::Switch,
        min: 0.0,
        min_open: false,
        max: 1.0,
        doc: "0: contiguous blocks of layers per GPU (NMT, RNNLM, Transformer); 1: each layer's parallel branches across GPUs (NASNet)",
    }],
    plans: false,
    make: || Box::new(Expert),
};

pub struct Expert;

/// Every node's layer (see the module doc), or the error when no node has one.
fn layers(problem: &Problem) -> Result<Vec<i64>> {
    let g = problem.graph;
    let n = g.node_count();
    let mut layer: Vec<Option<i64>> = g.nodes.iter().map(|x| x.layer).collect();
    let Some(lowest) = layer.iter().flatten().copied().min() else {
        return Err(Error::placement(
            INFO.name,
            "expert needs nodes[].layer (no node of the graph has a layer)",
        ));
    };
    let given = layer.clone();
    for &v in g.topo_order() {
        if layer[v as usize].is_none() {
            layer[v as usize] = g
                .in_edges(v)
                .iter()
                .find_map(|&e| layer[g.edges[e as usize].src as usize]);
        }
    }
    for &v in g.topo_order().iter().rev() {
        if layer[v as usize].is_none() {
            layer[v as usize] = g.out_edges(v).iter().find_map(|&e| {
                given[g.edges[e as usize].dst as usize].or(layer[g.edges[e as usize].dst as usize])
            });
        }
    }
    Ok((0..n).map(|v| layer[v].unwrap_or(lowest)).collect())
}

impl Placer for Expert {
    fn place(&self, problem: &Problem, params: &Params, _: &mut Rng) -> Result<Placement> {
        let g = problem.graph;
        let n = g.node_count();
        let devices = &problem.cluster.devices;
        let gpus = gpus(problem);
        let layer = layers(problem)?;
        let mut distinct = layer.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let rank = |l: i64| {
            distinct
                .binary_search(&l)
                .expect("a node's layer is listed")
        };
        let mut place = vec![DevIx::MAX; n];
        if params.get("mode") == 0.0 {
            let (big_g, big_l) = (gpus.len(), distinct.len());
            for v in 0..n {
                place[v] = gpus[rank(layer[v]) * big_g / big_l];
            }
        } else {
            branches(problem, &layer, &gpus, &mut place);
        }
        // Colocation groups follow their lowest-index member; rules move a node to its
        // first allowed device.
        for members in &g.group_members {
            let lead = place[members[0] as usize];
            for &m in members {
                place[m as usize] = lead;
            }
        }
        for v in 0..n as NodeIx {
            if !problem.allowed(v, place[v as usize]) {
                place[v as usize] = (0..devices.len() as DevIx)
                    .find(|&d| problem.allowed(v, d))
                    .unwrap_or(place[v as usize]);
            }
        }
        Ok(place)
    }
}

/// Mode 1: each layer's branches by longest processing time first, then its sources and
/// sinks next to most of their placed neighbours.
fn branches(problem: &Problem, layer: &[i64], gpus: &[DevIx], place: &mut [DevIx]) {
    let g = problem.graph;
    let n = g.node_count();
    let same = |u: usize, v: usize| layer[u] == layer[v];
    let inner = |v: usize| {
        let has_pred = g
            .in_edges(v as NodeIx)
            .iter()
            .any(|&e| same(g.edges[e as usize].src as usize, v));
        let mut succs = g
            .out_edges(v as NodeIx)
            .iter()
            .map(|&e| g.edges[e as usize].dst)
            .filter(|&w| same(w as usize, v));
        // Exactly one successor in the layer (however many edges lead to it): not a sink,
        // not a fork point.
        let one_succ = succs.next().is_some_and(|first| succs.all(|w| w == first));
        has_pred && one_succ
    };
    // Once per node, O(V + E): asked again for each neighbour a component search meets, a
    // node of high degree cost its degree each time (O(sum of squared degrees)).
    let inner: Vec<bool> = (0..n).map(inner).collect();
    let inner = |v: usize| inner[v];
    let mut by_layer: std::collections::BTreeMap<i64, Vec<usize>> = Default::default();
    for (v, &l) in layer.iter().enumerate() {
        by_layer.entry(l).or_default().push(v);
    }
    let mut component = vec![usize::MAX; n];
    for nodes in by_layer.values() {
        // Weakly connected components of the layer's inner nodes.
        let mut comps: Vec<Vec<usize>> = Vec::new();
        for &s in nodes {
            if !inner(s) || component[s] != usize::MAX {
                continue;
            }
            let id = comps.len();
            let mut comp = vec![s];
            component[s] = id;
            let mut i = 0;
            while i < comp.len() {
                let v = comp[i] as NodeIx;
                i += 1;
                let around = g
                    .in_edges(v)
                    .iter()
                    .map(|&e| g.edges[e as usize].src)
                    .chain(g.out_edges(v).iter().map(|&e| g.edges[e as usize].dst));
                for w in around.collect::<Vec<_>>() {
                    let w = w as usize;
                    if same(w, s) && inner(w) && component[w] == usize::MAX {
                        component[w] = id;
                        comp.push(w);
                    }
                }
            }
            comps.push(comp);
        }
        let work = |c: &Vec<usize>| c.iter().map(|&v| problem.work[v]).sum::<f64>();
        let mut order: Vec<usize> = (0..comps.len()).collect();
        order.sort_by(|&a, &b| {
            work(&comps[b])
                .total_cmp(&work(&comps[a]))
                .then(comps[a][0].cmp(&comps[b][0]))
        });
        let mut load = vec![0.0; gpus.len()];
        for c in order {
            let mut best = 0;
            for i in 1..gpus.len() {
                if load[i] < load[best] {
                    best = i;
                }
            }
            load[best] += work(&comps[c]);
            for &v in &comps[c] {
                place[v] = gpus[best];
            }
        }
        for &v in nodes {
            if inner(v) {
                continue;
            }
            let mut count = vec![0usize; gpus.len()];
            let around = g
                .in_edges(v as NodeIx)
                .iter()
                .map(|&e| g.edges[e as usize].src)
                .chain(
                    g.out_edges(v as NodeIx)
                        .iter()
                        .map(|&e| g.edges[e as usize].dst),
                );
            for w in around {
                if let Some(i) = gpus.iter().position(|&d| d == place[w as usize]) {
                    count[i] += 1;
                }
            }
            let mut best = 0;
            for i in 1..gpus.len() {
                if count[i] > count[best] {
                    best = i;
                }
            }
            place[v] = gpus[best];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::parse;

    const GPUS3: &str = r#"{"devices":[{"id":"c","kind":"cpu","speed":1},{"id":"g0","kind":"gpu","speed":1},
        {"id":"g1","kind":"gpu","speed":1},{"id":"g2","kind":"gpu","speed":1}],"bandwidth":1}"#;

    fn run(graph: &str, mode: f64) -> Result<Vec<DevIx>> {
        let (g, c) = parse(graph, GPUS3);
        let p = Problem::new(&g, &c).unwrap();
        Expert.place(
            &p,
            &Params::defaults(INFO.params).with("mode", mode),
            &mut Rng::new(0),
        )
    }

    /// Five layers 1..5 (the NMT pattern: embedding with the first LSTM layer, softmax with
    /// the last) on three GPUs: ranks 0..4 go to GPU floor(r * 3 / 5) = 0, 0, 1, 1, 2, i.e.
    /// devices 1, 1, 2, 2, 3. An unlabelled op takes its predecessor's layer; a cpu-only op
    /// stays on the CPU.
    #[test]
    fn layer_blocks() {
        let graph = r#"{"nodes":[{"id":"emb","cost":1,"layer":1},{"id":"l1","cost":1,"layer":1},{"id":"l2","cost":1,"layer":2},
            {"id":"l3","cost":1,"layer":3},{"id":"l4","cost":1,"layer":4},{"id":"sm","cost":1,"layer":5},
            {"id":"loss","cost":1},{"id":"log","cost":1,"layer":3,"device":"cpu"}],
            "edges":[{"src":"emb","dst":"l1"},{"src":"l1","dst":"l2"},{"src":"l2","dst":"l3"},{"src":"l3","dst":"l4"},
                     {"src":"l4","dst":"sm"},{"src":"sm","dst":"loss"},{"src":"l2","dst":"log"}]}"#;
        assert_eq!(run(graph, 0.0).unwrap(), vec![1, 1, 1, 2, 2, 3, 3, 0]);
        let e = run(r#"{"nodes":[{"id":"a","cost":1}]}"#, 0.0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("expert needs nodes[].layer"), "{e}");
    }

    /// One cell (layer 1): s -> {a1 -> a2, b1 -> b2, c1} -> t. Branches by work: a (2 + 2 = 4)
    /// to g0, b (3 + 0 = 3) to g1, c (1) to g2; s's neighbours: one on each GPU, ties to
    /// g0; t likewise.
    #[test]
    fn a_cells_branches_spread_over_gpus() {
        let graph = r#"{"nodes":[{"id":"s","cost":1,"layer":1},{"id":"a1","cost":2,"layer":1},{"id":"a2","cost":2,"layer":1},
            {"id":"b1","cost":3,"layer":1},{"id":"b2","cost":0,"layer":1},{"id":"c1","cost":1,"layer":1},{"id":"t","cost":1,"layer":1}],
            "edges":[{"src":"s","dst":"a1"},{"src":"a1","dst":"a2"},{"src":"a2","dst":"t"},{"src":"s","dst":"b1"},{"src":"b1","dst":"b2"},
                     {"src":"b2","dst":"t"},{"src":"s","dst":"c1"},{"src":"c1","dst":"t"}]}"#;
        assert_eq!(run(graph, 1.0).unwrap(), vec![1, 1, 1, 2, 2, 3, 1]);
    }

    /// A NASNet-like cell (layer 1): s -> p, where p (the cell's input convolution) feeds
    /// both branches a1 -> a2 and b1 -> b2 (twice to b1), which meet in t. p is a fork point:
    /// cut, the branches are {a1, a2} (work 4) -> g0 and {b1, b2} (3) -> g1. Then in index
    /// order: s (no neighbour placed yet: tie, g0), p (s, a1 on g0, b1 on g1: g0), t (a2 on
    /// g0, b2 on g1: tie, g0). Were p a branch node, both branches would be one, all on g0.
    #[test]
    fn fork_points_split_a_cells_branches() {
        let graph = r#"{"nodes":[{"id":"s","cost":1,"layer":1},{"id":"p","cost":1,"layer":1},{"id":"a1","cost":2,"layer":1},
            {"id":"a2","cost":2,"layer":1},{"id":"b1","cost":3,"layer":1},{"id":"b2","cost":0,"layer":1},{"id":"t","cost":1,"layer":1}],
            "edges":[{"src":"s","dst":"p"},{"src":"p","dst":"a1"},{"src":"p","dst":"b1"},{"src":"p","dst":"b1","bytes":2},
                     {"src":"a1","dst":"a2"},{"src":"b1","dst":"b2"},{"src":"a2","dst":"t"},{"src":"b2","dst":"t"}]}"#;
        assert_eq!(run(graph, 1.0).unwrap(), vec![1, 1, 1, 1, 2, 2, 1]);
    }
}
