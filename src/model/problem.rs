//! A graph on a cluster: the cost model every strategy and the simulator share.
//!
//! [`Problem`] joins a [`Graph`] and a [`Cluster`] and precomputes, once:
//! - `exec(v, d)`: run time of node `v` on device `d`: `time[kind]` (times the device's
//!   what-if time scale) when the node gives one, else [`op_time`]: `op_overhead + cost /
//!   (speed * op_speed[kind][op])`; `f64::INFINITY` where the node may not run (its `device` rule,
//!   its colocation group's rules, or no cost and no time for that kind). Placers only need "finite" to know a device is allowed.
//! - per-node `work` (the `c_i` of Mayer17 §2, used by rank computations): `cost` when
//!   given, else the mean over allowed devices of `exec * speed`.
//! - per-node placement `footprint`: the static memory a placer charges to a device, by a
//!   [`Footprint`] rule: by default `mem` plus the bytes of the node's output tensors
//!   (Mayer17 §3.1 "free memory"; Baechi's permanent + output memory), or Pesto21 §3.1's
//!   "input and output tensor sizes", or `mem` alone. The simulator measures the real curve.
//!
//! Validation here covers what needs both files: device rules that match nothing, and
//! colocation groups whose members allow no common device.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::cluster::{Cluster, DevIx, Device};
use crate::model::graph::{Graph, NodeIx};

/// What a node's static placement footprint counts (a scenario's `footprint`).
///
/// Every rule starts from the node's `mem` (op memory). A tensor is counted once per node
/// however many edges carry it (a graph's `tensor` names several edges as one output), with
/// its realized bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Footprint {
    /// `mem` plus the bytes of every tensor the node produces (Mayer17 §3.1's free memory,
    /// Baechi's permanent + output memory): the rule before this choice existed.
    #[default]
    Outputs,
    /// `mem` plus the bytes of every distinct tensor the node produces and every distinct
    /// tensor it consumes: Pesto21 §3.1/§3.2.2 (8), "summing up the input and output tensor
    /// memory sizes" of the ops resident on a GPU. A tensor read by several ops on one
    /// device is charged to each of them (the paper sums per op, and does not dedupe).
    InputsOutputs,
    /// `mem` only (op memory; the reference solvers; docs/pesto.md, reading 1.5 e).
    Mem,
    /// The simulation's own peak of live tensors is the judge (Baechi's rule followed end to
    /// end: a tensor is held from its producer's run until its last consumer has run). The
    /// static footprint a placer charges and `verify` checks is `mem` alone (what stays
    /// resident the whole step); tensors are judged by the simulated memory curve, and a
    /// run whose peak exceeds a device's memory is flagged out of memory (`oom`) with its
    /// makespan, not refused (docs/pesto.md, Memory).
    Live,
}

impl Footprint {
    pub const ALL: [Footprint; 4] = [
        Footprint::Outputs,
        Footprint::InputsOutputs,
        Footprint::Mem,
        Footprint::Live,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Footprint::Outputs => "outputs",
            Footprint::InputsOutputs => "inputs_outputs",
            Footprint::Mem => "mem",
            Footprint::Live => "live",
        }
    }

    pub fn parse(s: &str) -> Option<Footprint> {
        Footprint::ALL.into_iter().find(|f| f.name() == s)
    }

    /// The message for a name that is none of the rules, naming the field.
    pub fn unknown(field: &str, s: &str) -> String {
        let names: Vec<&str> = Footprint::ALL.iter().map(|f| f.name()).collect();
        format!(
            "{field}: '{s}' is not a footprint rule (one of {})",
            names.join(", ")
        )
    }

    pub fn is_default(&self) -> bool {
        *self == Footprint::default()
    }

    /// Whether a placement is judged by a static footprint (every rule but `live`).
    pub fn is_static(self) -> bool {
        self != Footprint::Live
    }
}

