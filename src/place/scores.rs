//! Per-device scores of a placement unit that `mite` and `dfs` share (Mayer17 §3.3.1 eq. 10's
//! traffic score and the execution-time score), and the traffic floor parameter both declare.

use super::{slowest_exec, UNPLACED};
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::{NodeIx, TensorIx};
use crate::model::problem::Problem;
use crate::params::{ParamSpec, Params};

/// The traffic floor parameter, of `mite` and `dfs`.
pub(crate) const TRAFFIC_FLOOR: ParamSpec = ParamSpec::non_negative(
    "traffic_floor",
    1e-3,
    "traffic score on a device that needs no transfer, as a fraction of the mean slowest op run time (0 = the paper's literal zero)",
);

/// The traffic floor in time units: `traffic_floor x` the mean over nodes of their slowest
/// allowed run time (a time scale of 1 when every run time is 0).
pub(crate) fn traffic_floor(_placer: &str, problem: &Problem, params: &Params) -> Result<f64> {
    let f = params.get(TRAFFIC_FLOOR.name);
    let n = problem.node_count();
    let total: f64 = (0..n as NodeIx).map(|v| slowest_exec(problem, v)).sum();
    let scale = total / n as f64;
    Ok(f * if scale > 0.0 { scale } else { 1.0 })
}

/// The per-device traffic and execution-time scores of one placement unit (a node or a
/// colocation group), recomputed for each unit in reused buffers.
pub(crate) struct UnitScores {
    /// Execution time score per device; `INFINITY` where the unit may not run.
    pub exec: Vec<f64>,
    /// Traffic score per device, floor included.
    pub traffic: Vec<f64>,
    tensors: Vec<TensorIx>,
}

impl UnitScores {
    pub fn new(problem: &Problem) -> UnitScores {
        let k = problem.device_count();
        UnitScores {
            exec: vec![0.0; k],
            traffic: vec![0.0; k],
            tensors: Vec::new(),
        }
    }

    /// Fills [`UnitScores::exec`]: the members' summed run time on each device over the
    /// largest such sum among allowed devices; 1 everywhere allowed when that is 0.
    pub fn fill_exec(&mut self, problem: &Problem, members: &[NodeIx]) {
        self.exec.fill(0.0);
        for &v in members {
            for (s, t) in self.exec.iter_mut().zip(problem.exec_row(v)) {
                *s += t;
            }
        }
        let max = self
            .exec
            .iter()
            .copied()
            .filter(|t| t.is_finite())
            .fold(0.0, f64::max);
        for s in &mut self.exec {
            if s.is_finite() {
                *s = if max > 0.0 { *s / max } else { 1.0 };
            }
        }
    }

    /// Fills [`UnitScores::traffic`] (eq. 10): `floor` plus, for every tensor that reaches
    /// a member from a placed node, its transfer time from that node's device. Costs
    /// O(in-edges x log(in-edges) + distinct tensors x devices): the tensors are sorted to
    /// count each once.
    pub fn fill_traffic(
        &mut self,
        problem: &Problem,
        members: &[NodeIx],
        placement: &[DevIx],
        floor: f64,
    ) {
        let g = problem.graph;
        self.tensors.clear();
        for &v in members {
            for &e in g.in_edges(v) {
                let edge = &g.edges[e as usize];
                if placement[edge.src as usize] != UNPLACED {
                    self.tensors.push(edge.tensor);
                }
            }
        }
        self.tensors.sort_unstable();
        self.tensors.dedup();
        self.traffic.fill(floor);
        for &t in &self.tensors {
            let src = placement[g.tensors[t as usize].src as usize];
            let bytes = problem.tensor_bytes[t as usize];
            for (d, s) in self.traffic.iter_mut().enumerate() {
                *s += problem.cluster.transfer_time(src, d as DevIx, bytes);
            }
        }
    }
}