#[derive(Debug, Clone)]
pub struct Problem<'a> {
    pub graph: &'a Graph,
    pub cluster: &'a Cluster,
    /// Bytes of each tensor (the graph's, or randomized).
    pub tensor_bytes: Vec<f64>,
    /// Work of each node (`c_i`).
    pub work: Vec<f64>,
    /// Bytes each node keeps on its device for the whole step (the graph's `mem`, or
    /// randomized).
    pub mem: Vec<f64>,
    /// Memory a placer charges to the node's device.
    pub footprint: Vec<f64>,
    /// The rule `footprint` was computed by.
    pub footprint_rule: Footprint,
    exec: Vec<f64>,
    k: usize,
    /// Placement-independent analyses, computed on first use (`analysis`) and shared by
    /// every placement and run of this problem.
    pub(crate) memo: Memo,
}

/// What `analysis` computed once for a [`Problem`] (see `analysis::shared_rank_u`): the
/// problem never changes after it is built, so neither do these.
#[derive(Debug, Clone, Default)]
pub(crate) struct Memo {
    /// HEFT's upward rank of every node (`analysis::heft_rank_u`).
    pub rank_u: OnceLock<Arc<[f64]>>,
    /// Every node's topological position (`analysis::topo_position`).
    pub position: OnceLock<Arc<[u32]>>,
    /// Every node's distinct successors in first-edge order, each marked when it has one
    /// distinct predecessor, as a start index per node and a flat list
    /// (`schedule::msr`'s placement-independent part).
    pub distinct_successors: OnceLock<FlatLists<u32>>,
    /// Out-edges of every node in reverse topological order, as each edge's consumer and
    /// bytes, with a start index per position (`schedule::pct`'s path times read them in
    /// one pass instead of chasing the edges).
    pub reverse_out: OnceLock<FlatLists<(u32, f64)>>,
    /// The edge lists `sim::prepare` reads, flat (`sim::edge_lists`).
    pub edge_lists: OnceLock<Arc<EdgeLists>>,
}

/// Lists per item, flat: item `i`'s list is `list[start[i]..start[i + 1]]` for `(start, list)`.
pub(crate) type FlatLists<T> = (Arc<[u32]>, Arc<[T]>);

/// Each tensor's edges and each node's out-edges with their consumers, in flat arrays
/// (the graph keeps a list per tensor, and an edge's consumer in its 24-byte record).
#[derive(Debug, Default)]
pub(crate) struct EdgeLists {
    /// Each tensor's `(edge, consumer)`, in its edge order:
    /// `tensor_edges[tensor_start[t]..tensor_start[t + 1]]`.
    pub tensor_start: Vec<u32>,
    pub tensor_edges: Vec<(u32, u32)>,
    /// Each node's out-edges' consumers, in out-edge order:
    /// `out_dst[out_start[v]..out_start[v + 1]]`.
    pub out_start: Vec<u32>,
    pub out_dst: Vec<u32>,
}

/// What a [`Problem`] computes and owns (`into_data`), kept apart from the graph and cluster
/// it borrows, so that a caller can keep a seed's cost model between runs of that seed
/// (a pool worker handed several placers of one seed builds it once).
#[derive(Debug, Clone)]
pub struct ProblemData {
    tensor_bytes: Vec<f64>,
    work: Vec<f64>,
    mem: Vec<f64>,
    footprint: Vec<f64>,
    footprint_rule: Footprint,
    exec: Vec<f64>,
    k: usize,
}

/// Costs and sizes that replace the graph's own (Mayer17 §5.1 randomization).
#[derive(Debug, Clone)]
pub struct Overrides {
    /// New op costs; when given they replace both `cost` and `time` tables. `None` keeps
    /// the graph's own costs and time tables.
    pub cost: Option<Vec<f64>>,
    pub tensor_bytes: Vec<f64>,
    pub mem: Vec<f64>,
}

/// Run time of an op of `cost` on device `dev` whose kind's speed factor for the op's type
/// is `factor`: the device's fixed per-op cost (kernel launch, framework dispatch; 0 unless
/// the cluster sets `op_overhead`) plus `cost / (speed * factor)`. The one place a cost
/// becomes a time: the simulator and every placer read it through [`Problem::exec`]. A
/// `time` table entry is a measured run time and gets no overhead added.
pub fn op_time(cost: f64, dev: &Device, factor: f64) -> f64 {
    dev.op_overhead + cost / (dev.speed * factor)
}

impl<'a> Problem<'a> {
    pub fn new(graph: &'a Graph, cluster: &'a Cluster) -> Result<Problem<'a>> {
        Problem::with_overrides(graph, cluster, None)
    }

    /// Builds the cost model; `overrides` replace node costs (and with them `time` tables),
    /// tensor sizes and op memory where they are given. A `time` table entry is scaled by
    /// the cluster's what-if [`Cluster::time_scale`] of the device, as speeds scale costs.
    pub fn with_overrides(
        graph: &'a Graph,
        cluster: &'a Cluster,
        overrides: Option<&Overrides>,
    ) -> Result<Problem<'a>> {
        let n = graph.node_count();
        let k = cluster.len();
        let new_cost = overrides.and_then(|o| o.cost.as_ref());
        let mut exec = vec![f64::INFINITY; n * k];
        // Per device kind and op type, the speed factor (1 when not given).
        let factor: Vec<Vec<f64>> = cluster
            .devices
            .iter()
            .map(|d| {
                let table = cluster.op_speed.get(&d.kind);
                graph
                    .op_types
                    .iter()
                    .map(|op| table.and_then(|t| t.get(op)).copied().unwrap_or(1.0))
                    .collect()
            })
            .collect();

        for (v, node) in graph.nodes.iter().enumerate() {
            let allowed = match &node.device {
                None => None,
                Some(want) => {
                    let by_id = cluster.device_index(want);
                    if by_id.is_none() && !cluster.devices.iter().any(|d| &d.kind == want) {
                        return Err(Error::Problem(format!(
                            "node '{}' asks for device '{want}', which is neither a device id nor a device kind of the cluster",
                            node.id
                        )));
                    }
                    Some((by_id, want))
                }
            };
            let op = graph.op_type(v as NodeIx) as usize;
            for (d, dev) in cluster.devices.iter().enumerate() {
                let ok = match &allowed {
                    None => true,
                    Some((Some(id), _)) => *id as usize == d,
                    Some((None, kind)) => &dev.kind == *kind,
                };
                if !ok {
                    continue;
                }
                let cost = new_cost.map(|c| Some(c[v])).unwrap_or(node.cost);
                let table = if new_cost.is_some() {
                    None
                } else {
                    node.time
                        .iter()
                        .find(|(kind, _)| kind == &dev.kind)
                        .map(|&(_, t)| t * cluster.time_scale(d as DevIx))
                };
                exec[v * k + d] = match (table, cost) {
                    (Some(t), _) => t,
                    (None, Some(c)) => op_time(c, dev, factor[d][op]),
                    (None, None) => f64::INFINITY,
                };
            }
            if exec[v * k..(v + 1) * k].iter().all(|t| !t.is_finite()) {
                return Err(Error::Problem(format!(
                    "no device can run node '{}' (its device rule or time table rules out every device)",
                    node.id
                )));
            }
        }

        // A colocation group may only use devices every member allows.
        for (g, members) in graph.group_members.iter().enumerate() {
            let ok: Vec<bool> = (0..k)
                .map(|d| {
                    members
                        .iter()
                        .all(|&v| exec[v as usize * k + d].is_finite())
                })
                .collect();
            if !ok.iter().any(|&b| b) {
                let rules: Vec<String> = members
                    .iter()
                    .filter_map(|&v| {
                        let n = &graph.nodes[v as usize];
                        n.device.as_ref().map(|d| format!("'{}' wants '{d}'", n.id))
                    })
                    .collect();
                return Err(Error::Problem(format!(
                    "colocation group '{}' has no device that all its members may run on ({})",
                    graph.groups[g],
                    if rules.is_empty() {
                        "their time tables do not share a device kind".to_string()
                    } else {
                        rules.join(", ")
                    }
                )));
            }
            for &v in members {
                for d in 0..k {
                    if !ok[d] {
                        exec[v as usize * k + d] = f64::INFINITY;
                    }
                }
            }
        }

        let work = (0..n)
            .map(|v| match new_cost {
                Some(c) => c[v],
                None => graph.nodes[v].cost.unwrap_or_else(|| {
                    let (sum, count) = (0..k)
                        .filter(|&d| exec[v * k + d].is_finite())
                        .fold((0.0, 0usize), |(s, c), d| {
                            (s + exec[v * k + d] * cluster.devices[d].speed, c + 1)
                        });
                    sum / count as f64
                }),
            })
            .collect();
        let tensor_bytes: Vec<f64> = match overrides {
            Some(o) => o.tensor_bytes.clone(),
            None => graph.tensors.iter().map(|t| t.bytes).collect(),
        };
        let mem: Vec<f64> = match overrides {
            Some(o) => o.mem.clone(),
            None => graph.nodes.iter().map(|n| n.mem).collect(),
        };
        let mut p = Problem {
            graph,
            cluster,
            tensor_bytes,
            work,
            mem,
            footprint: Vec::new(),
            footprint_rule: Footprint::default(),
            exec,
            k,
            memo: Memo::default(),
        };
        p.set_footprint(Footprint::default());
        Ok(p)
    }

    /// Recomputes every node's placement `footprint` by `rule` from `mem` and the realized
    /// tensor bytes.
    pub fn set_footprint(&mut self, rule: Footprint) {
        let g = self.graph;
        let mut footprint = self.mem.clone();
        if rule != Footprint::Mem && rule != Footprint::Live {
            for (t, tensor) in g.tensors.iter().enumerate() {
                footprint[tensor.src as usize] += self.tensor_bytes[t];
            }
        }
        if rule == Footprint::InputsOutputs {
            for (v, f) in footprint.iter_mut().enumerate() {
                let mut inputs: Vec<u32> = g
                    .in_edges(v as NodeIx)
                    .iter()
                    .map(|&e| g.edges[e as usize].tensor)
                    .collect();
                inputs.sort_unstable();
                inputs.dedup();
                *f += inputs
                    .iter()
                    .map(|&t| self.tensor_bytes[t as usize])
                    .sum::<f64>();
            }
        }
        self.footprint = footprint;
        self.footprint_rule = rule;
    }

    /// The problem's own data, without the graph and cluster it borrows (see [`ProblemData`]).
    pub fn into_data(self) -> ProblemData {
        ProblemData {
            tensor_bytes: self.tensor_bytes,
            work: self.work,
            mem: self.mem,
            footprint: self.footprint,
            footprint_rule: self.footprint_rule,
            exec: self.exec,
            k: self.k,
        }
    }

    /// The problem `data` was taken from ([`Problem::into_data`]), given back the graph and
    /// the cluster it was built from, without building it again; `None` when their sizes
    /// show `data` was built for another graph or cluster.
    pub fn from_data(
        graph: &'a Graph,
        cluster: &'a Cluster,
        data: ProblemData,
    ) -> Option<Problem<'a>> {
        let fits = data.k == cluster.len()
            && data.exec.len() == graph.node_count() * data.k
            && data.work.len() == graph.node_count()
            && data.tensor_bytes.len() == graph.tensors.len();
        fits.then_some(Problem {
            graph,
            cluster,
            tensor_bytes: data.tensor_bytes,
            work: data.work,
            mem: data.mem,
            footprint: data.footprint,
            footprint_rule: data.footprint_rule,
            exec: data.exec,
            k: data.k,
            memo: Memo::default(),
        })
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    pub fn device_count(&self) -> usize {
        self.k
    }

    /// Run time of `v` on `d`; `f64::INFINITY` when `v` may not run there.
    #[inline]
    pub fn exec(&self, v: NodeIx, d: DevIx) -> f64 {
        self.exec[v as usize * self.k + d as usize]
    }

    /// Run times of `v` on every device.
    #[inline]
    pub fn exec_row(&self, v: NodeIx) -> &[f64] {
        let v = v as usize;
        &self.exec[v * self.k..(v + 1) * self.k]
    }

    #[inline]
    pub fn allowed(&self, v: NodeIx, d: DevIx) -> bool {
        self.exec(v, d).is_finite()
    }

    /// Fastest run time of `v` over the devices it may use.
    pub fn min_exec(&self, v: NodeIx) -> f64 {
        self.exec_row(v)
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
    }

    /// Bytes carried by edge `e` (its tensor's size).
    #[inline]
    pub fn edge_bytes(&self, e: u32) -> f64 {
        self.tensor_bytes[self.graph.edges[e as usize].tensor as usize]
    }

    /// Seconds for edge `e`'s tensor to go from `src` to `dst` (0 on one device).
    #[inline]
    pub fn edge_transfer_time(&self, e: u32, src: DevIx, dst: DevIx) -> f64 {
        self.cluster.transfer_time(src, dst, self.edge_bytes(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster() -> Cluster {
        Cluster::from_json(
            r#"{"devices":[{"id":"c0","kind":"cpu","speed":1},{"id":"g0","kind":"gpu","speed":4}],
                "bandwidth":1,"kinds":{"gpu":{"op_speed":{"Conv2D":2}}}}"#,
            "c",
        )
        .unwrap()
    }

    #[test]
    fn exec_times_follow_cost_time_and_factors() {
        let g = Graph::from_json(
            r#"{"nodes":[{"id":"a","cost":8,"op":"Conv2D"},{"id":"b","cost":8,"time":{"cpu":3}},
                         {"id":"c","time":{"gpu":1}},{"id":"d","cost":8,"device":"cpu"},{"id":"e","cost":8,"device":"g0"}]}"#,
            "g",
        )
        .unwrap();
        let c = cluster();
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(p.exec_row(0), &[8.0, 1.0]);
        assert_eq!(p.exec_row(1), &[3.0, 2.0]);
        assert_eq!(p.exec_row(2), &[f64::INFINITY, 1.0]);
        assert_eq!(p.exec_row(3), &[8.0, f64::INFINITY]);
        assert_eq!(p.exec_row(4), &[f64::INFINITY, 2.0]);
        assert_eq!(p.work[2], 4.0);
    }

    /// `op_overhead` adds a fixed time to every cost-derived run time (the device's own over
    /// its kind's), never to a `time` table entry; 0 when absent.
    #[test]
    fn op_overhead_adds_to_cost_times_only() {
        let g = Graph::from_json(
            r#"{"nodes":[{"id":"a","cost":8,"op":"Conv2D"},{"id":"b","cost":8,"time":{"cpu":3}},{"id":"z","cost":0}]}"#,
            "g",
        )
        .unwrap();
        let c = Cluster::from_json(
            r#"{"devices":[{"id":"c0","kind":"cpu","speed":1},{"id":"g0","kind":"gpu","speed":4},
                           {"id":"g1","kind":"gpu","speed":4,"op_overhead":0.25}],
                "bandwidth":1,"kinds":{"gpu":{"op_speed":{"Conv2D":2},"op_overhead":0.5}}}"#,
            "c",
        )
        .unwrap();
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(p.exec_row(0), &[8.0, 1.5, 1.25]);
        assert_eq!(p.exec_row(1), &[3.0, 2.5, 2.25]);
        assert_eq!(p.exec_row(2), &[0.0, 0.5, 0.25]);
        assert_eq!(op_time(8.0, &c.devices[1], 2.0), 1.5);
        // Round trip keeps the resolved per-device value.
        let back = Cluster::from_json(&c.to_json(), "c").unwrap();
        let overheads: Vec<f64> = back.devices.iter().map(|d| d.op_overhead).collect();
        assert_eq!(overheads, [0.0, 0.5, 0.25]);
    }

    #[test]
    fn bad_op_overhead_names_device_and_field() {
        for (json, want) in [
            (
                r#"{"devices":[{"id":"g0","speed":1,"op_overhead":-1}],"bandwidth":1}"#,
                "device 'g0': op_overhead",
            ),
            (
                r#"{"devices":[{"id":"g0","kind":"gpu","speed":1}],"bandwidth":1,"kinds":{"gpu":{"op_overhead":-2}}}"#,
                "kinds.gpu.op_overhead (device 'g0')",
            ),
            (
                r#"{"devices":[{"id":"g0","speed":1,"op_overhead":1e400}],"bandwidth":1}"#,
                "op_overhead",
            ),
        ] {
            let e = Cluster::from_json(json, "c").unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
    }

    /// a(mem 1) -> b(mem 2) and a -> c(mem 4) as one tensor "t" (5 B), a -> c as a second
    /// tensor (3 B), b -> c (7 B). Outputs: a 1 + 5 + 3 = 9, b 2 + 7 = 9, c 4. Inputs and
    /// outputs: a 9, b 9 + 5 = 14, c 4 + 5 + 3 + 7 = 19 ("t" once, though c had it from one
    /// edge and b from another). Mem: 1, 2, 4.
    #[test]
    fn footprint_rules_by_hand() {
        let g = Graph::from_json(
            r#"{"nodes":[{"id":"a","cost":1,"mem":1},{"id":"b","cost":1,"mem":2},{"id":"c","cost":1,"mem":4}],
                "edges":[{"src":"a","dst":"b","bytes":5,"tensor":"t"},{"src":"a","dst":"c","bytes":5,"tensor":"t"},
                         {"src":"a","dst":"c","bytes":3},{"src":"b","dst":"c","bytes":7}]}"#,
            "g",
        )
        .unwrap();
        let c = cluster();
        let mut p = Problem::new(&g, &c).unwrap();
        assert_eq!(p.footprint, vec![9.0, 9.0, 4.0], "the default is outputs");
        p.set_footprint(Footprint::InputsOutputs);
        assert_eq!(p.footprint, vec![9.0, 14.0, 19.0]);
        p.set_footprint(Footprint::Mem);
        assert_eq!(p.footprint, vec![1.0, 2.0, 4.0]);
        p.set_footprint(Footprint::Live);
        assert_eq!(
            p.footprint,
            vec![1.0, 2.0, 4.0],
            "live: tensors judged by the run"
        );
        assert_eq!(p.footprint_rule, Footprint::Live);
        p.set_footprint(Footprint::Outputs);
        assert_eq!(p.footprint, vec![9.0, 9.0, 4.0]);
        for f in Footprint::ALL {
            assert_eq!(Footprint::parse(f.name()), Some(f));
            assert_eq!(
                serde_json::to_string(&f).unwrap(),
                format!("\"{}\"", f.name())
            );
        }
        let e = Footprint::unknown("footprint", "inputs");
        assert!(
            e.contains("footprint: 'inputs'") && e.contains("inputs_outputs"),
            "{e}"
        );
    }

    #[test]
    fn conflicting_rules_are_errors() {
        let c = cluster();
        let g = Graph::from_json(r#"{"nodes":[{"id":"a","cost":1,"device":"tpu"}]}"#, "g").unwrap();
        let e = Problem::new(&g, &c).unwrap_err().to_string();
        assert!(e.contains("node 'a' asks for device 'tpu'"), "{e}");
        let g = Graph::from_json(r#"{"nodes":[{"id":"a","time":{"tpu":1}}]}"#, "g").unwrap();
        let e = Problem::new(&g, &c).unwrap_err().to_string();
        assert!(e.contains("no device can run node 'a'"), "{e}");
        let g = Graph::from_json(
            r#"{"nodes":[{"id":"a","cost":1,"device":"cpu","colocate":"w"},{"id":"b","cost":1,"device":"gpu","colocate":"w"}]}"#,
            "g",
        )
        .unwrap();
        let e = Problem::new(&g, &c).unwrap_err().to_string();
        assert!(e.contains("colocation group 'w'"), "{e}");
        assert!(e.contains("'a' wants 'cpu'"), "{e}");
    }
}
